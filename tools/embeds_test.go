package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearch_HitEmbedsFollowTheFiles: a hit's embeds, remembered with the
// note's version, are listed again when an attachment comes or goes (the
// index's change journal says so), and when the note changes.
func TestSearch_HitEmbedsFollowTheFiles(t *testing.T) {
	dir := copyExampleVault(t)
	note := filepath.Join(dir, "1_Projekte", "Quokkaplan.md")
	if err := os.WriteFile(note, []byte("# Quokkaplan\n\nDer Lageplan: ![[quokka.png]]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newTestCore(t, dir)
	embeds := func(step string) string {
		t.Helper()
		var out []string
		for range 2 { // the second answer comes from what the first remembered
			r := c.Call(context.Background(), everyone, "search_notes", map[string]any{"query": "Quokkaplan"})
			if r.IsError() {
				t.Fatalf("%s: %s", step, r.Text)
			}
			var got []string
			for _, h := range r.Data.(SearchData).Hits {
				if h.Path == "1_Projekte/Quokkaplan.md" {
					for _, e := range h.Attachments {
						got = append(got, e.File)
					}
				}
			}
			out = append(out, strings.Join(got, ","))
		}
		if out[0] != out[1] {
			t.Errorf("%s: a second search lists %q, the first %q", step, out[1], out[0])
		}
		return out[1]
	}
	if got := embeds("at first"); got != "" {
		t.Errorf("at first: embeds %q, want none (the file is missing)", got)
	}
	png := filepath.Join(dir, "3_Ressourcen", "quokka.png")
	if err := os.WriteFile(png, smallPNG(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.index().Update("3_Ressourcen/quokka.png"); err != nil {
		t.Fatal(err)
	}
	if got := embeds("after the file came"); got != "3_Ressourcen/quokka.png" {
		t.Errorf("after the file came: embeds %q, want 3_Ressourcen/quokka.png", got)
	}
	if err := os.Remove(png); err != nil {
		t.Fatal(err)
	}
	if err := c.index().Update("3_Ressourcen/quokka.png"); err != nil {
		t.Fatal(err)
	}
	if got := embeds("after the file went"); got != "" {
		t.Errorf("after the file went: embeds %q, want none", got)
	}
	if err := os.WriteFile(png, smallPNG(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.index().Update("3_Ressourcen/quokka.png"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte("# Quokkaplan\n\nKein Bild mehr.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.index().Update("1_Projekte/Quokkaplan.md"); err != nil {
		t.Fatal(err)
	}
	if got := embeds("after the note changed"); got != "" {
		t.Errorf("after the note changed: embeds %q, want none", got)
	}
}
