package index

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"time"
	"unsafe"

	"github.com/vaultd/vaultd/vault"
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
	// gob is set when it was read from a gob manifest (saved before the
	// binary form), which the next save replaces.
	gob bool
	// Folders are the listings of the folders without subfolders, as the
	// last complete walk left them (vault.FolderListing): the next walk
	// reads only the folders that changed since.
	Folders map[string]vault.FolderListing
	// file is the file it was read from, as it was then (nil for a
	// manifest not read from a file).
	file os.FileInfo
}

type fileEntry struct {
	Size    int64
	MTime   int64 // unix nanoseconds
	Note    bool
	Version string   // notes: hex SHA-256 of the content
	Aliases []string // notes: frontmatter aliases (for link resolution)
	Titles  []string // notes: frontmatter title and first H1 (the name table, names.go)
	// Notes: what a listing shows without reading the note (names.go,
	// Catalog): the title it is shown with, its tags, and whether it holds
	// merge conflict markers.
	Title     string
	Tags      []string
	Conflicts bool
	// NameKeys are note.NameKey of Titles, then of Aliases
	// (vault.NameEntry.NameKeys).
	NameKeys []string
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

// The manifest file: manifestMagic, then the entries in a compact binary
// form (encodeManifest), then the CRC-32 of all that. Manifests saved in
// gob before are still read (and the next save rewrites them). Loading
// the 6,636 laws' manifest took 11 ms in gob, 3 ms in this form; a
// restart of 4× the laws loads four times as much.
//
// 3: titles shown, tags and conflict markers (the catalog, names.go).
// 4: the folders' listings after the files.
const (
	manifestMagic  = "vaultd-manifest-4\n"
	manifestMagic3 = "vaultd-manifest-3\n" // read, without folders
)

// binaryManifest reports whether b is a manifest in the binary form, and
// whether that holds the folders' listings.
func binaryManifest(b []byte) (ok, folders bool) {
	head := string(b[:min(len(b), len(manifestMagic))])
	return head == manifestMagic || head == manifestMagic3, head == manifestMagic
}

func loadManifest(name string) (*manifest, error) {
	b, release, fi, err := readOnly(name)
	if err != nil {
		return nil, err
	}
	var m *manifest
	if ok, _ := binaryManifest(b); ok {
		m, err = decodeManifest(b) // its strings are b's bytes
	} else {
		m = newManifest()
		err = gob.NewDecoder(bytes.NewReader(b)).Decode(m)
		m.gob = true
		release() // gob's strings are copies
		release = func() {}
	}
	if err != nil {
		release()
		return nil, err
	}
	if m.Files == nil {
		m.Files = make(map[string]fileEntry)
	}
	m.file = fi
	return m, nil
}

// encodeManifest appends m in the manifest file's form to b.
func encodeManifest(b []byte, m *manifest) []byte {
	b = append(b, manifestMagic...)
	b = binary.AppendUvarint(b, uint64(m.Version))
	b = binary.AppendUvarint(b, uint64(len(m.Files)))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	strs := func(ss []string) {
		b = binary.AppendUvarint(b, uint64(len(ss)))
		for _, s := range ss {
			str(s)
		}
	}
	paths := make([]string, 0, len(m.Files))
	for p := range m.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths) // the same manifest, the same bytes
	for _, p := range paths {
		e := m.Files[p]
		str(p)
		b = binary.AppendVarint(b, e.Size)
		b = binary.AppendVarint(b, e.MTime)
		note := byte(0)
		if e.Note {
			note = 1
		}
		b = append(b, note)
		str(e.Version)
		strs(e.Aliases)
		strs(e.Titles)
		str(e.Title)
		strs(e.Tags)
		strs(e.NameKeys)
		conflicts := byte(0)
		if e.Conflicts {
			conflicts = 1
		}
		b = append(b, conflicts)
		b = binary.AppendUvarint(b, uint64(e.Sections))
		b = binary.AppendUvarint(b, uint64(e.SectionDocs))
	}
	folders := make([]string, 0, len(m.Folders))
	for p := range m.Folders {
		folders = append(folders, p)
	}
	sort.Strings(folders)
	b = binary.AppendUvarint(b, uint64(len(folders)))
	for _, p := range folders {
		l := m.Folders[p]
		str(p)
		b = binary.AppendUvarint(b, l.Ino)
		b = binary.AppendVarint(b, l.MTime)
		b = binary.AppendVarint(b, l.CTime)
		strs(l.Files)
	}
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

var errManifest = errors.New("the index manifest is damaged")

// decodeManifest reads a manifest file written by encodeManifest. The
// strings share one copy of the file's bytes.
func decodeManifest(b []byte) (*manifest, error) {
	var m *manifest
	err := eachManifestEntry(b, func(version, n int) {
		m = &manifest{Version: version, Files: make(map[string]fileEntry, n)}
	}, func(p string, e fileEntry) {
		m.Files[p] = e
	}, func(p string, l vault.FolderListing) {
		if m.Folders == nil {
			m.Folders = make(map[string]vault.FolderListing)
		}
		m.Folders[p] = l
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// eachManifestEntry reads a manifest file written by encodeManifest: start
// gets its mapping version and number of entries, then entry each entry in
// the file's order (by path), then folder each folder's listing (by path;
// with folder nil, the reading ends after the files). The strings are b's
// bytes (b must not be changed after), and the string lists share one
// backing array.
func eachManifestEntry(b []byte, start func(version, n int), entry func(p string, e fileEntry), folder func(p string, l vault.FolderListing)) error {
	ok, hasFolders := binaryManifest(b)
	if !ok || len(b) < len(manifestMagic)+4 {
		return errManifest
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return errManifest
	}
	// The strings are the file's bytes themselves, not a copy: a copy of
	// the laws' 4.7 MB manifest is 20 ms of fresh memory in a process
	// that just started, the largest part of its first name lookup. b is
	// the caller's to give: nothing writes to it after.
	data := unsafe.String(unsafe.SliceData(body), len(body))
	i := len(manifestMagic)
	bad := false
	uv := func() uint64 {
		v, n := binary.Uvarint(body[i:])
		if n <= 0 {
			bad = true
			return 0
		}
		i += n
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(body[i:])
		if n <= 0 {
			bad = true
			return 0
		}
		i += n
		return v
	}
	str := func() string {
		n := uv()
		if bad || n > uint64(len(body)-i) {
			bad = true
			return ""
		}
		s := data[i : i+int(n)]
		i += int(n)
		return s
	}
	var arena []string // the lists' strings, one allocation for many
	strs := func() []string {
		n := uv()
		if bad || n > uint64(len(body)-i) {
			bad = true
			return nil
		}
		if n == 0 {
			return nil
		}
		if cap(arena)-len(arena) < int(n) {
			arena = make([]string, 0, max(int(n), 4096))
		}
		from := len(arena)
		for range n {
			arena = append(arena, str())
		}
		return arena[from:len(arena):len(arena)]
	}
	version := int(uv())
	n := uv()
	if bad || n > uint64(len(body)) {
		return errManifest
	}
	start(version, int(n))
	for range n {
		p := str()
		var e fileEntry
		e.Size, e.MTime = sv(), sv()
		if bad || i >= len(body) {
			return errManifest
		}
		e.Note = body[i] == 1
		i++
		e.Version = str()
		e.Aliases, e.Titles = strs(), strs()
		e.Title, e.Tags, e.NameKeys = str(), strs(), strs()
		if bad || i >= len(body) {
			return errManifest
		}
		e.Conflicts = body[i] == 1
		i++
		e.Sections, e.SectionDocs = int(uv()), int(uv())
		if bad {
			return errManifest
		}
		entry(p, e)
	}
	if folder == nil {
		return nil // the checksum vouched for the rest
	}
	if hasFolders {
		n := uv()
		if bad || n > uint64(len(body)) {
			return errManifest
		}
		for range n {
			p := str()
			var l vault.FolderListing
			l.Ino = uv()
			l.MTime, l.CTime = sv(), sv()
			l.Files = strs()
			if bad {
				return errManifest
			}
			folder(p, l)
		}
	}
	if i != len(body) {
		return errManifest
	}
	return nil
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
	if _, err := tmp.Write(encodeManifest(nil, ix.man)); err != nil {
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
