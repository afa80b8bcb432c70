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
func (m *Meaning) CoverageText() string {
	done, total, problem := m.Coverage()
	if problem != "" {
		return "meaning search is not available: " + problem + "; the hits are by words only"
	}
	if total == 0 && !m.Synced() {
		return "meaning search starts once the word index is ready; the hits are by words only"
	}
	if done >= total {
		return ""
	}
	return fmt.Sprintf("meaning search covers %d %% of the vault (%s of %s sections); the rest is being embedded", done*100/max(total, 1), thousands(done), thousands(total))
}

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

// Nearest returns the notes whose sections are nearest to text, each by
// its nearest section, best first (at most limit notes). Errors: the
// embedder's (the query could not be embedded); ctx errors.
func (m *Meaning) Nearest(ctx context.Context, text string, limit int) ([]MeaningHit, error) {
	vs, err := m.e.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	q := vs[0]
	best := map[string]MeaningHit{}
	m.mu.RLock()
	for p, nv := range m.notes {
		for _, s := range nv.secs {
			v, ok := m.vecs[s.hash]
			if !ok || len(v) != len(q) {
				continue
			}
			c := embed.Dot(q, v)
			if b, ok := best[p]; !ok || c > b.Score {
				best[p] = MeaningHit{p, s.k, c}
			}
		}
	}
	m.mu.RUnlock()
	out := make([]MeaningHit, 0, len(best))
	for _, h := range best {
		if h.Score > 0 && !math.IsNaN(float64(h.Score)) {
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Path < out[j].Path
	})
	return out[:min(len(out), limit)], nil
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

// SearchFused runs q by words and by meaning (m's vectors) and merges the
// two note rankings by reciprocal rank fusion (FuseRanks); each hit's By
// says which found it. A note found by meaning only shows its nearest
// section. mode "words" or "meaning" runs one kind alone; "" both. With
// m nil, or when the query cannot be embedded, the search is by words
// (Results.MeaningProblem says why).
func (ix *Index) SearchFused(ctx context.Context, m *Meaning, q Query, mode string) (*Results, error) {
	if m == nil || mode == ByWords || q.Path != "" {
		return ix.Search(ctx, q)
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
		var err error
		if words, err = ix.Search(ctx, wq); err != nil {
			return nil, err
		}
	} else {
		words = &Results{Status: ix.Status()}
	}
	near, err := m.Nearest(ctx, q.Text, deep)
	if err != nil {
		if mode == ByMeaning {
			return nil, err
		}
		words2, err2 := ix.Search(ctx, q)
		if err2 != nil {
			return nil, err2
		}
		words2.MeaningProblem = err.Error()
		return words2, nil
	}
	// Filters (space, folder, tag) hold for meaning hits too: a note
	// found by meaning must pass them, which the word query's filters
	// check by path prefix for space and folder.
	near = filterNear(near, q)
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
	out := &Results{Offset: offset, Limit: limit, Status: words.Status, Ignored: words.Ignored, Optional: words.Optional,
		Suggestions: words.Suggestions, Relaxed: words.Relaxed, MeaningCoverage: m.CoverageText()}
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
			h := Hit{Path: p, Title: fieldString(dm, fTitle), Version: version, Space: fieldString(dm, fSpace), By: ByMeaning, SectionsTotal: 1}
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

// fuseExtra is how far beyond the page each ranking is read for fusion.
const fuseExtra = 20

// filterNear keeps the meaning hits in q's space and folder.
func filterNear(near []MeaningHit, q Query) []MeaningHit {
	space, folder := strings.ToLower(strings.TrimSpace(q.Space)), strings.ToLower(strings.Trim(strings.TrimSpace(q.Folder), "/"))
	if space == "" && folder == "" && q.Tag == "" && len(q.Properties) == 0 {
		return near
	}
	var out []MeaningHit
	for _, h := range near {
		lp := strings.ToLower(h.Path)
		if space != "" && !strings.HasPrefix(lp, space+"/") {
			continue
		}
		if folder != "" && !strings.HasPrefix(lp, folder+"/") {
			continue
		}
		if q.Tag != "" || len(q.Properties) > 0 {
			continue // tags and properties: only the word search knows them
		}
		out = append(out, h)
	}
	return out
}

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
