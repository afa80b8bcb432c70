package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The HTTP limits of `vaultd serve --http` with their defaults (issue 10
// items 6 and 7), against the built binary. The long versions (1,100
// connections, 8 × 60 MB bodies with peak RSS, a 75 s rogue agent) are in
// stress_test.go (make stress).

// TestHTTP_Limits: an oversized body gets 413 before it is read; a forged
// session id gets 404 and DELETE really ends a session; a Host that only
// starts like this server's gets 403; a revoked key's event stream closes
// within a second.
func TestHTTP_Limits(t *testing.T) {
	t.Parallel()
	vault, state := copyVault(t), t.TempDir()
	anna := createKey(t, vault, state, "anna", "read")
	createKey(t, vault, state, "ben", "read")
	h := serveHTTPProc(t, vault, state)
	m := rawConnect(t, h.url, anna)

	// 17 MB with Content-Length: refused at once, nothing read.
	big := bytes.Repeat([]byte("a"), 17<<20)
	start := time.Now()
	res, err := m.hc.Do(m.request("POST", bytes.NewReader(big), nil))
	if err != nil {
		t.Fatalf("POST 17 MB: %v", err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 413 || !strings.Contains(string(b), "larger than 16 MB") || time.Since(start) > 10*time.Second {
		t.Errorf("a 17 MB body: got %d %q after %s, want 413 at once", res.StatusCode, b, time.Since(start))
	}

	// Sessions are real.
	if text, isErr := m.callText(2, "vault_overview", map[string]any{}); isErr {
		t.Fatalf("vault_overview in the session: %s", text)
	}
	forged := &rawMCP{t: t, url: h.url, secret: anna, session: "mcp-session-7c1e5c3e-9d2b-4f6a-8e3b-2a1d4c5b6e7f", hc: m.hc}
	if res, body := forged.post(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, nil); res.StatusCode != 404 {
		t.Errorf("a forged session id: got %d %s, want 404", res.StatusCode, body)
	}
	res, err = m.hc.Do(m.request("DELETE", nil, nil))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("DELETE of the session: %v %v", res, err)
	}
	res.Body.Close()
	if res, body := m.post(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, nil); res.StatusCode != 404 {
		t.Errorf("the session after DELETE: got %d %s, want 404", res.StatusCode, body)
	}

	// The Host must be this server exactly.
	port := portOf(t, h.url)
	m = rawConnect(t, h.url, anna)
	for _, host := range []string{"localhost:" + port + ".evil.example", "127.0.0.1:" + port + ".evil.example", "localhost:1"} {
		if res, body := m.post(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, map[string]string{"Host": host}); res.StatusCode != 403 || !strings.Contains(body, "Host header") {
			t.Errorf("Host %q: got %d %s, want 403", host, res.StatusCode, body)
		}
	}
	if res, body := m.post(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`, map[string]string{"Host": "localhost:" + port}); res.StatusCode != 200 {
		t.Errorf("Host localhost:%s: got %d %s, want 200", port, res.StatusCode, body)
	}

	// A revoked key's event stream closes within a second.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := m.request("GET", nil, nil).WithContext(ctx)
	req.Header.Set("Accept", "text/event-stream")
	stream, err := (&http.Client{}).Do(req)
	if err != nil || stream.StatusCode != 200 {
		t.Fatalf("GET event stream: %v %v", stream, err)
	}
	defer stream.Body.Close()
	closed := make(chan struct{})
	go func() {
		io.Copy(io.Discard, stream.Body)
		close(closed)
	}()
	time.Sleep(200 * time.Millisecond)
	if out, err := exec.Command(vaultdBin, "keys", "revoke", "anna", "--vault", vault, "--state-dir", state).CombinedOutput(); err != nil {
		t.Fatalf("vaultd keys revoke: %v\n%s", err, out)
	}
	revoked := time.Now()
	select {
	case <-closed:
		t.Logf("the revoked key's event stream closed %s after the revocation", time.Since(revoked).Round(time.Millisecond))
	case <-time.After(waitCap(t)):
		t.Errorf("the revoked key's event stream is still open %s after the revocation", time.Since(revoked).Round(time.Second))
	}
}

func portOf(t testing.TB, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Port()
}

// TestHTTP_IdleConnections: a server that may open 300 files (so 44
// connections) with 150 idle or slow connections still answers a client
// with a key, at once.
func TestHTTP_IdleConnections(t *testing.T) {
	t.Parallel()
	vault, state := copyVault(t), t.TempDir()
	anna := createKey(t, vault, state, "anna", "read")
	h := serveHTTPWrapped(t, []string{"sh", "-c", `ulimit -n 300 && exec "$0" "$@"`}, vault, state)
	wantContains(t, "the start line", h.stderr.String(), "max_connections=44")
	addr := strings.TrimPrefix(strings.TrimSuffix(h.url, "/mcp"), "http://")
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range 150 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\n", addr)
		}
		conns = append(conns, c)
	}
	time.Sleep(200 * time.Millisecond)
	for i := range 3 {
		start := time.Now()
		m := &rawMCP{t: t, url: h.url, secret: anna, hc: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}}
		res, body := m.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"normal","version":"1"}}}`, nil)
		// Starved, it would wait for the idle connections' 10 s header
		// timeout; 5 s leaves a loaded machine room (issue 32).
		if took := time.Since(start); res.StatusCode != 200 || took > 5*time.Second {
			t.Errorf("client %d among 150 idle connections: %d %.100s after %s, want 200 at once", i, res.StatusCode, body, took)
		}
	}
	wantLog(t, "the log", h.stderr, "http connection limit reached")
}

// TestHTTP_RogueAgent: a key with every right, under the default limits,
// tries for 2 s to destroy what it can. It gets at most the 3 deletes of
// its burst — trashing a note or emptying one both count — and the
// 30-note folder goes only after the delete names its 30 sub-notes.
func TestHTTP_RogueAgent(t *testing.T) {
	t.Parallel()
	r := runRogue(t, 2*time.Second, 30)
	if len(r.texts) < 1 || !strings.Contains(r.texts[0], "the note has 30 sub-notes") || !strings.Contains(r.texts[0], `"with_sub_notes": 30`) {
		t.Errorf("the first delete of the folder note: want a refusal with the count, got\n%s", strings.Join(r.texts, "\n---\n"))
	}
	// The folder took one delete; the rest of the burst went to single
	// notes, trashed or emptied.
	ops := r.trashed - r.folderTrashed + r.emptied
	t.Logf("rogue agent 2 s: %d trashed (%d in the folder), %d emptied, %d calls, %d refused", r.trashed, r.folderTrashed, r.emptied, r.calls, r.refused)
	if ops > 3 {
		t.Errorf("%d destructive operations in 2 s (%d trashed outside the folder, the folder note included; %d emptied), want at most the burst of 3", ops, r.trashed-r.folderTrashed, r.emptied)
	}
}

// TestHTTP_KeyOwnLimits: a key created with rate limits of its own gets
// them from the running binary, and `vaultd keys limits` changes them for
// a server that is running, from the key's next request on.
func TestHTTP_KeyOwnLimits(t *testing.T) {
	t.Parallel()
	vault, state := copyVault(t), t.TempDir()
	out, err := exec.Command(vaultdBin, "keys", "create", "night", "--allow", "read,write", "--writes-per-minute", "2",
		"--vault", vault, "--state-dir", state, "--json").Output()
	if err != nil {
		t.Fatalf("vaultd keys create --writes-per-minute 2: %v\n%s", err, out)
	}
	var k struct {
		Secret          string
		WritesPerMinute *int `json:"writes_per_minute"`
	}
	if err := json.Unmarshal(out, &k); err != nil || k.WritesPerMinute == nil || *k.WritesPerMinute != 2 {
		t.Fatalf("keys create --json: %v\n%s", err, out)
	}
	other := createKey(t, vault, state, "day", "read,write")
	p := serveHTTPProc(t, vault, state, "--writes-per-minute", "30")
	night, day := httpClient(t, p.url, k.Secret), httpClient(t, p.url, other)
	app := func(s *server, line string) result {
		return s.call("append_to_note", map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "- " + line, "change_summary": line})
	}
	for i := range 2 {
		if r := app(night, fmt.Sprint("night ", i)); r.IsError || !strings.Contains(r.Text, "(2 a minute)") {
			t.Fatalf("night's append %d: %s", i, r.Text)
		}
	}
	if r := app(night, "night, too fast"); !r.IsError || !strings.Contains(r.Text, "may make 2 writes per minute") {
		t.Errorf("night's third append: want rate limited at 2 a minute, got\n%s", r.Text)
	}
	if r := app(day, "day"); r.IsError || !strings.Contains(r.Text, "(30 a minute)") {
		t.Errorf("day, with the server's --writes-per-minute 30: %s", r.Text)
	}
	if out, err := exec.Command(vaultdBin, "keys", "limits", "night", "--writes-per-minute", "20", "--vault", vault, "--state-dir", state).CombinedOutput(); err != nil {
		t.Fatalf("vaultd keys limits: %v\n%s", err, out)
	}
	if r := app(night, "night, raised"); r.IsError || !strings.Contains(r.Text, "(20 a minute)") {
		t.Errorf("night after keys limits --writes-per-minute 20 on the running server: %s", r.Text)
	}
	list, err := exec.Command(vaultdBin, "keys", "list", "--vault", vault, "--state-dir", state).Output()
	if err != nil || !regexp.MustCompile(`(?m)^night +read,write +.* +20 writes/min, deletes: server default$`).Match(list) {
		t.Errorf("keys list: %v\n%s", err, list)
	}
}

// TestHTTP_SubscriptionCap: one session of a read-only key subscribes to
// 300 notes over HTTP: 256 are held, the rest refused with an error that
// says so and names the subscription to let go; the unsubscribe it names,
// sent as printed, makes room (the long version, 20,000 attempts and the
// idle CPU they cost, is TestStress_Subscriptions).
func TestHTTP_SubscriptionCap(t *testing.T) {
	t.Parallel()
	vault, state := copyVault(t), t.TempDir()
	secret := createKey(t, vault, state, "reader", "read")
	m := rawConnect(t, serveHTTPProc(t, vault, state).url, secret)
	refused, last := 0, ""
	for i := range 300 {
		_, body := m.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":"vault://note/4_Archiv/watch-%03d.md"}}`, i+10, i), nil)
		if strings.Contains(body, `"error"`) {
			refused++
			last = body
		}
	}
	if refused != 300-256 || !strings.Contains(last, "this session holds 256 subscriptions, the most one session may hold") {
		t.Fatalf("300 subscriptions in one session: %d refused, want 44; the last: %s", refused, last)
	}
	var rpc struct{ Error struct{ Message string } }
	_ = json.Unmarshal([]byte(last), &rpc)
	call := regexp.MustCompile(`resources/unsubscribe (\{.*?\})`).FindStringSubmatch(rpc.Error.Message)
	if call == nil {
		t.Fatalf("the refusal names no unsubscribe call: %s", last)
	}
	if _, body := m.post(`{"jsonrpc":"2.0","id":400,"method":"resources/unsubscribe","params":`+call[1]+`}`, nil); strings.Contains(body, `"error"`) {
		t.Fatalf("the unsubscribe the refusal names: %s", body)
	}
	if _, body := m.post(`{"jsonrpc":"2.0","id":401,"method":"resources/subscribe","params":{"uri":"vault://note/4_Archiv/watch-299.md"}}`, nil); strings.Contains(body, `"error"`) {
		t.Errorf("a subscription after the unsubscribe made room: %s", body)
	}
}
