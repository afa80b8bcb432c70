package rules

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"
)

const (
	uComposed   = "\u00dc"  // Ü as one code point
	uDecomposed = "U\u0308" // U + combining diaeresis
	uSmallNFD   = "u\u0308" // ü decomposed
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		// ** at the end: the folder itself and everything below.
		{"4_Archiv/**", "4_Archiv/Alt.md", true},
		{"4_Archiv/**", "4_Archiv/2023/Q1/Alt.md", true},
		{"4_Archiv/**", "4_Archiv", true},
		{"4_Archiv/**", "4_ArchivX/Alt.md", false},
		{"4_Archiv/**", "1_Projekte/4_Archiv/Alt.md", false},
		// ** at the start: any depth, none included.
		{"**/Entwurf.md", "Entwurf.md", true},
		{"**/Entwurf.md", "1_Projekte/Alpha/Entwurf.md", true},
		{"**/Entwurf.md", "1_Projekte/Alpha/Entwurf 2.md", false},
		{"**/Archiv", "1_Projekte/Alpha/Archiv/Alt.md", true},
		// ** in the middle.
		{"1_Projekte/**/Plan.md", "1_Projekte/Plan.md", true},
		{"1_Projekte/**/Plan.md", "1_Projekte/Alpha/Beta/Plan.md", true},
		{"1_Projekte/**/Plan.md", "1_Projekte/Alpha/Beta/Plan2.md", false},
		{"1_Projekte/**/Plan.md", "2_Bereiche/Alpha/Plan.md", false},
		{"a/**/**/b", "a/b", true},
		{"**/Archiv/**", "x/Archiv/y/z.md", true},
		{"**", "1_Projekte/Alpha/Plan.md", true},
		// * and ? stay within one segment.
		{"*.md", "Notiz.md", true},
		{"*.md", "0_Inbox/Notiz.md", false},
		{"4_Archiv/*.md", "4_Archiv/2023/Alt.md", false},
		{"4_Archiv/*", "4_Archiv/2023/Alt.md", true}, // * matches the folder 2023, which covers its notes
		{"a*b.md", "a/b.md", false},
		{"a*b*c.md", "aXbYbZc.md", true},
		{"*/Archiv/*.md", "1_Projekte/Archiv/Alt.md", true},
		{"Notiz?.md", "Notiz1.md", true},
		{"?.md", "ab.md", false},
		{"Projekt ?", "Projekt A/Plan.md", true},
		{"**/*.png", "Anhänge/Bilder/a.png", true},
		// A folder without wildcards covers what is inside.
		{"4_Archiv", "4_Archiv/Alt.md", true},
		{"4_Archiv/", "4_Archiv/2023/Alt.md", true},
		{"4_Archiv", "4_Archiv.md", false},
		{"4_Archiv/Alt.md", "4_Archiv/Alt.md", true},
		{"4_Archiv/Alt.md", "4_Archiv/Alt.md.bak", false},
		// Case and Unicode normalisation.
		{"4_archiv/**", "4_ARCHIV/alt.md", true},
		{"9_System/**", "9_system/Regeln.md", true},
		{uComposed + "ber/**", uSmallNFD + "ber/Notiz.md", true},
		{uDecomposed + "ber/*", "\u00fcber/Notiz.md", true},
		{uDecomposed + "ber/*", uComposed + "ber/Notiz.md", true},
		{"?.md", uSmallNFD + ".md", true}, // one character after NFC
		{"Gr" + uComposed + "n*", "gr" + uSmallNFD + "ne Ideen.md", true},
		// Spelling of patterns and paths.
		{"/4_Archiv/**", "4_Archiv/Alt.md", true},
		{"./4_Archiv//**", "4_Archiv/Alt.md", true},
		{`4_Archiv\**`, "4_Archiv/Alt.md", true},
		{"4_Archiv/**", "4_Archiv/../1_Projekte/Plan.md", false},
		{"4_Archiv/**", "1_Projekte/../4_Archiv/Alt.md", true},
		// Patterns and paths that name nothing.
		{"", "Notiz.md", false},
		{"/", "Notiz.md", false},
		{"../4_Archiv/**", "4_Archiv/Alt.md", false},
		{"*", "", false},
		{"**", "..", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%+q, %+q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

// A pattern with several ** against a deep path must not take exponential
// time: the path comes from an agent.
func TestMatch_ManyDoubleStars(t *testing.T) {
	pattern := strings.Repeat("**/a/", 8) + "b"
	name := strings.Repeat("a/", 200) + "c.md"
	start := time.Now()
	if Match(pattern, name) {
		t.Errorf("Match(%q, %q) = true, want false", pattern, name)
	}
	if d := time.Since(start); d > 20*time.Second { // backtracking would take years; a loaded machine only seconds
		t.Errorf("Match took %v", d)
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("4_Archiv/**", "4_Archiv/Alt.md")
	f.Add("**/a*b?/**", "x/aXbY/z.md")
	f.Add(uComposed+"/*", uDecomposed+"/n.md")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		got := Match(pattern, name)
		// Normalisation and case never change the answer.
		if g := Match(norm.NFD.String(pattern), norm.NFD.String(name)); g != got {
			t.Errorf("Match(NFD %q, NFD %q) = %v, but %v for NFC", pattern, name, g, got)
		}
		// A clean path without wildcards matches itself and what is under it.
		if !strings.ContainsAny(name, `*?\`) {
			if segs, ok := splitName(name); ok && !strings.Contains(strings.Join(segs, "/"), "..") {
				clean := strings.Join(segs, "/")
				if !Match(clean, name) {
					t.Errorf("Match(%q, %q) = false, want true (a path matches itself)", clean, name)
				}
				if !Match(clean, name+"/x.md") {
					t.Errorf("Match(%q, %q) = false, want true (a folder covers its notes)", clean, name+"/x.md")
				}
			}
		}
	})
}
