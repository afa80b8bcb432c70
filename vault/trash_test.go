package vault

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

func TestTrash_Delete(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"1_Projekte/Alt.md": "# Alt\n", "1_Projekte/Neu.md": "x"})
	var notified []string
	v.OnChange(func(p ...string) { notified = append(notified, p...) })
	ver := wVersion(t, dir, "1_Projekte/Alt.md")
	res, err := v.Delete("1_Projekte/Alt", WriteOpts{Summary: "project done", Actor: "mcp:stdio", ExpectedVersion: ver[:12]})
	if err != nil {
		t.Fatal(err)
	}
	if res.TrashPath != ".trash/1_Projekte/Alt.md" || res.Before != ver || res.After != "" || res.Note != nil ||
		res.Detail != "moved to trash as .trash/1_Projekte/Alt.md" || res.ChangeID == "" {
		t.Errorf("result: got %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "1_Projekte/Alt.md")); !os.IsNotExist(err) {
		t.Errorf("note still there: %v", err)
	}
	if got := wRead(t, dir, ".trash/1_Projekte/Alt.md"); got != "# Alt\n" {
		t.Errorf("trash: got %q", got)
	}
	if strings.Join(notified, ",") != "1_Projekte/Alt.md" {
		t.Errorf("OnChange: got %q", notified)
	}
	entries, err := v.Trash()
	if err != nil || len(entries) != 1 {
		t.Fatalf("Trash: got %+v, %v", entries, err)
	}
	e := entries[0]
	if e.TrashPath != res.TrashPath || e.OriginalPath != "1_Projekte/Alt.md" || e.Actor != "mcp:stdio" ||
		e.Summary != "project done" || e.Version != ver || time.Since(e.DeletedAt) > time.Minute {
		t.Errorf("trash entry: got %+v", e)
	}
	h, _ := v.History(HistoryFilter{Path: "1_Projekte/Alt.md"})
	if len(h) != 1 || h[0].Op != "delete" || h[0].Before != ver || h[0].After != "" || h[0].ID != res.ChangeID {
		t.Errorf("history: got %+v", h)
	}
	if b, err := v.Content(ver); err != nil || string(b) != "# Alt\n" {
		t.Errorf("deleted text not kept: %q, %v", b, err)
	}
}

func TestTrash_DeleteRefusals(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"N.md": "a\n", "real.md": "r\n"})
	_, err := v.Delete("N.md", wOpts("s"))
	wErr(t, err, note.ErrInvalid, "delete", "N.md")
	_, err = v.Delete("N.md", WriteOpts{Summary: "s", ExpectedVersion: note.Version([]byte("b\n"))})
	e := wErr(t, err, note.ErrConflict, "delete", "N.md")
	if e.Current != note.ShortVersion(wVersion(t, dir, "N.md")) {
		t.Errorf("got Current %q", e.Current)
	}
	_, err = v.Delete("Nope.md", WriteOpts{Summary: "s", ExpectedVersion: note.Version(nil)})
	wErr(t, err, note.ErrNotFound, "delete", "Nope.md")
	if runtime.GOOS != "windows" {
		os.Symlink("real.md", filepath.Join(dir, "L.md"))
		_, err = v.Delete("L.md", WriteOpts{Summary: "s", ExpectedVersion: wVersion(t, dir, "real.md")})
		wErr(t, err, note.ErrInvalid, "delete", "L.md")
	}
	if got := wRead(t, dir, "N.md"); got != "a\n" {
		t.Errorf("note changed: %q", got)
	}
}

// Nothing in the trash is overwritten: a second "Alt.md" becomes "Alt 2.md".
func TestTrash_DeleteNameTaken(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"A/Alt.md": "second\n", ".trash/A/Alt.md": "first\n"})
	res, err := v.Delete("A/Alt.md", WriteOpts{Summary: "s", ExpectedVersion: wVersion(t, dir, "A/Alt.md")})
	if err != nil {
		t.Fatal(err)
	}
	if res.TrashPath != ".trash/A/Alt 2.md" || wRead(t, dir, ".trash/A/Alt.md") != "first\n" || wRead(t, dir, ".trash/A/Alt 2.md") != "second\n" {
		t.Errorf("got %+v", res)
	}
	// The one Obsidian put there is listed too, without a reason.
	entries, _ := v.Trash()
	if len(entries) != 2 || entries[0].TrashPath != ".trash/A/Alt 2.md" || entries[1].OriginalPath != "A/Alt.md" || entries[1].Summary != "" {
		t.Errorf("Trash: got %+v", entries)
	}
}

func TestTrash_Restore(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"A/Alt.md": "old\n"})
	del := func() *Result {
		t.Helper()
		res, err := v.Delete("A/Alt.md", WriteOpts{Summary: "s", ExpectedVersion: wVersion(t, dir, "A/Alt.md")})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	// By trash path, to where it was.
	d := del()
	res, err := v.Restore(d.TrashPath, "", WriteOpts{Summary: "needed after all", Actor: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	if wRead(t, dir, "A/Alt.md") != "old\n" || res.Note.Path != "A/Alt.md" || res.After != note.Version([]byte("old\n")) ||
		res.Detail != "restored from .trash/A/Alt.md" {
		t.Errorf("got %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, ".trash/A/Alt.md")); !os.IsNotExist(err) {
		t.Errorf("still in the trash: %v", err)
	}
	if entries, _ := v.Trash(); len(entries) != 0 {
		t.Errorf("Trash after restore: got %+v", entries)
	}
	h, _ := v.History(HistoryFilter{Limit: 1})
	if h[0].Op != "restore" || h[0].Path != "A/Alt.md" || h[0].OldPath != ".trash/A/Alt.md" || h[0].Summary != "needed after all" {
		t.Errorf("history: got %+v", h[0])
	}

	// By original path, elsewhere.
	del()
	if _, err := v.Restore("A/Alt.md", "B/Wieder.md", wOpts("s")); err != nil {
		t.Fatal(err)
	}
	if wRead(t, dir, "B/Wieder.md") != "old\n" {
		t.Error("not restored to B/Wieder.md")
	}

	// A note in the way is never overwritten.
	wFiles(t, dir, map[string]string{"A/Alt.md": "new\n"})
	d = del()
	wFiles(t, dir, map[string]string{"A/Alt.md": "newer\n"})
	_, err = v.Restore(d.TrashPath, "", wOpts("s"))
	e := wErr(t, err, ErrExists, "restore", "A/Alt.md")
	if strings.Join(e.Alternatives, ",") != "A/Alt 2.md" {
		t.Errorf("got alternatives %q, want a free name", e.Alternatives)
	}
	if wRead(t, dir, "A/Alt.md") != "newer\n" || wRead(t, dir, d.TrashPath) != "new\n" {
		t.Error("restore overwrote a note or lost the trashed one")
	}

	_, err = v.Restore(".trash/A/Neu.md", "", wOpts("s"))
	e = wErr(t, err, note.ErrNotFound, "restore", ".trash/A/Neu.md")
	if strings.Join(e.Alternatives, ",") != ".trash/A/Alt.md" {
		t.Errorf("got alternatives %q, want the trash's notes", e.Alternatives)
	}
	_, err = v.Restore("Z/Nie.md", "", wOpts("s"))
	wErr(t, err, note.ErrNotFound, "restore", "Z/Nie.md")
	_, err = v.Restore(d.TrashPath, "", WriteOpts{})
	if !errors.Is(err, note.ErrInvalid) {
		t.Errorf("restore without summary: got %v", err)
	}
}
