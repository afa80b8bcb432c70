// Command bench measures vaultd's search index on the shared corpora and
// prints one table of medians:
//
//   - full build: wall time, notes/s, MB/s, peak RSS (of a child process that
//     does only the build), index size on disk;
//   - restart on the unchanged vault: time until the index is up to date;
//   - search latency p50/p95 over a fixed set of queries, and the same
//     queries with `rg -i -l` over the same folder, as a ratio;
//   - time from an external file write to the change being searchable;
//   - stdio: the vaultd binary served over MCP stdio (mcp-go's client) on a
//     copy of the corpus: read_note, search_notes and append_to_note round
//     trips p50/p95, and the size of the tools/list answer (bench/stdio.go).
//   - http (gesetze only): `vaultd serve --http` under 8 concurrent clients
//     for 30 s — throughput and p50/p95/p99 per tool, and a check that every
//     acknowledged append is on disk exactly once (bench/http.go).
//
// Usage (from the repository root):
//
//	go run ./bench [-corpora ../shared/corpora] [-corpus gesetze,obsidian-help-de,tldr-en]
//	               [-only build,restart,search,watch,stdio,http] [-runs 3] [-rounds 5] [-writes 50]
//
// Corpora are copied (or unpacked) into a temp dir first; the originals are
// read-only. bench/bench.sh installs ripgrep when it is missing and runs
// this program. For experiments, the build child reads
// VAULTD_BENCH_BATCHDOCS, VAULTD_BENCH_BATCHMB (index.Options batch sizes)
// and VAULTD_BENCH_CPUPROFILE (a file for a CPU profile).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/vault"
)

var (
	reuse    string
	perQuery bool
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-child" {
		child(os.Args[2:])
		return
	}
	corpora := flag.String("corpora", "../shared/corpora", "folder holding gesetze.tar.xz, obsidian-help-de, tldr-en")
	corpus := flag.String("corpus", "gesetze,obsidian-help-de,tldr-en", "comma-separated corpora to measure")
	only := flag.String("only", "build,restart,search,watch,stdio,http", "comma-separated parts to run")
	runs := flag.Int("runs", 3, "repetitions of build and restart (median reported)")
	rounds := flag.Int("rounds", 5, "repetitions of the query set")
	writes := flag.Int("writes", 50, "external writes for the change-to-searchable latency")
	keep := flag.Bool("keep", false, "keep the temp dir")
	flag.StringVar(&reuse, "tmp", "", "use (and keep) this temp dir; an index built there before is reused")
	flag.BoolVar(&perQuery, "perquery", false, "print each query's latency, total and top hits")
	verbose := flag.Bool("v", false, "log index progress")
	flag.Parse()

	if !*verbose {
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	}
	parts := set(*only)
	tmp, err := os.MkdirTemp("", "vaultd-bench-")
	check(err)
	if reuse != "" {
		os.Remove(tmp)
		tmp, *keep = reuse, true
		check(os.MkdirAll(tmp, 0o755))
	}
	if !*keep {
		defer os.RemoveAll(tmp)
	} else {
		fmt.Fprintln(os.Stderr, "temp dir:", tmp)
	}

	var rows [][]string
	for _, name := range strings.Split(*corpus, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		dir, err := prepare(*corpora, name, tmp)
		if err != nil {
			fmt.Fprintf(os.Stderr, "skip %s: %v\n", name, err)
			continue
		}
		notes, bytes := countNotes(dir)
		state := filepath.Join(tmp, name+".state")
		add := func(metric, value, target string) {
			rows = append(rows, []string{name, metric, value, target})
		}
		fmt.Fprintf(os.Stderr, "%s: %d notes, %.1f MB\n", name, notes, float64(bytes)/1e6)

		needIndex := parts["build"] || parts["restart"] || parts["search"] || parts["watch"]
		if needIndex && (parts["build"] || !exists(filepath.Join(state, "index.manifest"))) {
			var walls, rsss, sizes []float64
			n := *runs
			if !parts["build"] {
				n = 1
			}
			for i := range n {
				check(os.RemoveAll(state))
				r := runChild("build", dir, state)
				walls = append(walls, r.Seconds)
				rsss = append(rsss, float64(r.MaxRSSKB)/1024)
				sizes = append(sizes, float64(dirSize(filepath.Join(state, "index")))/1e6)
				fmt.Fprintf(os.Stderr, "  build %d: %.1fs, peak RSS %.0f MB\n", i+1, r.Seconds, float64(r.MaxRSSKB)/1024)
			}
			if parts["build"] {
				w := median(walls)
				target := ""
				if name == "gesetze" {
					target = "≤ 90 s"
				}
				add("full build: wall time", fmt.Sprintf("%.1f s", w), target)
				add("full build: notes/s", fmt.Sprintf("%.0f", float64(notes)/w), "")
				add("full build: MB/s", fmt.Sprintf("%.1f", float64(bytes)/1e6/w), "")
				t := ""
				if name == "gesetze" {
					t = "≤ 1024 MB"
				}
				add("full build: peak RSS", fmt.Sprintf("%.0f MB", median(rsss)), t)
				add("index size on disk", fmt.Sprintf("%.0f MB", median(sizes)), "")
			}
		}
		if parts["restart"] {
			var walls, rsss []float64
			reindexed := 0
			for range *runs {
				r := runChild("restart", dir, state)
				walls = append(walls, r.Seconds)
				rsss = append(rsss, float64(r.MaxRSSKB)/1024)
				reindexed = max(reindexed, r.Indexed)
			}
			add("restart unchanged: catch-up", fmt.Sprintf("%.2f s", median(walls)), "≤ 3 s")
			add("restart unchanged: notes reindexed", fmt.Sprint(reindexed), "0")
			add("restart unchanged: peak RSS", fmt.Sprintf("%.0f MB", median(rsss)), "")
		}
		if parts["search"] {
			searchBench(name, dir, state, *rounds, add)
		}
		if parts["watch"] {
			watchBench(dir, state, *writes, add)
		}
		if parts["stdio"] {
			stdioBench(name, dir, tmp, add)
		}
		if parts["http"] && name == "gesetze" { // HTTP load: 8 clients, 30 s (bench/http.go)
			httpBench(*corpora, name, tmp, add)
		}
	}
	fmt.Println("command: go run ./bench " + strings.Join(os.Args[1:], " "))
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "corpus\tmetric\tmedian\ttarget")
	fmt.Fprintln(tw, "------\t------\t------\t------")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	if stdioCommand != "" {
		fmt.Println(stdioCommand)
	}
}

// prepare copies or unpacks a corpus into tmp and returns its folder.
func prepare(corpora, name, tmp string) (string, error) {
	dst := filepath.Join(tmp, name)
	if exists(dst) {
		return dst, nil
	}
	if archive := filepath.Join(corpora, name+".tar.xz"); exists(archive) {
		cmd := exec.Command("tar", "-xJf", archive, "-C", tmp)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("unpack %s: %w", archive, err)
		}
		if !exists(dst) {
			return "", fmt.Errorf("%s did not unpack to a folder %s", archive, name)
		}
		return dst, nil
	}
	src := filepath.Join(corpora, name)
	if !exists(src) {
		return "", fmt.Errorf("%s not found (set -corpora)", src)
	}
	return dst, copyTree(src, dst)
}

func copyTree(src, dst string) error {
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
		return os.WriteFile(target, b, 0o644)
	})
}

func countNotes(dir string) (n int, bytes int64) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.") {
			if fi, err := d.Info(); err == nil {
				n++
				bytes += fi.Size()
			}
		}
		return nil
	})
	return n, bytes
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// childResult is what a child process reports.
type childResult struct {
	Seconds  float64
	Indexed  int
	MaxRSSKB int64 // the child's VmHWM
}

// runChild runs this program as a child doing one build or restart, so that
// its peak RSS is that of the index alone.
func runChild(mode, dir, state string) childResult {
	exe, err := os.Executable()
	check(err)
	cmd := exec.Command(exe, "-child", mode, dir, state)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "child %s failed: %v\n%s\n", mode, err, out)
		os.Exit(1)
	}
	var r childResult
	check(json.Unmarshal(out, &r))
	if r.MaxRSSKB == 0 {
		// No /proc: the rusage of the child. (On Linux it can include the
		// parent's RSS at the time of the fork, so VmHWM is preferred.)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.MaxRSSKB = ru.Maxrss // kilobytes on Linux
		}
	}
	return r
}

// child opens the index on dir with state dir state, waits until it is up
// to date and prints the time it took.
func child(args []string) {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: bench -child build|restart VAULT STATE")
		os.Exit(2)
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	dir, state := args[1], args[2]
	if f := os.Getenv("VAULTD_BENCH_CPUPROFILE"); f != "" {
		out, err := os.Create(f)
		check(err)
		check(pprof.StartCPUProfile(out))
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	v, err := vault.Open(dir, vault.Options{StateDir: state})
	check(err)
	o := index.Options{}
	fmt.Sscan(os.Getenv("VAULTD_BENCH_BATCHDOCS"), &o.BatchDocs)
	fmt.Sscan(os.Getenv("VAULTD_BENCH_BATCHMB"), &o.BatchBytes)
	o.BatchBytes <<= 20
	ix, err := index.Open(v, o)
	check(err)
	check(ix.WaitReady(context.Background()))
	took := time.Since(start)
	st := ix.Status()
	check(ix.Close())
	check(v.Close())
	json.NewEncoder(os.Stdout).Encode(childResult{Seconds: took.Seconds(), Indexed: st.Indexed, MaxRSSKB: vmHWM()})
}

// vmHWM is this process's peak resident set size in KB (0 if unknown).
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb
		}
	}
	return 0
}

// benchQuery is one query of the fixed set, with the rg pattern that
// finds the same files by substring.
type benchQuery struct {
	q      index.Query
	rg     []string // rg arguments before the path
	folder string   // rg searches this sub-folder
}

// queries returns the fixed query set of a corpus.
func queries(name string) []benchQuery {
	w := func(text string, filters ...string) benchQuery {
		bq := benchQuery{q: index.Query{Text: text}}
		for _, f := range filters {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "folder":
				bq.q.Folder, bq.folder = v, v
			case "space":
				bq.q.Space, bq.folder = v, v
			}
		}
		bq.rg = rgArgs(text)
		return bq
	}
	switch name {
	case "gesetze":
		return []benchQuery{
			w("Krankenhaus"), w("Krankenhäuser"), w("häuser"), w("Haus"), w("Gesetz"), w("Verordnung"),
			w("Kündigung"), w("Kündigungsfrist"), w("Frist"), w("Mietvertrag"), w("Miete"), w("Arbeitnehmer"),
			w("Arbeitnehmerinnen"), w("Datenschutz"), w("Steuern"), w("Einkommensteuer"), w("Bußgeld"),
			w("Ordnungswidrigkeit"), w("Schadensersatz"), w("Verjährung"), w("Tierschutz"), w("Plan"),
			w("Bebauungsplan"), w("Straße"), w("Strasse"), w("Fahrerlaubnis"),
			w("Kündigung Mietvertrag"), w("Arbeitnehmer Urlaub"), w("Schadensersatz Verjährung"),
			w(`"elterliche Sorge"`), w(`"in Kraft"`), w("Verordnung", "folder=b"),
			w("Krankenhaus", "space=s"), w("Frist", "folder=a"), w("Gebühren*"), w("Zoll -Tabak"),
		}
	case "obsidian-help-de":
		return []benchQuery{
			w("Tabellen"), w("Tabelle"), w("Notizen"), w("Notiz"), w("verknüpfen"), w("Verknüpfungen"),
			w("Plugin"), w("Plugins"), w("Vorlage"), w("Vorlagen"), w("Datei"), w("Dateien"), w("Ordner"),
			w("Synchronisierung"), w("Sync"), w("Tastenkürzel"), w("Suche"), w("Lesezeichen"), w("Canvas"),
			w("Eigenschaften"), w("Graph"), w("Ansicht"), w("Diagramm"), w("Einbettung"), w("Markdown"),
			w("Tabellen formatieren"), w("Notizen verknüpfen"), w(`"interne Links"`), w("Plugin", "space=Obsidian erweitern"),
			w("Datei", "folder=Dateien und Ordner"), w("Vorlag*"), w("Sync -Publish"),
		}
	default: // tldr-en and others
		return []benchQuery{
			w("git"), w("commit"), w("commits"), w("branch"), w("branches"), w("docker"), w("container"),
			w("containers"), w("network"), w("networking"), w("file"), w("files"), w("archive"), w("compress"),
			w("compression"), w("password"), w("user"), w("users"), w("process"), w("processes"), w("download"),
			w("server"), w("kubernetes"), w("python"), w("package"), w("packages"), w("git branch"),
			w("docker image"), w(`"current directory"`), w("list files"), w("install", "folder=linux"), w("archive", "space=common"),
			w("comp*"), w("git -commit"),
		}
	}
}

// rgArgs turns query text into rg arguments that find files containing the
// words (any of them; rg cannot AND across lines) by substring.
func rgArgs(text string) []string {
	var args []string
	phrase := regexp.MustCompile(`"([^"]*)"`)
	for _, m := range phrase.FindAllStringSubmatch(text, -1) {
		args = append(args, "-e", regexp.QuoteMeta(m[1]))
	}
	rest := phrase.ReplaceAllString(text, " ")
	for _, f := range strings.Fields(rest) {
		if strings.HasPrefix(f, "-") {
			continue
		}
		args = append(args, "-e", regexp.QuoteMeta(strings.TrimSuffix(f, "*")))
	}
	return args
}

func searchBench(name, dir, state string, rounds int, add func(metric, value, target string)) {
	v, err := vault.Open(dir, vault.Options{StateDir: state})
	check(err)
	defer v.Close()
	ix, err := index.Open(v, index.Options{})
	check(err)
	defer ix.Close()
	check(ix.WaitReady(context.Background()))
	qs := queries(name)
	// Warm up once (page cache, dictionaries).
	for _, q := range qs {
		_, err := ix.Search(context.Background(), q.q)
		check(err)
	}
	var lat []time.Duration
	per := make([][]time.Duration, len(qs))
	for range rounds {
		for i, q := range qs {
			start := time.Now()
			_, err := ix.Search(context.Background(), q.q)
			d := time.Since(start)
			lat = append(lat, d)
			per[i] = append(per[i], d)
			check(err)
		}
	}
	if perQuery {
		for i, q := range qs {
			r, _ := ix.Search(context.Background(), q.q)
			var top []string
			for _, h := range r.Hits[:min(3, len(r.Hits))] {
				top = append(top, h.Path+" ["+h.Heading+"]")
			}
			fmt.Fprintf(os.Stderr, "  %-32q %8s  total %5d  %s\n", q.q.Text+" "+q.q.Folder+q.q.Space, ms(percentile(per[i], 50)), r.Total, strings.Join(top, " | "))
		}
	}
	p50, p95 := percentile(lat, 50), percentile(lat, 95)
	add(fmt.Sprintf("search p50 (%d queries × %d)", len(qs), rounds), ms(p50), "≤ 20 ms")
	add("search p95", ms(p95), "")

	rg, err := exec.LookPath("rg")
	if err != nil {
		add("rg -i -l p50", "rg not installed", "")
		return
	}
	var rgLat []time.Duration
	for range max(1, rounds/2) {
		for _, q := range qs {
			args := append([]string{"-i", "-l"}, q.rg...)
			args = append(args, filepath.Join(dir, filepath.FromSlash(q.folder)))
			start := time.Now()
			cmd := exec.Command(rg, args...)
			cmd.Stdout = io.Discard
			err := cmd.Run()
			rgLat = append(rgLat, time.Since(start))
			var ee *exec.ExitError
			if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
				fmt.Fprintf(os.Stderr, "  rg %s: %v\n", strings.Join(args, " "), err)
			}
		}
	}
	rp50 := percentile(rgLat, 50)
	add("rg -i -l p50 (same queries)", ms(rp50), "")
	add("speed-up over rg (p50)", fmt.Sprintf("%.1f×", float64(rp50)/float64(p50)), "≥ 5×")
}

// watchBench writes notes from outside (as an editor would) and measures
// the time until each change is found by a search.
func watchBench(dir, state string, writes int, add func(metric, value, target string)) {
	v, err := vault.Open(dir, vault.Options{StateDir: state})
	check(err)
	defer v.Close()
	ix, err := index.Open(v, index.Options{Watch: true})
	check(err)
	defer ix.Close()
	check(ix.WaitReady(context.Background()))
	var existing []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.") && len(existing) < 1000 {
			existing = append(existing, p)
		}
		return nil
	})
	sort.Strings(existing)
	var lat []time.Duration
	timeouts := 0
	for i := range writes {
		word := fmt.Sprintf("zqxbench%dmarker", i)
		var p string
		if i%2 == 0 && len(existing) > 0 {
			// Modify an existing note: append a line.
			p = existing[(i*37)%len(existing)]
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			check(err)
			_, err = fmt.Fprintf(f, "\nNachtrag %s\n", word)
			check(err)
			check(f.Close())
		} else {
			p = filepath.Join(dir, "bench-new", fmt.Sprintf("neu-%d.md", i))
			check(os.MkdirAll(filepath.Dir(p), 0o755))
			check(os.WriteFile(p, []byte("# Neu\n\nText "+word+"\n"), 0o644))
		}
		start := time.Now()
		found := false
		for time.Since(start) < 10*time.Second {
			r, err := ix.Search(context.Background(), index.Query{Text: word, Limit: 1})
			check(err)
			if r.Total > 0 {
				found = true
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if !found {
			timeouts++
			continue
		}
		lat = append(lat, time.Since(start))
	}
	add(fmt.Sprintf("external write → searchable p50 (%d writes)", writes), ms(percentile(lat, 50)), "")
	t := ms(percentile(lat, 95))
	if timeouts > 0 {
		t += fmt.Sprintf(" (%d not found in 10 s)", timeouts)
	}
	add("external write → searchable p95", t, "≤ 1 s")
}

func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			m[x] = true
		}
	}
	return m
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
