package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBrowser_OAuth is sign-in for MCP clients end to end
// (browser/oauth.mjs): the official TypeScript SDK's OAuth client
// discovers the metadata, registers and sends the owner to the consent
// page, where headless Chromium signs in (and comes back to the consent)
// and approves "read" only; the client then lists only the read tools, a
// write is refused, a reused code revokes its connection, a refresh
// rotates the tokens, and revoking the connection on the Connections view
// cuts the client off (its next call gets 401). Screenshots of the
// consent land in $VAULTD_ARTIFACTS, else e2e/browser/artifacts.
func TestBrowser_OAuth(t *testing.T) {
	dir := filepath.Join(repoRoot, "e2e", "browser")
	if out, err := exec.Command("sh", filepath.Join(dir, "install-chromium.sh")).CombinedOutput(); err != nil {
		t.Fatalf("install-chromium.sh: %v\n%s", err, out)
	}
	npmCI(t, dir)
	t.Parallel()
	vault, state := copyVault(t), t.TempDir()
	createKey(t, vault, state, "laptop", "read") // keys work next to sign-in
	p := serveHTTPProc(t, vault, state)
	base := strings.TrimSuffix(p.url, "/mcp")
	out, err := exec.Command(vaultdBin, "owner", "link", "--url", base, "--vault", vault, "--state-dir", state, "--json").Output()
	if err != nil {
		t.Fatalf("vaultd owner link: %v\n%s", err, out)
	}
	var link struct{ Link string }
	if err := json.Unmarshal(out, &link); err != nil {
		t.Fatalf("vaultd owner link --json: %v\n%s", err, out)
	}
	art := os.Getenv("VAULTD_ARTIFACTS")
	if art == "" {
		art = filepath.Join(dir, "artifacts")
	}
	cmd := exec.Command("node", "oauth.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "VAULTD_BASE="+base, "VAULTD_LINK="+link.Link, "VAULTD_ARTIFACTS="+art)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	last := lines[len(lines)-1]
	if err != nil || !regexp.MustCompile(`^oauth: [1-9][0-9]* passed, 0 failed$`).MatchString(last) {
		t.Fatalf("node oauth.mjs: %v; last line %q (screenshots in %s)\n%s", err, last, art, buf.String())
	}
	t.Logf("%s (screenshots in %s)", last, art)
}
