package e2e

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/keys"
)

// TestOAuth_BehindTLSProxy drives the built binary as a TLS proxy would
// reach it: `serve --http 127.0.0.1:PORT --public-url
// https://notes.example.org` (no access key yet: clients sign in), every
// request with Host notes.example.org and X-Forwarded-Proto https. The
// metadata names the public addresses; the owner signs in on the page,
// approves a registered client with read and write, and the client's token
// works on /mcp; a foreign Host is still refused.
func TestOAuth_BehindTLSProxy(t *testing.T) {
	t.Parallel()
	const public = "https://notes.example.org"
	vault, state := copyVault(t), t.TempDir()
	p := serveHTTPProc(t, vault, state, "--public-url", public)
	base := strings.TrimSuffix(p.url, "/mcp")
	cookie := ""
	send := func(method, path, ctype, body string, hdr ...string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "notes.example.org"
		req.Header.Set("X-Forwarded-Proto", "https")
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			if hdr[i] == "Host" {
				req.Host = hdr[i+1]
				continue
			}
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}

	resp, body := send("POST", "/mcp", "application/json", `{}`)
	if want := `Bearer realm="vaultd", resource_metadata="` + public + `/.well-known/oauth-protected-resource/mcp"`; resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != want {
		t.Fatalf("/mcp without a credential: %d %q\n%s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}
	var prm, as map[string]any
	_, body = send("GET", "/.well-known/oauth-protected-resource/mcp", "", "")
	if err := json.Unmarshal([]byte(body), &prm); err != nil || prm["resource"] != public+"/mcp" {
		t.Fatalf("protected-resource metadata: %v\n%s", err, body)
	}
	_, body = send("GET", "/.well-known/oauth-authorization-server", "", "")
	if err := json.Unmarshal([]byte(body), &as); err != nil || as["issuer"] != public || as["token_endpoint"] != public+"/token" || as["authorization_endpoint"] != public+"/authorize" {
		t.Fatalf("authorization-server metadata: %v\n%s", err, body)
	}
	if resp, _ := send("GET", "/.well-known/oauth-authorization-server", "", "", "Host", "evil.example"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Host: %d, want 403", resp.StatusCode)
	}

	redirect := "https://claude.ai/api/mcp/auth_callback"
	resp, body = send("POST", "/register", "application/json", `{"redirect_uris":["`+redirect+`"],"client_name":"claude.ai","token_endpoint_auth_method":"client_secret_post"}`)
	var client struct{ ClientID, ClientSecret string }
	var reg map[string]any
	if err := json.Unmarshal([]byte(body), &reg); err != nil || resp.StatusCode != 201 {
		t.Fatalf("register: %d %v\n%s", resp.StatusCode, err, body)
	}
	client.ClientID, client.ClientSecret = reg["client_id"].(string), reg["client_secret"].(string)

	const verifier = "e2e-verifier-e2e-verifier-e2e-verifier-e2e-verifier"
	q := url.Values{"response_type": {"code"}, "client_id": {client.ClientID}, "redirect_uri": {redirect}, "state": {"s1"},
		"code_challenge": {keys.S256(verifier)}, "code_challenge_method": {"S256"}, "resource": {public + "/mcp"}}
	authorize := "/authorize?" + q.Encode()
	resp, _ = send("GET", authorize, "", "")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin" {
		t.Fatalf("/authorize before signing in: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var next string
	for _, c := range resp.Cookies() {
		if c.Name == "vaultd_next" {
			next = c.Name + "=" + c.Value
			if !c.Secure {
				t.Error("the next cookie is not Secure behind a TLS proxy")
			}
		}
	}
	out, err := exec.Command(vaultdBin, "owner", "link", "--url", public, "--vault", vault, "--state-dir", state, "--json").Output()
	if err != nil {
		t.Fatalf("vaultd owner link: %v\n%s", err, out)
	}
	var link struct{ Link string }
	if err := json.Unmarshal(out, &link); err != nil {
		t.Fatal(err)
	}
	token := link.Link[strings.Index(link.Link, "token=")+len("token="):]
	cookie = next
	resp, body = send("POST", "/signin", "application/x-www-form-urlencoded", url.Values{"token": {token}}.Encode(), "Origin", public)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != authorize {
		t.Fatalf("sign-in: %d %q, want back to the consent\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	for _, c := range resp.Cookies() {
		if c.Name == "vaultd_owner" {
			cookie = c.Name + "=" + c.Value
		}
	}
	_, body = send("GET", authorize, "", "")
	form := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(body, -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	if form.Get("csrf") == "" || !strings.Contains(body, "claude.ai") {
		t.Fatalf("no consent form:\n%s", body)
	}
	form.Set("name", "claude-ai")
	form.Set("write", "1")
	form.Set("decision", "approve")
	resp, body = send("POST", "/authorize", "application/x-www-form-urlencoded", form.Encode(), "Origin", public)
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || loc == nil || !strings.HasPrefix(loc.String(), redirect+"?") || loc.Query().Get("iss") != public {
		t.Fatalf("approve: %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	resp, body = send("POST", "/token", "application/x-www-form-urlencoded", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"client_id": {client.ClientID}, "client_secret": {client.ClientSecret}, "redirect_uri": {redirect}, "code_verifier": {verifier}, "resource": {public + "/mcp"}}.Encode())
	var tok map[string]any
	if err := json.Unmarshal([]byte(body), &tok); err != nil || resp.StatusCode != 200 || tok["scope"] != "read write" {
		t.Fatalf("token: %d %v\n%s", resp.StatusCode, err, body)
	}
	cookie = ""
	resp, body = send("POST", "/mcp", "application/json", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"proxy-e2e","version":"1"}}}`,
		"Accept", "application/json, text/event-stream", "Authorization", "Bearer "+tok["access_token"].(string))
	if resp.StatusCode != 200 || !strings.Contains(body, `"serverInfo"`) {
		t.Fatalf("/mcp with the token through the proxy: %d\n%s", resp.StatusCode, body)
	}
}
