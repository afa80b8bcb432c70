package vault

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// The names of a note are how people and agents refer to it: its path, its
// file name, its titles (the frontmatter title, spelled title or Title or
// TITLE, and its first H1) and its aliases; and for a folder note
// (x/Name/index.md, Name/Name.md, Name/README.md) the folder's name and
// path, which is what a vault of folder notes calls the note (a law corpus
// names 6,636 notes index.md, each in a folder named after its law).
//
// A NameTable answers Find's lookup steps from maps instead of a pass over
// every note. Find builds one from its walk of the vault when nothing
// better is at hand; a NameSource (the search index) keeps one current
// across writes, external edits and processes, so that a lookup never walks
// the vault.

// NameEntry is one note as a name table knows it.
type NameEntry struct {
	Path    string   // as stored (Walk's NFC spelling)
	Titles  []string // TitleNames of its parse
	Aliases []string // frontmatter aliases
}

// NameMatch is the outcome of one lookup in a name table: the paths of the
// first lookup step that matched (see Vault.Find), or, when none did, the
// closest notes.
type NameMatch struct {
	// What the step compared: "path", "folder", "file name", "path ending",
	// "title" or "alias"; "" when nothing matched.
	What  string
	Paths []string // sorted; several mean the reference is ambiguous
	// Closest are the notes nearest to a reference that matched nothing,
	// nearest first, at most 5 (ClosestNotes, then titles and aliases).
	Closest []string
}

// NameSource looks names up in a table kept current elsewhere. LookupName
// returns ok false when its table may be behind the files (still being
// built, or changes are not being followed); Find then walks the vault.
type NameSource interface {
	LookupName(target string, link bool) (m NameMatch, ok bool)
}

// NameTable is an immutable index of the names of a vault's notes. Build it
// with NewNameTable; it is safe for concurrent use.
type NameTable struct {
	entries map[string]NameEntry // by path
	paths   []string             // every note, sorted
	exact   map[string][]string  // LinkKey(path) → paths
	folder  map[string][]string  // LinkKey(folder) → its folder notes
	name    map[string][]string  // LinkKey(file name, stem or folder-note folder name) → paths
	title   map[string][]string  // NameKey(title) → paths
	alias   map[string][]string  // NameKey(alias) → paths
}

// NewNameTable indexes the names of the given notes.
func NewNameTable(entries []NameEntry) *NameTable {
	t := &NameTable{
		entries: make(map[string]NameEntry, len(entries)),
		exact:   make(map[string][]string, len(entries)),
		folder:  make(map[string][]string),
		name:    make(map[string][]string, len(entries)),
		title:   make(map[string][]string, len(entries)),
		alias:   make(map[string][]string),
	}
	add := func(m map[string][]string, k, p string) {
		if k == "" {
			return
		}
		if l := m[k]; len(l) == 0 || l[len(l)-1] != p {
			m[k] = append(l, p)
		}
	}
	sorted := append([]NameEntry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	for _, e := range sorted {
		if _, dup := t.entries[e.Path]; dup {
			continue
		}
		t.entries[e.Path] = e
		t.paths = append(t.paths, e.Path)
		k := note.LinkKey(e.Path)
		add(t.exact, k, e.Path)
		base := path.Base(k)
		add(t.name, base, e.Path)
		add(t.name, strings.TrimSuffix(base, ".md"), e.Path)
		if f := note.FolderNoteFolder(e.Path); f != "" {
			add(t.folder, note.LinkKey(f), e.Path)
			add(t.name, note.LinkKey(path.Base(f)), e.Path)
		}
		for _, s := range e.Titles {
			add(t.title, note.NameKey(s), e.Path)
		}
		for _, a := range e.Aliases {
			add(t.alias, note.NameKey(a), e.Path)
		}
	}
	return t
}

// Len is the number of notes in the table.
func (t *NameTable) Len() int { return len(t.paths) }

// Lookup runs Find's steps for target (link: it was written inside
// [[brackets]], where a path ending names a note as in Obsidian).
//
// A path with a folder is taken at its word (AGENT-CONTRACT rule 5: what
// you named wins): outside brackets it matches that path only (or the
// folder note of that folder), never another note whose path merely ends
// the same — after a move, the old path is an error that names the new
// one, not a silent redirect. It may still be a title or an alias as a
// whole: titles hold slashes ("… zum Kaufmann/zur Kauffrau …").
func (t *NameTable) Lookup(target string, link bool) NameMatch {
	k := note.LinkKey(strings.TrimSpace(target))
	if c := path.Clean("/" + k); c != "/" {
		k = c[1:] // "./a//b/" → "a/b"; ".." cannot climb above the root
	}
	exact := append(append([]string(nil), t.exact[k]...), t.exact[k+".md"]...)
	if len(exact) > 1 { // paths that differ only in case: the one spelled as asked wins
		for _, p := range exact {
			if p == target || p == target+".md" {
				return NameMatch{What: "path", Paths: []string{p}}
			}
		}
	}
	if len(exact) > 0 {
		return t.match("path", exact)
	}
	if l := t.folder[k]; len(l) > 0 {
		return t.match("folder", l)
	}
	what := "file name"
	withFolder := strings.Contains(k, "/")
	if withFolder {
		what = "path ending"
	}
	var byName []string
	for _, p := range t.name[path.Base(k)] {
		if withFolder && !link {
			break
		}
		pk := note.LinkKey(p)
		f := note.LinkKey(note.FolderNoteFolder(p))
		if note.PathHasSuffix(pk, k) || note.PathHasSuffix(pk, k+".md") || (f != "" && note.PathHasSuffix(f, k)) {
			byName = append(byName, p)
		}
	}
	if len(byName) > 0 {
		return t.match(what, byName)
	}
	nk := note.NameKey(target)
	if l := t.title[nk]; len(l) > 0 {
		return t.match("title", l)
	}
	if l := t.alias[nk]; len(l) > 0 {
		return t.match("alias", l)
	}
	return t.miss(target)
}

func (t *NameTable) match(what string, paths []string) NameMatch {
	out := append([]string(nil), paths...)
	sort.Strings(out)
	out = compactSorted(out)
	return NameMatch{What: what, Paths: out}
}

func compactSorted(s []string) []string {
	out := s[:0]
	for i, p := range s {
		if i == 0 || p != s[i-1] {
			out = append(out, p)
		}
	}
	return out
}

func (t *NameTable) miss(target string) NameMatch {
	return NameMatch{Closest: t.closest(target, 5)}
}

// Has reports whether the note at path p is in the table, as stored.
func (t *NameTable) Has(p string) bool {
	_, ok := t.entries[p]
	return ok
}

// closest ranks notes for a reference that matched nothing: first by
// name (ClosestNotes: file names, folder-note folder names), then notes
// whose title or an alias contains the reference or is a few edits away
// from it. At most n, nearest first.
func (t *NameTable) closest(target string, n int) []string {
	out := ClosestNotes(t.paths, target, n)
	if len(out) >= n {
		return out
	}
	k := note.NameKey(note.NoteName(strings.TrimSuffix(target, "/")))
	if k == "" {
		return out
	}
	type scored struct {
		p string
		d int
	}
	var more []scored
	for _, p := range t.paths {
		if slices.Contains(out, p) {
			continue
		}
		e := t.entries[p]
		best := -1
		for _, name := range append(append([]string(nil), e.Titles...), e.Aliases...) {
			nk := note.NameKey(name)
			if nk == "" {
				continue
			}
			d := note.Distance(k, nk)
			if strings.Contains(nk, k) || strings.Contains(k, nk) {
				d = min(d, 1)
			}
			if d <= max(2, len([]rune(k))/4) && (best < 0 || d < best) {
				best = d
			}
		}
		if best >= 0 {
			more = append(more, scored{p, best})
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
