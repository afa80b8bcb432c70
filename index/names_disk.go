package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/vaultd/vaultd/vault"
)

// Names is a vault's name table for a process that needs names but no
// search: vaultd read, append, history and overview on the command line,
// and a server in the moments before its index is open. It opens no bleve
// index and walks nothing to answer a lookup:
//
//   - when a vaultd process keeps the vault's index, Names asks it (over
//     the socket, as Shared does): its table is current;
//   - otherwise it reads the manifest the last process that kept the index
//     saved (3 ms for the 6,636 laws): every note's names as of then.
//     That table may lag the files (Behind), so Find trusts it only for a
//     note that, read, still bears the name; anything else makes it catch
//     up (CatchUpNames): one walk of the vault comparing sizes and times
//     with the manifest, reading only the notes that changed.
//
// Without a manifest (the vault was never indexed) Names has no table, and
// Find walks the vault as before. Names changes nothing on disk. It is safe
// for concurrent use.
type Names struct {
	v   *vault.Vault
	dir string

	once   sync.Once
	client *wireClient // the owner's, while one answers

	mu      sync.Mutex
	entries []vault.NameEntry // by path, from the manifest, then caught up; nil: no table
	table   *vault.NameTable  // of entries, built when needed
	current bool              // entries were compared with the files
	file    os.FileInfo       // the manifest the entries were read from
}

// OpenNames returns the name table of v (see Names). o.Dir is where the
// index lives (default: the vault's state dir). Nothing is read until the
// first call.
func OpenNames(v *vault.Vault, o Options) *Names {
	dir := o.Dir
	if dir == "" {
		dir = v.StateDir()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return &Names{v: v, dir: dir}
}

// Close lets go of the owner's connection.
func (n *Names) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.client != nil {
		n.client.close()
		n.client = nil
	}
	return nil
}

// Prepare finds the owner, or reads the saved manifest and builds the
// table from it, now rather than at the first lookup. A server calls it
// in the background as it starts, so that a name sent with the first
// call after initialize finds the table built (that call otherwise pays
// the manifest's decoding and the table's building, ~30 ms for the laws).
func (n *Names) Prepare() {
	if n.owner() == nil {
		n.tableNow()
	}
}

// open finds the owner, or reads the manifest: once.
func (n *Names) open() {
	n.once.Do(func() {
		if c, err := dial(n.dir); err == nil {
			n.client = c
			return
		}
		n.loadLocked()
	})
}

// loadLocked reads the saved manifest into entries (nil when there is
// none fit to use).
func (n *Names) loadLocked() {
	b, release, fi, err := readOnly(filepath.Join(n.dir, manifestName))
	if err != nil {
		return
	}
	var list []vault.NameEntry
	ok := true
	err = eachManifestEntry(b, func(version, count int) {
		ok = version == mappingVersion
		if ok {
			list = make([]vault.NameEntry, 0, count)
		}
	}, func(p string, e fileEntry) {
		if ok {
			list = append(list, nameEntry(p, e))
		}
	}, nil)
	if err != nil || !ok {
		release()
		return
	}
	n.entries = list // its strings are the mapped file's, for good
	n.file = fi
}

// tableOf returns the table when its entries are those of the manifest
// file fi, as read then and not caught up since; nil otherwise. An index
// that opens with that manifest takes the table over (Options.Names).
func (n *Names) tableOf(fi os.FileInfo) *vault.NameTable {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.entries == nil || n.current || n.file == nil || fi == nil || !os.SameFile(n.file, fi) ||
		n.file.Size() != fi.Size() || !n.file.ModTime().Equal(fi.ModTime()) {
		return nil
	}
	if n.table == nil {
		n.table = vault.NewNameTable(n.entries)
	}
	return n.table
}

// owner returns the owner's connection while it answers; when it went
// away, Names goes on with the manifest it saved.
func (n *Names) owner() *wireClient {
	n.open()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.client != nil && n.client.isDead() {
		n.client.close()
		n.client = nil
		n.loadLocked()
	}
	return n.client
}

// LookupName looks target up; see vault.NameSource.
func (n *Names) LookupName(target string, link bool) (vault.NameMatch, bool) {
	if c := n.owner(); c != nil {
		r, err := c.call(context.Background(), nameLookupTimeout, wireRequest{Method: "names", Path: target, Link: link})
		if err == nil && r.Names != nil {
			return *r.Names, r.Ready
		}
		if n.owner() != nil {
			return vault.NameMatch{}, false
		}
	}
	t, current := n.tableNow()
	if t == nil {
		return vault.NameMatch{}, false
	}
	m := t.Lookup(target, link)
	m.Behind = !current
	return m, true
}

// tableNow returns the table of entries (nil without one).
func (n *Names) tableNow() (*vault.NameTable, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.entries == nil {
		return nil, false
	}
	if n.table == nil {
		n.table = vault.NewNameTable(n.entries)
	}
	return n.table, n.current
}

// CatchUpNames brings the table up to date with the files: at the owner,
// or by one walk of the vault against the manifest, reading the notes
// whose size or time changed. See vault.NameSource.
func (n *Names) CatchUpNames(ctx context.Context) bool {
	if c := n.owner(); c != nil {
		r, err := c.call(ctx, 0, wireRequest{Method: "catchup-names"})
		if err == nil {
			return r.Ready
		}
		if n.owner() != nil {
			return false
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.entries == nil {
		return false
	}
	if n.current {
		return true
	}
	at := make(map[string]int, len(n.entries))
	for i, e := range n.entries {
		at[e.Path] = i
	}
	seen := make([]bool, len(n.entries))
	var changed []vault.Entry
	err := n.v.Walk(func(e vault.Entry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		i, ok := at[e.Path]
		if ok {
			seen[i] = true
			old := n.entries[i]
			if old.Size == e.Size && old.ModTime.Equal(e.ModTime) && old.Attachment != e.Note {
				return nil
			}
		}
		changed = append(changed, e)
		return nil
	})
	if err != nil {
		return false
	}
	next := make([]vault.NameEntry, 0, len(n.entries)+len(changed))
	for i, e := range n.entries {
		if seen[i] {
			next = append(next, e)
		}
	}
	fresh := map[string]vault.NameEntry{}
	for _, e := range changed {
		if !e.Note {
			fresh[e.Path] = vault.NameEntry{Path: e.Path, Attachment: true, Size: e.Size, ModTime: e.ModTime}
			continue
		}
		note, err := n.v.Read(e.Path)
		if err != nil {
			continue // gone since the walk
		}
		ne := note.NameEntry()
		ne.Path = e.Path // the walk's spelling
		fresh[e.Path] = ne
	}
	next = slices.DeleteFunc(next, func(e vault.NameEntry) bool { _, ok := fresh[e.Path]; return ok })
	for _, e := range fresh {
		next = append(next, e)
	}
	slices.SortFunc(next, func(a, b vault.NameEntry) int { return strings.Compare(a.Path, b.Path) })
	n.entries = next
	n.table, n.current = nil, true
	return true
}

// Names returns the table; see vault.NameSource.
func (n *Names) Names() (*vault.NameTable, bool) {
	if c := n.owner(); c != nil {
		t, behind, err := c.names()
		if err == nil {
			return t, behind
		}
	}
	t, current := n.tableNow()
	return t, !current
}

// Catalog returns what the table knows of every file; see
// vault.NameSource.
func (n *Names) Catalog() ([]vault.NameEntry, bool) {
	if c := n.owner(); c != nil {
		r, err := c.call(context.Background(), nameLookupTimeout, wireRequest{Method: "catalog"})
		if err == nil {
			return r.Catalog, !r.Ready
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.entries == nil {
		return nil, false
	}
	return slices.Clip(n.entries), !n.current
}

var _ vault.NameSource = (*Names)(nil)
