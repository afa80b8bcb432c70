package index

import (
	"context"
	"time"

	"github.com/vaultd/vaultd/vault"
)

// The name table (vault.NameTable) lives here, in the index, and not in
// package vault, because the index is the one structure that already sees
// every change to the vault's notes:
//
//   - vaultd's own writes, moves and deletes, in every process on the
//     vault: each calls Update, and a process that does not own the index
//     sends its Update to the owner (shared.go);
//   - external edits, renames, a git checkout or pull: the watcher's events
//     and, when events were lost, the rescan;
//   - what changed while no vaultd ran: the catch-up at start, against the
//     manifest, which records each note's titles and aliases (fileEntry),
//     so the table is rebuilt at start without parsing a note.
//
// A table in package vault would see only its own process's writes, and a
// second vaultd on the same vault (Claude Code and Cursor each start one)
// would answer from stale names. So vault.Find asks the index
// (vault.NameSource), over the socket when another process owns it, and
// walks the vault only while the index cannot vouch for its names.

// nameLookupTimeout bounds a lookup at another process's index; past it
// Find walks the vault instead.
const nameLookupTimeout = 2 * time.Second

// LookupName looks target up in the name table (see vault.NameTable.Lookup).
// ok is false while the table may be behind the files: before the first
// comparison with the files ends, during a rescan, while changes are not
// being followed (the watcher failed), and — for a name that matches
// nothing — while file events wait to be indexed. A positive answer given
// within the watcher's debounce after an external change is checked by
// vault.Find against the note it reads.
func (ix *Index) LookupName(target string, link bool) (vault.NameMatch, bool) {
	select {
	case <-ix.ready:
	default:
		return vault.NameMatch{}, false
	}
	if ix.closed.Load() || ix.building.Load() || (ix.o.Watch && !ix.watching.Load()) {
		return vault.NameMatch{}, false
	}
	m := ix.nameTable().Lookup(target, link)
	if m.What == "" {
		if w := ix.watcher.Load(); w != nil && w.pending() {
			return vault.NameMatch{}, false
		}
	}
	return m, true
}

// nameTable returns the table of the indexed notes' names, rebuilt from
// the manifest when a commit changed a note's names (lazily: a git
// checkout of a thousand notes rebuilds it once, at the next lookup).
func (ix *Index) nameTable() *vault.NameTable {
	if t := ix.names.Load(); t != nil && !ix.namesDirty.Load() {
		return t
	}
	ix.namesMu.Lock()
	defer ix.namesMu.Unlock()
	if t := ix.names.Load(); t != nil && !ix.namesDirty.Load() {
		return t
	}
	ix.namesDirty.Store(false)
	ix.wmu.Lock()
	entries := make([]vault.NameEntry, 0, len(ix.man.Files))
	for p, e := range ix.man.Files {
		if e.Note {
			entries = append(entries, vault.NameEntry{Path: p, Titles: e.Titles, Aliases: e.Aliases})
		}
	}
	ix.wmu.Unlock()
	t := vault.NewNameTable(entries)
	ix.names.Store(t)
	return t
}

// LookupName looks a name up in the index, at the owner when another
// process owns it; see (*Index).LookupName. An owner that cannot be
// reached gives ok false.
func (s *Shared) LookupName(target string, link bool) (vault.NameMatch, bool) {
	var m vault.NameMatch
	var ok bool
	err := s.do(func(ix *Index) error {
		m, ok = ix.LookupName(target, link)
		return nil
	}, func(c *wireClient) error {
		r, err := c.call(context.Background(), nameLookupTimeout, wireRequest{Method: "names", Path: target, Link: link})
		if err == nil && r.Names != nil {
			m, ok = *r.Names, r.Ready
		}
		return err
	})
	if err != nil {
		return vault.NameMatch{}, false
	}
	return m, ok
}

var (
	_ vault.NameSource = (*Index)(nil)
	_ vault.NameSource = (*Shared)(nil)
)
