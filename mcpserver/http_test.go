package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// httpFixture is an HTTP server over a copy of the example vault with a
// key store in a temp dir.
type httpFixture struct {
	url   string
	keys  *keys.Store
	core  *tools.Core
	srv   *HTTPServer
	token map[string]string // key name → secret
}

func newHTTPFixture(t *testing.T, o HTTPOptions, keyRights map[string]string) *httpFixture {
	t.Helper()
	c := newTestCore(t, copyExampleVault(t))
	f := &httpFixture{keys: keys.Open(t.TempDir()), core: c, token: map[string]string{}}
	for name, rights := range keyRights {
		r, err := keys.ParseRights(rights)
		if err != nil {
			t.Fatal(err)
		}
		secret, _, err := f.keys.Create(name, r, fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		f.token[name] = secret
	}
	if o.Open == nil {
		o.Keys = f.keys
	}
	o.Loopback = true
	f.srv = NewHTTPServer(c, o)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go f.srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		f.srv.Shutdown(ctx)
	})
	f.url = "http://" + ln.Addr().String() + HTTPPath
	return f
}

// port is the port the fixture listens on.
func (f *httpFixture) port() string {
	u, err := url.Parse(f.url)
	if err != nil {
		panic(err)
	}
	return u.Port()
}

// client connects an mcp-go streamable HTTP client with the key's secret
// (no header for "").
func (f *httpFixture) client(t *testing.T, secret string) (*client.Client, error) {
	t.Helper()
	var opts []transport.StreamableHTTPCOption
	if secret != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + secret}))
	}
	cl, err := client.NewStreamableHttpClient(f.url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cl.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "http-test", Version: "1"}
	_, err = cl.Initialize(ctx, init)
	return cl, err
}

func (f *httpFixture) mustClient(t *testing.T, name string) *client.Client {
	t.Helper()
	cl, err := f.client(t, f.token[name])
	if err != nil {
		t.Fatalf("connect as %s: %v", name, err)
	}
	return cl
}

// raw sends an initialize request with the given headers and returns the
// status, the WWW-Authenticate header and the body.
func (f *httpFixture) raw(t *testing.T, path string, header map[string]string) (int, string, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, err := http.NewRequest("POST", strings.TrimSuffix(f.url, HTTPPath)+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return res.StatusCode, res.Header.Get("WWW-Authenticate"), b.String()
}

func TestHTTP_Refusals(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{}, map[string]string{"reader": "read"})
	port := f.port()
	for _, tc := range []struct {
		name      string
		path      string
		header    map[string]string
		status    int
		challenge string
		body      string
	}{
		{"no key", HTTPPath, nil, 401, `Bearer realm="vaultd"`, "needs an access key"},
		{"wrong key", HTTPPath, map[string]string{"Authorization": "Bearer vdk_wrong"}, 401, `Bearer realm="vaultd", error="invalid_token"`, "unknown or was revoked"},
		{"basic auth", HTTPPath, map[string]string{"Authorization": "Basic dXNlcjpwdw=="}, 401, `Bearer realm="vaultd", error="invalid_token"`, "needs an access key"},
		{"foreign host", HTTPPath, map[string]string{"Host": "evil.example:8765", "Authorization": "Bearer " + f.token["reader"]}, 403, "", "Host header"},
		{"foreign host, no key", HTTPPath, map[string]string{"Host": "evil.example"}, 403, "", "Host header"},
		{"foreign origin", HTTPPath, map[string]string{"Origin": "https://evil.example", "Authorization": "Bearer " + f.token["reader"]}, 403, "", "web page"},
		{"null origin", HTTPPath, map[string]string{"Origin": "null", "Authorization": "Bearer " + f.token["reader"]}, 403, "", "web page"},
		{"local origin, no key", HTTPPath, map[string]string{"Origin": "http://localhost:3000"}, 401, `Bearer realm="vaultd"`, "needs an access key"},
		{"other path", "/", nil, 404, "", "serves MCP at /mcp"},
		{"ok", HTTPPath, map[string]string{"Authorization": "Bearer " + f.token["reader"]}, 200, "", `"serverInfo"`},
		{"ok via localhost", HTTPPath, map[string]string{"Host": "localhost:" + port, "Origin": "http://127.0.0.1:5173", "Authorization": "Bearer " + f.token["reader"]}, 200, "", `"serverInfo"`},
		{"ok via [::1]", HTTPPath, map[string]string{"Host": "[::1]:" + port, "Authorization": "Bearer " + f.token["reader"]}, 200, "", `"serverInfo"`},
		// The Host must be exactly this server: a loopback name and its
		// port, not a name that starts like one.
		{"host suffix", HTTPPath, map[string]string{"Host": "localhost:" + port + ".evil.example", "Authorization": "Bearer " + f.token["reader"]}, 403, "", "Host header"},
		{"host suffix, no key", HTTPPath, map[string]string{"Host": "127.0.0.1:" + port + ".evil.example"}, 403, "", "Host header"},
		{"other port", HTTPPath, map[string]string{"Host": "localhost:1234", "Authorization": "Bearer " + f.token["reader"]}, 403, "", "connect to http://127.0.0.1:" + port},
		{"port with a leading zero", HTTPPath, map[string]string{"Host": "localhost:0" + port, "Authorization": "Bearer " + f.token["reader"]}, 403, "", "Host header"},
		{"empty port", HTTPPath, map[string]string{"Host": "localhost:", "Authorization": "Bearer " + f.token["reader"]}, 403, "", "Host header"},
		{"no port, not on 80", HTTPPath, map[string]string{"Host": "localhost", "Authorization": "Bearer " + f.token["reader"]}, 403, "", "Host header"},
		{"origin suffix", HTTPPath, map[string]string{"Origin": "http://localhost:3000.evil.example", "Authorization": "Bearer " + f.token["reader"]}, 403, "", "web page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, challenge, body := f.raw(t, tc.path, tc.header)
			if status != tc.status || challenge != tc.challenge || !strings.Contains(body, tc.body) {
				t.Errorf("headers %v: got %d, WWW-Authenticate %q, body %q; want %d, %q, body with %q",
					tc.header, status, challenge, body, tc.status, tc.challenge, tc.body)
			}
			if strings.Contains(body, f.token["reader"]) {
				t.Errorf("the body echoes the secret: %s", body)
			}
		})
	}
}

// Two keys at once: each sees its own tools, gets its own permission
// errors and rate limit, and is its own actor in the history.
func TestHTTP_KeysAreConnections(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{Limits: tools.Limits{WritesPerMinute: 1, WriteBurst: 1}},
		map[string]string{"reader": "read", "anna": "read,write", "ben": "read,write"})
	reader, anna, ben := f.mustClient(t, "reader"), f.mustClient(t, "anna"), f.mustClient(t, "ben")

	list := func(cl *client.Client) []string {
		res, err := cl.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	if got, want := list(reader), tools.ToolNames(tools.Perms{Read: true}); !slices.Equal(got, want) {
		t.Errorf("reader's tools:\n got %v\nwant %v", got, want)
	}
	if got, want := list(anna), tools.ToolNames(tools.Perms{Read: true, Write: true}); !slices.Equal(got, want) {
		t.Errorf("anna's tools:\n got %v\nwant %v", got, want)
	}

	appendArgs := func(line string) map[string]any {
		return map[string]any{"path": "0_Inbox/Buchtipps.md", "content": line, "change_summary": "test " + line}
	}
	res := callTool(t, reader, "append_to_note", appendArgs("vom Leser"))
	if text := resultText(res); !res.IsError || !strings.Contains(text, "permission denied: append_to_note needs the write permission") ||
		!strings.Contains(text, "vaultd keys create NAME --allow read,write") {
		t.Errorf("reader appends: got isError=%v\n%s\nwant the permission error naming the key command", res.IsError, text)
	}
	if res := callTool(t, anna, "append_to_note", appendArgs("von Anna")); res.IsError {
		t.Fatalf("anna appends: %s", resultText(res))
	}
	if res := callTool(t, anna, "append_to_note", appendArgs("von Anna, zu schnell")); !res.IsError || !strings.Contains(resultText(res), "rate limited") {
		t.Errorf("anna's second append within her limit of 1/min: got isError=%v\n%s\nwant rate limited", res.IsError, resultText(res))
	}
	// Ben's limit is his own.
	if res := callTool(t, ben, "append_to_note", appendArgs("von Ben")); res.IsError {
		t.Fatalf("ben appends after anna was limited: %s", resultText(res))
	}
	changes, err := f.core.Vault().History(vault.HistoryFilter{Path: "0_Inbox/Buchtipps.md"})
	if err != nil {
		t.Fatal(err)
	}
	var actors []string
	for _, ch := range changes {
		actors = append(actors, ch.Actor)
	}
	if !slices.Equal(actors, []string{"key:ben:http-test", "key:anna:http-test"}) {
		t.Errorf("history actors of 0_Inbox/Buchtipps.md, newest first: got %v, want [key:ben:http-test key:anna:http-test]", actors)
	}
	ks, _ := f.keys.List()
	for _, k := range ks {
		if k.LastUsed.IsZero() {
			// Written in the background; Shutdown flushes, so wait a bit.
			deadline := time.Now().Add(3 * time.Second)
			for k.LastUsed.IsZero() && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
				all, _ := f.keys.List()
				for _, k2 := range all {
					if k2.Name == k.Name {
						k = k2
					}
				}
			}
			if k.LastUsed.IsZero() {
				t.Errorf("key %s: last used not recorded", k.Name)
			}
		}
	}
}

// A key revoked while its client is connected is refused on its next
// call; the other keys go on.
func TestHTTP_RevokedWhileConnected(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{}, map[string]string{"anna": "read", "ben": "read"})
	anna, ben := f.mustClient(t, "anna"), f.mustClient(t, "ben")
	if res := callTool(t, anna, "vault_overview", nil); res.IsError {
		t.Fatal(resultText(res))
	}
	// Another process (vaultd keys revoke) changes the store.
	if _, err := keys.Open(strings.TrimSuffix(f.keys.Path(), "/"+keys.FileName)).Revoke("anna"); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "vault_overview"
	_, err := anna.CallTool(context.Background(), req)
	if err == nil || !errors.Is(err, transport.ErrAuthorizationRequired) {
		t.Errorf("anna's call after the revocation: got %v, want a 401 refusal", err)
	}
	if res := callTool(t, ben, "vault_overview", nil); res.IsError {
		t.Errorf("ben after anna's revocation: %s", resultText(res))
	}
	if _, err := f.client(t, f.token["anna"]); err == nil {
		t.Error("a new connection with the revoked key: got none refused")
	}
}

func TestHTTP_NoAuth(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{Open: tools.NewConnection("mcp", tools.Perms{Read: true}, tools.Limits{})}, nil)
	cl, err := f.client(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if res := callTool(t, cl, "vault_overview", nil); res.IsError {
		t.Fatal(resultText(res))
	}
	if res := callTool(t, cl, "create_note", map[string]any{"path": "0_Inbox/X.md", "content": "x", "change_summary": "x"}); !res.IsError {
		t.Error("create_note on a read-only --no-auth server: got success")
	}
	if status, _, _ := f.raw(t, HTTPPath, map[string]string{"Host": "evil.example"}); status != 403 {
		t.Errorf("foreign Host without auth: got %d, want 403", status)
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:80": true, "127.0.0.1": true, "127.1.2.3:8765": true, "[::1]:8765": true, "::1": true,
		"": false, "evil.example": false, "localhost.evil.example": false, "10.0.0.1": false, "[::2]:80": false, "0.0.0.0": false,
		"localhost:8765.evil.example": false, "127.0.0.1:8765.evil.example": false, "[::1]:8765.evil.example": false,
		"localhost:": false, "localhost:0": false, "localhost:65536": false, "localhost:+80": false, "localhost:080": false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q): got %v, want %v", host, got, want)
		}
	}
}

var _ http.Handler = (*HTTPServer)(nil)

// Rights changed by the owner (the owner's page, keys.Store.SetRights)
// apply from the key's next call, also for a connected client.
func TestHTTP_RightsChangedWhileConnected(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{}, map[string]string{"anna": "read"})
	anna := f.mustClient(t, "anna")
	args := map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "- Neu", "change_summary": "a book"}
	if res := callTool(t, anna, "append_to_note", args); !res.IsError || !strings.Contains(resultText(res), "write") {
		t.Fatalf("append with a read key: %s", resultText(res))
	}
	if _, err := f.keys.SetRights("anna", keys.Rights{Read: true, Write: true}); err != nil {
		t.Fatal(err)
	}
	if res := callTool(t, anna, "append_to_note", args); res.IsError {
		t.Errorf("append after the key got the write right: %s", resultText(res))
	}
	if _, err := f.keys.SetRights("anna", keys.Rights{Read: true}); err != nil {
		t.Fatal(err)
	}
	if res := callTool(t, anna, "append_to_note", args); !res.IsError {
		t.Error("append after the write right was taken away: got success")
	}
}

// A page that the server hands everything but /mcp to gets the same Host
// checks; without a page such paths get 404.
func TestHTTP_PageBehindHostChecks(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	f := newHTTPFixture(t, HTTPOptions{Page: page}, map[string]string{"anna": "read"})
	if status, _, _ := f.raw(t, "/", nil); status != http.StatusTeapot {
		t.Errorf("GET / with a page: got %d, want the page's 418", status)
	}
	if status, _, _ := f.raw(t, "/", map[string]string{"Host": "evil.example"}); status != http.StatusForbidden {
		t.Errorf("GET / with a foreign Host: got %d, want 403 before the page", status)
	}
	g := newHTTPFixture(t, HTTPOptions{}, map[string]string{"anna": "read"})
	if status, _, _ := g.raw(t, "/", nil); status != http.StatusNotFound {
		t.Errorf("GET / without a page: got %d, want 404", status)
	}
}

// A key's own rate limits replace the server's for its connection, burst
// included; changed on a running server, they count from the key's next
// request, and the other keys keep the server's.
func TestHTTP_KeyOwnRateLimits(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{}, map[string]string{"anna": "read,write", "ben": "read,write"})
	if _, err := f.keys.SetLimits("anna", keys.Limits{WritesPerMinute: 2}); err != nil {
		t.Fatal(err)
	}
	anna, ben := f.mustClient(t, "anna"), f.mustClient(t, "ben")
	appendArgs := func(line string) map[string]any {
		return map[string]any{"path": "0_Inbox/Buchtipps.md", "content": line, "change_summary": "test " + line}
	}
	for i := range 2 {
		res := callTool(t, anna, "append_to_note", appendArgs(fmt.Sprintf("von Anna %d", i)))
		if res.IsError || !strings.Contains(resultText(res), "(2 a minute)") {
			t.Fatalf("anna's append %d within her own limit of 2/min: %s", i, resultText(res))
		}
	}
	res := callTool(t, anna, "append_to_note", appendArgs("von Anna, zu schnell"))
	if !res.IsError || !strings.Contains(resultText(res), "this connection may make 2 writes per minute") {
		t.Errorf("anna's third append: got isError=%v\n%s\nwant rate limited at 2 a minute", res.IsError, resultText(res))
	}
	for i := range 3 {
		if res := callTool(t, ben, "append_to_note", appendArgs(fmt.Sprintf("von Ben %d", i))); res.IsError || !strings.Contains(resultText(res), "(60 a minute)") {
			t.Fatalf("ben's append %d with the server's limits: %s", i, resultText(res))
		}
	}
	if _, err := f.keys.SetLimits("anna", keys.Limits{WritesPerMinute: 30}); err != nil {
		t.Fatal(err)
	}
	if res := callTool(t, anna, "append_to_note", appendArgs("von Anna, neues Limit")); res.IsError || !strings.Contains(resultText(res), "(30 a minute)") {
		t.Errorf("anna after her limit was raised to 30/min: %s", resultText(res))
	}
}

func TestKeyLimits(t *testing.T) {
	server := tools.Limits{WritesPerMinute: 20}
	for _, c := range []struct {
		own  keys.Limits
		want tools.Limits
	}{
		{keys.Limits{}, tools.Limits{WritesPerMinute: 20, WriteBurst: 10, DeletesPerMinute: 10, DeleteBurst: 3}},
		{keys.Limits{WritesPerMinute: 5}, tools.Limits{WritesPerMinute: 5, WriteBurst: 5, DeletesPerMinute: 10, DeleteBurst: 3}},
		{keys.Limits{WritesPerMinute: 100, DeletesPerMinute: 1}, tools.Limits{WritesPerMinute: 100, WriteBurst: 10, DeletesPerMinute: 1, DeleteBurst: 1}},
	} {
		if got := KeyLimits(server, c.own); got != c.want {
			t.Errorf("KeyLimits(%+v, %+v): got %+v, want %+v", server, c.own, got, c.want)
		}
	}
}

// TestHTTP_HistoryNamesKeyAndClient: over HTTP the history records the
// connection (the key) and the MCP client's own name (its clientInfo),
// as stdio records "mcp:claude-code" (issue 32: HTTP kept only
// "key:claude"), in both protocol eras: from the session's initialize,
// and from each stateless request's _meta. A filter by the key finds
// every client of it.
func TestHTTP_HistoryNamesKeyAndClient(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{}, map[string]string{"anna": "read,write", "ben": "read,write"})
	const path = "0_Inbox/Buchtipps.md"
	anna := f.mustClient(t, "anna") // initialize names it "http-test"
	if res := callTool(t, anna, "append_to_note", map[string]any{"path": path, "content": "- von Anna", "change_summary": "Annas Tipp"}); res.IsError {
		t.Fatalf("anna appends: %s", resultText(res))
	}
	// Ben's client speaks the stateless era: no initialize, its name in
	// every request's _meta, spelled as Claude Code spells it.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"append_to_note","arguments":{"path":"` + path +
		`","content":"- von Ben","change_summary":"Bens Tipp"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"Claude Code","version":"2.1"}}}}`
	req, _ := http.NewRequest("POST", f.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "append_to_note")
	req.Header.Set("Authorization", "Bearer "+f.token["ben"])
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(b), "recorded in history") {
		t.Fatalf("ben appends in the stateless era: got %d %s", res.StatusCode, b)
	}

	history := func(actor string) []string {
		t.Helper()
		changes, err := f.core.Vault().History(vault.HistoryFilter{Path: path, Actor: actor})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ch := range changes {
			out = append(out, ch.Actor+" "+ch.Summary)
		}
		return out
	}
	if got, want := history(""), []string{"key:ben:claude-code Bens Tipp", "key:anna:http-test Annas Tipp"}; !slices.Equal(got, want) {
		t.Errorf("history of %s, newest first:\n got %q\nwant %q", path, got, want)
	}
	for actor, want := range map[string][]string{
		"key:anna":            {"key:anna:http-test Annas Tipp"},
		"key:ben:claude-code": {"key:ben:claude-code Bens Tipp"},
		"key:ben:cursor":      nil,
		"key:an":              nil, // a key's name is whole, never a prefix of another's
	} {
		if got := history(actor); !slices.Equal(got, want) {
			t.Errorf("history by %q: got %q, want %q", actor, got, want)
		}
	}
}
