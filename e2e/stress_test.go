//go:build stress

package e2e

// The long-running versions of the HTTP limit tests (make stress; issue 10
// items 6 and 7). Each logs the figures it measured; run with -v to see
// them. VAULTD_E2E_BIN=/path/to/old/vaultd measures another build.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestStress_HTTPBodies: 8 parallel 60 MB request bodies from a read-only
// key, once with Content-Length and once chunked. The server's peak RSS
// (VmHWM) must stay far below the ~1 GB they used to cost.
func TestStress_HTTPBodies(t *testing.T) {
	const n, size = 8, 60 << 20
	payload := bytes.Repeat([]byte("a"), size)
	body := func() []byte {
		var b bytes.Buffer
		b.WriteString(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_notes","arguments":{"query":"`)
		b.Write(payload[:size-200])
		b.WriteString(`"}}}`)
		return b.Bytes()
	}()
	// Just under the 16 MB limit: read and handled, one at a time (the
	// search refuses a query that long).
	under := append(bytes.Clone(body[:16<<20-104]), []byte(`"}}}`)...)
	for _, mode := range []string{"content-length", "chunked", "16 MB each"} {
		t.Run(mode, func(t *testing.T) {
			vault, state := copyVault(t), t.TempDir()
			secret := createKey(t, vault, state, "reader", "read")
			h := serveHTTPProc(t, vault, state)
			m := rawConnect(t, h.url, secret)
			pid := h.cmd.Process.Pid
			time.Sleep(300 * time.Millisecond)
			start := procStatusKB(pid, "VmRSS")
			var wg sync.WaitGroup
			statuses := make([]string, n)
			t0 := time.Now()
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var r io.Reader = bytes.NewReader(body)
					if mode == "16 MB each" {
						r = bytes.NewReader(under)
					}
					if mode == "chunked" {
						r = struct{ io.Reader }{r} // no Len: the client sends it chunked
					}
					res, err := m.hc.Do(m.request("POST", r, nil))
					if err != nil {
						statuses[i] = "error: " + err.Error()
						return
					}
					b, _ := io.ReadAll(res.Body)
					res.Body.Close()
					statuses[i] = fmt.Sprintf("%d %.100s", res.StatusCode, strings.TrimSpace(string(b)))
				}()
			}
			wg.Wait()
			took := time.Since(t0)
			time.Sleep(300 * time.Millisecond)
			peak := procStatusKB(pid, "VmHWM")
			mb := size >> 20
			if mode == "16 MB each" {
				mb = (len(under) + 1<<19) >> 20
			}
			t.Logf("FIGURE bodies %s: %d × %d MB: RSS before %d MB, peak (VmHWM) %d MB, %s", mode, n, mb, start>>10, peak>>10, took.Round(time.Millisecond))
			for i, s := range statuses {
				t.Logf("  request %d: %s", i, s)
			}
			// The server still answers.
			if text, isErr := m.callText(99, "vault_overview", map[string]any{}); isErr {
				t.Errorf("vault_overview after the bodies: %s", text)
			}
			if peak > 200<<10 {
				t.Errorf("peak RSS %d MB, want < 200 MB", peak>>10)
			}
			for i, s := range statuses {
				if mode != "16 MB each" && !strings.HasPrefix(s, "413 ") && !strings.HasPrefix(s, "error: ") {
					t.Errorf("request %d: got %s, want 413", i, s)
				}
			}
		})
	}
}

// TestStress_SlowConnections: 1,100 connections that are idle, send their
// headers a byte a second, or (with a valid key) their body a byte a
// second, reconnecting whenever the server closes them. Meanwhile a normal
// client connects every 2 s and calls a tool. Once with vaultd's file
// limit as it comes (the machine's), once with 1,024 descriptors (a common
// default: then the attackers alone exceed it).
func TestStress_SlowConnections(t *testing.T) {
	for _, lim := range []string{"default", "nofile=1024"} {
		t.Run(lim, func(t *testing.T) {
			vault, state := copyVault(t), t.TempDir()
			secret := createKey(t, vault, state, "anna", "read")
			slow := createKey(t, vault, state, "slow", "read")
			var wrap []string
			if lim != "default" {
				wrap = []string{"sh", "-c", `ulimit -n 1024 && exec "$0" "$@"`}
			}
			h := serveHTTPWrapped(t, wrap, vault, state)
			u, _ := url.Parse(h.url)
			addr := u.Host

			ctx, stop := context.WithCancel(context.Background())
			var open, dials, closedByServer atomic.Int64
			var wg sync.WaitGroup
			attacker := func(kind string) {
				defer wg.Done()
				for ctx.Err() == nil {
					c, err := net.DialTimeout("tcp", addr, 5*time.Second)
					dials.Add(1)
					if err != nil {
						time.Sleep(50 * time.Millisecond)
						continue
					}
					open.Add(1)
					switch kind {
					case "headers":
						fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\n", addr)
					case "body":
						fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{", addr, slow)
					}
					// Trickle a byte a second (idle ones send nothing) and
					// notice when the server closes the connection.
					dead := make(chan struct{})
					go func() {
						buf := make([]byte, 512)
						for {
							if _, err := c.Read(buf); err != nil {
								close(dead)
								return
							}
						}
					}()
				trickle:
					for {
						select {
						case <-ctx.Done():
							break trickle
						case <-dead:
							closedByServer.Add(1)
							break trickle
						case <-time.After(time.Second):
							if kind != "idle" {
								if _, err := c.Write([]byte("a")); err != nil {
									break trickle
								}
							}
						}
					}
					c.Close()
					open.Add(-1)
				}
			}
			for i := range 1100 {
				kind := "idle"
				switch {
				case i%11 == 0:
					kind = "body"
				case i%2 == 0:
					kind = "headers"
				}
				wg.Add(1)
				go attacker(kind)
			}
			defer func() {
				stop()
				wg.Wait()
			}()
			time.Sleep(3 * time.Second)
			var lat []time.Duration
			failed := 0
			for i := range 10 {
				t0 := time.Now()
				ok := func() bool {
					done := make(chan bool, 1)
					go func() {
						defer func() {
							if recover() != nil {
								done <- false
							}
						}()
						// A fresh connection each time: a client that
						// connects while the attack is on.
						c := &rawMCP{t: panicT{t}, url: h.url, secret: secret, hc: &http.Client{Timeout: 10 * time.Second,
							Transport: &http.Transport{DisableKeepAlives: true}}}
						res, body := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"normal","version":"1"}}}`, nil)
						c.session = res.Header.Get("Mcp-Session-Id")
						if res.StatusCode != 200 || !strings.Contains(body, "serverInfo") {
							done <- false
							return
						}
						text, isErr := c.callText(2, "vault_overview", map[string]any{})
						done <- !isErr && strings.Contains(text, "spaces")
					}()
					select {
					case ok := <-done:
						return ok
					case <-time.After(15 * time.Second):
						return false
					}
				}()
				d := time.Since(t0)
				if ok {
					lat = append(lat, d)
				} else {
					failed++
				}
				t.Logf("  normal client %d: ok=%v in %s (attacker connections open: %d)", i, ok, d.Round(time.Millisecond), open.Load())
				time.Sleep(2 * time.Second)
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			p50, worst := time.Duration(0), time.Duration(0)
			if len(lat) > 0 {
				p50, worst = lat[len(lat)/2], lat[len(lat)-1]
			}
			t.Logf("FIGURE slow connections %s: normal client answered %d of 10, latency p50 %s, max %s; attacker dials %d, closed by the server %d, open at the end %d; server RSS %d MB",
				lim, len(lat), p50.Round(time.Millisecond), worst.Round(time.Millisecond), dials.Load(), closedByServer.Load(), open.Load(), procStatusKB(h.cmd.Process.Pid, "VmRSS")>>10)
			if failed > 0 {
				t.Errorf("the normal client was not answered %d times of 10", failed)
			}
			if worst > 2*time.Second {
				t.Errorf("the normal client waited up to %s, want < 2 s", worst)
			}
		})
	}
}

// panicT turns Fatal into a panic, for helpers run on other goroutines.
type panicT struct{ testing.TB }

func (p panicT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (p panicT) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }

// TestStress_RogueAgent: a key with every right, under the default limits,
// destroys what it can for VAULTD_ROGUE_SECONDS (default 75): it deletes
// notes, empties them with replace_note "" when deletes run out, and takes
// a 300-note folder down with one create_note and one delete_note (giving
// the sub-note count when asked for it, as a prompt-injected agent
// would). Counted at the end: notes in the trash, notes emptied.
func TestStress_RogueAgent(t *testing.T) {
	secs := 75
	if s := os.Getenv("VAULTD_ROGUE_SECONDS"); s != "" {
		secs, _ = strconv.Atoi(s)
	}
	r := runRogue(t, time.Duration(secs)*time.Second, 300)
	t.Logf("FIGURE rogue agent %d s: %d notes trashed (%d of them the 300-note folder), %d emptied; %d calls, %d refused",
		secs, r.trashed, r.folderTrashed, r.emptied, r.calls, r.refused)
	for i, text := range r.texts {
		t.Logf("  the folder delete, answer %d:\n%s", i+1, text)
	}
}
