package vault

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/vaultd/vaultd/note"
)

// noteCache keeps every note of the vault parsed, so that finding a note
// by title or alias, listing notes and resolving links do not re-read and
// re-parse the whole vault on every call. Each use walks the vault (a stat
// per file) and re-parses only files whose size or mtime changed; the
// result is an immutable snapshot, shared by every caller until the next
// change. The zero value is ready to use.
type noteCache struct {
	mu    sync.Mutex
	files map[string]cachedFile // by vault path
	snap  *snapshot             // nil when a file changed since it was built
}

type cachedFile struct {
	size int64
	mod  time.Time
	note *Note // nil for attachments
}

// snapshot is the vault as of one walk. Never modified once built.
type snapshot struct {
	notes    []*Note  // sorted by path
	paths    []string // every note and attachment, sorted
	resolver *note.Resolver
	names    *NameTable
}

// snapshot returns the current snapshot, re-parsing what changed.
func (v *Vault) snapshot() (*snapshot, error) {
	c := &v.cache
	c.mu.Lock()
	defer c.mu.Unlock()

	start := time.Now()
	var entries []Entry
	if err := v.Walk(func(e Entry) error {
		entries = append(entries, e)
		return nil
	}); err != nil {
		return nil, err
	}
	if c.files == nil {
		c.files = make(map[string]cachedFile, len(entries))
	}
	seen := make(map[string]bool, len(entries))
	var stale []Entry
	for _, e := range entries {
		seen[e.Path] = true
		old, ok := c.files[e.Path]
		if ok && old.size == e.Size && old.mod.Equal(e.ModTime) && (old.note != nil) == e.Note {
			continue
		}
		c.snap = nil
		if !e.Note {
			c.files[e.Path] = cachedFile{size: e.Size, mod: e.ModTime}
			continue
		}
		stale = append(stale, e)
	}
	for p := range c.files {
		if !seen[p] {
			delete(c.files, p)
			c.snap = nil
		}
	}
	if c.snap != nil {
		return c.snap, nil
	}

	// Parse in parallel: a cold start on a large vault is parse-bound
	// (goldmark does about 15 MB/s on one core, LIBRARIES.md §3.3).
	parsed := make([]*Note, len(stale))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(stale)); w++ {
		wg.Go(func() {
			for i := range next {
				n, err := v.read(stale[i].Path)
				if err != nil {
					continue // vanished or unreadable since the walk: skip it
				}
				n.Path = stale[i].Path // Walk's NFC spelling
				parsed[i] = n
			}
		})
	}
	for i := range stale {
		next <- i
	}
	close(next)
	wg.Wait()
	if v.opts.ReadNotes != nil {
		v.opts.ReadNotes(len(stale), time.Since(start))
	}
	for i, e := range stale {
		if parsed[i] == nil {
			delete(c.files, e.Path)
			continue
		}
		// The key is the stat taken before the read: a write racing with
		// the read changes it again, so the next use re-parses.
		c.files[e.Path] = cachedFile{size: e.Size, mod: e.ModTime, note: parsed[i]}
	}

	s := &snapshot{paths: make([]string, 0, len(c.files))}
	aliases := make(map[string][]string)
	var names []NameEntry
	for p, f := range c.files {
		s.paths = append(s.paths, p)
		if f.note != nil {
			s.notes = append(s.notes, f.note)
			names = append(names, nameEntryOf(f.note))
			if len(f.note.Aliases) > 0 {
				aliases[p] = f.note.Aliases
			}
		} else {
			names = append(names, NameEntry{Path: p, Attachment: true, Size: f.size, ModTime: f.mod})
		}
	}
	sort.Strings(s.paths)
	sort.Slice(s.notes, func(i, j int) bool { return s.notes[i].Path < s.notes[j].Path })
	s.resolver = note.NewResolver(s.paths).WithAliases(aliases)
	s.names = NewNameTable(names)
	c.snap = s
	return s, nil
}

// Notes returns every note of the vault, parsed, sorted by path. Notes are
// cached and re-parsed only when their size or mtime changes, so the same
// *Note may be returned to several callers: treat it as read-only. Use
// Read for the current bytes of one note (a change that keeps size and
// mtime is seen by Read, not necessarily by Notes).
func (v *Vault) Notes() ([]*Note, error) {
	s, err := v.snapshot()
	if err != nil {
		return nil, err
	}
	return append([]*Note(nil), s.notes...), nil
}

// Resolver returns a link resolver for the vault as it is now: every note
// and attachment, and the notes' aliases (for ResolveAlias). It is rebuilt
// only when a file changed.
func (v *Vault) Resolver() (*note.Resolver, error) {
	s, err := v.snapshot()
	if err != nil {
		return nil, err
	}
	return s.resolver, nil
}

// NameEntry is what a name table knows of the note.
func (n *Note) NameEntry() NameEntry { return nameEntryOf(n) }

// nameEntryOf is what a name table knows of a note read whole.
func nameEntryOf(n *Note) NameEntry {
	e := NameEntry{Path: n.Path, Title: n.Title, Aliases: n.Aliases, Tags: n.Tags, Version: n.Version, Size: n.Size, ModTime: n.ModTime}
	if n.Doc != nil {
		e.Titles = note.TitleNames(n.Doc)
		e.Conflicts = len(n.Doc.Conflicts) > 0
	}
	return e
}

// Find locates one note by a reference, trying in this order:
//
//  1. an exact vault path, with or without ".md" ("1_Projekte/Alpha");
//  2. a folder with a folder note ("x/BGB" for x/BGB/index.md, see
//     FolderNoteFolder);
//  3. a file name or the end of a path ("Alpha", "Projekte/Alpha.md"), or
//     the name of a folder-note's folder ("BGB");
//  4. a title (frontmatter title in any case of the key, or the first H1);
//  5. an alias (frontmatter aliases).
//
// All comparisons ignore case and Unicode normalisation; titles and
// aliases also ignore runs of white space. The reference may be written
// as a wikilink, "[[Alpha#Ziele|label]]": the brackets and label are
// dropped and the heading ("Ziele") is returned separately for the caller
// to read that section. A reference without brackets that matches nothing
// is tried once more split at its first "#" ("Alpha#Ziele").
//
// The first step with a match decides: one note is returned, read afresh
// (its Version is current); several are an error. Unlike link resolution
// (Resolver), Find never picks among notes that share a name: a caller
// that names a note must get the one it means.
//
// The names come from the vault's NameSource (SetNames): a lookup reads
// the one note it finds and walks nothing. A table that may lag the files
// (the source is still reading the vault, or a change waits to be taken
// in) is trusted for a note it finds that, read, still bears the name;
// anything else — a miss, several notes, a note that no longer bears the
// name — waits for the source to catch up (at most NameCatchUpWait) and
// looks again. Without a source the vault is walked.
//
// Errors (all *Error): ErrInvalid for an empty reference; ErrAmbiguous
// listing every candidate path (AltKind "notes"); ErrNotFound with the
// closest notes, nearest first, at most 5 (AltKind "notes", AltWhy saying
// what made each close).
func (v *Vault) Find(ref string) (n *Note, heading string, err error) {
	ref = strings.TrimSpace(ref)
	target := ref
	bracketed := strings.HasPrefix(strings.TrimPrefix(ref, "!"), "[[") && strings.HasSuffix(ref, "]]")
	if bracketed {
		target, heading = note.SplitLinkText(ref)
	}
	if target == "" {
		msg := "the note reference is empty; give a path, a file name, a title, an alias or a [[wikilink]]"
		if heading != "" {
			msg = fmt.Sprintf("%q names a heading but no note; put the note's name before the #", ref)
		}
		return nil, "", &note.Error{Op: "find", Kind: note.ErrInvalid, Msg: msg}
	}
	// Step 1 needs no table: an exact path that exists is read directly.
	if c, err := v.notePath(strings.TrimPrefix(target, "/")); err == nil && v.spelledAsStored(c) {
		if n, err := v.read(c); err == nil {
			return n, heading, nil
		}
	}
	if src := v.nameSource(); src != nil {
		if n, h, err, ok := v.findIn(src, target, heading, bracketed); ok {
			return n, h, err
		}
	}
	s, err := v.snapshot()
	if err != nil {
		return nil, "", err
	}
	m, t, h, _ := lookupSplit(target, heading, bracketed, func(t string, link bool) (NameMatch, bool) {
		return s.names.Lookup(t, link), true
	})
	switch {
	case m.What == "":
		return nil, "", v.findNotFound(target, m)
	case len(m.Paths) > 1:
		return nil, "", ambiguous(m, t)
	}
	n, err = v.read(m.Paths[0])
	if err != nil {
		return nil, "", err
	}
	n.Path = m.Paths[0]
	return n, h, nil
}

// NameCatchUpWait bounds how long a lookup waits for its name source to
// take in the latest changes (a restart's comparison with the files takes
// a fraction of a second on the 6,636 laws). Past it the lookup answers
// from the table as it is, and a miss says the vault is still being read.
// (A variable for tests on loaded machines.)
var NameCatchUpWait = 3 * time.Second

// findIn is Find's lookup in a name source; ok false when the source has
// no table (Find then walks).
func (v *Vault) findIn(src NameSource, target, heading string, link bool) (n *Note, h string, err error, ok bool) {
	deadline := time.Now().Add(NameCatchUpWait)
	synced := false
	for {
		m, t, h, ok := lookupSplit(target, heading, link, src.LookupName)
		if !ok {
			return nil, "", nil, false
		}
		// One note that, read, no longer bears the name: the table lags a
		// change even if the source does not know it yet (the watcher's
		// event is on its way).
		stale := false
		if m.What != "" && len(m.Paths) == 1 {
			n, ok := v.bearsName(m, t)
			if ok {
				return n, h, nil, true
			}
			stale = true
		}
		// A table the source calls current may still miss a change made
		// a moment ago, before the source heard of it: a miss, or several
		// notes, asks it once to take in everything changed until now.
		if !m.Behind && !stale && !synced && time.Now().Before(deadline) {
			synced = true
			ctx, cancel := context.WithDeadline(context.Background(), deadline)
			src.CatchUpNames(ctx)
			cancel()
			continue
		}
		if (!m.Behind && !stale) || !time.Now().Before(deadline) {
			if m.What != "" && len(m.Paths) > 1 {
				return nil, "", ambiguous(m, t), true
			}
			if stale {
				m = NameMatch{Closest: m.Paths, Why: []string{"changed a moment ago"}, Close: 1, Behind: true}
			}
			return nil, "", v.findNotFound(target, m), true
		}
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		src.CatchUpNames(ctx)
		cancel()
		if stale {
			time.Sleep(staleWait)
		}
	}
}

// staleWait is how long Find waits before it looks again when the table
// named a note that no longer bears the name and the source did not know
// of the change yet.
const staleWait = 20 * time.Millisecond

// SetNames makes Find look names up in src (see NameSource) instead of
// walking the vault. nil goes back to walking.
func (v *Vault) SetNames(src NameSource) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.names = src
}

func (v *Vault) nameSource() NameSource {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.names
}

// Names returns the vault's name table: the NameSource's, brought up to
// date first (at most NameCatchUpWait), or, without a source, one built
// from a walk of the vault. behind says it may still lag the files.
func (v *Vault) Names() (t *NameTable, behind bool, err error) {
	if src := v.nameSource(); src != nil {
		if t, behind := src.Names(); t != nil {
			if behind {
				ctx, cancel := context.WithTimeout(context.Background(), NameCatchUpWait)
				src.CatchUpNames(ctx)
				cancel()
				if t2, b2 := src.Names(); t2 != nil {
					t, behind = t2, b2
				}
			}
			return t, behind, nil
		}
	}
	s, err := v.snapshot()
	if err != nil {
		return nil, false, err
	}
	return s.names, false, nil
}

// Catalog returns what the vault's NameSource knows of every file (a
// note's title, tags, size, time and version as of its last reading),
// brought up to date first (at most NameCatchUpWait); without a source, or
// when it has no table, what a walk of the vault finds. behind says it may
// still lag the files.
func (v *Vault) Catalog() (entries []NameEntry, behind bool, err error) {
	return v.CatalogWithin(NameCatchUpWait)
}

// CatalogWithin is Catalog waiting at most wait for the source to catch
// up: vault_overview right after a start answers from the table the index
// saved rather than wait for its comparison with the files (and says so).
func (v *Vault) CatalogWithin(wait time.Duration) (entries []NameEntry, behind bool, err error) {
	if src := v.nameSource(); src != nil {
		// The catalog first, not the table (Names): an index that just
		// opened builds its table at the first lookup, 30 ms for the laws
		// that a listing does not need.
		entries, behind := src.Catalog()
		if entries != nil && behind {
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			if src.CatchUpNames(ctx) {
				entries, behind = src.Catalog()
			}
			cancel()
		}
		if entries != nil {
			return entries, behind, nil
		}
	}
	s, err := v.snapshot()
	if err != nil {
		return nil, false, err
	}
	return s.names.Entries(), false, nil
}

// Known returns what listings show of the note at p — its title, tags,
// version, size and time — from the name table when the file's size and
// time are still what the table read (one stat), else from the note read
// afresh; ok false when there is no note at p.
func (v *Vault) Known(p string) (NameEntry, bool) {
	fi, err := v.root.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || !IsNote(p) {
		return NameEntry{}, false
	}
	if t := v.namesNow(); t != nil {
		if e, ok := t.Entry(p); ok && fi.Size() == e.Size && fi.ModTime().Equal(e.ModTime) && e.Version != "" {
			return e, true
		}
	}
	n, err := v.readAt(p, false)
	if err != nil {
		return NameEntry{}, false
	}
	n.Path = p
	return nameEntryOf(n), true
}

// namesNow is the name source's table as it is, nil without one.
func (v *Vault) namesNow() *NameTable {
	if src := v.nameSource(); src != nil {
		t, _ := src.Names()
		return t
	}
	return nil
}

// lookupSplit runs lookup for target and, when that matches nothing and
// target is no link but holds a "#", once more for the part before it
// (the rest is the heading). It returns the match, the target it was
// found under and the heading; ok false when lookup was not ready.
func lookupSplit(target, heading string, link bool, lookup func(string, bool) (NameMatch, bool)) (NameMatch, string, string, bool) {
	m, ok := lookup(target, link)
	if !ok {
		return m, target, heading, false
	}
	if m.What == "" && !link && strings.Contains(target, "#") {
		t, h, _ := strings.Cut(target, "#")
		if t = strings.TrimSpace(t); t != "" {
			if m2, ok := lookup(t, false); ok && m2.What != "" {
				return m2, t, strings.TrimSpace(h), true
			}
		}
	}
	return m, target, heading, true
}

// bearsName reads the one note a name source matched and checks that it
// still bears the name it was found by (the table may lag an edit); ok
// false when it does not, or is gone.
func (v *Vault) bearsName(m NameMatch, target string) (*Note, bool) {
	n, err := v.readAt(m.Paths[0], false)
	if err != nil {
		return nil, false
	}
	n.Path = m.Paths[0]
	k := note.NameKey(target)
	switch m.What {
	case "title":
		for _, t := range note.TitleNames(n.Doc) {
			if note.NameKey(t) == k {
				return n, true
			}
		}
		return nil, false
	case "alias":
		for _, a := range n.Aliases {
			if note.NameKey(a) == k {
				return n, true
			}
		}
		return nil, false
	case loosely:
		lk := note.LooseKey(target)
		for _, name := range append(append(note.TitleNames(n.Doc), n.Aliases...), note.NoteName(n.Path)) {
			if note.LooseKey(name) == lk {
				return n, true
			}
		}
		return nil, false
	}
	return n, true
}

// ambiguous is Find's ErrAmbiguous for a step that matched several notes.
func ambiguous(m NameMatch, target string) error {
	return &note.Error{Op: "find", Kind: note.ErrAmbiguous, AltKind: "notes", Alternatives: m.Paths,
		Msg: fmt.Sprintf("%q is the %s of %d notes; name one by its full path", target, m.What, len(m.Paths))}
}

// spelledAsStored reports whether the regular file c exists under exactly
// that name. On case-insensitive file systems (macOS, Windows) a stat of
// "alpha.md" finds "Alpha.md"; the note must still be reported under its
// real name, which the snapshot knows.
func (v *Vault) spelledAsStored(c string) bool {
	fi, err := v.root.Stat(c)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if !v.foldsNames() {
		// A file system that tells names apart byte for byte (Linux)
		// found c under exactly that name: no need to read the folder,
		// which costs 15 ms in a folder of 4,600 notes.
		return true
	}
	entries, err := fs.ReadDir(v.root.FS(), path.Dir(c))
	if err != nil {
		return false
	}
	base := path.Base(c)
	for _, e := range entries {
		if nfc(e.Name()) == base {
			return true
		}
	}
	return false
}

// foldsNames reports whether the vault's file system finds a name under
// another spelling — case (macOS, Windows) or Unicode normal form (macOS) —
// tried once on an entry of the vault's root: does its name with the case
// of each letter swapped stat as the same file?
func (v *Vault) foldsNames() bool {
	v.foldOnce.Do(func() {
		entries, err := fs.ReadDir(v.root.r.FS(), ".")
		if err != nil {
			v.folds = true // cannot tell: take the careful way
			return
		}
		for _, e := range entries {
			name := e.Name()
			swapped := strings.Map(func(r rune) rune {
				if unicode.IsUpper(r) {
					return unicode.ToLower(r)
				}
				return unicode.ToUpper(r)
			}, name)
			if swapped == name {
				continue
			}
			a, err1 := v.root.r.Lstat(name)
			b, err2 := v.root.r.Lstat(swapped)
			v.folds = err1 == nil && err2 == nil && os.SameFile(a, b)
			return
		}
		v.folds = true // no name with letters: cannot tell
	})
	return v.folds
}

// findNotFound builds Find's ErrNotFound from a lookup that matched no
// note: a path-like reference gets the folder-aware message of notFound, a
// name what was searched; both list the closest notes and say what made
// each close. A reference naming an attachment is found, but no note.
func (v *Vault) findNotFound(target string, m NameMatch) error {
	if m.Attachment != "" && !IsNote(m.Attachment) {
		return &note.Error{Op: "find", Path: m.Attachment, Kind: note.ErrNotFound, AltKind: "notes",
			Msg:          "is an attachment, not a note; notes are .md files",
			Alternatives: m.Closest, AltWhy: m.Why, AltClose: m.Close}
	}
	var e *note.Error
	if strings.Contains(strings.Trim(target, "/"), "/") {
		if c, err := note.NotePath(strings.TrimPrefix(target, "/")); err == nil {
			e = v.notFoundWith("find", c, m.Closest)
		}
	}
	if e == nil {
		e = &note.Error{Op: "find", Kind: note.ErrNotFound, AltKind: "notes",
			Msg:          fmt.Sprintf("no note has the path, file name, title or alias %q", target),
			Alternatives: m.Closest}
	}
	e.AltWhy, e.AltClose = m.Why, m.Close
	if m.Behind {
		e.Msg += " (vaultd is still reading the vault's notes: a note added or renamed in the last moments may not be known yet; retry in a few seconds)"
	}
	return e
}
