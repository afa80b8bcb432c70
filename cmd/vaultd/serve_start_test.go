package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `vaultd serve` answers while it starts: initialize and a search are
// answered (the search from the index, which opens meanwhile), and the
// temp files a killed writer left are removed once the index is up to
// date — a stale one in a sub-folder, not one younger than a minute (it
// may belong to a write in progress in another process).
func TestServe_StartsThenRecovers(t *testing.T) {
	dir, g := rVault(t, map[string]string{
		"1_Projekte/Garten.md":              "# Garten\n\nTomaten pflanzen.\n",
		"1_Projekte/.vaultd-1234.tmp":       "half a write",
		"2_Wissen/Tiefer/.vaultd-fresh.tmp": "a write in progress",
		"2_Wissen/Tiefer/Kompost.md":        "# Kompost\n",
		"2_Wissen/Tiefer/.vaultd-other.txt": "not vaultd's",
	})
	stale := filepath.Join(dir, "1_Projekte", ".vaultd-1234.tmp")
	old := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	out := &syncBuffer{}
	done := make(chan int)
	go func() {
		done <- execute(context.Background(), append(g, "serve"), inR, out, io.Discard)
	}()
	send := func(s string) { io.WriteString(inW, s+"\n") }
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 20 s; the server wrote:\n%s", what, out.String())
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test-client","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_notes","arguments":{"query":"Tomaten"}}}`)
	waitFor("the search's answer", func() bool { return strings.Contains(out.String(), `"id":2`) })
	if !strings.Contains(out.String(), "1_Projekte/Garten.md") {
		t.Errorf("the search did not find the note:\n%s", out.String())
	}
	waitFor("the stale temp file removed", func() bool {
		_, err := os.Stat(stale)
		return os.IsNotExist(err)
	})
	inW.Close()
	if code := <-done; code != 0 {
		t.Errorf("serve exited with %d", code)
	}
	for _, p := range []string{"2_Wissen/Tiefer/.vaultd-fresh.tmp", "2_Wissen/Tiefer/.vaultd-other.txt"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}
