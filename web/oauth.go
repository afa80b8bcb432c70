package web

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/oauth"
)

// The consent step of a signed-in connection (OAuth): a client sends the
// owner's browser to /authorize; the owner, signed in to this page, sees
// the client's name and redirect address, names the connection, chooses
// its rights (with several vaults: the vaults it may use, with its rights
// in each) and approves or refuses. The protocol (what the request must
// carry, the code, the redirect) is package oauth's; this file is only
// the owner's part of it, and the Connections view's list of signed-in
// connections.

// NextCookie remembers, across the sign-in, the consent the owner was on
// its way to.
const NextCookie = "vaultd_next"

// oauthRoutes adds the OAuth endpoints and the consent step to the page.
func (s *Server) oauthRoutes(m *http.ServeMux) {
	for _, p := range oauth.Paths {
		m.Handle(p, s.o.OAuth)
		if strings.HasPrefix(p, "/.well-known/") {
			m.Handle(p+"/", s.o.OAuth)
		}
	}
	m.HandleFunc("GET "+oauth.PathAuthorize, s.authorize)
	m.HandleFunc("POST "+oauth.PathAuthorize, s.owner(s.decide))
	m.HandleFunc("POST /connections/grant/revoke", s.owner(s.revokeGrant))
	m.HandleFunc("POST /connections/grant/rights", s.owner(s.setGrantRights))
	m.HandleFunc("POST /connections/grant/vaults", s.owner(s.setGrantVaults))
}

// authorize shows the consent for a checked authorization request. Without
// the owner's session it sends the browser to sign in, and back here
// afterwards. The session cookie is SameSite=Strict, so a browser that
// arrives from the client's site (a cross-site navigation) does not send
// it: such a request first gets a page that reloads itself from this
// site, which then carries the cookie.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	sess := s.session(r)
	if sess == nil {
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			s.render(w, r, http.StatusOK, "reload", map[string]any{"URL": r.URL.RequestURI()})
			return
		}
		http.SetCookie(w, &http.Cookie{Name: NextCookie, Value: base64.RawURLEncoding.EncodeToString([]byte(r.URL.RequestURI())), Path: "/", HttpOnly: true,
			SameSite: http.SameSiteLaxMode, Secure: scheme(r) == "https", MaxAge: int(keys.LinkTTL / time.Second)})
		http.Redirect(w, r, "/signin", http.StatusSeeOther)
		return
	}
	r = r.WithContext(withOwner(r.Context(), sess))
	req, aerr := s.o.OAuth.ParseAuthorize(r.URL.Query())
	if aerr != nil {
		s.authError(w, r, aerr)
		return
	}
	s.renderConsent(w, r, http.StatusOK, req, defaultConnName(req.Client.Name), keys.Rights{Read: true}, nil, "")
}

// authError answers a refused authorization request: back to the client
// with the error when its redirect address is its own and trusted
// (oauth.Server.Trusted), else a page for the owner, in the browser's
// language, saying what is wrong and, for an address not trusted, why the
// browser stays here.
func (s *Server) authError(w http.ResponseWriter, r *http.Request, aerr *oauth.AuthError) {
	if aerr.Redirect != "" {
		http.Redirect(w, r, aerr.Redirect, http.StatusSeeOther)
		return
	}
	s.o.Logger.Warn("owner's page: sign-in request refused", "reason", aerr.Msg, "not_sent_to", aerr.Untrusted)
	reason := aerr.Msg
	if aerr.Kind != "" {
		reason = langFor(r).T("authz."+aerr.Kind, aerr.Args...)
	}
	s.render(w, r, http.StatusBadRequest, "consent", map[string]any{"Refused": reason, "Untrusted": aerr.Untrusted})
}

// consentFields are the authorization request's parameters the consent
// form carries back (the request is checked again on POST).
var consentFields = []string{"response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method", "resource", "scope"}

// renderConsent shows the consent for req with the name and rights given;
// with several vaults, also the vaults (as the form had them, when
// choices is not nil; else every vault).
func (s *Server) renderConsent(w http.ResponseWriter, r *http.Request, status int, req *oauth.Request, name string, rights keys.Rights, choices []vaultChoice, errText string) {
	src := r.URL.Query()
	if r.Method == http.MethodPost {
		src = r.PostForm
	}
	fields := map[string]string{}
	for _, f := range consentFields {
		if v := src.Get(f); v != "" {
			fields[f] = v
		}
	}
	host := req.RedirectURI
	if u, err := url.Parse(req.RedirectURI); err == nil {
		host = u.Host
	}
	// The form's POST is answered with a redirect to the client, which
	// Chromium checks against form-action: allow the client's origin
	// (checked at registration: https, http on loopback, or an app's
	// own scheme).
	if o := cspOrigin(req.RedirectURI); o != "" {
		w.Header().Set("Content-Security-Policy", strings.Replace(csp, "form-action 'self'", "form-action 'self' "+o, 1))
	}
	data := map[string]any{
		"Client": req.Client.Name, "Redirect": req.RedirectURI, "RedirectHost": host, "Fields": fields,
		"Name": name, "Rights": rights, "Error": errText, "Resource": req.Resource,
	}
	if s.multi() {
		if choices == nil {
			choices = s.vaultChoices(nil)
		}
		data["Vaults"] = choices
	}
	s.render(w, r, status, "consent", data)
}

// cspOrigin is the scheme://host[:port] of a redirect address for a CSP
// source list, or "" when it has characters a source may not.
func cspOrigin(redirect string) string {
	u, err := url.Parse(redirect)
	if err == nil && u.Scheme != "https" && u.Scheme != "http" && oauth.CheckRedirect(redirect) == "" {
		// A native app's own scheme (cursor://…): allow the scheme.
		for _, c := range u.Scheme {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".+-", c)) {
				return ""
			}
		}
		return u.Scheme + ":"
	}
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return ""
	}
	for _, c := range u.Host {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-:[]", c)) {
			return ""
		}
	}
	return u.Scheme + "://" + u.Host
}

// defaultConnName turns a client's name into a connection name: "Claude
// Code" → "claude-code".
func defaultConnName(client string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(client) {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		switch {
		case ok:
			b.WriteRune(c)
			dash = false
		case b.Len() > 0 && !dash:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 40 {
			break
		}
	}
	n := strings.Trim(b.String(), "-")
	if len(n) > 40 {
		n = strings.Trim(n[:40], "-")
	}
	if n == "" {
		return "connection"
	}
	return n
}

// decide is the owner's answer on the consent page.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	req, aerr := s.o.OAuth.ParseAuthorize(r.PostForm)
	if aerr != nil {
		s.authError(w, r, aerr)
		return
	}
	if r.PostFormValue("decision") != "approve" {
		if to := s.o.OAuth.Deny(req); to != "" {
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
		s.render(w, r, http.StatusOK, "consent", map[string]any{"Denied": true, "Client": req.Client.Name, "Redirect": req.RedirectURI})
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	rights := formRights(r)
	var choices []vaultChoice
	if s.multi() && len(r.PostForm["vaults_listed"]) > 0 {
		choices = formChoices(r, s.vaultChoices(nil))
	}
	if err := keys.ValidName(name); err != nil {
		s.renderConsent(w, r, http.StatusUnprocessableEntity, req, name, rights, choices, l.T("consent.bad_name", name))
		return
	}
	vaults, err := formVaults(r)
	if err != nil {
		s.renderConsent(w, r, http.StatusUnprocessableEntity, req, name, rights, choices, l.T("conn.bad_vaults"))
		return
	}
	to, err := s.o.OAuth.ApproveIn(req, name, rights, vaults)
	if err != nil {
		s.o.Logger.Error("owner's page: approve a connection", "error", err)
		s.renderConsent(w, r, http.StatusInternalServerError, req, name, rights, choices, l.T("consent.failed"))
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// grantRow is one signed-in connection in the Connections view.
type grantRow struct {
	keys.Grant
	RightsText string
	// With several vaults: its vaults with its rights in each (none:
	// every vault), and the form that changes them.
	InVaults []vaultRight
	Choices  []vaultChoice
}

// grantRows lists the signed-in connections for the Connections view.
func (s *Server) grantRows(l *lang) ([]grantRow, error) {
	if s.o.OAuth == nil {
		return nil, nil
	}
	gs, err := s.o.Keys.Grants()
	rows := make([]grantRow, 0, len(gs))
	for _, g := range gs {
		gr := grantRow{Grant: g, RightsText: g.Rights.String()}
		if s.multi() {
			gr.InVaults, gr.Choices = vaultRights(l, g.Vaults), s.vaultChoices(g.Vaults)
		}
		rows = append(rows, gr)
	}
	return rows, err
}

func (s *Server) revokeGrant(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	g, err := s.o.Keys.RevokeGrant(r.PostFormValue("grant"), s.o.Now())
	if err != nil {
		s.setFlash(r, flash{Title: l.T("conn.failed"), Text: grantErrText(l, err)})
	} else {
		s.o.Logger.Info("signed-in connection revoked on the owner's page", "name", g.Name, "client", g.ClientName)
		if s.o.Revoked != nil {
			s.o.Revoked()
		}
		s.setFlash(r, flash{OK: true, Title: l.T("conn.revoked", g.Name)})
	}
	http.Redirect(w, r, s.here(r, "/connections"), http.StatusSeeOther)
}

func (s *Server) setGrantRights(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	g, err := s.o.Keys.SetGrantRights(r.PostFormValue("grant"), formRights(r), s.o.Now())
	if err != nil {
		s.setFlash(r, flash{Title: l.T("conn.failed"), Text: grantErrText(l, err)})
	} else {
		if s.o.Revoked != nil {
			s.o.Revoked()
		}
		f := flash{OK: true, Title: l.T("conn.rights_set", g.Name, l.Rights(g.Rights.Read, g.Rights.Write, g.Rights.Delete))}
		if s.multi() && len(g.Vaults) > 0 {
			f.Text = l.T("conn.rights_per_vault", vaultsText(l, g.Vaults))
		}
		s.setFlash(r, f)
	}
	http.Redirect(w, r, s.here(r, "/connections"), http.StatusSeeOther)
}

func grantErrText(l *lang, err error) string {
	if errors.Is(err, keys.ErrGrantNotFound) {
		return l.T("grant.gone")
	}
	return l.T("conn.store_failed")
}

// nextAfterSignin returns the consent the owner was on the way to before
// signing in (NextCookie), or "/", and clears the cookie.
func nextAfterSignin(w http.ResponseWriter, r *http.Request) string {
	next := nextCookie(r)
	if next == "" {
		return "/"
	}
	http.SetCookie(w, &http.Cookie{Name: NextCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: scheme(r) == "https"})
	return next
}

// nextCookie is NextCookie's consent address, or "" without one (or
// with anything but a path to the consent of this page).
func nextCookie(r *http.Request) string {
	c, err := r.Cookie(NextCookie)
	if err != nil || c.Value == "" {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	next := string(b)
	if err != nil || !strings.HasPrefix(next, oauth.PathAuthorize+"?") || strings.ContainsAny(next, "\\\r\n\t") {
		return ""
	}
	return next
}

// pendingConsent reports whether a consent waits for the sign-in.
func pendingConsent(r *http.Request) bool { return nextCookie(r) != "" }

func withOwner(ctx context.Context, sess *session) context.Context {
	return context.WithValue(ctx, ownerKey{}, sess)
}
