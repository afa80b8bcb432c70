package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawMCP speaks streamable HTTP by hand, one JSON-RPC message per POST, so
// that tests can send what no well-behaved client sends: forged session
// ids, oversized or slow bodies, odd Host headers.
type rawMCP struct {
	t       testing.TB
	url     string
	secret  string
	session string // Mcp-Session-Id from initialize
	hc      *http.Client
}

// rawConnect initializes a session over HTTP with the key's secret.
func rawConnect(t testing.TB, url, secret string) *rawMCP {
	t.Helper()
	m := &rawMCP{t: t, url: url, secret: secret, hc: &http.Client{Timeout: 30 * time.Second}}
	res, body := m.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-e2e","version":"1"}}}`, nil)
	if res.StatusCode != 200 || !strings.Contains(body, `"serverInfo"`) {
		t.Fatalf("initialize: %d %s", res.StatusCode, body)
	}
	m.session = res.Header.Get("Mcp-Session-Id")
	if res, body := m.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); res.StatusCode/100 != 2 {
		t.Fatalf("notifications/initialized: %d %s", res.StatusCode, body)
	}
	return m
}

// request builds a POST with the session's headers; header adds or
// overrides ("Host" sets the Host header).
func (m *rawMCP) request(method string, body io.Reader, header map[string]string) *http.Request {
	req, err := http.NewRequest(method, m.url, body)
	if err != nil {
		m.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if m.secret != "" {
		req.Header.Set("Authorization", "Bearer "+m.secret)
	}
	if m.session != "" {
		req.Header.Set("Mcp-Session-Id", m.session)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	return req
}

// post sends one JSON-RPC message and returns the response and its body
// (the JSON of an SSE response's data lines, joined).
func (m *rawMCP) post(msg string, header map[string]string) (*http.Response, string) {
	m.t.Helper()
	res, err := m.hc.Do(m.request("POST", strings.NewReader(msg), header))
	if err != nil {
		m.t.Fatalf("POST %.80s: %v", msg, err)
	}
	defer res.Body.Close()
	return res, readRPCBody(res)
}

// readRPCBody reads a JSON or SSE response body.
func readRPCBody(res *http.Response) string {
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	var out []string
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return strings.Join(out, "\n")
}

// callText calls a tool and returns its result's text and isError.
func (m *rawMCP) callText(id int, tool string, args map[string]any) (string, bool) {
	m.t.Helper()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	res, body := m.post(string(msg), nil)
	if res.StatusCode != 200 {
		m.t.Fatalf("%s: HTTP %d %s", tool, res.StatusCode, body)
	}
	var rpc struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(body), &rpc); err != nil || rpc.Error != nil {
		m.t.Fatalf("%s: %v %s", tool, err, body)
	}
	var parts []string
	for _, c := range rpc.Result.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n"), rpc.Result.IsError
}

// procStatusKB returns a "VmRSS"/"VmHWM"-style field of /proc/PID/status
// in KiB, or -1 when it cannot be read (not Linux).
func procStatusKB(pid int, name string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte(name+":")); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"))
			if err == nil {
				return n
			}
		}
	}
	return -1
}
