package vault

import (
	"errors"
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
	resolver *Resolver
}

// snapshot returns the current snapshot, re-parsing what changed.
func (v *Vault) snapshot() (*snapshot, error) {
	c := &v.cache
	c.mu.Lock()
	defer c.mu.Unlock()

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
	for p, f := range c.files {
		s.paths = append(s.paths, p)
		if f.note != nil {
			s.notes = append(s.notes, f.note)
			if len(f.note.Aliases) > 0 {
				aliases[p] = f.note.Aliases
			}
		}
	}
	sort.Strings(s.paths)
	sort.Slice(s.notes, func(i, j int) bool { return s.notes[i].Path < s.notes[j].Path })
	s.resolver = NewResolver(s.paths).WithAliases(aliases)
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
func (v *Vault) Resolver() (*Resolver, error) {
	s, err := v.snapshot()
	if err != nil {
		return nil, err
	}
	return s.resolver, nil
}

// Find locates one note by a reference, trying in this order:
//
//  1. an exact vault path, with or without ".md" ("1_Projekte/Alpha");
//  2. a file name or the end of a path ("Alpha", "Projekte/Alpha.md");
//  3. a title (frontmatter title, else first H1);
//  4. an alias (frontmatter aliases).
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
// Errors (all *Error): ErrInvalid for an empty reference; ErrAmbiguous
// listing every candidate path (AltKind "notes"); ErrNotFound with the
// closest notes, nearest first, at most 5 (AltKind "notes").
func (v *Vault) Find(ref string) (n *Note, heading string, err error) {
	ref = strings.TrimSpace(ref)
	target := ref
	bracketed := strings.HasPrefix(strings.TrimPrefix(ref, "!"), "[[") && strings.HasSuffix(ref, "]]")
	if bracketed {
		target, heading = SplitLinkText(ref)
	}
	if target == "" {
		msg := "the note reference is empty; give a path, a file name, a title, an alias or a [[wikilink]]"
		if heading != "" {
			msg = fmt.Sprintf("%q names a heading but no note; put the note's name before the #", ref)
		}
		return nil, "", &Error{Op: "find", Kind: ErrInvalid, Msg: msg}
	}
	// Step 1 without the walk: an exact path that exists needs no snapshot
	// (the walk costs ~120 ms on a 6,600-note vault).
	if c, err := NotePath(strings.TrimPrefix(target, "/")); err == nil && v.spelledAsStored(c) {
		if n, err := v.read(c); err == nil {
			return n, heading, nil
		}
	}
	s, err := v.snapshot()
	if err != nil {
		return nil, "", err
	}
	p, err := s.find(target, bracketed)
	if errors.Is(err, ErrNotFound) && !bracketed && strings.Contains(target, "#") {
		t, h, _ := strings.Cut(target, "#")
		if t = strings.TrimSpace(t); t != "" {
			if p2, err2 := s.find(t, false); !errors.Is(err2, ErrNotFound) {
				p, err, heading = p2, err2, strings.TrimSpace(h)
			}
		}
	}
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, "", v.findNotFound(s, target)
		}
		return nil, "", err
	}
	n, err = v.read(p)
	if err != nil {
		return nil, "", err
	}
	n.Path = p
	return n, heading, nil
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

// find runs Find's lookup steps against the snapshot and returns the
// path of the one note found. The ErrNotFound it returns carries no
// alternatives (Find adds them).
//
// A path with a folder is taken at its word (AGENT-CONTRACT rule 5: what
// you named wins): it matches that path only, never another note whose
// path merely ends the same — after a move, the old path is an error that
// names the new one, not a silent redirect. Inside [[brackets]] a path
// ending matches as in Obsidian's links.
func (s *snapshot) find(target string, link bool) (string, error) {
	k := linkKey(target)
	if c := path.Clean("/" + k); c != "/" {
		k = c[1:] // "./a//b/" → "a/b"; ".." cannot climb above the root
	}
	var exact, byName []string
	for _, n := range s.notes {
		pk := linkKey(n.Path)
		switch {
		case pk == k || pk == k+".md":
			exact = append(exact, n.Path)
		case strings.HasSuffix(pk, "/"+k) || strings.HasSuffix(pk, "/"+k+".md"):
			byName = append(byName, n.Path)
		}
	}
	if len(exact) > 1 { // paths that differ only in case: the one spelled as asked wins
		for _, p := range exact {
			if p == target || p == target+".md" {
				return p, nil
			}
		}
	}
	if p, err := oneOf(exact, target, "path"); p != "" || err != nil {
		return p, err
	}
	what := "file name"
	if strings.Contains(k, "/") {
		if !link {
			return "", ErrNotFound
		}
		what = "path ending"
	}
	if p, err := oneOf(byName, target, what); p != "" || err != nil {
		return p, err
	}

	nk := nameKey(target)
	var titles, aliases []string
	for _, n := range s.notes {
		if nameKey(n.Title) == nk {
			titles = append(titles, n.Path)
		}
		for _, a := range n.Aliases {
			if nameKey(a) == nk {
				aliases = append(aliases, n.Path)
				break
			}
		}
	}
	if p, err := oneOf(titles, target, "title"); p != "" || err != nil {
		return p, err
	}
	if p, err := oneOf(aliases, target, "alias"); p != "" || err != nil {
		return p, err
	}
	return "", ErrNotFound
}

// oneOf returns the single path of a step, ErrAmbiguous for several, and
// "", nil for none.
func oneOf(paths []string, target, what string) (string, error) {
	switch len(paths) {
	case 0:
		return "", nil
	case 1:
		return paths[0], nil
	}
	sort.Strings(paths)
	return "", &Error{Op: "find", Kind: ErrAmbiguous, AltKind: "notes", Alternatives: paths,
		Msg: fmt.Sprintf("%q is the %s of %d notes; name one by its full path", target, what, len(paths))}
}

// nameKey compares titles and aliases: NFC, white space collapsed, lower case.
func nameKey(s string) string { return strings.ToLower(normSpace(s)) }

// findNotFound builds Find's ErrNotFound: a path-like reference gets the
// folder-aware message of notFound; a name gets what was searched. Both
// list the closest notes by file name, then by title or alias.
func (v *Vault) findNotFound(s *snapshot, target string) error {
	// An attachment is found, but is no note: say so rather than "missing".
	if res := s.resolver.ResolveName("", target); res.Status == Resolved && !IsNote(res.Target) {
		return &Error{Op: "find", Path: res.Target, Kind: ErrNotFound, AltKind: "notes",
			Msg:          "is an attachment, not a note; notes are .md files",
			Alternatives: closestRefs(s, target, 5)}
	}
	if strings.Contains(strings.Trim(target, "/"), "/") {
		c, err := NotePath(strings.TrimPrefix(target, "/"))
		if err == nil {
			e := v.notFound("find", c)
			if fe, ok := AsError(e); ok {
				fe.Alternatives = closestRefs(s, c, 5)
			}
			return e
		}
	}
	return &Error{Op: "find", Kind: ErrNotFound, AltKind: "notes",
		Msg:          fmt.Sprintf("no note has the path, file name, title or alias %q", target),
		Alternatives: closestRefs(s, target, 5)}
}

// closestRefs ranks notes for a reference that matched nothing: first by
// file name (ClosestNotes), then notes whose title or an alias contains
// the reference or is a few edits away from it. At most n, nearest first.
func closestRefs(s *snapshot, target string, n int) []string {
	var notePaths []string
	for _, nt := range s.notes {
		notePaths = append(notePaths, nt.Path)
	}
	out := ClosestNotes(notePaths, target, n)
	if len(out) >= n {
		return out
	}
	k := nameKey(strings.TrimSuffix(path.Base(target), ".md"))
	if k == "" {
		return out
	}
	type scored struct {
		p string
		d int
	}
	var more []scored
	for _, nt := range s.notes {
		if contains(out, nt.Path) {
			continue
		}
		best := -1
		for _, name := range append([]string{nt.Title}, nt.Aliases...) {
			nk := nameKey(name)
			if nk == "" {
				continue
			}
			d := Distance(k, nk)
			if strings.Contains(nk, k) || strings.Contains(k, nk) {
				d = min(d, 1)
			}
			if d <= max(2, len([]rune(k))/4) && (best < 0 || d < best) {
				best = d
			}
		}
		if best >= 0 {
			more = append(more, scored{nt.Path, best})
		}
	}
	sort.SliceStable(more, func(i, j int) bool {
		if more[i].d != more[j].d {
			return more[i].d < more[j].d
		}
		return more[i].p < more[j].p
	})
	for _, m := range more {
		if len(out) >= n {
			break
		}
		out = append(out, m.p)
	}
	return out
}
