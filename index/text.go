package index

import (
	"bytes"
	"io"
	"unicode/utf8"

	"github.com/vaultd/vaultd/note"
)

// Notes that are not UTF-8 text (UTF-16 from a teammate's git, Latin-1, a
// NUL byte): vault shows them decoded where it can and never edits them
// (note.CheckText). The index searches, outlines and links them as the
// text a reader is shown, under their bytes' version: a Document's
// offsets, headings and Size are those of that text, and snippets are cut
// from it (openText), never from the bytes on disk.

// shownText is the text of a note's bytes as a reader is shown it: the
// bytes themselves for UTF-8 text, else note.DisplayText's.
func shownText(b []byte) []byte {
	if p := note.CheckText(b); p != nil {
		b, _ = note.DisplayText(b, p)
	}
	return b
}

// openText opens the note at p to cut snippets from, indexed with size
// want: the file itself for a UTF-8 note, its shown text for one that is
// not. size is -1 and ra nil when it cannot be read; done releases it.
//
// The file is read whole only when it is not the size indexed (a note
// that is not UTF-8 was indexed with the size of its shown text; a UTF-8
// note that changed since is read once more) or its first 4 KB are not
// UTF-8 text (a UTF-16 note whose text has the length of its bytes).
func (ix *Index) openText(p string, want int64) (ra io.ReaderAt, size int, done func()) {
	f, err := ix.v.FS().Open(p)
	if err != nil {
		return nil, -1, func() {}
	}
	fi, err := f.Stat()
	fra, ok := f.(io.ReaderAt)
	if err != nil || !fi.Mode().IsRegular() || !ok {
		f.Close()
		return nil, -1, func() {}
	}
	if fi.Size() == want {
		head := make([]byte, min(fi.Size(), 4096))
		n, _ := fra.ReadAt(head, 0)
		if n == len(head) && int64(n) < fi.Size() {
			n = cutToRune(head[:n]) // the first 4 KB may end inside a character
		}
		if note.CheckText(head[:n]) == nil {
			return fra, int(fi.Size()), func() { f.Close() }
		}
	}
	b, err := io.ReadAll(io.NewSectionReader(fra, 0, fi.Size()))
	f.Close()
	if err != nil {
		return nil, -1, func() {}
	}
	text := shownText(b)
	return bytes.NewReader(text), len(text), func() {}
}

// cutToRune is the length of b without a character cut off at its end.
func cutToRune(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}
