package e2e

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPrintedLines_NameTheRunningServer: vaultd owner link and vaultd keys
// create print the address of the server that runs on the vault, not the
// default one (issue 32: with another port the sign-in link was dead), and
// connection lines for every client the README covers; each works as
// printed: the link opens the running server's sign-in page, the key's
// Claude Code address answers MCP with the key. With no server running
// they say that the address is the default one.
func TestPrintedLines_NameTheRunningServer(t *testing.T) {
	vault, state := copyVault(t), t.TempDir()
	cli := func(args ...string) (stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(vaultdBin, append(args, "--vault", vault, "--state-dir", state)...)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("vaultd %s: %v\n%s%s", strings.Join(args, " "), err, o.String(), e.String())
		}
		return o.String(), e.String()
	}
	secretOf := func(out string) string {
		t.Helper()
		m := regexp.MustCompile(`(?m)^  (vdk_\S+)$`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no secret in:\n%s", out)
		}
		return m[1]
	}

	// No server yet: the default address, and it says so.
	out, _ := cli("keys", "create", "anna", "--allow", "read,write")
	anna := secretOf(out)
	wantContains(t, "keys create with no server running", out,
		"no vaultd serve --http is running on this vault, so the address is the default one, http://127.0.0.1:8765/mcp",
		`claude mcp add --transport http notes http://127.0.0.1:8765/mcp --header "Authorization: Bearer `+anna+`"`,
		`{"mcpServers": {"notes": {"url": "http://127.0.0.1:8765/mcp"`,
		"export VAULTD_KEY="+anna,
		"codex mcp add notes --url http://127.0.0.1:8765/mcp --bearer-token-env-var VAULTD_KEY",
		"gemini mcp add --scope user --transport http notes http://127.0.0.1:8765/mcp --header 'Authorization: Bearer $VAULTD_KEY'")
	_, errOut := cli("owner", "link")
	wantContains(t, "owner link with no server running", errOut, "no vaultd serve --http is running on this vault", "--url")

	// A server on a port of its own (127.0.0.1:0: never 8765).
	h := serveHTTPProc(t, vault, state)
	page := strings.TrimSuffix(h.url, "/mcp")
	out, _ = cli("keys", "create", "ben", "--allow", "read")
	ben := secretOf(out)
	wantContains(t, "keys create with a server running", out,
		h.url+" is the address of the server running on this vault (pid",
		`claude mcp add --transport http notes `+h.url+` --header "Authorization: Bearer `+ben+`"`,
		"codex mcp add notes --url "+h.url+" --bearer-token-env-var VAULTD_KEY",
		"gemini mcp add --scope user --transport http notes "+h.url+" ")
	if strings.Contains(out, "8765") {
		t.Errorf("keys create names the default port while a server runs at %s:\n%s", h.url, out)
	}
	// The printed address and key answer MCP.
	if s := httpClient(t, h.url, ben); s.init == nil || s.init.ServerInfo.Name != "vaultd" {
		t.Errorf("initialize at the printed address with the printed key: %+v", s.init)
	}
	out, errOut = cli("owner", "link")
	link := regexp.MustCompile(`(?m)^  (\S+/signin\?token=\S+)$`).FindStringSubmatch(out)
	if link == nil || !strings.HasPrefix(link[1], page+"/signin?token=") {
		t.Fatalf("owner link while a server runs at %s: got\n%s%s", page, out, errOut)
	}
	wantContains(t, "owner link's stderr", errOut, page+" is the address of the server running on this vault")
	res, err := http.Get(link[1])
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("GET the printed sign-in link: %s, want the sign-in page", res.Status)
	}
	// --url still wins (a TLS proxy's address).
	out, errOut = cli("owner", "link", "--url", "https://notes.example.org")
	if !strings.Contains(out, "https://notes.example.org/signin?token=") || errOut != "" {
		t.Errorf("owner link --url: got\n%s%s", out, errOut)
	}

	// Stopped, the server takes its note with it.
	if err := h.stop(); err != nil {
		t.Fatalf("vaultd after SIGTERM: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(state, "servers", "*.json")); len(left) > 0 {
		t.Errorf("the stopped server left %v in the state dir", left)
	}
	_, errOut = cli("owner", "link")
	wantContains(t, "owner link after the server stopped", errOut, "no vaultd serve --http is running on this vault")
}
