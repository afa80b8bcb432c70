package oauth

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/keys"
)

var update = flag.Bool("update", false, "rewrite golden files")

var t0 = time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)

const (
	issuer   = "https://notes.example.org"
	resource = issuer + "/mcp"
	redirect = "http://127.0.0.1:33418/callback"
	verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
)

type fixture struct {
	t     *testing.T
	s     *Server
	store *keys.Store
	now   time.Time
	ts    *httptest.Server
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, store: keys.Open(t.TempDir()), now: t0}
	f.s = New(Options{Store: f.store, Issuer: issuer + "/", Resource: resource, Now: func() time.Time { return f.now }})
	f.ts = httptest.NewServer(f.s)
	t.Cleanup(f.ts.Close)
	return f
}

// send makes a request and returns the status and the body.
func (f *fixture) send(method, path, ctype, body string, hdr ...string) (int, http.Header, string) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.ts.URL+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func (f *fixture) register(body string) map[string]any {
	f.t.Helper()
	st, _, b := f.send("POST", PathRegister, "application/json", body)
	if st != http.StatusCreated {
		f.t.Fatalf("register: %d %s", st, b)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(b), &m); err != nil {
		f.t.Fatal(err)
	}
	return m
}

func (f *fixture) token(form url.Values, hdr ...string) (int, map[string]any) {
	f.t.Helper()
	st, _, b := f.send("POST", PathToken, "application/x-www-form-urlencoded", form.Encode(), hdr...)
	var m map[string]any
	if err := json.Unmarshal([]byte(b), &m); err != nil {
		f.t.Fatalf("token: %d %s", st, b)
	}
	return st, m
}

// approve runs the authorization request of a client as the consent
// step does and returns the code.
func (f *fixture) approve(clientID string, rights keys.Rights) string {
	f.t.Helper()
	req, aerr := f.s.ParseAuthorize(authQuery(clientID))
	if aerr != nil {
		f.t.Fatalf("ParseAuthorize: %+v", aerr)
	}
	to, err := f.s.Approve(req, "laptop", rights)
	if err != nil {
		f.t.Fatal(err)
	}
	u, _ := url.Parse(to)
	q := u.Query()
	if !strings.HasPrefix(to, redirect+"?") || q.Get("state") != "st-1" || q.Get("iss") != issuer || q.Get("code") == "" {
		f.t.Fatalf("approve redirects to %s", to)
	}
	return q.Get("code")
}

func authQuery(clientID string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "state": {"st-1"},
		"code_challenge": {keys.S256(verifier)}, "code_challenge_method": {"S256"}, "resource": {resource}}
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("missing golden file (run go test ./oauth -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; got:\n%s", file, got)
	}
}

func TestMetadata(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	for _, p := range []string{PathResourceMetadata + "/mcp", PathResourceMetadata, PathServerMetadata, PathOpenID, PathResourceMetadata + "/other", PathServerMetadata + "/tenant"} {
		st, h, body := f.send("GET", p, "", "")
		fmt.Fprintf(&b, "GET %s → %d %s\n%s\n", p, st, h.Get("Content-Type"), body)
		if h.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: no CORS header", p)
		}
	}
	checkGolden(t, "metadata", b.String())
	if got := f.s.ResourceMetadataURL(); got != issuer+PathResourceMetadata+"/mcp" {
		t.Errorf("ResourceMetadataURL = %q", got)
	}
	st, h, _ := f.send("OPTIONS", PathToken, "", "", "Origin", "https://inspector.example", "Access-Control-Request-Method", "POST")
	if st != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Content-Type") {
		t.Errorf("preflight of the token endpoint: %d %v", st, h)
	}
	if st, _, _ := f.send("POST", PathServerMetadata, "application/json", "{}"); st != http.StatusMethodNotAllowed {
		t.Errorf("POST to the metadata: %d", st)
	}
	for p, want := range map[string]bool{PathToken: true, PathRegister: true, PathResourceMetadata + "/mcp": true, PathAuthorize: false, "/": false, "/registerx": false} {
		if CORS(p) != want {
			t.Errorf("CORS(%q) = %v, want %v", p, !want, want)
		}
	}
}

func TestRegister(t *testing.T) {
	f := newFixture(t)
	m := f.register(`{"redirect_uris":["` + redirect + `"],"client_name":"Claude Code\u202e","token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"]}`)
	if m["client_name"] != "Claude Code" || m["token_endpoint_auth_method"] != "none" || m["client_secret"] != nil {
		t.Errorf("registration: %v", m)
	}
	c, ok, err := f.store.Client(m["client_id"].(string))
	if !ok || err != nil || c.RedirectURIs[0] != redirect {
		t.Errorf("stored client: %+v %v %v", c, ok, err)
	}
	// RFC 7591's default method is client_secret_basic: a secret is made.
	m = f.register(`{"redirect_uris":["https://claude.ai/api/mcp/auth_callback"]}`)
	if m["token_endpoint_auth_method"] != "client_secret_basic" || !strings.HasPrefix(fmt.Sprint(m["client_secret"]), keys.ClientSecretPrefix) || m["client_name"] != "unnamed client" {
		t.Errorf("registration with defaults: %v", m)
	}

	// A native app's own scheme (RFC 8252 §7.1), as Cursor and VS Code register.
	for _, ru := range []string{"cursor://anysphere.cursor-retrieval/oauth/user-vaultd/callback", "vscode://vscode.github-authentication/did-authenticate", "com.example.notes:/oauth2redirect"} {
		m = f.register(`{"redirect_uris":["` + ru + `"],"token_endpoint_auth_method":"none"}`)
		if got, _ := m["redirect_uris"].([]any); len(got) != 1 || got[0] != ru {
			t.Errorf("registration with %s: %v", ru, m)
		}
	}

	var b strings.Builder
	for _, body := range []string{
		`{}`,
		`{"redirect_uris":["http://evil.example/cb"]}`,
		`{"redirect_uris":["https://client.example/cb#frag"]}`,
		`{"redirect_uris":["cursor://anysphere.cursor-retrieval/oauth/callback#x"]}`,
		`{"redirect_uris":["javascript:alert(1)"]}`,
		`{"redirect_uris":["data:text/html,hi"]}`,
		`{"redirect_uris":["file:///etc/passwd"]}`,
		`{"redirect_uris":["/callback"]}`,
		`{"redirect_uris":["https://user:pw@client.example/cb"]}`,
		`{"redirect_uris":["https://client.example/` + strings.Repeat("a", 1500) + `","https://client.example/` + strings.Repeat("b", 1500) + `","https://client.example/` + strings.Repeat("c", 1500) + `"]}`,
		`{"redirect_uris":["http://localhost.evil.example/cb"]}`,
		`{"redirect_uris":["` + redirect + `"],"token_endpoint_auth_method":"private_key_jwt"}`,
		`{"redirect_uris":["` + redirect + `"],"grant_types":["client_credentials"]}`,
		`{"redirect_uris":["` + redirect + `"],"response_types":["token"]}`,
		`not json`,
	} {
		st, _, out := f.send("POST", PathRegister, "application/json", body)
		fmt.Fprintf(&b, "POST %s %s\n→ %d %s\n", PathRegister, body, st, out)
		if st != http.StatusBadRequest {
			t.Errorf("register %s: %d, want 400", body, st)
		}
	}
	st, _, out := f.send("POST", PathRegister, "application/json", `{"redirect_uris":["`+redirect+`"],"client_name":"`+strings.Repeat("x", 70<<10)+`"}`)
	fmt.Fprintf(&b, "POST %s (a body of 70 KB)\n→ %d %s\n", PathRegister, st, out)
	st, _, out = f.send("GET", PathRegister, "", "")
	fmt.Fprintf(&b, "GET %s\n→ %d %s\n", PathRegister, st, out)
	checkGolden(t, "register_errors", b.String())
}

func TestAuthorize_Refusals(t *testing.T) {
	f := newFixture(t)
	id := f.register(`{"redirect_uris":["` + redirect + `"],"client_name":"Claude Code","token_endpoint_auth_method":"none"}`)["client_id"].(string)
	var b strings.Builder
	for _, tc := range []struct {
		name string
		edit func(url.Values)
	}{
		{"plain PKCE", func(q url.Values) { q.Set("code_challenge_method", "plain") }},
		{"no PKCE method (plain by default)", func(q url.Values) { q.Del("code_challenge_method") }},
		{"no PKCE challenge", func(q url.Values) { q.Del("code_challenge") }},
		{"a challenge that is not S256's", func(q url.Values) { q.Set("code_challenge", "short") }},
		{"unregistered client", func(q url.Values) { q.Set("client_id", "vdclient_unknown") }},
		{"no client", func(q url.Values) { q.Del("client_id") }},
		{"redirect mismatch", func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:33418/evil") }},
		{"another resource", func(q url.Values) { q.Set("resource", "https://other.example/mcp") }},
		{"implicit flow", func(q url.Values) { q.Set("response_type", "token") }},
		{"two redirect addresses", func(q url.Values) { q.Add("redirect_uri", "https://evil.example/cb") }},
		{"two clients", func(q url.Values) { q.Add("client_id", "vdclient_other") }},
	} {
		q := authQuery(id)
		tc.edit(q)
		req, aerr := f.s.ParseAuthorize(q)
		if aerr == nil {
			t.Errorf("%s: accepted: %+v", tc.name, req)
			continue
		}
		fmt.Fprintf(&b, "%s:\n  to the owner: %s\n", tc.name, aerr.Msg)
		if aerr.Redirect != "" {
			fmt.Fprintf(&b, "  to the client: %s\n", aerr.Redirect)
			if !strings.HasPrefix(aerr.Redirect, redirect+"?") {
				t.Errorf("%s: redirects to %s, not the registered address", tc.name, aerr.Redirect)
			}
		}
	}
	checkGolden(t, "authorize_errors", b.String())

	// The redirect address may be left out when the client has only one;
	// the resource too (it is then this server's).
	q := authQuery(id)
	q.Del("redirect_uri")
	q.Del("resource")
	req, aerr := f.s.ParseAuthorize(q)
	if aerr != nil || req.RedirectURI != redirect || req.Resource != resource {
		t.Errorf("without redirect_uri and resource: %+v %+v", req, aerr)
	}
	if to := f.s.Deny(req); to != redirect+"?error=access_denied&error_description=the+vault%27s+owner+refused+the+connection&iss=https%3A%2F%2Fnotes.example.org&state=st-1" {
		t.Errorf("Deny redirects to %s", to)
	}
}

func TestToken_CodeFlowRefreshAndRefusals(t *testing.T) {
	f := newFixture(t)
	id := f.register(`{"redirect_uris":["` + redirect + `"],"client_name":"Claude Code","token_endpoint_auth_method":"none"}`)["client_id"].(string)
	form := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	var b strings.Builder
	refused := func(name string, wantStatus int, v url.Values, hdr ...string) {
		t.Helper()
		st, m := f.token(v, hdr...)
		fmt.Fprintf(&b, "%s → %d %s: %s\n", name, st, m["error"], m["error_description"])
		if st != wantStatus {
			t.Errorf("%s: %d, want %d (%v)", name, st, wantStatus, m)
		}
	}
	exchange := func(code string) url.Values {
		return form("grant_type", "authorization_code", "code", code, "client_id", id, "redirect_uri", redirect, "code_verifier", verifier, "resource", resource)
	}

	code := f.approve(id, keys.Rights{Read: true})
	v := exchange(code)
	v.Set("code_verifier", strings.Repeat("a", 43))
	refused("wrong PKCE verifier", 400, v)
	refused("the same code after a wrong verifier", 400, exchange(code))

	code = f.approve(id, keys.Rights{Read: true})
	v = exchange(code)
	v.Set("redirect_uri", "http://127.0.0.1:33418/other")
	refused("redirect mismatch", 400, v)

	code = f.approve(id, keys.Rights{Read: true})
	v = exchange(code)
	v.Set("resource", "https://other.example/mcp")
	refused("token for another resource", 400, v)

	refused("unregistered client", 401, form("grant_type", "authorization_code", "code", "vdc_x", "client_id", "vdclient_unknown", "redirect_uri", redirect, "code_verifier", verifier))
	refused("no client", 401, form("grant_type", "authorization_code", "code", "vdc_x"))
	refused("no grant type", 400, form("client_id", id))
	refused("client credentials", 400, form("grant_type", "client_credentials", "client_id", id))
	refused("no code", 400, form("grant_type", "authorization_code", "client_id", id))
	refused("two code verifiers", 400, url.Values{"grant_type": {"authorization_code"}, "code": {"vdc_x"}, "client_id": {id}, "code_verifier": {verifier, strings.Repeat("a", 43)}})

	code = f.approve(id, keys.Rights{Read: true})
	st, tok := f.token(exchange(code))
	if st != 200 || tok["token_type"] != "Bearer" || tok["expires_in"] != float64(3600) || tok["scope"] != "read" ||
		!strings.HasPrefix(fmt.Sprint(tok["access_token"]), keys.AccessPrefix) || !strings.HasPrefix(fmt.Sprint(tok["refresh_token"]), keys.RefreshPrefix) {
		t.Fatalf("token: %d %v", st, tok)
	}
	refused("reused code", 400, exchange(code))
	if _, _, ok, _ := f.store.LookupAccess(tok["access_token"].(string)); ok {
		t.Error("the tokens of a reused code still work")
	}

	code = f.approve(id, keys.Rights{Read: true, Write: true})
	_, tok = f.token(exchange(code))
	f.now = f.now.Add(2 * time.Hour)
	st, tok2 := f.token(form("grant_type", "refresh_token", "refresh_token", tok["refresh_token"].(string), "client_id", id, "resource", resource))
	if st != 200 || tok2["refresh_token"] == tok["refresh_token"] || tok2["scope"] != "read write" {
		t.Fatalf("refresh: %d %v", st, tok2)
	}
	refused("reused refresh token", 400, form("grant_type", "refresh_token", "refresh_token", tok["refresh_token"].(string), "client_id", id))
	refused("the rotated refresh token after the reuse", 400, form("grant_type", "refresh_token", "refresh_token", tok2["refresh_token"].(string), "client_id", id))

	// A confidential client authenticates with HTTP Basic or in the form.
	m := f.register(`{"redirect_uris":["` + redirect + `"],"client_name":"Web connector","token_endpoint_auth_method":"client_secret_basic"}`)
	cid, secret := m["client_id"].(string), m["client_secret"].(string)
	code = f.approve(cid, keys.Rights{Read: true})
	v = exchange(code)
	v.Set("client_id", cid)
	refused("confidential client without its secret", 401, v)
	code = f.approve(cid, keys.Rights{Read: true})
	v = exchange(code)
	v.Del("client_id")
	refused("confidential client with a wrong secret", 401, v, "Authorization", "Basic "+basic(cid, "vds_wrong"))
	code = f.approve(cid, keys.Rights{Read: true})
	v = exchange(code)
	v.Del("client_id")
	if st, tok := f.token(v, "Authorization", "Basic "+basic(cid, secret)); st != 200 || tok["access_token"] == nil {
		t.Errorf("client_secret_basic: %d %v", st, tok)
	}
	st, _, out := f.send("POST", PathToken, "application/json", `{"grant_type":"authorization_code"}`)
	fmt.Fprintf(&b, "a JSON body → %d %s", st, out)
	// Client ids are random; the golden names this one by its role.
	checkGolden(t, "token_errors", strings.ReplaceAll(b.String(), cid, "vdclient_CONFIDENTIAL"))
}

func basic(id, secret string) string {
	req, _ := http.NewRequest("GET", "/", nil)
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	return strings.TrimPrefix(req.Header.Get("Authorization"), "Basic ")
}

func TestPublicURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://notes.example.org":      "https://notes.example.org",
		"https://notes.example.org/":     "https://notes.example.org",
		"https://notes.example.org:8443": "https://notes.example.org:8443",
		"http://127.0.0.1:8765":          "http://127.0.0.1:8765",
		"http://localhost:8765/":         "http://localhost:8765",
		"http://notes.example.org":       "error: uses http on a host that is not this machine",
		"https://notes.example.org/mcp":  "error: has a path",
		"notes.example.org":              "error: is not a web address",
		"ftp://notes.example.org":        "error: is not a web address",
	} {
		got, err := PublicURL(in)
		if err != nil {
			got = "error: " + err.Error()
		}
		if !strings.HasPrefix(want, "error: ") && got != want || strings.HasPrefix(want, "error: ") && !strings.Contains(got, strings.TrimPrefix(want, "error: ")) {
			t.Errorf("PublicURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// Registrations are bounded server-wide: a burst of 20, then one every
// 3 s; the refusal says when to come back, and time lets them in again.
func TestRegister_Bounded(t *testing.T) {
	f := newFixture(t)
	body := `{"redirect_uris":["` + redirect + `"],"token_endpoint_auth_method":"none"}`
	for range registerBurst {
		f.register(body)
	}
	st, hdr, out := f.send("POST", PathRegister, "application/json", body)
	if st != http.StatusTooManyRequests || hdr.Get("Retry-After") != "3" || !strings.Contains(out, "register again in 3 s") {
		t.Fatalf("registration %d: %d (Retry-After %q) %s, want 429 after 3 s", registerBurst+1, st, hdr.Get("Retry-After"), out)
	}
	checkGolden(t, "register_bounded", fmt.Sprintf("POST %s (registration %d within a minute)\n→ %d Retry-After: %s %s\n", PathRegister, registerBurst+1, st, hdr.Get("Retry-After"), out))
	// An invalid registration is refused for what it is, not counted.
	if st, _, out := f.send("POST", PathRegister, "application/json", `{}`); st != http.StatusBadRequest {
		t.Errorf("an invalid registration while the bucket is empty: %d %s, want 400", st, out)
	}
	f.now = f.now.Add(registerInterval)
	f.register(body)
	if st, _, _ := f.send("POST", PathRegister, "application/json", body); st != http.StatusTooManyRequests {
		t.Errorf("a second registration within the interval: %d, want 429", st)
	}
	f.now = f.now.Add(time.Minute)
	for range registerBurst {
		f.register(body)
	}
}

// TestAuthorize_UntrustedAddresses: anyone can register a client with any
// https address or app scheme, so a bad request of a client the owner has
// not approved, or the owner's refusal of it, does not send the browser
// there (RFC 9700 §4.11.2: the server would be a redirector); once the
// owner approved a connection of the client, its address is trusted, as an
// address on this machine always is.
func TestAuthorize_UntrustedAddresses(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	for _, ru := range []string{"https://phish.example/login", "cursor://anysphere.cursor-retrieval/oauth/callback"} {
		id := f.register(`{"redirect_uris":["` + ru + `"],"client_name":"Fresh","token_endpoint_auth_method":"none"}`)["client_id"].(string)
		query := func(edit func(url.Values)) url.Values {
			q := authQuery(id)
			q.Set("redirect_uri", ru)
			if edit != nil {
				edit(q)
			}
			return q
		}
		for _, tc := range []struct {
			name string
			edit func(url.Values)
		}{
			{"implicit flow", func(q url.Values) { q.Set("response_type", "token") }},
			{"plain PKCE", func(q url.Values) { q.Set("code_challenge_method", "plain") }},
			{"another resource", func(q url.Values) { q.Set("resource", "https://other.example/mcp") }},
		} {
			_, aerr := f.s.ParseAuthorize(query(tc.edit))
			if aerr == nil || aerr.Redirect != "" || aerr.Untrusted != ru {
				t.Errorf("%s, %s: %+v, want a page naming %s, no redirect", ru, tc.name, aerr, ru)
				continue
			}
			fmt.Fprintf(&b, "%s, %s:\n  to the owner: %s\n  not sent to: %s\n", ru, tc.name, aerr.Msg, aerr.Untrusted)
		}
		req, aerr := f.s.ParseAuthorize(query(nil))
		if aerr != nil || req.Trusted {
			t.Fatalf("%s: a good request: %+v %+v, want it untrusted", ru, req, aerr)
		}
		if to := f.s.Deny(req); to != "" {
			t.Errorf("%s: the owner's refusal redirects to %s", ru, to)
		}
		// Approved once: trusted from then on.
		to, err := f.s.Approve(req, "fresh", keys.Rights{Read: true})
		if err != nil || !strings.HasPrefix(to, ru+"?") {
			t.Fatalf("Approve: %q %v", to, err)
		}
		u, _ := url.Parse(to)
		if st, tok := f.token(url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")}, "client_id": {id}, "redirect_uri": {ru}, "code_verifier": {verifier}}); st != 200 {
			t.Fatalf("exchange: %d %v", st, tok)
		}
		if _, aerr := f.s.ParseAuthorize(query(func(q url.Values) { q.Set("response_type", "token") })); aerr == nil || !strings.HasPrefix(aerr.Redirect, ru+"?error=unsupported_response_type") {
			t.Errorf("%s approved: a bad request: %+v, want a redirect with the error", ru, aerr)
		}
		if req, _ := f.s.ParseAuthorize(query(nil)); req == nil || !req.Trusted || !strings.HasPrefix(f.s.Deny(req), ru+"?error=access_denied") {
			t.Errorf("%s approved: the owner's refusal does not go back to the client", ru)
		}
	}
	checkGolden(t, "authorize_untrusted", b.String())
}

// TestToken_RedirectURIOptional: a client that left redirect_uri out of
// the authorization request (it registered one) may leave it out of the
// token request (RFC 6749 §4.1.3); one that named it must name it again,
// and may once it was told so.
func TestToken_RedirectURIOptional(t *testing.T) {
	f := newFixture(t)
	id := f.register(`{"redirect_uris":["` + redirect + `"],"client_name":"Claude Code","token_endpoint_auth_method":"none"}`)["client_id"].(string)
	codeFor := func(q url.Values) string {
		req, aerr := f.s.ParseAuthorize(q)
		if aerr != nil {
			t.Fatal(aerr)
		}
		to, err := f.s.Approve(req, "laptop", keys.Rights{Read: true})
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(to)
		return u.Query().Get("code")
	}
	q := authQuery(id)
	q.Del("redirect_uri")
	form := url.Values{"grant_type": {"authorization_code"}, "code": {codeFor(q)}, "client_id": {id}, "code_verifier": {verifier}}
	if st, tok := f.token(form); st != 200 {
		t.Errorf("no redirect_uri in either request: %d %v", st, tok)
	}
	form.Set("code", codeFor(authQuery(id)))
	st, tok := f.token(form)
	if st != 400 || !strings.Contains(fmt.Sprint(tok["error_description"]), "redirect_uri is missing") {
		t.Errorf("redirect_uri named in the authorization request only: %d %v", st, tok)
	}
	form.Set("redirect_uri", redirect)
	if st, tok := f.token(form); st != 200 {
		t.Errorf("the same code with redirect_uri, after the refusal: %d %v", st, tok)
	}
}
