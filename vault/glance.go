package vault

import (
	"io"

	"github.com/vaultd/vaultd/note"
)

// Glance is what a listing of hits shows of a note besides the index's
// answer, from one open of the file as it is on disk now: NotTextAt's and
// ConflictAt's answers and the note's first bytes.
type Glance struct {
	NotText  *note.TextProblem // as NotTextAt
	Conflict *NoteConflict     // as ConflictAt
	Head     int               // bytes of the note read into the caller's head
	Whole    bool              // the head holds the whole note
	Found    bool              // the note was opened and is a regular file
}

// Glance opens the note at p once and answers what NotTextAt and
// ConflictAt would, reading the note's first len(head) bytes into head. A
// search asks this for every hit: the two answers are remembered by the
// file's size and mtime (from this open's stat), so an unchanged note
// costs one open, a stat and one read, where the three calls took three
// opens or stats of the path.
func (v *Vault) Glance(p string, head []byte) (g Glance) {
	f, err := v.root.Open(p)
	if err != nil {
		return g
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return g
	}
	g.Found = true
	key := markerKey{size: fi.Size(), mod: fi.ModTime().UnixNano()}
	m, _ := v.unmerged()
	_, unmerged := m[p]
	prob, textKnown := v.texts.get(p, key)
	if textKnown && !unmerged && v.g.clean(p, key) {
		n, err := io.ReadFull(f, head)
		g.NotText, g.Head, g.Whole = prob, n, err != nil
		return g
	}
	b, err := readAll(f, fi.Size())
	if err != nil {
		return Glance{}
	}
	g.Head, g.Whole = copy(head, b), len(b) <= len(head)
	whole := int64(len(b)) == key.size
	if textKnown {
		g.NotText = prob
	} else {
		g.NotText = note.CheckText(b)
		if whole {
			v.texts.put(p, key, g.NotText)
		}
	}
	g.Conflict = v.conflictOf(p, key, unmerged, b)
	return g
}
