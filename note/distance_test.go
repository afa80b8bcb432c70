package note

import (
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

func TestDistance_Typos(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"filter", "filter", 0},
		{"fliter", "filter", 1},         // swap
		{"gesetzbcuh", "gesetzbuch", 1}, // swap
		{"filtr", "filter", 1},          // missing letter
		{"filtter", "filter", 1},        // doubled letter
		{"filtar", "filter", 1},         // changed letter
		{"", "abc", 3},
		{"ca", "abc", 3}, // OSA: no substring edited twice
		{"häuser", "hause", 2},
		{"abcdef", "badcfe", 3},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.b, c.a, got, c.want)
		}
	}
}

// TestDistanceWithin_AgreesWithDistance checks the cut-short form against
// the full one over every limit: it may only stop where the full distance
// is above the limit.
func TestDistanceWithin_AgreesWithDistance(t *testing.T) {
	words := []string{"", "a", "ab", "ba", "abc", "acb", "bca", "filter", "fliter", "filtre", "ifltre", "grundgesetz", "grundgestez", "gruendgesetz", "xyz", "stvo", "stvo_2013", "straßenverkehrs-ordnung"}
	for _, a := range words {
		for _, b := range words {
			full := Distance(a, b)
			for limit := 0; limit <= 8; limit++ {
				d, ok := DistanceWithin(a, b, limit)
				if ok != (full <= limit) || (ok && d != full) || (!ok && d <= limit) {
					t.Errorf("DistanceWithin(%q, %q, %d) = %d, %v; Distance = %d", a, b, limit, d, ok, full)
				}
			}
		}
	}
}

func TestPrefixDistanceWithin(t *testing.T) {
	for _, c := range []struct {
		typed, name string
		limit, want int
		ok          bool
	}{
		{"grundgestez", "grundgesetz für die bundesrepublik deutschland", 2, 1, true},
		{"grundgesetz", "grundgesetz für die bundesrepublik deutschland", 2, 0, true},
		{"grundgesetz", "grundgesetzes änderung", 2, 2, true}, // "grundgesetzes" is one word: 2 letters more
		{"grundgesetz", "grundgesetzesänderungsgesetz", 1, 2, false},
		{"bürgerliches gesetzbcuh", "bürgerliches gesetzbuch", 2, 1, true},
		{"stvo", "stvo 2013", 0, 0, true},
		{"", "abc", 0, 0, true},
		{"xyz", "abc def", 1, 2, false},
	} {
		d, ok := PrefixDistanceWithin(c.typed, c.name, c.limit)
		if ok != c.ok || (ok && d != c.want) {
			t.Errorf("PrefixDistanceWithin(%q, %q, %d) = %d, %v; want %d, %v", c.typed, c.name, c.limit, d, ok, c.want, c.ok)
		}
	}
}

func TestLooseKey(t *testing.T) {
	for in, want := range map[string]string{
		"Array.prototype.filter()": "array prototype filter",
		"  StVO_2013 ":             "stvo 2013",
		"Straßenverkehrs-Ordnung":  "straßenverkehrs ordnung",
		"Café":                     "café", // NFD in, NFC out
		"§ 626 BGB":                "626 bgb",
		"...":                      "",
		// The emoji goes, and its variation selector (a mark) with it.
		"🗂️ 03.02 Design Decisions": "03 02 design decisions",
		"\u0301Zeit":                "zeit",
	} {
		if got := LooseKey(in); got != want {
			t.Errorf("LooseKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzLooseKey checks LooseKey, with its shortcuts for ASCII names and
// for names that are keys already, against its definition.
func FuzzLooseKey(f *testing.F) {
	for _, s := range []string{"", " ", "a b", "a  b", " a", "a ", "stvo 2013", "StVO 2013", "stvo_2013", "Café", "Cafe\u0301", "§ 626 BGB", "x\xffy", "a\u00a0b", "Bürgerliches Gesetzbuch (BGB)", "ÄBC-déf_G", "a\xffB", "Zß\u0301Q", "🗂️ 03.02", "x \ufe0f\u0301y", "\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		space, kept := false, false
		for _, r := range norm.NFC.String(s) {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !(kept && unicode.Is(unicode.Mn, r)) {
				space, kept = b.Len() > 0, false
				continue
			}
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(unicode.ToLower(r))
			kept = true
		}
		if got := LooseKey(s); got != b.String() {
			t.Fatalf("LooseKey(%q) = %q, want %q", s, got, b.String())
		}
	})
}

// FuzzNameKey checks the one-pass NameKey against its definition.
func FuzzNameKey(f *testing.F) {
	for _, s := range []string{"", "  Bürgerliches   Gesetzbuch ", "Café", "Cafe\u0301", "ÄÖÜ ß", "a\tb\nc", "\u00a0x\u0085y", "İstanbul", "ΣΑΣ", "\xff\xfeA", "Straße (BGB)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := NameKey(s), strings.ToLower(NormSpace(s)); got != want {
			t.Errorf("NameKey(%q) = %q, want %q", s, got, want)
		}
	})
}
