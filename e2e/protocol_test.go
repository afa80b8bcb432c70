package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStdio_OnlyProtocolOnStdout speaks raw JSON-RPC to `vaultd serve`:
// every line on stdout must be a JSON-RPC 2.0 message (mcp-go's client
// skips other lines silently, so it cannot be the judge), logs go to
// --log-file (stderr gets warnings only), the annotations on the wire carry all four hints,
// and the server exits 0 when stdin closes.
func TestStdio_OnlyProtocolOnStdout(t *testing.T) {
	t.Parallel()
	vault := copyVault(t)
	logFile := filepath.Join(t.TempDir(), "vaultd.log")
	cmd := exec.Command(vaultdBin, "serve", "--vault", vault, "--state-dir", t.TempDir(), "--log-file", logFile)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	})

	lines := make(chan []byte)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- bytes.Clone(sc.Bytes())
		}
		close(lines)
		done <- cmd.Wait()
	}()

	var all [][]byte
	// roundTrip sends one request and returns its response, checking every
	// line that arrives meanwhile.
	roundTrip := func(id int, method string, params any) map[string]any {
		t.Helper()
		msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
		if params != nil {
			msg["params"] = params
		}
		b, _ := json.Marshal(msg)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatalf("write %s: %v", method, err)
		}
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("%s: stdout closed before the response", method)
				}
				all = append(all, line)
				var m map[string]any
				if err := json.Unmarshal(line, &m); err != nil || m["jsonrpc"] != "2.0" {
					t.Fatalf("stdout line is not a JSON-RPC 2.0 message: %q", line)
				}
				if fmt.Sprint(m["id"]) == fmt.Sprint(id) {
					if m["error"] != nil {
						t.Fatalf("%s: JSON-RPC error %v", method, m["error"])
					}
					res, _ := m["result"].(map[string]any)
					return res
				}
			case <-time.After(waitCap(t)):
				t.Fatalf("%s: no response", method)
			}
		}
	}
	notify := func(method string) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}

	init := roundTrip(1, "initialize", map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw-e2e", "version": "0"},
	})
	if init["protocolVersion"] != "2025-11-25" {
		t.Errorf("initialize: protocolVersion %v, want 2025-11-25", init["protocolVersion"])
	}
	notify("notifications/initialized")

	list := roundTrip(2, "tools/list", nil)
	tools, _ := list["tools"].([]any)
	if len(tools) == 0 {
		t.Fatalf("tools/list: no tools: %v", list)
	}
	for _, tl := range tools {
		m, _ := tl.(map[string]any)
		ann, _ := m["annotations"].(map[string]any)
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := ann[k].(bool); !ok {
				t.Errorf("tools/list: tool %v: annotation %s not set on the wire: %v", m["name"], k, ann)
			}
		}
	}

	id := 3
	callTool := func(name string, args map[string]any) map[string]any {
		id++
		return roundTrip(id, "tools/call", map[string]any{"name": name, "arguments": args})
	}
	callTool("vault_overview", map[string]any{})
	if r := callTool("read_note", map[string]any{"path": "1_Projekte/Nirgends.md"}); r["isError"] != true {
		t.Errorf("read_note of a missing note: isError %v, want true", r["isError"])
	}
	callTool("search_notes", map[string]any{"query": "Zeitleiste"})
	callTool("append_to_note", map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "- e2e", "change_summary": "Buchtipp ergänzt"})

	// A tool that does not exist is a protocol error (AGENT-CONTRACT rule 8).
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "tools/call",
		"params": map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}})
	_, _ = stdin.Write(append(b, '\n'))
	select {
	case line := <-lines:
		all = append(all, line)
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil || m["error"] == nil {
			t.Errorf("unknown tool: want a JSON-RPC error, got %q", line)
		}
	case <-time.After(waitCap(t)):
		t.Fatal("unknown tool: no answer")
	}

	_ = stdin.Close()
	for line := range lines {
		all = append(all, line)
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Errorf("stdout line after stdin closed is not JSON-RPC: %q", line)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("vaultd serve after stdin closed: %v, want exit status 0", err)
		}
	case <-time.After(waitCap(t)):
		t.Fatal("vaultd serve did not exit after stdin closed")
	}
	if len(all) < 7 {
		t.Errorf("got %d stdout lines, want at least 7", len(all))
	}

	// Logs: the log file gets info and up, never stdout; stderr stays
	// quiet (warnings and errors only), as clients show every stderr line
	// as an error.
	wantContains(t, "--log-file", readFile(t, logFile), "msg=\"vaultd serves a vault\" vault=", "serving over stdio", "name=append_to_note")
	if e := stderr.String(); strings.Contains(e, "level=INFO") {
		t.Errorf("stderr got info lines over stdio (want warnings and errors only):\n%s", e)
	}
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
