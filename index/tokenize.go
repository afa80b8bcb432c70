package index

import (
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/segment"
)

// wordTokenizer splits text into words at Unicode's word boundaries (UAX
// #29), giving the tokens bleve's unicode tokenizer gives: the same terms,
// offsets, positions and types. That tokenizer runs a general scanner over
// every byte (github.com/blevesearch/segment), a fifth of a build's
// analysis. Most text of a vault is in scripts whose word boundaries take
// a few rules: here, a run of text between ASCII white space in which every
// character is one of a known set (ASCII, Latin-1 and the common
// typographic punctuation) is split by those rules directly; any other run
// goes to the scanner. White space ends a word under every rule of UAX #29,
// so the runs can be split apart. TestTokenize_AsBleve and FuzzTokenize
// hold it to the scanner.
type wordTokenizer struct{}

// Word break classes of the characters the rules handle (UAX #29, table
// 3); wbUnknown sends a run to the scanner.
const (
	wbUnknown   uint8 = iota
	wbOther           // breaks on both sides
	wbLetter          // ALetter
	wbNumeric         // Numeric
	wbExtNumLet       // ExtendNumLet: "_"
	wbMidLetter       // MidLetter: ":", "·"
	wbMidNum          // MidNum: ",", ";"
	wbMidNumLet       // MidNumLet and Single_Quote: ".", "'", "’", "‘"
	wbSpace           // ASCII white space: ends a run
)

// latinClass is the class of each character below U+0100.
var latinClass = func() [256]uint8 {
	var t [256]uint8
	for c := 0; c < 0x80; c++ {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			t[c] = wbLetter
		case c >= '0' && c <= '9':
			t[c] = wbNumeric
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			t[c] = wbSpace
		case c < 0x20 || c == 0x7f:
			t[c] = wbUnknown // control characters: the scanner's business
		default:
			t[c] = wbOther
		}
	}
	t['_'] = wbExtNumLet
	t[':'] = wbMidLetter
	t[','], t[';'] = wbMidNum, wbMidNum
	t['.'], t['\''] = wbMidNumLet, wbMidNumLet
	// Latin-1: letters, and the signs between them. U+0080–U+009F
	// (controls, NEL a line break) and U+00AD (soft hyphen, a format
	// character that words run through) stay unknown.
	for c := 0xa0; c < 0x100; c++ {
		t[c] = wbOther
	}
	for c := 0xc0; c < 0x100; c++ {
		t[c] = wbLetter
	}
	t[0xd7], t[0xf7] = wbOther, wbOther                      // × ÷
	t[0xaa], t[0xb5], t[0xba] = wbLetter, wbLetter, wbLetter // ª µ º
	t[0xb7] = wbMidLetter                                    // ·
	t[0xad] = wbUnknown
	return t
}()

// runeClass is the class of r.
func runeClass(r rune) uint8 {
	if r < 0x100 {
		return latinClass[r]
	}
	switch r {
	case '‘', '’':
		return wbMidNumLet
	case '–', '—', '‚', '“', '”', '„', '…', '•', '€', '‹', '›':
		return wbOther
	}
	return wbUnknown
}

// Tokenize implements analysis.Tokenizer.
func (wordTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var tz tokenizing
	// About one word in seven bytes of prose.
	tz.tokens = make([]analysis.Token, 0, len(input)/7+1)
	tz.out = make(analysis.TokenStream, 0, len(input)/7+1)
	tz.pos = 1
	for i := 0; i < len(input); {
		if latinClass[input[i]] == wbSpace {
			i++
			continue
		}
		j := i
		for j < len(input) && latinClass[input[j]] != wbSpace {
			j++
		}
		if !tz.rules(input, i, j) {
			tz.scan(input, i, j)
		}
		i = j
	}
	return tz.out
}

// tokenizing is the state of one Tokenize call.
type tokenizing struct {
	tokens []analysis.Token // backing the pointers of out, in chunks
	out    analysis.TokenStream
	pos    int // the next word's position
	cls    []uint8
	at     []int // each character's byte offset in the run, then the run's end
}

// emit adds the word input[start:end].
func (tz *tokenizing) emit(input []byte, start, end int, typ analysis.TokenType) {
	if len(tz.tokens) == cap(tz.tokens) {
		tz.tokens = make([]analysis.Token, 0, max(64, cap(tz.tokens)))
	}
	tz.tokens = append(tz.tokens, analysis.Token{Term: input[start:end], Start: start, End: end, Position: tz.pos, Type: typ})
	tz.out = append(tz.out, &tz.tokens[len(tz.tokens)-1])
	tz.pos++
}

// rules splits the run input[i:j] by the word break rules, or returns false
// (having emitted nothing) when it holds a character they do not handle.
func (tz *tokenizing) rules(input []byte, i, j int) bool {
	cls, at := tz.cls[:0], tz.at[:0]
	for k := i; k < j; {
		c := input[k]
		if c < utf8.RuneSelf {
			cls, at = append(cls, latinClass[c]), append(at, k)
			if latinClass[c] == wbUnknown {
				return false
			}
			k++
			continue
		}
		r, size := utf8.DecodeRune(input[k:j])
		if r == utf8.RuneError && size <= 1 {
			return false
		}
		cl := runeClass(r)
		if cl == wbUnknown {
			return false
		}
		cls, at = append(cls, cl), append(at, k)
		k += size
	}
	at = append(at, j)
	tz.cls, tz.at = cls, at

	for s := 0; s < len(cls); {
		// The type bleve's scanner gives the segment: a word with a
		// letter, a number with digits but no letter, a word of
		// underscores alone; anything else is no token.
		var has [wbSpace + 1]bool
		has[cls[s]] = true
		e := s + 1
		for e < len(cls) && joined(cls, e) {
			has[cls[e]] = true
			e++
		}
		switch {
		case has[wbLetter] || (has[wbExtNumLet] && !has[wbNumeric]):
			tz.emit(input, at[s], at[e], analysis.AlphaNumeric)
		case has[wbNumeric]:
			tz.emit(input, at[s], at[e], analysis.Numeric)
		}
		s = e
	}
	return true
}

// joined reports whether no word boundary lies between the characters
// k-1 and k of a run of classes cls (UAX #29 WB5–WB13b; the others do not
// apply within a run of known characters).
func joined(cls []uint8, k int) bool {
	p, c := cls[k-1], cls[k]
	switch c {
	case wbLetter:
		switch p {
		case wbLetter, wbNumeric, wbExtNumLet: // WB5, WB10, WB13b
			return true
		case wbMidLetter, wbMidNumLet: // WB7
			return k >= 2 && cls[k-2] == wbLetter
		}
	case wbNumeric:
		switch p {
		case wbNumeric, wbLetter, wbExtNumLet: // WB8, WB9, WB13b
			return true
		case wbMidNum, wbMidNumLet: // WB11
			return k >= 2 && cls[k-2] == wbNumeric
		}
	case wbExtNumLet: // WB13a
		return p == wbLetter || p == wbNumeric || p == wbExtNumLet
	case wbMidLetter, wbMidNum, wbMidNumLet:
		if k+1 == len(cls) {
			return false
		}
		next := cls[k+1]
		return p == wbLetter && next == wbLetter && c != wbMidNum || // WB6
			p == wbNumeric && next == wbNumeric && c != wbMidLetter // WB12
	}
	return false
}

// scan splits the run input[i:j] with bleve's scanner.
func (tz *tokenizing) scan(input []byte, i, j int) {
	seg := segment.NewWordSegmenterDirect(input[i:j])
	start := i
	for seg.Segment() {
		end := start + len(seg.Bytes())
		switch seg.Type() {
		case segment.None:
		case segment.Ideo, segment.Kana:
			tz.emit(input, start, end, analysis.Ideographic)
		case segment.Number:
			tz.emit(input, start, end, analysis.Numeric)
		default:
			tz.emit(input, start, end, analysis.AlphaNumeric)
		}
		start = end
	}
}
