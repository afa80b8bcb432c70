package main

// The names section (-only names): finding a note by the name a person
// knows, on every door, and how well every note of the corpus is found by
// its names (trial.CheckNames over every note). The timings run the
// baseline and this tree side by side; the rates are this tree's.

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/trial"
	"github.com/vaultd/vaultd/vault"
)

// nameTitles is how many titles the command-line and first-call timings
// use; nameStarts how many server starts the first call is timed over.
const (
	nameTitles = 12
	nameStarts = 8
	pathStarts = 20 // issue 33: the first read_note of a session, over 20 starts
)

// pathSample picks n notes spread over the vault, as paths from its root.
func pathSample(dir string, n int) []string {
	var all []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.") {
			rel, _ := filepath.Rel(dir, p)
			all = append(all, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(all)
	var out []string
	for i := 0; i < len(all) && len(out) < n; i += max(1, len(all)/n) {
		out = append(out, all[i])
	}
	return out
}

// titleSample picks up to n notes spread over the vault whose title no
// other note has (a frontmatter title or H1, else its name).
func titleSample(dir string, n int) []string {
	var all []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.") {
			all = append(all, p)
		}
		return nil
	})
	sort.Strings(all)
	titleOf := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		rel, _ := filepath.Rel(dir, p)
		return note.NoteTitle(filepath.ToSlash(rel), note.Parse(b))
	}
	step := max(1, len(all)/(4*n))
	count := map[string]int{}
	var cands []string
	for i := 0; i < len(all); i += step {
		t := titleOf(all[i])
		cands = append(cands, t)
	}
	for _, p := range all {
		if len(all) > 20000 {
			break // too many to count: the sample's titles are checked below
		}
		count[strings.ToLower(titleOf(p))]++
	}
	var out []string
	for i := 0; i < len(cands) && len(out) < n; i += max(1, len(cands)/n) {
		if t := cands[i]; t != "" && count[strings.ToLower(t)] <= 1 && !strings.HasPrefix(t, "-") {
			out = append(out, t)
		}
	}
	return out
}

// namesBench adds the names rows for one corpus.
func namesBench(dir, tmp string, variants []*variant, stateOf func(*variant) string, t *table) {
	titles := titleSample(dir, nameTitles)
	if len(titles) == 0 {
		return
	}
	// vaultd read TITLE on the command line, process start included, on
	// the index the build left.
	cli := make([]float64, len(variants))
	for vi, v := range variants {
		bin := stdioBuild(tmp, v)
		var lat []time.Duration
		for _, title := range titles {
			start := time.Now()
			cmd := exec.Command(bin, "read", title, "--vault", dir, "--state-dir", stateOf(v))
			out, err := cmd.CombinedOutput()
			d := time.Since(start)
			if err != nil {
				fmt.Fprintf(os.Stderr, "  names: %s read %q: %v\n%s\n", v.name, title, err, tail(string(out), 5))
			}
			lat = append(lat, d)
		}
		cli[vi] = float64(percentile(lat, 50).Microseconds()) / 1000
		fmt.Fprintf(os.Stderr, "  names (%s): vaultd read TITLE p50 %.0f ms, p90 %.0f ms over %d titles\n", v.name, cli[vi], float64(percentile(lat, 90).Microseconds())/1000, len(lat))
	}
	t.cmp(fmt.Sprintf("CLI: vaultd read TITLE p50, process included (%d titles)", len(titles)), cli, msf, "≤ 150 ms", func(v float64) bool { return v <= 150 }, 0)

	// The first read_note by title after `vaultd serve` starts, and
	// vault_overview, over MCP stdio.
	first := make([]float64, len(variants))
	over1 := make([]float64, len(variants))
	over := make([]float64, len(variants))
	for vi, v := range variants {
		bin := stdioBuild(tmp, v)
		logf, err := os.Create(filepath.Join(tmp, "names-serve.log"))
		check(err)
		var firsts, overFirst, overs []time.Duration
		for i := range nameStarts {
			s := stdioStart(bin, []string{"serve", "--vault", dir, "--state-dir", stateOf(v)}, logf)
			_, d := s.call("read_note", map[string]any{"path": titles[i%len(titles)]})
			firsts = append(firsts, d)
			_, d = s.call("vault_overview", map[string]any{})
			overFirst = append(overFirst, d)
			if i == 0 {
				for range 10 {
					_, d := s.call("vault_overview", map[string]any{})
					overs = append(overs, d)
				}
			}
			s.c.Close()
		}
		logf.Close()
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		first[vi], over1[vi], over[vi] = ms(percentile(firsts, 50)), ms(percentile(overFirst, 50)), ms(percentile(overs, 50))
		fmt.Fprintf(os.Stderr, "  names (%s): first read_note by title after serve p50 %.1f ms (max %.1f), vault_overview right after p50 %.1f ms, warm p50 %.1f ms\n",
			v.name, first[vi], ms(slices.Max(firsts)), over1[vi], over[vi])
	}
	t.cmp(fmt.Sprintf("MCP: first read_note by title after serve starts, p50 of %d starts", nameStarts), first, msf, "≤ 50 ms", func(v float64) bool { return v <= 50 }, 0)

	// The first read_note of a session by path: serve started, initialize
	// answered, one read_note timed.
	paths := pathSample(dir, pathStarts)
	firstPath := make([]float64, len(variants))
	for vi, v := range variants {
		bin := stdioBuild(tmp, v)
		logf, err := os.Create(filepath.Join(tmp, "names-serve.log"))
		check(err)
		var firsts []time.Duration
		for i := range pathStarts {
			s := stdioStart(bin, []string{"serve", "--vault", dir, "--state-dir", stateOf(v)}, logf)
			_, d := s.call("read_note", map[string]any{"path": paths[i%len(paths)]})
			firsts = append(firsts, d)
			s.c.Close()
		}
		logf.Close()
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		firstPath[vi] = ms(percentile(firsts, 50))
		fmt.Fprintf(os.Stderr, "  names (%s): first read_note by path after serve p50 %.1f ms (p90 %.1f, max %.1f) over %d starts\n",
			v.name, firstPath[vi], ms(percentile(firsts, 90)), ms(slices.Max(firsts)), len(firsts))
	}
	t.cmp(fmt.Sprintf("MCP: first read_note by path of a session, p50 of %d starts", pathStarts), firstPath, msf, "≤ 15 ms", func(v float64) bool { return v <= 15 }, 0)
	t.cmp("MCP: vault_overview right after that, p50", over1, msf, "≤ 100 ms", func(v float64) bool { return v <= 100 }, 0)
	t.cmp("MCP: vault_overview warm, p50", over, msf, "≤ 100 ms", func(v float64) bool { return v <= 100 }, 0)

	// Every note, by its names (this tree).
	r, took := checkNames(dir, stateOf(variants[len(variants)-1]))
	fmt.Fprintf(os.Stderr, "  names: %s (%s)\n", r, took.Round(time.Second))
	for _, m := range r.Misses {
		fmt.Fprintln(os.Stderr, "    "+m)
	}
	rate := func(metric string, n, d int, target float64) {
		t.goal(fmt.Sprintf("%s (%d)", metric, d), fmt.Sprintf("%.1f %%", trial.Rate(n, d)), fmt.Sprintf("≥ %.0f %%", target), trial.Rate(n, d) >= target)
	}
	rate("names: every title, alias, file name reads its note", r.Resolved, r.Names, 100)
	rate("names: a title with one slip puts its note first", r.TypoFirst, r.Typos, 95)
	rate("names: the first words of a title put its note first", r.StartFirst, r.Starts, 95)
	rate("names: a title as a search puts its note in the top 3", r.SearchTop3, r.Searches, 90)
}

// checkNames runs trial.CheckNames over the vault at dir with the index
// in state (built by this tree).
func checkNames(dir, state string) (trial.NameRates, time.Duration) {
	start := time.Now()
	c, _, closeCore := openCore(dir, state)
	defer closeCore()
	r, err := trial.CheckNames(context.Background(), c, trial.NameCheck{Search: true, MaxMisses: 6})
	check(err)
	return r, time.Since(start)
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// openCore opens the vault at dir with its index in state, waits for the
// index, and returns the core every door calls, the index, and what
// closes them.
func openCore(dir, state string) (*tools.Core, *index.Index, func()) {
	v, err := vault.Open(dir, vault.Options{StateDir: state, NoSync: true, Actor: "bench"})
	check(err)
	idx, err := index.Open(v, index.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		v.Close()
		check(err)
	}
	check(idx.WaitReady(context.Background()))
	c, err := tools.NewCore(v, tools.CoreOptions{Index: idx})
	check(err)
	return c, idx, func() { idx.Close(); v.Close() }
}
