package main

// Similar notes and search by meaning (-only similar,meaning):
//
//   - similar: search_similar_notes' index call (a more-like-this over the
//     word index, no model) for 40 notes spread over the corpus, p50/p95;
//   - meaning: with the tiny static model of embed/embedtest (loaded
//     through the real model2vec loader), the first embedding pass over
//     every section (sections/s), the vector store's size, and search
//     fused with the word ranking (and by meaning alone) over the query
//     set, p50/p95. The tiny model's vocabulary is a few dozen words, so
//     most tokens are unknown: the figures are vaultd's own cost (reading
//     and splitting notes, tokenizing, storing, scanning vectors of its 10
//     dimensions), not a real model's — a 256-dimension potion model adds
//     its table lookups and a scan 25 times as wide.

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vaultd/vaultd/embed"
	"github.com/vaultd/vaultd/embed/embedtest"
	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/vault"
)

// openBenchIndex opens dir's index in state (built by the build part, or
// built here) and waits until it is up to date.
func openBenchIndex(dir, state string, o index.Options) (*vault.Vault, *index.Index) {
	v, err := vault.Open(dir, vault.Options{StateDir: state, NoSync: true})
	check(err)
	o.Dir, o.Logger = state, slog.Default()
	ix, err := index.Open(v, o)
	check(err)
	check(ix.WaitReady(context.Background()))
	return v, ix
}

// spreadNotes returns n note paths spread evenly over the corpus's sorted
// note paths.
func spreadNotes(dir string, n int) []string {
	var all []string
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // a corpus linked into the temp dir (-tmp)
	}
	check(filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != dir {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(dir, p)
			all = append(all, filepath.ToSlash(rel))
		}
		return nil
	}))
	sort.Strings(all)
	if len(all) <= n {
		return all
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, all[i*len(all)/n])
	}
	return out
}

// similarBench measures Similar for 40 notes, rounds times each.
func similarBench(dir, state string, rounds int, add func(metric, value, target string)) {
	v, ix := openBenchIndex(dir, state, index.Options{})
	defer v.Close()
	defer ix.Close()
	ctx := context.Background()
	var lat []time.Duration
	hits := 0
	for r := range rounds {
		for _, p := range spreadNotes(dir, 40) {
			start := time.Now()
			res, err := ix.Similar(ctx, index.SimilarQuery{Path: p, Limit: 5})
			lat = append(lat, time.Since(start))
			check(err)
			if r == 0 && len(res.Hits) > 0 {
				hits++
			}
		}
	}
	add("similar notes (no model): p50", ms(percentile(lat, 50)), "")
	add("similar notes (no model): p95", ms(percentile(lat, 95)), "")
	add("similar notes: sources with a hit", fmt.Sprintf("%d of %d", hits, len(lat)/max(rounds, 1)), "")
}

// meaningBench embeds every section with the tiny static model and
// measures fused search over the query set.
func meaningBench(name, dir, state, tmp string, rounds int, add func(metric, value, target string)) {
	model := filepath.Join(tmp, "tiny-static-model")
	check(embedtest.WriteModel(model))
	e, err := embed.LoadStatic(model)
	check(err)
	old, _ := filepath.Glob(filepath.Join(state, "vectors-*.bin"))
	for _, p := range old {
		check(os.Remove(p)) // measure the first pass, not a restart
	}
	v, ix := openBenchIndex(dir, state, index.Options{})
	defer v.Close()
	defer ix.Close()
	start := time.Now()
	m, err := ix.StartMeaning(e)
	check(err)
	defer m.Close()
	check(m.WaitSynced(context.Background()))
	took := time.Since(start)
	done, total, problem := m.Coverage()
	if problem != "" {
		fmt.Fprintln(os.Stderr, "  meaning:", problem)
	}
	fmt.Fprintf(os.Stderr, "  embedded %d of %d sections in %.1fs\n", done, total, took.Seconds())
	add("meaning (tiny static model): first pass", fmt.Sprintf("%.1f s, %d sections", took.Seconds(), done), "")
	add("meaning (tiny static model): sections/s", fmt.Sprintf("%.0f", float64(done)/took.Seconds()), "")
	add("meaning: vector store size", fmt.Sprintf("%.1f MB (%d dims)", float64(m.StoreSize())/1e6, e.Dim()), "")
	ctx := context.Background()
	for _, mode := range []string{"", index.ByMeaning} {
		var lat []time.Duration
		for range rounds {
			for _, bq := range queries(name) {
				t0 := time.Now()
				_, err := ix.SearchFused(ctx, m, bq.q, mode)
				lat = append(lat, time.Since(t0))
				check(err)
			}
		}
		label := "fused search (words + meaning)"
		if mode == index.ByMeaning {
			label = "search by meaning alone"
		}
		add(label+": p50", ms(percentile(lat, 50)), "")
		add(label+": p95", ms(percentile(lat, 95)), "")
	}
}
