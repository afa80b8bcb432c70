package vault

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestTrash_DeleteTakesSubNotesAlong(t *testing.T) {
	v, dir := wOpen(t, map[string]string{
		"1_Projekte/Projekt.md":           "# Projekt\n",
		"1_Projekte/Projekt/Teil.md":      "teil\n",
		"1_Projekte/Projekt/Teil/Tief.md": "tief\n",
		"1_Projekte/Projekt/bild.png":     "png",
		"1_Projekte/Anderes.md":           "x\n",
	})
	var notified []string
	v.OnChange(func(p ...string) { notified = append(notified, p...) })
	res, err := v.Delete("1_Projekte/Projekt.md", WriteOpts{Summary: "erledigt", ExpectedVersion: wVersion(t, dir, "1_Projekte/Projekt.md")})
	if err != nil {
		t.Fatal(err)
	}
	if want := "moved to trash as .trash/1_Projekte/Projekt.md; 2 sub-notes and 1 attachment went along to .trash/1_Projekte/Projekt/"; res.Detail != want {
		t.Errorf("detail:\n got %q\nwant %q", res.Detail, want)
	}
	for _, p := range []string{"1_Projekte/Projekt.md", "1_Projekte/Projekt"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there", p)
		}
	}
	if got := wRead(t, dir, ".trash/1_Projekte/Projekt/Teil/Tief.md"); got != "tief\n" {
		t.Errorf("trash: got %q", got)
	}
	sort.Strings(notified)
	if got := strings.Join(notified, ","); got != "1_Projekte/Projekt.md,1_Projekte/Projekt/Teil.md,1_Projekte/Projekt/Teil/Tief.md" {
		t.Errorf("OnChange: %s", got)
	}
	entries, _ := v.Trash()
	var orig []string
	for _, e := range entries {
		orig = append(orig, e.OriginalPath+" by "+e.Actor)
	}
	sort.Strings(orig)
	if got := strings.Join(orig, "; "); got != "1_Projekte/Projekt.md by test; 1_Projekte/Projekt/Teil.md by test; 1_Projekte/Projekt/Teil/Tief.md by test" {
		t.Errorf("trash entries: %s", got)
	}
	h, _ := v.History(HistoryFilter{})
	if len(h) != 3 || h[0].Group == "" || h[1].Group != h[0].Group {
		t.Errorf("history: %+v", h)
	}

	// Restoring the note brings the folder back.
	r, err := v.Restore(".trash/1_Projekte/Projekt.md", "", WriteOpts{Summary: "doch nicht"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Detail, "2 sub-notes came back along (now in 1_Projekte/Projekt/)") {
		t.Errorf("restore detail: %s", r.Detail)
	}
	if got := wRead(t, dir, "1_Projekte/Projekt/Teil/Tief.md"); got != "tief\n" {
		t.Errorf("restored: got %q", got)
	}
	if entries, _ := v.Trash(); len(entries) != 0 {
		t.Errorf("trash not empty after the restore: %+v", entries)
	}
	rep, err := v.Recover()
	if err != nil || len(rep.Interrupted)+len(rep.External) != 0 {
		t.Errorf("Recover: %+v, %v", rep, err)
	}

	// A second delete finds .trash/1_Projekte/Projekt/ free again.
	res, err = v.Delete("1_Projekte/Projekt.md", WriteOpts{Summary: "jetzt aber", ExpectedVersion: wVersion(t, dir, "1_Projekte/Projekt.md")})
	if err != nil || res.TrashPath != ".trash/1_Projekte/Projekt.md" {
		t.Fatalf("second delete: %+v, %v", res, err)
	}
}

func TestTrash_DeleteSubNotesKeepsPairTogether(t *testing.T) {
	v, dir := wOpen(t, map[string]string{
		"P.md":                  "p\n",
		"P/Kind.md":             "k\n",
		".trash/P/Alt.md":       "schon im Papierkorb\n",
		".trash/P/Noch was.txt": "x",
	})
	res, err := v.Delete("P.md", WriteOpts{Summary: "weg", ExpectedVersion: wVersion(t, dir, "P.md")})
	if err != nil {
		t.Fatal(err)
	}
	// .trash/P/ is taken, so both go under "P 2".
	if res.TrashPath != ".trash/P 2.md" || wRead(t, dir, ".trash/P 2/Kind.md") != "k\n" {
		t.Errorf("got %+v", res)
	}
}

func TestTrash_EmptyOlderThan(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	clock := now.Add(-40 * 24 * time.Hour)
	dir := t.TempDir()
	wFiles(t, dir, map[string]string{"Alt.md": "a\n", "Neu.md": "n\n"})
	v := wOpenDir(t, dir, Options{NoSync: true, Now: func() time.Time { return clock }})
	if _, err := v.Delete("Alt.md", WriteOpts{Summary: "alt", ExpectedVersion: wVersion(t, dir, "Alt.md")}); err != nil {
		t.Fatal(err)
	}
	clock = now.Add(-time.Hour)
	if _, err := v.Delete("Neu.md", WriteOpts{Summary: "neu", ExpectedVersion: wVersion(t, dir, "Neu.md")}); err != nil {
		t.Fatal(err)
	}
	clock = now
	rep, err := v.EmptyTrash(30 * 24 * time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Removed) != 1 || rep.Removed[0].OriginalPath != "Alt.md" || rep.Kept != 1 {
		t.Errorf("got %+v", rep)
	}
	if entries, _ := v.Trash(); len(entries) != 1 || entries[0].OriginalPath != "Neu.md" {
		t.Errorf("left in the trash: %+v", entries)
	}
	// History keeps the text of what was emptied.
	if b, err := v.Content(rep.Removed[0].Version); err != nil || string(b) != "a\n" {
		t.Errorf("content after emptying: %q, %v", b, err)
	}
	rep, err = v.EmptyTrash(0)
	if err != nil || len(rep.Removed) != 1 {
		t.Errorf("empty all: %+v, %v", rep, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".trash")); err != nil {
		t.Errorf(".trash itself must stay: %v", err)
	}
}
