package index

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/vaultd/vaultd/embed"
)

// Search by meaning: a vector per section, next to the word index.
//
// The vectors live in the index dir in one file per model
// (vectors-<model>.bin), keyed by the SHA-256 of the text embedded (the
// section's heading path and its own text): a section whose text did not
// change is never embedded again, a note renamed keeps its vectors, and
// another model writes another file (the old one is removed), so a model
// change rebuilds cleanly. The file is append-only records of hash and
// vector; a torn last record (a crash) is dropped on open.
//
// Embedding runs in the background once the word index is ready and then
// follows it (every meaningEvery): it never blocks a start, a search or a
// write, and Coverage says how far it is. A search compares the query's
// vector with every section's (an exact scan: 139,000 sections of 256
// numbers are 36 M multiply-adds, a few tens of ms on one core).

// Meaning is the vector side of an Index. It is safe for concurrent use.
type Meaning struct {
	ix   *Index
	e    embed.Embedder
	path string

	mu    sync.RWMutex
	vecs  map[[32]byte][]float32
	notes map[string]noteVecs // by path: what the scan knows of each note
	f     *os.File
	w     *bufio.Writer

	done, total atomic.Int64
	problem     atomic.Pointer[string]
	ctx         context.Context
	cancel      context.CancelFunc
	wg          sync.WaitGroup
	synced      chan struct{} // closed after the first full pass
	syncOnce    sync.Once
}

type noteVecs struct {
	version string
	secs    []secVec
}

type secVec struct {
	k    int
	hash [32]byte
}

// meaningEvery is how often the vectors catch up with the word index.
var meaningEvery = 3 * time.Second

// meaningBatch is how many sections are embedded at a time; meaningText
// bounds the bytes of one section's text embedded.
const (
	meaningBatch = 64
	meaningText  = 4096
)

// StartMeaning opens the vectors of e's model in the index dir and starts
// keeping them current in the background. Close stops it.
func (ix *Index) StartMeaning(e embed.Embedder) (*Meaning, error) {
	name := "vectors-" + fileSafe(e.ID()) + ".bin"
	m := &Meaning{ix: ix, e: e, path: filepath.Join(ix.dir, name), vecs: map[[32]byte][]float32{}, notes: map[string]noteVecs{}, synced: make(chan struct{})}
	// Another model's vectors are of no use: remove them.
	if old, _ := filepath.Glob(filepath.Join(ix.dir, "vectors-*.bin")); len(old) > 0 {
		for _, p := range old {
			if filepath.Base(p) != name {
				_ = os.Remove(p)
			}
		}
	}
	if err := m.load(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(m.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	m.f, m.w = f, bufio.NewWriter(f)
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.wg.Add(1)
	go m.loop()
	return m, nil
}

// fileSafe turns a model ID into a file name part.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// load reads the vectors file; records of another dimension (a file of a
// model whose ID did not change with it) end the file there.
func (m *Meaning) load() error {
	f, err := os.Open(m.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var good int64
	for {
		var h [32]byte
		var n uint32
		if _, err := io.ReadFull(r, h[:]); err != nil {
			break
		}
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil || n == 0 || n > 1<<16 {
			break
		}
		v := make([]float32, n)
		if err := binary.Read(r, binary.LittleEndian, v); err != nil {
			break
		}
		m.vecs[h] = v
		good += 32 + 4 + 4*int64(n)
	}
	if fi, err := f.Stat(); err == nil && fi.Size() != good {
		return os.Truncate(m.path, good) // a torn last record
	}
	return nil
}

// Close stops the background embedding and closes the file.
func (m *Meaning) Close() error {
	m.cancel()
	m.wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.w.Flush()
	if cerr := m.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Model is the embedder's ID.
func (m *Meaning) Model() string { return m.e.ID() }

// Coverage returns how many of the vault's sections have a vector, of how
// many, and what stops the embedding ("" if nothing).
func (m *Meaning) Coverage() (done, total int, problem string) {
	if p := m.problem.Load(); p != nil {
		problem = *p
	}
	return int(m.done.Load()), int(m.total.Load()), problem
}

// CoverageText is one line for people and agents while vectors are
// missing, "" when all sections have one: "meaning search covers 62 % of
// the vault (8,120 of 13,000 sections); the rest is being embedded".
func (m *Meaning) CoverageText() string { return m.status().Text() }

func (m *Meaning) status() MeaningStatus {
	done, total, problem := m.Coverage()
	return MeaningStatus{Model: m.e.ID(), Done: done, Total: total, Problem: problem, Synced: m.Synced()}
}

// MeaningStatus is the state of search by meaning, part of Status (so a
// vaultd process sharing another's index sees it too).
type MeaningStatus struct {
	// Model is the embedder's ID; "" when search by meaning is off.
	Model string
	// Done of Total sections have a vector (Total is an estimate until
	// every note has been split once).
	Done, Total int
	// Problem says what stops the embedding or why the configured
	// embedder is not used ("" if nothing).
	Problem string
	// Synced is set after the first full pass over the vault.
	Synced bool
}

// On reports whether an embedder is configured (working or not).
func (s MeaningStatus) On() bool { return s.Model != "" || s.Problem != "" }

// Complete reports whether every section has a vector.
func (s MeaningStatus) Complete() bool {
	return s.Model != "" && s.Problem == "" && s.Synced && s.Done >= s.Total
}

// Text is one line while search by meaning is incomplete or failing, ""
// when it is complete or off.
func (s MeaningStatus) Text() string {
	switch {
	case !s.On():
		return ""
	case s.Problem != "":
		return "meaning search is not available: " + s.Problem + "; the hits are by words only"
	case s.Total == 0 && !s.Synced:
		return "meaning search starts once the word index is ready; the hits are by words only"
	case s.Done >= s.Total && s.Synced:
		return ""
	case s.Done >= s.Total:
		return "meaning search is reading the vault's sections; the hits may miss some"
	}
	return fmt.Sprintf("meaning search covers %d %% of the vault (%s of %s sections); the rest is being embedded", s.Done*100/max(s.Total, 1), thousands(s.Done), thousands(s.Total))
}

func (ix *Index) meaningStatus() MeaningStatus {
	if ix.meaning != nil {
		return ix.meaning.status()
	}
	if ix.meaningErr != "" {
		return MeaningStatus{Problem: ix.meaningErr}
	}
	return MeaningStatus{}
}

// Meaning returns the index's search by meaning, nil when it is off.
func (ix *Index) Meaning() *Meaning { return ix.meaning }

// Synced reports whether the first full pass is done.
func (m *Meaning) Synced() bool {
	select {
	case <-m.synced:
		return true
	default:
		return false
	}
}

// WaitSynced waits for the first full pass (tests, the CLI's progress).
func (m *Meaning) WaitSynced(ctx context.Context) error {
	select {
	case <-m.synced:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m *Meaning) loop() {
	defer m.wg.Done()
	if err := m.ix.WaitReady(m.ctx); err != nil {
		return
	}
	for {
		if err := m.sync(); err != nil && m.ctx.Err() == nil {
			msg := err.Error()
			m.problem.Store(&msg)
			m.ix.log.Warn("meaning search: embedding failed; search by words goes on", "err", err)
		} else if err == nil {
			m.problem.Store(nil)
		}
		m.syncOnce.Do(func() { close(m.synced) })
		select {
		case <-m.ctx.Done():
			return
		case <-time.After(meaningEvery):
		}
	}
}

// sync brings the vectors up to the index's notes: new and changed notes
// are split into sections, and the sections without a vector embedded.
func (m *Meaning) sync() error {
	m.ix.wmu.Lock()
	current := make(map[string]string, len(m.ix.man.Files))
	for p, e := range m.ix.man.Files {
		if e.Note {
			current[p] = e.Version
		}
	}
	m.ix.wmu.Unlock()
	paths := make([]string, 0, len(current))
	for p := range current {
		paths = append(paths, p)
	}
	sort.Strings(paths)

	m.mu.Lock()
	for p := range m.notes {
		if _, ok := current[p]; !ok {
			delete(m.notes, p)
		}
	}
	m.mu.Unlock()
	m.count()

	type todo struct {
		hash [32]byte
		text string
	}
	var batch []todo
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		texts := make([]string, len(batch))
		for i, t := range batch {
			texts[i] = t.text
		}
		vs, err := m.e.Embed(m.ctx, texts)
		if err != nil {
			return err
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		for i, t := range batch {
			v := vs[i]
			if len(v) == 0 {
				continue
			}
			m.vecs[t.hash] = v
			_, _ = m.w.Write(t.hash[:])
			_ = binary.Write(m.w, binary.LittleEndian, uint32(len(v)))
			_ = binary.Write(m.w, binary.LittleEndian, v)
		}
		batch = batch[:0]
		if err := m.w.Flush(); err != nil {
			return err
		}
		m.countLocked()
		return nil
	}
	queued := map[[32]byte]bool{}
	for _, p := range paths {
		if m.ctx.Err() != nil {
			return m.ctx.Err()
		}
		m.mu.RLock()
		known, ok := m.notes[p]
		m.mu.RUnlock()
		if ok && known.version == current[p] {
			continue
		}
		src, err := m.ix.readNote(p)
		if err != nil {
			continue // gone meanwhile: the next pass drops it
		}
		d := FromNote(p, src, time.Time{}, nil)
		nv := noteVecs{version: d.Version}
		for k, text := range sectionTexts(d) {
			if strings.TrimSpace(text) == "" {
				continue
			}
			h := sha256.Sum256([]byte(text))
			nv.secs = append(nv.secs, secVec{k, h})
			m.mu.RLock()
			_, have := m.vecs[h]
			m.mu.RUnlock()
			if !have && !queued[h] {
				queued[h] = true
				batch = append(batch, todo{h, text})
			}
		}
		m.mu.Lock()
		m.notes[p] = nv
		m.mu.Unlock()
		if len(batch) >= meaningBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	m.count()
	return nil
}

func (m *Meaning) count() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.countLocked()
}

func (m *Meaning) countLocked() {
	var done, total int64
	for _, nv := range m.notes {
		for _, s := range nv.secs {
			total++
			if _, ok := m.vecs[s.hash]; ok {
				done++
			}
		}
	}
	notes := int(m.ix.noteCount.Load())
	if len(m.notes) < notes && total > 0 {
		// Notes not split yet: guess their sections from those seen.
		total = max(total, total*int64(notes)/int64(max(len(m.notes), 1)))
	}
	m.done.Store(done)
	m.total.Store(total)
}

// sectionTexts returns the text embedded for each section number: the
// heading path and the section's own text, at most meaningText bytes;
// "" for a section with no document (blank text before the first heading).
func sectionTexts(d *Document) map[int]string {
	out := map[int]string{}
	starts := d.sectionStarts()
	for k := range starts {
		if k == 0 && !d.hasSection0() {
			continue
		}
		lo, hi := starts[k], max(starts[k], sectionEnd(d, starts, k))
		head := d.Title
		if k > 0 {
			head = d.Headings[k-1].Path
		}
		body := d.Body[lo:hi]
		if len(body) > meaningText {
			body = body[:meaningText]
		}
		out[k] = head + "\n" + body
	}
	return out
}

// MeaningHit is a section near the query.
type MeaningHit struct {
	Path    string
	Section int
	Score   float32 // cosine
}

// nearFloor: a note is near the query when its cosine is at least this
// share of the best note's. Every text has some cosine with every other
// (static models share directions for common tokens), so without a floor
// every note of the vault would be "found by meaning"; relative to the
// best, because what cosine counts as near differs by model.
const nearFloor = 0.5

// Nearest returns the notes whose sections are nearest to text, each by
// its nearest section, best first (at most limit notes, none below
// nearFloor of the best). Errors: the
// embedder's (the query could not be embedded); ctx errors.
func (m *Meaning) Nearest(ctx context.Context, text string, limit int) ([]MeaningHit, error) {
	vs, err := m.e.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return m.nearest(vs[0], limit, ""), nil
}

// nearest ranks the notes by their section nearest to q (a unit vector),
// leaving out the note skip.
func (m *Meaning) nearest(q []float32, limit int, skip string) []MeaningHit {
	best := map[string]MeaningHit{}
	m.mu.RLock()
	for p, nv := range m.notes {
		if p == skip {
			continue
		}
		for _, s := range nv.secs {
			v, ok := m.vecs[s.hash]
			if !ok || len(v) != len(q) {
				continue
			}
			c := embed.Dot(q, v)
			// Equal cosines: the first section (texts alike in what the
			// model knows of them), not the map's order.
			if b, ok := best[p]; !ok || c > b.Score || c == b.Score && s.k < b.Section {
				best[p] = MeaningHit{p, s.k, c}
			}
		}
	}
	m.mu.RUnlock()
	top := float32(0)
	for _, h := range best {
		top = max(top, h.Score)
	}
	out := make([]MeaningHit, 0, len(best))
	for _, h := range best {
		if h.Score > 0 && h.Score >= top*nearFloor && !math.IsNaN(float64(h.Score)) {
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Path < out[j].Path
	})
	return out[:min(len(out), limit)]
}

// similarScanNear bounds the notes near by meaning that similar notes fuse.
const similarScanNear = 50

// nearNote returns the notes nearest by meaning to a note (section 0) or
// to its section k with its sub-sections secs: their vectors averaged, the
// note itself left out. nil when the note has no vectors yet.
func (m *Meaning) nearNote(p string, secs []int, k int, limit int) []MeaningHit {
	m.mu.RLock()
	nv, ok := m.notes[p]
	var sum []float32
	if ok {
		want := map[int]bool{}
		for _, s := range secs {
			want[s] = true
		}
		if k > 0 {
			want[k] = true
		}
		for _, s := range nv.secs {
			v, have := m.vecs[s.hash]
			if !have || k > 0 && !want[s.k] {
				continue
			}
			if sum == nil {
				sum = make([]float32, len(v))
			}
			if len(v) == len(sum) {
				for i := range v {
					sum[i] += v[i]
				}
			}
		}
	}
	m.mu.RUnlock()
	if sum == nil {
		return nil
	}
	embed.Normalize(sum)
	return m.nearest(sum, limit, p)
}

// StoreSize is the bytes of the vectors file.
func (m *Meaning) StoreSize() int64 {
	fi, err := os.Stat(m.path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Match kinds of a fused hit.
const (
	ByWords   = "words"
	ByMeaning = "meaning"
	ByBoth    = "both"
)

// Search runs a query (see searchWords for the query language, the
// ranking and the errors). With an embedder (Options.Embedder) it fuses
// the word ranking with the meaning ranking (SearchFused) unless q.By is
// ByWords or q.Path names one note; each hit's By then says which found
// it, and Results.MeaningCoverage or MeaningProblem say what is missing.
// Searches take turns for the cores (searchTurn); one waiting for its turn
// returns ctx's error when ctx ends first.
func (ix *Index) Search(ctx context.Context, q Query) (*Results, error) {
	done, err := searchTurn(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if ix.meaning != nil && q.By != ByWords && q.Path == "" {
		return ix.SearchFused(ctx, ix.meaning, q, q.By)
	}
	res, err := ix.searchWords(ctx, q)
	if err == nil && q.By != ByWords && q.Path == "" {
		res.MeaningCoverage = ix.meaningStatus().Text()
	}
	return res, err
}

// SearchFused runs q by words and by meaning (m's vectors) and merges the
// two note rankings by reciprocal rank fusion (FuseRanks); each hit's By
// says which found it. A note found by meaning only shows its nearest
// section. mode ByWords or ByMeaning runs one kind alone; "" both. Meaning
// hits pass the same filters and exclusions as word hits (space, folder,
// tag, properties, -words, excluded folders and paths). With m nil the
// search is by words; when the query cannot be embedded it is by words
// and Results.MeaningProblem says why.
func (ix *Index) SearchFused(ctx context.Context, m *Meaning, q Query, mode string) (*Results, error) {
	if m == nil || mode == ByWords || q.Path != "" {
		return ix.searchWords(ctx, q)
	}
	if ix.closed.Load() {
		return nil, ErrClosed
	}
	pq, err := buildQuery(q)
	if err != nil {
		return nil, err
	}
	ix.typedPropsAsWords(pq)
	ix.hashTagsAsWords(pq)
	text := meaningQuery(pq)
	if text == "" {
		// Filters only: nothing to compare by meaning.
		return ix.searchWords(ctx, q)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	offset := max(q.Offset, 0)
	deep := offset + limit + fuseExtra
	var words *Results
	if mode != ByMeaning {
		wq := q
		wq.Offset, wq.Limit = 0, min(deep, MaxLimit)
		wq.Some = false // the fusion ranks the rest by meaning
		if words, err = ix.searchWords(ctx, wq); err != nil {
			return nil, err
		}
	} else {
		words = &Results{Status: ix.Status()}
	}
	near, err := m.Nearest(ctx, text, deep)
	if err == nil {
		near, err = ix.passing(ctx, pq, near)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		words2, err2 := ix.searchWords(ctx, q)
		if err2 != nil {
			return nil, err2
		}
		words2.MeaningProblem = err.Error()
		if c := m.status(); c.Problem == "" {
			words2.MeaningCoverage = c.Text()
		}
		return words2, nil
	}
	byWords := make([]ranked, len(words.Hits))
	hits := map[string]Hit{}
	for i, h := range words.Hits {
		byWords[i] = ranked{h.Path, h.Score}
		h.By = ByWords
		hits[h.Path] = h
	}
	byMeaning := make([]ranked, len(near))
	nearOf := map[string]MeaningHit{}
	for i, h := range near {
		byMeaning[i] = ranked{h.Path, float64(h.Score)}
		nearOf[h.Path] = h
	}
	order := FuseRanks(byWords, byMeaning)
	out := &Results{Offset: offset, Limit: limit, Status: words.Status, Ignored: words.Ignored, Optional: words.Optional, Options: words.Options,
		TagsAsWords: pq.tagsAsWords, Suggestions: words.Suggestions, Relaxed: words.Relaxed, MeaningCoverage: m.CoverageText()}
	out.Total = len(order)
	if words.Total > len(words.Hits) {
		out.Total += words.Total - len(words.Hits) // word hits beyond those fused
	}
	if offset >= len(order) {
		return out, nil
	}
	page := order[offset:min(len(order), offset+limit)]
	var missing []string
	for _, r := range page {
		if _, ok := hits[r.id]; !ok {
			missing = append(missing, r.id)
		}
	}
	if len(missing) > 0 {
		fields, err := ix.noteFields(ctx, missing)
		if err != nil {
			return nil, err
		}
		for _, p := range missing {
			dm := fields[p]
			if dm == nil {
				continue
			}
			version := fieldString(dm, fVersion)
			meta := metaOf(version, fieldString(dm, fMeta))
			h := Hit{Path: p, Title: fieldString(dm, fTitle), Version: version, Space: fieldString(dm, fSpace), By: ByMeaning, SectionsTotal: 1,
				Embeds: meta.embeds, EmbedsKnown: meta.embedsKnown}
			f := ix.openNote(p, meta)
			sec := f.section(meta, nearOf[p].Section, nil, true, false)
			if sec.Snippet == "" {
				sec.Snippet = firstWords(f, meta, nearOf[p].Section)
			}
			if f != nil {
				f.close()
			}
			h.Sections = []SectionHit{sec}
			h.Heading, h.Line, h.Snippet = sec.Heading, sec.Line, sec.Snippet
			hits[p] = h
		}
	}
	for _, r := range page {
		h, ok := hits[r.id]
		if !ok {
			continue
		}
		if _, both := nearOf[r.id]; both && h.By == ByWords {
			h.By = ByBoth
		}
		h.Score = r.score
		out.Hits = append(out.Hits, h)
	}
	return out, nil
}

// meaningQuery is the text embedded for a query: its words and phrases as
// typed, without filters (tag:x, key=value) and exclusions.
func meaningQuery(pq *parsedQuery) string {
	var words []string
	for _, c := range pq.must {
		if c.raw != "" {
			words = append(words, c.raw)
		}
	}
	return strings.Join(words, " ")
}

// passing keeps the meaning hits whose notes pass pq's filters and
// exclusions, asking the word index (which knows tags and properties).
func (ix *Index) passing(ctx context.Context, pq *parsedQuery, near []MeaningHit) ([]MeaningHit, error) {
	if len(near) == 0 || !pq.filtered() && len(pq.not)+len(pq.noProps)+len(pq.notFolders)+len(pq.notPaths) == 0 {
		return near, nil
	}
	ids := make([]string, len(near))
	for i, h := range near {
		ids[i] = h.Path
	}
	only := *pq
	only.must = nil
	res, err := ix.search(ctx, &only, nil, nil, len(ids), query.NewDocIDQuery(ids))
	if err != nil {
		return nil, err
	}
	ok := make(map[string]bool, len(res.Hits))
	for _, h := range res.Hits {
		ok[h.ID] = true
	}
	out := near[:0:0]
	for _, h := range near {
		if ok[h.Path] {
			out = append(out, h)
		}
	}
	return out, nil
}

// fuseExtra is how far beyond the page each ranking is read for fusion.
const fuseExtra = 20

// firstWords is a snippet for a section found by meaning: where its text
// starts (no word of the query need be in it).
func firstWords(f *noteFile, m meta, k int) string {
	if f == nil || !f.ok {
		return ""
	}
	src, _, bodyStart, _ := f.read(m, k, snippetLen*2)
	_ = bodyStart
	return cutSnippet(collapseSpace(string(src)))
}

func cutSnippet(s string) string {
	r := []rune(s)
	if len(r) <= snippetLen {
		return s
	}
	return string(r[:snippetLen]) + "…"
}
