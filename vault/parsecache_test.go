package vault

import (
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

// TestParseCache_SameBytesOneParse: notes with the same bytes share one
// Doc; other bytes get their own.
func TestParseCache_SameBytesOneParse(t *testing.T) {
	src := []byte("---\ntags: [a]\n---\n# Titel\n\n## Ziele\ntext [[Link]] #tag\n")
	n1 := NewNote("a.md", src, time.Time{}, int64(len(src)))
	n2 := NewNote("b.md", append([]byte(nil), src...), time.Time{}, int64(len(src)))
	if n1.Doc != n2.Doc {
		t.Errorf("two reads of the same bytes: got two Docs, want one shared")
	}
	if n1.Title != "Titel" || n2.Path != "b.md" || n1.Version != note.Version(src) {
		t.Errorf("got title %q, path %q, version %q; want Titel, b.md, %s", n1.Title, n2.Path, n1.Version, note.Version(src))
	}
	other := append(append([]byte(nil), src...), "mehr\n"...)
	if n3 := NewNote("a.md", other, time.Time{}, int64(len(other))); n3.Doc == n1.Doc || string(n3.Doc.Src) != string(other) {
		t.Errorf("other bytes: got the cached Doc of %q, want a Doc of %q", n1.Doc.Src, other)
	}
}
