package note

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Distance is the edit distance between a and b in runes, as people make
// typos: a letter left out, added or changed costs one, and so does a swap
// of two neighbouring letters ("fliter" for "filter", "Gesetzbcuh" for
// "Gesetzbuch": one slip, where plain Levenshtein counts two). It is the
// optimal string alignment distance (no substring is edited twice). It
// ranks "closest" alternatives in error messages.
func Distance(a, b string) int {
	d, _ := DistanceWithin(a, b, -1)
	return d
}

// DistanceWithin is Distance, cut short once it must exceed limit (a
// limit < 0 means none): ok is false then, and d is some value above
// limit. The name lookup compares a typed name with every name of a vault
// this way, most of them far off after a few rows.
func DistanceWithin(a, b string, limit int) (d int, ok bool) {
	var s Speller
	return s.Within([]rune(a), []rune(b), limit)
}

// PrefixDistanceWithin is the least Distance between typed and a start of
// name that ends at a word boundary (the end of name, or before a rune
// that is no letter or digit), cut short above limit as DistanceWithin
// is. "grundgestez" is one slip from the start of "grundgesetz für die
// bundesrepublik deutschland".
func PrefixDistanceWithin(typed, name string, limit int) (d int, ok bool) {
	var s Speller
	return s.PrefixWithin([]rune(typed), []rune(name), limit)
}

// A Speller computes Distance on runes, reusing its rows from one call to
// the next (a name lookup makes tens of thousands of them). The zero value
// is ready; it is not safe for concurrent use.
type Speller struct {
	rows [3][]int
}

func (s *Speller) grow(n int) (prev2, prev, cur []int) {
	for i := range s.rows {
		if cap(s.rows[i]) < n {
			s.rows[i] = make([]int, n, 2*n)
		}
		s.rows[i] = s.rows[i][:n]
	}
	return s.rows[0], s.rows[1], s.rows[2]
}

// Within is DistanceWithin on runes.
func (s *Speller) Within(ra, rb []rune, limit int) (d int, ok bool) {
	if limit >= 0 && abs(len(ra)-len(rb)) > limit {
		return limit + 1, false
	}
	if len(ra) == 0 {
		return len(rb), limit < 0 || len(rb) <= limit
	}
	if len(rb) == 0 {
		return len(ra), limit < 0 || len(ra) <= limit
	}
	last, ok := s.table(ra, rb, len(rb), limit)
	if !ok {
		return limit + 1, false
	}
	d = last[len(rb)]
	return d, limit < 0 || d <= limit
}

// PrefixWithin is PrefixDistanceWithin on runes. One table serves every
// start of name: its last row holds typed's distance to each of them.
func (s *Speller) PrefixWithin(ra, rb []rune, limit int) (d int, ok bool) {
	if limit < 0 {
		limit = len(ra) + len(rb)
	}
	if len(ra) == 0 {
		return 0, true
	}
	end := min(len(rb), len(ra)+limit) // a longer start is too far already
	last, ok := s.table(ra, rb, end, limit)
	if !ok {
		return limit + 1, false
	}
	best := limit + 1
	for j := max(1, len(ra)-limit); j <= end; j++ {
		if j < len(rb) && isWordRune(rb[j]) {
			continue // not a word boundary
		}
		best = min(best, last[j])
	}
	return best, best <= limit
}

// table fills the optimal string alignment table of ra against rb[:end]
// and returns its last row; ok false when every cell of two rows in a row
// is above limit (limit < 0: never), as nothing can come back under it.
func (s *Speller) table(ra, rb []rune, end, limit int) ([]int, bool) {
	prev2, prev, cur := s.grow(end + 1)
	for j := range prev {
		prev[j] = j
	}
	prevMin := 0
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= end; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] && ra[i-1] != rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		// A swap reaches back two rows: only when neither this row nor
		// the one before can still lead under limit is the rest hopeless.
		if limit >= 0 && rowMin > limit && prevMin+1 > limit {
			return nil, false
		}
		prevMin = rowMin
		prev2, prev, cur = prev, cur, prev2
	}
	return prev, true
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// LooseKey is how the closest-name ranking compares names: NFC, lower
// case, every run of what is no letter or digit one space, none at the
// ends: "Array.prototype.filter()", "array prototype filter" and
// "Array_Prototype-Filter" are one key, and so are a law's folder name
// "stvo_2013" and "StVO 2013".
func LooseKey(s string) string {
	// Most names are ASCII: they need no normalisation, and one that is
	// a key already (lower case, single spaces) is its own key.
	ascii, key := true, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			ascii, key = false, false
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
		case c == ' ' && i > 0 && i < len(s)-1 && s[i-1] != ' ':
		default:
			key = false
		}
		if !ascii {
			break
		}
	}
	if key {
		return s
	}
	if !ascii {
		s = norm.NFC.String(s)
	}
	// Byte by byte where the name is ASCII (most of a German title is),
	// rune by rune elsewhere: twice as fast on the laws' names as runes
	// throughout, and a restart of a large vault keys every name.
	var b strings.Builder
	b.Grow(len(s))
	space := false
	kept := false // the last rune was written: a mark after it belongs to it
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				space, kept = b.Len() > 0, false
				continue
			}
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteByte(c)
			kept = true
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		// A mark is part of the letter before it; after a symbol it is
		// the symbol's (the variation selector of the emoji "🗂️"), and
		// goes with it: "🗂️ 03.02 Design" is "03 02 design".
		if !isWordRune(r) || !kept && unicode.Is(unicode.Mn, r) {
			space, kept = b.Len() > 0, false
			continue
		}
		kept = true
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
