package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

// mMove moves and fails the test on an error.
func mMove(t *testing.T, v *Vault, dir, from, to string) *MoveResult {
	t.Helper()
	o := WriteOpts{Summary: "reorganise"}
	if p, err := note.NotePath(from); err == nil {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			o.ExpectedVersion = wVersion(t, dir, p)
		}
	}
	res, err := v.Move(from, to, o)
	if err != nil {
		t.Fatalf("Move(%q, %q): %v", from, to, err)
	}
	return res
}

// mUnresolved lists every link Obsidian cannot resolve, as "note: link".
func mUnresolved(t *testing.T, v *Vault) []string {
	t.Helper()
	notes, err := v.Notes()
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.Resolver()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range notes {
		for _, l := range n.Doc.Links {
			if r.Resolve(n.Path, l).Status != note.Resolved {
				out = append(out, n.Path+": "+string(n.Doc.Src[l.Start:l.End]))
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestMove_RewritesLinksKeepingStyle(t *testing.T) {
	v, dir := wOpen(t, map[string]string{
		"A/Plan.md": "# Plan\n\nSiehe [[Ref]] und [zurück](../B/Ref.md#Oben).\n",
		"B/Ref.md": "---\nup: \"[[Plan]]\"\n---\n# Oben\n\n" +
			"[[Plan]] [[Plan#Ziele|die Ziele]] ![[Plan]] [[A/Plan]] [[A/Plan.md|voll]]\n" +
			"[x](../A/Plan.md) [y](../A/Plan.md#Ziele \"Titel\") [z](<../A/Plan.md>)\n" +
			"| a | [[Plan\\|Tabelle]] |\n|---|---|\n\n" +
			"`[[Plan]]` und\n\n```\n[[A/Plan]]\n```\n",
		"Root.md": "[[A/Plan]] und [rel](A/Plan.md) und [[Nirgends]]\n",
	})
	res := mMove(t, v, dir, "A/Plan.md", "C/D/Neuer Plan.md")
	if res.To != "C/D/Neuer Plan.md" || res.Folder || res.SubNotes != 0 {
		t.Errorf("got To %q Folder %v SubNotes %d", res.To, res.Folder, res.SubNotes)
	}
	want := map[string]string{
		"C/D/Neuer Plan.md": "# Plan\n\nSiehe [[Ref]] und [zurück](../../B/Ref.md#Oben).\n",
		"B/Ref.md": "---\nup: \"[[Neuer Plan]]\"\n---\n# Oben\n\n" +
			"[[Neuer Plan]] [[Neuer Plan#Ziele|die Ziele]] ![[Neuer Plan]] [[C/D/Neuer Plan]] [[C/D/Neuer Plan.md|voll]]\n" +
			"[x](../C/D/Neuer%20Plan.md) [y](../C/D/Neuer%20Plan.md#Ziele \"Titel\") [z](<../C/D/Neuer Plan.md>)\n" +
			"| a | [[Neuer Plan\\|Tabelle]] |\n|---|---|\n\n" +
			"`[[Plan]]` und\n\n```\n[[A/Plan]]\n```\n",
		"Root.md": "[[C/D/Neuer Plan]] und [rel](C/D/Neuer%20Plan.md) und [[Nirgends]]\n",
	}
	for p, w := range want {
		if got := wRead(t, dir, p); got != w {
			t.Errorf("%s after the move:\n got %q\nwant %q", p, got, w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "A/Plan.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("A/Plan.md still exists: %v", err)
	}
	if got := mUnresolved(t, v); strings.Join(got, "\n") != "Root.md: [[Nirgends]]" {
		t.Errorf("unresolved links after the move: %q", got)
	}
	if len(res.Relinked) != 3 {
		t.Errorf("got %d relinked notes, want 3: %+v", len(res.Relinked), res.Relinked)
	}
	// History: one move record and one record per rewritten note, all in
	// the move's group; the group is closed.
	h, _ := v.History(HistoryFilter{})
	var ops []string
	for _, ch := range h {
		if ch.Group != res.ChangeID {
			t.Errorf("record %+v is not in the move's group %s", ch, res.ChangeID)
		}
		ops = append(ops, ch.Op+" "+ch.Path)
	}
	sort.Strings(ops)
	if got := strings.Join(ops, "; "); got != "move C/D/Neuer Plan.md; update_links B/Ref.md; update_links C/D/Neuer Plan.md; update_links Root.md" {
		t.Errorf("history: %s", got)
	}
	g, err := v.GroupByID(res.ChangeID)
	if err != nil || !g.Done || len(g.Pending) != 0 {
		t.Errorf("group: %+v, %v", g, err)
	}
	rep, err := v.Recover()
	if err != nil || len(rep.Interrupted)+len(rep.External) != 0 {
		t.Errorf("Recover after a finished move: %+v, %v", rep, err)
	}
}

func TestMove_ShortNameStaysShortWhileUnique(t *testing.T) {
	v, dir := wOpen(t, map[string]string{
		"A/Plan.md":      "a\n",
		"Archiv/Plan.md": "archiv\n",
		"Notiz.md":       "[[Plan]] und [[Archiv/Plan]]\n",
		"Other.md":       "[[Ref]]\n",
		"Ref.md":         "x\n",
	})
	// Before: [[Plan]] is A/Plan.md (the shorter path). At "Neu123/Plan.md"
	// it would tie with Archiv/Plan.md: the link names the folder instead.
	mMove(t, v, dir, "A/Plan.md", "Neu123/Plan.md")
	if got, want := wRead(t, dir, "Notiz.md"), "[[Neu123/Plan]] und [[Archiv/Plan]]\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A short name that stays unique stays short.
	mMove(t, v, dir, "Ref.md", "Tief/Unten/Ref.md")
	if got, want := wRead(t, dir, "Other.md"), "[[Ref]]\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMove_AmbiguousBeforeIsReported(t *testing.T) {
	v, dir := wOpen(t, map[string]string{
		"A/Plan.md": "a\n",
		"B/Plan.md": "b\n",
		"Notiz.md":  "[[Plan]]\n",
	})
	res := mMove(t, v, dir, "A/Plan.md", "C/Plan.md")
	if len(res.Issues) != 1 || res.Issues[0].Path != "Notiz.md" || res.Issues[0].Link != "[[Plan]]" {
		t.Fatalf("issues: %+v", res.Issues)
	}
	if got := strings.Join(res.Issues[0].Candidates, ", "); got != "B/Plan.md, C/Plan.md" {
		t.Errorf("candidates: %s", got)
	}
	if wRead(t, dir, "Notiz.md") != "[[Plan]]\n" {
		t.Errorf("an ambiguous link was changed")
	}
}

func TestMove_SubNotesFolderMovesAlong(t *testing.T) {
	v, dir := wOpen(t, map[string]string{
		"1_Projekte/Projekt.md":           "# Projekt\n\n[[Projekt/Teil]] [[Tief]]\n",
		"1_Projekte/Projekt/Teil.md":      "[Elternnotiz](../Projekt.md) [[bild.png]]\n",
		"1_Projekte/Projekt/bild.png":     "png",
		"1_Projekte/Projekt/Teil/Tief.md": "[[Teil]] [hoch](../../Projekt.md)\n",
		"Index.md":                        "[[1_Projekte/Projekt/Teil/Tief]] [[Projekt]]\n",
	})
	res := mMove(t, v, dir, "1_Projekte/Projekt", "4_Archiv/")
	if res.To != "4_Archiv/Projekt.md" || res.SubNotes != 2 || res.SubFolder != "4_Archiv/Projekt" {
		t.Fatalf("got To %q SubNotes %d SubFolder %q", res.To, res.SubNotes, res.SubFolder)
	}
	if len(res.Moved) != 4 {
		t.Errorf("moved %d files, want 4: %+v", len(res.Moved), res.Moved)
	}
	for p, w := range map[string]string{
		"4_Archiv/Projekt.md":           "# Projekt\n\n[[Projekt/Teil]] [[Tief]]\n",
		"4_Archiv/Projekt/Teil.md":      "[Elternnotiz](../Projekt.md) [[bild.png]]\n",
		"4_Archiv/Projekt/Teil/Tief.md": "[[Teil]] [hoch](../../Projekt.md)\n",
		"Index.md":                      "[[4_Archiv/Projekt/Teil/Tief]] [[Projekt]]\n",
	} {
		if got := wRead(t, dir, p); got != w {
			t.Errorf("%s: got %q, want %q", p, got, w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "1_Projekte/Projekt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old folder of sub-notes is still there")
	}
	if !strings.Contains(res.Detail, "2 sub-notes and 1 attachment went along") {
		t.Errorf("detail: %s", res.Detail)
	}
	// Each moved note has its own move record.
	h, _ := v.History(HistoryFilter{})
	moves := 0
	for _, ch := range h {
		if ch.Op == "move" {
			moves++
		}
	}
	if moves != 3 {
		t.Errorf("got %d move records, want 3", moves)
	}
}

func TestMove_FolderWithRelativeLinks(t *testing.T) {
	v, dir := wOpen(t, map[string]string{
		"A/B/Eins.md":   "[zwei](Zwei.md) [raus](../../Außen.md) [[Außen]]\n",
		"A/B/Zwei.md":   "[[Eins]]\n",
		"Außen.md":      "[e](A/B/Eins.md) [[B/Zwei]]\n",
		"A/Bleibt.md":   "[[B/Eins]] [e](B/Eins.md)\n",
		"D/Schon da.md": "x\n",
	})
	before := mUnresolved(t, v)
	res := mMove(t, v, dir, "A/B", "D")
	if res.To != "D/B" || !res.Folder || res.SubNotes != 2 {
		t.Fatalf("got %+v", res)
	}
	for p, w := range map[string]string{
		"D/B/Eins.md": "[zwei](Zwei.md) [raus](../../Außen.md) [[Außen]]\n",
		"Außen.md":    "[e](D/B/Eins.md) [[B/Zwei]]\n",
		// "B/Eins" still names D/B/Eins.md alone: by Obsidian's rules a
		// path matches the end of a longer one.
		"A/Bleibt.md": "[[B/Eins]] [e](B/Eins.md)\n",
	} {
		if got := wRead(t, dir, p); got != w {
			t.Errorf("%s: got %q, want %q", p, got, w)
		}
	}
	if after := mUnresolved(t, v); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("unresolved links before %q, after %q", before, after)
	}
}

func TestMove_Refused(t *testing.T) {
	files := map[string]string{
		"A/Note.md":         "n\n",
		"A/B/Sub.md":        "s\n",
		"Taken.md":          "t\n",
		"Projekt.md":        "p\n",
		"Projekt/Teil.md":   "t\n",
		"Ziel/Projekt/x.md": "x\n",
	}
	v, dir := wOpen(t, files)
	ver := func(p string) string { return wVersion(t, dir, p) }
	cases := []struct {
		name, from, to string
		version        string
		kind           error
		msg            string
	}{
		{"folder into its own sub-folder", "A", "A/B", "", note.ErrInvalid, "a folder cannot move into itself"},
		{"folder into itself", "A", "A/", "", note.ErrInvalid, "a folder cannot move into itself"},
		{"note into its own sub-notes folder", "Projekt.md", "Projekt/Projekt.md", ver("Projekt.md"), note.ErrInvalid, "would have to move into itself"},
		{"target exists", "A/Note.md", "Taken.md", ver("A/Note.md"), ErrExists, "cannot move to Taken.md"},
		{"sub-notes folder target exists", "Projekt.md", "Ziel/", ver("Projekt.md"), ErrExists, "cannot move along"},
		{"out of the vault", "A/Note.md", "../draußen.md", ver("A/Note.md"), note.ErrInvalidPath, "outside the vault"},
		{"absolute", "A/Note.md", "/tmp/x.md", ver("A/Note.md"), note.ErrInvalidPath, "absolute paths are not allowed"},
		{"hidden", "A/Note.md", ".trash/x.md", ver("A/Note.md"), note.ErrInvalidPath, "hidden"},
		{"missing", "A/Nope.md", "B.md", "000000000000", note.ErrNotFound, "no such note or folder"},
		{"no version", "A/Note.md", "B.md", "", note.ErrInvalid, "needs the version you read"},
		{"stale version", "A/Note.md", "B.md", "000000000000", note.ErrConflict, "changed since version"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Move(tc.from, tc.to, WriteOpts{Summary: "s", ExpectedVersion: tc.version})
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Move(%q, %q): got %v, want kind %v containing %q", tc.from, tc.to, err, tc.kind, tc.msg)
			}
		})
	}
	for p, data := range files {
		if got := wRead(t, dir, p); got != data {
			t.Errorf("%s changed by a refused move", p)
		}
	}
	if h, _ := v.History(HistoryFilter{}); len(h) != 0 {
		t.Errorf("refused moves recorded history: %+v", h)
	}
}

// A move whose process died after the rename, before its records and the
// link update: Recover records the rename it finds done (so the moved note
// is not taken for one deleted outside vaultd), finishes the link update
// and reports what it did.
func TestMove_RecoverFinishesInterrupted(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"B/A.md": "# A\n", "Ref.md": "[[Alt/A]]\n"})
	// As the dead process left it: the plan, then the rename.
	plan := groupRecord{Event: "plan", ID: "20261129T120000.000000Z-abcdef", Op: "move", Actor: "mcp:x", Summary: "verschoben",
		From: "Alt/A.md", To: "B/A.md", Steps: []groupStep{
			{Op: "rename", From: "Alt/A.md", To: "B/A.md"},
			{Op: "update_links", From: "Ref.md", To: "Ref.md", Before: note.Version([]byte("[[Alt/A]]\n"))},
		}}
	if err := v.writeGroup(plan); err != nil {
		t.Fatal(err)
	}
	rep, err := v.recover(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Interrupted) != 1 || len(rep.External) != 0 {
		t.Fatalf("report: %+v", rep)
	}
	want := "move Alt/A.md → B/A.md was interrupted by a crash and finished at the next start (1 link updated)"
	if got := rep.Interrupted[0].Text; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := wRead(t, dir, "Ref.md"); got != "[[B/A]]\n" {
		t.Errorf("Ref.md after the finished move: %q", got)
	}
	h, _ := v.History(HistoryFilter{})
	if len(h) != 2 || h[1].Op != "move" || h[1].OldPath != "Alt/A.md" || h[1].Path != "B/A.md" || !strings.Contains(h[1].Summary, "recorded at recovery") ||
		h[0].Op != "update_links" || h[0].Path != "Ref.md" || h[0].Group != plan.ID {
		t.Errorf("late records: %+v", h)
	}
	if rep, _ := v.recover(0); len(rep.Interrupted) != 0 {
		t.Errorf("reported twice")
	}
	g, _ := v.GroupByID(plan.ID)
	if !g.Done || len(g.Pending) != 0 || !g.Interrupted {
		t.Errorf("group: %+v", g)
	}
}

// TestMove_ReportsProgress: a move tells Options.Progress how far its link
// updates have come — one call at the start, one per note — so that the
// command line can show rate and time left for a folder many notes link
// into.
func TestMove_ReportsProgress(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"A/Ziel.md": "# Ziel\n"}
	for i := range 3 {
		files[fmt.Sprintf("B/Quelle %d.md", i)] = "[[A/Ziel]]\n"
	}
	wFiles(t, dir, files)
	var calls []string
	v := wOpenDir(t, dir, Options{NoSync: true, Actor: "test", Progress: func(what string, done, total int) {
		calls = append(calls, fmt.Sprintf("%s %d/%d", what, done, total))
	}})
	mMove(t, v, dir, "A", "C")
	want := []string{"updating links 0/3", "updating links 1/3", "updating links 2/3", "updating links 3/3"}
	if strings.Join(calls, ", ") != strings.Join(want, ", ") {
		t.Errorf("Progress calls: got %q, want %q", calls, want)
	}
	if got := wRead(t, dir, "B/Quelle 0.md"); got != "[[C/Ziel]]\n" {
		t.Errorf("B/Quelle 0.md: got %q", got)
	}
}
