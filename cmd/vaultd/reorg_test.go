package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

// rVault writes files into a fresh vault folder and returns it with the
// global flags that select it.
func rVault(t *testing.T, files map[string]string) (string, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, []string{"--vault", dir, "--state-dir", filepath.Join(t.TempDir(), "state"), "--no-sync"}
}

// rJSON runs vaultd --json and decodes its answer.
func rJSON(t *testing.T, global []string, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := runCLI(t, "", append(append(append([]string{}, global...), "--json"), args...)...)
	if code != 0 {
		t.Fatalf("vaultd %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("vaultd %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return m
}

// vaultd undo, the way people use it: find the change in the history,
// undo it; an undo of a change that was built on is refused and shows
// what happened since.
func TestUndo_CLI(t *testing.T) {
	dir, g := rVault(t, map[string]string{"Plan.md": "# Plan\n", "Ref.md": "[[Ordner/Plan]]\n", "Ordner/Plan.md": "# Plan im Ordner\n"})
	rJSON(t, g, "append", "Plan.md", "--content", "- eins", "--summary", "eins")
	two := rJSON(t, g, "append", "Plan.md", "--content", "- zwei", "--summary", "zwei")["change_id"].(string)
	h := rJSON(t, g, "history", "Plan.md")
	one := h["changes"].([]any)[1].(map[string]any)["id"].(string)

	// The older change was built on: refused (exit 4), the newer listed.
	_, errOut, code := runCLI(t, "", append(g, "undo", one)...)
	if code != exitConflict || !strings.Contains(errOut, "changes since, newest first") || !strings.Contains(errOut, two) ||
		!strings.Contains(errOut, "try: vaultd history Plan.md") {
		t.Errorf("undo of a change built on: exit %d\n%s", code, errOut)
	}
	// Newest first works.
	out, errOut, code := runCLI(t, "", append(g, "undo", two[:20])...)
	if code != 0 || !strings.Contains(out, "undone: change "+two+" (append)") || !strings.Contains(out, "undo of change "+two+": zwei") {
		t.Fatalf("undo: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "Plan.md")); string(b) != "# Plan\n\n- eins\n" {
		t.Errorf("Plan.md after the undo: %q", b)
	}
	// A move, undone: back, and its links too.
	b, _ := os.ReadFile(filepath.Join(dir, "Ordner/Plan.md"))
	m := rJSON(t, g, "move", "Ordner/Plan.md", "Neu/", "--expect", sha12(b), "--summary", "verschoben")
	if m["notes_relinked"].(float64) != 1 {
		t.Fatalf("move: %v", m)
	}
	out, errOut, code = runCLI(t, "", append(g, "undo", m["change_id"].(string))...)
	if code != 0 || !strings.Contains(out, "(move)") {
		t.Fatalf("undo move: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "Ref.md")); string(b) != "[[Ordner/Plan]]\n" {
		t.Errorf("Ref.md after undoing the move: %q", b)
	}
	// Unknown ids: exit 3 with the latest ones.
	_, errOut, code = runCLI(t, "", append(g, "undo", "nichtda")...)
	if code != exitNotFound || !strings.Contains(errOut, "latest changes:") {
		t.Errorf("unknown id: exit %d\n%s", code, errOut)
	}
}

func sha12(b []byte) string { return note.ShortVersion(note.Version(b)) }

// `vaultd serve --git-commit` wires the vault's git commits: a write made
// by an MCP client becomes a commit by that client.
func TestServe_GitCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir, g := rVault(t, map[string]string{"A.md": "# A\n"})
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	git("add", "A.md")
	git("commit", "-q", "-m", "start")
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")

	inR, inW := io.Pipe()
	out := &syncBuffer{}
	done := make(chan int)
	go func() {
		done <- execute(context.Background(), append(g, "serve", "--git-commit"), inR, out, io.Discard)
	}()
	send := func(s string) { io.WriteString(inW, s+"\n") }
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test-client","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"append_to_note","arguments":{"path":"A.md","content":"mehr","change_summary":"per MCP ergänzt"}}}`)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), `"id":2`) {
		if time.Now().After(deadline) {
			t.Fatalf("no answer to the tool call; got:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	inW.Close()
	<-done
	if !strings.Contains(out.String(), "committed to git as ") {
		t.Errorf("the answer does not say it committed:\n%s", out.String())
	}
	// The author is the actor the history records ("mcp", or "mcp:CLIENT"
	// when the client names itself).
	if got := git("log", "-1", "--format=%an|%s"); !strings.HasPrefix(got, "mcp") || !strings.HasSuffix(got, "|per MCP ergänzt") {
		t.Errorf("last commit: %q", got)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
