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

// TestBrowser_OwnersPage drives the owner's page in headless Chromium
// (browser/page.mjs): the page without sign-in redirects; sign-in with a
// one-time link from vaultd owner link; an agent (the TypeScript SDK over
// HTTP) appends and deletes and the Activity view shows both live; Undo
// puts the file back; Restore brings the deleted note and its sub-note
// back; a key made on the page connects and, revoked, gets 401; a forged
// cross-site POST is refused. Chromium is Debian's, installed by
// browser/install-chromium.sh when missing (never a Playwright download);
// screenshots of each view land in $VAULTD_ARTIFACTS, else
// e2e/browser/artifacts.
func TestBrowser_OwnersPage(t *testing.T) {
	browserSetup(t)
	t.Parallel()
	vault, state := copyVault(t), t.TempDir()
	if err := os.MkdirAll(filepath.Join(vault, "1_Projekte", "Garten"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, text := range map[string]string{
		"1_Projekte/Garten.md":      "# Garten\n\nBeete und Wege, ein Plan für das Frühjahr.\n",
		"1_Projekte/Garten/Beet.md": "# Beet\n\nTomaten, Bohnen, Kapuzinerkresse.\n",
	} {
		if err := os.WriteFile(filepath.Join(vault, filepath.FromSlash(p)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	key := createKey(t, vault, state, "agent", "read,write,delete")
	p := serveHTTPProc(t, vault, state)
	runBrowserScript(t, "page.mjs", "browser", p.url, vault, state, "VAULTD_AGENT_KEY="+key, "VAULTD_VAULT="+vault)
}

// browserDir is the browser tests' folder: Chromium and the npm packages.
func browserDir() string { return filepath.Join(repoRoot, "e2e", "browser") }

// browserSetup installs Debian's Chromium when missing (never a
// Playwright download) and the browser tests' npm packages.
func browserSetup(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("sh", filepath.Join(browserDir(), "install-chromium.sh")).CombinedOutput(); err != nil {
		t.Fatalf("install-chromium.sh: %v\n%s", err, out)
	}
	npmCI(t, browserDir())
}

// runBrowserScript runs one of the browser scripts against the server at
// mcpURL: it gets the page's address, a one-time sign-in link from
// vaultd owner link, the artifacts folder and env; its last line must be
// "LABEL: N passed, 0 failed".
func runBrowserScript(t *testing.T, script, label, mcpURL, vault, state string, env ...string) {
	t.Helper()
	base := strings.TrimSuffix(mcpURL, "/mcp")
	out, err := exec.Command(vaultdBin, "owner", "link", "--url", base, "--vault", vault, "--state-dir", state, "--json").Output()
	if err != nil {
		t.Fatalf("vaultd owner link: %v\n%s", err, out)
	}
	var link struct{ Link string }
	if err := json.Unmarshal(out, &link); err != nil || !strings.HasPrefix(link.Link, base+"/signin?token=vdo_") {
		t.Fatalf("vaultd owner link --json: %v\n%s", err, out)
	}
	art := os.Getenv("VAULTD_ARTIFACTS")
	if art == "" {
		art = filepath.Join(browserDir(), "artifacts")
	}
	cmd := exec.Command("node", script)
	cmd.Dir = browserDir()
	cmd.Env = append(append(os.Environ(), "VAULTD_BASE="+base, "VAULTD_LINK="+link.Link, "VAULTD_ARTIFACTS="+art), env...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	last := lines[len(lines)-1]
	if err != nil || !regexp.MustCompile(`^`+regexp.QuoteMeta(label)+`: [1-9][0-9]* passed, 0 failed$`).MatchString(last) {
		t.Fatalf("node %s: %v; last line %q (screenshots in %s)\n%s", script, err, last, art, buf.String())
	}
	t.Logf("%s (screenshots in %s)", last, art)
}
