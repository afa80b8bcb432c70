package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/vault"
)

// dailyCore is a core on a copy of example-vault whose clock is *now.
func dailyCore(t *testing.T, now *time.Time, files map[string]string) (*Core, string) {
	t.Helper()
	dir := copyExampleVault(t)
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := files[rulesNote]; !ok {
		// Notes without tags may be made (the example's rules ask for them).
		files = mapWith(files, rulesNote, "---\ninbox: 0_Inbox\n---\n# Regeln\n")
	}
	for p, text := range files {
		if p == rulesNote {
			if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	clock := func() time.Time { return *now }
	v, err := vault.Open(dir, vault.Options{StateDir: filepath.Join(t.TempDir(), "state"), NoSync: true, Actor: "test", Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	c, err := NewCore(v, CoreOptions{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	return c, dir
}

const rulesNote = "9_System/Regeln für Agenten.md"

func mapWith(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}

func openDaily(t *testing.T, c *Core, args DailyNoteArgs) DailyNoteData {
	t.Helper()
	r := c.Invoke(context.Background(), readWrite, "open_daily_note", args)
	if r.IsError() {
		t.Fatalf("open_daily_note %+v:\n%s", args, r.Text)
	}
	return r.Data.(DailyNoteData)
}

// Around midnight the day is the vault's, not UTC's: the clock's zone.
func TestOpenDailyNote_Midnight(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	auckland, _ := time.LoadLocation("Pacific/Auckland")
	var now time.Time
	c, _ := dailyCore(t, &now, nil)
	for _, tc := range []struct {
		at   time.Time
		date string
		want string
	}{
		{time.Date(2026, 12, 31, 22, 59, 0, 0, time.UTC).In(berlin), "", "2_Bereiche/Journal/2026-12-31.md"}, // 23:59 in Berlin
		{time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC).In(berlin), "", "2_Bereiche/Journal/2027-01-01.md"},  // 00:00 in Berlin
		{time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC).In(berlin), "yesterday", "2_Bereiche/Journal/2026-12-31.md"},
		{time.Date(2026, 12, 31, 10, 59, 0, 0, time.UTC).In(auckland), "", "2_Bereiche/Journal/2026-12-31.md"}, // 23:59 NZDT
		{time.Date(2026, 12, 31, 11, 0, 0, 0, time.UTC).In(auckland), "", "2_Bereiche/Journal/2027-01-01.md"},
		{time.Date(2027, 3, 28, 0, 30, 0, 0, time.UTC).In(berlin), "-1", "2_Bereiche/Journal/2027-03-27.md"}, // the night clocks go forward
		{time.Date(2027, 3, 28, 0, 30, 0, 0, time.UTC).In(berlin), "+2", "2_Bereiche/Journal/2027-03-30.md"},
		{time.Date(2027, 3, 28, 0, 30, 0, 0, time.UTC).In(berlin), "24.12.2027", "2_Bereiche/Journal/2027-12-24.md"},
	} {
		now = tc.at
		d := openDaily(t, c, DailyNoteArgs{Date: tc.date, ChangeSummary: "Tagesnotiz"})
		if d.Note.Path != tc.want {
			t.Errorf("at %s, date %q: %s, want %s", tc.at, tc.date, d.Note.Path, tc.want)
		}
	}
}

// An existing daily note is read, never rewritten — also one made by
// another program after vaultd looked.
func TestOpenDailyNote_ExistingNeverOverwritten(t *testing.T) {
	now := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	mine := "# Mein Tag\n\nSchon geschrieben.\n"
	c, dir := dailyCore(t, &now, map[string]string{"2_Bereiche/Journal/2026-12-05.md": mine})
	d := openDaily(t, c, DailyNoteArgs{})
	if d.Created || d.Note.Path != "2_Bereiche/Journal/2026-12-05.md" {
		t.Fatalf("got %+v", d)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "2_Bereiche/Journal/2026-12-05.md"))
	if string(b) != mine {
		t.Fatalf("the note changed: %q", b)
	}
	// Created once, the second call reads what the first made (and what
	// was added since).
	d = openDaily(t, c, DailyNoteArgs{Date: "tomorrow"})
	if !d.Created {
		t.Fatal("tomorrow's note was not created")
	}
	p := filepath.Join(dir, "2_Bereiche/Journal/2026-12-06.md")
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("- von Hand ergänzt\n")
	f.Close()
	before, _ := os.ReadFile(p)
	if d = openDaily(t, c, DailyNoteArgs{Date: "2026-12-06"}); d.Created {
		t.Fatal("created twice")
	}
	after, _ := os.ReadFile(p)
	if string(before) != string(after) || !strings.Contains(string(after), "von Hand") {
		t.Fatalf("the note changed on the second open: %q", after)
	}
}

// Weeks, months, quarters and years as the Periodic Notes plugin sets
// them up; its daily settings win over the core plugin's.
func TestOpenDailyNote_PeriodicNotesPlugin(t *testing.T) {
	now := time.Date(2027, 1, 1, 10, 0, 0, 0, time.UTC) // a Friday: week 53 of 2026 (ISO), week 1 of 2027 (en)
	c, dir := dailyCore(t, &now, map[string]string{
		".obsidian/community-plugins.json":           `["periodic-notes"]`,
		".obsidian/plugins/periodic-notes/data.json": `{"daily":{"enabled":true,"folder":"2_Bereiche/Tage","format":"YYYY/MM/YYYY-MM-DD"},"weekly":{"enabled":true,"folder":"2_Bereiche/Wochen","format":"GGGG-[W]WW","template":"9_System/Vorlagen/Woche"},"monthly":{"enabled":true,"format":"YYYY-MM"},"quarterly":{"enabled":false}}`,
		"9_System/Vorlagen/Woche.md":                 "---\ntags: [woche]\n---\nMontag: {{monday:DD.MM.}} bis Sonntag: {{sunday:DD.MM.}}, Titel {{title}}\n",
	})
	if d := openDaily(t, c, DailyNoteArgs{ChangeSummary: "x"}); d.Note.Path != "2_Bereiche/Tage/2027/01/2027-01-01.md" {
		t.Errorf("day: %s", d.Note.Path)
	}
	d := openDaily(t, c, DailyNoteArgs{Period: "week", ChangeSummary: "x"})
	if d.Note.Path != "2_Bereiche/Wochen/2026-W53.md" {
		t.Errorf("week: %s", d.Note.Path)
	}
	b, _ := os.ReadFile(filepath.Join(dir, d.Note.Path))
	// en weeks run Sunday to Saturday: the week of Friday Jan 1 starts on
	// Sunday Dec 27.
	if want := "Montag: 28.12. bis Sonntag: 27.12., Titel 2026-W53\n"; !strings.HasSuffix(string(b), want) {
		t.Errorf("weekly template: %q, want it to end %q", b, want)
	}
	if d := openDaily(t, c, DailyNoteArgs{Period: "monat", ChangeSummary: "x"}); d.Note.Path != "2027-01.md" {
		t.Errorf("month: %s", d.Note.Path)
	}
	r := c.Invoke(context.Background(), readWrite, "open_daily_note", DailyNoteArgs{Period: "quarter"})
	if !r.IsError() || !strings.Contains(r.Text, "no quarterly notes") {
		t.Errorf("quarter, not enabled: %s", r.Text)
	}
	// The plugin turned off in Obsidian: the core plugin's settings again.
	os.WriteFile(filepath.Join(dir, ".obsidian/community-plugins.json"), []byte(`[]`), 0o644)
	if d := openDaily(t, c, DailyNoteArgs{ChangeSummary: "x"}); d.Note.Path != "2_Bereiche/Journal/2027-01-01.md" {
		t.Errorf("day without the plugin: %s", d.Note.Path)
	}
}

// Names of months and weekdays are in the language the vault's daily
// notes use.
func TestOpenDailyNote_Locale(t *testing.T) {
	now := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	files := map[string]string{
		".obsidian/daily-notes.json":           `{"folder":"Tage","format":"dddd, D. MMMM YYYY"}`,
		"Tage/Donnerstag, 3. Dezember 2026.md": "x\n",
		"Tage/Freitag, 4. Dezember 2026.md":    "y\n",
	}
	c, _ := dailyCore(t, &now, files)
	if d := openDaily(t, c, DailyNoteArgs{ChangeSummary: "x"}); d.Note.Path != "Tage/Samstag, 5. Dezember 2026.md" {
		t.Errorf("German vault: %s", d.Note.Path)
	}
	files = map[string]string{".obsidian/daily-notes.json": `{"folder":"Tage","format":"dddd, D. MMMM YYYY"}`}
	c, _ = dailyCore(t, &now, files)
	if d := openDaily(t, c, DailyNoteArgs{ChangeSummary: "x"}); d.Note.Path != "Tage/Saturday, 5. December 2026.md" {
		t.Errorf("no daily notes yet: %s", d.Note.Path)
	}
}

// Settings that point into hidden folders are refused, never followed.
func TestOpenDailyNote_HiddenFolders(t *testing.T) {
	now := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	for _, setting := range []string{
		`{"folder":".obsidian","format":"YYYY-MM-DD"}`,
		`{"folder":"2_Bereiche","format":"[../.git/]YYYY-MM-DD"}`,
		`{"folder":"2_Bereiche","format":"YYYY-MM-DD","template":".obsidian/app"}`,
	} {
		c, dir := dailyCore(t, &now, map[string]string{".obsidian/daily-notes.json": setting})
		r := c.Invoke(context.Background(), readWrite, "open_daily_note", DailyNoteArgs{ChangeSummary: "x"})
		b, _ := os.ReadFile(filepath.Join(dir, ".obsidian/app.json"))
		if strings.Contains(r.Text, string(b)) && len(b) > 0 {
			t.Errorf("%s: the answer shows .obsidian/app.json:\n%s", setting, r.Text)
		}
		for _, p := range []string{".obsidian/2026-12-05.md", ".git/2026-12-05.md"} {
			if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
				t.Errorf("%s: wrote %s", setting, p)
			}
		}
		if strings.Contains(setting, "template") {
			if r.IsError() || strings.Contains(r.Text, "attachmentFolderPath") {
				t.Errorf("%s: %s", setting, r.Text)
			}
		} else if !r.IsError() {
			t.Errorf("%s: not refused:\n%s", setting, r.Text)
		}
	}
}
