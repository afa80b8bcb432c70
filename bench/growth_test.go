package main

import (
	"bytes"
	"strings"
	"testing"
)

// The growth run's copies must add terms of their own while keeping the
// notes' frontmatter and structure.
func TestPerturb(t *testing.T) {
	src := []byte("---\ntitle: Gesetz über das Kreditwesen\njurabk: KWG\n---\n# Gesetz über das Kreditwesen\n\n## § 1 Begriffsbestimmungen\n\nKreditinstitute sind Unternehmen, die Bankgeschäfte gewerbsmäßig betreiben. Straße.\n")
	one := perturb(src, 1, []byte("ce"))
	if !bytes.HasPrefix(one, []byte("---\ntitle: Gesetz über das Kreditwesen\njurabk: KWG\n---\n")) {
		t.Fatalf("frontmatter changed:\n%s", one)
	}
	if bytes.Equal(one, src) || !bytes.Contains(one, []byte("ce")) {
		t.Fatalf("copy 1 adds no syllable:\n%s", one)
	}
	if !bytes.Equal(one, perturb(src, 1, []byte("ce"))) {
		t.Fatal("perturb is not deterministic")
	}
	two := perturb(src, 2, []byte("fi"))
	if bytes.Equal(one, two) {
		t.Fatal("copies 1 and 2 are the same")
	}
	for _, line := range []string{"# ", "## § 1 ", "Straße."} {
		if !bytes.Contains(one, []byte(line)) {
			t.Errorf("copy 1 lost %q:\n%s", line, one)
		}
	}
	// Words next to non-ASCII letters are left whole (no syllable inside
	// "gewerbsmäßig").
	if !strings.Contains(string(one), "mäßig") {
		t.Errorf("a word with umlauts was cut:\n%s", one)
	}
}
