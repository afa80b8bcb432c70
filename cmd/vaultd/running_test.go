package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunningServers: a server's note in the state dir names its address
// while its process runs; a note left by a process that is gone (killed)
// is not believed, and is removed.
func TestRunningServers(t *testing.T) {
	state := t.TempDir()
	addr, note := serverAddress(state, "", defaultPageURL, false)
	if addr != defaultPageURL || !strings.Contains(note, "no vaultd serve --http is running") {
		t.Errorf("no server: got %q (%s), want the default and a note saying so", addr, note)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no true to run:", err)
	}
	if _, err := announceServer(state, runningServer{PID: gone.Process.Pid, Page: "http://127.0.0.1:1111", MCP: "http://127.0.0.1:1111/mcp", Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	remove, err := announceServer(state, runningServer{PID: os.Getpid(), Page: "http://127.0.0.1:2222", MCP: "http://127.0.0.1:2222/mcp", Started: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	addr, note = serverAddress(state, "", defaultPageURL, true)
	if addr != "http://127.0.0.1:2222/mcp" || !strings.Contains(note, "is the address of the server running on this vault (pid") {
		t.Errorf("one live server, one gone: got %q (%s), want the live one's MCP address", addr, note)
	}
	if _, err := os.Stat(filepath.Join(state, runningDir, strconv.Itoa(gone.Process.Pid)+".json")); err == nil {
		t.Error("the gone process's note is still there")
	}
	if addr, note := serverAddress(state, "https://notes.example.org", defaultPageURL, false); addr != "https://notes.example.org" || note != "" {
		t.Errorf("--url: got %q (%s), want it as given", addr, note)
	}
	remove()
	if addr, _ := serverAddress(state, "", defaultPageURL, false); addr != defaultPageURL {
		t.Errorf("after the server removed its note: got %q, want the default", addr)
	}
}
