package note

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestNames_Accepted(t *testing.T) {
	for _, c := range []struct{ in, clean, note string }{
		{"1_Projekte/Alpha.md", "1_Projekte/Alpha.md", "1_Projekte/Alpha.md"},
		{"1_Projekte/Alpha", "1_Projekte/Alpha", "1_Projekte/Alpha.md"},
		{"./a//b.md", "a/b.md", "a/b.md"},
		{"a/./b/", "a/b", "a/b.md"},
		{"U\u0308bersicht.md", "Übersicht.md", "Übersicht.md"}, // NFD in, NFC out
		{"Version 2.0 Planung", "Version 2.0 Planung", "Version 2.0 Planung.md"},
		{"Notes/2024.01", "Notes/2024.01", "Notes/2024.01.md"},
		{"Notiz.MD", "Notiz.MD", "Notiz.MD"},
		{"🚀 Launch/👩‍💻 Team.md", "🚀 Launch/👩‍💻 Team.md", "🚀 Launch/👩‍💻 Team.md"}, // ZWJ kept
		{"~Entwurf.md", "~Entwurf.md", "~Entwurf.md"},
		{"a/~/b.md", "a/~/b.md", "a/~/b.md"},
		{"%2e%2e/x.md", "%2e%2e/x.md", "%2e%2e/x.md"}, // literal folder name, inside the vault
		{"CONSOLE.md", "CONSOLE.md", "CONSOLE.md"},
		{"COM10.md", "COM10.md", "COM10.md"},
		{"a..b.md", "a..b.md", "a..b.md"},
	} {
		got, err := CleanPath(c.in)
		if err != nil || got != c.clean {
			t.Errorf("CleanPath(%q): got %q, %v; want %q", c.in, got, err, c.clean)
		}
		got, err = NotePath(c.in)
		if err != nil || got != c.note {
			t.Errorf("NotePath(%q): got %q, %v; want %q", c.in, got, err, c.note)
		}
	}
}

// TestNames_AbsoluteNotEchoed: an absolute path is not repeated in the
// error, so that no host path reaches an agent through it.
func TestNames_AbsoluteNotEchoed(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{filepath.Join(dir, "x.md"), "C:/Users/anna/Vault/x.md", "file://" + dir} {
		_, err := NotePath(p)
		if e, ok := AsError(err); !ok || e.Path != "" || strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), "anna") {
			t.Errorf("NotePath(%q): got %v, want an error without the path", p, err)
		}
	}
}
