package vault

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/vaultd/vaultd/note"
)

// WalkDir is Walk below one folder ("" for the whole vault).
//
// Each folder is read once, through a Root opened on its parent: one open,
// the directory read, and one stat per entry relative to the open folder.
// (Going through the vault's Root by path instead resolves every component
// of every folder's path again, about three times the system calls: on a
// vault of 26,000 folders that was most of a restart.) The next few
// folders are read ahead in parallel while fn sees the entries in order. A
// folder is entered only when the folder opened is the entry its parent's
// listing showed, so one swapped for a link meanwhile is skipped, never
// followed.
//
// fn may return fs.SkipDir (the rest of that note's folder is skipped) or
// fs.SkipAll (the walk stops and returns nil), as with fs.WalkDir.
func (v *Vault) WalkDir(dir string, fn func(Entry) error) error {
	return v.walkDir(dir, &walker{v: v, fn: fn})
}

// walkTemps calls fn for every one of vaultd's temp files in the vault's
// folders (hidden folders and the state dir left out).
func (v *Vault) walkTemps(fn func(p string, fi fs.FileInfo)) error {
	return v.walkDir("", &walker{v: v, fn: func(Entry) error { return nil }, temp: fn})
}

func (v *Vault) walkDir(dir string, w *walker) error {
	defer w.done.Store(true)
	start := "."
	if dir != "" {
		c, err := v.cleanPath(dir)
		if err != nil {
			return err
		}
		start = c
	}
	fi, err := fs.Stat(v.root.FS(), start)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &note.Error{Op: "list", Path: dir, Kind: note.ErrNotFound, Msg: "no such folder"}
		}
		return err
	}
	if !fi.IsDir() {
		// A file: itself, as fs.WalkDir would.
		err = w.file(start, start, fi)
	} else {
		var rp string
		if rp, err = v.root.reach(start, followLast); err != nil {
			return reachErr("walk", start, err)
		}
		r := v.root.r
		if rp != "." {
			if r, err = r.OpenRoot(rp); err != nil {
				return err
			}
			defer r.Close()
		}
		if w.enter != nil {
			w.enter(strings.TrimPrefix(start, "."))
		}
		entries, _, ok := readFolder(r, ".", nil)
		if !ok {
			return &note.Error{Op: "list", Path: dir, Kind: note.ErrInvalidPath, Msg: "cannot be read"}
		}
		err = w.folder(nil, ".", r, start, start, nil, entries, folderStamp{})
	}
	if err == fs.SkipDir || err == fs.SkipAll {
		err = nil
	}
	return err
}

// Subfolders are read in chunks of 1, 2, 4 … up to chunkFolders folders,
// up to chunksAhead chunks ahead of the one walked (in other goroutines),
// so that a walk that stops early (at the first note) reads little ahead.
// Measured on the 6,636 laws (a folder each, in 26 letter folders) on 2
// cores: 115 ms for a walk read in order, 200 ms with a goroutine per
// folder, 95 ms with 8 such goroutines ahead, 70–80 ms in chunks (fewer
// hand-overs).
const (
	chunkFolders = 16
	chunksAhead  = 3
)

// testHookTrusted runs, from any goroutine, for each folder a walk took
// from its listing without reading it.
var testHookTrusted func(rel string)

// testHookWalkListed runs after a folder's listing is read, before its
// subfolders are (tests swap a folder for a link there).
var testHookWalkListed func(rel string)

type walker struct {
	v    *Vault
	fn   func(Entry) error
	done atomic.Bool // the walk returned: what is read ahead stops
	// temp, when set, gets vaultd's temp files (hidden names that Walk
	// leaves out).
	temp func(p string, fi fs.FileInfo)
	// enter, when set, is called before each folder is read; trusted,
	// when set, for each folder taken from its listing instead
	// (WalkOptions).
	enter   func(folder string)
	trusted func(TrustedFolder)
	// known are the listings a folder may be trusted by, listings those
	// this walk keeps (both nil where none are: WalkListing); a listing
	// is kept only for a folder whose ctime was before settled.
	known, listings map[string]FolderListing
	settled         int64
}

// readFolder reads the folder name of r, sorted by name. want is what the
// parent's listing showed for it; the folder opened must be that one (st
// is its stat, taken before it was read). ok is false when it cannot be
// read (or was swapped).
func readFolder(r *os.Root, name string, want fs.FileInfo) (entries []fs.DirEntry, st fs.FileInfo, ok bool) {
	// Opened non-blocking, so that os leaves the descriptor's flags alone:
	// opened blocking, it sets O_NONBLOCK for its poller (which refuses a
	// folder) and clears it again. strace of a walk of 4× the laws (26,544
	// folders): 106,600 fcntl calls, 4 of the 12 system calls per folder;
	// none now. Reading a folder does not block either way.
	d, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, false
	}
	defer d.Close()
	if want != nil {
		if st, err = d.Stat(); err != nil || !os.SameFile(st, want) {
			return nil, nil, false
		}
	}
	// A folder opened in a Root is read with a stat of each entry relative
	// to it (os.File.ReadDir), so Info costs no further call.
	entries, err = d.ReadDir(-1)
	if err != nil && len(entries) == 0 {
		return nil, nil, false
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, st, true
}

// chunk is the listings of a run of subfolders, read together.
type chunk struct {
	done     chan struct{} // nil: not asked for yet
	listings [][]fs.DirEntry
	stamps   []folderStamp
	ok       []bool
}

// folder walks one folder, whose path on disk is rel, canonical path crel
// (twins.go) and listing entries: the folder name of parent, or self when
// that is already open (the start). want is what parent's listing showed
// for it, stamp what the listing was read with (keepListing).
func (w *walker) folder(parent *os.Root, name string, self *os.Root, rel, crel string, want fs.FileInfo, entries []fs.DirEntry, stamp folderStamp) (err error) {
	type item struct {
		e  fs.DirEntry
		p  string
		cp string // canonical: NFC, a twin's name as it is
		// Folders: dir, and what an lstat showed when the folder was
		// read (taken only then: a folder trusted by its listing needs
		// none).
		dir  bool
		info fs.FileInfo
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	twins := twinNames(names)
	items := make([]item, 0, len(entries))
	var folders []int // indexes into items
	for _, e := range entries {
		n := e.Name()
		if skipName(n) {
			if w.temp != nil && IsTempName(n) && e.Type().IsRegular() {
				if fi, err := e.Info(); err == nil {
					w.temp(join(rel, n), fi)
				}
			}
			continue
		}
		p := join(rel, n)
		if w.v.root.inState(p) {
			continue
		}
		shown := nfc(n)
		if twins[n] {
			shown = n
		}
		it := item{e: e, p: p, cp: join(crel, shown), dir: e.IsDir()}
		if it.dir {
			folders = append(folders, len(items))
		}
		items = append(items, it)
	}
	if len(folders) == 0 && w.listings != nil && stamp.ok {
		var files []string
		linked := false
		for _, it := range items {
			if it.e.Type()&fs.ModeSymlink != 0 {
				linked = true
				break
			}
			if IsNote(it.p) || IsAttachment(it.p) {
				files = append(files, it.e.Name())
			}
		}
		if !linked {
			w.keepListing(rel, stamp, files)
		}
	}
	if testHookWalkListed != nil {
		testHookWalkListed(rel)
	}
	if len(folders) > 0 && self == nil {
		// The subfolders are opened through this folder's own Root.
		s, err := parent.OpenRoot(name)
		if err != nil {
			return nil
		}
		defer s.Close()
		if st, err := s.Stat("."); err != nil || !os.SameFile(st, want) {
			return nil
		}
		self = s
	}
	// Chunk j holds the folders from starts[j] to starts[j+1].
	starts := []int{0}
	for n := 1; starts[len(starts)-1] < len(folders); n = min(2*n, chunkFolders) {
		starts = append(starts, min(len(folders), starts[len(starts)-1]+n))
	}
	chunks := make([]chunk, len(starts)-1)
	// The folder itself, for trusting its subfolders' listings; opened
	// for the first one that has one.
	var trustFrom struct {
		sync.Once
		f *os.File
	}
	defer func() {
		if trustFrom.f != nil {
			trustFrom.f.Close()
		}
	}()
	read := func(c *chunk, j int) {
		part := folders[starts[j]:starts[j+1]]
		c.listings, c.ok = make([][]fs.DirEntry, len(part)), make([]bool, len(part))
		c.stamps = make([]folderStamp, len(part))
		for k, i := range part {
			if w.done.Load() {
				return
			}
			it := &items[i]
			// Without w.trusted, enter comes first: a change from then
			// on is an event. With it, the caller rechecks the folders
			// trusted after adding their watches.
			entered := false
			if w.enter != nil && w.trusted == nil {
				w.enter(it.p)
				entered = true
			}
			if l, ok := w.known[it.p]; ok {
				trustFrom.Do(func() {
					trustFrom.f, _ = self.OpenFile(".", os.O_RDONLY|syscall.O_NONBLOCK, 0)
				})
				if c.listings[k], c.ok[k] = w.v.root.b.trustListing(trustFrom.f, it.e.Name(), l); c.ok[k] {
					c.stamps[k] = folderStamp{ok: true, trusted: &l}
					if w.trusted != nil {
						w.trusted(TrustedFolder{Path: it.p, Listing: l, files: c.listings[k]})
					}
					if testHookTrusted != nil {
						testHookTrusted(it.p)
					}
					continue
				}
			}
			if w.enter != nil && !entered {
				w.enter(it.p)
			}
			info, err := it.e.Info()
			if err != nil {
				continue
			}
			it.info = info
			var st fs.FileInfo
			c.listings[k], st, c.ok[k] = readFolder(self, it.e.Name(), info)
			if c.ok[k] && w.listings != nil {
				c.stamps[k] = w.v.root.b.stamp(st)
			}
		}
	}
	// Nothing waits for chunks still being read when this returns: the
	// Root stays usable for reads already under way after Close, and the
	// rest stop when the walk is done.
	seen, j := 0, 0 // folders walked; the chunk they are in
	for i := range items {
		it := &items[i]
		if it.dir {
			if seen == starts[j+1] {
				j++
			}
			k := seen - starts[j]
			seen++
			c := &chunks[j]
			if k == 0 {
				for a := j + 1; a <= j+chunksAhead && a < len(chunks); a++ {
					if chunks[a].done == nil {
						ca := &chunks[a]
						ca.done = make(chan struct{})
						go func() {
							read(ca, a)
							close(ca.done)
						}()
					}
				}
				if c.done == nil {
					c.done = make(chan struct{})
					read(c, j)
					close(c.done)
				}
				<-c.done
			}
			if !c.ok[k] {
				continue
			}
			entries := c.listings[k]
			c.listings[k] = nil
			if err := w.folder(self, it.e.Name(), nil, it.p, it.cp, it.info, entries, c.stamps[k]); err != nil {
				return err
			}
			continue
		}
		var fi fs.FileInfo
		if it.e.Type()&fs.ModeSymlink != 0 {
			// A link is followed under the vault's rules (no hidden
			// folders, no state dir, nothing outside the vault).
			fi, err = fs.Stat(w.v.root.FS(), it.p)
		} else {
			fi, err = it.e.Info()
		}
		if err != nil {
			continue
		}
		if err := w.file(it.p, it.cp, fi); err != nil {
			if err == fs.SkipDir {
				return nil
			}
			return err
		}
	}
	return nil
}

// file calls fn for p, whose canonical path is cp, when it is a note or
// an attachment and a regular file.
func (w *walker) file(p, cp string, fi fs.FileInfo) error {
	isNote := IsNote(p)
	if !isNote && !IsAttachment(p) || !fi.Mode().IsRegular() {
		return nil
	}
	return w.fn(Entry{Path: cp, Size: fi.Size(), ModTime: fi.ModTime(), Note: isNote})
}
