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
// (vault.NameSource), over the socket when another process owns it.
//
// The table is there from the moment the index opens: the manifest the
// last run saved holds every name, so the first lookups after a start are
// answered at once while the catch-up compares the files (Behind: a note
// found is checked by Find, a miss waits for the catch-up). A process
// that only looks names up — vaultd read, append, history — opens no index
// at all (Names: the saved manifest, or the owner's table).
//
// The same manifest is the catalog (Catalog): what a listing shows of
// every note without reading it — title, tags, size, time, version,
// conflict markers — for vault_overview.

// nameLookupTimeout bounds a lookup at another process's index; past it
// the lookup is answered as if there were no table (Find walks).
const nameLookupTimeout = 2 * time.Second

// LookupName looks target up in the name table (see vault.NameTable.Lookup
// and vault.NameSource). The table is the manifest's from the moment the
// index is open; m.Behind is set until the first comparison with the files
// has ended, during a rescan, while changes are not being followed (the
// watcher failed) and while file events wait to be indexed.
func (ix *Index) LookupName(target string, link bool) (vault.NameMatch, bool) {
	if ix.closed.Load() || !ix.hasNames() {
		return vault.NameMatch{}, false
	}
	m := ix.nameTable().Lookup(target, link)
	m.Behind = ix.namesBehind()
	return m, true
}

// hasNames reports whether the index has a name table to answer from: the
// manifest it opened with held notes (a restart), or its first comparison
// with the files has ended. While a vault is indexed for the first time,
// Find walks it instead (a table that fills as the build goes would miss
// most names for minutes).
func (ix *Index) hasNames() bool {
	if ix.openedWithNames {
		return true
	}
	select {
	case <-ix.ready:
		return true
	default:
		return false
	}
}

// namesBehind reports whether the name table may lag the files.
func (ix *Index) namesBehind() bool {
	select {
	case <-ix.ready:
	default:
		return true
	}
	if ix.building.Load() || (ix.o.Watch && !ix.watching.Load()) {
		return true
	}
	w := ix.watcher.Load()
	return w != nil && w.pending()
}

// namesPoll is how often CatchUpNames looks whether the table caught up.
const namesPoll = 5 * time.Millisecond

// CatchUpNames waits until the name table holds every change made before
// the call — the watcher has read the events queued so far, and the table
// is current (see namesBehind) — or ctx ends, and reports whether it is.
func (ix *Index) CatchUpNames(ctx context.Context) bool {
	// The watches of the folders the start's walk trusted first
	// (watchTrusted): a change made before one was added is found then.
	select {
	case <-ix.watchesSet:
	case <-ctx.Done():
		return false
	}
	if w := ix.watcher.Load(); w != nil {
		w.sync(ctx) // changes made a moment ago count as behind
	}
	for {
		if ix.closed.Load() {
			return false
		}
		if !ix.namesBehind() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(namesPoll):
		}
	}
}

// Names returns the name table and whether it may lag the files.
func (ix *Index) Names() (*vault.NameTable, bool) {
	if ix.closed.Load() || !ix.hasNames() {
		return nil, false
	}
	return ix.nameTable(), ix.namesBehind()
}

// Catalog returns what the manifest knows of every file (vault.NameEntry),
// and whether it may lag the files.
func (ix *Index) Catalog() ([]vault.NameEntry, bool) {
	if ix.closed.Load() || !ix.hasNames() {
		return nil, false
	}
	ix.wmu.Lock()
	out := catalogOf(ix.man)
	ix.wmu.Unlock()
	return out, ix.namesBehind()
}

// catalogOf lists a manifest's files as name entries.
func catalogOf(m *manifest) []vault.NameEntry {
	out := make([]vault.NameEntry, 0, len(m.Files))
	for p, e := range m.Files {
		out = append(out, nameEntry(p, e))
	}
	return out
}

// nameEntry is a manifest entry as the name table keeps it.
func nameEntry(p string, e fileEntry) vault.NameEntry {
	if !e.Note {
		return vault.NameEntry{Path: p, Attachment: true, Size: e.Size, ModTime: time.Unix(0, e.MTime)}
	}
	return vault.NameEntry{Path: p, Titles: e.Titles, Aliases: e.Aliases, Title: e.Title, Tags: e.Tags,
		Version: e.Version, Conflicts: e.Conflicts, Size: e.Size, ModTime: time.Unix(0, e.MTime), NameKeys: e.NameKeys}
}

// nameTable returns the table of the indexed notes' names, rebuilt from
// the manifest when a commit changed a note's names or the set of files
// (lazily: a git checkout of a thousand notes rebuilds it once, at the
// next lookup).
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
	entries := catalogOf(ix.man)
	ix.wmu.Unlock()
	t := vault.NewNameTable(entries)
	ix.namesGen.Add(1)
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

// CatchUpNames waits until the name table is current, at the owner when
// another process owns it; see (*Index).CatchUpNames.
func (s *Shared) CatchUpNames(ctx context.Context) bool {
	current := false
	err := s.do(func(ix *Index) error {
		current = ix.CatchUpNames(ctx)
		return nil
	}, func(c *wireClient) error {
		r, err := c.call(ctx, 0, wireRequest{Method: "catchup-names"})
		if err == nil {
			current = r.Ready
		}
		return err
	})
	return err == nil && current
}

// Names returns the name table, the owner's when another process owns the
// index (fetched again only when it changed: wireRequest.Gen).
func (s *Shared) Names() (*vault.NameTable, bool) {
	var t *vault.NameTable
	behind := false
	err := s.do(func(ix *Index) error {
		t, behind = ix.Names()
		return nil
	}, func(c *wireClient) error {
		var err error
		t, behind, err = c.names()
		return err
	})
	if err != nil {
		return nil, false
	}
	return t, behind
}

// Catalog returns what the index knows of every file, the owner's when
// another process owns it; see (*Index).Catalog.
func (s *Shared) Catalog() ([]vault.NameEntry, bool) {
	var out []vault.NameEntry
	behind := false
	err := s.do(func(ix *Index) error {
		out, behind = ix.Catalog()
		return nil
	}, func(c *wireClient) error {
		r, err := c.call(context.Background(), nameLookupTimeout, wireRequest{Method: "catalog"})
		if err == nil {
			out, behind = r.Catalog, !r.Ready
		}
		return err
	})
	if err != nil {
		return nil, true
	}
	return out, behind
}

var (
	_ vault.NameSource = (*Index)(nil)
	_ vault.NameSource = (*Shared)(nil)
)
