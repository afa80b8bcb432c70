package index

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

// checkRefs checks that every heading's Ref, given to read_note as its
// heading argument, names that heading alone.
func checkRefs(t *testing.T, name string, src []byte) {
	t.Helper()
	d := note.Parse(src)
	refs := headingRefs(d)
	for i, h := range d.Headings {
		got, err := d.Section(refs[i])
		if err != nil {
			t.Errorf("%s: heading %q (line %d): ref %q: %v", name, h.PathString(), h.Line, refs[i], err)
			continue
		}
		if got.Line != h.Line {
			t.Errorf("%s: heading %q (line %d): ref %q names line %d", name, h.PathString(), h.Line, refs[i], got.Line)
		}
	}
}

// TestHeadingRefs_Resolve: the short names search hits give sections
// resolve to the section, in every note of the example vault and in notes
// with repeated, nested and odd headings.
func TestHeadingRefs_Resolve(t *testing.T) {
	root := filepath.Join("..", "example-vault")
	n := 0
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		checkRefs(t, p, b)
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walk %s: %d notes, %v", root, n, err)
	}
	long := "Der Betriebsrat besteht in Betrieben mit in der Regel 5 bis 20 wahlberechtigten Arbeitnehmern aus einer Person, 21 bis 50 wahlberechtigten Arbeitnehmern aus 3 Mitgliedern."
	for name, src := range map[string]string{
		"twins":    "# A\n## Ziele\nx\n## Ziele\ny\n# B\n## Ziele\nz\n",
		"nested":   "# Projekte\n## Ziele\n### Offen\n# Archiv\n## Ziele\n### Offen\n",
		"skipped":  "# A\n## B\n### C\n# D\n### C\n## E\n### C\n",
		"odd":      "# a > b\n## c\n# a\n## b\n### c\n## ## x\n## (line 3)\n## Fußnote\n## Fußnote\n",
		"spaces":   "# Zwei  Leerzeichen\n## X\n# Zwei Leerzeichen\n## X\n",
		"case":     "# Ziele\n## ziele\n# ZIELE\n",
		"law-like": "# G\n## § 1 A\n### Fußnote\n## § 2 B\n### Fußnote\n## § 3 (weggefallen)\n## § 4 (weggefallen)\n",
		// Paragraphs above a line of dashes are headings: long ones
		// are named by their first words, unless those name another.
		"setext": "# G\n## § 9 Zahl\n" + long + "\n-----\n\n" + long + " Und noch ein Satz, der diesen Absatz vom ersten unterscheidet.\n---\n\nDer Betriebsrat besteht in Betrieben\n---\n",
	} {
		checkRefs(t, name, []byte(src))
	}
	refs := headingRefs(note.Parse([]byte("# G\n" + long + "\n---\n\nDer Betriebsrat besteht in Betrieben\n---\n")))
	if want := "Der Betriebsrat besteht in Betrieben mit"; refs[1] != want {
		t.Errorf("a long heading's ref: %q, want %q", refs[1], want)
	}
}
