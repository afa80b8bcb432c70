package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

// These tests put an in-place save at a moment of a write where one used
// to be lost, with a writer in another goroutine (a lease makes no
// difference between processes and descriptors: held.go).

// appended is the note's text after an append of line at its end.
func appended(t *testing.T, text, line string) string {
	t.Helper()
	b, _, err := note.AppendText([]byte(text), "", []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An in-place save that pauses after a piece ending at a line end: the
// note reads as a complete, shorter text. The append waits for the whole
// save and builds on it.
func TestEditors_HeldPauseAtLineEnd(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"N.md": editorNote()})
	whole, _ := editorSave(editorNote(), 1)
	cut := len(whole)/2 + strings.IndexByte(whole[len(whole)/2:], '\n') + 1
	f, err := os.OpenFile(filepath.Join(dir, "N.md"), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(whole[:cut]); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(300 * time.Millisecond) // the editor waits on the disk
		f.WriteString(whole[cut:])
		f.Close()
	}()
	if _, err := v.Append("N.md", "", []byte("- agent"), wOpts("log")); err != nil {
		t.Fatal(err)
	}
	<-done
	if got, want := wRead(t, dir, "N.md"), appended(t, whole, "- agent"); got != want {
		t.Errorf("the note has %d bytes, want the editor's whole save (%d) and the append (%d); it ends %q", len(got), len(whole), len(want), got[max(0, len(got)-120):])
	}
}
