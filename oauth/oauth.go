// Package oauth is vaultd's OAuth 2.1 authorization server for its own
// /mcp, as the MCP authorization spec describes it: protected-resource
// metadata (RFC 9728), authorization-server metadata (RFC 8414), dynamic
// client registration (RFC 7591), the authorization code flow with PKCE
// S256 only, resource indicators (RFC 8707) and rotating refresh tokens.
//
// It owns the protocol: what a request must carry, what is refused and
// how each refusal reads. The consent step (who approves, under which
// name, with which rights) is the owner's page's (package web), which
// calls ParseAuthorize, Approve and Deny; the tokens are checked on /mcp
// by package mcpserver; everything is stored, as hashes, by package keys.
//
// Only dynamic registration is offered, no client ID metadata documents:
// the MCP TypeScript SDK (1.32) and mcp-go register when the server does
// not advertise those, and serving them would mean fetching URLs a client
// names from inside the server.
//
// oauth imports only keys of vaultd (the store); the doors that serve it
// (web for the consent, cmd/vaultd for the routes) import it, and it
// never imports tools, mcpserver or web.
package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/vaultd/vaultd/keys"
)

// Paths of the endpoints.
const (
	PathResourceMetadata = "/.well-known/oauth-protected-resource"
	PathServerMetadata   = "/.well-known/oauth-authorization-server"
	PathOpenID           = "/.well-known/openid-configuration"
	PathRegister         = "/register"
	PathAuthorize        = "/authorize"
	PathToken            = "/token"
)

// maxBody bounds a registration or token request: a few fields.
const maxBody = 64 << 10

// Limits of a registration: what one anonymous request can make the
// store keep (keys bounds how many registrations are kept).
const (
	maxRedirects      = 10
	maxRedirectLen    = 2000
	maxRedirectsBytes = 4 << 10 // all of a client's redirect addresses together
	maxNameRunes      = 100
)

// Options configure the authorization server.
type Options struct {
	// Store keeps clients, codes and grants.
	Store *keys.Store
	// Issuer is the server's public base URL, without a trailing slash:
	// "https://notes.example.org", or "http://127.0.0.1:8765" on loopback.
	Issuer string
	// Resource is the URL of the protected /mcp: Issuer + "/mcp".
	Resource string
	Logger   *slog.Logger
	// Now is the clock (tests pin it). Default time.Now.
	Now func() time.Time
}

// Server answers the metadata, registration and token endpoints.
type Server struct {
	o Options

	mu     sync.Mutex
	regs   float64   // registrations the bucket still allows
	regsAt time.Time // when regs was last refilled
}

// Registrations are bounded server-wide: each one is a write of the
// store, and a flood of them would push out the clients that registered
// but have not yet been approved (the oldest unconnected go first). A
// real client registers once per sign-in.
const (
	registerBurst    = 20
	registerInterval = 3 * time.Second // one more registration per interval: 20 a minute
)

// allowRegister takes one registration from the bucket, or says how long
// until the next one is allowed.
func (s *Server) allowRegister(now time.Time) (bool, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.regsAt.IsZero() {
		s.regs, s.regsAt = registerBurst, now
	}
	if d := now.Sub(s.regsAt); d > 0 {
		s.regs = min(registerBurst, s.regs+float64(d)/float64(registerInterval))
		s.regsAt = now
	}
	if s.regs < 1 {
		return false, time.Duration((1 - s.regs) * float64(registerInterval))
	}
	s.regs--
	return true, 0
}

// New returns the authorization server.
func New(o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Issuer = strings.TrimRight(o.Issuer, "/")
	return &Server{o: o}
}

// Issuer returns the server's issuer URL.
func (s *Server) Issuer() string { return s.o.Issuer }

// Resource returns the URL of the protected resource.
func (s *Server) Resource() string { return s.o.Resource }

// ResourceMetadataURL is where the protected-resource metadata of /mcp is
// (RFC 9728 §3.1: the well-known path before the resource's path); 401s
// on /mcp name it in WWW-Authenticate.
func (s *Server) ResourceMetadataURL() string {
	u, err := url.Parse(s.o.Resource)
	if err != nil {
		return s.o.Issuer + PathResourceMetadata
	}
	return s.o.Issuer + PathResourceMetadata + strings.TrimRight(u.Path, "/")
}

// Paths are the paths ServeHTTP answers (each also with a suffix after
// a "/", for the well-known ones).
var Paths = []string{PathResourceMetadata, PathServerMetadata, PathOpenID, PathRegister, PathToken}

// CORS reports whether path is one a web page elsewhere may call
// (browser-based MCP clients): the metadata, registration and token
// endpoints. The consent step is not: it is the owner's page.
func CORS(path string) bool {
	for _, p := range Paths {
		if path == p || strings.HasPrefix(path, p+"/") && strings.HasPrefix(p, "/.well-known/") {
			return true
		}
	}
	return false
}

// ServeHTTP answers the endpoints in Paths.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Cache-Control", "no-store")
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	p := r.URL.Path
	switch {
	case p == PathResourceMetadata || strings.HasPrefix(p, PathResourceMetadata+"/"):
		s.resourceMetadata(w, r)
	case p == PathServerMetadata || strings.HasPrefix(p, PathServerMetadata+"/"):
		s.serverMetadata(w, r)
	case p == PathOpenID || strings.HasPrefix(p, PathOpenID+"/"):
		writeError(w, http.StatusNotFound, "not_found", "vaultd is an OAuth 2.1 authorization server, not an OpenID provider; its metadata is at "+s.o.Issuer+PathServerMetadata)
	case p == PathRegister:
		s.register(w, r)
	case p == PathToken:
		s.token(w, r)
	default:
		writeError(w, http.StatusNotFound, "not_found", "no such OAuth endpoint; the metadata at "+s.o.Issuer+PathServerMetadata+" lists them")
	}
}

func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	if !getOnly(w, r) {
		return
	}
	u, _ := url.Parse(s.o.Resource)
	if rest := strings.TrimPrefix(r.URL.Path, PathResourceMetadata); rest != "" && (u == nil || rest != strings.TrimRight(u.Path, "/")) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("vaultd protects only %s; its metadata is at %s", s.o.Resource, s.ResourceMetadataURL()))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 s.o.Resource,
		"authorization_servers":    []string{s.o.Issuer},
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "vaultd",
	})
}

// ServerMetadata is the authorization-server metadata (RFC 8414).
func (s *Server) ServerMetadata() map[string]any {
	return map[string]any{
		"issuer":                                         s.o.Issuer,
		"authorization_endpoint":                         s.o.Issuer + PathAuthorize,
		"token_endpoint":                                 s.o.Issuer + PathToken,
		"registration_endpoint":                          s.o.Issuer + PathRegister,
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          authMethods,
		"authorization_response_iss_parameter_supported": true,
	}
}

var authMethods = []string{"none", "client_secret_post", "client_secret_basic"}

func (s *Server) serverMetadata(w http.ResponseWriter, r *http.Request) {
	if !getOnly(w, r) {
		return
	}
	if rest := strings.TrimPrefix(r.URL.Path, PathServerMetadata); rest != "" {
		writeError(w, http.StatusNotFound, "not_found", "vaultd's issuer has no path; its metadata is at "+s.o.Issuer+PathServerMetadata)
		return
	}
	writeJSON(w, http.StatusOK, s.ServerMetadata())
}

func getOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "metadata is read with GET")
		return false
	}
	return true
}

// register is dynamic client registration (RFC 7591).
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "register a client with POST and a JSON body (RFC 7591)")
		return
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, "invalid_client_metadata", fmt.Sprintf("the registration body is larger than %d KB", maxBody>>10))
		return
	}
	var req struct {
		RedirectURIs  []string `json:"redirect_uris"`
		ClientName    string   `json:"client_name"`
		AuthMethod    *string  `json:"token_endpoint_auth_method"`
		GrantTypes    []string `json:"grant_types"`
		ResponseTypes []string `json:"response_types"`
	}
	if err := json.Unmarshal(b, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not the JSON of a client registration (RFC 7591): "+cut(err.Error(), 200))
		return
	}
	m, code, msg := checkRegistration(req.RedirectURIs, req.ClientName, req.AuthMethod, req.GrantTypes, req.ResponseTypes)
	if msg != "" {
		writeError(w, http.StatusBadRequest, code, msg)
		return
	}
	if ok, wait := s.allowRegister(s.o.Now()); !ok {
		secs := max(1, int(wait.Round(time.Second)/time.Second))
		w.Header().Set("Retry-After", fmt.Sprint(secs))
		writeError(w, http.StatusTooManyRequests, "temporarily_unavailable", fmt.Sprintf("too many clients registered in the last minute (at most %d, then one every %d s); register again in %d s", registerBurst, int(registerInterval/time.Second), secs))
		return
	}
	c, secret, err := s.o.Store.RegisterClient(m, s.o.Now())
	if err != nil {
		s.o.Logger.Error("oauth: register a client", "error", err)
		writeError(w, http.StatusInternalServerError, "server_error", "the server cannot store the client; the vault owner should look at its log")
		return
	}
	s.o.Logger.Info("oauth client registered", "client", c.Name, "client_id", c.ID, "redirect_uris", strings.Join(c.RedirectURIs, " "))
	out := map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        c.Created.Unix(),
		"client_name":                c.Name,
		"redirect_uris":              c.RedirectURIs,
		"token_endpoint_auth_method": c.AuthMethod,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
	}
	if secret != "" {
		out["client_secret"] = secret
		out["client_secret_expires_at"] = 0
	}
	writeJSON(w, http.StatusCreated, out)
}

// checkRegistration validates a registration; on a refusal it returns
// the OAuth error code and a message naming the wrong part.
func checkRegistration(redirects []string, name string, method *string, grants, responses []string) (keys.ClientMeta, string, string) {
	if len(redirects) == 0 {
		return keys.ClientMeta{}, "invalid_redirect_uri", "redirect_uris is missing: name the address (or up to 10) the browser returns to after sign-in, e.g. [\"http://127.0.0.1:33418/callback\"]"
	}
	if len(redirects) > maxRedirects {
		return keys.ClientMeta{}, "invalid_redirect_uri", fmt.Sprintf("redirect_uris has %d addresses; at most %d", len(redirects), maxRedirects)
	}
	total := 0
	for _, u := range redirects {
		if msg := CheckRedirect(u); msg != "" {
			return keys.ClientMeta{}, "invalid_redirect_uri", msg
		}
		total += len(u)
	}
	if total > maxRedirectsBytes {
		return keys.ClientMeta{}, "invalid_redirect_uri", fmt.Sprintf("redirect_uris are %d characters together; at most %d (name the one or two addresses your client listens on)", total, maxRedirectsBytes)
	}
	am := "client_secret_basic" // RFC 7591 §2's default
	if method != nil {
		am = *method
	}
	if !contains(authMethods, am) {
		return keys.ClientMeta{}, "invalid_client_metadata", fmt.Sprintf("token_endpoint_auth_method %q is not supported; use one of %s", cut(am, 40), strings.Join(authMethods, ", "))
	}
	for _, g := range grants {
		if g != "authorization_code" && g != "refresh_token" {
			return keys.ClientMeta{}, "invalid_client_metadata", fmt.Sprintf("grant_types %q is not supported; vaultd offers authorization_code and refresh_token", cut(g, 40))
		}
	}
	for _, rt := range responses {
		if rt != "code" {
			return keys.ClientMeta{}, "invalid_client_metadata", fmt.Sprintf("response_types %q is not supported; vaultd offers only code", cut(rt, 40))
		}
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return -1
		}
		return r
	}, strings.TrimSpace(name))
	if name == "" {
		name = "unnamed client"
	}
	return keys.ClientMeta{Name: cut(name, maxNameRunes), RedirectURIs: redirects, AuthMethod: am}, "", ""
}

// CheckRedirect returns why u may not be a redirect address, or "": it
// must be an absolute https URL, http on a loopback host (a native
// client on this machine, RFC 8252 §7.3) or a native app's private-use
// scheme (§7.1), without a fragment or user info.
func CheckRedirect(u string) string {
	if len(u) > maxRedirectLen {
		return fmt.Sprintf("a redirect address is longer than %d characters", maxRedirectLen)
	}
	p, err := url.Parse(u)
	if err == nil && p.IsAbs() && privateScheme(p.Scheme) {
		return checkPrivate(u, p)
	}
	if err == nil && browserSchemes[strings.ToLower(p.Scheme)] {
		return fmt.Sprintf("redirect address %q uses the scheme %q, which the browser handles itself; give https://…, http://127.0.0.1:PORT/… or your app's own scheme (e.g. cursor://…)", cut(u, 200), cut(p.Scheme, 20))
	}
	if err != nil || p.Host == "" || !p.IsAbs() {
		return fmt.Sprintf("redirect address %q is not an absolute URL; give e.g. https://client.example/callback or http://127.0.0.1:33418/callback", cut(u, 200))
	}
	if p.Fragment != "" || strings.Contains(u, "#") {
		return fmt.Sprintf("redirect address %q has a fragment (#…); OAuth forbids one", cut(u, 200))
	}
	if p.User != nil {
		return fmt.Sprintf("redirect address %q carries user info (user@); give the address without it", cut(u, 200))
	}
	switch p.Scheme {
	case "https":
		return ""
	case "http":
		if loopback(p.Hostname()) {
			return ""
		}
		return fmt.Sprintf("redirect address %q uses http on a host that is not this machine; use https, or http only for 127.0.0.1, [::1] or localhost", cut(u, 200))
	}
	return fmt.Sprintf("redirect address %q uses the scheme %q; vaultd accepts https, http only for 127.0.0.1, [::1] or localhost, and an app's own scheme (e.g. cursor://)", cut(u, 200), cut(p.Scheme, 20))
}

// browserSchemes are schemes a browser handles itself (or that run
// code): never a native client's redirect.
var browserSchemes = map[string]bool{
	"about": true, "blob": true, "chrome": true, "chrome-extension": true, "data": true,
	"file": true, "filesystem": true, "ftp": true, "intent": true, "javascript": true,
	"mailto": true, "moz-extension": true, "sms": true, "tel": true, "view-source": true,
	"vbscript": true, "ws": true, "wss": true,
}

// privateScheme reports whether scheme is a private-use URI scheme a
// native app registers for its redirect (RFC 8252 §7.1: Cursor's
// "cursor", VS Code's "vscode", "com.example.app"): not http(s) and not
// one a browser handles itself.
func privateScheme(scheme string) bool {
	s := strings.ToLower(scheme)
	return s != "http" && s != "https" && len(s) >= 2 && !browserSchemes[s]
}

// checkPrivate checks a private-use redirect: no fragment, no user info.
// The browser hands it to the app that registered the scheme; PKCE keeps
// a code that reaches another app useless, and the owner sees the
// address on the consent page.
func checkPrivate(u string, p *url.URL) string {
	if p.Fragment != "" || strings.Contains(u, "#") {
		return fmt.Sprintf("redirect address %q has a fragment (#…); OAuth forbids one", cut(u, 200))
	}
	if p.User != nil {
		return fmt.Sprintf("redirect address %q carries user info (user@); give the address without it", cut(u, 200))
	}
	return ""
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// token is the token endpoint: a code or a refresh token for tokens.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Pragma", "no-cache")
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "ask for tokens with POST and a form body (application/x-www-form-urlencoded)")
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		writeError(w, http.StatusBadRequest, "invalid_request", "the token request must be a form (Content-Type: application/x-www-form-urlencoded)")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", fmt.Sprintf("the token request's form could not be read (at most %d KB)", maxBody>>10))
		return
	}
	f := r.PostForm
	if p := repeated(f, tokenParams); p != "" {
		writeError(w, http.StatusBadRequest, "invalid_request", fmt.Sprintf("%s is sent more than once; send each parameter once (RFC 6749 §3.2)", p))
		return
	}
	c, ok := s.client(w, r, f)
	if !ok {
		return
	}
	now := s.o.Now()
	var t keys.Tokens
	var err error
	switch gt := f.Get("grant_type"); gt {
	case "authorization_code":
		if f.Get("code") == "" {
			writeError(w, http.StatusBadRequest, "invalid_request", "code is missing: send the code the browser brought back to your redirect address")
			return
		}
		t, err = s.o.Store.ExchangeCode(f.Get("code"), c.ID, f.Get("redirect_uri"), f.Get("code_verifier"), f.Get("resource"), now)
	case "refresh_token":
		if f.Get("refresh_token") == "" {
			writeError(w, http.StatusBadRequest, "invalid_request", "refresh_token is missing")
			return
		}
		t, err = s.o.Store.Refresh(f.Get("refresh_token"), c.ID, f.Get("resource"), now)
	case "":
		writeError(w, http.StatusBadRequest, "invalid_request", "grant_type is missing: authorization_code or refresh_token")
		return
	default:
		writeError(w, http.StatusBadRequest, "unsupported_grant_type", fmt.Sprintf("grant_type %q is not supported; vaultd offers authorization_code and refresh_token", cut(gt, 40)))
		return
	}
	var ge *keys.GrantError
	switch {
	case errors.As(err, &ge):
		s.o.Logger.Warn("oauth: token request refused", "client", c.Name, "client_id", c.ID, "reason", ge.Msg)
		writeError(w, http.StatusBadRequest, "invalid_grant", ge.Msg)
		return
	case err != nil:
		s.o.Logger.Error("oauth: token request", "error", err)
		writeError(w, http.StatusInternalServerError, "server_error", "the server cannot read or write its sign-in store; the vault owner should look at its log")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token":  t.Access,
		"token_type":    "Bearer",
		"expires_in":    int(t.ExpiresIn / time.Second),
		"refresh_token": t.Refresh,
		"scope":         strings.ReplaceAll(t.Grant.Rights.String(), ",", " "),
	})
}

// client authenticates the token request's client: HTTP Basic, or
// client_id (and client_secret) in the form.
func (s *Server) client(w http.ResponseWriter, r *http.Request, f url.Values) (keys.Client, bool) {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id) // RFC 6749 §2.3.1: form-encoded
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = f.Get("client_id"), f.Get("client_secret")
	}
	if id == "" {
		writeError(w, http.StatusUnauthorized, "invalid_client", "client_id is missing: send the client_id that registration (POST "+PathRegister+") returned")
		return keys.Client{}, false
	}
	c, ok, err := s.o.Store.Client(id)
	if err != nil {
		s.o.Logger.Error("oauth: read the clients", "error", err)
		writeError(w, http.StatusInternalServerError, "server_error", "the server cannot read its sign-in store; the vault owner should look at its log")
		return keys.Client{}, false
	}
	if !ok {
		writeError(w, http.StatusUnauthorized, "invalid_client", fmt.Sprintf("client %q is not registered here; register first (POST %s), then sign in again", cut(id, 60), s.o.Issuer+PathRegister))
		return keys.Client{}, false
	}
	if c.SecretHash != "" && (secret == "" || !c.CheckSecret(secret)) {
		writeError(w, http.StatusUnauthorized, "invalid_client", fmt.Sprintf("client %q needs its client_secret (registered with %s), and the one sent is missing or wrong", cut(id, 60), c.AuthMethod))
		return keys.Client{}, false
	}
	return c, true
}

// Request is a checked authorization request.
type Request struct {
	Client      keys.Client
	RedirectURI string
	// RedirectSent says the request named RedirectURI (rather than leave
	// it to the client's only one); the token request must then name it
	// too.
	RedirectSent bool
	// Trusted says the browser may be sent to RedirectURI without the
	// owner's approval (see Trusted): with an error, or after a refusal.
	Trusted   bool
	State     string
	Challenge string
	Resource  string
}

// AuthError is a refused authorization request. With Redirect set the
// browser goes back to the client with the error (RFC 6749 §4.1.2.1);
// without, the owner is shown the reason instead: the redirect address is
// in doubt (a missing or unknown client, an address it did not register),
// or it is not one the browser may be sent to unasked (Untrusted).
type AuthError struct {
	Redirect string
	// Msg says what is wrong, in English (the log, error_description).
	Msg string
	// Kind and Args say it for the owner's page in the browser's
	// language: the text of AuthKinds[Kind], formatted with Args.
	Kind string
	Args []any
	// Untrusted is the redirect address the browser was not sent to
	// (Request.Trusted), when it was not.
	Untrusted string
}

func (e *AuthError) Error() string { return e.Msg }

// AuthKinds are the kinds of AuthError, with their English texts (each a
// format for the error's Args); the owner's page translates them.
var AuthKinds = map[string]string{
	"repeated":         "the sign-in request names %s more than once; nothing was sent to the client, start the connection again from it",
	"no_client":        "the sign-in request names no client (client_id is missing); start the connection again from your client",
	"store":            "the server cannot read its sign-in store; see vaultd's log",
	"unknown_client":   "the client %q is not registered with this vault (or was dropped); start the connection again from your client, so that it registers",
	"no_redirect":      "the sign-in request of %q names no redirect address, and the client registered several (%s); nothing was sent to any",
	"bad_redirect":     "the sign-in request of %q names the redirect address %q, which the client did not register (it registered %s); nothing was sent there",
	"response_type":    "response_type %q is not supported; vaultd offers only code",
	"no_challenge":     "code_challenge is missing: vaultd requires PKCE with S256",
	"challenge_method": "code_challenge_method %q is refused; vaultd accepts only S256",
	"bad_challenge":    "code_challenge is not an S256 challenge (43 characters of base64url)",
	"resource":         "resource %q is not served here; this server signs in only for %s",
}

// The parameters of the two requests that must not come twice.
var (
	authorizeParams = []string{"response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method", "resource", "scope"}
	tokenParams     = []string{"grant_type", "code", "redirect_uri", "client_id", "client_secret", "code_verifier", "refresh_token", "resource"}
)

// repeated returns the first of params that q holds more than once, or "".
func repeated(q url.Values, params []string) string {
	for _, p := range params {
		if len(q[p]) > 1 {
			return p
		}
	}
	return ""
}

func authErr(kind string, args ...any) *AuthError {
	return &AuthError{Msg: fmt.Sprintf(AuthKinds[kind], args...), Kind: kind, Args: args}
}

// Trusted reports whether the browser may be sent to a client's redirect
// address without the owner having approved it there and then: an
// address on this machine (http on the loopback, RFC 8252 §7.3), or one
// of a client the owner approved a connection of (a grant that lasts).
// Anyone can register a client with any https address or app scheme, so
// sending the owner's browser to one of those with an error, or after
// the owner refused, would make this server a redirector to wherever the
// registration named (RFC 9700 §4.11.2): such a request gets a page.
func (s *Server) Trusted(c keys.Client, redirect string) bool {
	if u, err := url.Parse(redirect); err == nil && u.Scheme == "http" && loopback(u.Hostname()) {
		return true
	}
	ok, err := s.o.Store.ClientApproved(c.ID)
	return err == nil && ok
}

// ParseAuthorize checks an authorization request's parameters: a
// registered client and one of its redirect addresses, response_type
// code, a PKCE S256 challenge (plain is refused), and a resource, when
// given, that is this server's /mcp. A refusal redirects to the client
// only when its address is Trusted.
func (s *Server) ParseAuthorize(q url.Values) (*Request, *AuthError) {
	// A parameter twice is refused before anything else: which of its
	// values counts would be a guess (RFC 6749 §3.1), and for client_id or
	// redirect_uri it leaves the redirect address in doubt.
	if p := repeated(q, authorizeParams); p != "" {
		return nil, authErr("repeated", p)
	}
	id := q.Get("client_id")
	if id == "" {
		return nil, authErr("no_client")
	}
	c, ok, err := s.o.Store.Client(id)
	if err != nil {
		s.o.Logger.Error("oauth: read the clients", "error", err)
		return nil, authErr("store")
	}
	if !ok {
		return nil, authErr("unknown_client", cut(id, 60))
	}
	// A parameter sent empty counts as left out (RFC 6749 §3.1).
	ru := q.Get("redirect_uri")
	sent := ru != ""
	if !sent && len(c.RedirectURIs) == 1 {
		ru = c.RedirectURIs[0]
	}
	if !sent && len(c.RedirectURIs) > 1 {
		return nil, authErr("no_redirect", c.Name, strings.Join(c.RedirectURIs, ", "))
	}
	if !c.HasRedirect(ru) {
		return nil, authErr("bad_redirect", c.Name, cut(ru, 200), strings.Join(c.RedirectURIs, ", "))
	}
	req := &Request{Client: c, RedirectURI: ru, RedirectSent: sent, Trusted: s.Trusted(c, ru), State: q.Get("state"),
		Challenge: q.Get("code_challenge"), Resource: q.Get("resource")}
	fail := func(code, kind string, args ...any) (*Request, *AuthError) {
		e := authErr(kind, args...)
		if req.Trusted {
			e.Redirect = s.errorRedirect(req, code, e.Msg)
		} else {
			e.Untrusted = req.RedirectURI
		}
		return nil, e
	}
	if rt := q.Get("response_type"); rt != "code" {
		return fail("unsupported_response_type", "response_type", cut(rt, 40))
	}
	switch m := q.Get("code_challenge_method"); {
	case req.Challenge == "":
		return fail("invalid_request", "no_challenge")
	case m != "S256":
		if m == "" {
			m = "plain" // RFC 7636 §4.3's default
		}
		return fail("invalid_request", "challenge_method", cut(m, 20))
	case !validChallenge(req.Challenge):
		return fail("invalid_request", "bad_challenge")
	}
	if req.Resource == "" {
		req.Resource = s.o.Resource
	} else if strings.TrimRight(req.Resource, "/") != strings.TrimRight(s.o.Resource, "/") {
		return fail("invalid_target", "resource", cut(req.Resource, 200), s.o.Resource)
	}
	req.Resource = s.o.Resource
	return req, nil
}

func validChallenge(c string) bool {
	if len(c) != 43 {
		return false
	}
	for _, r := range c {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Approve issues the code for an approved request and returns where the
// browser goes: the client's redirect address with code, state and iss.
func (s *Server) Approve(req *Request, name string, rights keys.Rights) (string, error) {
	return s.ApproveIn(req, name, rights, nil)
}

// ApproveIn is Approve for a connection limited to some vaults, each with
// its rights (keys.Grant.Vaults; nil: rights in every vault). Errors:
// keys.ErrInvalidVaults, and the store's.
func (s *Server) ApproveIn(req *Request, name string, rights keys.Rights, vaults map[string]keys.Rights) (string, error) {
	code, err := s.o.Store.NewCode(keys.CodeRequest{ClientID: req.Client.ID, RedirectURI: req.RedirectURI, RedirectSent: req.RedirectSent,
		Challenge: req.Challenge, Resource: req.Resource, Name: name, Rights: rights, Vaults: vaults}, s.o.Now())
	if err != nil {
		return "", err
	}
	attrs := []any{"client", req.Client.Name, "name", name, "rights", rights.String()}
	if len(vaults) > 0 {
		attrs = append(attrs, "vaults", keys.VaultsString(vaults))
	}
	s.o.Logger.Info("oauth: connection approved", attrs...)
	return s.redirect(req, url.Values{"code": {code}}), nil
}

// Deny returns where the browser goes when the owner refuses: the client's
// address with error=access_denied when it is Trusted, else "" (the owner
// is shown a page: a refusal must not send the browser to an address the
// owner just declined).
func (s *Server) Deny(req *Request) string {
	s.o.Logger.Info("oauth: connection refused by the owner", "client", req.Client.Name)
	if !req.Trusted {
		return ""
	}
	return s.errorRedirect(req, "access_denied", "the vault's owner refused the connection")
}

func (s *Server) errorRedirect(req *Request, code, msg string) string {
	return s.redirect(req, url.Values{"error": {code}, "error_description": {msg}})
}

func (s *Server) redirect(req *Request, v url.Values) string {
	if req.State != "" {
		v.Set("state", req.State)
	}
	v.Set("iss", s.o.Issuer)
	u, _ := url.Parse(req.RedirectURI) // checked at registration
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// writeError answers an OAuth error (RFC 6749 §5.2).
func writeError(w http.ResponseWriter, status int, code, msg string) {
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="vaultd"`)
	}
	writeJSON(w, status, map[string]string{"error": code, "error_description": msg})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// PublicURL checks a --public-url value and returns it without a trailing
// slash: an absolute http or https URL without path, query or fragment.
func PublicURL(s string) (string, error) {
	u, err := url.Parse(strings.TrimRight(s, "/"))
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("%q is not a web address; give the address clients reach the server at, e.g. https://notes.example.org", s)
	}
	if u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("%q has a path, query or user info; give only scheme and host, e.g. https://notes.example.org (vaultd serves /mcp below it)", s)
	}
	if u.Scheme == "http" {
		if h, _, err := net.SplitHostPort(u.Host); (err == nil && !loopback(h)) || (err != nil && !loopback(u.Host)) {
			return "", fmt.Errorf("%q uses http on a host that is not this machine; sign-in needs https across the network (a TLS proxy in front)", s)
		}
	}
	return u.Scheme + "://" + u.Host, nil
}
