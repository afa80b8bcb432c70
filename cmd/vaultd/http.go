package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/mcpserver"
	"github.com/vaultd/vaultd/oauth"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/web"
)

// shutdownGrace is how long a stopping HTTP server waits for requests in
// flight (a write is milliseconds; a search on a large vault well below a
// second) before it closes what is left.
const shutdownGrace = 30 * time.Second

// httpAddr is the checked --http address, and the key store once opened.
type httpAddr struct {
	addr     string
	loopback bool
	keys     *keys.Store // nil with --no-auth
	nkeys    int
	public   string // --public-url, checked; "" without
}

// checkHTTPFlags checks --http and --no-auth before anything is opened.
func checkHTTPFlags(cmd *cobra.Command, f serveFlags) (httpAddr, error) {
	host, port, err := net.SplitHostPort(f.http)
	if err != nil || port == "" {
		return httpAddr{}, usagef(withGlobals(cmd, "vaultd serve --http 127.0.0.1:8765"),
			"--http %s is not an address; give HOST:PORT, e.g. 127.0.0.1:8765 (this machine only) or 0.0.0.0:8765 (the network, with access keys)", shellQuote(f.http))
	}
	loopback := host != "" && mcpserver.IsLoopbackHost(host)
	if f.noAuth && !loopback {
		return httpAddr{}, usagef(withGlobals(cmd, "vaultd serve --http 127.0.0.1:"+port+" --no-auth"),
			"--no-auth would let anyone who can reach %s read and change the vault; it is allowed only on a loopback address (127.0.0.1, localhost, [::1])", f.http)
	}
	if f.publicURL != "" {
		pub, err := oauth.PublicURL(f.publicURL)
		if err != nil {
			return httpAddr{}, usagef(withGlobals(cmd, "vaultd serve --http "+f.http+" --public-url https://notes.example.org"), "--public-url %s", err)
		}
		f.publicURL = pub
	}
	if !f.noAuth && (cmd.Flags().Changed("allow") || cmd.Flags().Changed("read-only")) {
		return httpAddr{}, usagef(withGlobals(cmd, "vaultd keys create laptop --allow read,write"),
			"over HTTP every access key carries its own rights; --allow and --read-only apply to stdio and to --no-auth")
	}
	return httpAddr{addr: f.http, loopback: loopback, public: f.publicURL}, nil
}

// openKeys opens the vault's access keys for --http; without any, the
// server would refuse every client, so it does not start (unless
// --no-auth). It runs before the index is opened, so that the refusal is
// immediate.
func openKeys(cmd *cobra.Command, f serveFlags, at *httpAddr, stateDir string) error {
	if f.noAuth {
		return nil
	}
	store := keys.Open(stateDir)
	n, err := store.Len()
	if err != nil {
		return err
	}
	if n == 0 && (f.app || f.publicURL != "") {
		// The page manages the keys; /mcp refuses clients until there is
		// one, or, with --public-url, until a client signs in.
		at.keys = store
		return nil
	}
	if n == 0 {
		msg := fmt.Sprintf("vaultd serve --http %s needs an access key for each client, and this vault has none yet; create one (its secret is shown once) and start again", at.addr)
		if at.loopback {
			msg += ", or add --no-auth for a local experiment"
		}
		return &failure{code: exitUsage, msg: msg, try: withGlobals(cmd, "vaultd keys create laptop --allow read,write")}
	}
	at.keys, at.nkeys = store, n
	return nil
}

// serveHTTP serves the core over streamable HTTP until ctx ends (SIGINT,
// SIGTERM), then shuts down gracefully: requests in flight finish and are
// answered before the caller closes the index and the vault.
func (a *app) serveHTTP(ctx context.Context, f serveFlags, at httpAddr, c *tools.Core, vs *tools.Vaults, perms tools.Perms, logger *slog.Logger, clientLog *mcpserver.ClientLog) error {
	limits := tools.Limits{WritesPerMinute: f.writesPerMinute, DeletesPerMinute: f.deletesPerMinute}
	o := mcpserver.HTTPOptions{Loopback: at.loopback, Limits: limits, Logger: logger, Keys: at.keys, ClientLog: clientLog, Vaults: vs, LoneVault: a.loneVault}
	if f.noAuth {
		o.Open = tools.NewConnection(a.actor, perms, limits)
	}
	ln, err := net.Listen("tcp", at.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", at.addr, err)
	}
	base := "http://" + ln.Addr().String()
	url := base + mcpserver.HTTPPath
	store := at.keys
	if store == nil { // --no-auth: the keys serve no client, but the owner still signs in
		store = keys.Open(c.Vault().StateDir())
	}
	mcpURL := mcpURLFor(ln.Addr().String())
	if at.public != "" {
		mcpURL = at.public + mcpserver.HTTPPath
		o.PublicURL = at.public
	}
	var as *oauth.Server
	if at.keys != nil {
		// Signed-in connections: vaultd is the authorization server of
		// its own /mcp, at the address clients reach it at.
		as = oauth.New(oauth.Options{Store: at.keys, Issuer: strings.TrimSuffix(mcpURL, mcpserver.HTTPPath), Resource: mcpURL, Logger: logger})
		o.Resource, o.ResourceMetadata, o.CORS = as.Resource(), as.ResourceMetadataURL(), oauth.CORS
	}
	var srv *mcpserver.HTTPServer
	page, err := web.New(c, web.Options{Keys: store, MCPURL: mcpURL, Logger: logger, OAuth: as,
		Revoked: func() { srv.CloseRevoked() }, Limits: limits, Vaults: vs})
	if err != nil {
		return err
	}
	o.Page = page
	srv = mcpserver.NewHTTPServer(c, o)
	lim := srv.Limits()
	attrs := []any{"max_body_bytes", lim.MaxBody, "max_connections", lim.MaxConns, "requests_per_key", lim.MaxRequestsPerKey, "sessions_per_key", lim.MaxSessionsPerKey}
	if f.noAuth {
		logger.Info("serving over http", append([]any{"url", url, "auth", "none (--no-auth)", "rights", rightsText(perms)}, attrs...)...)
	} else {
		logger.Info("serving over http", append([]any{"url", url, "auth", "access keys", "keys", at.nkeys}, attrs...)...)
	}
	logger.Info("owner's page", "url", pageOf(mcpURL)+"/", "sign_in", "vaultd owner link")
	if as != nil {
		logger.Info("sign-in for MCP clients (OAuth)", "issuer", as.Issuer(), "resource", as.Resource())
	}
	if f.app {
		secret, _, err := store.NewLink(time.Now())
		if err != nil {
			return fmt.Errorf("make a sign-in link: %w", err)
		}
		fmt.Fprintf(a.out, "vaultd's page for %s is at %s/\nsign in (once, within %s) with:\n\n  %s\n\nStop with Ctrl-C.\n", c.Vault().Dir(), base, durationWords(keys.LinkTTL), signinURL(base, secret))
	}
	if !at.loopback {
		logger.Warn("serving the network without TLS: put a TLS proxy in front, or use a VPN; keys and notes travel in clear text otherwise")
	}
	// Say where this server listens, in the state dir, so that vaultd
	// owner link and vaultd keys create print this address.
	unannounce, err := announceServer(c.Vault().StateDir(), runningServer{PID: os.Getpid(), Page: pageOf(mcpURL), MCP: mcpURL,
		Listen: ln.Addr().String(), Started: time.Now().UTC()})
	if err != nil {
		logger.Warn("could not note this server's address in the state dir: vaultd owner link and keys create need --url", "error", err)
	}
	defer unannounce()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: finishing the requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(sctx)
	if serr := <-served; serr != nil {
		err = errors.Join(err, serr)
	}
	if err != nil {
		logger.Warn("shutdown", "error", err)
	}
	logger.Info("stopped serving over http")
	return nil
}

// mcpURLFor is the MCP URL the page's key lines name: the listening
// address, or 127.0.0.1 for one that listens on every interface.
func mcpURLFor(listening string) string {
	host, port, err := net.SplitHostPort(listening)
	if err == nil && (host == "" || host == "0.0.0.0" || host == "::") {
		listening = net.JoinHostPort("127.0.0.1", port)
	}
	return "http://" + listening + mcpserver.HTTPPath
}

// signinURL is the one-time sign-in link for a page at base.
func signinURL(base, secret string) string {
	return strings.TrimRight(base, "/") + "/signin?token=" + secret
}

// durationWords renders a link's lifetime: "15 minutes".
func durationWords(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}
