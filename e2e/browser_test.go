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
	dir := filepath.Join(repoRoot, "e2e", "browser")
	if out, err := exec.Command("sh", filepath.Join(dir, "install-chromium.sh")).CombinedOutput(); err != nil {
		t.Fatalf("install-chromium.sh: %v\n%s", err, out)
	}
	npmCI(t, dir)
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
	base := strings.TrimSuffix(p.url, "/mcp")
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
		art = filepath.Join(dir, "artifacts")
	}
	cmd := exec.Command("node", "page.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "VAULTD_BASE="+base, "VAULTD_LINK="+link.Link, "VAULTD_AGENT_KEY="+key,
		"VAULTD_VAULT="+vault, "VAULTD_ARTIFACTS="+art)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	last := lines[len(lines)-1]
	if err != nil || !regexp.MustCompile(`^browser: [1-9][0-9]* passed, 0 failed$`).MatchString(last) {
		t.Fatalf("node page.mjs: %v; last line %q (screenshots in %s)\n%s", err, last, art, buf.String())
	}
	t.Logf("%s (screenshots in %s)", last, art)
}
