package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/keys"
)

// A shared index (one per vault across processes) serves the core like an
// index of its own.
var _ Index = (*index.Shared)(nil)

// HTTPPath is where the HTTP server serves MCP.
const HTTPPath = "/mcp"

// maxBody bounds one request body; mcp-go reads bodies whole. Attachments
// travel base64-encoded in tool arguments, so this is generous.
const maxBody = 64 << 20

// HTTPOptions configure an HTTP server.
type HTTPOptions struct {
	// Keys authenticates every request (Authorization: Bearer <secret>).
	// Each key is its own connection: its rights, its rate limits, and
	// "key:NAME" as the actor in the history. The store is consulted on
	// every request, so a key revoked by another process is refused on
	// its next request.
	Keys *keys.Store
	// Open, when set, serves every request as this connection, without
	// keys (--no-auth, only ever on loopback: local experiments and the
	// conformance suite).
	Open *Connection
	// Loopback says the server listens on a loopback address: requests
	// whose Host is not a loopback name, or whose Origin is not a local
	// page, are refused with 403 (DNS rebinding: a web page the user
	// visits must not reach the vault through the browser).
	Loopback bool
	// Limits are every key's rate limits.
	Limits Limits
	// Logger receives one line per tool call and per refused request.
	Logger *slog.Logger
	// Now is the clock of "last used" (tests pin it). Default time.Now.
	Now func() time.Time
}

// HTTPServer serves MCP over streamable HTTP at HTTPPath.
type HTTPServer struct {
	o    HTTPOptions
	log  *slog.Logger
	mcp  *server.StreamableHTTPServer
	http *http.Server

	mu    sync.Mutex
	conns map[string]*Connection // key hash → its connection
}

type connKey struct{}

// ConnectionFromContext returns the connection an HTTP request was
// authenticated as, or nil.
func ConnectionFromContext(ctx context.Context) *Connection {
	cn, _ := ctx.Value(connKey{}).(*Connection)
	return cn
}

// NewHTTPServer builds the HTTP server over a core: the same tools and
// answers as stdio (NewServer), each request acting as the connection of
// its access key. Errors: none yet; a server without Keys and Open refuses
// every request.
func NewHTTPServer(c *Core, o HTTPOptions) *HTTPServer {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	h := &HTTPServer{o: o, log: o.Logger, conns: map[string]*Connection{}}
	s := NewServer(c, ServerOptions{
		Logger:     o.Logger,
		Connection: ConnectionFromContext,
		// Never reached (every request is authenticated first), but if it
		// were, it may do nothing.
		Default: NewConnection("anonymous", Perms{}, o.Limits),
	})
	h.http = &http.Server{
		Handler: h,
		// Headers must arrive promptly (slowloris); responses may stream
		// for long (SSE), so there is no write timeout.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
	}
	h.mcp = server.NewStreamableHTTPServer(s,
		server.WithEndpointPath(HTTPPath),
		server.WithStreamableHTTPServer(h.http),
		// mcp-go derives the handler's context from the request's, which
		// carries the connection; copying it here keeps that true should
		// mcp-go ever start from another context.
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			if cn := ConnectionFromContext(r.Context()); cn != nil {
				return context.WithValue(ctx, connKey{}, cn)
			}
			return ctx
		}),
		server.WithStreamableHTTPLogger(o.Logger),
		// Clients that vanish without DELETE leave per-session state.
		server.WithSessionIdleTTL(30*time.Minute),
	)
	return h
}

// ServeHTTP checks Host and Origin (on loopback), authenticates the key
// and hands the request to MCP as the key's connection.
func (h *HTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != HTTPPath {
		http.Error(w, "vaultd serves MCP at "+HTTPPath+"; point your MCP client at that URL", http.StatusNotFound)
		return
	}
	// Rebinding checks come before authentication: a foreign page learns
	// nothing, not even whether keys are needed.
	if h.o.Loopback {
		if msg := foreignRequest(r); msg != "" {
			h.log.Warn("http request refused", "status", 403, "reason", msg, "remote", r.RemoteAddr)
			http.Error(w, "vaultd: "+msg, http.StatusForbidden)
			return
		}
	}
	cn := h.o.Open
	if cn == nil {
		var status int
		var msg string
		cn, status, msg = h.authenticate(r)
		if cn == nil {
			if status == http.StatusUnauthorized {
				challenge := `Bearer realm="vaultd"`
				if r.Header.Get("Authorization") != "" {
					challenge += `, error="invalid_token"`
				}
				w.Header().Set("WWW-Authenticate", challenge)
			}
			h.log.Warn("http request refused", "status", status, "reason", msg, "remote", r.RemoteAddr)
			http.Error(w, "vaultd: "+msg, status)
			return
		}
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	h.mcp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), connKey{}, cn)))
}

// authenticate finds the connection of the request's key. It returns nil,
// the status and a message for the client when there is none.
func (h *HTTPServer) authenticate(r *http.Request) (*Connection, int, string) {
	if h.o.Keys == nil {
		return nil, http.StatusUnauthorized, "this server accepts no access keys"
	}
	auth := r.Header.Get("Authorization")
	scheme, secret, _ := strings.Cut(auth, " ")
	if auth == "" || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(secret) == "" {
		return nil, http.StatusUnauthorized, "this server needs an access key: send the header \"Authorization: Bearer <key>\". " +
			"The vault owner creates one with: vaultd keys create NAME --allow read"
	}
	k, ok, err := h.o.Keys.Lookup(strings.TrimSpace(secret))
	if err != nil {
		// A store that cannot be read refuses everyone; it never
		// lets anyone in.
		h.log.Error("access key store unreadable", "error", err)
		return nil, http.StatusInternalServerError, "the server cannot read its access keys; the vault owner should look at its log"
	}
	if !ok {
		return nil, http.StatusUnauthorized, "this access key is unknown or was revoked. " +
			"Ask the vault owner for a key (vaultd keys create NAME --allow read)"
	}
	h.o.Keys.Used(k, h.o.Now())
	return h.connection(k), 0, ""
}

// connection returns the key's connection, made on its first request. It
// is cached by the key's hash: a name revoked and created again gets a new
// connection with fresh limits.
func (h *HTTPServer) connection(k keys.Key) *Connection {
	h.mu.Lock()
	defer h.mu.Unlock()
	cn := h.conns[k.Hash]
	if cn == nil {
		cn = NewConnection("key:"+k.Name, Perms{Read: k.Rights.Read, Write: k.Rights.Write, Delete: k.Rights.Delete}, h.o.Limits)
		h.conns[k.Hash] = cn
	}
	return cn
}

// Serve accepts connections on ln until Shutdown; it then returns nil.
func (h *HTTPServer) Serve(ln net.Listener) error {
	err := h.http.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops the server gracefully: no new connections; requests in
// flight (a write in progress) finish and are answered; open event
// streams are closed; last-used times of the keys are written. When ctx
// ends first, the remaining connections are closed and ctx's error is
// returned.
func (h *HTTPServer) Shutdown(ctx context.Context) error {
	err := h.mcp.Shutdown(ctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if err != nil {
		_ = h.http.Close()
	}
	if h.o.Keys != nil {
		err = errors.Join(err, h.o.Keys.Flush())
	}
	return err
}

// foreignRequest returns why a request to a loopback server looks like
// DNS rebinding or a cross-site request, or "" when it is local: Host must
// name the loopback (localhost, 127.x.x.x, [::1], with any port), and an
// Origin, when sent (browsers send it), must be a page on the loopback.
func foreignRequest(r *http.Request) string {
	if !IsLoopbackHost(r.Host) {
		return fmt.Sprintf("the Host header %q is not this machine's loopback; connect to http://127.0.0.1 or http://localhost", r.Host)
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !IsLoopbackHost(u.Host) {
			return fmt.Sprintf("requests from the web page %q are not allowed; only local clients may connect", o)
		}
	}
	return ""
}

// IsLoopbackHost reports whether a host or host:port names the loopback
// interface: "localhost", an address in 127.0.0.0/8, or ::1.
func IsLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
