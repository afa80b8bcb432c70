package vault

import (
	"io/fs"
	"slices"
	"time"
)

// A FolderListing is what a walk found in a folder without subfolders: the
// names of its notes and attachments, and the folder's identity and times
// when it was read. A later walk that finds the folder with the same inode,
// mtime and ctime knows its names unchanged without reading it: adding,
// removing or renaming an entry sets both times, and nothing but the
// kernel sets the ctime. Its files are still stat-ed one by one (a note
// edited in place changes no folder time).
//
// On 4× the laws (26,544 folders of one note each) a restart read every
// folder: an open, two directory reads, a stat of the folder and of the
// note, a close — 365 ms of one core for all of them, walked in order. A
// trusted folder is an open of it by name in its parent, a stat of it and
// of its note, and a close: 120 ms.
type FolderListing struct {
	Ino          uint64
	MTime, CTime int64    // unix nanoseconds
	Files        []string // the notes' and attachments' names on disk, sorted
}

// Equal reports whether l and o describe the same folder state.
func (l FolderListing) Equal(o FolderListing) bool {
	return l.Ino == o.Ino && l.MTime == o.MTime && l.CTime == o.CTime && slices.Equal(l.Files, o.Files)
}

// settleTime is how old a folder's ctime must be, when a walk reads it, for
// its listing to be kept: an entry added within the same tick of the
// file system's clock as the one before it may leave the folder's times as
// they were, and no later change can leave them as they are once that tick
// is this far past.
var settleTime = 2 * time.Second // a var for tests

// WalkOptions are a walk's for the index's comparison with the files.
type WalkOptions struct {
	// Enter, when set, is called for every folder (its vault path, "" for
	// the vault's own folder) before it is read, from any goroutine: the
	// index adds its watch on the folder there, so that a change after
	// the folder was read is an event, and one before is in the listing.
	Enter func(folder string)
	// Known are the listings an earlier walk returned, by the folder's
	// vault path: a folder found unchanged is not read again.
	Known map[string]FolderListing
	// Trusted, when set, gets each folder taken from its listing, from
	// any goroutine, and Enter is not called for those: the caller adds
	// its watches afterwards and then rechecks them (Vault.Recheck). A
	// restart of 4x the laws spent a third of its walk adding watches.
	Trusted func(TrustedFolder)
}

// A TrustedFolder is a folder a walk took from its listing without
// reading it, with what it found of the folder's files.
type TrustedFolder struct {
	Path    string // its vault path on disk
	Listing FolderListing
	files   []fs.DirEntry
}

// WalkListing is Walk with o; it also returns the listings of the folders
// without subfolders that a later walk may trust (nil where the file
// system's folder times are not to be trusted, foldersTrusted). Folders with
// a link among their entries get none: a link's target changes without
// its folder.
func (v *Vault) WalkListing(o WalkOptions, fn func(Entry) error) (map[string]FolderListing, error) {
	w := &walker{v: v, fn: fn, enter: o.Enter, trusted: o.Trusted}
	if v.root.b.foldersTrusted() {
		w.known = o.Known
		w.listings = make(map[string]FolderListing, len(o.Known))
		w.settled = time.Now().Add(-settleTime).UnixNano()
	}
	if err := v.walkDir("", w); err != nil {
		return nil, err
	}
	return w.listings, nil
}

// keepListing keeps the listing of the folder rel, read with stamp, whose
// notes and attachments are files (sorted): the same listing where it was
// trusted, a new one where the folder's ctime is settled.
func (w *walker) keepListing(rel string, stamp folderStamp, names []string) {
	if w.listings == nil || !stamp.ok {
		return
	}
	if stamp.trusted != nil {
		w.listings[rel] = *stamp.trusted
		return
	}
	if stamp.ctime >= w.settled {
		return
	}
	w.listings[rel] = FolderListing{Ino: stamp.ino, MTime: stamp.mtime, CTime: stamp.ctime, Files: names}
}

// folderStamp is a folder's identity and times as a walk read them, or the
// listing it trusted instead.
type folderStamp struct {
	ok           bool
	ino          uint64
	mtime, ctime int64
	trusted      *FolderListing
}

// Recheck reports whether the folder t is still as the walk found it: the
// same folder with the same times, each file with the same inode, size,
// mtime and ctime. A change after the walk that it does not report was
// made after the caller's watch on the folder was added, so the watch
// reports it.
func (v *Vault) Recheck(t TrustedFolder) bool {
	return v.root.b.recheck(t)
}
