package main

// The growth run (-growth): gesetze 1×, 2× and 4× — the laws plus
// copies whose text is perturbed (one word in three gets a syllable of its
// copy), so that the term dictionary grows with the vault as it would with
// more real text — and for each: full build (wall time, peak RSS), index
// size on disk, restart on the unchanged vault, search p50. This tree only.

import (
	"bytes"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// growthFactors are the vault sizes, in copies of gesetze (-growth-sizes).
var growthFactors = []int{1, 2, 4}

var growthSizes = flag.String("growth-sizes", "1,2,4", "growth: the vault sizes, in copies of gesetze (e.g. 4 for the largest alone)")

// parseGrowthSizes reads -growth-sizes.
func parseGrowthSizes(s string) []int {
	var out []int
	for _, part := range strings.Split(s, ",") {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(part), &n); err != nil || n < 1 || n > 16 {
			check(fmt.Errorf("-growth-sizes: %q is not a number of copies from 1 to 16", part))
		}
		out = append(out, n)
	}
	return out
}

func growthBench(corpora, tmp string, v *variant, t *table) {
	t.corpus = "gesetze growth"
	growthFactors = parseGrowthSizes(*growthSizes)
	bin := stdioBuild(tmp, v)
	src, err := prepare(corpora, "gesetze", tmp)
	if err != nil {
		t.add("growth run", "skipped: "+err.Error(), "")
		return
	}
	queryFile := writeQueries(tmp, "growth.queries.json", queries("gesetze"))
	copies := filepath.Join(tmp, "growth-copies")
	type fig struct{ build, rss, size, restart, search, serveInit, serveReady, serveExit float64 }
	var figs []fig
	for _, n := range growthFactors {
		// The vault: copy 0 is the laws as they are, copy k their
		// perturbed text; files are hard links into the copies, which are
		// written once.
		dir := filepath.Join(tmp, fmt.Sprintf("growth-%dx", n))
		check(os.RemoveAll(dir))
		for k := range n {
			from := src
			if k > 0 {
				from = filepath.Join(copies, fmt.Sprint(k))
				if !exists(from) {
					check(perturbTree(src, from, k))
				}
			}
			check(linkTree(from, filepath.Join(dir, fmt.Sprintf("c%d", k))))
		}
		notes, bytes := countNotes(dir)
		state := filepath.Join(tmp, fmt.Sprintf("growth-%dx.state", n))
		check(os.RemoveAll(state))
		b := runChild(v.bench, "build", dir, state)
		size := float64(dirSize(filepath.Join(state, "index"))) / 1e6
		// The median of three restarts, as in the restart section: the
		// first open after a build may still remove the files its last
		// merge left.
		var walls []float64
		for range 3 {
			walls = append(walls, runChild(v.bench, "restart", dir, state).Seconds)
		}
		initAfter, readyAfter, exitAfter := serveRestart(bin, dir, state, tmp)
		s := runChild(v.bench, "search", dir, state, queryFile, "2")
		var lat []time.Duration
		for _, q := range s.Queries {
			lat = append(lat, millis(q.Millis)...)
		}
		f := fig{b.Seconds, float64(b.MaxRSSKB) / 1024, size, median(walls), float64(percentile(lat, 50).Microseconds()) / 1000,
			initAfter.Seconds(), readyAfter.Seconds(), exitAfter.Seconds()}
		figs = append(figs, f)
		fmt.Fprintf(os.Stderr, "  growth %d×: %d notes, %.0f MB: build %.1f s, peak RSS %.0f MB, index %.0f MB, restart %.2f s, serve restart: initialize %.0f ms, complete search %.2f s, exit after the client closed stdio %.0f ms; search p50 %.1f ms\n",
			n, notes, float64(bytes)/1e6, f.build, f.rss, f.size, f.restart, 1000*f.serveInit, f.serveReady, 1000*f.serveExit, f.search)
		label := fmt.Sprintf("%d× (%d notes, %.0f MB)", n, notes, float64(bytes)/1e6)
		t.add(label+": full build", fmt.Sprintf("%.1f s, peak RSS %.0f MB, index %.0f MB", f.build, f.rss, f.size), "")
		if n == 4 {
			t.goal(label+": restart unchanged, index open to up to date", fmt.Sprintf("%.2f s", f.restart), "≤ 0.5 s", f.restart <= 0.5)
		} else {
			t.add(label+": restart unchanged, index open to up to date", fmt.Sprintf("%.2f s", f.restart), "")
		}
		if n == 4 {
			t.goal(label+": serve restart → initialize answered", fmt.Sprintf("%.0f ms", 1000*f.serveInit), "≤ 100 ms", f.serveInit <= 0.1)
			t.goal(label+": serve restart → first search from a complete index", fmt.Sprintf("%.2f s", f.serveReady), "≤ 0.5 s", f.serveReady <= 0.5)
			t.add(label+": serve exit after the client closes stdio", fmt.Sprintf("%.0f ms", 1000*f.serveExit), "")
		} else {
			t.add(label+": serve restart → initialize answered", fmt.Sprintf("%.0f ms", 1000*f.serveInit), "")
			t.add(label+": serve restart → first search from a complete index", fmt.Sprintf("%.2f s", f.serveReady), "")
		}
		t.add(label+": search p50", fmt.Sprintf("%.1f ms", f.search), "")
		check(os.RemoveAll(state))
		check(os.RemoveAll(dir))
	}
	// What grows faster than the vault (by more than a tenth over
	// linear from 1× to 4×).
	if len(figs) < 2 {
		return
	}
	first, last := figs[0], figs[len(figs)-1]
	k := float64(growthFactors[len(growthFactors)-1] / growthFactors[0])
	for _, m := range []struct {
		name string
		a, b float64
	}{{"build time", first.build, last.build}, {"peak RSS", first.rss, last.rss}, {"index size", first.size, last.size},
		{"restart", first.restart, last.restart}, {"serve restart to a complete search", first.serveReady, last.serveReady},
		{"search p50", first.search, last.search}} {
		if m.a <= 0 {
			continue
		}
		r := m.b / m.a
		how := fmt.Sprintf("grows no faster than the vault's %.0f×", k)
		if r > 1.1*k {
			how = fmt.Sprintf("GROWS FASTER than the vault's %.0f×", k)
		}
		t.add(fmt.Sprintf("growth 1× → %.0f×: %s", k, m.name), fmt.Sprintf("%.2f× (%s)", r, how), "")
	}
}

// serveRestart starts `vaultd serve` (stdio) on the unchanged vault with
// its built index and returns how long until initialize was answered and
// until a search was answered from a complete index: everything serve
// does at start (the index's open and catch-up, the watcher, recovery)
// included; and how long serve took to exit once the client closed its
// stdin (mcp-go's client waits 2 s, then sends SIGTERM). The median of
// three starts.
func serveRestart(bin, dir, state, tmp string) (initAfter, readyAfter, exitAfter time.Duration) {
	logf, err := os.Create(filepath.Join(tmp, "growth.serve.log"))
	check(err)
	defer logf.Close()
	args := []string{"serve", "--vault", dir, "--state-dir", state, "--allow", "read"}
	var inits, readies, exits []time.Duration
	for range 3 {
		start := time.Now()
		s := stdioStart(bin, args, logf)
		inits = append(inits, time.Since(start))
		readies = append(readies, s.untilComplete(start, map[string]any{"query": "Kündigungsfrist"}))
		closed := time.Now()
		check(s.c.Close())
		exits = append(exits, time.Since(closed))
	}
	return percentile(inits, 50), percentile(readies, 50), percentile(exits, 50)
}

// linkTree recreates src's folders in dst with hard links to its files
// (copies where the file system refuses links).
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if os.Link(p, target) == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// perturbTree writes copy k of src's notes to dst: the frontmatter as it
// is, and in the text every third word of four or more ASCII letters
// (chosen by a hash of the word and k) with a syllable of copy k after its
// second letter, so that the copy adds terms of its own.
func perturbTree(src, dst string, k int) error {
	syl := []byte{"bcdfghklmnprstvwz"[k%17], "aeiou"[k%5]}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if filepath.Ext(p) == ".md" {
			b = perturb(b, k, syl)
		}
		return os.WriteFile(target, b, 0o644)
	})
}

func perturb(b []byte, k int, syl []byte) []byte {
	body := 0
	if bytes.HasPrefix(b, []byte("---\n")) {
		if i := bytes.Index(b[4:], []byte("\n---")); i >= 0 {
			body = 4 + i + 4
		}
	}
	out := make([]byte, 0, len(b)+len(b)/10)
	out = append(out, b[:body]...)
	letter := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	for i := body; i < len(b); {
		if !letter(b[i]) {
			out = append(out, b[i])
			i++
			continue
		}
		j := i
		for j < len(b) && letter(b[j]) {
			j++
		}
		w := b[i:j]
		h := fnv.New32a()
		h.Write(w)
		if len(w) >= 4 && (int(h.Sum32())+k)%3 == 0 && (j == len(b) || b[j] < 0x80) && (i == 0 || b[i-1] < 0x80) {
			out = append(out, w[:2]...)
			out = append(out, syl...)
			out = append(out, w[2:]...)
		} else {
			out = append(out, w...)
		}
		i = j
	}
	return out
}
