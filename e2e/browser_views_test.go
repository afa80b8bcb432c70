package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBrowser_EveryView walks every view of the owner's page — and every
// refusal it shows — in English and German, at 1280×900 and 390×844, in
// headless Chromium (browser/views.mjs), after an agent (the TypeScript
// SDK over HTTP, as "claude-code") made the changes they show. Each view
// fails on a word of the other language (web/testdata/texts.json and
// words.json), sideways scrolling, an interactive element lower than
// 44 px on the phone, or one without an accessible name; the refusals'
// ways forward are followed; the page is read without JavaScript.
// Screenshots of each view land in $VAULTD_ARTIFACTS/views, else
// e2e/browser/artifacts/views.
func TestBrowser_EveryView(t *testing.T) {
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
	runBrowserScript(t, "views.mjs", "views", p.url, vault, state, "VAULTD_AGENT_KEY="+key, "VAULTD_VAULT="+vault)
}
