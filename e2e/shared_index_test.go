package e2e

import (
	"context"
	"fmt"
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
)

// serveState is serve with a given state dir, so that several processes
// share one vault's state (and its index). It also returns the process.
func serveState(t testing.TB, vault, state string, extra ...string) *server {
	s, _ := serveStateProc(t, vault, state, extra...)
	return s
}

func serveStateProc(t testing.TB, vault, state string, extra ...string) (*server, *os.Process) {
	t.Helper()
	args := append([]string{"serve", "--vault", vault, "--state-dir", state}, extra...)
	stderr := &lockedBuffer{}
	var proc struct {
		sync.Mutex
		cmd *exec.Cmd
	}
	c, err := client.NewStdioMCPClientWithOptions(vaultdBin, nil, args,
		transport.WithCommandStderrWriter(stderr),
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			proc.Lock()
			proc.cmd = cmd
			proc.Unlock()
			return cmd, nil
		}))
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
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "vaultd-e2e", Version: "0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize: %v\nstderr:\n%s", err, stderr)
	}
	s.init = res
	proc.Lock()
	defer proc.Unlock()
	return s, proc.cmd.Process
}

// cliSearch runs `vaultd search` on the vault and state dir.
func cliSearch(t testing.TB, vault, state, query string) string {
	t.Helper()
	ctx, cancel := waitCtx(t)
	defer cancel()
	out, err := exec.CommandContext(ctx, vaultdBin, "search", query, "--vault", vault, "--state-dir", state).CombinedOutput()
	if err != nil {
		t.Fatalf("vaultd search %q: %v\n%s", query, err, out)
	}
	return string(out)
}

// TestSharedIndex_TwoServersAndCLI: one person runs Claude Code and Cursor
// (two stdio servers) on one vault and searches in a terminal at the same
// time. One index serves all three; a write through one server is found
// through the other at once; when the process keeping the index is killed,
// the others keep searching.
func TestSharedIndex_TwoServersAndCLI(t *testing.T) {
	t.Parallel()
	vault := copyVault(t)
	state := t.TempDir()
	// Over stdio stderr gets warnings only unless asked for more: this
	// test reads the servers' info lines.
	a, aProc := serveStateProc(t, vault, state, "--log-level", "info")
	a.waitIndexed()
	b := serveState(t, vault, state, "--actor", "cursor", "--log-level", "info")
	wantLog(t, "first server's log", a.stderr, "search index: this process keeps it")
	wantLog(t, "second server's log", b.stderr, "search index: shared with the vaultd process that keeps it")

	// All three at once.
	var wg sync.WaitGroup
	results := make([]string, 3)
	for i, s := range []*server{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = s.call("search_notes", map[string]any{"query": "Krankenhäuser"}).Text
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		results[2] = cliSearch(t, vault, state, "Krankenhäuser")
	}()
	wg.Wait()
	for i, r := range results {
		wantContains(t, []string{"server a", "server b", "CLI"}[i]+" search", r, "path: 1_Projekte/Klinikverbund Nord.md")
	}
	if results[0] != results[1] {
		t.Errorf("the two servers answer the same search differently:\n%s\n---\n%s", results[0], results[1])
	}

	// Server b's write is found through server a and the CLI at once.
	b.mustOK("create_note", map[string]any{"path": "0_Inbox/Geteilter Index.md",
		"content": "---\ntags: [e2e]\n---\n# Geteilter Index\n\nZqxgeteilt steht nur hier.\n", "change_summary": "e2e: shared index"})
	wantContains(t, "server a finds b's note", a.mustOK("search_notes", map[string]any{"query": "zqxgeteilt"}), "path: 0_Inbox/Geteilter Index.md")
	wantContains(t, "CLI finds b's note", cliSearch(t, vault, state, "zqxgeteilt"), "path: 0_Inbox/Geteilter Index.md")

	// The process keeping the index dies without a chance to clean up.
	if err := aProc.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = aProc.Wait()
	start := time.Now()
	wantContains(t, "server b after a was killed", b.mustOK("search_notes", map[string]any{"query": "zqxgeteilt"}), "path: 0_Inbox/Geteilter Index.md")
	t.Logf("server b searched %s after the owner was killed", time.Since(start).Round(time.Millisecond))
	wantLog(t, "server b's log", b.stderr, "took over from the process that owned it")
	wantContains(t, "CLI after a was killed", cliSearch(t, vault, state, "Krankenhäuser"), "path: 1_Projekte/Klinikverbund Nord.md")
	// b keeps its own identity and rights: its backlinks and writes work.
	b.mustOK("get_backlinks", map[string]any{"path": "1_Projekte/Klinikverbund Nord.md"})
	ap := b.mustOK("append_to_note", map[string]any{"path": "0_Inbox/Geteilter Index.md", "content": "Zqxnachher auch.", "change_summary": "e2e: after takeover"})
	wantContains(t, "append after takeover", ap, "(operation: append)")
	wantContains(t, "CLI finds b's append", cliSearch(t, vault, state, "zqxnachher"), "path: 0_Inbox/Geteilter Index.md")
}

// TestShared_SubscriptionsAcrossProcesses: a client of the second vaultd
// process on a vault — not the one keeping the index — subscribes to two
// notes; a write through the first process and an edit outside vaultd both
// reach it, from the index's change journal (no process looks at the
// subscribed files any more).
func TestShared_SubscriptionsAcrossProcesses(t *testing.T) {
	t.Parallel()
	vault, state := copyVault(t), t.TempDir()
	first := serveState(t, vault, state)
	first.waitIndexed()
	second := serveState(t, vault, state)
	// The stdio helper starts the transport only; Start (idempotent)
	// hands the client the notifications too.
	if err := second.c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	second.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationResourceUpdated {
			mu.Lock()
			got = append(got, fmt.Sprint(n.Params.AdditionalFields["uri"]))
			mu.Unlock()
		}
	})
	for _, uri := range []string{"vault://note/0_Inbox/Buchtipps.md", "vault://note/2_Bereiche/Team/%C3%9Cbersicht.md"} {
		req := mcp.SubscribeRequest{}
		req.Params.URI = uri
		if err := second.c.Subscribe(context.Background(), req); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	notified := func(uri string) bool {
		for range 300 { // the journal is asked every second
			mu.Lock()
			found := slices.Contains(got, uri)
			mu.Unlock()
			if found {
				return true
			}
			time.Sleep(50 * time.Millisecond)
		}
		return false
	}
	first.mustOK("append_to_note", map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "- aus dem ersten Prozess", "change_summary": "e2e"})
	if !notified("vault://note/0_Inbox/Buchtipps.md") {
		t.Error("no notifications/resources/updated in the second process after a write through the first")
	}
	if err := os.WriteFile(filepath.Join(vault, "2_Bereiche", "Team", "Übersicht.md"), []byte("# Übersicht\n\nin Obsidian geändert\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !notified("vault://note/2_Bereiche/Team/%C3%9Cbersicht.md") {
		t.Error("no notifications/resources/updated in the second process after an edit outside vaultd")
	}
}
