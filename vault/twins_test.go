package vault

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/vaultd/vaultd/note"
)

const (
	cafeNFC = "Caf\u00e9"  // é composed
	cafeNFD = "Cafe\u0301" // e + combining acute
)

// wantText checks a file's bytes.
func wantText(t *testing.T, dir, p, want string) {
	t.Helper()
	if got := wRead(t, dir, p); got != want {
		t.Errorf("%+q: %q, want %q", p, got, want)
	}
}

// Two notes whose names differ only in Unicode normalisation, as git
// brings them in on Linux: each is listed, read, written, deleted and
// moved by its exact path and never through the other's; a spelling that
// matches both is refused with both listed; their histories stay apart.
func TestTwins_NFCAndNFD(t *testing.T) {
	nfc, nfd := "Team/"+cafeNFC+".md", "Team/"+cafeNFD+".md"
	v, dir := wOpen(t, map[string]string{nfc: "# composed\n", nfd: "# decomposed\n", "Team/Other.md": "x\n"})

	notes, err := v.Notes()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, n := range notes {
		paths = append(paths, n.Path+"="+n.Title)
	}
	sort.Strings(paths)
	if want := []string{nfd + "=decomposed", nfc + "=composed", "Team/Other.md=Other"}; strings.Join(paths, "|") != strings.Join(want, "|") {
		t.Fatalf("notes: %+q, want %+q", paths, want)
	}
	for p, want := range map[string]string{nfc: "composed", nfd: "decomposed"} {
		n, err := v.Read(p)
		if err != nil || n.Title != want || n.Path != p {
			t.Errorf("Read(%+q): %+v, %v", p, n, err)
		}
		f, _, err := v.Find(p)
		if err != nil || f.Title != want || f.Path != p {
			t.Errorf("Find(%+q): %+v, %v", p, f, err)
		}
	}

	r, err := v.Append(nfd, "", []byte("- d"), wOpts("d"))
	if err != nil || r.Note.Path != nfd {
		t.Fatalf("append to the NFD twin: %+v, %v", r, err)
	}
	wantText(t, dir, nfd, "# decomposed\n\n- d\n")
	wantText(t, dir, nfc, "# composed\n")
	if _, err := v.Append(nfc, "", []byte("- c"), wOpts("c")); err != nil {
		t.Fatal(err)
	}
	wantText(t, dir, nfc, "# composed\n\n- c\n")
	wantText(t, dir, nfd, "# decomposed\n\n- d\n")

	// Spellings that match both: refused, both listed, nothing written.
	for _, p := range []string{"team/" + cafeNFC + ".md", "TEAM/CAFE\u0301.md", "Team/caf\u00e9"} {
		_, err := v.Append(p, "", []byte("- x"), wOpts("x"))
		e := wErr(t, err, note.ErrAmbiguous, "append", norm.NFC.String(strings.TrimSuffix(p, ".md")+".md"))
		if len(e.Alternatives) != 2 || e.Alternatives[0] != nfd || e.Alternatives[1] != nfc {
			t.Errorf("append %+q: alternatives %+q", p, e.Alternatives)
		}
		if _, err := v.Read(p); !errors.Is(err, note.ErrAmbiguous) {
			t.Errorf("read %+q: %v, want ambiguous", p, err)
		}
		if _, _, err := v.Find(p); !errors.Is(err, note.ErrAmbiguous) {
			t.Errorf("find %+q: %v, want ambiguous", p, err)
		}
	}
	wantText(t, dir, nfc, "# composed\n\n- c\n")
	wantText(t, dir, nfd, "# decomposed\n\n- d\n")
	if _, _, err := v.Find(cafeNFC); !errors.Is(err, note.ErrAmbiguous) {
		t.Errorf("find by name: %v, want ambiguous", err)
	}

	// Histories stay apart.
	for p, want := range map[string]string{nfc: "c", nfd: "d"} {
		h, err := v.History(HistoryFilter{Path: p})
		if err != nil || len(h) != 1 || h[0].Summary != want || h[0].Path != p {
			t.Errorf("history of %+q: %+v, %v", p, h, err)
		}
		nh, err := v.NoteHistory(p, HistoryQuery{})
		if err != nil || nh.Path != p || len(nh.Entries) == 0 || nh.Entries[0].Summary != want {
			t.Errorf("note history of %+q: %+v, %v", p, nh, err)
		}
	}

	// Delete the NFD twin: the other stays. Its undo would make the twin
	// again, which vaultd does not; it comes back under another name, and
	// the same for a move back.
	d, err := v.Delete(nfd, WriteOpts{Summary: "weg", ExpectedVersion: wVersion(t, dir, nfd)})
	if err != nil {
		t.Fatal(err)
	}
	wantText(t, dir, nfc, "# composed\n\n- c\n")
	if _, err := os.Stat(filepath.Join(dir, nfd)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the NFD twin is still there: %v", err)
	}
	if _, err := v.Undo(d.ChangeID, WriteOpts{}); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "differs from this one only in Unicode normalisation") {
		t.Fatalf("undo of the delete: %v, want the twin refused", err)
	}
	if _, err := v.Restore(d.TrashPath, "Team/Zerlegt.md", wOpts("zurück")); err != nil {
		t.Fatal(err)
	}
	wantText(t, dir, "Team/Zerlegt.md", "# decomposed\n\n- d\n")
	wantText(t, dir, nfc, "# composed\n\n- c\n")

	wFiles(t, dir, map[string]string{nfd: "# wieder\n"})
	m, err := v.Move(nfd, "Team/Cafe (zerlegt).md", WriteOpts{Summary: "umbenannt", ExpectedVersion: wVersion(t, dir, nfd)})
	if err != nil {
		t.Fatal(err)
	}
	wantText(t, dir, "Team/Cafe (zerlegt).md", "# wieder\n")
	wantText(t, dir, nfc, "# composed\n\n- c\n")
	if _, err := v.Undo(m.ChangeID, WriteOpts{}); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "differs from this one only in Unicode normalisation") {
		t.Fatalf("undo of the move: %v, want the twin refused", err)
	}
}

// Folders whose names differ only in normalisation, and twins that also
// differ in case.
func TestTwins_FoldersAndCase(t *testing.T) {
	a, b := cafeNFC+"/x.md", cafeNFD+"/x.md"
	v, dir := wOpen(t, map[string]string{a: "# a\n", b: "# b\n", "Team/caf\u00e9.md": "# lower nfc\n", "Team/CAFE\u0301.md": "# upper nfd\n"})
	for p, want := range map[string]string{a: "a", b: "b", "Team/caf\u00e9.md": "lower nfc", "Team/CAFE\u0301.md": "upper nfd"} {
		if n, err := v.Read(p); err != nil || n.Title != want || n.Path != p {
			t.Errorf("Read(%+q): %+v, %v", p, n, err)
		}
	}
	if _, err := v.Append(b, "", []byte("- b"), wOpts("b")); err != nil {
		t.Fatal(err)
	}
	wantText(t, dir, b, "# b\n\n- b\n")
	wantText(t, dir, a, "# a\n")
	var paths []string
	v.Walk(func(e Entry) error { paths = append(paths, e.Path); return nil })
	if want := []string{cafeNFD + "/x.md", cafeNFC + "/x.md", "Team/CAFE\u0301.md", "Team/caf\u00e9.md"}; strings.Join(paths, "|") != strings.Join(want, "|") {
		t.Errorf("walk: %+q, want %+q", paths, want)
	}
	for _, p := range []string{"Team/Caf\u00e9.md", "Team/Cafe\u0301.md", "CAFÉ/x.md"} {
		_, err := v.Append(p, "", []byte("- x"), wOpts("x"))
		if e, ok := note.AsError(err); !ok || !errors.Is(err, note.ErrAmbiguous) || len(e.Alternatives) != 2 {
			t.Errorf("append %+q: %v, want ambiguous between two", p, err)
		}
	}
}

// Names that differ in compatibility characters are different names: each
// is reached by its spelling; a spelling that folds to both is ambiguous.
func TestTwins_CompatibilityCharactersAreNames(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"Team/\ufb01le.md": "# ligature\n", "Team/file.md": "# plain\n", "Team/x\u00b2.md": "# squared\n"})
	for p, want := range map[string]string{"Team/\ufb01le.md": "ligature", "Team/file.md": "plain", "Team/x\u00b2.md": "squared"} {
		if n, err := v.Read(p); err != nil || n.Title != want {
			t.Errorf("Read(%+q): %+v, %v", p, n, err)
		}
	}
	if _, err := v.Read("Team/x2.md"); !errors.Is(err, note.ErrNotFound) {
		t.Errorf("x2 for x²: %v, want not found", err)
	}
	if _, err := v.Append("Team/FILE.md", "", []byte("- x"), wOpts("x")); !errors.Is(err, note.ErrAmbiguous) {
		t.Errorf("FILE.md: %v, want ambiguous (case folding turns ﬁ into fi)", err)
	}
	if _, err := v.Append("Team/file.md", "", []byte("- p"), wOpts("p")); err != nil {
		t.Fatal(err)
	}
	wantText(t, dir, "Team/\ufb01le.md", "# ligature\n")
}

// Case twins: a spelling that is neither is refused for writes too (it
// used to reach the first in the folder's order).
func TestTwins_CaseWritesRefused(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"Team/Note.md": "# upper\n", "Team/note.md": "# lower\n"})
	for _, w := range []func() error{
		func() error { _, err := v.Append("Team/NOTE.md", "", []byte("- x"), wOpts("x")); return err },
		func() error {
			_, err := v.UpdateSection("Team/NOTE.md", "upper", []byte("x"), wOpts("x"))
			return err
		},
		func() error {
			_, _, err := v.AddTags("team/NOTE", []string{"x"}, wOpts("x"))
			return err
		},
		func() error {
			_, err := v.Delete("TEAM/NOTE.md", WriteOpts{Summary: "x", ExpectedVersion: wVersion(t, dir, "Team/Note.md")})
			return err
		},
	} {
		err := w()
		if e, ok := note.AsError(err); !ok || !errors.Is(err, note.ErrAmbiguous) || strings.Join(e.Alternatives, "|") != "Team/Note.md|Team/note.md" {
			t.Errorf("got %v, want ambiguous between both", err)
		}
	}
	wantText(t, dir, "Team/Note.md", "# upper\n")
	wantText(t, dir, "Team/note.md", "# lower\n")
	if _, err := v.Append("Team/note.md", "", []byte("- l"), wOpts("l")); err != nil {
		t.Fatal(err)
	}
	wantText(t, dir, "Team/note.md", "# lower\n\n- l\n")
	wantText(t, dir, "Team/Note.md", "# upper\n")
}

// A merge conflict in one of two twins is that twin's: reported for it
// alone, and resolved (and staged in git) through its exact path.
func TestTwins_GitConflictOfOne(t *testing.T) {
	nfc, nfd := "Team/"+cafeNFC+".md", "Team/"+cafeNFD+".md"
	dir := gitRepo(t, map[string]string{nfc: "# composed\n", nfd: "# decomposed\n\n- a\n"})
	gitRun(t, dir, "checkout", "-q", "-b", "ben")
	wFiles(t, dir, map[string]string{nfd: "# decomposed\n\n- ben\n"})
	gitRun(t, dir, "commit", "-qam", "Ben")
	gitRun(t, dir, "checkout", "-q", "main")
	wFiles(t, dir, map[string]string{nfd: "# decomposed\n\n- anna\n"})
	gitRun(t, dir, "commit", "-qam", "Anna")
	gitCmd(dir, "merge", "ben").Run()
	v := gitOpen(t, dir)
	if c := v.ConflictAt(nfd); c == nil || !c.Unmerged {
		t.Fatalf("the decomposed twin: %+v", c)
	}
	if c := v.ConflictAt(nfc); c != nil {
		t.Fatalf("the composed twin reported in conflict: %+v", c)
	}
	if _, err := v.ResolveConflict(nfd, ConflictResolution{Take: TakeTheirs}, wOpts("Ben")); err != nil {
		t.Fatal(err)
	}
	wantText(t, dir, nfd, "# decomposed\n\n- ben\n")
	wantText(t, dir, nfc, "# composed\n")
	if got := gitRun(t, dir, "ls-files", "-u"); got != "" {
		t.Errorf("still unmerged: %s", got)
	}
}
