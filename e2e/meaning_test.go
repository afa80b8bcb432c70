package e2e

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/embed/embedtest"
)

// searchUntil calls search_notes until the answer no longer says that the
// index or search by meaning is still catching up.
func (s *server) searchUntil(args map[string]any) string {
	s.t.Helper()
	deadline := time.Now().Add(waitCap(s.t))
	for {
		r := s.call("search_notes", args)
		busy := strings.HasPrefix(r.Text, "index building") || strings.Contains(r.Text, "meaning search covers") || strings.Contains(r.Text, "meaning search starts") || strings.Contains(r.Text, "meaning search is reading")
		if !busy || time.Now().After(deadline) {
			return r.Text
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestStdio_SearchByMeaning: vaultd serve --embedder static:DIR with a
// model2vec folder (the tiny test model) answers search_notes with hits
// by meaning, saying so, and by words where asked.
func TestStdio_SearchByMeaning(t *testing.T) {
	vault := copyVault(t)
	model := filepath.Join(t.TempDir(), "tiny")
	if err := embedtest.WriteModel(model); err != nil {
		t.Fatal(err)
	}
	s := serve(t, vault, "", "--embedder", "static:"+model)
	text := s.searchUntil(map[string]any{"query": "garden", "limit": 3})
	wantContains(t, "search by meaning", text, "path: 2_Bereiche/Garten/Gartenjahr 2026.md", "matched by: meaning")
	if strings.Contains(text, "meaning search") {
		t.Errorf("after embedding the answer still speaks of missing meaning search:\n%s", text)
	}
	text = s.mustOK("search_notes", map[string]any{"query": "garden", "by": "words"})
	wantContains(t, "by words", text, "0 notes match by words.")
}

// TestStdio_EmbedderUnreachable: an OpenAI-compatible endpoint nobody
// listens on; word search answers and says why meaning is missing.
func TestStdio_EmbedderUnreachable(t *testing.T) {
	vault := copyVault(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	s := serve(t, vault, "", "--embedder", "openai:http://"+addr+"/v1#bge-m3")
	text := s.searchUntil(map[string]any{"query": "Gewächshaus", "limit": 2})
	wantContains(t, "unreachable embedder", text, "path: 2_Bereiche/Garten/Gewächshaus.md", "meaning search", "by words only")
}
