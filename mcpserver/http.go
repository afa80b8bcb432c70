package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/tools"
)

// A shared index (one per vault across processes) serves the core like an
// index of its own.
var _ tools.Index = (*index.Shared)(nil)

// HTTPPath is where the HTTP server serves MCP.
const HTTPPath = "/mcp"

// HTTPOptions configure an HTTP server.
type HTTPOptions struct {
	// Vaults, when it serves several, are what the server serves
	// (ServerOptions.Vaults); a key's rights may name some of them.
	Vaults *tools.Vaults
	// LoneVault is the name of the one vault served without Vaults (its
	// folder's, or the vaults file's): a key limited to vaults has the
	// rights it names for this one, and none if it names others only.
	LoneVault string
	// ClientLog, when set, sends log records of a request to its client
	// as MCP log messages (see ClientLog).
	ClientLog *ClientLog
	// Keys authenticates every request (Authorization: Bearer <secret>).
	// Each key is its own connection: its rights, its rate limits, and
	// "key:NAME" as the actor in the history. The store is consulted on
	// every request, so a key revoked by another process is refused on
	// its next request, and its open event streams close within
	// HTTPLimits.RevokeCheck.
	Keys *keys.Store
	// Open, when set, serves every request as this connection, without
	// keys (--no-auth, only ever on loopback: local experiments and the
	// conformance suite).
	Open *tools.Connection
	// Loopback says the server listens on a loopback address: requests
	// whose Host is not this server's loopback name and port, or whose
	// Origin is not a local page, are refused with 403 (DNS rebinding: a
	// web page the user visits must not reach the vault through the
	// browser). Requests that arrive over a loopback connection are
	// checked so even without it.
	Loopback bool
	// Limits are every key's rate limits.
	Limits tools.Limits
	// HTTP bounds what clients can make the server hold: bodies, time,
	// connections, sessions, streams.
	HTTP HTTPLimits
	// Logger receives one line per tool call and per refused request.
	Logger *slog.Logger
	// Now is the clock of "last used" and of session expiry (tests pin
	// it). Default time.Now.
	Now func() time.Time
	// Page, when set, serves every path but HTTPPath (the owner's page),
	// after the same Host and Origin checks as MCP; it does its own
	// sign-in, and access keys never reach it.
	Page http.Handler
	// Resource, when set, turns on signed-in connections (OAuth, package
	// oauth): the access tokens in Keys' store are accepted if they were
	// issued for this URL of /mcp (the audience), and a 401 names
	// ResourceMetadata, where clients find how to sign in.
	Resource, ResourceMetadata string
	// PublicURL is the server's address as clients reach it, when that is
	// not the listening address (a TLS proxy in front: "https://notes.example.org").
	// A request over loopback whose Host is its host passes the
	// rebinding checks, as does an Origin of it.
	PublicURL string
	// CORS reports the paths any web page may call (OAuth's metadata and
	// token endpoints, for browser-based clients): for them Origin is not
	// checked, Host still is.
	CORS func(path string) bool
}

// HTTPServer serves MCP over streamable HTTP at HTTPPath.
type HTTPServer struct {
	o      HTTPOptions
	lim    HTTPLimits
	log    *slog.Logger
	mcp    *server.StreamableHTTPServer
	http   *http.Server
	budget *byteBudget
	stop   chan struct{}

	// bodyGarbage counts the bytes of large bodies let go of since the
	// last collection they caused; collecting says one runs (bodiesDone).
	bodyGarbage atomic.Int64
	collecting  atomic.Bool

	guardMu sync.Mutex
	guard   *connGuard // of the listener Serve accepts on

	sub *subscriptions // the MCP server's resource subscriptions

	mu       sync.Mutex
	conns    map[string]*tools.Connection // key hash → its connection
	keys     map[string]*keyState         // key hash ("open" with Open) → its requests and streams
	sessions map[string]*session          // session id → its key and use
	ended    []string                     // sessions ended while mu is held, to forget once it is not (unlockForget)
}

type connKey struct{}

// ConnectionFromContext returns the connection an HTTP request was
// authenticated as, or nil.
func ConnectionFromContext(ctx context.Context) *tools.Connection {
	cn, _ := ctx.Value(connKey{}).(*tools.Connection)
	return cn
}

// NewHTTPServer builds the HTTP server over a core: the same tools and
// answers as stdio (NewServer), each request acting as the connection of
// its access key, within o.HTTP's limits. Errors: none yet; a server
// without Keys and Open refuses every request.
func NewHTTPServer(c *tools.Core, o HTTPOptions) *HTTPServer {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	lim := o.HTTP.withDefaults()
	h := &HTTPServer{o: o, lim: lim, log: o.Logger, budget: newByteBudget(lim.BodyBudget), stop: make(chan struct{}),
		conns: map[string]*tools.Connection{}, keys: map[string]*keyState{}, sessions: map[string]*session{}}
	s, sub := newServer(c, ServerOptions{
		Logger:     o.Logger,
		Connection: ConnectionFromContext,
		// Never reached (every request is authenticated first), but if it
		// were, it may do nothing.
		Default:       tools.NewConnection("anonymous", tools.Perms{}, o.Limits),
		ClientLog:     o.ClientLog,
		Vaults:        o.Vaults,
		Subscriptions: SubscriptionLimits{MaxPerSession: lim.MaxSubscriptionsPerSession, MaxPerKey: lim.MaxSubscriptionsPerKey},
	})
	// Subscriptions end with the sessions of the table (http_sessions.go).
	sub.alive = h.sessionAlive
	h.sub = sub
	h.http = &http.Server{
		Handler: h,
		// Headers must arrive promptly (slowloris). The body has its own
		// deadline, set per request (BodyTimeout) and lifted once it is
		// read: http.Server's ReadTimeout would also end event streams,
		// whose connection is read for its close. Responses may stream for
		// long (SSE), so there is no write timeout.
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ConnState: func(c net.Conn, st http.ConnState) {
			if g := h.connGuard(); g != nil {
				g.connState(c, st)
			}
		},
		ConnContext: connContext,
		ErrorLog:    slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
	}
	h.mcp = server.NewStreamableHTTPServer(s,
		server.WithEndpointPath(HTTPPath),
		server.WithStreamableHTTPServer(h.http),
		// Sessions are the server's own (http_sessions.go): unknown ids
		// get 404, DELETE ends a session, each key has a bounded number.
		server.WithSessionIdManagerResolver(sessionResolver{h}),
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
		// mcp-go keeps per-session state of its own; it sweeps it (and
		// asks the session table to end the session) after the same idle
		// time. The heartbeat keeps a session with an open event stream
		// in use, and finds clients that vanished.
		server.WithSessionIdleTTL(lim.SessionIdleTTL),
		server.WithHeartbeatInterval(30*time.Second),
	)
	return h
}

// Limits returns the HTTP limits in force, defaults filled in.
func (h *HTTPServer) Limits() HTTPLimits { return h.lim }

func (h *HTTPServer) connGuard() *connGuard {
	h.guardMu.Lock()
	defer h.guardMu.Unlock()
	return h.guard
}

// ServeHTTP checks Host and Origin (on loopback), authenticates the key
// and hands the request to MCP as the key's connection, within the
// limits: the body read here (bounded, in time too), the key's requests
// and streams counted, sessions checked against the key.
func (h *HTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.lim.BodyTimeout))
	if r.URL.Path != HTTPPath {
		if h.o.Page == nil {
			h.refuse(w, r, http.StatusNotFound, "vaultd serves MCP at "+HTTPPath+"; point your MCP client at that URL")
			return
		}
		if msg := h.foreign(r); msg != "" {
			h.refuse(w, r, http.StatusForbidden, msg)
			return
		}
		h.o.Page.ServeHTTP(w, r)
		return
	}
	// Rebinding checks come before authentication: a foreign page learns
	// nothing, not even whether keys are needed.
	if msg := h.foreign(r); msg != "" {
		h.refuse(w, r, http.StatusForbidden, msg)
		return
	}
	cn, ks := h.o.Open, (*keyState)(nil)
	if cn != nil {
		ks = h.keyState("open", "open")
	} else {
		var status int
		var msg string
		cn, ks, status, msg = h.authenticate(r)
		if cn == nil {
			if status == http.StatusUnauthorized {
				challenge := `Bearer realm="vaultd"`
				if r.Header.Get("Authorization") != "" {
					challenge += `, error="invalid_token"`
				}
				if h.o.ResourceMetadata != "" {
					challenge += `, resource_metadata="` + h.o.ResourceMetadata + `"`
				}
				w.Header().Set("WWW-Authenticate", challenge)
			}
			h.refuse(w, r, status, msg)
			return
		}
	}
	if gc, ok := r.Context().Value(guardedConnKey{}).(*guardedConn); ok {
		gc.g.authenticated(gc)
	}
	ctx := context.WithValue(context.WithValue(r.Context(), connKey{}, cn), keyStateKey{}, ks)
	hr := &server.HTTPRequest{Method: r.Method, URL: r.URL, Header: r.Header, Context: ctx}
	sid := r.Header.Get(server.HeaderKeySessionID)
	modern := mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion))
	switch {
	case r.Method == http.MethodGet && !modern:
		_ = rc.SetReadDeadline(time.Time{})
		if sid == "" {
			h.refuse(w, r, http.StatusBadRequest, "an event stream (GET) needs the Mcp-Session-Id header of a session this key initialized")
			return
		}
		if h.useSession(ks.id, sid) != nil {
			h.refuse(w, r, http.StatusNotFound, h.unknownSession(sid))
			return
		}
		sctx, done, ok := h.openStream(ctx, ks, sid)
		if !ok {
			h.refuse(w, r, http.StatusTooManyRequests, fmt.Sprintf("this access key has %d event streams open, the most it may; end a session (DELETE) before opening another stream", h.lim.MaxStreamsPerKey))
			return
		}
		defer done()
		hr.Context = sctx
		h.mcp.Handle(newRespWriter(w), hr)
	case r.Method == http.MethodPost || r.Method == http.MethodDelete:
		if !h.begin(ks) {
			w.Header().Set("Retry-After", "1")
			h.refuse(w, r, http.StatusTooManyRequests, fmt.Sprintf("this access key has %d requests in progress, the most it may have at once; wait for their answers before sending more", h.lim.MaxRequestsPerKey))
			return
		}
		began := true
		defer func() {
			if began {
				h.end(ks)
			}
		}()
		if r.Method == http.MethodDelete {
			if !modern && (sid == "" || h.useSession(ks.id, sid) != nil) {
				h.refuse(w, r, http.StatusNotFound, h.unknownSession(sid))
				return
			}
			h.mcp.Handle(newRespWriter(w), hr)
			return
		}
		body, release, ok := h.readBody(w, r)
		if !ok {
			return
		}
		defer release()
		_ = rc.SetReadDeadline(time.Time{})
		hr.Body = body
		if isListen(body) {
			// A 2026-07-28 client's event stream: it counts as a stream,
			// not as a request in progress. Its request (and what mcp-go
			// makes of it) is held as long as the stream is open, so it is
			// bounded as a stream, not as a body: a 16 MB list of
			// resources held the whole body budget, for every client,
			// until the stream closed.
			if len(body) > maxListenBody {
				h.refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("a subscriptions/listen request is %s, more than the %s one may be: it is held as long as its stream is open; listen for fewer resources at once (resourceSubscriptions)", mib(int64(len(body))), mib(maxListenBody)))
				return
			}
			h.end(ks)
			began = false
			sctx, done, ok := h.openStream(ctx, ks, "")
			if !ok {
				h.refuse(w, r, http.StatusTooManyRequests, fmt.Sprintf("this access key has %d event streams open, the most it may; close one before opening another", h.lim.MaxStreamsPerKey))
				return
			}
			defer done()
			hr.Context = sctx
		}
		h.mcp.Handle(newRespWriter(w), hr)
	default:
		_ = rc.SetReadDeadline(time.Time{})
		h.mcp.Handle(newRespWriter(w), hr)
	}
}

// unknownSession explains a 404 for a session id.
func (h *HTTPServer) unknownSession(sid string) string {
	if sid == "" {
		return "this request needs the Mcp-Session-Id header of a session this key initialized"
	}
	return fmt.Sprintf("session %q is unknown or has ended (closed with DELETE, unused for %s, or replaced because its key opened more than %d sessions); start a new one with initialize",
		tools.Cut(sid, 60), durationText(h.lim.SessionIdleTTL), h.lim.MaxSessionsPerKey)
}

// durationText renders a limit's duration for a message: "1 h", "30 min",
// "300ms".
func durationText(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return d.String()
}

// maxListenBody bounds a subscriptions/listen request: a list of a few
// hundred resources fits many times over.
const maxListenBody = smallBody

// isListen reports whether a POST body is a subscriptions/listen request,
// which holds its response open as an event stream.
func isListen(body []byte) bool {
	if !bytes.Contains(body, []byte(mcp.MethodSubscriptionsListen)) {
		return false
	}
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == string(mcp.MethodSubscriptionsListen)
}

// authenticate finds the connection of the request's key. It returns nil,
// the status and a message for the client when there is none.
func (h *HTTPServer) authenticate(r *http.Request) (*tools.Connection, *keyState, int, string) {
	if h.o.Keys == nil {
		return nil, nil, http.StatusUnauthorized, "this server accepts no access keys"
	}
	auth := r.Header.Get("Authorization")
	scheme, secret, _ := strings.Cut(auth, " ")
	if auth == "" || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(secret) == "" {
		msg := "this server needs an access key: send the header \"Authorization: Bearer <key>\". " +
			"The vault owner creates one with: vaultd keys create NAME --allow read"
		if h.o.Resource != "" {
			msg += ". Or sign in: a client that supports OAuth finds how at " + h.o.ResourceMetadata + " and sends the vault owner to approve it"
		}
		return nil, nil, http.StatusUnauthorized, msg
	}
	secret = strings.TrimSpace(secret)
	if h.o.Resource != "" && strings.HasPrefix(secret, keys.AccessPrefix) {
		return h.authenticateToken(secret)
	}
	if h.o.Resource != "" && strings.HasPrefix(secret, keys.RefreshPrefix) {
		return nil, nil, http.StatusUnauthorized, "this is a refresh token, which the token endpoint takes; send the access token it returns (vda_…) instead"
	}
	k, ok, err := h.o.Keys.Lookup(secret)
	if err != nil {
		// A store that cannot be read refuses everyone; it never
		// lets anyone in.
		h.log.Error("access key store unreadable", "error", err)
		return nil, nil, http.StatusInternalServerError, "the server cannot read its access keys; the vault owner should look at its log"
	}
	if !ok {
		return nil, nil, http.StatusUnauthorized, "this access key is unknown or was revoked. " +
			"Ask the vault owner for a key (vaultd keys create NAME --allow read)"
	}
	h.o.Keys.Used(k, h.o.Now())
	return h.connection(k), h.keyState(k.Hash, k.Name), 0, ""
}

// authenticateToken finds the connection of a signed-in client's access
// token: it must be known (its connection not revoked), unexpired, and
// issued for this server's /mcp. The connection has the grant's rights,
// per vault where the owner limited it to some (keys.Grant.Vaults).
func (h *HTTPServer) authenticateToken(token string) (*tools.Connection, *keyState, int, string) {
	g, expires, ok, err := h.o.Keys.LookupAccess(token)
	if err != nil {
		h.log.Error("sign-in store unreadable", "error", err)
		return nil, nil, http.StatusInternalServerError, "the server cannot read its signed-in connections; the vault owner should look at its log"
	}
	if !ok {
		return nil, nil, http.StatusUnauthorized, "this sign-in token is unknown, or its connection was revoked by the vault owner; sign in again (an OAuth client does so itself, starting at " + h.o.ResourceMetadata + ")"
	}
	now := h.o.Now()
	if !now.Before(expires) {
		return nil, nil, http.StatusUnauthorized, fmt.Sprintf("this sign-in token expired at %s (tokens last %s); get a new one with the refresh token at the token endpoint, or sign in again", expires.UTC().Format(time.RFC3339), durationText(keys.AccessTTL))
	}
	if g.Resource != h.o.Resource {
		return nil, nil, http.StatusUnauthorized, fmt.Sprintf("this sign-in token was issued for %s, not for this server's %s; sign in again here", tools.Cut(g.Resource, 200), h.o.Resource)
	}
	h.o.Keys.GrantUsed(g.ID, now)
	id := keys.GrantPrefix + g.ID
	return h.connectionFor(id, tools.SignedInActor+g.Name, g.Rights, g.Vaults, keys.Limits{}), h.keyState(id, tools.SignedInActor+g.Name), 0, ""
}

// connection returns the key's connection, made on its first request. It
// is cached by the key's hash, rights, rights per vault and limits: a name
// revoked and created again gets a new connection with fresh limits, and a
// key whose rights, vaults or limits the owner changed acts with the new
// ones from its next request.
func (h *HTTPServer) connection(k keys.Key) *tools.Connection {
	return h.connectionFor(k.Hash, "key:"+k.Name, k.Rights, k.Vaults, k.Limits)
}

// connectionFor returns the connection of a key (by its hash) or a
// signed-in grant (GrantPrefix and its id) with these rights, its rights
// per vault (nil: r in every vault) and its own rate limits (none: the
// server's). Rights per vault become the connection's Vaults, by the
// names this server serves them under (a vault it does not serve is left
// out), and its Perms their union: the tools it is shown.
func (h *HTTPServer) connectionFor(hash, actor string, r keys.Rights, vaults map[string]keys.Rights, own keys.Limits) *tools.Connection {
	h.mu.Lock()
	defer h.mu.Unlock()
	id := fmt.Sprintf("%s %s %d/%d", hash, r, own.WritesPerMinute, own.DeletesPerMinute)
	if len(vaults) > 0 {
		id += " vaults " + keys.VaultsString(vaults)
	}
	cn := h.conns[id]
	if cn == nil {
		for old := range h.conns { // the same key with other rights
			if strings.HasPrefix(old, hash+" ") {
				delete(h.conns, old)
			}
		}
		cn = tools.NewConnection(actor, tools.Perms{Read: r.Read, Write: r.Write, Delete: r.Delete}, KeyLimits(h.o.Limits, own))
		if len(vaults) > 0 {
			byVault := make(map[string]tools.Perms, len(vaults))
			for name, vr := range vaults {
				byVault[name] = tools.Perms{Read: vr.Read, Write: vr.Write, Delete: vr.Delete}
			}
			if h.o.Vaults != nil && h.o.Vaults.Multi() {
				// By name, whatever the case: a vault served later (a
				// reload) is reached from the key's next request on.
				cn.Vaults, cn.Perms = byVault, tools.UnionPerms(byVault)
			} else {
				// A lone vault: the rights the key has under its name,
				// else none.
				cn.Perms = tools.Caller{Vaults: byVault}.PermsFor(h.o.LoneVault)
			}
		}
		h.conns[id] = cn
	}
	return cn
}

// KeyLimits are the rate limits of a key's connection: the server's,
// with the key's own where it has them. A key's own limit also caps its
// burst, so that a key allowed 5 writes a minute cannot make 10 at once.
func KeyLimits(server tools.Limits, own keys.Limits) tools.Limits {
	l := server.WithDefaults()
	if n := own.WritesPerMinute; n > 0 {
		l.WritesPerMinute, l.WriteBurst = n, min(l.WriteBurst, n)
	}
	if n := own.DeletesPerMinute; n > 0 {
		l.DeletesPerMinute, l.DeleteBurst = n, min(l.DeleteBurst, n)
	}
	return l
}

// CloseRevoked ends at once the event streams and sessions of keys that
// were revoked (the server also checks every HTTPLimits.RevokeCheck).
func (h *HTTPServer) CloseRevoked() { h.closeRevoked() }

// Serve accepts connections on ln until Shutdown; it then returns nil. At
// most HTTPLimits.MaxConns connections are open at once.
func (h *HTTPServer) Serve(ln net.Listener) error {
	g := newConnGuard(ln, h.lim.MaxConns, func(msg string, args ...any) { h.log.Warn(msg, args...) })
	h.guardMu.Lock()
	first := h.guard == nil
	h.guard = g
	h.guardMu.Unlock()
	if first {
		go h.watch(h.stop)
	}
	err := h.http.Serve(g)
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
	h.guardMu.Lock()
	select {
	case <-h.stop:
	default:
		close(h.stop)
	}
	h.guardMu.Unlock()
	h.closeStreams()
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

// foreign returns why a request looks like DNS rebinding or a cross-site
// request, or "" when it may go on. Requests to a loopback server, and
// any that arrive over a loopback connection, are checked.
func (h *HTTPServer) foreign(r *http.Request) string {
	port, onLoopback := "", h.o.Loopback
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && a != nil {
		if host, p, err := net.SplitHostPort(a.String()); err == nil {
			port = p
			if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap().IsLoopback() {
				onLoopback = true
			}
		}
	}
	if !onLoopback {
		return ""
	}
	cors := h.o.CORS != nil && h.o.CORS(r.URL.Path)
	if pub, err := url.Parse(h.o.PublicURL); h.o.PublicURL != "" && err == nil && strings.EqualFold(r.Host, pub.Host) {
		// Through the owner's TLS proxy: the public name is this server.
		if o := r.Header.Get("Origin"); o != "" && !cors && !strings.EqualFold(o, pub.Scheme+"://"+pub.Host) {
			return fmt.Sprintf("requests from the web page %q are not allowed; only clients and this server's own page may connect", tools.Cut(o, 80))
		}
		return ""
	}
	if cors && r.Header.Get("Origin") != "" {
		r = r.Clone(r.Context())
		r.Header.Del("Origin")
	}
	return foreignRequest(r, port)
}

// foreignRequest returns why a request to a loopback server looks like
// DNS rebinding or a cross-site request, or "" when it is local: Host must
// name the loopback (localhost, 127.x.x.x, [::1]) with the port the server
// listens on (port, when known; no port means 80) — exactly, so that
// "localhost:8765.evil.example" is foreign — and an Origin, when sent
// (browsers send it), must be a page on the loopback.
func foreignRequest(r *http.Request, port string) string {
	if !loopbackHostPort(r.Host, port) {
		where := "http://127.0.0.1 or http://localhost"
		if port != "" {
			where = "http://127.0.0.1:" + port + " or http://localhost:" + port
		}
		return fmt.Sprintf("the Host header %q is not this server's loopback address and port; connect to %s", tools.Cut(r.Host, 80), where)
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !IsLoopbackHost(u.Host) {
			return fmt.Sprintf("requests from the web page %q are not allowed; only local clients may connect", tools.Cut(o, 80))
		}
	}
	return ""
}

// loopbackHostPort reports whether a Host header names the loopback and,
// when port is known, that port exactly (a Host without a port means 80).
func loopbackHostPort(hostport, port string) bool {
	if !IsLoopbackHost(hostport) {
		return false
	}
	_, p, err := net.SplitHostPort(hostport)
	if err != nil {
		p = "80" // no port given
	}
	return port == "" || p == port
}

// IsLoopbackHost reports whether a host or host:port names the loopback
// interface: "localhost", an address in 127.0.0.0/8, or ::1. A port, when
// there is one, must be a port number (1–65535, digits only).
func IsLoopbackHost(hostport string) bool {
	host := hostport
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		if !validPort(p) {
			return false
		}
		host = h
	} else if strings.Count(hostport, ":") == 1 {
		return false // "localhost:" or a malformed port
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// validPort reports whether p is a port number as a Host header writes
// it: 1–65535 in digits, without a sign or leading zeros.
func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n <= 65535 && strconv.Itoa(n) == p
}
