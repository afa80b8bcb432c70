package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

// cClock is a settable clock for history records.
type cClock struct{ t time.Time }

func (c *cClock) now() time.Time { return c.t }

// cVault opens a vault whose files are dated day 1 and whose clock starts
// on day 10.
// cVault opens a vault of files last modified on 1 November 2026, first
// opened by vaultd on 10 November (the clock).
func cVault(t *testing.T, files map[string]string) (*Vault, string, *cClock) {
	t.Helper()
	dir := t.TempDir()
	wFiles(t, dir, files)
	day1 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for p := range files {
		os.Chtimes(filepath.Join(dir, p), day1, day1)
	}
	clock := &cClock{time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)}
	return wOpenDir(t, dir, Options{NoSync: true, Actor: "test", Now: clock.now}), dir, clock
}

func cSummary(es []ChangeEntry) string {
	var out []string
	for _, e := range es {
		s := e.Op + " " + e.Path + " by " + e.Actor
		if len(e.Files) > 0 {
			s += " [" + strings.Join(e.Files, ",") + "]"
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

func TestChanges_RecentAcrossVault(t *testing.T) {
	v, dir, clock := cVault(t, map[string]string{
		"1_Projekte/Alpha.md": "# Alpha\n",
		"1_Projekte/Beta.md":  "[[1_Projekte/Alpha]]\n",
		"2_Bereiche/Team.md":  "# Team\n",
	})
	// Writes on days 10, 11, 12 by two actors.
	if _, err := v.Append("1_Projekte/Alpha.md", "", []byte("mehr"), WriteOpts{Summary: "mehr", Actor: "mcp:claude"}); err != nil {
		t.Fatal(err)
	}
	clock.t = clock.t.Add(24 * time.Hour)
	if _, err := v.Create("2_Bereiche/Neu.md", []byte("neu\n"), WriteOpts{Summary: "neu", Actor: "cli"}); err != nil {
		t.Fatal(err)
	}
	clock.t = clock.t.Add(24 * time.Hour)
	if _, err := v.Move("1_Projekte/Alpha.md", "4_Archiv/", WriteOpts{Summary: "archiviert", Actor: "mcp:claude",
		ExpectedVersion: wVersion(t, dir, "1_Projekte/Alpha.md")}); err != nil {
		t.Fatal(err)
	}
	// Someone edits Team.md in Obsidian on day 13.
	day13 := time.Date(2026, 11, 13, 9, 0, 0, 0, time.UTC)
	os.WriteFile(filepath.Join(dir, "2_Bereiche/Team.md"), []byte("# Team\n\nvon Hand\n"), 0o644)
	os.Chtimes(filepath.Join(dir, "2_Bereiche/Team.md"), day13, day13)

	all, total, err := v.RecentChanges(ChangeQuery{})
	if err != nil {
		t.Fatal(err)
	}
	want := "external 2_Bereiche/Team.md by outside vaultd; " +
		"move 4_Archiv/Alpha.md by mcp:claude [1_Projekte/Beta.md,4_Archiv/Alpha.md]; " +
		"create 2_Bereiche/Neu.md by cli; append 1_Projekte/Alpha.md by mcp:claude"
	if total != 4 || cSummary(all) != want {
		t.Errorf("recent changes (%d):\n got %s\nwant %s", total, cSummary(all), want)
	}
	// Never-recorded notes count as external changes at their mtime: Beta
	// was recorded by the move; Team only by its external change.
	if !all[0].External || all[0].After != note.Version([]byte("# Team\n\nvon Hand\n")) || !all[0].Time.Equal(day13) {
		t.Errorf("external entry: %+v", all[0])
	}
	if all[1].OldPath != "1_Projekte/Alpha.md" || all[1].Summary != "archiviert" || !strings.Contains(all[1].Detail, "moved from") {
		t.Errorf("group entry: %+v", all[1])
	}

	cases := []struct {
		name string
		q    ChangeQuery
		want string
	}{
		{"space", ChangeQuery{Space: "2_Bereiche"}, "external 2_Bereiche/Team.md by outside vaultd; create 2_Bereiche/Neu.md by cli"},
		{"folder holds the old path", ChangeQuery{Folder: "1_Projekte"}, "move 4_Archiv/Alpha.md by mcp:claude [1_Projekte/Beta.md,4_Archiv/Alpha.md]; append 1_Projekte/Alpha.md by mcp:claude"},
		{"actor", ChangeQuery{Actor: "cli"}, "create 2_Bereiche/Neu.md by cli"},
		{"outside", ChangeQuery{Actor: OutsideActor}, "external 2_Bereiche/Team.md by outside vaultd"},
		{"since", ChangeQuery{Since: time.Date(2026, 11, 11, 0, 0, 0, 0, time.UTC)}, "external 2_Bereiche/Team.md by outside vaultd; move 4_Archiv/Alpha.md by mcp:claude [1_Projekte/Beta.md,4_Archiv/Alpha.md]; create 2_Bereiche/Neu.md by cli"},
		{"until", ChangeQuery{Until: time.Date(2026, 11, 11, 0, 0, 0, 0, time.UTC)}, "append 1_Projekte/Alpha.md by mcp:claude"},
		{"page", ChangeQuery{Limit: 2, Offset: 1}, "move 4_Archiv/Alpha.md by mcp:claude [1_Projekte/Beta.md,4_Archiv/Alpha.md]; create 2_Bereiche/Neu.md by cli"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := v.RecentChanges(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if cSummary(got) != tc.want {
				t.Errorf("RecentChanges(%+v):\n got %s\nwant %s", tc.q, cSummary(got), tc.want)
			}
		})
	}
}

// Notes that were in the vault when vaultd first opened it are the vault
// as found, not changes; a note that appears or changes after that without
// vaultd is external.
func TestChanges_UnrecordedNotesAreExternal(t *testing.T) {
	v, dir, _ := cVault(t, map[string]string{"Alt.md": "alt\n"})
	if got, total, err := v.RecentChanges(ChangeQuery{}); err != nil || total != 0 {
		t.Fatalf("a vault as vaultd first found it: got %d changes (%s), %v; want none", total, cSummary(got), err)
	}
	later := time.Date(2026, 11, 10, 10, 0, 0, 0, time.UTC) // after the first open (the clock's 9:00)
	wFiles(t, dir, map[string]string{"A.md": "a\n", "B/C.md": "c\n"})
	for _, p := range []string{"A.md", "B/C.md"} {
		os.Chtimes(filepath.Join(dir, p), later, later)
	}
	got, total, err := v.RecentChanges(ChangeQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if total != 2 || cSummary(got) != "external A.md by outside vaultd; external B/C.md by outside vaultd" || got[0].After != note.Version([]byte("a\n")) {
		t.Errorf("got %d: %s %+v", total, cSummary(got), got)
	}
}

func TestChanges_NoteHistoryWithDiffsAcrossMoves(t *testing.T) {
	v, dir, clock := cVault(t, map[string]string{"A/Plan.md": "# Plan\n\n- eins\n"})
	step := func() { clock.t = clock.t.Add(time.Hour) }
	if _, err := v.Append("A/Plan.md", "", []byte("- zwei"), WriteOpts{Summary: "zwei"}); err != nil {
		t.Fatal(err)
	}
	step()
	if _, err := v.Move("A/Plan.md", "B/Plan.md", WriteOpts{Summary: "verschoben", ExpectedVersion: wVersion(t, dir, "A/Plan.md")}); err != nil {
		t.Fatal(err)
	}
	step()
	if _, err := v.Replace("B/Plan.md", []byte("# Plan\n\n- eins\n- drei\n"), WriteOpts{Summary: "drei", ExpectedVersion: wVersion(t, dir, "B/Plan.md")}); err != nil {
		t.Fatal(err)
	}
	// A note created at the old path later has its own history.
	step()
	if _, err := v.Create("A/Plan.md", []byte("anderer Plan\n"), WriteOpts{Summary: "neu"}); err != nil {
		t.Fatal(err)
	}
	// And an edit outside vaultd.
	os.WriteFile(filepath.Join(dir, "B/Plan.md"), []byte("# Plan\n\n- eins\n- drei\n- vier\n"), 0o644)

	h, err := v.NoteHistory("B/Plan", HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, e := range h.Entries {
		ops = append(ops, e.Op+" "+e.Path)
	}
	if got := strings.Join(ops, "; "); got != "external B/Plan.md; replace B/Plan.md; move B/Plan.md; append A/Plan.md" || h.Total != 4 {
		t.Fatalf("history of B/Plan.md (%d): %s", h.Total, got)
	}
	if d := h.Entries[0].Diff.Text; d != "@@ -3,2 +3,3 @@\n - eins\n - drei\n+- vier\n" {
		t.Errorf("external diff: %q", d)
	}
	if d := h.Entries[1].Diff.Text; d != "@@ -2,3 +2,3 @@\n \n - eins\n-\n-- zwei\n+- drei\n" && h.Entries[1].Diff.Added != 1 {
		t.Errorf("replace diff: %q", d)
	}
	if n := h.Entries[2].DiffNote; n != "moved from A/Plan.md; the text did not change" {
		t.Errorf("move note: %q", n)
	}
	if d := h.Entries[3].Diff.Text; !strings.Contains(d, "+- zwei") {
		t.Errorf("append diff: %q", d)
	}
	a, err := v.NoteHistory("A/Plan.md", HistoryQuery{})
	if err != nil || a.Total != 1 || a.Entries[0].Op != "create" {
		t.Errorf("history of the new A/Plan.md: %+v, %v", a, err)
	}
	if _, err := v.NoteHistory("A/Gibtsnicht.md", HistoryQuery{}); err == nil {
		t.Errorf("history of a note that never existed: no error")
	}
}
