package e2e

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestConnect_LinesWorkAsPrinted: vaultd connect prints a line for each
// client the README covers, and each starts this vaultd on this vault as
// printed — from another folder, with no vaultd on PATH (issue 32: the
// README's Codex and Gemini lines assumed it there): the command each
// line gives the client answers initialize over stdio.
func TestConnect_LinesWorkAsPrinted(t *testing.T) {
	vault := copyVault(t)
	out, err := exec.Command(vaultdBin, "connect", "--vault", vault).CombinedOutput()
	if err != nil {
		t.Fatalf("vaultd connect: %v\n%s", err, out)
	}
	text := string(out)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"connect-test","version":"1"}}}` + "\n"
	starts := func(what string, cmd *exec.Cmd) {
		t.Helper()
		cmd.Dir = t.TempDir()
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
		cmd.Stdin = strings.NewReader(init)
		got, err := cmd.Output()
		if err != nil || !strings.Contains(string(got), `"serverInfo":{"name":"vaultd"`) {
			t.Errorf("%s: the printed command does not serve MCP: %v\n%s", what, err, got)
		}
	}
	for _, c := range []struct{ client, prefix string }{
		{"Claude Code", "claude mcp add notes -- "},
		{"Codex CLI", "codex mcp add notes -- "},
		{"Gemini CLI", "gemini mcp add --scope user notes "},
	} {
		m := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(c.prefix) + `(.+)$`).FindStringSubmatch(text)
		if m == nil {
			t.Errorf("no %s line (%q…) in:\n%s", c.client, c.prefix, text)
			continue
		}
		if !strings.HasPrefix(m[1], "/") || !strings.Contains(m[1], " serve --vault "+vault) {
			t.Errorf("%s: %q, want the binary's absolute path and serve --vault %s", c.client, m[1], vault)
		}
		starts(c.client, exec.Command("sh", "-c", m[1]))
	}
	m := regexp.MustCompile(`(?m)^  (\{"mcpServers".+)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no Cursor line in:\n%s", text)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(m[1]), &cfg); err != nil || cfg.MCPServers["notes"].Command == "" {
		t.Fatalf("Cursor's line is not its mcp.json: %v\n%s", err, m[1])
	}
	n := cfg.MCPServers["notes"]
	starts("Cursor", exec.Command(n.Command, n.Args...))
}
