package e2e

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/tools"
)

var (
	// repoRoot is the module root (the directory holding go.mod).
	repoRoot string
	// vaultdBin is the binary built by TestMain.
	vaultdBin string
)

// readTools and writeTools are the tool sets an agent sees (AGENT-CONTRACT
// rule 14), sorted by name as tools/list returns them. They come from the
// server's own table, so that a new tool is checked here without edits;
// the core tools every vault must have are pinned in coreTools.
var (
	readTools  = tools.ToolNames(tools.Perms{Read: true})
	writeTools = without2(tools.AllToolNames(), readTools)
	coreTools  = []string{"append_to_note", "create_note", "delete_note", "get_backlinks", "list_notes", "list_trash",
		"read_note", "replace_note", "restore_note", "search_notes", "update_section", "vault_overview"}
)

func without2(all, drop []string) []string {
	var out []string
	for _, n := range all {
		if !slices.Contains(drop, n) {
			out = append(out, n)
		}
	}
	return out
}

func TestCoreToolsPresent(t *testing.T) {
	for _, n := range coreTools {
		if !slices.Contains(tools.AllToolNames(), n) {
			t.Errorf("tool %s is missing", n)
		}
	}
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	root, err := findRepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	repoRoot = root
	// VAULTD_E2E_BIN runs the tests against another build (the stress
	// figures of an older commit, for comparison) instead of building.
	if bin := os.Getenv("VAULTD_E2E_BIN"); bin != "" {
		vaultdBin = bin
		return m.Run()
	}
	tmp, err := os.MkdirTemp("", "vaultd-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	vaultdBin = filepath.Join(tmp, "vaultd")
	// go test puts GOROOT/bin first on the PATH of the test process, so
	// "go" is the toolchain running this test.
	build := exec.Command("go", "build", "-o", vaultdBin, "./cmd/vaultd")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build ./cmd/vaultd failed: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// findRepoRoot walks up from the package directory to the go.mod of
// module github.com/vaultd/vaultd.
func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/vaultd/vaultd\n")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of github.com/vaultd/vaultd above %s", dir)
		}
	}
}

// copyVault copies example-vault into a fresh temp dir and returns it.
func copyVault(t testing.TB) string {
	t.Helper()
	src := filepath.Join(repoRoot, "example-vault")
	dst := filepath.Join(t.TempDir(), "vault")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".vaultd" || d.Name() == ".trash" {
				return filepath.SkipDir // leftovers of a manual run, not part of the demo
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// lockedBuffer collects the server's stderr from the transport's goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// wantLog fails unless the server's log comes to hold every one of subs
// (waitCap): the transport copies stderr in its own goroutine, so a line the
// server wrote before its answer may reach the buffer after it.
func wantLog(t testing.TB, what string, l *lockedBuffer, subs ...string) {
	t.Helper()
	for deadline := time.Now().Add(waitCap(t)); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		text, all := l.String(), true
		for _, s := range subs {
			all = all && strings.Contains(text, s)
		}
		if all {
			return
		}
	}
	wantContains(t, what, l.String(), subs...)
}

// server is one `vaultd serve` process driven by mcp-go's stdio client.
type server struct {
	t      testing.TB
	c      *client.Client
	vault  string
	stderr *lockedBuffer
	init   *mcp.InitializeResult
}

// serve starts `vaultd serve --vault vault --state-dir <temp> extra...`
// and initializes an MCP session. protocolVersion "" lets the client try
// the modern era (2026-07-28) first; mcp.LATEST_LEGACY_PROTOCOL_VERSION pins
// the initialize handshake.
func serve(t testing.TB, vault, protocolVersion string, extra ...string) *server {
	t.Helper()
	return serveEnv(t, vault, protocolVersion, nil, extra...)
}

// serveEnv is serve with extra environment for the server process.
func serveEnv(t testing.TB, vault, protocolVersion string, env []string, extra ...string) *server {
	t.Helper()
	args := []string{"serve", "--vault", vault}
	if !slices.Contains(extra, "--state-dir") { // a test that runs CLI commands on the vault too names it
		args = append(args, "--state-dir", t.TempDir())
	}
	args = append(args, extra...)
	stderr := &lockedBuffer{}
	c, err := client.NewStdioMCPClientWithOptions(vaultdBin, env, args, transport.WithCommandStderrWriter(stderr))
	if err != nil {
		t.Fatalf("start vaultd %s: %v", strings.Join(args, " "), err)
	}
	s := &server{t: t, c: c, vault: vault, stderr: stderr}
	t.Cleanup(func() {
		_ = c.Close()
		if t.Failed() {
			t.Logf("vaultd %s\nstderr:\n%s", strings.Join(args, " "), stderr)
		}
	})
	ctx, cancel := waitCtx(t)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = protocolVersion
	req.Params.ClientInfo = mcp.Implementation{Name: "vaultd-e2e", Version: "0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize: %v\nstderr:\n%s", err, stderr)
	}
	s.init = res
	return s
}

// result is what an agent sees of a tool call: the text and the flag.
type result struct {
	Text    string
	IsError bool
}

// call calls a tool and returns the text of its result. A protocol error
// fails the test: tool failures must be isError results (AGENT-CONTRACT
// rule 8).
func (s *server) call(name string, args map[string]any) result {
	s.t.Helper()
	ctx, cancel := waitCtx(s.t)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		s.t.Fatalf("%s %v: protocol error %v, want a tool result", name, args, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, tc.Text)
		}
	}
	r := result{Text: strings.Join(parts, "\n"), IsError: res.IsError}
	if strings.TrimSpace(r.Text) == "" {
		s.t.Fatalf("%s %v: result has no text", name, args)
	}
	return r
}

// mustOK calls a tool and fails the test on an isError result.
func (s *server) mustOK(name string, args map[string]any) string {
	s.t.Helper()
	r := s.call(name, args)
	if r.IsError {
		s.t.Fatalf("%s %v: got isError, want success:\n%s", name, args, r.Text)
	}
	return r.Text
}

// toolNames lists the tools the connection sees.
func (s *server) tools() []mcp.Tool {
	s.t.Helper()
	ctx, cancel := waitCtx(s.t)
	defer cancel()
	res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		s.t.Fatalf("tools/list: %v", err)
	}
	return res.Tools
}

// waitIndexed waits until the search index has caught up with the vault,
// so that search results are complete. A fresh state dir indexes the
// example vault in ~0.2 s; searches before that say "index building".
func (s *server) waitIndexed() {
	s.t.Helper()
	deadline := time.Now().Add(waitCap(s.t))
	for {
		r := s.call("search_notes", map[string]any{"query": "Klinikverbund"})
		if !strings.HasPrefix(r.Text, "index building") && !r.IsError {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("search index never ready; last answer:\n%s", r.Text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// field returns the value of the first line "name: value" in text, and
// whether there is one. Lines may be indented (errors list the note as
// "note:\n  path: …").
func field(text, name string) (string, bool) {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimLeft(line, " "), name+": "); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// mustField is field, failing the test when the line is missing.
func mustField(t testing.TB, text, name string) string {
	t.Helper()
	v, ok := field(text, name)
	if !ok || v == "" {
		t.Fatalf("no %q line in:\n%s", name+":", text)
	}
	return v
}

// fencedContent returns the note text read_note shows inside its
// ```markdown fence (the fence grows when the note itself holds ```).
func fencedContent(t testing.TB, text string) string {
	t.Helper()
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		trimmed := strings.TrimRight(l, "\n")
		if !strings.HasPrefix(trimmed, "```") || !strings.HasSuffix(trimmed, "markdown") {
			continue
		}
		fence := strings.TrimSuffix(trimmed, "markdown")
		var b strings.Builder
		for _, body := range lines[i+1:] {
			if strings.TrimRight(body, "\n") == fence {
				return b.String()
			}
			b.WriteString(body)
		}
	}
	t.Fatalf("no fenced note content in:\n%s", text)
	return ""
}

// wantContains fails unless text contains every one of subs.
func wantContains(t testing.TB, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("%s: missing %q in:\n%s", what, s, text)
		}
	}
}
