package vault

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

func TestObsidian_Settings(t *testing.T) {
	dir := t.TempDir()
	writeObsidian := func(app string) ObsidianSettings {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".obsidian", "app.json"), []byte(app), 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := Open(dir, Options{StateDir: t.TempDir(), NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		return v.Obsidian()
	}
	s := writeObsidian(`{"userIgnoreFilters": ["4_Archiv/", "Privat/Tage", "/\\.excalidraw\\.md$/", "/^Vorlagen/", "/[unclosed/", " "], "useMarkdownLinks": true, "newLinkFormat": "relative"}`)
	if !s.UseMarkdownLinks || s.NewLinkFormat != "relative" {
		t.Errorf("useMarkdownLinks %v, newLinkFormat %q; want true, relative", s.UseMarkdownLinks, s.NewLinkFormat)
	}
	if want := []string{"4_Archiv/", "Privat/Tage", `/\.excalidraw\.md$/`, "/^Vorlagen/"}; !slices.Equal(s.IgnoreFilters, want) {
		t.Errorf("filters %q, want %q (a filter that does not compile and an empty one are dropped)", s.IgnoreFilters, want)
	}
	if got := s.ExcludedFolders(); !slices.Equal(got, []string{"4_Archiv"}) {
		t.Errorf("excluded folders %q, want [4_Archiv]", got)
	}
	for p, want := range map[string]bool{
		"4_Archiv/Alt.md": true, "4_ArchivX.md": false, "Privat/Tagebuch/1.md": true, "Privat/Tag.md": false,
		"1_Projekte/Skizze.excalidraw.md": true, "1_Projekte/Skizze.md": false, "Vorlagen/Brief.md": true, "1/Vorlagen/Brief.md": false,
	} {
		_, got := s.Excluded(p)
		if got != want {
			t.Errorf("Excluded(%q) = %v, want %v", p, got, want)
		}
		// PathPatterns (for the index) agree with Excluded on every path
		// but the folder filters, which ExcludedFolders covers.
		matched := false
		for _, re := range s.PathPatterns() {
			if regexp.MustCompile("^(?:" + re + ")$").MatchString(p) {
				matched = true
			}
		}
		if p != "4_Archiv/Alt.md" && matched != want {
			t.Errorf("PathPatterns %q match %q: %v, want %v", s.PathPatterns(), p, matched, want)
		}
	}
	if s := writeObsidian(`not json`); len(s.IgnoreFilters) != 0 || s.UseMarkdownLinks {
		t.Errorf("invalid app.json: want Obsidian's defaults, got %+v", s)
	}
}
