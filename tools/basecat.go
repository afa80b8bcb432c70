package tools

import (
	"hash/fnv"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vaultd/vaultd/base"
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

// baseRecord is what a base needs of one note, as of one version.
type baseRecord struct {
	version string
	fm      map[string]any
	tags    []string
	links   []note.Link
}

// baseSet is the vault as a base sees it.
type baseSet struct {
	files  []*base.File // sorted by path
	byPath map[string]*base.File
	notes  int
	res    *note.Resolver
	loc    *time.Location
}

// baseCatalog keeps the records and the latest set.
type baseCatalog struct {
	mu   sync.Mutex
	recs map[string]*baseRecord
	sig  uint64
	set  *baseSet
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

// baseSet returns the vault's files as bases see them, brought up to date
// with the catalog: notes whose version changed are read again.
func (c *Core) baseSet() (*baseSet, error) {
	entries, _, err := c.v.Catalog()
	if err != nil {
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
	cat := &c.bases
	cat.mu.Lock()
	defer cat.mu.Unlock()
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
	set := &baseSet{byPath: make(map[string]*base.File, len(entries)), res: note.NewResolver(paths).WithAliases(aliases), loc: time.Local}
	for _, e := range entries {
		f := &base.File{Path: e.Path, Size: e.Size, MTime: e.ModTime, CTime: e.ModTime}
		set.byPath[e.Path] = f
		set.files = append(set.files, f)
		if e.Attachment || !vault.IsNote(e.Path) {
			continue
		}
		set.notes++
		r := cat.recs[e.Path]
		if r == nil || r.version != e.Version || e.Version == "" {
			r = c.readBaseRecord(e)
			if r == nil {
				continue
			}
			cat.recs[e.Path] = r
		}
		set.fill(f, r)
	}
	sortFiles(set.files)
	for _, f := range set.files {
		seenTarget := map[string]bool{}
		for _, l := range f.Links {
			if l.Path == "" || seenTarget[l.Path] {
				continue
			}
			seenTarget[l.Path] = true
			if t := set.byPath[l.Path]; t != nil {
				t.Backlinks = append(t.Backlinks, f.Path)
			}
		}
	}
	cat.sig, cat.set = sig, set
	return set, nil
}

func putInt(b []byte, v int64) {
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}

func sortFiles(fs []*base.File) {
	slices.SortFunc(fs, func(a, b *base.File) int { return strings.Compare(a.Path, b.Path) })
}

// readBaseRecord reads what a base needs of the note e.
func (c *Core) readBaseRecord(e vault.NameEntry) *baseRecord {
	n, err := c.v.Read(e.Path)
	if err != nil || n.Doc == nil {
		return nil
	}
	v := e.Version
	if v == "" {
		v = n.Version
	}
	return &baseRecord{version: v, fm: n.Doc.Frontmatter, tags: n.Doc.Tags, links: n.Doc.Links}
}

// fill sets a note's properties, tags and links from its record,
// resolving links against the set.
func (s *baseSet) fill(f *base.File, r *baseRecord) {
	from := f.Path
	if r.fm != nil {
		f.Props = make(map[string]any, len(r.fm))
		for k, v := range r.fm {
			f.Props[k] = base.FromYAML(v, s.loc, func(t string) string { return s.resolve(from, t) })
		}
		for _, v := range f.Props {
			addPropLinks(f, v)
		}
	}
	f.Tags = r.tags
	for _, l := range r.links {
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
func (s *baseSet) baseFiles() []string {
	var out []string
	for _, f := range s.files {
		if strings.EqualFold(path.Ext(f.Path), ".base") {
			out = append(out, f.Path)
		}
	}
	return out
}
