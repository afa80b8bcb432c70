package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

func TestUndo_EditCreateDelete(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"A.md": "# A\n", "B.md": "b\n"})
	r, err := v.Append("A.md", "", []byte("mehr"), wOpts("mehr"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := v.Undo(r.ChangeID, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if u.Op != "replace" || wRead(t, dir, "A.md") != "# A\n" || !strings.HasPrefix(u.Result.Detail, "note replaced") {
		t.Errorf("undo append: %+v, A.md %q", u, wRead(t, dir, "A.md"))
	}
	h, _ := v.History(HistoryFilter{Limit: 1})
	if want := "undo of change " + r.ChangeID + ": mehr"; h[0].Summary != want {
		t.Errorf("summary: got %q, want %q", h[0].Summary, want)
	}

	c, err := v.Create("C.md", []byte("c\n"), wOpts("neu"))
	if err != nil {
		t.Fatal(err)
	}
	if u, err := v.Undo(c.ChangeID[:20], WriteOpts{Summary: "doch nicht"}); err != nil || u.Op != "delete" {
		t.Fatalf("undo create: %+v, %v", u, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "C.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("C.md still there")
	}

	d, err := v.Delete("B.md", WriteOpts{Summary: "weg", ExpectedVersion: wVersion(t, dir, "B.md")})
	if err != nil {
		t.Fatal(err)
	}
	if u, err := v.Undo(d.ChangeID, WriteOpts{}); err != nil || u.Op != "restore" || wRead(t, dir, "B.md") != "b\n" {
		t.Fatalf("undo delete: %+v, %v", u, err)
	}
}

func TestUndo_RefusedWhenChangedSince(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"A.md": "# A\n"})
	r1, _ := v.Append("A.md", "", []byte("eins"), wOpts("eins"))
	r2, _ := v.Append("A.md", "", []byte("zwei"), WriteOpts{Summary: "zwei", Actor: "mcp:cursor"})
	_, err := v.Undo(r1.ChangeID, WriteOpts{})
	e := wErr(t, err, note.ErrConflict, "undo", "A.md")
	if len(e.Alternatives) != 1 || !strings.HasPrefix(e.Alternatives[0], r2.ChangeID) || !strings.Contains(e.Alternatives[0], "by mcp:cursor: append A.md — zwei") {
		t.Errorf("changes since: %q", e.Alternatives)
	}
	if e.Expected != note.ShortVersion(r1.After) || e.Current != note.ShortVersion(r2.After) {
		t.Errorf("versions: %+v", e)
	}
	// Changed outside vaultd: said so.
	os.WriteFile(filepath.Join(dir, "A.md"), []byte("von Hand\n"), 0o644)
	_, err = v.Undo(r2.ChangeID, WriteOpts{})
	if e := wErr(t, err, note.ErrConflict, "undo", "A.md"); !strings.Contains(e.Msg, "changed outside vaultd since") {
		t.Errorf("got %v", err)
	}
	if _, err := v.Undo("20990101T", WriteOpts{}); !errors.Is(err, note.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}

func TestUndo_Move(t *testing.T) {
	v, dir := wOpen(t, map[string]string{
		"A/Plan.md":      "[[Ref]]\n",
		"A/Plan/Teil.md": "t\n",
		"Ref.md":         "[[A/Plan]] [[A/Plan/Teil]]\n",
		"F/x.md":         "[[F/y]]\n",
		"F/y.md":         "y\n",
	})
	m := mMove(t, v, dir, "A/Plan.md", "B/Neu.md")
	if wRead(t, dir, "Ref.md") != "[[B/Neu]] [[B/Neu/Teil]]\n" {
		t.Fatalf("Ref.md after the move: %q", wRead(t, dir, "Ref.md"))
	}
	u, err := v.Undo(m.ChangeID, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if u.Op != "move" || u.Move.To != "A/Plan.md" || wRead(t, dir, "Ref.md") != "[[A/Plan]] [[A/Plan/Teil]]\n" || wRead(t, dir, "A/Plan/Teil.md") != "t\n" {
		t.Errorf("undo move: %+v; Ref.md %q", u.Move, wRead(t, dir, "Ref.md"))
	}
	// A folder, undone by the id of one of its records; the old name taken
	// by a new folder meanwhile: refused, not moved into it.
	f := mMove(t, v, dir, "F", "G")
	h, _ := v.History(HistoryFilter{Limit: 1})
	wFiles(t, dir, map[string]string{"F/neu.md": "n\n"})
	if _, err := v.Undo(h[0].ID, WriteOpts{}); !errors.Is(err, ErrExists) {
		t.Errorf("undo into a taken name: %v", err)
	}
	os.RemoveAll(filepath.Join(dir, "F"))
	if u, err := v.Undo(f.ChangeID, WriteOpts{}); err != nil || u.Move.To != "F" || wRead(t, dir, "F/x.md") != "[[F/y]]\n" {
		t.Errorf("undo folder move: %+v, %v", u, err)
	}
}

// trash empty promises that a note deleted through vaultd can still come
// back: undo of the delete brings its text back from the content store.
func TestUndo_DeleteAfterTrashEmptied(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"B.md": "b\n"})
	d, err := v.Delete("B.md", WriteOpts{Summary: "weg", ExpectedVersion: wVersion(t, dir, "B.md")})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := v.EmptyTrash(0); err != nil || len(rep.Removed) != 1 {
		t.Fatalf("empty trash: %+v, %v", rep, err)
	}
	u, err := v.Undo(d.ChangeID, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if u.Op != "create" || wRead(t, dir, "B.md") != "b\n" || !strings.Contains(u.Result.Detail, "trash was emptied") {
		t.Errorf("undo delete after trash empty: %+v, B.md %q", u, wRead(t, dir, "B.md"))
	}
	// The path is taken again: the undo refuses and overwrites nothing.
	d2, err := v.Delete("B.md", WriteOpts{Summary: "weg", ExpectedVersion: wVersion(t, dir, "B.md")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.EmptyTrash(0); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Create("B.md", []byte("neu\n"), wOpts("neu")); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Undo(d2.ChangeID, WriteOpts{}); err == nil || wRead(t, dir, "B.md") != "neu\n" {
		t.Errorf("undo onto a taken path: %v, B.md %q", err, wRead(t, dir, "B.md"))
	}
}
