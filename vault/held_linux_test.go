package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

// These tests put an in-place save at each moment of a write where one
// used to be lost, by the write's hook, with a writer in another
// goroutine (a lease makes no difference between processes and
// descriptors: held.go). inplace_test.go races real editor processes.

// inplaceWriter saves text into the file at p the way an in-place editor
// does: it opens the file for writing (truncating it when trunc is set),
// waits pause, truncates and writes. done is closed when it has closed the
// file.
func inplaceWriter(t *testing.T, p string, trunc bool, pause time.Duration, text string) (done chan struct{}) {
	t.Helper()
	done = make(chan struct{})
	flag := os.O_WRONLY
	if trunc {
		flag |= os.O_TRUNC
	}
	go func() {
		defer close(done)
		f, err := os.OpenFile(p, flag, 0)
		if err != nil {
			t.Errorf("writer: %v", err)
			return
		}
		time.Sleep(pause)
		if err := f.Truncate(0); err != nil {
			t.Errorf("writer: %v", err)
		}
		if _, err := f.WriteString(text); err != nil {
			t.Errorf("writer: %v", err)
		}
		f.Close()
	}()
	return done
}

// waitWriterIn waits until some program has the file at p open for
// writing, or waits in its open for a lease (a read lease is refused
// then), or the writer is done.
func waitWriterIn(t *testing.T, p string, done chan struct{}) {
	t.Helper()
	for {
		select {
		case <-done:
			return
		default:
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		s := leaseRead(f)
		f.Close()
		switch s {
		case leaseWriting:
			return
		case leaseUnknown:
			t.Skip("no leases on this file system")
		}
		time.Sleep(time.Millisecond)
	}
}

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

// A program opens the note for writing after the write's last look and
// before the exchange, and truncates and writes it a moment later. Its
// file is put back as the note before it goes on, and the append is
// recomputed on its save.
func TestEditors_HeldOpenBeforeExchange(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"N.md": editorNote()})
	p := filepath.Join(dir, "N.md")
	saved, _ := editorSave(editorNote(), 1)
	var done chan struct{}
	v.w.hook = func(step, name string) error {
		if step == "rename" && done == nil {
			done = inplaceWriter(t, p, false, 20*time.Millisecond, saved)
			waitWriterIn(t, p, done)
		}
		return nil
	}
	if _, err := v.Append("N.md", "", []byte("- agent"), wOpts("log")); err != nil {
		t.Fatal(err)
	}
	if done == nil {
		t.Fatal("the write never came to its publish")
	}
	<-done
	if got, want := wRead(t, dir, "N.md"), appended(t, saved, "- agent"); got != want {
		t.Errorf("the note ends %q; want the program's save with the append", got[max(0, len(got)-120):])
	}
	if temps := wTemps(t, dir); len(temps) != 0 {
		t.Errorf("temp files left: %q", temps)
	}
}

// A program opens the note for writing, truncating it, right after the
// exchange: the file it opens is vaultd's new one, and its save was made
// from the text before the append. It waits until the write has read the
// note back, then saves; the write waits for that save, records it whole
// (never the empty note the save goes through), and appends again to it.
func TestEditors_HeldOpenAfterExchange(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"N.md": editorNote()})
	p := filepath.Join(dir, "N.md")
	saved, _ := editorSave(editorNote(), 1)
	first := appended(t, editorNote(), "- agent")
	var done chan struct{}
	v.w.hook = func(step, name string) error {
		if step == "exchanged" && done == nil {
			done = inplaceWriter(t, p, true, 0, saved)
			waitWriterIn(t, p, done)
			// Where nothing holds it back, the save lands now.
			for i := 0; i < 20; i++ {
				if fi, err := os.Stat(p); err != nil || fi.Size() != int64(len(first)) {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
		return nil
	}
	res, err := v.Append("N.md", "", []byte("- agent"), wOpts("log"))
	if err != nil {
		t.Fatal(err)
	}
	if done == nil {
		t.Fatal("the write never came to its exchange")
	}
	<-done
	want := appended(t, saved, "- agent")
	if got := wRead(t, dir, "N.md"); got != want {
		t.Errorf("the note ends %q; want the program's save with the append", got[max(0, len(got)-120):])
	}
	if res.After != note.Version([]byte(want)) || !strings.Contains(res.Detail, "appended again") {
		t.Errorf("the append reported version %.12s, %q; want %.12s, appended again", res.After, res.Detail, note.Version([]byte(want)))
	}
	h, err := v.History(HistoryFilter{Path: "N.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(h) - 1; i >= 0; i-- {
		got = append(got, h[i].Op+" "+h[i].After[:12])
	}
	wantH := []string{
		"append " + note.Version([]byte(first))[:12],
		"external " + note.Version([]byte(saved))[:12],
		"append " + note.Version([]byte(want))[:12],
	}
	if strings.Join(got, ", ") != strings.Join(wantH, ", ") {
		t.Errorf("history: %q, want %q", got, wantH)
	}
}

// A program that looked the note's name up before the exchange reaches
// its open only as the displaced file is removed: its save goes into a file
// that is no longer the note. It is waited for and put back as the note,
// and the append is recomputed on it.
func TestEditors_HeldOpenAsDisplacedRemoved(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"N.md": editorNote()})
	saved, _ := editorSave(editorNote(), 1)
	var done chan struct{}
	v.w.hook = func(step, name string) error {
		if step == "remove-displaced" && done == nil {
			temps := wTemps(t, dir)
			if len(temps) != 1 {
				t.Fatalf("temp files at the removal: %q, want the displaced one", temps)
			}
			done = inplaceWriter(t, temps[0], true, 0, saved)
			waitWriterIn(t, temps[0], done)
		}
		return nil
	}
	if _, err := v.Append("N.md", "", []byte("- agent"), wOpts("log")); err != nil {
		t.Fatal(err)
	}
	if done == nil {
		t.Fatal("the write never came to the removal of the displaced file")
	}
	<-done
	if got, want := wRead(t, dir, "N.md"), appended(t, saved, "- agent"); got != want {
		t.Errorf("the note ends %q; want the program's save with the append", got[max(0, len(got)-120):])
	}
	if temps := wTemps(t, dir); len(temps) != 0 {
		t.Errorf("temp files left: %q", temps)
	}
}
