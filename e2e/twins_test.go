package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Notes git brought in twice, once with a composed and once with a
// decomposed name (Linux keeps both): an agent on the Go MCP client sees
// both, writes to the one whose exact path it sends, and a spelling that
// matches both is refused with both listed; the binary's stdio carries
// the bytes unchanged both ways.
func TestTwins_OverMCP(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "vault")
	nfc, nfd := "Team/Caf\u00e9.md", "Team/Cafe\u0301.md"
	for p, s := range map[string]string{nfc: "# composed\n", nfd: "# decomposed\n"} {
		os.MkdirAll(filepath.Join(dir, "Team"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := serve(t, dir, "")
	list := s.mustOK("list_notes", map[string]any{"folder": "Team"})
	if !strings.Contains(list, "path: "+nfd+"\n") || !strings.Contains(list, "path: "+nfc+"\n") || !strings.Contains(list, "is stored decomposed (with the combining U+0301)") {
		t.Fatalf("list_notes:\n%s", list)
	}
	s.mustOK("append_to_note", map[string]any{"path": nfd, "content": "- d", "change_summary": "d"})
	if got := noteText(t, dir, nfd); got != "# decomposed\n\n- d\n" {
		t.Errorf("the decomposed note: %q", got)
	}
	if got := noteText(t, dir, nfc); got != "# composed\n" {
		t.Errorf("the composed note was written: %q", got)
	}
	r := s.call("append_to_note", map[string]any{"path": "team/CAFÉ.md", "content": "- x", "change_summary": "x"})
	if !r.IsError || !strings.Contains(r.Text, "error code: ambiguous") || !strings.Contains(r.Text, `- read_note {"path": "`+nfd+`"}`) || !strings.Contains(r.Text, `- read_note {"path": "`+nfc+`"}`) {
		t.Errorf("append to a spelling of both:\n%s", r.Text)
	}
	read := s.mustOK("read_note", map[string]any{"path": nfc})
	if !strings.Contains(read, "# composed") {
		t.Errorf("read_note of the composed note:\n%s", read)
	}
}
