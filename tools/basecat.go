package tools

import (
	"bytes"
	"hash/fnv"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vaultd/vaultd/base"
	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// Bases run over every file of the vault as the name table's catalog
// knows it (vault.Catalog: the index's, kept current by its watcher).
// What a base needs beyond the catalog — a note's properties and its
// links — is read once per version of the note and kept here; a view
// then evaluates over memory. The set (properties as base values, links
// resolved, backlinks) is rebuilt only when the catalog changed: a
// signature over every entry's path, version, size and time says so.
//
// A note's properties come from its frontmatter alone and its tags from
// the catalog (readBaseHead); its links need the whole note parsed, which
// was nearly all of a first view's cost (2.8–3.3 s over the 6,636 laws),
// so a set makes them only when a view first looks at a link, an embed
// or a backlink (baseSet.loadLinks).

// baseRecord is what a base needs of one note, as of one version.
type baseRecord struct {
	version string
	fm      map[string]any
	tags    []string
	aliases []string
	blocks  bool // the note holds ```base blocks
	// links are the note's links once read (nil until then): a record
	// from readBaseHead has none until a set needs them.
	links atomic.Pointer[[]note.Link]
}

// baseSet is the vault as a base sees it.
type baseSet struct {
	files  []*base.File // sorted by path
	byPath map[string]*base.File
	notes  int
	bases  []string // the .base files, sorted
	blocks []string // the notes holding ```base blocks, sorted
	res    *note.Resolver
	loc    *time.Location

	// recs are the records the notes were filled from; readLinks reads a
	// note's links for one that has none yet. The files' links are made
	// once (linksOnce), by the first view that looks at one; linked says
	// they are. When only is set, the other files kept the links a set
	// before this one made (updateBaseSet): only these files' links are
	// made, and every file's backlinks.
	recs      map[string]*baseRecord
	readLinks func(p string) []note.Link
	linksOnce sync.Once
	linked    atomic.Bool
	only      []*base.File
}

// baseCatalog keeps the records and the latest set.
type baseCatalog struct {
	mu   sync.Mutex
	recs map[string]*baseRecord
	sig  uint64
	set  *baseSet
	// mark is the index's change journal as of the set (marked: there is
	// one); the changes since it say whether the set is still current.
	mark   index.ChangeMark
	marked bool
	// list is the .base files as of listMark (listed: there is a journal),
	// for search_notes (basesearch.go).
	list     []string
	listMark index.ChangeMark
	listed   bool
	// results are views run over the current set (runView).
	results map[viewKey]*base.Result
}

// resolve is the path a link target written in from resolves to.
func (s *baseSet) resolve(from, target string) string {
	t, _ := note.SplitLinkText(target)
	if t == "" {
		return ""
	}
	r := s.res.ResolveAlias(from, note.Link{Target: t})
	if r.Status == note.Resolved {
		return r.Target
	}
	return ""
}

func (s *baseSet) lookup(p string) *base.File { return s.byPath[p] }

// env is the evaluation environment over the set, with this as `this`.
func (s *baseSet) env(now time.Time, this *base.File) *base.Env {
	return &base.Env{Resolve: s.resolve, Lookup: s.lookup, Now: now, Loc: s.loc, This: this}
}

// baseSet returns the vault's files as bases see them, brought up to date:
// when the index's change journal says nothing changed since the set was
// built, the set as it is; when only notes' contents changed, the set
// with those notes read again (the others' values are kept); otherwise a
// new set from the catalog, reading only the notes whose version changed:
// whole when links says the view will look at links, else their
// frontmatter (readBaseHead).
func (c *Core) baseSet(links bool) (*baseSet, error) {
	cat := &c.bases
	cat.mu.Lock()
	defer cat.mu.Unlock()
	if cat.set != nil && cat.marked {
		if ch, err := c.Changes(cat.mark); err == nil && !ch.Lost {
			if len(ch.Paths) == 0 {
				return cat.set, nil
			}
			if set, ok := c.updateBaseSet(cat, ch.Paths); ok {
				cat.set, cat.mark = set, ch.Next
				return set, nil
			}
		}
	}
	// The mark before the catalog: what changes while the set is built
	// is looked at again next time.
	mark, err := c.Changes(index.ChangeMark{})
	cat.marked = err == nil
	cat.mark = mark.Next
	entries, _, err := c.v.Catalog()
	if err != nil {
		cat.marked = false
		return nil, err
	}
	var sig uint64
	for _, e := range entries {
		h := fnv.New64a()
		h.Write([]byte(e.Path))
		h.Write([]byte{0})
		h.Write([]byte(e.Version))
		var buf [16]byte
		putInt(buf[:8], e.Size)
		putInt(buf[8:], e.ModTime.UnixNano())
		h.Write(buf[:])
		sig += h.Sum64() // order-free: the catalog comes in map order
	}
	if cat.set != nil && cat.sig == sig && len(cat.set.files) == len(entries) {
		return cat.set, nil
	}
	if cat.recs == nil {
		cat.recs = map[string]*baseRecord{}
	}
	paths := make([]string, 0, len(entries))
	aliases := map[string][]string{}
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		paths = append(paths, e.Path)
		seen[e.Path] = true
		if len(e.Aliases) > 0 {
			aliases[e.Path] = e.Aliases
		}
	}
	for p := range cat.recs {
		if !seen[p] {
			delete(cat.recs, p)
		}
	}
	var need []vault.NameEntry // notes new to the records, or of another version
	for _, e := range entries {
		if e.Attachment || !vault.IsNote(e.Path) {
			continue
		}
		if r := cat.recs[e.Path]; r == nil || r.version != e.Version || e.Version == "" {
			need = append(need, e)
		}
	}
	read := c.readBaseRecords(need, links)
	set := c.newBaseSet(len(entries), len(entries), note.NewResolver(paths).WithAliases(aliases), time.Local)
	for _, e := range entries {
		f := &base.File{Path: e.Path, Size: e.Size, MTime: e.ModTime, CTime: e.ModTime}
		set.byPath[e.Path] = f
		set.files = append(set.files, f)
		if e.Attachment || !vault.IsNote(e.Path) {
			f.Prepare()
			continue
		}
		set.notes++
		r, fresh := read[e.Path]
		if !fresh {
			r = cat.recs[e.Path]
		}
		if r == nil {
			f.Prepare()
			continue
		}
		if fresh {
			cat.recs[e.Path] = r
		}
		set.fill(f, r)
	}
	set.lazyLinks()
	sortFiles(set.files)
	for _, f := range set.files {
		if strings.EqualFold(path.Ext(f.Path), ".base") {
			set.bases = append(set.bases, f.Path)
		} else if r := cat.recs[f.Path]; r != nil && r.blocks {
			set.blocks = append(set.blocks, f.Path)
		}
	}
	cat.sig, cat.set = sig, set
	return set, nil
}

// newBaseSet returns an empty set of n files, with room for the records
// of recs notes, that reads links with c.
func (c *Core) newBaseSet(n, recs int, res *note.Resolver, loc *time.Location) *baseSet {
	return &baseSet{byPath: make(map[string]*base.File, n), res: res, loc: loc,
		recs: make(map[string]*baseRecord, recs), readLinks: c.readNoteLinks}
}

// lazyLinks gives every file of the set the set's loadLinks.
func (s *baseSet) lazyLinks() {
	load := s.loadLinks
	for _, f := range s.files {
		f.LoadLinks = load
	}
}

// loadLinks fills every file's links, embeds and backlinks, once: the
// notes whose records have no links yet are read for them (on as many
// goroutines as the process runs on), the links resolved against the set.
func (s *baseSet) loadLinks() {
	s.linksOnce.Do(func() {
		files := s.files
		if s.only != nil {
			files = s.only
		}
		var need []string
		for _, f := range files {
			if r := s.recs[f.Path]; r != nil && r.links.Load() == nil {
				need = append(need, f.Path)
			}
		}
		parallel(len(need), func(i int) {
			links := s.readLinks(need[i])
			s.recs[need[i]].links.CompareAndSwap(nil, &links)
		})
		for _, f := range files {
			if r := s.recs[f.Path]; r != nil {
				s.fillLinks(f, r)
			}
		}
		s.link()
		s.linked.Store(true)
	})
}

// updateBaseSet is the set with the notes at paths read again, when that
// is all that changed: no file added or removed, no attachment and no
// alias changed (each would change what links resolve to). ok is false
// when the set must be built anew.
func (c *Core) updateBaseSet(cat *baseCatalog, paths []string) (*baseSet, bool) {
	old := cat.set
	// The old set's links, when it made them, stay right for the notes
	// that did not change: nothing that links resolve to changed. Then
	// the set needs the records of the changed notes only (fill keeps
	// them).
	keep := old.linked.Load()
	recs := len(old.files)
	if keep {
		recs = len(paths)
	}
	// The old set stays as it is for its readers (a view may be making
	// its links): the changed notes are filled into the new one.
	set := c.newBaseSet(len(old.files), recs, old.res, old.loc)
	fresh := map[string]*base.File{}
	for _, p := range paths {
		of := old.byPath[p]
		if of == nil || !vault.IsNote(p) {
			return nil, false
		}
		// The note itself, not the name table: a table the index rebuilds
		// after each change would cost more than the note.
		fi, err := fs.Stat(c.v.FS(), p)
		if err != nil || !fi.Mode().IsRegular() {
			return nil, false
		}
		e := vault.NameEntry{Path: p, Size: fi.Size(), ModTime: fi.ModTime()}
		r := c.readBaseRecord(e)
		if r == nil {
			return nil, false
		}
		if prev := cat.recs[p]; prev == nil || !slices.Equal(prev.aliases, r.aliases) || prev.blocks != r.blocks {
			return nil, false
		}
		cat.recs[p] = r
		f := &base.File{Path: p, Size: e.Size, MTime: e.ModTime, CTime: e.ModTime}
		set.fill(f, r)
		fresh[p] = f
	}
	set.files, set.notes, set.bases, set.blocks = make([]*base.File, len(old.files)), old.notes, old.bases, old.blocks
	if keep {
		for _, p := range paths {
			set.only = append(set.only, fresh[p])
		}
	}
	for i, f := range old.files {
		nf := fresh[f.Path]
		if nf == nil {
			nf = f.Unlinked()
			if keep {
				nf.Links, nf.Embeds = f.Links, f.Embeds
			} else if r := cat.recs[nf.Path]; r != nil {
				set.recs[nf.Path] = r
			}
		}
		set.files[i] = nf
		set.byPath[nf.Path] = nf
	}
	set.lazyLinks()
	cat.sig = 0 // the next catalog comparison builds anew
	return set, true
}

// link fills every file's backlinks from the others' resolved links.
func (s *baseSet) link() {
	for _, f := range s.files {
		var seenTarget map[string]bool
		for _, l := range f.Links {
			if l.Path == "" {
				continue
			}
			if seenTarget == nil {
				seenTarget = map[string]bool{}
			}
			if seenTarget[l.Path] {
				continue
			}
			seenTarget[l.Path] = true
			if t := s.byPath[l.Path]; t != nil {
				t.Backlinks = append(t.Backlinks, f.Path)
			}
		}
	}
}

func putInt(b []byte, v int64) {
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}

func sortFiles(fs []*base.File) {
	slices.SortFunc(fs, func(a, b *base.File) int { return strings.Compare(a.Path, b.Path) })
}

// readBaseRecords reads the records of the notes es — whole, or but for
// their links (readBaseHead) — on as many goroutines as the process runs
// on: reading each note is nearly all of a first view's cost (4.5 s over
// the 6,636 laws, one note after another). A note that cannot be read
// maps to nil.
func (c *Core) readBaseRecords(es []vault.NameEntry, whole bool) map[string]*baseRecord {
	read := c.readBaseHead
	if whole {
		read = c.readBaseRecord
	}
	recs := make([]*baseRecord, len(es))
	parallel(len(es), func(i int) { recs[i] = read(es[i]) })
	out := make(map[string]*baseRecord, len(es))
	for i, e := range es {
		out[e.Path] = recs[i]
	}
	return out
}

// parallel calls fn(i) for every i below n, on as many goroutines as the
// process runs on.
func parallel(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// readBaseRecord reads what a base needs of the note e, parsing all of
// it: links included.
func (c *Core) readBaseRecord(e vault.NameEntry) *baseRecord {
	n, err := c.v.Read(e.Path)
	if err != nil || n.Doc == nil {
		return nil
	}
	v := e.Version
	if v == "" {
		v = n.Version
	}
	r := &baseRecord{version: v, fm: n.Doc.Frontmatter, tags: n.Doc.Tags, aliases: n.Doc.Aliases, blocks: hasBaseBlocks(n.Doc.Src)}
	r.links.Store(&n.Doc.Links)
	return r
}

// readBaseHead reads what a base needs of the note e but its links: the
// properties from the note's frontmatter alone, the tags from the catalog
// entry. A note whose size or time is not the entry's (changed since the
// index read it: the index's own test of a note unchanged), that is not
// UTF-8 text or whose entry has no version is read whole
// (readBaseRecord).
func (c *Core) readBaseHead(e vault.NameEntry) *baseRecord {
	if e.Version == "" {
		return c.readBaseRecord(e)
	}
	// Stat first, as a read does: opening a FIFO named like a note would
	// wait for a writer.
	fi, err := fs.Stat(c.v.FS(), e.Path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != e.Size || !fi.ModTime().Equal(e.ModTime) {
		return c.readBaseRecord(e)
	}
	src, err := c.v.ReadFile(e.Path)
	if err != nil || int64(len(src)) != e.Size || note.CheckText(src) != nil {
		return c.readBaseRecord(e)
	}
	d := note.ParseFrontmatter(src)
	return &baseRecord{version: e.Version, fm: d.Frontmatter, tags: e.Tags, aliases: d.Aliases, blocks: hasBaseBlocks(src)}
}

// readNoteLinks returns the links of the note at p as it is now (none when
// it cannot be read).
func (c *Core) readNoteLinks(p string) []note.Link {
	n, err := c.v.Read(p)
	if err != nil || n.Doc == nil {
		return nil
	}
	return n.Doc.Links
}

// hasBaseBlocks reports whether the note src holds ```base blocks. A look
// for a fence and the word first: base.Blocks splits the note into
// lines, which most notes need not pay for.
func hasBaseBlocks(src []byte) bool {
	return (bytes.Contains(src, []byte("```")) || bytes.Contains(src, []byte("~~~"))) && bytes.Contains(src, []byte("base")) && len(base.Blocks(src)) > 0
}

// fill sets a note's properties and tags from its record and keeps the
// record for the set's links (loadLinks).
func (s *baseSet) fill(f *base.File, r *baseRecord) {
	from := f.Path
	s.recs[from] = r
	if r.fm != nil {
		f.Props = make(map[string]any, len(r.fm))
		for k, v := range r.fm {
			f.Props[k] = base.FromYAML(v, s.loc, func(t string) string { return s.resolve(from, t) })
		}
	}
	f.Tags = r.tags
	f.Prepare()
}

// fillLinks sets a note's links and embeds: the links in its properties,
// then those of its text, resolved against the set.
func (s *baseSet) fillLinks(f *base.File, r *baseRecord) {
	from := f.Path
	f.Links, f.Embeds = nil, nil
	for _, v := range f.Props {
		addPropLinks(f, v)
	}
	var links []note.Link
	if l := r.links.Load(); l != nil {
		links = *l
	}
	for _, l := range links {
		if l.Target == "" {
			continue
		}
		lk := base.Link{Target: l.Target, Display: l.Label}
		if res := s.res.ResolveAlias(from, l); res.Status == note.Resolved {
			lk.Path = res.Target
		}
		if l.Embed {
			f.Embeds = append(f.Embeds, lk)
		} else {
			f.Links = append(f.Links, lk)
		}
	}
}

// addPropLinks adds the links in a property's value to file.links, as
// Obsidian counts them.
func addPropLinks(f *base.File, v any) {
	switch x := v.(type) {
	case base.Link:
		f.Links = append(f.Links, x)
	case []any:
		for _, e := range x {
			addPropLinks(f, e)
		}
	}
}

// baseFiles are the paths of the vault's .base files, sorted.
func (s *baseSet) baseFiles() []string { return s.bases }
