package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// The public URLs of the server in these tests (as behind a TLS proxy).
const (
	oauthResource = "https://notes.example.org/mcp"
	oauthMetadata = "https://notes.example.org/.well-known/oauth-protected-resource/mcp"
	oauthRedirect = "http://127.0.0.1:33418/callback"
	oauthVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
)

// clock is a settable clock for the server.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// signIn makes a signed-in connection as the OAuth flow does (register,
// approved code, exchange) for resource, and returns its tokens.
func signIn(t *testing.T, store *keys.Store, name, rights, resource string, now time.Time) keys.Tokens {
	t.Helper()
	r, err := keys.ParseRights(rights)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := store.RegisterClient(keys.ClientMeta{Name: "Test Client", RedirectURIs: []string{oauthRedirect}, AuthMethod: "none"}, now)
	if err != nil {
		t.Fatal(err)
	}
	code, err := store.NewCode(keys.CodeRequest{ClientID: c.ID, RedirectURI: oauthRedirect, Challenge: keys.S256(oauthVerifier), Resource: resource, Name: name, Rights: r}, now)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := store.ExchangeCode(code, c.ID, oauthRedirect, oauthVerifier, "", now)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func newOAuthFixture(t *testing.T, o HTTPOptions, clk *clock) *httpFixture {
	t.Helper()
	o.Resource, o.ResourceMetadata = oauthResource, oauthMetadata
	o.Now = clk.now
	return newHTTPFixture(t, o, map[string]string{"reader": "read"})
}

// A signed-in connection has a key's rights model: a read-only one lists
// only the read tools and is refused a write, with the usual permission
// error; one with write writes, recorded as oauth:NAME.
func TestHTTP_SignedInConnections(t *testing.T) {
	clk := &clock{t: time.Now()}
	f := newOAuthFixture(t, HTTPOptions{}, clk)
	read := signIn(t, f.keys, "claude-ai", "read", oauthResource, clk.now())
	write := signIn(t, f.keys, "chatgpt", "read,write", oauthResource, clk.now())
	reader, err := f.client(t, read.Access)
	if err != nil {
		t.Fatalf("connect with a signed-in token: %v", err)
	}
	writer, err := f.client(t, write.Access)
	if err != nil {
		t.Fatal(err)
	}
	res, err := reader.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	if want := tools.ToolNames(tools.Perms{Read: true}); !slices.Equal(names, want) {
		t.Errorf("the read-only connection's tools:\n got %v\nwant %v", names, want)
	}
	args := map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "- signed in", "change_summary": "test"}
	r := callTool(t, reader, "append_to_note", args)
	if text := resultText(r); !r.IsError || !strings.Contains(text, "permission denied: append_to_note needs the write permission") ||
		!strings.Contains(text, `on the owner's page, Connections, tick write for the signed-in connection "claude-ai"`) || strings.Contains(text, "vaultd keys create") {
		t.Errorf("the read-only connection appends: isError=%v\n%s", r.IsError, text)
	}
	if r := callTool(t, writer, "append_to_note", args); r.IsError {
		t.Fatalf("the read,write connection appends: %s", resultText(r))
	}
	compareGolden(t, filepath.Join("testdata", "golden", "errors", "denied_signin.golden"), resultText(r))
	// Removing most of a note needs delete; the owner grants it on the page.
	const note = "0_Inbox/Notiz 2026-11-18.md"
	version := regexp.MustCompile(`(?m)^\s*version: (\S+)$`).FindStringSubmatch(resultText(callTool(t, writer, "read_note", map[string]any{"path": note})))
	if version == nil {
		t.Fatal("read_note shows no version")
	}
	r = callTool(t, writer, "replace_note", map[string]any{"path": note, "content": "# Notiz\n\nNeu gefasst.\n", "change_summary": "neu gefasst", "expected_version": version[1]})
	if text := resultText(r); !r.IsError || !strings.Contains(text, `on the owner's page, Connections, tick delete for the signed-in connection "chatgpt"`) {
		t.Errorf("the read,write connection removes most of a note: isError=%v\n%s", r.IsError, text)
	}
	changes, err := f.core.Vault().History(vault.HistoryFilter{Path: "0_Inbox/Buchtipps.md"})
	if err != nil || len(changes) == 0 || changes[0].Actor != "oauth:chatgpt:http-test" {
		t.Errorf("history: %+v %v, want the newest by oauth:chatgpt:http-test (the connection, then the client's own name)", changes, err)
	}

	// Rights changed on the page apply from the next request.
	if _, err := f.keys.SetGrantRights(read.Grant.ID, keys.Rights{Read: true, Write: true}, clk.now()); err != nil {
		t.Fatal(err)
	}
	if r := callTool(t, reader, "append_to_note", args); r.IsError {
		t.Errorf("after the rights changed to read,write: %s", resultText(r))
	}

	// Revoked: the next request gets 401.
	if _, err := keys.Open(filepath.Dir(f.keys.Path())).RevokeGrant(read.Grant.ID, clk.now()); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "vault_overview"
	if _, err := reader.CallTool(context.Background(), req); !errors.Is(err, transport.ErrAuthorizationRequired) {
		t.Errorf("the revoked connection's call: got %v, want a 401 refusal", err)
	}
	if r := callTool(t, writer, "vault_overview", nil); r.IsError {
		t.Errorf("the other connection after the revocation: %s", resultText(r))
	}
	// Keys work as before.
	if _, err := f.client(t, f.token["reader"]); err != nil {
		t.Errorf("an access key next to signed-in connections: %v", err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		gs, _ := f.keys.Grants()
		if len(gs) == 1 && !gs[0].LastUsed.IsZero() {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("last used of the signed-in connection not recorded: %+v", gs)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The 401s: without a credential the challenge names the resource
// metadata; an unknown, revoked, expired or foreign token is refused with
// a text that says which and what to do.
func TestHTTP_SignedInRefusals(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)}
	f := newOAuthFixture(t, HTTPOptions{}, clk)
	good := signIn(t, f.keys, "laptop", "read", oauthResource, clk.now())
	foreign := signIn(t, f.keys, "elsewhere", "read", "https://other.example/mcp", clk.now())
	revoked := signIn(t, f.keys, "gone", "read", oauthResource, clk.now())
	if _, err := f.keys.RevokeGrant(revoked.Grant.ID, clk.now()); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tc := range []struct {
		name, auth string
		at         time.Time
		status     int
	}{
		{"no credential", "", clk.now(), 401},
		{"valid token", "Bearer " + good.Access, clk.now(), 200},
		{"expired token", "Bearer " + good.Access, clk.now().Add(keys.AccessTTL), 401},
		{"token for another resource", "Bearer " + foreign.Access, clk.now(), 401},
		{"revoked connection", "Bearer " + revoked.Access, clk.now(), 401},
		{"refresh token as access token", "Bearer " + good.Refresh, clk.now(), 401},
		{"unknown token", "Bearer vda_unknown", clk.now(), 401},
	} {
		clk.set(tc.at)
		hdr := map[string]string{}
		if tc.auth != "" {
			hdr["Authorization"] = tc.auth
		}
		st, challenge, body := f.raw(t, HTTPPath, hdr)
		if st != tc.status {
			t.Errorf("%s: %d, want %d\n%s", tc.name, st, tc.status, body)
		}
		if st == 200 {
			continue
		}
		if !strings.Contains(challenge, `resource_metadata="`+oauthMetadata+`"`) {
			t.Errorf("%s: WWW-Authenticate %q names no resource metadata", tc.name, challenge)
		}
		fmt.Fprintf(&b, "%s → %d\nWWW-Authenticate: %s\n%s\n", tc.name, st, challenge, body)
	}
	compareGolden(t, filepath.Join("testdata", "golden", "errors", "http_401_signin.golden"), b.String())
}

// A revoked connection's open event stream ends within the revoke check.
func TestHTTP_RevokedGrantStreamCloses(t *testing.T) {
	clk := &clock{t: time.Now()}
	f := newOAuthFixture(t, HTTPOptions{HTTP: HTTPLimits{RevokeCheck: 50 * time.Millisecond}}, clk)
	tok := signIn(t, f.keys, "laptop", "read", oauthResource, clk.now())
	f.token["laptop"] = tok.Access
	sid := f.session(t, "laptop")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", f.url, nil)
	req.Header.Set("Authorization", "Bearer "+tok.Access)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", res, err)
	}
	defer res.Body.Close()
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, res.Body)
		close(done)
	}()
	time.Sleep(100 * time.Millisecond)
	if _, err := keys.Open(filepath.Dir(f.keys.Path())).RevokeGrant(tok.Grant.ID, clk.now()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second): // polled every 0.5 s; a loaded machine is slow, not wrong
		t.Fatal("the revoked connection's event stream is still open 30 s later")
	}
}

// Behind a TLS proxy (--public-url) the public host passes the rebinding
// checks on a loopback listener, and so does a page of it; OAuth's
// metadata and token endpoints take any Origin (CORS), the rest does not.
func TestHTTP_PublicURLAndCORS(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "page") })
	cors := func(p string) bool { return p == "/token" }
	f := newHTTPFixture(t, HTTPOptions{Page: page, PublicURL: "https://notes.example.org", CORS: cors}, map[string]string{"reader": "read"})
	for _, tc := range []struct {
		path   string
		header map[string]string
		status int
	}{
		{HTTPPath, map[string]string{"Host": "notes.example.org", "Authorization": "Bearer " + f.token["reader"]}, 200},
		{HTTPPath, map[string]string{"Host": "NOTES.example.org", "Origin": "https://notes.example.org", "Authorization": "Bearer " + f.token["reader"]}, 200},
		{HTTPPath, map[string]string{"Host": "notes.example.org", "Origin": "https://evil.example", "Authorization": "Bearer " + f.token["reader"]}, 403},
		{HTTPPath, map[string]string{"Host": "other.example.org", "Authorization": "Bearer " + f.token["reader"]}, 403},
		{"/token", map[string]string{"Origin": "https://inspector.example"}, 200},
		{"/token", map[string]string{"Host": "evil.example", "Origin": "https://inspector.example"}, 403},
		{"/", map[string]string{"Origin": "https://inspector.example"}, 403},
		{"/", map[string]string{"Host": "notes.example.org", "Origin": "https://notes.example.org"}, 200},
	} {
		if st, _, body := f.raw(t, tc.path, tc.header); st != tc.status {
			t.Errorf("%s %v: %d, want %d\n%s", tc.path, tc.header, st, tc.status, body)
		}
	}
}

// TestHTTP_GoneKeysForgotten: the server forgets the connection, rate
// limits and counts of a key or signed-in connection that was revoked,
// once nothing of it is in progress; the others stay.
func TestHTTP_GoneKeysForgotten(t *testing.T) {
	clk := &clock{t: time.Now()}
	f := newOAuthFixture(t, HTTPOptions{}, clk)
	tok := signIn(t, f.keys, "laptop", "read", oauthResource, clk.now())
	for _, secret := range []string{f.token["reader"], tok.Access} {
		if status, _, body := f.post(t, secret, "", strings.NewReader(initMsg)); status != 200 {
			t.Fatalf("initialize: %d %s", status, body)
		}
	}
	held := func() (int, int) {
		f.srv.mu.Lock()
		defer f.srv.mu.Unlock()
		return len(f.srv.keys), len(f.srv.conns)
	}
	if ks, cs := held(); ks != 2 || cs != 2 {
		t.Fatalf("after two connections: %d key states, %d connections", ks, cs)
	}
	f.srv.forgetGoneKeys()
	if ks, cs := held(); ks != 2 || cs != 2 {
		t.Fatalf("with both valid, forgotten: %d key states, %d connections left", ks, cs)
	}
	if _, err := f.keys.RevokeGrant(tok.Grant.ID, clk.now()); err != nil {
		t.Fatal(err)
	}
	f.srv.forgetGoneKeys()
	if ks, cs := held(); ks != 1 || cs != 1 {
		t.Errorf("after the grant was revoked: %d key states, %d connections, want the key's 1 and 1", ks, cs)
	}
}
