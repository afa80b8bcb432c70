package index

import (
	"encoding/gob"
	"os"
	"path/filepath"
	"time"
)

// manifest records, for every file the index reflects, what it looked like
// when it was indexed. On start the index compares it with the files and
// reindexes only what differs. It is saved after index batches (at most
// every manifestEvery, and on Close), always after the batch it describes
// has been persisted, so a crash can only make it miss recent entries: the
// notes are then reindexed, and documents it does not know are deleted
// (checkOrphans).
type manifest struct {
	Version int                  // mappingVersion of the index
	Files   map[string]fileEntry // notes and attachments by vault path
}

type fileEntry struct {
	Size    int64
	MTime   int64 // unix nanoseconds
	Note    bool
	Version string   // notes: hex SHA-256 of the content
	Aliases []string // notes: frontmatter aliases (for link resolution)
	Titles  []string // notes: frontmatter title and first H1 (the name table, names.go)
	// Sections is the number of section numbers the note's section
	// documents may use (its headings + 1, see docs.go); SectionDocs is
	// how many of them have a document.
	Sections, SectionDocs int
}

const manifestEvery = 2 * time.Second

func newManifest() *manifest {
	return &manifest{Version: mappingVersion, Files: make(map[string]fileEntry)}
}

// docs is the number of bleve documents the manifest's notes have.
func (m *manifest) docs() int {
	n := 0
	for _, e := range m.Files {
		if e.Note {
			n += 1 + e.SectionDocs
		}
	}
	return n
}

func (m *manifest) notes() int {
	n := 0
	for _, e := range m.Files {
		if e.Note {
			n++
		}
	}
	return n
}

func loadManifest(name string) (*manifest, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := newManifest()
	if err := gob.NewDecoder(f).Decode(m); err != nil {
		return nil, err
	}
	if m.Files == nil {
		m.Files = make(map[string]fileEntry)
	}
	return m, nil
}

// saveManifest writes the manifest if it changed (and, unless now, if the
// last save is older than manifestEvery). Called with wmu held.
func (ix *Index) saveManifest(now bool) error {
	if !ix.manDirty || (!now && time.Since(ix.manSaved) < manifestEvery) {
		return nil
	}
	name := filepath.Join(ix.dir, manifestName)
	tmp, err := os.CreateTemp(ix.dir, ".manifest-*.tmp")
	if err != nil {
		return err
	}
	if err := gob.NewEncoder(tmp).Encode(ix.man); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	ix.manDirty, ix.manSaved = false, time.Now()
	return nil
}

func timeFromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}
