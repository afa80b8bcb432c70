package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

// pinVault is a vault with the bookmarks fixture (Obsidian's own format:
// groups, nested groups, searches, headings, folders, URLs and fields
// vaultd does not know) and a pinned clock.
func pinVault(t *testing.T) (*Vault, string, []byte) {
	t.Helper()
	fixture, err := os.ReadFile(filepath.Join("testdata", "notesapp", "bookmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wFiles(t, dir, map[string]string{"A.md": "# A\n", "Sub/B.md": "# B\n", "C.md": "# C\n", ".obsidian/bookmarks.json": string(fixture)})
	v := wOpenDir(t, dir, Options{NoSync: true, Actor: "test", Now: func() time.Time { return time.UnixMilli(1796040000000) }})
	return v, dir, fixture
}

func bookmarksOf(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".obsidian", "bookmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPins_RoundTrip: a pin and an unpin leave a bookmarks.json written by
// Obsidian byte-identical — unknown fields, groups, other item types,
// number spellings and all.
func TestPins_RoundTrip(t *testing.T) {
	v, dir, fixture := pinVault(t)
	res, err := v.Pin("C", WriteOpts{Summary: "pin"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || len(res.Pins) != 3 {
		t.Errorf("pin: got %+v", res)
	}
	mid := bookmarksOf(t, dir)
	wantItem := "    {\n      \"type\": \"file\",\n      \"ctime\": 1796040000000,\n      \"path\": \"C.md\",\n      \"title\": \"\"\n    }\n  ],\n  \"future\""
	if !strings.Contains(mid, wantItem) || !strings.Contains(mid, `"query": "tag:#projekt <b> & \"x\""`) || !strings.Contains(mid, "1.50") {
		t.Errorf("after pin:\n%s", mid)
	}
	if _, err := v.Unpin("C.md", WriteOpts{Summary: "unpin"}); err != nil {
		t.Fatal(err)
	}
	if got := bookmarksOf(t, dir); got != string(fixture) {
		t.Errorf("pin then unpin is not byte-identical:\n%s", got)
	}
}

func TestPins_Groups(t *testing.T) {
	v, dir, fixture := pinVault(t)
	pins, err := v.Pins()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(pins); got != "[{A.md  } {Sub/B.md B wichtig Kunden > Innen}]" {
		t.Errorf("Pins: got %s", got)
	}
	// Pinned inside a nested group already: nothing changes.
	res, err := v.Pin("sub/b", WriteOpts{Summary: "x"})
	if err != nil || res.Changed || !strings.Contains(res.Detail, `already pinned (in group "Kunden > Innen")`) {
		t.Errorf("pin of a grouped pin: %+v %v", res, err)
	}
	if bookmarksOf(t, dir) != string(fixture) {
		t.Error("a no-op pin rewrote the file")
	}
	// Unpinning takes it out of its group; the groups and the heading
	// bookmark of the same note stay.
	res, err = v.Unpin("Sub/B.md", WriteOpts{Summary: "x"})
	if err != nil || !res.Changed || len(res.Pins) != 1 {
		t.Fatalf("unpin from a group: %+v %v", res, err)
	}
	got := bookmarksOf(t, dir)
	want := strings.Replace(string(fixture), `            {
              "type": "file",
              "ctime": 1764000400000,
              "path": "Sub/B.md",
              "title": "B wichtig"
            },
`, "", 1)
	if got != want {
		t.Errorf("unpin from a nested group:\ngot\n%s\nwant\n%s", got, want)
	}
	res, err = v.Unpin("C", WriteOpts{Summary: "x"})
	if err != nil || res.Changed || res.Detail != "not pinned" {
		t.Errorf("unpin of a note not pinned: %+v %v", res, err)
	}
}

func TestPins_ProtocolAndHistory(t *testing.T) {
	v, dir, _ := pinVault(t)
	var notified []string
	v.OnChange(func(p ...string) { notified = append(notified, p...) })
	res, err := v.Pin("C", WriteOpts{Summary: "wichtig", Actor: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := v.History(HistoryFilter{Path: "C.md"})
	ver := note.Version([]byte("# C\n"))
	if len(h) != 1 || h[0].Op != "pin" || h[0].Summary != "wichtig" || h[0].Before != ver || h[0].After != ver || h[0].ID != res.ChangeID {
		t.Errorf("history: %+v", h)
	}
	if fmt.Sprint(notified) != "["+BookmarksPath+"]" {
		t.Errorf("notified: %v", notified)
	}
	// A pin is no edit of the note: Recover sees nothing external.
	rep, err := v.Recover()
	if err != nil || len(rep.External) != 0 {
		t.Errorf("Recover after a pin: %+v %v", rep, err)
	}
	// No temp files left in .obsidian.
	entries, _ := os.ReadDir(filepath.Join(dir, ".obsidian"))
	if len(entries) != 1 {
		t.Errorf(".obsidian holds %d files, want 1", len(entries))
	}
	if _, err := v.Pin("C", WriteOpts{}); !errors.Is(err, note.ErrInvalid) {
		t.Errorf("no summary: got %v", err)
	}
	if _, err := v.Pin("Nope", WriteOpts{Summary: "x"}); !errors.Is(err, note.ErrNotFound) {
		t.Errorf("missing note: got %v", err)
	}
	if _, err := v.Unpin("Nope", WriteOpts{Summary: "x"}); !errors.Is(err, note.ErrNotFound) {
		t.Errorf("unpin of a missing note that is not pinned: got %v", err)
	}
	// A denied write leaves the file alone.
	before := bookmarksOf(t, dir)
	v.SetPolicy(denyUnder{".obsidian/"})
	if _, err := v.Unpin("C", WriteOpts{Summary: "x"}); !errors.Is(err, ErrDenied) {
		t.Errorf("policy: got %v", err)
	}
	if bookmarksOf(t, dir) != before {
		t.Error("a denied unpin changed the bookmarks")
	}
}

func TestPins_MissingAndInvalid(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"A.md": "# A\n"})
	if pins, err := v.Pins(); err != nil || pins != nil {
		t.Errorf("no bookmarks file: %v %v", pins, err)
	}
	if _, err := v.Pin("A", WriteOpts{Summary: "x"}); err != nil {
		t.Fatal(err)
	}
	if got := bookmarksOf(t, dir); !strings.HasPrefix(got, "{\n  \"items\": [\n    {\n      \"type\": \"file\",") || !strings.HasSuffix(got, "\"path\": \"A.md\",\n      \"title\": \"\"\n    }\n  ]\n}\n") {
		t.Errorf("created file:\n%s", got)
	}
	for _, bad := range []string{`{"items": [`, `[1, 2]`, `{"items": {"a": 1}}`, `{"items": []} x`} {
		wFiles(t, dir, map[string]string{".obsidian/bookmarks.json": bad})
		if _, err := v.Pin("A", WriteOpts{Summary: "x"}); !errors.Is(err, note.ErrInvalid) || !strings.Contains(err.Error(), "leaves it as it is") {
			t.Errorf("%s: got %v", bad, err)
		}
		if got := bookmarksOf(t, dir); got != bad {
			t.Errorf("%s was rewritten to %s", bad, got)
		}
	}
	// A dangling bookmark (its note is gone) can be removed.
	wFiles(t, dir, map[string]string{".obsidian/bookmarks.json": `{"items":[{"type":"file","path":"Weg.md"}]}`})
	res, err := v.Unpin("Weg.md", WriteOpts{Summary: "x"})
	if err != nil || !res.Changed || res.Note != nil {
		t.Errorf("dangling: %+v %v", res, err)
	}
	if got := bookmarksOf(t, dir); got != "{\n  \"items\": []\n}" {
		t.Errorf("after removing the dangling pin: %q", got)
	}
}

func TestPins_Symlink(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"A.md": "# A\n", "other.json": "{}"})
	if err := os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../other.json", filepath.Join(dir, ".obsidian", "bookmarks.json")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, err := v.Pin("A", WriteOpts{Summary: "x"}); !errors.Is(err, note.ErrInvalidPath) {
		t.Errorf("symlinked bookmarks: got %v", err)
	}
}
