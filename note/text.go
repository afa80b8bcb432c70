package note

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Notes vaultd edits are UTF-8 text. A note's bytes can be something else
// when a program other than vaultd wrote them: a teammate's git with
// `working-tree-encoding=UTF-16LE-BOM` in .gitattributes, an old editor
// saving Latin-1, a tool writing UTF-16 without a byte-order mark, or
// git-lfs's pointer file standing where the note's text should be.
// Appending UTF-8 to such a file mixes two encodings in one file, and a
// section edit cuts it at offsets that mean nothing in it, so vaultd shows
// such a note (decoded where it can) and edits none: CheckText says why a
// note is not editable text, DisplayText what a reader is shown.

// TextProblem says why a note's bytes are not text vaultd edits.
type TextProblem struct {
	// Encoding names what the bytes are, when that is known: "UTF-16 LE",
	// "UTF-16 BE", "UTF-32 LE", "UTF-32 BE", "GB18030" (each told by its
	// byte-order mark, BOM set) or guessed from the NUL bytes of UTF-16 or
	// UTF-32 without one (Guessed set); "" when the bytes are simply not
	// valid UTF-8, or hold a NUL byte, or are an LFS pointer.
	Encoding string
	BOM      bool
	Guessed  bool
	// LFS: the file is a Git LFS pointer (the note's text lives in LFS
	// storage and was not fetched: git-lfs is missing or was skipped).
	LFS bool
	// Offset is the first byte that is not UTF-8 text — the start of an
	// invalid sequence, or a NUL byte (NUL set) — and Line and Column
	// (1-based, Column in characters) where it is; Offset is -1 when the
	// whole file is in another encoding or an LFS pointer.
	Offset       int
	Line, Column int
	Byte         byte
	NUL          bool
}

// Decodable reports whether DisplayText shows the text as it was written
// (a UTF-16 or UTF-32 text), not with replacement characters.
func (p *TextProblem) Decodable() bool { return p.Encoding != "" && p.Encoding != "GB18030" }

// String says in one phrase what the bytes are, for a message: "UTF-16 LE
// text (it starts with a UTF-16 LE byte-order mark)", "not valid UTF-8:
// byte 0xE9 at line 3, column 5 is not UTF-8 (the text may be Latin-1 or
// Windows-1252)".
func (p *TextProblem) String() string {
	switch {
	case p.LFS:
		return "a Git LFS pointer file, not the note's text (the text lives in Git LFS storage and was not fetched into this clone)"
	case p.BOM:
		return fmt.Sprintf("%s text (it starts with a %s byte-order mark)", p.Encoding, p.Encoding)
	case p.Guessed:
		return fmt.Sprintf("%s text without a byte-order mark, told by the NUL and control bytes in every other place (the first at line %d, column %d)", p.Encoding, p.Line, p.Column)
	case p.NUL:
		return fmt.Sprintf("not text: it holds a NUL byte at line %d, column %d (byte %d), which no UTF-8 note has and git takes for a binary file", p.Line, p.Column, p.Offset+1)
	}
	return fmt.Sprintf("not valid UTF-8: byte 0x%02X at line %d, column %d (byte %d of the file) is not UTF-8 (the text may be Latin-1 or Windows-1252)",
		p.Byte, p.Line, p.Column, p.Offset+1)
}

// Brief says what is wrong with the bytes without where, as a predicate:
// "is UTF-16 LE text, not UTF-8", "holds a NUL byte" (for a text that is
// not a note's yet).
func (p *TextProblem) Brief() string {
	switch {
	case p.LFS:
		return "is a Git LFS pointer file"
	case p.Encoding != "":
		return "is " + p.Encoding + " text, not UTF-8"
	case p.NUL:
		return "holds a NUL byte"
	}
	return fmt.Sprintf("is not valid UTF-8 (it holds the byte 0x%02X; it may be Latin-1 or Windows-1252)", p.Byte)
}

// byte-order marks, longest first: UTF-32 LE's starts with UTF-16 LE's.
var boms = []struct {
	mark []byte
	name string
}{
	{[]byte{0xFF, 0xFE, 0x00, 0x00}, "UTF-32 LE"},
	{[]byte{0x00, 0x00, 0xFE, 0xFF}, "UTF-32 BE"},
	{[]byte{0x84, 0x31, 0x95, 0x33}, "GB18030"},
	{[]byte{0xFF, 0xFE}, "UTF-16 LE"},
	{[]byte{0xFE, 0xFF}, "UTF-16 BE"},
}

// lfsPointer starts a Git LFS pointer file (git-lfs.github.com/spec/v1).
const lfsPointer = "version https://git-lfs.github.com/spec/v1\n"

// CheckText returns why b is not UTF-8 text vaultd edits, or nil when it
// is: valid UTF-8, with or without a UTF-8 byte-order mark, no NUL byte,
// not an LFS pointer. Empty bytes are text.
func CheckText(b []byte) *TextProblem {
	for _, m := range boms {
		if bytes.HasPrefix(b, m.mark) {
			return &TextProblem{Encoding: m.name, BOM: true, Offset: -1}
		}
	}
	nul := bytes.IndexByte(b, 0)
	bad := invalidAt(b)
	if nul < 0 && bad < 0 {
		// UTF-16 of Cyrillic, Greek, Hebrew or Arabic text without a
		// byte-order mark can be valid UTF-8 byte for byte (U+043F is
		// 3F 04): its control bytes in every other place tell it.
		if enc := guessWide(b); enc != "" {
			at := bytes.IndexFunc(b, func(r rune) bool { return isLow(byte(r)) })
			p := &TextProblem{Encoding: enc, Guessed: true, Offset: max(at, 0), Byte: b[max(at, 0)]}
			p.Line, p.Column = lineCol(b, p.Offset)
			return p
		}
		if len(b) < 1024 && bytes.HasPrefix(b, []byte(lfsPointer)) && bytes.Contains(b, []byte("\noid sha256:")) {
			return &TextProblem{LFS: true, Offset: -1}
		}
		return nil
	}
	at := bad
	if nul >= 0 && (bad < 0 || nul < bad) {
		at = nul
	}
	p := &TextProblem{Offset: at, Byte: b[at], NUL: at == nul}
	p.Line, p.Column = lineCol(b, at)
	if enc := guessWide(b); enc != "" {
		p.Encoding, p.Guessed = enc, true
	}
	return p
}

// lineCol is where byte at of b is: line and column (in characters), from 1.
func lineCol(b []byte, at int) (int, int) {
	return bytes.Count(b[:at], []byte("\n")) + 1, utf8.RuneCount(b[bytes.LastIndexByte(b[:at], '\n')+1:at]) + 1
}

// isLow reports a NUL or control byte that no text but UTF-16 and UTF-32
// has in every other place: 0x00–0x08 and 0x0E–0x1F (tab, line feed,
// vertical tab, form feed and carriage return excluded).
func isLow(c byte) bool { return c < 0x09 || c >= 0x0E && c < 0x20 }

// invalidAt is the offset of the first byte of b that starts no valid
// UTF-8 sequence, or -1.
func invalidAt(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// guessWide tells UTF-16 and UTF-32 without a byte-order mark by where
// their NUL and control bytes fall among the first 4 KB (isLow): text in
// Latin letters has a NUL in every other byte (UTF-16) or three in four
// (UTF-32), Cyrillic or Greek UTF-16 a control byte (0x04, 0x03) in every
// other; "" when they fall anywhere, or there are hardly any.
func guessWide(b []byte) string {
	n := min(len(b), 4096) &^ 3
	if n < 4 {
		return ""
	}
	var at [4]int
	for i := range n {
		if isLow(b[i]) {
			at[i%4]++
		}
	}
	quarter := n / 4
	switch {
	case at[1]+at[2]+at[3] >= 3*quarter*9/10 && at[0] < quarter/10:
		return "UTF-32 LE"
	case at[0]+at[1]+at[2] >= 3*quarter*9/10 && at[3] < quarter/10:
		return "UTF-32 BE"
	case at[1]+at[3] >= 2*quarter*6/10 && at[0]+at[2] < 2*quarter/10:
		return "UTF-16 LE"
	case at[0]+at[2] >= 2*quarter*6/10 && at[1]+at[3] < 2*quarter/10:
		return "UTF-16 BE"
	}
	return ""
}

// DisplayText returns the text of bytes that are not UTF-8 text (p is
// CheckText's answer), as a reader is shown it: UTF-16 and UTF-32 decoded
// (a byte-order mark dropped); anything else as UTF-8 with each byte that
// is not UTF-8 as U+FFFD and each NUL as U+2400 (␀). how is p.Shown().
func DisplayText(b []byte, p *TextProblem) (text []byte, how string) {
	switch {
	case p == nil:
		return b, ""
	case p.Decodable():
		body := b
		if p.BOM && len(b) >= 2 {
			body = b[map[bool]int{true: 4, false: 2}[strings.HasPrefix(p.Encoding, "UTF-32")]:]
		}
		return decodeWide(body, p.Encoding), p.Shown()
	case p.LFS:
		return b, p.Shown()
	}
	var out []byte
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out = utf8.AppendRune(out, utf8.RuneError)
		case r == 0:
			out = utf8.AppendRune(out, '\u2400')
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out, p.Shown()
}

// Shown says how DisplayText shows the bytes, in a phrase: "decoded from
// UTF-16 LE".
func (p *TextProblem) Shown() string {
	switch {
	case p.Decodable():
		return "decoded from " + p.Encoding
	case p.LFS:
		return "the pointer file as it is"
	case p.Encoding != "":
		return "not decoded (" + p.Encoding + "): shown as UTF-8, with � for each byte that is not UTF-8"
	case p.NUL:
		return "shown with ␀ for each NUL byte (and � for any byte that is not UTF-8)"
	}
	return "shown as UTF-8, with � for each byte that is not UTF-8"
}

// decodeWide decodes UTF-16 or UTF-32 text (enc as CheckText names it);
// a trailing odd byte and invalid code points become U+FFFD.
func decodeWide(b []byte, enc string) []byte {
	big := strings.HasSuffix(enc, "BE")
	out := make([]byte, 0, len(b))
	if strings.HasPrefix(enc, "UTF-32") {
		for i := 0; i+4 <= len(b); i += 4 {
			var r rune
			if big {
				r = rune(b[i])<<24 | rune(b[i+1])<<16 | rune(b[i+2])<<8 | rune(b[i+3])
			} else {
				r = rune(b[i+3])<<24 | rune(b[i+2])<<16 | rune(b[i+1])<<8 | rune(b[i])
			}
			if !utf8.ValidRune(r) {
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		}
		if len(b)%4 != 0 {
			out = utf8.AppendRune(out, utf8.RuneError)
		}
		return out
	}
	units := make([]uint16, 0, len(b)/2)
	for i := 0; i+2 <= len(b); i += 2 {
		if big {
			units = append(units, uint16(b[i])<<8|uint16(b[i+1]))
		} else {
			units = append(units, uint16(b[i+1])<<8|uint16(b[i]))
		}
	}
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	if len(b)%2 != 0 {
		out = utf8.AppendRune(out, utf8.RuneError)
	}
	return out
}
