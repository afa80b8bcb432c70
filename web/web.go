// Package web is the owner's page: the vault's owner, signed in with a
// one-time link, sees what agents changed (in the vault, or to one note
// across its moves) and undoes it, restores notes from the trash, reads a
// note's history, compares any two of its versions and restores one,
// manages the access keys with their rights and rate limits, approves the
// MCP clients that sign in (OAuth's consent step, oauth.go), and sees the
// rules agents are given, the calls they had refused and the health of the
// search index (Rules & health), and runs the vault's Obsidian Bases views
// as Obsidian shows them (Bases, bases.go). It is the third door onto the same core as the
// MCP tools and the CLI: every action is one call of the core (Core), with
// the owner as the caller, so the page has exactly the safety of the CLI.
// A server of several vaults (Options.Vaults) has a switcher in the header,
// every view works on the vault it names, and Activity shows every vault's
// changes at once on request (vaults.go).
//
// Pages are server-rendered from Go templates with the assets embedded in
// the binary; every action is a plain form POST, so the page works without
// JavaScript (a small script, static/page.js, says times relative to now in
// the browser's zone, groups changes by the browser's days, and refreshes
// the activity list live).
//
// The page speaks the browser's language, English or German (or the one
// picked in its footer): every text is in both (i18n*.go; the list of them
// all is testdata/texts.json), and what the core records or answers in
// English for agents — actors like "key:laptop", operations like
// "update_section", the summaries vaultd writes, refusals — is said in
// words at display time (words.go, refusals.go), each refusal with its way
// forward.
//
// Security: nothing but the sign-in page answers without the owner's
// session cookie (HttpOnly, SameSite=Strict, Secure behind TLS). Access
// keys and bearer tokens never open the page: the Authorization header is
// not looked at. Every POST carries the session's CSRF token and, when the
// browser sends Origin, an Origin of this very page. Host checks against
// DNS rebinding are the MCP server's, which hands the page its requests.
//
// web imports tools, mcpserver, keys, vault and note; only cmd/vaultd
// imports web.
package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/oauth"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

//go:embed templates/*.html static/*
var assets embed.FS

// Core is what the page asks of vaultd's core: the same calls the CLI
// makes. *tools.Core implements it.
type Core interface {
	RecentChanges(context.Context, tools.Caller, tools.RecentChangesArgs) *tools.Result
	NoteHistory(context.Context, tools.Caller, tools.NoteHistoryArgs) *tools.Result
	Undo(context.Context, tools.Caller, tools.UndoArgs) *tools.Result
	ListTrash(context.Context, tools.Caller, tools.ListTrashArgs) *tools.Result
	RestoreNote(context.Context, tools.Caller, tools.RestoreArgs) *tools.Result
	EmptyTrashPlan(tools.EmptyTrashArgs) ([]vault.TrashEntry, error)
	EmptyTrash(context.Context, tools.Caller, tools.EmptyTrashArgs) *tools.Result
	ReplaceNote(context.Context, tools.Caller, tools.ReplaceArgs) *tools.Result
	Vault() *vault.Vault
}

var _ Core = (*tools.Core)(nil)

// Actor is who the page's changes are recorded as in the history.
const Actor = "owner"

// Session cookie and CSRF field names.
const (
	CookieName = "vaultd_owner"
	CSRFField  = "csrf"
)

// SessionTTL is how long a sign-in lasts.
const SessionTTL = 12 * time.Hour

// maxForm bounds a form POST's body: the page's forms are a few fields.
const maxForm = 64 << 10

// Options configure the page.
type Options struct {
	// Keys is the vault's key store: the owner's sign-in links, and the
	// access keys the Connections view manages.
	Keys *keys.Store
	// MCPURL is the URL clients connect to, for the copy-ready lines of a
	// new key (default: the page's own address + /mcp).
	MCPURL string
	// Revoked is called after the owner revokes a key or changes its
	// rights, so that the MCP server ends the key's open streams at once.
	Revoked func()
	// OAuth, when set, serves sign-in for MCP clients (package oauth) on
	// the page's address, with the consent step on this page; the
	// Connections view then also lists the signed-in connections.
	OAuth  *oauth.Server
	Logger *slog.Logger
	// Now is the clock (tests pin it). Default time.Now.
	Now func() time.Time

	// Limits are the server's rate limits (vaultd serve
	// --writes-per-minute, --deletes-per-minute): what a key without its
	// own has. Zero fields are the defaults.
	Limits tools.Limits

	// Vaults are the vaults the server serves, when it serves them by
	// name (tools.Vaults.Multi): the page then switches between them, and
	// keys and signed-in connections get rights per vault. Nil, or a lone
	// vault: the page is the core's given to New. The set may change while
	// the server runs; the page asks it on every request.
	Vaults *tools.Vaults
}

// Server serves the owner's page.
type Server struct {
	core Core
	o    Options
	tmpl map[string]*template.Template
	mux  *http.ServeMux

	mu       sync.Mutex
	sessions map[string]*session // hash of the cookie's secret → session
}

type session struct {
	csrf    string
	expires time.Time
	flash   []flash // guarded by Server.mu
}

// New builds the page over a core: the lone vault's, or with
// Options.Vaults the first vault's (every request names its vault).
func New(c Core, o Options) (*Server, error) {
	if o.Keys == nil {
		return nil, errors.New("web: the page needs the vault's key store (sign-in links)")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{core: c, o: o, sessions: map[string]*session{}, tmpl: map[string]*template.Template{}}
	names, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" || strings.HasPrefix(base, "_") {
			continue // the layout, and parts every page may use
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "templates/layout.html", "templates/_*.html", n)
		if err != nil {
			return nil, err
		}
		s.tmpl[base] = t
	}
	static, _ := fs.Sub(assets, "static")
	m := http.NewServeMux()
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /signin", s.signinPage)
	m.HandleFunc("GET /lang", s.setLang)
	m.HandleFunc("POST /signin", s.signin)
	m.HandleFunc("POST /signout", s.owner(s.signout))
	m.HandleFunc("GET /{$}", s.owner(s.activity))
	m.HandleFunc("GET /activity/latest", s.owner(s.latest))
	m.HandleFunc("POST /undo", s.owner(s.undo))
	m.HandleFunc("GET /trash", s.owner(s.trash))
	m.HandleFunc("POST /trash/restore", s.owner(s.restore))
	m.HandleFunc("GET /trash/empty", s.owner(s.emptyConfirm))
	m.HandleFunc("POST /trash/empty", s.owner(s.empty))
	m.HandleFunc("GET /note", s.owner(s.note))
	m.HandleFunc("POST /note/restore", s.owner(s.restoreVersion))
	m.HandleFunc("GET /note/diff", s.owner(s.noteDiff))
	m.HandleFunc("GET /connections", s.owner(s.connections))
	m.HandleFunc("POST /connections/create", s.owner(s.createKey))
	m.HandleFunc("POST /connections/revoke", s.owner(s.revokeKey))
	m.HandleFunc("POST /connections/rights", s.owner(s.setRights))
	m.HandleFunc("POST /connections/vaults", s.owner(s.setKeyVaults))
	if o.OAuth != nil {
		s.oauthRoutes(m)
	}
	m.HandleFunc("POST /connections/limits", s.owner(s.setLimits))
	m.HandleFunc("GET /health", s.owner(s.health))
	m.HandleFunc("GET /bases", s.owner(s.bases))
	m.HandleFunc("GET /base", s.owner(s.baseView))
	m.HandleFunc("/", s.notFound)
	s.mux = m
	return s, nil
}

// csp is the page's Content-Security-Policy.
const csp = "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

// ServeHTTP serves the page.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	// same-origin, not no-referrer: with no-referrer browsers send "Origin:
	// null" on the page's own form POSTs, which the origin checks refuse.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

// notFound answers paths the page does not have.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusNotFound, "refused", map[string]any{"Why": "not_found"})
}

// caller is the owner as the core's caller: every right, recorded as
// "owner", the next calls spelled as CLI commands.
func caller() tools.Caller {
	return tools.Caller{Actor: Actor, Perms: tools.AllPerms, Door: tools.DoorCLI}
}

type ownerKey struct{}

// owner wraps a handler that only the signed-in owner reaches: without a
// session a GET is sent to the sign-in page and anything else refused;
// a POST must carry the session's CSRF token and come from this page.
// With several vaults the request's vault (its "vault" parameter, else the
// first) goes with it (coreOf); one that is not served is refused.
func (s *Server) owner(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess := s.session(r)
		if sess == nil {
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, "/signin", http.StatusSeeOther)
				return
			}
			s.refuse(w, r, http.StatusForbidden, "not_signed_in")
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxForm)
			if !sameOrigin(r) {
				s.refuse(w, r, http.StatusForbidden, "cross_site")
				return
			}
			if err := r.ParseForm(); err != nil {
				s.refuse(w, r, http.StatusBadRequest, "bad_form")
				return
			}
			got := r.PostForm.Get(CSRFField)
			if subtle.ConstantTimeCompare([]byte(got), []byte(sess.csrf)) != 1 {
				s.refuse(w, r, http.StatusForbidden, "cross_site")
				return
			}
		}
		r = r.WithContext(context.WithValue(r.Context(), ownerKey{}, sess))
		r, ok := s.withVault(r)
		if !ok {
			s.unknownVault(w, r)
			return
		}
		next(w, r)
	}
}

// sameOrigin reports whether a POST comes from this page: its Origin (or,
// without one, its Referer), when the browser sends either, names this
// page's own scheme and host. Browsers send Origin with every form POST;
// Sec-Fetch-Site, when sent, must say same-origin.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		o = r.Header.Get("Referer")
	}
	if o == "" {
		return true // not a browser, or one that sends neither: the CSRF token decides
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Host, r.Host) && u.Scheme == scheme(r)
}

// scheme is the scheme the browser used: https behind a TLS proxy that
// says so.
func scheme(r *http.Request) string {
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		return "https"
	}
	return "http"
}

// session returns the request's valid session, or nil.
func (s *Server) session(r *http.Request) *session {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return nil
	}
	h := keys.HashSecret(c.Value)
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[h]
	if sess == nil {
		return nil
	}
	if !s.o.Now().Before(sess.expires) {
		delete(s.sessions, h)
		return nil
	}
	return sess
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand does not fail on supported systems
	return base64.RawURLEncoding.EncodeToString(b)
}

// signinPage asks for the one-time link's token, or explains how to get
// one. A GET never spends the token (link previews would): the button
// posts it.
func (s *Server) signinPage(w http.ResponseWriter, r *http.Request) {
	if s.session(r) != nil && r.URL.Query().Get("token") == "" {
		http.Redirect(w, r, nextAfterSignin(w, r), http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "signin", map[string]any{"Token": r.URL.Query().Get("token"), "Consent": pendingConsent(r)})
}

// signin spends a one-time link and starts a session.
func (s *Server) signin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if !sameOrigin(r) {
		s.refuse(w, r, http.StatusForbidden, "cross_site")
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	if token == "" || !strings.HasPrefix(token, keys.LinkPrefix) {
		// An access key is never a sign-in: say so without spending anything.
		s.render(w, r, http.StatusUnauthorized, "signin", map[string]any{"Error": "link_invalid"})
		return
	}
	if err := s.o.Keys.UseLink(token, s.o.Now()); err != nil {
		if !errors.Is(err, keys.ErrLinkInvalid) {
			s.o.Logger.Error("owner sign-in: the link store is unreadable", "error", err)
		}
		s.render(w, r, http.StatusUnauthorized, "signin", map[string]any{"Error": "link_invalid"})
		return
	}
	secret := randomToken()
	sess := &session{csrf: randomToken(), expires: s.o.Now().Add(SessionTTL)}
	s.mu.Lock()
	now := s.o.Now()
	for h, old := range s.sessions { // drop expired sessions
		if !now.Before(old.expires) {
			delete(s.sessions, h)
		}
	}
	s.sessions[keys.HashSecret(secret)] = sess
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{
		Name: CookieName, Value: secret, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: scheme(r) == "https", MaxAge: int(SessionTTL / time.Second),
	})
	s.o.Logger.Info("owner signed in to the page", "remote", r.RemoteAddr)
	http.Redirect(w, r, nextAfterSignin(w, r), http.StatusSeeOther)
}

func (s *Server) signout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(CookieName); err == nil {
		s.mu.Lock()
		delete(s.sessions, keys.HashSecret(c.Value))
		s.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: scheme(r) == "https"})
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}

// refuse answers a refused request with a short page in the browser's
// language.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, why string) {
	s.o.Logger.Warn("owner's page: request refused", "path", r.URL.Path, "method", r.Method, "status", status, "reason", why, "origin", r.Header.Get("Origin"))
	s.render(w, r, status, "refused", map[string]any{"Why": why})
}

// page is what every template gets.
type page struct {
	L      *lang
	CSRF   string
	Signed bool
	Nav    string
	Data   map[string]any

	// With several vaults: the vault the page shows ("" for a lone vault,
	// and on the Activity of every vault, All), and the header's switcher.
	Vault  string
	All    bool
	Vaults []vaultLink
}

// VaultParam is what the page's links and forms carry as their "vault":
// the vault's name, allVaults on the Activity of every vault, "" for a
// lone vault.
func (p page) VaultParam() string {
	if p.All {
		return allVaults
	}
	return p.Vault
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, data map[string]any) {
	t := s.tmpl[name]
	p := page{L: langFor(r), Nav: name, Data: data}
	if sess, ok := r.Context().Value(ownerKey{}).(*session); ok && sess != nil {
		p.CSRF, p.Signed = sess.csrf, true
	}
	if s.multi() {
		if cur, ok := r.Context().Value(vaultKey{}).(current); ok {
			p.Vault, p.All = cur.name, cur.all
			if cur.all {
				p.Vault = ""
			}
		}
		if p.Signed {
			p.Vaults = s.switcher(r, p)
		}
	}
	var b strings.Builder
	if err := t.Execute(&b, p); err != nil {
		s.o.Logger.Error("owner's page: template", "page", name, "error", err)
		http.Error(w, "internal error rendering the page; see vaultd's log", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Language", p.L.Code)
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}
