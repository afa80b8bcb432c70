package index

import (
	"context"
	"errors"
	"io/fs"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// item is one path to bring up to date.
type item struct {
	path  string
	note  bool
	size  int64
	mtime int64
	old   fileEntry
	had   bool // the manifest knew the path
	force bool // reparse even if the content is unchanged (links changed meaning)
}

// result is a worker's answer for one note.
type result struct {
	item
	doc       *Document
	docs      []*document.Document // doc's bleve documents (built by the reading goroutines)
	version   string
	unchanged bool
	gone      bool
	bytes     int
}

// maxRetries bounds how often a note that changes while being indexed is
// read again within one call.
const maxRetries = 3

// process brings the given vault paths up to date: notes are (re)indexed
// or deleted, attachments update the set of link targets. force lists notes
// to reparse even when unchanged. progress counts indexed notes into
// Status. Reading and parsing run on Options.Workers goroutines; index
// batches are committed one at a time under wmu.
func (ix *Index) process(ctx context.Context, paths []string, force map[string]bool, progress bool) error {
	ix.journal.add(paths)
	for attempt := 0; attempt <= maxRetries && (len(paths) > 0 || len(force) > 0); attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		items, keys, targets := ix.prepare(paths, force)
		if len(keys) > 0 || len(targets) > 0 {
			// Files appeared or disappeared: notes linking to those
			// names may now resolve differently; reparse them.
			srcs, err := ix.linkSources(keys, targets)
			if err != nil {
				return err
			}
			isSrc := make(map[string]bool, len(srcs))
			for _, s := range srcs {
				isSrc[s] = true
			}
			for i := range items {
				if isSrc[items[i].path] {
					items[i].force = true
					delete(isSrc, items[i].path)
				}
			}
			extra := make([]string, 0, len(isSrc))
			for s := range isSrc {
				extra = append(extra, s)
			}
			sort.Strings(extra)
			for _, it := range ix.statItems(extra, true) {
				if it.note && it.size >= 0 {
					ix.wmu.Lock()
					it.old, it.had = ix.man.Files[it.path]
					ix.wmu.Unlock()
					items = append(items, it)
				}
			}
		}
		retry, aliasKeys, err := ix.run1(ctx, items, progress)
		if err != nil {
			return err
		}
		paths, force = retry, nil
		if len(aliasKeys) > 0 {
			// A note's aliases changed: links by alias may resolve
			// differently now.
			srcs, err := ix.linkSources(aliasKeys, nil)
			if err != nil {
				return err
			}
			force = make(map[string]bool, len(srcs))
			for _, s := range srcs {
				force[s] = true
			}
		}
	}
	return nil
}

// statItems stats paths. A path that is gone gets size -1.
func (ix *Index) statItems(paths []string, forced bool) []item {
	fsys := ix.v.FS()
	out := make([]item, 0, len(paths))
	for _, p := range paths {
		it := item{path: p, note: vault.IsNote(p), size: -1, force: forced}
		if fi, err := fs.Stat(fsys, p); err == nil {
			if fi.IsDir() || !fi.Mode().IsRegular() {
				continue
			}
			if !it.note && !vault.IsAttachment(p) {
				continue
			}
			it.size, it.mtime = fi.Size(), fi.ModTime().UnixNano()
		} else if !it.note && !vault.IsAttachment(p) {
			continue
		}
		out = append(out, it)
	}
	return out
}

// prepare stats the paths, updates the set of link targets (and the
// resolver) for files that appeared or disappeared, records attachments in
// the manifest, and returns the notes to work on plus the link keys and
// paths whose meaning changed.
func (ix *Index) prepare(paths []string, force map[string]bool) (items []item, keys, targets []string) {
	for p := range force {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	paths = compactStrings(paths)
	stat := ix.statItems(paths, false)

	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	changed := false
	for _, it := range stat {
		it.old, it.had = ix.man.Files[it.path]
		it.force = force[it.path]
		exists := it.size >= 0
		if exists != it.had {
			changed = true
			ix.namesDirty.Store(true) // a file came or went: the name table lists files
			keys = append(keys, pathKey(it.path))
			if !exists {
				targets = append(targets, it.path)
			}
		}
		if exists {
			ix.paths[it.path] = true
		} else {
			delete(ix.paths, it.path)
		}
		if !it.note {
			if exists {
				ix.man.Files[it.path] = fileEntry{Size: it.size, MTime: it.mtime}
			} else {
				delete(ix.man.Files, it.path)
			}
			ix.manDirty = true
			continue
		}
		if !exists && !it.had {
			continue
		}
		if exists && it.had && !it.force && it.old.Size == it.size && it.old.MTime == it.mtime {
			continue
		}
		items = append(items, it)
	}
	if changed {
		ix.rebuildResolverLocked()
	}
	// On a fresh index nothing can link to anything yet.
	if ix.noteCount.Load() == 0 {
		keys, targets = nil, nil
	}
	return items, keys, targets
}

// pathKey is the link key of a vault path: what a link must be called to
// possibly resolve to it.
func pathKey(p string) string { return linkKey(p) }

// linkSources returns the notes with a link whose key is in keys or whose
// resolved target is in targets.
func (ix *Index) linkSources(keys, targets []string) ([]string, error) {
	if len(keys)+len(targets) == 0 {
		return nil, nil
	}
	qs := make([]query.Query, 0, len(keys)+len(targets))
	for _, k := range dedupe(keys) {
		t := query.NewTermQuery(k)
		t.SetField(fLinkKeys)
		qs = append(qs, t)
	}
	for _, p := range targets {
		t := query.NewTermQuery(p)
		t.SetField(fLinks)
		qs = append(qs, t)
	}
	var out []string
	const page = 1000
	for from := 0; ; from += page {
		req := bleve.NewSearchRequestOptions(query.NewDisjunctionQuery(qs), page, from, false)
		res, err := ix.bi.Search(req)
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			out = append(out, h.ID)
		}
		if len(res.Hits) < page {
			break
		}
	}
	return out, nil
}

// run1 reads, parses and indexes items. It returns the notes that changed
// while being read (to retry) and the link keys of aliases that changed.
func (ix *Index) run1(ctx context.Context, items []item, progress bool) (retry, aliasKeys []string, err error) {
	if len(items) == 0 {
		return nil, nil, nil
	}
	in := make(chan item)
	out := make(chan result, 2*ix.o.Workers)
	var wg sync.WaitGroup
	res := ix.resolver.Load()
	for range min(ix.o.Workers, len(items)) {
		wg.Go(func() {
			for it := range in {
				out <- ix.read(it, res, progress)
			}
		})
	}
	go func() {
		defer close(in)
		for _, it := range items {
			select {
			case in <- it:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(out)
	}()

	// Batches are committed by their own goroutine, so that reading and
	// parsing the next batch overlaps with indexing this one (bleve's
	// analysis of a batch runs on all cores, but building and persisting
	// its segment does not). One batch waits, ready, while one is
	// indexed: reading is far faster than indexing, and a second batch
	// read ahead would only be more for the garbage collector to mark
	// (the gesetze build: 4–9 s less CPU without it).
	commits := make(chan []result)
	committed := make(chan struct{})
	go func() {
		defer close(committed)
		for b := range commits {
			if err != nil {
				continue
			}
			r, a, e := ix.commit(b, progress)
			retry = append(retry, r...)
			aliasKeys = append(aliasKeys, a...)
			err = e
		}
	}()
	var batch []result
	size := 0
	for r := range out {
		batch = append(batch, r)
		size += r.bytes
		if len(batch) >= ix.o.BatchDocs || size >= ix.o.BatchBytes {
			commits <- batch
			batch, size = nil, 0
		}
	}
	if len(batch) > 0 {
		commits <- batch
	}
	close(commits)
	<-committed
	if err == nil {
		err = ctx.Err()
	}
	return retry, aliasKeys, err
}

// read reads and parses one note. Unchanged content (same hash as indexed)
// is not reparsed unless forced. bulk is set for a build or catch-up (as
// opposed to Update after a write).
func (ix *Index) read(it item, r *note.Resolver, bulk bool) result {
	res := result{item: it}
	if it.size < 0 {
		res.gone = true
		return res
	}
	b, err := ix.v.ReadFile(it.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			res.gone = true
			return res
		}
		// Unreadable (permissions, a vanished symlink target): keep it
		// out of the index like a missing note.
		ix.log.Warn("search index: cannot read note", "path", it.path, "err", err)
		res.gone = true
		return res
	}
	res.version = note.Version(b)
	if it.had && !it.force && it.old.Version == res.version {
		res.unchanged = true
		return res
	}
	if bulk {
		// A build or catch-up parses each note once: remembering the
		// parses (vault.ParseCached, 64 MB) would only add to the build's
		// peak memory.
		if note.CheckText(b) != nil {
			src := shownText(b)
			res.doc = fromNote(it.path, src, timeFromNanos(it.mtime), r, note.Parse(src))
			res.doc.Version = res.version
		} else {
			res.doc = fromNote(it.path, b, timeFromNanos(it.mtime), r, note.Parse(b))
		}
	} else {
		res.doc = FromNote(it.path, b, timeFromNanos(it.mtime), r)
	}
	res.docs = res.doc.bleveDocs()
	res.bytes = len(b)
	return res
}

// commit writes one batch. Notes whose file changed since it was read are
// left out and returned for another attempt.
// testHookCommit, if set, runs before each batch is committed (tests use
// it to hold a build in progress).
var testHookCommit func()

func (ix *Index) commit(rs []result, progress bool) (retry, aliasKeys []string, err error) {
	if testHookCommit != nil {
		testHookCommit()
	}
	fsys := ix.v.FS()
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if err := ix.bi.healthy(); err != nil {
		return nil, nil, err
	}
	// A build indexes its batch as one bleve batch per core (a part),
	// each note with all of its documents in one part: bleve builds a
	// batch's segment on one goroutine, which was the build's critical
	// path (the gesetze build: 72–74 s → 55–58 s on two cores). A part is
	// visible to searches as soon as it is indexed, so a write's notes
	// (which may move a note or rewrite links across notes) stay in one.
	parts := 1
	if progress {
		parts = max(1, min(len(rs), runtime.GOMAXPROCS(0), maxParts))
	}
	bs := make([]*bleve.Batch, parts)
	texts := make([]int, parts)
	for i := range bs {
		bs[i] = ix.bi.NewBatch()
	}
	var applied []result
	hashes := map[string][]uint64{} // a write's notes: sectionHashes
	for _, r := range rs {
		part := 0 // the part with the least text so far
		for i := range texts {
			if texts[i] < texts[part] {
				part = i
			}
		}
		b := bs[part]
		if !r.gone {
			fi, err := fs.Stat(fsys, r.path)
			if err != nil || fi.Size() != r.size || fi.ModTime().UnixNano() != r.mtime {
				retry = append(retry, r.path)
				continue
			}
		}
		switch {
		case r.gone:
			b.Delete(r.path)
			deleteSections(b, r.path, 0, ix.man.Files[r.path].Sections)
		case r.unchanged:
			if cur, ok := ix.man.Files[r.path]; !ok || cur.Version != r.version {
				// Indexed meanwhile with other content (the file changed
				// and changed back): parse it again.
				retry = append(retry, r.path)
				continue
			}
		default:
			var same []bool // section slots the index holds as they are
			if !progress {
				h := r.doc.sectionHashes()
				hashes[r.path] = h
				if cur, ok := ix.man.Files[r.path]; ok && cur.Note {
					same = ix.secMemo.unchanged(r.path, cur.Version, h)
				}
			}
			for i, doc := range r.docs {
				if i > 0 && same != nil {
					if _, k, ok := splitSectionID(doc.ID()); ok && k < len(same) && same[k] {
						if testHookKept != nil {
							testHookKept(r.path, k)
						}
						continue
					}
				}
				if err := b.IndexAdvanced(doc); err != nil {
					return nil, nil, err
				}
			}
			// Section numbers the note no longer has; the others were
			// replaced (or, for a blank text before the first heading,
			// are deleted here too).
			deleteSections(b, r.path, r.doc.sectionSlots(), ix.man.Files[r.path].Sections)
			if !r.doc.hasSection0() {
				b.Delete(sectionID(r.path, 0))
			}
		}
		applied = append(applied, r)
		texts[part] += r.bytes + 1 // a gone note counts too
	}
	err = ix.batch(bs, texts)
	if progress {
		ix.mergesHeldTooLong()
	}
	// Also after a failed batch: it may have been applied in part.
	forget := make([]string, len(applied))
	for i, r := range applied {
		forget[i] = r.path
	}
	ix.forgetFields(forget)
	if err != nil {
		ix.secMemo.forget(forget...) // applied in part, perhaps
		return nil, nil, err
	}
	n := 0
	for _, r := range applied {
		switch {
		case r.gone:
			if old, ok := ix.man.Files[r.path]; ok {
				for _, a := range old.Aliases {
					aliasKeys = append(aliasKeys, linkKey(a))
				}
			}
			if ix.man.Files[r.path].Note {
				ix.namesDirty.Store(true)
			}
			delete(ix.man.Files, r.path)
			delete(ix.paths, r.path)
			ix.secMemo.forget(r.path)
		case r.unchanged:
			e := ix.man.Files[r.path]
			e.Size, e.MTime = r.size, r.mtime
			ix.man.Files[r.path] = e
			n++
		default:
			old := ix.man.Files[r.path]
			e := fileEntry{Size: r.size, MTime: r.mtime, Note: true, Version: r.version, Aliases: r.doc.Aliases, Titles: r.doc.Titles,
				Title: r.doc.Title, Tags: r.doc.Tags, Conflicts: r.doc.Conflicts, NameKeys: vault.NameKeys(r.doc.Titles, r.doc.Aliases),
				Sections: r.doc.sectionSlots(), SectionDocs: r.doc.sectionDocs()}
			if !old.Note || !slices.Equal(old.Titles, e.Titles) || !slices.Equal(old.Aliases, e.Aliases) {
				ix.namesDirty.Store(true)
			}
			if !slices.Equal(old.Aliases, e.Aliases) {
				for _, a := range old.Aliases {
					aliasKeys = append(aliasKeys, linkKey(a))
				}
				for _, a := range e.Aliases {
					aliasKeys = append(aliasKeys, linkKey(a))
				}
			}
			ix.man.Files[r.path] = e
			ix.paths[r.path] = true
			if h, ok := hashes[r.path]; ok {
				ix.secMemo.remember(r.path, r.version, h)
			}
			ix.indexed.Add(1)
			n++
		}
	}
	ix.manDirty = true
	ix.noteCount.Store(int64(ix.man.notes()))
	if progress {
		ix.done.Add(int64(n))
	}
	if len(aliasKeys) > 0 {
		ix.rebuildResolverLocked()
	}
	return retry, aliasKeys, ix.saveManifest(false)
}

// testHookKept, if set, is told of each section document a write leaves
// as it is in the index (sectionMemo).
var testHookKept func(p string, k int)

// maxParts bounds the parts of a build's batch (see commit): each part is
// a segment that the merger takes in again later.
const maxParts = 4

// testHookParts, if set, is told how many parts each batch had.
var testHookParts func(n int)

// batch indexes the bleve batches bs (of texts bytes of notes) at once,
// each on a goroutine of its own.
func (ix *Index) batch(bs []*bleve.Batch, texts []int) error {
	errs := make([]error, len(bs))
	var wg sync.WaitGroup
	n := 0 // parts with documents
	for i, b := range bs {
		if b.Size() == 0 {
			continue
		}
		n++
		wg.Go(func() { errs[i] = ix.bi.Batch(b, texts[i]) })
	}
	wg.Wait()
	if n == 0 {
		return nil
	}
	if testHookParts != nil {
		testHookParts(n)
	}
	ix.gen.Add(1) // also after a failed batch: it may have been applied in part
	for _, err := range errs {
		if err != nil {
			return err // the parts fail alike (a full disk): one says why
		}
	}
	ix.updated.Store(time.Now().UnixNano())
	return nil
}

// deleteSections deletes the section documents from..to-1 of the note at p.
func deleteSections(b *bleve.Batch, p string, from, to int) {
	for k := from; k < to; k++ {
		b.Delete(sectionID(p, k))
	}
}

// rebuildResolver builds the link resolver from the known paths and
// aliases.
func (ix *Index) rebuildResolver() {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	ix.rebuildResolverLocked()
}

func (ix *Index) rebuildResolverLocked() {
	if ix.paths == nil {
		ix.paths = make(map[string]bool, len(ix.man.Files))
		for p := range ix.man.Files {
			ix.paths[p] = true
		}
	}
	paths := make([]string, 0, len(ix.paths))
	for p := range ix.paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	aliases := make(map[string][]string)
	for p, e := range ix.man.Files {
		if len(e.Aliases) > 0 {
			aliases[p] = e.Aliases
		}
	}
	ix.resolver.Store(note.NewResolver(paths).WithAliases(aliases))
}
