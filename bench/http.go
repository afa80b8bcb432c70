package main

// The http section (-only http): `vaultd serve --http` under load. The real
// binary serves a fresh copy of the corpus on loopback; 8 clients (lean
// JSON-RPC over streamable HTTP, one access key each, so one rate limit and one
// actor each) call a mix of read_note, search_notes and append_to_note for
// 30 s. Appends go to a few shared notes, so that writers collide. Then the
// server is stopped with SIGTERM (graceful shutdown) and the notes are
// checked on disk: every acknowledged append is present exactly once, in
// one piece, and the text before the appends is intact.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

var (
	httpClients  = flag.Int("http-clients", 8, "http: concurrent clients")
	httpDuration = flag.Duration("http-duration", 30*time.Second, "http: how long the load runs")
	httpMixFlag  = flag.String("http-mix", "read_note=70,search_notes=20,append_to_note=10", "http: share of each tool in percent")
	httpCPUProf  = flag.String("http-cpuprofile", "", "http: write a CPU profile of the server during the load to this file")
	httpMemProf  = flag.String("http-memprofile", "", "http: write the server's allocation profile after the load to this file")
	httpStacks   = flag.String("http-goroutines", "", "http: write the server's goroutines halfway through the load to this file (what calls wait for)")
)

// httpMix is the share of each tool in the load, in percent.
var httpMix []httpShare

type httpShare struct {
	tool  string
	share int
}

// parseMix reads -http-mix.
func parseMix(s string) []httpShare {
	var mix []httpShare
	sum := 0
	for _, part := range strings.Split(s, ",") {
		tool, n, ok := strings.Cut(strings.TrimSpace(part), "=")
		var share int
		if _, err := fmt.Sscan(n, &share); !ok || err != nil || share < 0 {
			check(fmt.Errorf("-http-mix: %q is not TOOL=PERCENT", part))
		}
		switch tool {
		case "read_note", "search_notes", "append_to_note":
		default:
			check(fmt.Errorf("-http-mix: unknown tool %q (read_note, search_notes, append_to_note)", tool))
		}
		mix = append(mix, httpShare{tool, share})
		sum += share
	}
	if sum != 100 {
		check(fmt.Errorf("-http-mix: the shares add up to %d, want 100", sum))
	}
	return mix
}

// httpSharedNotes is how many notes all clients append to.
const httpSharedNotes = 4

// httpQueries are searches an agent would send over the laws.
var httpQueries = []string{
	"Krankenhaus", "Krankenhäuser", "Kündigungsfrist", "Mietvertrag", "Arbeitnehmer Urlaub", "Datenschutz",
	"Schadensersatz Verjährung", "Tierschutz", "Fahrerlaubnis", `"elterliche Sorge"`, "Bußgeld", "Einkommensteuer",
	"Bebauungsplan", "Gebühren*", "Zoll -Tabak", "Verordnung",
}

func httpBench(corpora, name, tmp string, t *table, variants []*variant) {
	if *httpDuration <= 0 || *httpClients <= 0 {
		return
	}
	httpMix = parseMix(*httpMixFlag)
	// A copy of its own: the appends must not change what other sections
	// measure, and no other section's writes may count here.
	root := filepath.Join(tmp, "http")
	check(os.MkdirAll(root, 0o755))
	dir, err := prepare(corpora, name, root)
	check(err)
	notes := httpNotes(dir)
	if len(notes) < httpSharedNotes+1 {
		fmt.Fprintf(os.Stderr, "  http: %s has too few notes\n", name)
		return
	}
	// Each variant serves the same copy with a state dir of its own, the
	// baseline first; each load starts from the shared notes' own text.
	loads := func(label string, profile bool) []httpFigures {
		var figs []httpFigures
		for i, v := range variants {
			this := i == len(variants)-1
			profile := profile && this && (*httpCPUProf != "" || *httpMemProf != "" || *httpStacks != "")
			bin := httpBuild(tmp, profile)
			if !this {
				bin = stdioBuild(tmp, v)
			}
			fmt.Fprintf(os.Stderr, "  http (%s%s):\n", v.name, label)
			figs = append(figs, httpRun(bin, dir, filepath.Join(root, name+v.state), notes, profile))
		}
		return figs
	}
	figs := loads("", true)
	col := func(figs []httpFigures, get func(httpFigures) float64) []float64 {
		vals := make([]float64, len(figs))
		for i, f := range figs {
			vals[i] = get(f)
		}
		return vals
	}
	ratios := func(metric string, get func(httpFigures) float64, format func(float64) string, target string, atLeast float64) {
		t.cmpAtLeast(metric, col(figs, get), format, target, atLeast)
	}
	count := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	millis := func(v float64) string { return fmt.Sprintf("%.1f ms", v) }
	cpu := func(f httpFigures) float64 { return f.cpuPerCall }
	cur := figs[len(figs)-1]
	ratios(fmt.Sprintf("http: calls/s (%d clients, %s, mix %s)", *httpClients, *httpDuration, *httpMixFlag),
		func(f httpFigures) float64 { return f.calls }, count, "≥ 1.0× baseline", 1.0)
	searchesOnly := len(httpMix) == 1 && httpMix[0].tool == "search_notes"
	if searchesOnly && len(figs) > 1 {
		// Issue 33: search CPU per call ≤ the baseline's.
		t.cmp("http: server CPU per call", col(figs, cpu), millis, "≤ 1.0× baseline", nil, 1.0)
	} else {
		ratios("http: server CPU per call", cpu, millis, "", 0)
	}
	ratios("http: server peak RSS during the load", func(f httpFigures) float64 { return float64(f.peakRSS) / 1024 },
		func(v float64) string { return fmt.Sprintf("%.0f MB", v) }, "", 0)
	for _, m := range httpMix {
		rate := func(f httpFigures) float64 { return float64(len(f.lat[m.tool])) / httpDuration.Seconds() }
		lats := func(f httpFigures) string {
			l := f.lat[m.tool]
			return fmt.Sprintf("%s / %s / %s", ms(percentile(l, 50)), ms(percentile(l, 95)), ms(percentile(l, 99)))
		}
		switch m.tool {
		case "read_note":
			ratios("http: read_note per second", rate, count, "≥ 1.0× baseline", 1.0)
			t.goal("http: read_note p50 / p95 / p99", lats(cur), "p99 ≤ 50 ms", percentile(cur.lat[m.tool], 99) <= 50*time.Millisecond)
		default:
			ratios(fmt.Sprintf("http: %s per second", m.tool), rate, count, "", 0)
			t.add(fmt.Sprintf("http: %s p50 / p95 / p99", m.tool), lats(cur), "")
		}
		if len(figs) > 1 {
			t.add(fmt.Sprintf("http: %s p50 / p95 / p99 (baseline)", m.tool), lats(figs[0]), "")
		}
		if cur.errs[m.tool] > 0 {
			t.add(fmt.Sprintf("http: %s failed calls", m.tool), fmt.Sprint(cur.errs[m.tool]), "0")
		}
	}
	t.add("http: appends acknowledged", fmt.Sprint(cur.acked), "")
	t.add("http: acknowledged appends lost / duplicated", fmt.Sprintf("%d / %d", cur.lost, cur.dup), "0 / 0")
	t.add("http: notes torn", fmt.Sprint(cur.torn), "0")

	// Issue 33 holds the CPU of a search to the baseline's: in the mix it
	// is one share of the server's CPU, so a second load sends searches
	// only.
	if searchesOnly || len(figs) < 2 {
		return
	}
	mix := httpMix
	httpMix = []httpShare{{"search_notes", 100}}
	defer func() { httpMix = mix }()
	only := loads(", searches only", false)
	t.cmpAtLeast("http, searches only: calls/s", col(only, func(f httpFigures) float64 { return f.calls }), count, "", 0)
	t.cmp("http, searches only: server CPU per search", col(only, cpu), millis, "≤ 1.0× baseline", nil, 1.0)
	for i, f := range only {
		l := f.lat["search_notes"]
		which := ""
		if i < len(only)-1 {
			which = " (baseline)"
		}
		t.add("http, searches only: search_notes p50 / p95 / p99"+which, fmt.Sprintf("%s / %s / %s", ms(percentile(l, 50)), ms(percentile(l, 95)), ms(percentile(l, 99))), "")
		if n := f.errs["search_notes"]; n > 0 && i == len(only)-1 {
			t.add("http, searches only: failed calls", fmt.Sprint(n), "0")
		}
	}
}

// httpFigures are what one load measured.
type httpFigures struct {
	calls      float64                    // per second
	cpuPerCall float64                    // the server's CPU (user + system) per call, ms
	peakRSS    int64                      // the server's largest resident set during the load, kB
	lat        map[string][]time.Duration // by tool
	errs       map[string]int
	acked      int
	lost, dup  int
	torn       int
}

// httpRun serves dir with bin and state under the load; profile: with the
// -http-cpuprofile and -http-memprofile flags.
func httpRun(bin, dir, state string, notes []string, profile bool) httpFigures {
	shared := notes[:httpSharedNotes]
	// A copy kept from an earlier run (-tmp), or loaded by the variant
	// before, holds appends: each load starts from the notes' own text,
	// or every load would reindex longer notes than the last.
	for _, p := range shared {
		name := filepath.Join(dir, filepath.FromSlash(p))
		b, err := os.ReadFile(name)
		check(err)
		if i := bytes.Index(b, []byte("\n- bench-http c")); i >= 0 {
			check(os.WriteFile(name, append(bytes.TrimRight(b[:i], " \t\r\n"), '\n'), 0o644))
		}
	}
	before := map[string][]byte{}
	for _, p := range shared {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		check(err)
		before[p] = b
	}

	secrets := make([]string, *httpClients)
	run := time.Now().Format("150405") // -tmp reuses the state dir and its keys
	for i := range secrets {
		out, err := exec.Command(bin, "keys", "create", fmt.Sprintf("bench-%s-%d", run, i), "--allow", "read,write",
			"--vault", dir, "--state-dir", state, "--json").Output()
		check(err)
		var k struct{ Secret string }
		check(json.Unmarshal(out, &k))
		secrets[i] = k.Secret
	}
	// Writes are rate-limited per key (60 a minute by default); the load
	// measures the server, not the limiter.
	args := []string{"serve", "--http", "127.0.0.1:0", "--vault", dir, "--state-dir", state, "--writes-per-minute", "1000000"}
	srv := exec.Command(bin, args...)
	var logBuf lockedBuf
	srv.Stderr = &logBuf
	check(srv.Start())
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	defer func() {
		if srv.ProcessState == nil {
			_ = srv.Process.Kill()
		}
	}()
	url := ""
	re := regexp.MustCompile(`msg="serving over http" url=(http://\S+)`)
	for deadline := time.Now().Add(60 * time.Second); url == ""; time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(logBuf.String()); m != nil {
			url = m[1]
		}
		if time.Now().After(deadline) {
			check(fmt.Errorf("vaultd serve --http did not start:\n%s", logBuf.String()))
		}
	}

	clients := make([]*rawClient, *httpClients)
	for i := range clients {
		clients[i] = httpConnect(url, secrets[i])
	}
	// The first build of the index runs in the server; wait for it so that
	// the load measures searches on a complete index.
	start := time.Now()
	for {
		r, err := clients[0].call("search_notes", map[string]any{"query": "Krankenhaus"})
		check(err)
		if !r.IsError && !strings.HasPrefix(r.Text, "index building") {
			break
		}
		if time.Since(start) > 5*time.Minute {
			check(fmt.Errorf("index not ready after 5 minutes"))
		}
		time.Sleep(200 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "  http: index ready after %.1f s; %d clients for %s\n", time.Since(start).Seconds(), *httpClients, *httpDuration)
	cpuProf, memProf, stacks := "", "", ""
	if profile {
		cpuProf, memProf, stacks = *httpCPUProf, *httpMemProf, *httpStacks
	}
	profiled := httpProfile(logBuf.String(), "profile?seconds="+fmt.Sprint(int(httpDuration.Seconds())), cpuProf)
	stacked := make(chan error, 1)
	time.AfterFunc(*httpDuration/2, func() { stacked <- <-httpProfile(logBuf.String(), "goroutine?debug=1", stacks) })

	type sample struct {
		tool string
		d    time.Duration
		err  bool
	}
	var mu sync.Mutex
	var samples []sample
	acked := map[string]string{} // line → note
	var wg sync.WaitGroup
	cpu0 := processCPU(srv.Process.Pid)
	stop := time.Now().Add(*httpDuration)
	// The server's resident set during the load, sampled: VmHWM would
	// hold the first build's peak when the server built the index.
	rssDone := make(chan int64)
	go func() {
		peak := int64(0)
		for time.Now().Before(stop) {
			peak = max(peak, statusKB(fmt.Sprintf("/proc/%d/status", srv.Process.Pid), "VmRSS:"))
			time.Sleep(50 * time.Millisecond)
		}
		rssDone <- peak
	}()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), uint64(time.Now().UnixNano())))
			var local []sample
			for n := 0; time.Now().Before(stop); n++ {
				tool, args, line, note := httpPick(rng, c, n, notes, shared)
				t0 := time.Now()
				r, err := clients[c].call(tool, args)
				d := time.Since(t0)
				failed := err != nil || r.IsError
				local = append(local, sample{tool, d, failed})
				if failed {
					msg := fmt.Sprint(err)
					if err == nil {
						msg = r.Text
					}
					fmt.Fprintf(os.Stderr, "  http: %s failed: %s\n", tool, firstLines(msg, 3))
					continue
				}
				if line != "" {
					mu.Lock()
					acked[line] = note
					mu.Unlock()
				}
			}
			mu.Lock()
			samples = append(samples, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	cpu := processCPU(srv.Process.Pid) - cpu0
	peakRSS := <-rssDone
	if err := <-profiled; err != nil {
		fmt.Fprintf(os.Stderr, "  http: CPU profile: %v\n", err)
	}
	if err := <-stacked; err != nil {
		fmt.Fprintf(os.Stderr, "  http: goroutines: %v\n", err)
	}
	if err := <-httpProfile(logBuf.String(), "allocs", memProf); err != nil {
		fmt.Fprintf(os.Stderr, "  http: allocation profile: %v\n", err)
	}

	// Graceful stop, then look at the files.
	_ = srv.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			fmt.Fprintf(os.Stderr, "  http: vaultd exited with %v\n", err)
		}
	case <-time.After(60 * time.Second):
		_ = srv.Process.Kill()
		fmt.Fprintln(os.Stderr, "  http: vaultd did not stop within 60 s of SIGTERM")
	}

	f := httpFigures{lat: map[string][]time.Duration{}, errs: map[string]int{}}
	for _, s := range samples {
		f.lat[s.tool] = append(f.lat[s.tool], s.d)
		if s.err {
			f.errs[s.tool]++
		}
	}
	f.calls = float64(len(samples)) / httpDuration.Seconds()
	f.peakRSS = peakRSS
	if len(samples) > 0 && cpu > 0 {
		f.cpuPerCall = 1000 * cpu / float64(len(samples))
	}
	f.lost, f.dup, f.torn = httpVerify(dir, shared, before, acked)
	f.acked = len(acked)
	if strings.Contains(logBuf.String(), "level=ERROR") {
		fmt.Fprintf(os.Stderr, "  http: the server logged errors:\n%s\n", grepLines(logBuf.String(), "level=ERROR", 10))
	}
	fmt.Fprintf(os.Stderr, "  http: server: vaultd %s; %.0f calls/s\n", strings.Join(args, " "), f.calls)
	return f
}

// processCPU is the user and system time of process pid so far, in
// seconds (0 where /proc cannot tell).
func processCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's name, which is in parentheses and
	// may hold spaces: utime and stime are the 14th and 15th of the line.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	var ut, st float64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return (ut + st) / 100 // clock ticks: USER_HZ is 100 on Linux
}

// httpPick chooses the next call of client c.
func httpPick(rng *rand.Rand, c, n int, notes, shared []string) (tool string, args map[string]any, line, note string) {
	x := rng.IntN(100)
	for _, m := range httpMix {
		if x < m.share {
			tool = m.tool
			break
		}
		x -= m.share
	}
	switch tool {
	case "read_note":
		args = map[string]any{"path": notes[rng.IntN(len(notes))]}
	case "search_notes":
		args = map[string]any{"query": httpQueries[rng.IntN(len(httpQueries))]}
	default:
		note = shared[rng.IntN(len(shared))]
		line = fmt.Sprintf("- bench-http c%d n%d %08x", c, n, rng.Uint32()) // unique: seeded by client and start time
		args = map[string]any{"path": note, "content": line, "change_summary": "bench: append " + line}
	}
	return tool, args, line, note
}

// httpVerify checks the shared notes after the run: each acknowledged line
// present exactly once (lost, dup count the others), every bench line whole
// and the text from before the run still its start (torn counts notes that
// are not).
func httpVerify(dir string, shared []string, before map[string][]byte, acked map[string]string) (lost, dup, torn int) {
	whole := regexp.MustCompile(`^- bench-http c\d+ n\d+ [0-9a-f]{8}$`)
	text := map[string]string{}
	for _, p := range shared {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		check(err)
		text[p] = string(b)
		ok := bytes.HasPrefix(b, bytes.TrimRight(before[p], " \t\r\n"))
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "bench-http") && !whole.MatchString(l) {
				ok = false
			}
		}
		if !ok {
			torn++
			fmt.Fprintf(os.Stderr, "  http: %s is torn\n", p)
		}
	}
	for line, p := range acked {
		switch n := strings.Count(text[p], line+"\n"); {
		case n == 0:
			lost++
		case n > 1:
			dup++
		}
	}
	return lost, dup, torn
}

// httpNotes lists the corpus's notes, spread: every k-th of the sorted
// paths, about 500 in all.
func httpNotes(dir string) []string {
	var all []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.") {
			rel, _ := filepath.Rel(dir, p)
			all = append(all, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(all)
	step := max(1, len(all)/500)
	var out []string
	for i := 0; i < len(all); i += step {
		out = append(out, all[i])
	}
	return out
}

// rawClient is a lean MCP client over streamable HTTP: plain JSON-RPC
// POSTs on a kept-alive connection, answers decoded into just the text and
// the error flag. The clients share the machine with the server; mcp-go's
// client decodes every answer twice (about a quarter of the CPU in a
// profile), which would leave less for the server being measured.
type rawClient struct {
	url, secret, session string
	hc                   *http.Client
	id                   int
}

type rawResult struct {
	Text    string
	IsError bool
}

// httpConnect opens a session: initialize, then notifications/initialized.
func httpConnect(url, secret string) *rawClient {
	c := &rawClient{url: url, secret: secret, hc: &http.Client{
		Timeout:   60 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute},
	}}
	_, hdr, err := c.post(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": mcp.LATEST_LEGACY_PROTOCOL_VERSION, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "vaultd-bench", "version": "0"}}})
	check(err)
	c.session = hdr.Get("Mcp-Session-Id")
	_, _, err = c.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	check(err)
	return c
}

func (c *rawClient) post(msg any) ([]byte, http.Header, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return nil, nil, err
	}
	req, err := http.NewRequest("POST", c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.secret)
	req.Header.Set("MCP-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, nil, err
	}
	if res.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("HTTP %d: %s", res.StatusCode, firstLines(string(b), 2))
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		// Upgraded to SSE (only when notifications are sent): the last
		// data line carries the response.
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if d, ok := strings.CutPrefix(lines[i], "data: "); ok {
				b = []byte(d)
				break
			}
		}
	}
	return b, res.Header, nil
}

// call calls a tool; a JSON-RPC error is an error, a tool failure a result
// with IsError.
func (c *rawClient) call(tool string, args map[string]any) (rawResult, error) {
	c.id++
	b, _, err := c.post(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		return rawResult{}, err
	}
	var resp struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
		Error *struct{ Message string } `json:"error"`
	}
	if err := json.Unmarshal(b, &resp); err != nil {
		return rawResult{}, err
	}
	if resp.Error != nil {
		return rawResult{}, fmt.Errorf("JSON-RPC error: %s", resp.Error.Message)
	}
	var r rawResult
	for _, ct := range resp.Result.Content {
		r.Text += ct.Text
	}
	r.IsError = resp.Result.IsError
	return r, nil
}

// httpBuild builds ./cmd/vaultd into tmp (go build caches, so a second
// build in one run is quick). With profiling, the build gets one more file
// through -overlay (the repository stays untouched): it serves
// net/http/pprof on a loopback port of its own and logs its address.
func httpBuild(tmp string, profiling bool) string {
	bin := filepath.Join(tmp, "vaultd-http-bench")
	args := []string{"build", "-o", bin}
	if profiling {
		bin += "-pprof"
		src := filepath.Join(tmp, "vaultd_bench_pprof.go")
		check(os.WriteFile(src, []byte(pprofOverlay), 0o644))
		abs, err := filepath.Abs(filepath.Join("cmd", "vaultd", "zz_bench_pprof.go"))
		check(err)
		ov, err := json.Marshal(map[string]any{"Replace": map[string]string{abs: src}})
		check(err)
		overlay := filepath.Join(tmp, "vaultd_bench_overlay.json")
		check(os.WriteFile(overlay, ov, 0o644))
		args = []string{"build", "-overlay", overlay, "-o", bin}
	}
	// Always build: the binary of an earlier run in a reused -tmp would
	// measure old code (go build's cache makes this quick).
	cmd := exec.Command("go", append(args, "./cmd/vaultd")...)
	cmd.Stderr = os.Stderr
	check(cmd.Run())
	return bin
}

// pprofOverlay is the file added to the profiled server.
const pprofOverlay = `package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
)

func init() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	fmt.Fprintf(os.Stderr, "vaultd-bench-pprof=http://%s\n", l.Addr())
	go http.Serve(l, mux)
}
`

// httpProfile fetches a profile of the server (what: the part of the URL
// after /debug/pprof/) into file, nothing when file is ""; the channel gets
// the outcome when it is written.
func httpProfile(log, what, file string) <-chan error {
	done := make(chan error, 1)
	if file == "" {
		done <- nil
		return done
	}
	m := regexp.MustCompile(`vaultd-bench-pprof=(http://\S+)`).FindStringSubmatch(log)
	if m == nil {
		done <- fmt.Errorf("the server did not log its pprof address")
		return done
	}
	go func() {
		res, err := http.Get(m[1] + "/debug/pprof/" + what)
		if err != nil {
			done <- err
			return
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err == nil && res.StatusCode != http.StatusOK {
			err = fmt.Errorf("HTTP %d: %s", res.StatusCode, firstLines(string(b), 2))
		}
		if err == nil {
			err = os.WriteFile(file, b, 0o644)
		}
		done <- err
	}()
	return done
}

// lockedBuf collects a child's stderr.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], " | ")
}

func grepLines(s, sub string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) && len(out) < n {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
