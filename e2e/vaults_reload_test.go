package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestVaults_ReloadOnHangup: `vaultd serve` without --vault, outside a
// vault, serves every vault of the vaults file; after SIGHUP it serves a
// vault added there and drops one removed, while the other vault serves on
// — its notes are read before, during and after, in one session.
func TestVaults_ReloadOnHangup(t *testing.T) {
	work := copyVault(t)
	team := t.TempDir()
	if err := os.MkdirAll(filepath.Join(team, "Onboarding"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(team, "Onboarding", "Erste Woche.md"), []byte("# Erste Woche\n\nLaptop abholen.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "vaults")
	write := func(lines ...string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# my vaults", "work="+work)
	nowhere := t.TempDir() // the server's folder: not a vault
	s, cmd := serveIn(t, nowhere, []string{"VAULTD_VAULTS_FILE=" + file}, "serve", "--no-sync", "--log-level", "info")
	stderr := s.stderr
	overview := s.mustOK("vault_overview", map[string]any{})
	wantContains(t, "the overview of the vaults file's one vault", overview, "vault: work")
	wantContains(t, "work's note", s.mustOK("read_note", map[string]any{"path": "work:1_Projekte/Website-Relaunch.md"}), "vault: work\n")

	// Added to the file: served after SIGHUP.
	write("work="+work, "team="+team)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "team served after SIGHUP", func() bool {
		return strings.Contains(s.call("vault_overview", map[string]any{}).Text, "- vault: team")
	})
	wantContains(t, "team's note by NAME:path", s.mustOK("read_note", map[string]any{"path": "team:Onboarding/Erste Woche.md"}), "vault: team\n", "Laptop abholen")
	wantContains(t, "work's note, still", s.mustOK("read_note", map[string]any{"vault": "work", "path": "Website-Relaunch"}), "vault: work\n")

	// Removed from the file: no longer served; team serves on.
	write("team=" + team)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "work dropped after SIGHUP", func() bool {
		return !strings.Contains(s.call("vault_overview", map[string]any{}).Text, "work")
	})
	r := s.call("read_note", map[string]any{"vault": "work", "path": "Website-Relaunch"})
	if !r.IsError || !strings.Contains(r.Text, `vault "work": there is no such vault`) || !strings.Contains(r.Text, "vaults: team") {
		t.Errorf("reading work after it was dropped:\n%s", r.Text)
	}
	wantContains(t, "team's note after work was dropped", s.mustOK("read_note", map[string]any{"path": "Erste Woche"}), "vault: team\n")
	wantLog(t, "the reload", stderr, "reload: vault served", "reload: vault no longer served")
}

// waitFor polls cond until it holds, at most waitCap: a reload opens an
// index, which a loaded machine makes slow.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(waitCap(t)); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, waitCap(t))
		}
	}
}

// TestVaults_OneIndexFailsOthersServe: a vault whose search index cannot
// be opened (its state dir holds a folder where the index's lock file
// goes) serves without search, saying why without host paths, while the
// other vault searches on.
func TestVaults_OneIndexFailsOthersServe(t *testing.T) {
	work := copyVault(t)
	team := t.TempDir()
	if err := os.MkdirAll(filepath.Join(team, ".vaultd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(team, ".vaultd", "index.lock"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(team, "Zugangsdaten.md"), []byte("# Zugangsdaten\n\nWiki-Zugang.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := serveIn(t, "", nil, "serve", "--no-sync", "--vault", "work="+work, "--vault", "team="+team)
	stderr := s.stderr
	wantContains(t, "search in work", s.mustOK("search_notes", map[string]any{"vault": "work", "query": "Zeitleiste"}), "vault: work\n", "Website-Relaunch")
	r := s.call("search_notes", map[string]any{"vault": "team", "query": "Wiki"})
	if !r.IsError || !strings.Contains(r.Text, "the search index could not be opened") || strings.Contains(r.Text, team) {
		t.Errorf("search in the vault without an index:\n%s", r.Text)
	}
	wantContains(t, "team's note, read without its index", s.mustOK("read_note", map[string]any{"path": "team:Zugangsdaten.md"}), "Wiki-Zugang")
	wantContains(t, "search across both", s.mustOK("search_notes", map[string]any{"query": "Zeitleiste"}), "searched 2 vaults", "vault: work")
	wantLog(t, "the failed index", stderr, "search disabled", "vault=team")
}

// serveIn starts vaultd with args in folder dir ("" for the test's own)
// with env added, and initializes an MCP session over its stdio; the
// process is returned for signals.
func serveIn(t *testing.T, dir string, env []string, args ...string) (*server, *exec.Cmd) {
	t.Helper()
	var cmd *exec.Cmd
	stderr := &lockedBuffer{}
	c, err := client.NewStdioMCPClientWithOptions(vaultdBin, env, args,
		transport.WithCommandStderrWriter(stderr),
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env, cmd.Dir = append(os.Environ(), env...), dir
			return cmd, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Close()
		if t.Failed() {
			t.Logf("vaultd %s\nstderr:\n%s", strings.Join(args, " "), stderr)
		}
	})
	ctx, cancel := waitCtx(t)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "vaultd-e2e", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr)
	}
	return &server{t: t, c: c, stderr: stderr}, cmd
}
