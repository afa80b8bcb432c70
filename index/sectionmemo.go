package index

import (
	"hash/maphash"
	"sync"
)

// A note written again (an agent appending to its log, an owner editing
// in Obsidian) changes one or two of its sections; its other sections'
// documents come out of bleveDocs exactly as they were. sectionMemo
// remembers, for the notes written lately, a hash of what each section
// document is made of, and a write indexes the note document and only
// the section documents whose hash changed: the others stay as they are
// in the index.
//
// Only writes remember (not a build: it would fill the memo with notes
// nobody writes), and only what the index holds: an entry counts only for
// the version the manifest has for its note.
type sectionMemo struct {
	mu sync.Mutex
	m  map[string]memoEntry
}

type memoEntry struct {
	version string
	hashes  []uint64 // by section slot; 0: no document (sectionHashes)
}

// maxMemoNotes bounds the notes remembered; a note past it pushes out
// another.
const maxMemoNotes = 64

var memoSeed = maphash.MakeSeed()

// sectionHashes returns a hash of each section document's makings, by
// section slot (see bleveDocs; 0 where the slot has no document): its
// text, its heading and the headings above it.
func (d *Document) sectionHashes() []uint64 {
	starts := d.sectionStarts()
	out := make([]uint64, len(starts))
	var h maphash.Hash
	h.SetSeed(memoSeed)
	for k := range starts {
		if k == 0 && !d.hasSection0() {
			continue
		}
		h.Reset()
		lo, hi := starts[k], sectionEnd(d, starts, k)
		h.WriteString(d.Body[lo:max(lo, hi)])
		h.WriteByte(0)
		if k > 0 {
			h.WriteString(d.Headings[k-1].Text)
		}
		for _, j := range d.ancestors(k - 1) {
			h.WriteByte(0)
			h.WriteString(d.Headings[j].Text)
		}
		out[k] = h.Sum64() | 1 // never 0
	}
	return out
}

// unchanged returns, for a note at path whose index version is indexed,
// which of the new section hashes (sectionHashes) the index already holds
// documents for (nil when it does not know).
func (sm *sectionMemo) unchanged(path, indexed string, hashes []uint64) []bool {
	sm.mu.Lock()
	e, ok := sm.m[path]
	sm.mu.Unlock()
	if !ok || indexed == "" || e.version != indexed {
		return nil
	}
	same := make([]bool, len(hashes))
	for k, h := range hashes {
		same[k] = h != 0 && k < len(e.hashes) && e.hashes[k] == h
	}
	return same
}

// remember records the section hashes of the version of path just
// indexed.
func (sm *sectionMemo) remember(path, version string, hashes []uint64) {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if sm.m == nil {
		sm.m = make(map[string]memoEntry)
	}
	if _, ok := sm.m[path]; !ok && len(sm.m) >= maxMemoNotes {
		for p := range sm.m {
			delete(sm.m, p)
			break
		}
	}
	sm.m[path] = memoEntry{version: version, hashes: hashes}
}

// forget drops what is remembered of the notes at paths.
func (sm *sectionMemo) forget(paths ...string) {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	for _, p := range paths {
		delete(sm.m, p)
	}
}
