package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/keys"
)

const (
	consentRedirect = "http://127.0.0.1:33418/callback"
	consentVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
)

// authorizeURL registers a client as a dynamic registration does and
// returns the path of its authorization request.
func (f *fixture) authorizeURL(clientName string, edit func(url.Values)) (string, keys.Client) {
	f.t.Helper()
	return f.authorizeURLTo(clientName, consentRedirect, edit)
}

// authorizeURLTo is authorizeURL for a client that registered the
// redirect address ru.
func (f *fixture) authorizeURLTo(clientName, ru string, edit func(url.Values)) (string, keys.Client) {
	f.t.Helper()
	c, _, err := f.keys.RegisterClient(keys.ClientMeta{Name: clientName, RedirectURIs: []string{ru}, AuthMethod: "none"}, time.Now())
	must(f.t, err)
	q := url.Values{"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {ru}, "state": {"xyz-state"},
		"code_challenge": {keys.S256(consentVerifier)}, "code_challenge_method": {"S256"}, "resource": {f.base + "/mcp"}}
	if edit != nil {
		edit(q)
	}
	return "/authorize?" + q.Encode(), c
}

// consentForm reads the consent page's form fields.
func consentForm(t *testing.T, body string) url.Values {
	t.Helper()
	i := strings.Index(body, `action="/authorize"`)
	if i < 0 {
		t.Fatalf("no consent form:\n%s", body)
	}
	form := body[i:]
	form = form[:strings.Index(form, "</form>")]
	v := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(form, -1) {
		v.Set(m[1], m[2])
	}
	return v
}

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// token exchanges a code at the token endpoint as the client would.
func (f *fixture) token(clientID, code string) (int, map[string]any) {
	f.t.Helper()
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {clientID}, "redirect_uri": {consentRedirect}, "code_verifier": {consentVerifier}}
	resp, err := http.PostForm(f.base+"/token", form)
	must(f.t, err)
	defer resp.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &m); err != nil {
		f.t.Fatalf("token: %d %s", resp.StatusCode, b)
	}
	return resp.StatusCode, m
}

// mcpStatus is the status of an initialize request to /mcp with a token.
func (f *fixture) mcpStatus(token string) int {
	f.t.Helper()
	req, _ := http.NewRequest("POST", f.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	must(f.t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// The whole consent: not signed in, the owner is sent to sign in and comes
// back to the consent; sees the client and where it returns to; approves
// read only; the client gets a code for tokens that work on /mcp. The
// Connections view lists the connection; revoked there, its token is
// refused.
func TestConsent_SignInApproveRevoke(t *testing.T) {
	f := newFixture(t)
	path, c := f.authorizeURL("Claude Code", nil)
	st, loc, _ := f.do("GET", path, nil, nil)
	if st != http.StatusSeeOther || loc != "/signin" || f.next == "" {
		t.Fatalf("GET /authorize without sign-in: %d %q (next cookie %q), want 303 to /signin", st, loc, f.next)
	}
	if _, _, body := f.do("GET", "/signin", nil, nil); !strings.Contains(body, `id="consent-waits"`) {
		t.Errorf("the sign-in page does not say a consent waits:\n%s", body)
	}
	secret, _, err := f.keys.NewLink(time.Now())
	must(t, err)
	st, loc, body := f.do("POST", "/signin", url.Values{"token": {secret}}, nil)
	if st != http.StatusSeeOther || loc != path {
		t.Fatalf("POST /signin: %d to %q, want back to %q\n%s", st, loc, path, body)
	}
	if f.next != "" {
		t.Errorf("the next cookie is not cleared after use: %q", f.next)
	}

	req, _ := http.NewRequest("GET", f.base+loc, nil)
	req.AddCookie(&http.Cookie{Name: CookieName, Value: f.cookie})
	resp, err := noRedirect.Do(req)
	must(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body = string(b)
	if resp.StatusCode != 200 || !strings.Contains(body, `id="client-name" translate="no">Claude Code<`) || !strings.Contains(body, `id="redirect-host">127.0.0.1:33418<`) ||
		!strings.Contains(body, `value="claude-code"`) || strings.Contains(body, `id="right-delete" checked`) || strings.Contains(body, `id="right-write" checked`) {
		t.Fatalf("the consent page: %d\n%s", resp.StatusCode, body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' http://127.0.0.1:33418;") {
		t.Errorf("the consent page's CSP does not let the form return to the client: %s", csp)
	}
	form := consentForm(t, body)
	f.csrf = form.Get(CSRFField)
	if form.Get("state") != "xyz-state" || form.Get("code_challenge") == "" || f.csrf == "" {
		t.Fatalf("the consent form's fields: %v", form)
	}

	// A POST without the CSRF token changes nothing.
	noCSRF := url.Values{}
	for k, v := range form {
		noCSRF[k] = v
	}
	noCSRF.Del(CSRFField)
	noCSRF.Set("decision", "approve")
	noCSRF.Set("name", "claude-code")
	if st, loc, _ := f.do("POST", "/authorize", noCSRF, nil); st != http.StatusForbidden || loc != "" {
		t.Errorf("approve without CSRF token: %d %q, want 403", st, loc)
	}
	// A bad name is said so, on the consent page again.
	form.Set("decision", "approve")
	form.Set("name", "claude code!")
	if st, _, body := f.do("POST", "/authorize", form, nil); st != http.StatusUnprocessableEntity || !strings.Contains(body, `The name "claude code!" cannot be used`) || !strings.Contains(body, `action="/authorize"`) {
		t.Errorf("a bad connection name: %d\n%s", st, body)
	}
	form.Set("name", "laptop-claude")
	st, loc, _ = f.do("POST", "/authorize", form, nil)
	u, _ := url.Parse(loc)
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, consentRedirect+"?") || u.Query().Get("state") != "xyz-state" || u.Query().Get("code") == "" || u.Query().Get("iss") != f.base {
		t.Fatalf("approve: %d to %q", st, loc)
	}
	st, tok := f.token(c.ID, u.Query().Get("code"))
	if st != 200 || tok["scope"] != "read" {
		t.Fatalf("token: %d %v", st, tok)
	}
	access := tok["access_token"].(string)
	if st := f.mcpStatus(access); st != 200 {
		t.Fatalf("/mcp with the token: %d", st)
	}

	_, _, body = f.do("GET", "/connections", nil, nil)
	if !strings.Contains(body, `data-grant="laptop-claude"`) || !strings.Contains(body, "Signed-in connections") || !strings.Contains(body, `translate="no">Claude Code</td>`) {
		t.Fatalf("the Connections view lists no signed-in connection:\n%s", body)
	}
	gs, _ := f.keys.Grants()
	if len(gs) != 1 {
		t.Fatalf("grants: %+v", gs)
	}
	body = f.post("/connections/grant/rights", url.Values{"grant": {gs[0].ID}, "write": {"1"}})
	if !strings.Contains(body, "laptop-claude now has the rights read, write") {
		t.Errorf("change rights:\n%s", body)
	}
	body = f.post("/connections/grant/revoke", url.Values{"grant": {gs[0].ID}})
	if !strings.Contains(body, "Revoked laptop-claude") || strings.Contains(body, `data-grant="laptop-claude"`) {
		t.Errorf("revoke:\n%s", body)
	}
	if st := f.mcpStatus(access); st != http.StatusUnauthorized {
		t.Errorf("/mcp with the revoked connection's token: %d, want 401", st)
	}
	body = f.post("/connections/grant/revoke", url.Values{"grant": {gs[0].ID}})
	if !strings.Contains(body, "does not exist any more") {
		t.Errorf("revoking twice:\n%s", body)
	}
}

// Refusing sends the browser back with error=access_denied and the state;
// a request the protocol refuses goes back with its error, or, when the
// redirect address is in doubt, stays on the page.
func TestConsent_RefuseAndBadRequests(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	path, _ := f.authorizeURL("ChatGPT", nil)
	_, _, body := f.do("GET", path, nil, map[string]string{"Accept-Language": "de"})
	if !strings.Contains(body, "ChatGPT möchte sich als MCP-Client mit diesem Vault verbinden") || !strings.Contains(body, ">Erlauben<") {
		t.Errorf("the German consent page:\n%s", body)
	}
	form := consentForm(t, body)
	form.Set("decision", "deny")
	st, loc, _ := f.do("POST", "/authorize", form, nil)
	u, _ := url.Parse(loc)
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, consentRedirect+"?") || u.Query().Get("error") != "access_denied" || u.Query().Get("state") != "xyz-state" || u.Query().Get("code") != "" {
		t.Errorf("refuse: %d to %q", st, loc)
	}
	if gs, _ := f.keys.Grants(); len(gs) != 0 {
		t.Errorf("a refused connection was stored: %+v", gs)
	}

	path, _ = f.authorizeURL("Plain", func(q url.Values) { q.Set("code_challenge_method", "plain") })
	st, loc, _ = f.do("GET", path, nil, nil)
	if u, _ := url.Parse(loc); st != http.StatusSeeOther || u.Query().Get("error") != "invalid_request" || !strings.Contains(u.Query().Get("error_description"), `"plain" is refused`) {
		t.Errorf("plain PKCE: %d to %q", st, loc)
	}
	path, _ = f.authorizeURL("Sneaky", func(q url.Values) { q.Set("redirect_uri", "https://evil.example/cb") })
	st, loc, body = f.do("GET", path, nil, nil)
	if st != http.StatusBadRequest || loc != "" || !strings.Contains(body, `names the redirect address "https://evil.example/cb", which the client did not register`) || strings.Contains(body, `action="/authorize"`) {
		t.Errorf("an unregistered redirect address: %d %q\n%s", st, loc, body)
	}
	st, loc, body = f.do("GET", "/authorize?response_type=code&client_id=vdclient_nobody", nil, nil)
	if st != http.StatusBadRequest || loc != "" || !strings.Contains(body, `The client "vdclient_nobody" is not registered with this vault`) {
		t.Errorf("an unregistered client: %d %q\n%s", st, loc, body)
	}
}

// The session cookie is SameSite=Strict: a browser that comes from the
// client's site does not send it, so the consent first reloads itself
// from this site (without JavaScript: a meta refresh and a link).
func TestConsent_CrossSiteArrivalReloads(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	path, _ := f.authorizeURL("claude.ai", nil)
	cookie := f.cookie
	f.cookie = "" // what the browser sends on a cross-site navigation
	st, loc, body := f.do("GET", path, nil, map[string]string{"Sec-Fetch-Site": "cross-site"})
	if st != 200 || loc != "" || !strings.Contains(body, `http-equiv="refresh" content="0;url=`+path+`"`) || !strings.Contains(body, `id="continue"`) {
		t.Fatalf("cross-site arrival: %d %q\n%s", st, loc, body)
	}
	f.cookie = cookie
	if st, _, body := f.do("GET", path, nil, map[string]string{"Sec-Fetch-Site": "same-origin"}); st != 200 || !strings.Contains(body, `action="/authorize"`) {
		t.Errorf("the reload from this site: %d\n%s", st, body)
	}
}

// The consent form's POST is answered with a redirect to the client:
// the CSP's form-action names exactly that origin, or the app's own
// scheme, and nothing for an address that is not one.
func TestCSPOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:33418/callback":                         "http://127.0.0.1:33418",
		"https://claude.ai/api/mcp/auth_callback":                 "https://claude.ai",
		"cursor://anysphere.cursor-retrieval/oauth/user/callback": "cursor:",
		"com.example.notes:/oauth2redirect":                       "com.example.notes:",
		"javascript:alert(1)":                                     "",
		"https://bad host/cb":                                     "",
		"https://a.example'; script-src *":                        "",
	} {
		if got := cspOrigin(in); got != want {
			t.Errorf("cspOrigin(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestConsent_UntrustedAddressGetsAPage: a freshly registered client with
// an https address — anyone can register one — does not get the owner's
// browser sent there by a bad request (it used to be, with no page in
// between: an open redirect) or by the owner's refusal; the owner sees
// why, in the browser's language, and nothing leaves the page.
func TestConsent_UntrustedAddressGetsAPage(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	const phish = "https://phish.example/login"
	path, _ := f.authorizeURLTo("Fresh", phish, func(q url.Values) { q.Set("response_type", "token") })
	st, loc, body := f.do("GET", path, nil, nil)
	if st != http.StatusBadRequest || loc != "" || !strings.Contains(body, `response_type "token" is not supported`) ||
		!strings.Contains(body, `id="untrusted">It would return to `+phish+`, the address of a client you have not approved`) || strings.Contains(body, `action="/authorize"`) {
		t.Errorf("a bad request of a fresh https client: %d to %q\n%s", st, loc, body)
	}
	path, _ = f.authorizeURLTo("Frisch", phish, func(q url.Values) { q.Set("code_challenge_method", "plain") })
	_, loc, body = f.do("GET", path, nil, map[string]string{"Accept-Language": "de-DE,de;q=0.9"})
	if loc != "" || !strings.Contains(body, `code_challenge_method "plain" wird abgelehnt`) || !strings.Contains(body, "Sie würde zu "+phish+" zurückkehren") {
		t.Errorf("the same in German: to %q\n%s", loc, body)
	}
	// The owner refuses a good request of it: a page, not the address.
	path, _ = f.authorizeURLTo("Fresh", phish, nil)
	_, _, body = f.do("GET", path, nil, nil)
	form := consentForm(t, body)
	form.Set("decision", "deny")
	st, loc, body = f.do("POST", "/authorize", form, nil)
	if st != http.StatusOK || loc != "" || !strings.Contains(body, `id="denied">You refused the connection of Fresh. The client was not told`) {
		t.Errorf("refusing a fresh https client: %d to %q\n%s", st, loc, body)
	}
}
