package main

// The stdio section (-only stdio): vaultd as an agent sees it. The real
// binary is built and started as `vaultd serve` on a copy of the corpus,
// driven over MCP stdio by mcp-go's client, and every figure is a round
// trip through the protocol: JSON-RPC encoding, the tool, rendering the
// text answer.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/note"
)

// stdioCalls is how many calls of each tool are timed.
const stdioCalls = 240

// stdioNameCalls is how many lookups by name are timed: fewer, because a
// build that walks the vault per lookup takes 100–400 ms for each.
const stdioNameCalls = 40

// stdioCommand is the server's command line, printed under the table.
var stdioCommand string

// stdioBuild builds the variant's ./cmd/vaultd into tmp (once); nil
// variant: this tree.
func stdioBuild(tmp string, v *variant) string {
	if v == nil {
		v = &thisTree
	}
	if v.vaultd != "" {
		return v.vaultd
	}
	root := v.src
	if root == "" {
		var err error
		root, err = stdioModuleRoot()
		check(err)
	}
	bin := filepath.Join(tmp, "vaultd-bench-bin"+strings.ReplaceAll(v.state, ".", "-"))
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/vaultd")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	check(cmd.Run())
	v.vaultd = bin
	return bin
}

// thisTree stands for this tree where no variant is given.
var thisTree = variant{name: "this tree", state: ".state"}

// stdioModuleRoot finds the directory of go.mod from the working directory.
func stdioModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/vaultd/vaultd\n")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of github.com/vaultd/vaultd above %s", dir)
		}
	}
}

// stdioNote is a note the read and append calls use.
type stdioNote struct {
	path    string // vault-relative
	heading string // a heading path in it ("" for the whole note)
	size    int64
}

// stdioSample picks about n notes spread over the sorted vault; every
// second one is read by a heading.
func stdioSample(dir string, n int) []stdioNote {
	var all []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.") {
			all = append(all, p)
		}
		return nil
	})
	sort.Strings(all)
	var out []stdioNote
	step := max(1, len(all)/n)
	for i := 0; i < len(all) && len(out) < n; i += step {
		src, err := os.ReadFile(all[i])
		if err != nil {
			continue
		}
		rel, _ := filepath.Rel(dir, all[i])
		sn := stdioNote{path: filepath.ToSlash(rel), size: int64(len(src))}
		if len(out)%2 == 1 {
			if hs := note.Parse(src).Headings; len(hs) > 1 {
				sn.heading = note.JoinHeadingPath(hs[len(hs)/2].Path)
			}
		}
		out = append(out, sn)
	}
	return out
}

// stdioSession is one `vaultd serve` process with an MCP session.
type stdioSession struct {
	c      *client.Client
	errors int // tool results with isError
}

func (s *stdioSession) call(name string, args map[string]any) (string, time.Duration) {
	text, d, _, _ := s.callHits(name, args)
	return text, d
}

// callHits is call that also returns the number of sections the
// structured answer's hits show (search_notes; a hit without a sections
// list, as before hits were sections, shows one).
func (s *stdioSession) callHits(name string, args map[string]any) (string, time.Duration, int, int) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	start := time.Now()
	res, err := s.c.CallTool(ctx, req)
	d := time.Since(start)
	check(err)
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		s.errors++
		if s.errors <= 3 {
			fmt.Fprintf(os.Stderr, "  stdio: %s %v: tool error:\n%s\n", name, args, b.String())
		}
	}
	hits, sections := 0, 0
	if sc, ok := res.StructuredContent.(map[string]any); ok {
		if hs, ok := sc["hits"].([]any); ok {
			hits = len(hs)
			for _, h := range hs {
				n := 1
				if m, ok := h.(map[string]any); ok {
					if ss, ok := m["sections"].([]any); ok {
						n = max(1, len(ss))
					}
				}
				sections += n
			}
		}
	}
	return b.String(), d, hits, sections
}

// stdioStart starts `vaultd serve` (bin args) with an MCP session and
// waits for initialize.
func stdioStart(bin string, args []string, logf *os.File) *stdioSession {
	c, err := client.NewStdioMCPClientWithOptions(bin, nil, args, transport.WithCommandStderrWriter(logf))
	check(err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "vaultd-bench", Version: "0"}
	_, err = c.Initialize(ctx, init)
	check(err)
	return &stdioSession{c: c}
}

// untilComplete searches with args until the answer comes from a complete
// index and returns how long that took since start (a restart: at most 5
// minutes).
func (s *stdioSession) untilComplete(start time.Time, args map[string]any) time.Duration {
	for {
		text, _ := s.call("search_notes", args)
		if !strings.Contains(text, "index building") {
			return time.Since(start)
		}
		if time.Since(start) > 5*time.Minute {
			check(fmt.Errorf("stdio: index not ready 5 minutes after a restart"))
		}
	}
}

// bigFolderFigures are read_note round trips in the folder with the most
// notes directly in it, by path and by title.
type bigFolderFigures struct {
	folder          string
	notes           int // directly in the folder
	path50, title50 time.Duration
	titles          int // notes read by title (with a title no other note has)
}

// stdioBigFolder times read_note by path and by title on up to 50 notes
// of the folder holding the most notes (when it holds ≥ 4,000).
func stdioBigFolder(s *stdioSession, vdir string) bigFolderFigures {
	byFolder := map[string][]string{}
	filepath.WalkDir(vdir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.") {
			rel, _ := filepath.Rel(vdir, p)
			rel = filepath.ToSlash(rel)
			dir := ""
			if i := strings.LastIndex(rel, "/"); i >= 0 {
				dir = rel[:i]
			}
			byFolder[dir] = append(byFolder[dir], rel)
		}
		return nil
	})
	var f bigFolderFigures
	for dir, ps := range byFolder {
		if len(ps) > f.notes || len(ps) == f.notes && dir < f.folder {
			f.folder, f.notes = dir, len(ps)
		}
	}
	if f.notes < 4000 {
		return f
	}
	ps := byFolder[f.folder]
	sort.Strings(ps)
	// Titles: frontmatter title or H1, else none; only those no other
	// note of the vault has.
	titleOf := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(vdir, filepath.FromSlash(rel)))
		if err != nil {
			return ""
		}
		return note.Parse(b).Title
	}
	count := map[string]int{}
	for _, list := range byFolder {
		for _, p := range list {
			if t := strings.ToLower(titleOf(p)); t != "" {
				count[t]++
			}
		}
	}
	var paths, titles []string
	for i := 0; i < len(ps) && len(paths) < 50; i += max(1, len(ps)/50) {
		paths = append(paths, ps[i])
		if t := titleOf(ps[i]); t != "" && count[strings.ToLower(t)] == 1 {
			titles = append(titles, t)
		}
	}
	time1 := func(arg []string) time.Duration {
		for i := range min(5, len(arg)) {
			s.call("read_note", map[string]any{"path": arg[i]})
		}
		var lat []time.Duration
		for i := range stdioCalls {
			_, d := s.call("read_note", map[string]any{"path": arg[i%len(arg)]})
			lat = append(lat, d)
		}
		return percentile(lat, 50)
	}
	f.path50 = time1(paths)
	if len(titles) > 0 {
		f.title50, f.titles = time1(titles), len(titles)
	}
	return f
}

// stdioFigures are one variant's stdio measurements.
type stdioFigures struct {
	ready                        time.Duration
	initAfter, searchAfter       time.Duration // after a restart: initialize answered; a search answered from a complete index
	big                          bigFolderFigures
	r50, r95, s50, s95, a50, a95 time.Duration
	// read_note by exact path in the vault's largest folder (bigFolder,
	// bigNotes notes in it), by title, by a folder note's folder name
	folderP50, titleP50, folderNameP50 time.Duration
	bigFolder                          string
	bigNotes, titleNotes, folderNames  int
	hitChars, sectionChars             float64 // search_notes text per hit (note) and per section shown, in characters
	tools                              int
	toolsJSON                          int
	sweep                              []sweepFigure
	errors                             int
	notes, queries, targets            int
}

// stdioBench runs stdioRun for each variant (baseline first) and adds the
// rows.
func stdioBench(name, dir, tmp string, variants []*variant, qmd *qmdPeer, t *table) {
	figs := make([]stdioFigures, len(variants))
	for i, v := range variants {
		figs[i] = stdioRun(name, dir, tmp, v)
	}
	col := func(f func(stdioFigures) float64) []float64 {
		out := make([]float64, len(figs))
		for i := range figs {
			out[i] = f(figs[i])
		}
		return out
	}
	d := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	cur := figs[len(figs)-1]
	t.cmp("stdio: index ready (fresh state dir)", col(func(f stdioFigures) float64 { return f.ready.Seconds() }), secs, "", nil, 0)
	t.cmp(fmt.Sprintf("stdio: read_note p50 (%d calls, %d notes)", stdioCalls, cur.notes), col(func(f stdioFigures) float64 { return d(f.r50) }), msf, "", nil, 0)
	t.cmp("stdio: read_note p95", col(func(f stdioFigures) float64 { return d(f.r95) }), msf, "", nil, 0)
	if cur.bigNotes > 0 {
		target, ok := "", func(float64) bool { return true }
		if cur.bigNotes >= 4000 {
			target, ok = "≤ 2 ms", func(v float64) bool { return v <= 2 }
		}
		t.cmp(fmt.Sprintf("stdio: read_note p50 by path in %s/ (%d notes)", cur.bigFolder, cur.bigNotes), col(func(f stdioFigures) float64 { return d(f.folderP50) }), msf, target, ok, 0)
	}
	if cur.titleNotes > 0 {
		t.cmp(fmt.Sprintf("stdio: read_note p50 by title (%d calls, %d titles)", stdioNameCalls, cur.titleNotes), col(func(f stdioFigures) float64 { return d(f.titleP50) }), msf,
			"≤ 5 ms", func(v float64) bool { return v <= 5 }, 0)
	}
	if cur.folderNames > 0 {
		t.cmp(fmt.Sprintf("stdio: read_note p50 by folder-note name (%d calls, %d folders)", stdioNameCalls, cur.folderNames), col(func(f stdioFigures) float64 { return d(f.folderNameP50) }), msf,
			"≤ 5 ms", func(v float64) bool { return v <= 5 }, 0)
	}
	t.cmp(fmt.Sprintf("stdio: search_notes p50 (%d calls, %d queries)", stdioCalls, cur.queries), col(func(f stdioFigures) float64 { return d(f.s50) }), msf, "", nil, 0)
	t.cmp("stdio: search_notes p95", col(func(f stdioFigures) float64 { return d(f.s95) }), msf, "", nil, 0)
	if qmd != nil {
		var texts []string
		for _, q := range queries(name) {
			texts = append(texts, q.q.Text)
		}
		metric := "stdio: search p50 against qmd 2.8.3's over MCP (lex, no rerank)"
		q50, q95, err := qmd.search(dir, tmp, texts, stdioCalls)
		switch {
		case err != nil:
			fmt.Fprintf(os.Stderr, "qmd search skipped: %v\n", err)
			t.add(metric, "skipped: "+strings.SplitN(err.Error(), "\n", 2)[0], "")
		default:
			fmt.Fprintf(os.Stderr, "  stdio (qmd 2.8.3): query p50 %s, p95 %s\n", ms(q50), ms(q95))
			faster := d(q50) / d(cur.s50)
			value := fmt.Sprintf("%s vs %s (%.0f× faster)", msf(d(cur.s50)), msf(d(q50)), faster)
			if name == "gesetze" {
				t.goal(metric, value, "≥ 50× faster", faster >= 50)
			} else {
				t.add(metric, value, "")
			}
		}
	}
	chars := func(v float64) string { return fmt.Sprintf("%.0f chars", v) }
	t.cmp("stdio: search_notes text per hit (note)", col(func(f stdioFigures) float64 { return f.hitChars }), chars, "", nil, 0)
	t.cmp("stdio: search_notes text per section shown", col(func(f stdioFigures) float64 { return f.sectionChars }), chars,
		"≤ 400 chars", func(v float64) bool { return v <= 400 }, 0)
	t.cmp(fmt.Sprintf("stdio: append_to_note p50 (%d calls, %d notes)", stdioCalls, cur.targets), col(func(f stdioFigures) float64 { return d(f.a50) }), msf, "", nil, 0)
	t.cmp("stdio: append_to_note p95", col(func(f stdioFigures) float64 { return d(f.a95) }), msf, "", nil, 0)
	t.cmp(fmt.Sprintf("stdio: tools/list result JSON (%d tools, all rights)", cur.tools), col(func(f stdioFigures) float64 { return float64(f.toolsJSON) }),
		func(v float64) string { return fmt.Sprintf("%.0f bytes", v) }, "", nil, 0)
	t.cmp("stdio: restart on the unchanged vault → initialize answered", col(func(f stdioFigures) float64 { return d(f.initAfter) }), msf,
		"≤ 100 ms", func(v float64) bool { return v <= 100 }, 0)
	t.cmp("stdio: restart on the unchanged vault → first search from a complete index", col(func(f stdioFigures) float64 { return f.searchAfter.Seconds() }),
		func(v float64) string { return fmt.Sprintf("%.2f s", v) }, "≤ 0.5 s", func(v float64) bool { return v <= 0.5 }, 0)
	for _, sw := range cur.sweep {
		// A tool the baseline does not have is measured for this tree
		// alone.
		var same []sweepFigure // this label's figure of each variant that has it
		for _, f := range figs {
			if i := slices.IndexFunc(f.sweep, func(x sweepFigure) bool { return x.label == sw.label }); i >= 0 {
				same = append(same, f.sweep[i])
			}
		}
		sc := func(f func(sweepFigure) float64) []float64 {
			out := make([]float64, len(same))
			for i, x := range same {
				out[i] = f(x)
			}
			return out
		}
		t.cmp(fmt.Sprintf("stdio: %s, first call of a session", sw.label), sc(func(f sweepFigure) float64 { return d(f.first) }), msf,
			"≤ 500 ms", func(v float64) bool { return v <= 500 }, 0)
		t.cmp(fmt.Sprintf("stdio: %s, p50 of the %d calls after", sw.label, sweepCalls), sc(func(f sweepFigure) float64 { return d(f.warm) }), msf,
			"≤ 250 ms", func(v float64) bool { return v <= 250 }, 0)
	}
	if b := cur.big; b.notes >= 4000 {
		t.cmp(fmt.Sprintf("stdio: read_note by path p50 (folder %s/, %d notes)", b.folder, b.notes), col(func(f stdioFigures) float64 { return d(f.big.path50) }), msf,
			"≤ 2 ms", func(v float64) bool { return v <= 2 }, 0)
		if b.titles > 0 {
			t.cmp(fmt.Sprintf("stdio: read_note by title p50 (%d titles there)", b.titles), col(func(f stdioFigures) float64 { return d(f.big.title50) }), msf,
				"≤ 5 ms", func(v float64) bool { return v <= 5 }, 0)
		}
	} else {
		t.add("stdio: read_note in a folder of ≥ 4,000 notes", fmt.Sprintf("none here (largest: %q, %d notes); see tldr-en", cur.big.folder, cur.big.notes), "")
	}
	if cur.errors > 0 {
		t.add("stdio: tool calls answered with isError", fmt.Sprint(cur.errors), "0")
	}
}

// stdioRun serves a copy of the corpus over stdio with the variant's
// vaultd and times read_note, search_notes and append_to_note round trips.
func stdioRun(name, dir, tmp string, v *variant) stdioFigures {
	bin := stdioBuild(tmp, v)
	vdir := filepath.Join(tmp, name+".stdio-vault")
	state := filepath.Join(tmp, name+".stdio-state")
	check(os.RemoveAll(vdir))
	check(os.RemoveAll(state))
	check(copyTree(dir, vdir))
	defer os.RemoveAll(vdir)
	defer os.RemoveAll(state)

	logf, err := os.Create(filepath.Join(tmp, name+".stdio.log"))
	check(err)
	defer logf.Close()
	args := []string{"serve", "--vault", vdir, "--state-dir", state, "--allow", "read,write,delete",
		"--writes-per-minute", "1000000"}
	start := time.Now()
	s := stdioStart(bin, args, logf)
	c := s.c
	closed := false
	defer func() {
		if !closed {
			c.Close()
		}
	}()

	// The size of what a client loads into the model's context up front.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	cancel()
	check(err)
	tj, err := json.Marshal(tools)
	check(err)

	qs := queries(name)
	searchArgs := func(i int) map[string]any {
		q := qs[i%len(qs)].q
		a := map[string]any{"query": q.Text}
		if q.Folder != "" {
			a["folder"] = q.Folder
		}
		if q.Space != "" {
			a["space"] = q.Space
		}
		return a
	}
	// A fresh state dir: the index builds in the background; searches say
	// "index building" until it is done.
	deadline := time.Now().Add(15 * time.Minute)
	for {
		text, _ := s.call("search_notes", searchArgs(0))
		if !strings.Contains(text, "index building") {
			break
		}
		if time.Now().After(deadline) {
			check(fmt.Errorf("stdio: index not built after 15 minutes"))
		}
		time.Sleep(200 * time.Millisecond)
	}
	ready := time.Since(start)

	notes := stdioSample(vdir, 50)
	if len(notes) == 0 {
		check(fmt.Errorf("stdio: no notes in %s", vdir))
	}
	sweep := stdioSweep(s, notes[len(notes)/2].path)
	readArgs := func(i int) map[string]any {
		n := notes[i%len(notes)]
		a := map[string]any{"path": n.path}
		if n.heading != "" {
			a["heading"] = n.heading
		}
		return a
	}
	// Appends go to four notes of about median size (each append
	// reindexes its note, so a huge law would measure the law).
	bySize := append([]stdioNote(nil), notes...)
	sort.Slice(bySize, func(i, j int) bool { return bySize[i].size < bySize[j].size })
	mid := len(bySize) / 2
	targets := bySize[max(0, mid-2):min(len(bySize), mid+2)]
	appendArgs := func(i int) map[string]any {
		return map[string]any{"path": targets[i%len(targets)].path,
			"content":        fmt.Sprintf("- Bench-Eintrag %d: Messung der Antwortzeit.", i),
			"change_summary": fmt.Sprintf("bench: Eintrag %d angehängt", i)}
	}

	var chars, hits, sections int
	measureN := func(calls int, tool string, args func(int) map[string]any) (p50, p95 time.Duration) {
		for i := range 5 { // warm-up
			s.call(tool, args(i))
		}
		var lat []time.Duration
		for i := range calls {
			text, d, n, ns := s.callHits(tool, args(i))
			lat = append(lat, d)
			if n > 0 {
				chars += utf8.RuneCountInString(text)
				hits += n
				sections += ns
			}
		}
		return percentile(lat, 50), percentile(lat, 95)
	}
	measure := func(tool string, args func(int) map[string]any) (p50, p95 time.Duration) {
		return measureN(stdioCalls, tool, args)
	}
	r50, r95 := measure("read_note", readArgs)
	names := stdioNames(vdir, 50)
	var folderP50, titleP50, folderNameP50 time.Duration
	if len(names.big) > 0 {
		folderP50, _ = measure("read_note", func(i int) map[string]any { return map[string]any{"path": names.big[i%len(names.big)]} })
	}
	if len(names.titles) > 0 {
		titleP50, _ = measureN(stdioNameCalls, "read_note", func(i int) map[string]any { return map[string]any{"path": names.titles[i%len(names.titles)]} })
	}
	if len(names.folders) > 0 {
		folderNameP50, _ = measureN(stdioNameCalls, "read_note", func(i int) map[string]any { return map[string]any{"path": names.folders[i%len(names.folders)]} })
	}
	s50, s95 := measure("search_notes", searchArgs)
	a50, a95 := measure("append_to_note", appendArgs)
	big := stdioBigFolder(s, vdir)

	// Restart on the unchanged vault (the server's own writes are
	// indexed): until initialize is answered, and until a search is
	// answered from a complete index, everything serve does at start
	// included (recovery, the watcher, the catch-up).
	check(c.Close())
	closed = true
	start = time.Now()
	s2 := stdioStart(bin, args, logf)
	initAfter := time.Since(start)
	searchAfter := s2.untilComplete(start, searchArgs(1))
	s.errors += s2.errors
	check(s2.c.Close())

	stdioCommand = "stdio rows: go build -o BIN ./cmd/vaultd; BIN serve --vault <copy of the corpus> --state-dir <fresh temp dir> " +
		strings.Join(args[5:], " ") + ", driven by mcp-go's stdio client; text per hit = search_notes text characters / hits (notes), per section = / sections shown"
	f := stdioFigures{sweep: sweep, ready: ready, initAfter: initAfter, searchAfter: searchAfter, big: big, r50: r50, r95: r95, s50: s50, s95: s95, a50: a50, a95: a95,
		folderP50: folderP50, titleP50: titleP50, folderNameP50: folderNameP50, bigFolder: names.folder,
		bigNotes: names.folderNotes, titleNotes: len(names.titles), folderNames: len(names.folders),
		tools: len(tools.Tools), toolsJSON: len(tj), errors: s.errors, notes: len(notes), queries: len(qs), targets: len(targets)}
	if hits > 0 {
		f.hitChars = float64(chars) / float64(hits)
		f.sectionChars = float64(chars) / float64(sections)
	}
	return f
}

// stdioNameSet is what the name lookups of stdioRun ask for.
type stdioNameSet struct {
	folder      string   // the folder holding the most notes directly
	folderNotes int      // how many
	big         []string // paths of about n notes spread over it
	titles      []string // titles (frontmatter title or H1) unique in the vault, of about n notes
	folders     []string // folder names of about n folder notes (x/Name/index.md), unique in the vault
}

// stdioNames picks the notes that the name lookups read: by path in the
// largest folder, by title and by folder-note folder name, each name
// unique in the vault so that every lookup reads a note.
func stdioNames(dir string, n int) stdioNameSet {
	var all []string
	byFolder := map[string][]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.") {
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			all = append(all, rel)
			byFolder[note.FolderOf(rel)] = append(byFolder[note.FolderOf(rel)], rel)
		}
		return nil
	})
	sort.Strings(all)
	var out stdioNameSet
	for f, ps := range byFolder {
		if len(ps) > out.folderNotes || (len(ps) == out.folderNotes && f < out.folder) {
			out.folder, out.folderNotes = f, len(ps)
		}
	}
	spread := func(ps []string) []string {
		sort.Strings(ps)
		var s []string
		step := max(1, len(ps)/n)
		for i := 0; i < len(ps) && len(s) < n; i += step {
			s = append(s, ps[i])
		}
		return s
	}
	out.big = spread(byFolder[out.folder])
	// Names used by more than one note (or that are some note's file
	// name) would make a lookup ambiguous: count them over the vault.
	count := map[string]int{}
	key := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	for _, p := range all {
		count[key(strings.TrimSuffix(filepath.Base(p), ".md"))]++
		if f := note.FolderNoteFolder(p); f != "" {
			count[key(filepath.Base(f))]++
		}
	}
	// Titles sit in the frontmatter or the first heading: the first 8 KB
	// of every note tell which titles are unique.
	titles := map[string][]string{} // key → the titles, one per note
	first := map[string]string{}    // path → its first title
	for _, p := range all {
		f, err := os.Open(filepath.Join(dir, p))
		if err != nil {
			continue
		}
		head := make([]byte, 8<<10)
		n, _ := io.ReadFull(f, head)
		f.Close()
		for i, ts := range note.TitleNames(note.Parse(head[:n])) {
			titles[key(ts)] = append(titles[key(ts)], ts)
			if i == 0 {
				first[p] = ts
			}
		}
	}
	for _, p := range spread(append([]string(nil), all...)) {
		if t, ok := first[p]; ok && count[key(t)] == 0 && len(titles[key(t)]) == 1 {
			out.titles = append(out.titles, t)
		}
		if f := note.FolderNoteFolder(p); f != "" && count[key(filepath.Base(f))] == 1 {
			out.folders = append(out.folders, filepath.Base(f))
		}
	}
	sort.Strings(out.titles)
	return out
}

// sweepCalls is how many calls of each tool follow its first in the sweep.
const sweepCalls = 5

// sweepFigure is one tool of the sweep: its first call in a session and
// the p50 of the sweepCalls after.
type sweepFigure struct {
	label       string
	first, warm time.Duration
}

// stdioSweep times every tool that reads the vault as a whole (listings,
// tags, changes, the overview) and those that answer about one note from
// the rest of the vault (backlinks, history, similar notes), at its first
// call in the session and after: a tool that reads every note at each
// call (list_tags did, 3.3 s over the laws at the first call) shows here.
// path is a note of the vault.
func stdioSweep(s *stdioSession, path string) []sweepFigure {
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"vault_overview", map[string]any{}},
		{"list_notes", map[string]any{}},
		{"list_notes", map[string]any{"sort": "changed"}},
		{"list_tags", map[string]any{}},
		{"list_attachments", map[string]any{}},
		{"recent_changes", map[string]any{}},
		{"list_trash", map[string]any{}},
		{"query_notes", map[string]any{"filter": `file.mtime > "2000-01-01"`, "sort": "file.mtime desc"}},
		{"get_backlinks", map[string]any{"path": path}},
		{"note_history", map[string]any{"path": path}},
		{"search_similar_notes", map[string]any{"path": path}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	list, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	cancel()
	check(err)
	has := map[string]bool{}
	for _, t := range list.Tools {
		has[t.Name] = true
	}
	var out []sweepFigure
	for _, c := range calls {
		if !has[c.tool] {
			continue // an older build without it
		}
		label := c.tool
		if len(c.args) > 0 {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false) // the filter's > as typed
			check(enc.Encode(c.args))
			label += " " + strings.TrimSpace(b.String())
		}
		_, first := s.call(c.tool, c.args)
		var lat []time.Duration
		for range sweepCalls {
			_, d := s.call(c.tool, c.args)
			lat = append(lat, d)
		}
		out = append(out, sweepFigure{label: label, first: first, warm: percentile(lat, 50)})
	}
	return out
}
