package vault

import (
	"context"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

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
// every note, and knows what else of each note a listing needs without
// reading it (its display title, tags, size, time, version): the vault's
// overview, the notes an answer names. Find builds one from its walk of the
// vault when nothing better is at hand; a NameSource (the search index,
// whose manifest persists the table) keeps one current across writes,
// external edits, processes and restarts, so that a lookup never walks the
// vault.

// NameEntry is one file of the vault as a name table knows it: a note, or
// an attachment (only Path, Size and ModTime are set then).
type NameEntry struct {
	Path    string   // as stored (Walk's NFC spelling)
	Titles  []string // TitleNames of its parse
	Aliases []string // frontmatter aliases

	// What listings show of the note, as of its last reading.
	Title     string // note.NoteTitle: the title it is shown with
	Tags      []string
	Version   string // hex SHA-256 of its bytes
	Conflicts bool   // it holds merge conflict markers
	Size      int64
	ModTime   time.Time

	// Attachment marks a file that is no note.
	Attachment bool

	// NameKeys are note.NameKey of Titles, then of Aliases, when the
	// source keeps them (the index's manifest does: keying the 6,636
	// laws' long titles was half of building their table); else nil.
	NameKeys []string `json:",omitempty"`
}

// NameKeys returns note.NameKey of each title, then of each alias.
func NameKeys(titles, aliases []string) []string {
	out := make([]string, 0, len(titles)+len(aliases))
	for _, s := range titles {
		out = append(out, note.NameKey(s))
	}
	for _, s := range aliases {
		out = append(out, note.NameKey(s))
	}
	return out
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
	// nearest first, at most 5 (closest.go); Why says for each what made
	// it close (`title "…"`), for the agent to choose by; Close is how
	// many of them are close by name (the rest only hold the typed words
	// or are in the folder named).
	Closest []string
	Why     []string `json:",omitempty"`
	Close   int      `json:",omitempty"`
	// Attachment is the attachment a reference that matched no note names
	// ("plan.pdf"), "" if none.
	Attachment string `json:",omitempty"`
	// Behind says the table may lag the files: it is being built or
	// brought up to date, or a change waits to be taken in. A match is then
	// checked against the note (Find reads it anyway), and a miss is not
	// final until the source caught up (NameSource.CatchUpNames).
	Behind bool `json:",omitempty"`
}

// NameSource keeps a vault's name table current (the search index does,
// across processes and restarts), so that Find looks names up without a
// walk of the vault.
type NameSource interface {
	// LookupName looks target up in the table as it is now (see
	// NameTable.Lookup); m.Behind says whether the table may lag the
	// files. ok is false when the source has no table at all (it failed,
	// or was closed); Find then walks the vault.
	LookupName(target string, link bool) (m NameMatch, ok bool)
	// CatchUpNames waits until the table has taken in every change to the
	// files made before the call, or until ctx ends; it reports whether
	// the table is current.
	CatchUpNames(ctx context.Context) bool
	// Names returns the table as it is now, and whether it may lag the
	// files; nil when the source has none.
	Names() (t *NameTable, behind bool)
	// Catalog returns what the source knows of every file as it is now
	// (with what listings show: NameEntry), and whether it may lag the
	// files; nil when the source has none.
	Catalog() (entries []NameEntry, behind bool)
}

// NameTable is an immutable index of the names of a vault's notes. Build it
// with NewNameTable; it is safe for concurrent use.
type NameTable struct {
	looseOnce sync.Once
	loose     []closeName // every name, for closestNames (built at the first miss)
	namedOnce sync.Once
	byLoose   keyPaths // note.LooseKey of every name → paths (Named; built at the first call)

	notes  []NameEntry // every note, sorted by path
	paths  []string    // every note, sorted
	files  keyPaths    // LinkKey(path), LinkKey(file name) → attachments
	attach []NameEntry // every attachment
	exact  keyPaths    // LinkKey(path) → paths
	folder keyPaths    // LinkKey(folder) → its folder notes
	name   keyPaths    // LinkKey(file name, stem or folder-note folder name) → paths
	title  keyPaths    // NameKey(title) → paths
	alias  keyPaths    // NameKey(alias) → paths
}

// keyPaths maps keys to the paths that bear them. Nearly every key names
// one path, so a key holds the place of its path in one list, and only a
// key that names several has a list of its own: building the table of the
// 6,636 laws allocates a few dozen slices instead of one per name.
type keyPaths struct {
	m    map[string]int32 // ≥ 0: index in one; < 0: -(i+1), index in many
	one  []string
	many [][]string
}

func newKeyPaths(n int) keyPaths {
	return keyPaths{m: make(map[string]int32, n), one: make([]string, 0, n)}
}

// get returns the paths with key k, in the order added; the caller must
// not append to the list.
func (kp *keyPaths) get(k string) []string {
	v, ok := kp.m[k]
	switch {
	case !ok:
		return nil
	case v >= 0:
		return kp.one[v : v+1 : v+1]
	default:
		return kp.many[-v-1]
	}
}

// add gives path p the key k (once: a path added twice in a row is kept
// once; an empty key names nothing).
func (kp *keyPaths) add(k, p string) {
	if k == "" {
		return
	}
	v, ok := kp.m[k]
	switch {
	case !ok:
		kp.m[k] = int32(len(kp.one))
		kp.one = append(kp.one, p)
	case v >= 0:
		if kp.one[v] != p {
			kp.many = append(kp.many, []string{kp.one[v], p})
			kp.m[k] = -int32(len(kp.many))
		}
	default:
		l := kp.many[-v-1]
		if l[len(l)-1] != p {
			kp.many[-v-1] = append(l, p)
		}
	}
}

// NewNameTable indexes the names of the given notes (and attachments).
// The entries are taken in order of their paths; a list already sorted
// so (a manifest's) is not sorted again.
func NewNameTable(entries []NameEntry) *NameTable {
	t := &NameTable{
		notes:  make([]NameEntry, 0, len(entries)),
		paths:  make([]string, 0, len(entries)),
		files:  newKeyPaths(0),
		exact:  newKeyPaths(len(entries)),
		folder: newKeyPaths(len(entries) / 2),
		name:   newKeyPaths(len(entries)),
		title:  newKeyPaths(len(entries)),
		alias:  newKeyPaths(0),
	}
	order := make([]int32, len(entries)) // sorted by path (the entries are large to move)
	for i := range order {
		order[i] = int32(i)
	}
	byPath := func(a, b int32) int { return strings.Compare(entries[a].Path, entries[b].Path) }
	if !slices.IsSortedFunc(order, byPath) {
		slices.SortStableFunc(order, byPath)
	}
	for _, i := range order {
		e := entries[i]
		if len(t.paths) > 0 && t.paths[len(t.paths)-1] == e.Path || t.attachedAlready(e) {
			continue
		}
		if e.Attachment {
			k := note.LinkKey(e.Path)
			t.files.add(k, e.Path)
			t.files.add(path.Base(k), e.Path)
			t.attach = append(t.attach, e)
			continue
		}
		t.notes = append(t.notes, e)
		t.paths = append(t.paths, e.Path)
		k := note.LinkKey(e.Path)
		t.exact.add(k, e.Path)
		base := path.Base(k)
		t.name.add(strings.TrimSuffix(base, ".md"), e.Path) // looked up without .md
		if f := note.FolderNoteFolder(e.Path); f != "" {
			t.folder.add(note.LinkKey(f), e.Path)
			t.name.add(note.LinkKey(path.Base(f)), e.Path)
		}
		keys := e.NameKeys
		if len(keys) != len(e.Titles)+len(e.Aliases) {
			keys = NameKeys(e.Titles, e.Aliases)
		}
		for i := range e.Titles {
			t.title.add(keys[i], e.Path)
		}
		for i := range e.Aliases {
			t.alias.add(keys[len(e.Titles)+i], e.Path)
		}
	}
	return t
}

// attachedAlready reports whether attachment e is one of the last taken
// (entries sorted by path hold a duplicate next to the original).
func (t *NameTable) attachedAlready(e NameEntry) bool {
	return e.Attachment && len(t.attach) > 0 && t.attach[len(t.attach)-1].Path == e.Path
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
	exact := append(append([]string(nil), t.exact.get(k)...), t.exact.get(k+".md")...)
	if len(exact) > 1 { // paths that differ only in case: the one spelled as asked wins
		for _, p := range exact {
			if p == target || p == target+".md" {
				return NameMatch{What: "path", Paths: []string{p}}
			}
		}
	}
	withFolder := strings.Contains(k, "/")
	plainName := !withFolder && !strings.EqualFold(path.Ext(k), ".md")
	if plainName {
		// A plain name spelled as a note's path is that note; spelled
		// otherwise ("prompt" for PROMPT.md, "webassembly" for the
		// folder note webassembly/index.md) it is one name among the
		// others below, not one that hides notes whose names it is.
		for _, p := range exact {
			if p == target || p == target+".md" {
				return NameMatch{What: "path", Paths: []string{p}}
			}
		}
	} else {
		if len(exact) > 0 {
			return t.match("path", exact)
		}
		if l := t.folder.get(k); len(l) > 0 {
			return t.match("folder", l)
		}
	}
	what := "file name"
	if withFolder {
		what = "path ending"
	}
	var byName []string
	for _, p := range t.name.get(strings.TrimSuffix(path.Base(k), ".md")) {
		if withFolder && !link {
			break
		}
		pk := note.LinkKey(p)
		f := note.LinkKey(note.FolderNoteFolder(p))
		if note.PathHasSuffix(pk, k) || note.PathHasSuffix(pk, k+".md") || (f != "" && note.PathHasSuffix(f, k)) {
			byName = append(byName, p)
		}
	}
	nk := note.NameKey(target)
	if plainName {
		// A plain name: a file name, a title and an alias are all names
		// a note is called by, and a name two notes bear is theirs both
		// (tldr's "jc" is the file name of jc.md and the title of
		// jc.json.md): one step, so that neither is hidden behind the
		// other.
		kinds := map[string]string{}
		for _, l := range []struct {
			what  string
			paths []string
		}{{"path", exact}, {"folder", t.folder.get(k)}, {what, byName}, {"title", t.title.get(nk)}, {"alias", t.alias.get(nk)}} {
			for _, p := range l.paths {
				if _, ok := kinds[p]; !ok {
					kinds[p] = l.what
				}
			}
		}
		switch len(kinds) {
		case 0:
			// One note bears the name but for punctuation and case
			// ("Array.prototype.filter" for "Array.prototype.filter()",
			// "StVO 2013" for the folder stvo_2013): that note.
			if l := t.Named(target); len(l) == 1 {
				return NameMatch{What: loosely, Paths: l}
			}
			return t.miss(target)
		case 1:
			for p, w := range kinds {
				return NameMatch{What: w, Paths: []string{p}}
			}
		}
		paths := make([]string, 0, len(kinds))
		whats := map[string]bool{}
		for p, w := range kinds {
			paths = append(paths, p)
			whats[w] = true
		}
		w := "name"
		if len(whats) == 1 {
			w = kinds[paths[0]]
		}
		return t.match(w, paths)
	}
	if len(byName) > 0 {
		return t.match(what, byName)
	}
	if l := t.title.get(nk); len(l) > 0 {
		return t.match("title", l)
	}
	if l := t.alias.get(nk); len(l) > 0 {
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

// loosely is NameMatch.What for a name matched but for punctuation and
// case (NameTable.Named).
const loosely = "name (but for punctuation and case)"

func (t *NameTable) miss(target string) NameMatch {
	var m NameMatch
	for _, c := range t.Closest(target, 5) {
		m.Closest = append(m.Closest, c.Path)
		m.Why = append(m.Why, c.Why)
		if c.rank <= rankStartSpelling {
			m.Close++
		}
	}
	m.Attachment = t.attachment(target)
	return m
}

// attachment returns the attachment target names, by its path or, alone
// in the vault, by its file name ("" if none).
func (t *NameTable) attachment(target string) string {
	k := note.LinkKey(strings.Trim(strings.TrimSpace(target), "/"))
	if l := t.files.get(k); len(l) > 0 {
		return l[0]
	}
	return ""
}

// Entry returns what the table knows of the note at p (as stored).
func (t *NameTable) Entry(p string) (NameEntry, bool) {
	i, ok := slices.BinarySearch(t.paths, p)
	if !ok {
		return NameEntry{}, false
	}
	e := t.notes[i]
	return e, ok
}

// Notes calls fn for every note, by path.
func (t *NameTable) Notes(fn func(NameEntry)) {
	for _, e := range t.notes {
		fn(e)
	}
}

// Attachments is the number of attachments in the table.
func (t *NameTable) Attachments() int { return len(t.attach) }

// Entries returns every entry of the table, notes and attachments, as
// NewNameTable took them.
func (t *NameTable) Entries() []NameEntry {
	out := make([]NameEntry, 0, len(t.paths)+len(t.attach))
	out = append(out, t.notes...)
	return append(out, t.attach...)
}

// Closest ranks the notes nearest to target, at most n (closest.go).
func (t *NameTable) Closest(target string, n int) []Closest {
	t.buildLoose()
	return t.closestNames(target, n)
}

func (t *NameTable) buildLoose() {
	t.looseOnce.Do(func() { t.loose = looseNames(t.notes) })
}

// Named returns the notes one of whose names — a title, an alias, the
// file name or a folder note's folder name — is text but for case,
// punctuation and spacing (note.LooseKey): "Bases Syntax" names the note
// "Bases-Syntax", "Array.prototype.filter" the note titled
// "Array.prototype.filter()". Sorted by path.
func (t *NameTable) Named(text string) []string {
	k := note.LooseKey(text)
	if k == "" {
		return nil
	}
	t.PrepareNamed()
	return append([]string(nil), t.byLoose.get(k)...)
}

// NamedExactly reports whether the note at p has a name that is text but
// for case and spacing (a title or alias: note.NameKey; a file or a folder
// note's folder name: note.LinkKey). Of the notes Named("clang") returns,
// clang and clang++, only clang is named exactly.
func (t *NameTable) NamedExactly(p, text string) bool {
	return slices.Contains(t.title.get(note.NameKey(text)), p) || slices.Contains(t.alias.get(note.NameKey(text)), p) ||
		slices.Contains(t.name.get(note.LinkKey(text)), p)
}

// PrepareNamed makes what Named looks names up in, if it is not made yet
// (a search asks Named for its words; an index makes it ahead).
func (t *NameTable) PrepareNamed() {
	// Only the keys: the closest names' table (buildLoose) costs five
	// times as much.
	t.namedOnce.Do(func() {
		t.byLoose = newKeyPaths(len(t.notes) * 2)
		for _, e := range t.notes {
			eachName(e, func(_, name string) { t.byLoose.add(note.LooseKey(name), e.Path) })
		}
	})
}

// Has reports whether the note at path p is in the table, as stored.
func (t *NameTable) Has(p string) bool {
	_, ok := slices.BinarySearch(t.paths, p)
	return ok
}
