package note

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"
)

func utf16le(s string, bom bool) []byte {
	var out []byte
	if bom {
		out = append(out, 0xFF, 0xFE)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		out = binary.LittleEndian.AppendUint16(out, u)
	}
	return out
}

func utf16be(s string, bom bool) []byte {
	var out []byte
	if bom {
		out = append(out, 0xFE, 0xFF)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		out = binary.BigEndian.AppendUint16(out, u)
	}
	return out
}

func utf32(s string, big, bom bool) []byte {
	var out []byte
	var order binary.AppendByteOrder = binary.LittleEndian
	if big {
		order = binary.BigEndian
	}
	if bom {
		out = order.AppendUint32(out, 0xFEFF)
	}
	for _, r := range s {
		out = order.AppendUint32(out, uint32(r))
	}
	return out
}

// Every kind of bytes a note can hold that is not UTF-8 text is told, named
// and shown readably where it can be; UTF-8 (with or without its BOM) is
// text.
func TestCheckText(t *testing.T) {
	const text = "# Plan\n\nTreffen über Budget 😀\n"
	for _, tc := range []struct {
		name  string
		b     []byte
		what  string // in String(); "" for text
		shown string // DisplayText; "" for the bytes as they are
	}{
		{"utf-8", []byte(text), "", ""},
		{"utf-8 with BOM", append([]byte("\xef\xbb\xbf"), text...), "", ""},
		{"empty", nil, "", ""},
		{"a few control bytes", []byte("# Log\n\n```\n\x1b[31mrot\x1b[0m\x07\n```\n" + strings.Repeat("Text.\n", 30)), "", ""},
		{"utf-16 le bom", utf16le(text, true), "UTF-16 LE text (it starts with a UTF-16 LE byte-order mark)", text},
		{"utf-16 be bom", utf16be(text, true), "UTF-16 BE text (it starts with a UTF-16 BE byte-order mark)", text},
		{"utf-32 le bom", utf32(text, false, true), "UTF-32 LE text (it starts with a UTF-32 LE byte-order mark)", text},
		{"utf-32 be bom", utf32(text, true, true), "UTF-32 BE text (it starts with a UTF-32 BE byte-order mark)", text},
		{"utf-16 le no bom", utf16le(text, false), "UTF-16 LE text without a byte-order mark, told by the NUL and control bytes in every other place (the first at line 1, column 2)", text},
		{"utf-16 be no bom", utf16be(text, false), "UTF-16 BE text without a byte-order mark, told by the NUL and control bytes in every other place (the first at line 1, column 1)", text},
		{"utf-32 le no bom", utf32(text, false, false), "UTF-32 LE text without a byte-order mark", text},
		{"utf-16 le cyrillic no bom, valid utf-8 byte for byte", utf16le(strings.Repeat("привет мир ", 20), false), "UTF-16 LE text without a byte-order mark", strings.Repeat("привет мир ", 20)},
		{"utf-16 be greek no bom", utf16be(strings.Repeat("γειά σου κόσμε\n", 20), false), "UTF-16 BE text without a byte-order mark", strings.Repeat("γειά σου κόσμε\n", 20)},
		{"latin-1", []byte("# Caf\xe9\n\nf\xfcr\n"), "not valid UTF-8: byte 0xE9 at line 1, column 6 (byte 6 of the file) is not UTF-8", "# Caf�\n\nf�r\n"},
		{"invalid after umlauts", []byte("# Ü\n\näöü \xff x\n"), "byte 0xFF at line 3, column 5 (byte 14 of the file)", "# Ü\n\näöü � x\n"},
		{"truncated sequence", []byte("ab\xe2\x82"), "byte 0xE2 at line 1, column 3", "ab��"},
		{"nul", []byte("# N\n\nBudget\x00 mit NUL\n"), "not text: it holds a NUL byte at line 3, column 7 (byte 12)", "# N\n\nBudget␀ mit NUL\n"},
		{"gb18030 bom", []byte("\x84\x31\x95\x33\xc4\xe3"), "GB18030 text (it starts with a GB18030 byte-order mark)", "�1�3��"},
		{"lfs pointer", []byte("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"), "a Git LFS pointer file", ""},
	} {
		p := CheckText(tc.b)
		if tc.what == "" {
			if p != nil {
				t.Errorf("%s: CheckText(%q) = %s, want text", tc.name, tc.b, p)
			}
			continue
		}
		if p == nil {
			t.Errorf("%s: CheckText(%q) = text, want %q", tc.name, tc.b, tc.what)
			continue
		}
		if !strings.Contains(p.String(), tc.what) {
			t.Errorf("%s: CheckText(%q) = %q, want %q in it", tc.name, tc.b, p, tc.what)
		}
		got, how := DisplayText(tc.b, p)
		want := tc.shown
		if want == "" {
			want = string(tc.b)
		}
		if string(got) != want || how == "" {
			t.Errorf("%s: DisplayText = %q (%s), want %q", tc.name, got, how, want)
		}
	}
}

// A few NUL bytes in a UTF-8 text are not mistaken for UTF-16.
func TestCheckText_NULInTextIsNoGuess(t *testing.T) {
	b := []byte(strings.Repeat("Ein ganz normaler Satz.\n", 50) + "\x00\x00" + strings.Repeat("x", 100))
	p := CheckText(b)
	if p == nil || !p.NUL || p.Guessed || p.Encoding != "" {
		t.Fatalf("CheckText = %+v, want a NUL without a guess", p)
	}
}

func FuzzCheckText(f *testing.F) {
	f.Add([]byte("# a\n"))
	f.Add(utf16le("# Plan\n", true))
	f.Add([]byte("\xff\xfe\x00\x00a"))
	f.Add([]byte("ab\x00c\xe9"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := CheckText(b)
		if p == nil {
			return
		}
		if p.Offset >= len(b) || (p.Offset >= 0 && b[p.Offset] != p.Byte) {
			t.Fatalf("offset %d, byte %x of %q", p.Offset, p.Byte, b)
		}
		out, _ := DisplayText(b, p)
		if !p.LFS && CheckText(out) != nil && !strings.Contains(string(out), "\x00") {
			t.Fatalf("DisplayText(%q) = %q is not text", b, out)
		}
		_ = p.String()
	})
}

// Merge takes no sections or lines of sides that are not UTF-8 text: ours
// stays as it was and the note is one conflict, with the reason; sides
// that are the same bytes still merge as ever.
func TestMerge_NotText(t *testing.T) {
	base := []byte("# Plan\n\n- a\n")
	ours := []byte("# Plan\n\n- a\n- ours\n")
	for name, theirs := range map[string][]byte{
		"utf-16":  utf16le("# Plan\n\n- a\n- theirs\n", true),
		"latin-1": []byte("# Plan\n\n- a\n- f\xfcr\n"),
		"nul":     []byte("# Plan\n\n- a\n- x\x00\n"),
	} {
		res := Merge(base, ours, theirs, MergeOptions{})
		if string(res.Text) != string(ours) || res.Conflicts != 1 || !strings.HasPrefix(res.NotText, "theirs is ") {
			t.Errorf("%s: %+v", name, res)
		}
		if res := Merge(base, theirs, ours, MergeOptions{}); string(res.Text) != string(theirs) || !strings.HasPrefix(res.NotText, "ours is ") {
			t.Errorf("%s as ours: %+v", name, res)
		}
		if res := Merge(base, base, theirs, MergeOptions{}); string(res.Text) != string(theirs) || res.NotText != "" {
			t.Errorf("%s changed on one side only: %+v", name, res)
		}
	}
}
