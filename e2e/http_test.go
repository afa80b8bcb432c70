package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/tools"
)

// httpProc is one `vaultd serve --http 127.0.0.1:0` process.
type httpProc struct {
	t      testing.TB
	cmd    *exec.Cmd
	url    string // http://127.0.0.1:PORT/mcp
	stderr *lockedBuffer
	exited chan struct{}
	err    error // of Wait, after exited
}

var urlLine = regexp.MustCompile(`msg="serving over http" url=(http://\S+)`)

// serveHTTPProc starts `vaultd serve --http 127.0.0.1:0` on vault with the
// state dir state and waits until it listens. Cleanup stops it with
// SIGTERM.
func serveHTTPProc(t testing.TB, vault, state string, extra ...string) *httpProc {
	t.Helper()
	return serveHTTPWrapped(t, nil, vault, state, extra...)
}

// serveHTTPWrapped is serveHTTPProc with the binary started through wrap, a
// command that execs its arguments (e.g. sh -c 'ulimit -n 1024; exec "$@"'),
// so that the process id is vaultd's.
func serveHTTPWrapped(t testing.TB, wrap []string, vault, state string, extra ...string) *httpProc {
	t.Helper()
	return serveHTTPArgs(t, wrap, append([]string{"serve", "--vault", vault, "--state-dir", state, "--http", "127.0.0.1:0"}, extra...)...)
}

// serveHTTPArgs starts vaultd with args (a serve --http command line),
// through wrap if given, and waits until it listens.
func serveHTTPArgs(t testing.TB, wrap []string, args ...string) *httpProc {
	t.Helper()
	argv := append(append(append([]string{}, wrap...), vaultdBin), args...)
	p := &httpProc{t: t, cmd: exec.Command(argv[0], argv[1:]...), stderr: &lockedBuffer{}, exited: make(chan struct{})}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("vaultd %s\nstderr:\n%s", strings.Join(args, " "), p.stderr)
		}
	})
	deadline := time.After(waitCap(t))
	for {
		if m := urlLine.FindStringSubmatch(p.stderr.String()); m != nil {
			p.url = m[1]
			return p
		}
		select {
		case <-p.exited:
			t.Fatalf("vaultd %s exited before listening: %v\nstderr:\n%s", strings.Join(args, " "), p.err, p.stderr)
		case <-deadline:
			t.Fatalf("vaultd %s: no \"serving over http\" line before the test's deadline\nstderr:\n%s", strings.Join(args, " "), p.stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// stop sends SIGTERM and waits for the exit (SIGKILL when the test's deadline nears).
func (p *httpProc) stop() error {
	select {
	case <-p.exited:
		return p.err
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(waitCap(p.t)):
		_ = p.cmd.Process.Kill()
		<-p.exited
		p.t.Errorf("vaultd did not stop after SIGTERM")
	}
	return p.err
}

// createKey runs `vaultd keys create` and returns the secret.
func createKey(t testing.TB, vault, state, name, rights string) string {
	t.Helper()
	out, err := exec.Command(vaultdBin, "keys", "create", name, "--allow", rights, "--vault", vault, "--state-dir", state, "--json").Output()
	if err != nil {
		t.Fatalf("vaultd keys create %s: %v", name, err)
	}
	var k struct{ Secret string }
	if err := json.Unmarshal(out, &k); err != nil || !strings.HasPrefix(k.Secret, "vdk_") {
		t.Fatalf("vaultd keys create %s --json: %v\n%s", name, err, out)
	}
	return k.Secret
}

// httpClient connects mcp-go's streamable HTTP client with a key.
func httpClient(t testing.TB, url, secret string, opts ...transport.StreamableHTTPCOption) *server {
	t.Helper()
	opts = append([]transport.StreamableHTTPCOption{
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + secret}),
		// Closing after the server stopped logs an error; that is expected here.
		transport.WithHTTPLogger(slog.New(slog.DiscardHandler)),
	}, opts...)
	c, err := client.NewStreamableHttpClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := waitCtx(t)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "vaultd-e2e-http", Version: "0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize over HTTP: %v", err)
	}
	return &server{t: t, c: c, init: res, stderr: &lockedBuffer{}}
}

// TestHTTP_SameAnswersAsStdio: over HTTP an agent gets the same tools and
// the same answers as over stdio.
func TestHTTP_SameAnswersAsStdio(t *testing.T) {
	t.Parallel()
	vault := copyVault(t)
	state := t.TempDir()
	secret := createKey(t, vault, state, "anna", "read,write,delete")
	h := serveHTTPProc(t, vault, state)
	hc := httpClient(t, h.url, secret)
	// The stdio server shares the HTTP server's index (same state dir).
	sc := serveState(t, vault, state, "--allow", "read,write,delete")

	if hc.init.Instructions != sc.init.Instructions {
		t.Errorf("instructions differ:\nHTTP:\n%s\nstdio:\n%s", hc.init.Instructions, sc.init.Instructions)
	}
	names := func(s *server) []string {
		var out []string
		for _, tl := range s.tools() {
			b, _ := json.Marshal(tl)
			out = append(out, string(b))
		}
		return out
	}
	if a, b := names(hc), names(sc); !slices.Equal(a, b) {
		t.Errorf("tools/list differs:\nHTTP:  %v\nstdio: %v", a, b)
	}
	hc.waitIndexed()
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"vault_overview", map[string]any{}},
		{"search_notes", map[string]any{"query": "Krankenhäuser"}},
		{"read_note", map[string]any{"path": "1_Projekte/Klinikverbund Nord.md"}},
		{"get_backlinks", map[string]any{"path": "1_Projekte/Klinikverbund Nord.md"}},
		{"list_notes", map[string]any{"folder": "1_Projekte"}},
		{"read_note", map[string]any{"path": "1_Projekte/Nope.md"}},
	} {
		a, b := hc.call(c.tool, c.args), sc.call(c.tool, c.args)
		if a != b {
			t.Errorf("%s %v differs:\nHTTP (isError=%v):\n%s\nstdio (isError=%v):\n%s", c.tool, c.args, a.IsError, a.Text, b.IsError, b.Text)
		}
	}
}

// TestHTTP_GracefulShutdown: SIGTERM while clients append. The server
// stops accepting, answers what is in flight and exits 0; every append it
// acknowledged is in the note exactly once, nothing is torn, no temp file
// is left, and the index lock is free for the next process.
func TestHTTP_GracefulShutdown(t *testing.T) {
	t.Parallel()
	vault := copyVault(t)
	state := t.TempDir()
	secret := createKey(t, vault, state, "writer", "read,write")
	h := serveHTTPProc(t, vault, state, "--writes-per-minute", "100000")
	const note = "0_Inbox/Buchtipps.md"
	// A client listening for server messages on a GET stream, which stays
	// open until the server closes it: it must not hold up the shutdown.
	httpClient(t, h.url, secret, transport.WithContinuousListening())

	var mu sync.Mutex
	acked := map[string]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		c := httpClient(t, h.url, secret)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				line := fmt.Sprintf("- shutdown-e2e g%d n%d", g, i)
				ctx, cancel := waitCtx(t)
				req := mcp.CallToolRequest{}
				req.Params.Name = "append_to_note"
				req.Params.Arguments = map[string]any{"path": note, "content": line, "change_summary": "e2e " + line}
				res, err := c.c.CallTool(ctx, req)
				cancel()
				if err != nil {
					return // the server is gone: not acknowledged
				}
				if res.IsError {
					t.Errorf("append %q: isError result %v", line, res.Content)
					return
				}
				mu.Lock()
				acked[line] = true
				mu.Unlock()
			}
		}()
	}
	time.Sleep(700 * time.Millisecond)
	start := time.Now()
	err := h.stop()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("vaultd after SIGTERM: %v, want exit 0", err)
	}
	took := time.Since(start)
	t.Logf("stopped %s after SIGTERM, %d appends acknowledged", took.Round(time.Millisecond), len(acked))
	if took > 20*time.Second { // held up, it would wait out the 30 s grace; a loaded machine only takes longer
		t.Errorf("the server took %s to stop; an open event stream or a stuck request held it up", took)
	}
	wantContains(t, "stderr", h.stderr.String(), "shutting down: finishing the requests in flight", "stopped serving over http")
	if len(acked) < 4 {
		t.Fatalf("only %d appends acknowledged before the shutdown; the test proves nothing", len(acked))
	}
	b, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(note)))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for line := range acked {
		if n := strings.Count(text, line+"\n"); n != 1 {
			t.Errorf("acknowledged append %q is in the note %d times, want once", line, n)
		}
	}
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "shutdown-e2e") && !regexp.MustCompile(`^- shutdown-e2e g\d n\d+$`).MatchString(l) {
			t.Errorf("torn line in the note: %q", l)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(filepath.Join(vault, filepath.FromSlash(note))))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind in 0_Inbox: %s", e.Name())
		}
	}
	// The index was closed: a new process takes it at once.
	out, err := exec.Command(vaultdBin, "search", "shutdown-e2e", "--vault", vault, "--state-dir", state).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("path: "+note)) {
		t.Errorf("vaultd search after the shutdown: %v\n%s", err, out)
	}
}

// TestHTTP_StartRefusals: the server does not start without a way to
// authenticate clients safely.
func TestHTTP_StartRefusals(t *testing.T) {
	t.Parallel()
	vault := copyVault(t)
	state := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "127.0.0.1:0"}, "vaultd keys create laptop --allow read,write"},
		{[]string{"--http", "0.0.0.0:0"}, "needs an access key for each client"},
		{[]string{"--http", "0.0.0.0:0", "--no-auth"}, "allowed only on a loopback address"},
	} {
		args := append([]string{"serve", "--vault", vault, "--state-dir", state}, c.args...)
		cmd := exec.Command(vaultdBin, args...)
		done := make(chan struct{})
		var out []byte
		var err error
		go func() {
			out, err = cmd.CombinedOutput()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(waitCap(t)):
			cmd.Process.Kill()
			t.Fatalf("vaultd %s: still running, want a refusal", strings.Join(c.args, " "))
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), c.want) {
			t.Errorf("vaultd %s: got %v\n%s\nwant exit 2 and %q", strings.Join(c.args, " "), err, out, c.want)
		}
	}
}

// TestHTTP_TypeScriptSDK runs ts/http-session.mjs: the official MCP
// TypeScript SDK client (StreamableHTTPClientTransport) against `vaultd
// serve --http` with two keys of different rights at once, refusals
// (401, 403) and a key revoked while its client is connected.
func TestHTTP_TypeScriptSDK(t *testing.T) {
	// Install before t.Parallel: this part runs while tests run one by
	// one, so TestTypeScriptSDK (parallel, same node_modules) never runs
	// npm ci at the same time.
	npmCI(t, filepath.Join(repoRoot, "e2e", "ts"))
	t.Parallel()
	runNodeScript(t, "http-session.mjs", "ts-sdk http")
}

// runNodeScript runs a script of e2e/ts with the built binary and checks
// its last line, "PREFIX: N passed, 0 failed".
func runNodeScript(t *testing.T, script, prefix string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found on PATH (%v): the TypeScript SDK tests need Node ≥ 20 and npm", err)
	}
	dir := filepath.Join(repoRoot, "e2e", "ts")
	cmd := exec.Command(node, script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"VAULTD_BIN="+vaultdBin,
		"VAULTD_EXAMPLE_VAULT="+filepath.Join(repoRoot, "example-vault"),
		"VAULTD_READ_TOOLS="+strings.Join(readTools, ","),
		"VAULTD_WRITE_TOOLS="+strings.Join(writeTools, ","),
		"VAULTD_RW_TOOLS="+strings.Join(tools.ToolNames(tools.Perms{Read: true, Write: true}), ","),
		"TMPDIR="+t.TempDir(),
	)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `: [1-9][0-9]* passed, 0 failed$`).MatchString(last) {
		t.Fatalf("node %s: last line %q, want \"%s: N passed, 0 failed\"\n%s", script, last, prefix, out.String())
	}
	t.Log(last)
}

// npmMu serializes `npm ci` runs: two parallel tests installing into one
// node_modules would corrupt it.
var npmMu sync.Mutex

// npmCI installs dir's locked packages when node_modules is missing or
// older than the lock file.
func npmCI(t *testing.T, dir string) {
	t.Helper()
	npmMu.Lock()
	defer npmMu.Unlock()
	stale, why := nodeModulesStale(dir)
	if !stale {
		return
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm not found on PATH (%v)", err)
	}
	t.Logf("npm ci in %s (%s)", filepath.Base(dir), why)
	start := time.Now()
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
	t.Logf("npm ci took %s", time.Since(start).Round(time.Millisecond))
}
