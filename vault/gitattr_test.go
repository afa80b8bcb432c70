package vault

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pushAs commits files (path → bytes) in clone dir as a teammate using
// plain git, and pushes.
func pushAs(t *testing.T, dir string, files map[string]string, msg string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p := range files {
		gitRun(t, dir, "add", "--", p) // only these: git would re-read the others under the new attributes
	}
	gitRun(t, dir, "commit", "-q", "-m", msg)
	gitRun(t, dir, "push", "-q")
}

func notice(r *SyncReport, attr string) *AttrNotice {
	for i := range r.Attributes {
		if r.Attributes[i].Attr == attr {
			return &r.Attributes[i]
		}
	}
	return nil
}

// A teammate commits "*.md working-tree-encoding=UTF-16LE-BOM" with a
// note their git wrote as UTF-16: vaultd's sync merges it, and the note
// in the clone vaultd serves is the UTF-8 text committed — editable; the
// round says what .gitattributes sets and that it is not in effect here.
func TestSync_TeamEncodingKeptOut(t *testing.T) {
	_, a, b := gitClones(t, map[string]string{"Log.md": "# Log\n\n- start\n", "Ruhig.md": "# Ruhig\n"})
	pushAs(t, b, map[string]string{
		".gitattributes": "*.md working-tree-encoding=UTF-16LE-BOM\n",
		"Log.md":         u16("# Log\n\n- start\n- von Ben\n", true, false),
		"Neu.md":         u16("# Neu\n\nvon Ben\n", true, false),
	}, "Notizen als UTF-16")
	va := gitOpen(t, a)
	r := va.Sync(context.Background())
	if !r.OK() || !strings.Contains(r.Merged, "1 commit from origin/main") {
		t.Fatalf("round: %+v", r)
	}
	for p, want := range map[string]string{"Log.md": "# Log\n\n- start\n- von Ben\n", "Neu.md": "# Neu\n\nvon Ben\n", "Ruhig.md": "# Ruhig\n"} {
		if got := wRead(t, a, p); got != want {
			t.Errorf("%s in the clone vaultd serves: %q, want the UTF-8 text %q", p, got, want)
		}
	}
	n := notice(r, "working-tree-encoding=UTF-16LE-BOM")
	if n == nil || n.Notes != 3 || !n.Kept || !strings.Contains(n.Here, "vaultd keeps them UTF-8 in this clone (.git/info/attributes)") {
		t.Fatalf("attributes: %+v", r.Attributes)
	}
	if !strings.Contains(r.Text(), ".gitattributes sets working-tree-encoding=UTF-16LE-BOM (not in effect here) on notes") {
		t.Errorf("text: %s", r.Text())
	}
	if last, _ := va.LastSync(); len(last.Attributes) != 1 {
		t.Errorf("LastSync: %+v", last)
	}
	if st := gitRun(t, a, "status", "--porcelain"); st != "" {
		t.Errorf("status: %q", st)
	}
	if _, err := va.Append("Log.md", "", []byte("- von Anna"), wOpts("Anna")); err != nil {
		t.Fatal(err)
	}
	if r := va.Sync(context.Background()); !r.OK() || r.Pushed != "1 commit to origin/main" {
		t.Fatalf("second round: %+v", r)
	}
	if got := gitRun(t, a, "show", "origin/main:Log.md"); got != "# Log\n\n- start\n- von Ben\n\n- von Anna" {
		t.Errorf("committed: %q", got)
	}
}

// Notes git wrote as UTF-16 before vaultd's lines were in effect (the
// owner's own git pull) are turned back into the UTF-8 text committed —
// only where that is exactly their text: one edited since stays as it is.
func TestSync_RestoresNotesGitEncoded(t *testing.T) {
	_, a, _ := gitClones(t, map[string]string{"Log.md": "# Log\n\n- start\n", "Mein.md": "# Mein\n"})
	os.WriteFile(filepath.Join(a, ".gitattributes"), []byte("*.md working-tree-encoding=UTF-16LE-BOM\n"), 0o644)
	gitRun(t, a, "add", ".gitattributes")
	gitRun(t, a, "commit", "-qm", "UTF-16")
	for _, p := range []string{"Log.md", "Mein.md"} {
		os.Remove(filepath.Join(a, p))
		gitRun(t, a, "checkout", "--", p)
	}
	if got := wRead(t, a, "Log.md"); got != u16("# Log\n\n- start\n", true, false) {
		t.Fatalf("setup: git wrote %q", got)
	}
	os.WriteFile(filepath.Join(a, "Mein.md"), []byte(u16("# Mein\n\nneu\n", true, false)), 0o644) // edited since
	va := gitOpen(t, a)
	r := va.Sync(context.Background())
	if len(r.Restored) != 1 || r.Restored[0] != "Log.md" || !strings.Contains(r.Text(), "turned 1 note git had written in another encoding back into the UTF-8 text committed (Log.md)") {
		t.Fatalf("round: %+v", r)
	}
	if got := wRead(t, a, "Log.md"); got != "# Log\n\n- start\n" {
		t.Errorf("Log.md: %q", got)
	}
	if got := wRead(t, a, "Mein.md"); got != u16("# Mein\n\nneu\n", true, false) {
		t.Errorf("Mein.md was changed: %q", got)
	}
	if h, _ := va.History(HistoryFilter{Path: "Log.md", Limit: 1}); len(h) != 1 || h[0].Actor != "vaultd" || !strings.Contains(h[0].Summary, "back to UTF-8 as committed") {
		t.Errorf("history: %+v", h)
	}
}

// A teammate commits "*.md merge=binary" (or union, or -merge): where
// this clone registered vaultd's merge driver, it still merges the notes
// (its line in .git/info/attributes wins), and the round says so.
func TestSync_TeamMergeAttrKeptOut(t *testing.T) {
	for _, line := range []string{"*.md merge=binary", "*.md binary", "*.md -merge", "*.md merge=union", "Team/** merge=text"} {
		t.Run(line, func(t *testing.T) {
			_, a, b := gitClones(t, map[string]string{"Team/Log.md": "# Log\n\n- start\n"})
			// A stand-in for vaultd's driver that git's own merges cannot
			// pass for: it merges by union and says so in the note.
			gitRun(t, a, "config", "merge.vaultd.driver", `git merge-file --union %A %O %B && echo "(vaultd)" >> %A`)
			pushAs(t, b, map[string]string{".gitattributes": line + "\n", "Team/Log.md": "# Log\n\n- start\n- Ben\n"}, "Ben")
			va := gitOpen(t, a)
			if _, err := va.Append("Team/Log.md", "", []byte("- Anna"), wOpts("Anna")); err != nil {
				t.Fatal(err)
			}
			r := va.Sync(context.Background())
			if !r.OK() || len(r.Conflicts) != 0 || r.Pushed == "" {
				t.Fatalf("round: %+v", r)
			}
			if got := wRead(t, a, "Team/Log.md"); !strings.HasSuffix(got, "(vaultd)\n") || !strings.Contains(got, "- Ben") || !strings.Contains(got, "- Anna") {
				t.Errorf("merged: %q", got)
			}
			if len(r.Attributes) == 0 || !r.Attributes[0].Kept || !strings.HasPrefix(r.Attributes[0].Here, "vaultd's merge driver merges them in this clone") {
				t.Errorf("attributes: %+v", r.Attributes)
			}
		})
	}
}

// Attributes vaultd leaves in effect are reported with what they do;
// attributes of other files are not.
func TestNoteAttributes_Reported(t *testing.T) {
	dir := gitRepo(t, map[string]string{"A.md": "a\n", "Team/B.md": "b\n", "Bild.png": "x",
		".gitattributes": "*.md eol=crlf ident\nTeam/*.md filter=lfs conflict-marker-size=12\n*.png filter=lfs -text\n"})
	v := gitOpen(t, dir)
	got, err := v.NoteAttributes()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		notes int
		kept  bool
		in    string
	}{
		"conflict-marker-size=12": {1, true, "vaultd keeps git's 7-character markers"},
		"eol=crlf":                {2, false, "with CRLF line endings"},
		"ident":                   {2, false, "$Id$"},
		"filter=lfs":              {1, false, "pointer files"},
	}
	for _, n := range got {
		w, ok := want[n.Attr]
		if !ok {
			t.Errorf("unexpected notice %+v", n)
			continue
		}
		delete(want, n.Attr)
		if n.Notes != w.notes || n.Kept != w.kept || !strings.Contains(n.Text(), w.in) {
			t.Errorf("%s: %+v (%s)", n.Attr, n, n.Text())
		}
	}
	for a := range want {
		t.Errorf("no notice for %s: %+v", a, got)
	}
	if !got[0].Kept {
		t.Errorf("what vaultd overrides comes first: %+v", got)
	}
}

// vaultd's lines in .git/info/attributes are kept up to date without
// touching the owner's own lines there.
func TestKeepNoteAttrs(t *testing.T) {
	dir := gitRepo(t, map[string]string{"A.md": "a\n"})
	v := gitOpen(t, dir)
	info := filepath.Join(dir, ".git", "info", "attributes")
	os.WriteFile(info, []byte("*.pdf -diff\n"), 0o644)
	if changed, err := v.keepNoteAttrs(false); err != nil || !changed {
		t.Fatalf("first: %v %v", changed, err)
	}
	if changed, _ := v.keepNoteAttrs(false); changed {
		t.Error("second call changed the file again")
	}
	if changed, _ := v.keepNoteAttrs(true); !changed {
		t.Error("the driver's line was not added")
	}
	got := wRead(t, dir, ".git/info/attributes")
	want := "*.pdf -diff\n" + infoAttrBegin + "\n*.[mM][dD] -working-tree-encoding -conflict-marker-size\n*.[mM][dD] merge=vaultd\n" + infoAttrEnd + "\n"
	if got != want {
		t.Errorf("info/attributes:\n%s\nwant:\n%s", got, want)
	}
	if out := gitRun(t, dir, "check-attr", "merge", "working-tree-encoding", "--", "X.MD"); out != "X.MD: merge: vaultd\nX.MD: working-tree-encoding: unset" {
		t.Errorf("check-attr: %q", out)
	}
}

// A vault in a folder of a bigger repository: vaultd's lines cover its
// notes, not the repository's other markdown files — also for a folder
// with spaces and wildcard characters in its name.
func TestKeepNoteAttrs_VaultInAFolder(t *testing.T) {
	for _, folder := range []string{"Notizen", "Meine Notizen [alt]"} {
		dir := gitRepo(t, map[string]string{"README.md": "r\n", folder + "/A.md": "a\n", folder + "/Sub/B.MD": "b\n"})
		v := gitOpen(t, filepath.Join(dir, folder))
		if _, err := v.keepNoteAttrs(true); err != nil {
			t.Fatal(err)
		}
		for p, want := range map[string]string{"README.md": "unspecified", folder + "/A.md": "vaultd", folder + "/Sub/B.MD": "vaultd", "Other/C.md": "unspecified"} {
			if got := gitRun(t, dir, "check-attr", "merge", "--", p); got != p+": merge: "+want {
				t.Errorf("%s: %q, want merge %s\n%s", p, got, want, wRead(t, dir, ".git/info/attributes"))
			}
		}
	}
}
