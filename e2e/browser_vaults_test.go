package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBrowser_Vaults is the owner's page of a server of two vaults
// (vaultd serve --vault work=… --vault team=… --http) in headless
// Chromium (browser/vaults.mjs): signed in, the owner sees each vault's
// changes by an agent (the TypeScript SDK over HTTP) in that vault's
// Activity, switches vaults in the header (also without JavaScript),
// sees every vault's changes at once with each row naming its vault,
// undoes a change of team from there (team's file is back, work's
// untouched), and creates a key limited to team with read only, which
// sees team alone and may not write. Screenshots land in
// $VAULTD_ARTIFACTS/vaults, else e2e/browser/artifacts/vaults.
func TestBrowser_Vaults(t *testing.T) {
	browserSetup(t)
	t.Parallel()
	work, team := copyVault(t), filepath.Join(t.TempDir(), "team")
	for p, text := range map[string]string{
		"Onboarding/Erste Woche.md":     "# Erste Woche\n\nSchlüssel abholen, Laptop einrichten.\n",
		"Onboarding/Ansprechpartner.md": "# Ansprechpartner\n\nFür Fragen: das Büro.\n",
		"Projekte/Umzug.md":             "# Umzug\n\nDas Team zieht im Mai um.\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(team, filepath.FromSlash(p))), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(team, filepath.FromSlash(p)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The keys and sign-in links live with the first vault, in its own
	// state dir (a server of several vaults takes no --state-dir).
	state := filepath.Join(work, ".vaultd")
	key := createKey(t, work, state, "agent", "read,write,delete")
	p := serveVaultsProc(t, "--vault", "work="+work, "--vault", "team="+team)
	runBrowserScript(t, "vaults.mjs", "vaults", p.url, work, state, "VAULTD_AGENT_KEY="+key, "VAULTD_WORK="+work, "VAULTD_TEAM="+team)
}

// serveVaultsProc starts `vaultd serve ARGS --http 127.0.0.1:0` (ARGS
// name the vaults) and waits until it listens. Cleanup stops it with
// SIGTERM.
func serveVaultsProc(t *testing.T, args ...string) *httpProc {
	t.Helper()
	return serveHTTPArgs(t, nil, append([]string{"serve"}, append(args, "--http", "127.0.0.1:0")...)...)
}
