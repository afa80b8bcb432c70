package vault

import (
	"slices"
	"testing"

	"github.com/vaultd/vaultd/note"
)

func TestNameTable_Lookup(t *testing.T) {
	tab := NewNameTable([]NameEntry{
		{Path: "b/bgb/index.md", Titles: []string{"Bürgerliches Gesetzbuch", "Bürgerliches Gesetzbuch (BGB)"}},
		{Path: "b/bgbeg/index.md", Titles: []string{"Einführungsgesetz zum Bürgerlichen Gesetzbuche"}},
		{Path: "Projekt/Projekt.md", Titles: []string{"Übersicht"}},
		{Path: "Handbuch/README.md"},
		{Path: "Hugo/_index.md"},
		{Path: "index.md", Titles: []string{"Start"}},
		{Path: "a/Alpha.md", Aliases: []string{"Erster"}},
		{Path: "x/Alpha.md"},
		{Path: "Notiz.md"}, {Path: "notiz.md"},
		{Path: "v/verkkfmausbv/index.md", Titles: []string{"Verordnung über die Berufsausbildung zum Kaufmann/zur Kauffrau"}},
	})
	for _, c := range []struct {
		ref   string
		link  bool
		what  string
		paths []string
	}{
		{"bgb", false, "file name", []string{"b/bgb/index.md"}},
		{"b/bgb", false, "folder", []string{"b/bgb/index.md"}},
		{"B/BGB/", false, "folder", []string{"b/bgb/index.md"}},
		{"b/bgb/index", false, "path", []string{"b/bgb/index.md"}},
		{"bürgerliches   gesetzbuch", false, "title", []string{"b/bgb/index.md"}},
		{"Bürgerliches Gesetzbuch (BGB)", false, "title", []string{"b/bgb/index.md"}},
		{"Projekt", false, "folder", []string{"Projekt/Projekt.md"}}, // the folder and the file agree
		{"Handbuch", false, "folder", []string{"Handbuch/README.md"}},
		{"Hugo", false, "folder", []string{"Hugo/_index.md"}},
		{"Start", false, "title", []string{"index.md"}},
		{"index", false, "path", []string{"index.md"}},
		{"Alpha", false, "file name", []string{"a/Alpha.md", "x/Alpha.md"}},
		{"a/Alpha", false, "path", []string{"a/Alpha.md"}},
		{"erster", false, "alias", []string{"a/Alpha.md"}},
		{"Notiz", false, "path", []string{"Notiz.md"}}, // spelled as asked wins
		{"NOTIZ", false, "path", []string{"Notiz.md", "notiz.md"}},
		{"q/Alpha", false, "", nil}, // a path is taken at its word
		{"q/Alpha", true, "", nil},  // no such path ending either
		{"bgb/index", true, "path ending", []string{"b/bgb/index.md"}},
		{"Verordnung über die Berufsausbildung zum Kaufmann/zur Kauffrau", false, "title", []string{"v/verkkfmausbv/index.md"}},
	} {
		m := tab.Lookup(c.ref, c.link)
		if m.What != c.what || !slices.Equal(m.Paths, c.paths) {
			t.Errorf("Lookup(%q, link %v) = %q %q, want %q %q", c.ref, c.link, m.What, m.Paths, c.what, c.paths)
		}
	}
}

func TestNameTable_ClosestByFolderName(t *testing.T) {
	var entries []NameEntry
	for _, law := range []string{"a/aag", "a/abgg", "a/ao_1977", "b/bgb", "b/bgbeg", "k/kschg", "z/zpo"} {
		entries = append(entries, NameEntry{Path: law + "/index.md"})
	}
	tab := NewNameTable(entries)
	// Every note is index.md: the folder names decide, not the alphabet.
	for ref, want := range map[string]string{
		"x/bgb/index.md":  "b/bgb/index.md",
		"k/kshg/index.md": "k/kschg/index.md",
		"zpo/index.md":    "z/zpo/index.md",
	} {
		m := tab.Lookup(ref, false)
		if m.What != "" || len(m.Closest) == 0 || m.Closest[0] != want {
			t.Errorf("Lookup(%q): closest %q, want %q first", ref, m.Closest, want)
		}
	}
	if got := note.NoteTitle("k/kschg/index.md", &note.Doc{}); got != "kschg" {
		t.Errorf("NoteTitle of an untitled folder note = %q, want the folder's name", got)
	}
}
