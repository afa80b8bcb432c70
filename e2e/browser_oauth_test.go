package e2e

import (
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
	browserSetup(t)
	t.Parallel()
	vault, state := copyVault(t), t.TempDir()
	createKey(t, vault, state, "laptop", "read") // keys work next to sign-in
	p := serveHTTPProc(t, vault, state)
	runBrowserScript(t, "oauth.mjs", "oauth", p.url, vault, state)
}
