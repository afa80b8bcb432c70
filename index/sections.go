package index

import (
	"bytes"
	"context"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/vaultd/vaultd/note"
)

// The sections of a hit. A note's matching sections are found among its
// section documents (docs.go): those holding every required query word
// that the note's title and aliases do not — in their own text or heading,
// or in the heading of a section they lie in — ranked by bleve's score of
// those words there (a word in the section's own heading counts twice, in
// an enclosing heading half); when no section holds them all, those
// holding any of them. Title words count for nothing here: they say the
// note is the right one, not which part of it (the title "Kanzlei Brandt"
// is no reason to show the introduction for "Exchange server Kanzlei
// Brandt"). Sections with the query's words as a phrase, as typed, go
// first. The snippets are cut from the sections' text, analyzed anew: a law
// of 2 MB costs what its three shown sections cost, not what its thousands
// of matches would as term locations.
//
// A note none of whose sections match — its words only in compounds, or
// only in its title, or a query of filters only — is placed by its note
// document's term locations instead (locate).

// maxNoteSections bounds the sections collected per note in one query;
// more are counted, not collected.
const maxNoteSections = 50

// details loads the page's notes and their matching sections from..from+n
// (best first), with snippets.
//
// Only the first snippets sections of each hit get a snippet (the others
// their heading and line): one snippet per note is what a list of notes
// shows, and cutting one means analyzing its section's text.
func (ix *Index) details(ctx context.Context, ids []string, pq *parsedQuery, positive, boost query.Query, from, n, snippets int) ([]Hit, error) {
	byID, err := ix.noteFields(ctx, ids)
	if err != nil {
		return nil, err
	}
	qm := matchers(pq)
	out := make([]Hit, len(ids))
	metas := make([]meta, len(ids))
	// Notes grouped by which clauses their title or aliases hold.
	groups := map[string][]int{}
	keys := make([]string, len(ids))
	var order []string
	for i, id := range ids {
		out[i].Path = id
		d := byID[id]
		if d == nil {
			continue
		}
		out[i].Title, out[i].Version, out[i].Space = fieldString(d, fTitle), fieldString(d, fVersion), fieldString(d, fSpace)
		metas[i] = metaOf(out[i].Version, fieldString(d, fMeta)) // remembered: see noteFields
		out[i].Embeds, out[i].EmbedsKnown = metas[i].embeds, metas[i].embedsKnown
		if positive == nil {
			continue // filters only: the start of each note
		}
		key := titleClauses(pq, d)
		keys[i] = key
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], i)
	}
	secs := make([][]secHit, len(ids))
	totals := make([]int, len(ids))
	for _, key := range order {
		if err := ix.noteSections(ctx, pq, key, ids, groups[key], secs, totals); err != nil {
			return nil, err
		}
	}
	clauses := matcherClauses(pq, len(qm))
	for i := range ids {
		if len(secs[i]) > 1 {
			rankSections(metas[i], secs[i], qm, inTitle(pq, qm, keys[i]), clauses, out[i].Title)
		}
	}
	var fallback []string
	for i := range ids {
		if byID[ids[i]] != nil && len(secs[i]) == 0 && positive != nil && !allInTitle(pq, keys[i]) {
			fallback = append(fallback, ids[i])
		}
	}
	var located map[string]Hit
	if len(fallback) > 0 {
		hs, err := ix.detailsByLocations(ctx, fallback, positive, boost, qm, pq.phraseWords(), from, n)
		if err != nil {
			return nil, err
		}
		located = make(map[string]Hit, len(hs))
		for _, h := range hs {
			located[h.Path] = h
		}
	}
	phrase := pq.phraseWords()
	dated := pq.hasDate()
	var inPhrase map[string]map[int]int
	if len(phrase) > 1 && ix.phraseCheap(pq) {
		if inPhrase, err = ix.phraseSections(ctx, pq, ids, metas); err != nil {
			return nil, err
		}
	}
	for i := range out {
		if h, ok := located[ids[i]]; ok {
			out[i] = h
			continue
		}
		if byID[ids[i]] == nil {
			continue
		}
		hit := &out[i]
		m := metas[i]
		list := secs[i]
		if len(list) == 0 { // title words or filters only: the start of the note
			k := 0
			if len(m.headings) > 0 && m.headings[0].Start <= m.bodyStart {
				k = 1
			}
			list, totals[i] = []secHit{{k: k}}, 1
			if len(phrase) > 1 && namesPhrase(byID[ids[i]], phrase) {
				// Its title or an alias is the words as a phrase:
				// among the notes with the phrase (rank) it is the
				// one named by it, before every section that
				// mentions it.
				hit.phrase = 1
			}
		}
		f := ix.openNote(hit.Path, m)
		if ks := inPhrase[hit.Path]; len(ks) > 0 {
			// Sections with the words as a phrase first.
			for j := range list {
				if c := ks[list[j].k]; c > 0 {
					lo, _, hi, _ := m.bounds(list[j].k)
					list[j].phrase = math.Sqrt(float64(c)) / math.Sqrt(float64(max(hi-lo, 1)))
					hit.phrase = max(hit.phrase, list[j].phrase)
				}
			}
			sort.SliceStable(list, func(a, b int) bool { return list[a].phrase > 0 && list[b].phrase == 0 })
		}
		if headed := headingHolds(m, qm); headed != nil {
			// A section whose heading names every word is about them
			// ("§ 1 Sozial ungerechtfertigte Kündigungen" for Kündigung
			// sozial ungerechtfertigt); it goes before those that only
			// mention them, even as a phrase, and one that names them
			// as they are asked before one that names them in other
			// forms ("§ 1601 Unterhaltsverpflichtete" before "§ 1751 …,
			// Verpflichtung zum Unterhalt" for "Unterhalt verpflichtet").
			sortSections(list, headed)
		}
		if f != nil {
			// A section with nothing to read (its heading, then a heading
			// as high: a law's "§ 9" before a paragraph that the text's
			// "-----" line made a heading) goes last: reading it would
			// show its heading alone.
			sortSections(list, func(k int) int {
				if f.empty(m, k) {
					return 0
				}
				return 1
			})
		}
		hit.SectionsTotal = totals[i]
		hit.SectionsOffset = min(from, len(list))
		for j, s := range list[hit.SectionsOffset:min(len(list), hit.SectionsOffset+max(n, 0))] {
			hit.Sections = append(hit.Sections, f.section(m, s.k, qm, j < snippets, dated))
		}
		if f != nil {
			f.close()
		}
		if len(hit.Sections) > 0 {
			hit.Heading, hit.Line, hit.Snippet = hit.Sections[0].Heading, hit.Sections[0].Line, hit.Sections[0].Snippet
		}
	}
	return out, nil
}

// sortSections orders list stably by key, the largest first, asking key
// once per section (it reads headings, or the note's file).
func sortSections(list []secHit, key func(k int) int) {
	keys := make(map[int]int, len(list))
	for _, s := range list {
		keys[s.k] = key(s.k)
	}
	sort.SliceStable(list, func(a, b int) bool { return keys[list[a].k] > keys[list[b].k] })
}

// headingHolds returns how section k's own heading holds the required
// words of the query: 2 every one as itself (or in a compound with
// another of them), 1 every one in some form (a compound, the noun of a
// verb), 0 not every one. nil for a query of fewer than two words: a
// heading with the one word already weighs more in the section's score.
func headingHolds(m meta, qm []qmatcher) func(k int) int {
	required := 0
	for _, q := range qm {
		if !q.optional {
			required++
		}
	}
	if required < 2 {
		return nil
	}
	return func(k int) int {
		if k <= 0 || k > len(m.headings) {
			return 0
		}
		hh := matchHeading(m.headings[k-1].Text, qm, true)
		level := 2
		for w, q := range qm {
			switch {
			case q.optional:
			case hh.words[w] == 0:
				return 0
			case hh.words[w] < 1:
				level = 1
			}
		}
		return level
	}
}

// snippetWindow is how much of a section is analyzed at a time for its
// snippet.
const (
	snippetWindow  = 1024
	snippetWindows = 8 // at most
)

// noteFields loads the note documents' stored fields; the heading table
// (meta, for a law hundreds of KB) only for versions not remembered.
//
// The fields are remembered per note until it is next indexed (commit
// forgets it, forgetFields): a stored field is read with its document's
// others, and for a law that is a block of hundreds of KB to decompress.
// (Forgetting them all at every commit made each search of the HTTP load
// on the laws, with a write every 80 ms, read its hits' blocks again:
// 268 ms a search instead of 28.)
func (ix *Index) noteFields(ctx context.Context, ids []string) (map[string]*search.DocumentMatch, error) {
	load := func(ids []string, fields ...string) (*bleve.SearchResult, error) {
		req := bleve.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
		req.Fields = fields
		return ix.bi.SearchInContext(ctx, req)
	}
	byID := make(map[string]*search.DocumentMatch, len(ids))
	gen := ix.gen.Load()
	var todo []string
	ix.fields.Lock()
	var missing []string // notes whose heading table is not remembered
	for _, id := range ids {
		if d, ok := ix.fields.m[id]; ok {
			byID[id] = &search.DocumentMatch{ID: id, Fields: maps.Clone(d)}
			if v, _ := d[fVersion].(string); !hasMeta(v) {
				missing = append(missing, id)
			}
		} else {
			todo = append(todo, id)
		}
	}
	ix.fields.Unlock()
	res := &bleve.SearchResult{}
	if len(todo) > 0 {
		var err error
		if res, err = load(todo, fTitle, fAliases, fVersion, fSpace); err != nil {
			return nil, err
		}
	}
	for _, h := range res.Hits {
		byID[h.ID] = h
		if !hasMeta(fieldString(h, fVersion)) {
			missing = append(missing, h.ID)
		}
	}
	for id, d := range byID { // forgotten meanwhile (metaOf starts over when full)
		if v, _ := d.Fields[fVersion].(string); !hasMeta(v) && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		mres, err := load(missing, fMeta)
		if err != nil {
			return nil, err
		}
		for _, h := range mres.Hits {
			if d := byID[h.ID]; d != nil {
				d.Fields[fMeta] = h.Fields[fMeta]
			}
		}
	}
	ix.fields.Lock()
	// Only fields read with no commit since: one that indexed a note
	// after they were read forgot the note before they would be kept.
	if ix.gen.Load() == gen {
		if ix.fields.m == nil || len(ix.fields.m) >= maxNoteFields {
			ix.fields.m = map[string]map[string]any{} // start over rather than track use
		}
		for _, id := range todo {
			if d := byID[id]; d != nil {
				f := maps.Clone(d.Fields)
				delete(f, fMeta) // remembered by metaOf
				ix.fields.m[id] = f
			}
		}
	}
	ix.fields.Unlock()
	return byID, nil
}

// forgetFields forgets the remembered fields of the notes at paths (of
// every note when paths is nil). A commit calls it after ix.gen moved.
func (ix *Index) forgetFields(paths []string) {
	ix.fields.Lock()
	defer ix.fields.Unlock()
	if paths == nil {
		ix.fields.m = nil
		return
	}
	for _, p := range paths {
		delete(ix.fields.m, p)
	}
}

func hasMeta(version string) bool {
	_, ok := cachedMeta(version)
	return ok
}

// maxNoteFields bounds the notes whose fields noteFields remembers.
const maxNoteFields = 4096

// phraseSections returns, for the notes ids, how often each section holds
// the query's words as a phrase (by section number), from the term
// locations of the phrase's words in the text and the headings: a query
// for the notes holding every word (no phrase query), then the phrases
// found by position. (bleve's phrase searcher pairs every location of a
// word with every location of the next; on the 6,636 laws the same counts
// took 36 ms for 15 phrase queries that way, 17 ms this way.)
func (ix *Index) phraseSections(ctx context.Context, pq *parsedQuery, ids []string, metas []meta) (map[string]map[int]int, error) {
	ws := pq.phraseWords()
	if len(ws) < 2 {
		return nil, nil
	}
	slots := phraseTerms(ws) // the terms by position; empty: a stop word of the query
	fields := []string{fBody, fHeadings}
	musts := []query.Query{query.NewDocIDQuery(ids)}
	for _, ts := range slots {
		if len(ts) == 0 {
			continue
		}
		var alts []query.Query
		for _, f := range fields {
			for _, t := range ts {
				alts = append(alts, term(f, t, 1))
			}
		}
		musts = append(musts, disjunction(alts))
	}
	req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery(musts), len(ids), 0, false)
	req.IncludeLocations = true
	res, err := ix.bi.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	// where is a word's place in a field: its array position (the
	// heading, for the headings field) and its token position.
	type where struct {
		array uint64
		pos   uint64
	}
	out := map[string]map[int]int{}
	for _, h := range res.Hits {
		i, ok := at[h.ID]
		if !ok {
			continue
		}
		m := metas[i]
		ks := map[int]int{}
		for _, f := range fields {
			locs := h.Locations[f]
			held := make([]map[where]uint64, len(slots)) // where → its start offset
			for j, ts := range slots {
				if len(ts) == 0 {
					continue
				}
				held[j] = map[where]uint64{}
				for _, t := range ts {
					for _, l := range locs[t] {
						held[j][where{arrayOf(l.ArrayPositions), l.Pos}] = l.Start
					}
				}
			}
			section := func(start uint64) int { return m.sectionAt(int(start) + m.bodyStart) }
			counted := map[where]bool{}
			for _, t := range slots[0] {
				for _, l := range locs[t] {
					w0 := where{arrayOf(l.ArrayPositions), l.Pos}
					if counted[w0] {
						continue // the word's other term at the same place
					}
					phrase, last := true, l.Start
					for j := 1; j < len(slots) && phrase; j++ {
						if held[j] == nil {
							continue
						}
						var start uint64
						start, phrase = held[j][where{w0.array, w0.pos + uint64(j)}]
						last = start
					}
					if !phrase {
						continue
					}
					counted[w0] = true
					if f == fBody {
						// In one section: the text runs on over the
						// next heading, a phrase does not.
						if k := section(l.Start); k == section(last) {
							ks[k]++
						}
					} else if len(l.ArrayPositions) > 0 {
						ks[int(l.ArrayPositions[0])+1]++
					}
				}
			}
		}
		if len(ks) > 0 {
			out[h.ID] = ks
		}
	}
	return out, nil
}

// arrayOf is a location's first array position (0 for a plain field).
func arrayOf(ap []uint64) uint64 {
	if len(ap) == 0 {
		return 0
	}
	return ap[0]
}

// secHit is a matching section of a note.
type secHit struct {
	k      int
	score  float64
	phrase float64 // how much of the section the phrase is (noteFile.phraseShare)
	// held marks the required clauses (by index in parsedQuery.must) that
	// the section's document holds: in its text, its heading (a compound
	// there too) or an enclosing heading.
	held uint64
}

// holds reports whether the section's document holds clause c.
func (s secHit) holds(c int) bool { return c >= 0 && c < 64 && s.held&(1<<c) != 0 }

// namesPhrase reports whether the note's title or one of its aliases
// holds the words of phrase one after another.
func namesPhrase(d *search.DocumentMatch, phrase []qword) bool {
	for _, name := range storedNames(d) {
		ts := headingTokens(name)
		for i := 0; i+len(phrase) <= len(ts); i++ {
			j := 0
			for j < len(phrase) && slices.Contains(phrase[j].terms(), ts[i+j].term) {
				j++
			}
			if j == len(phrase) {
				return true
			}
		}
	}
	return false
}

// storedNames returns a note document's stored title and aliases.
func storedNames(d *search.DocumentMatch) []string {
	names := []string{fieldString(d, fTitle)}
	switch a := d.Fields[fAliases].(type) {
	case string:
		names = append(names, a)
	case []any:
		for _, x := range a {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
	}
	return names
}

// titleClauses returns which positive clauses the note's title or aliases
// hold, as a string of '1' and '0' (a map key).
func titleClauses(pq *parsedQuery, d *search.DocumentMatch) string {
	var toks []string
	for _, s := range storedNames(d) {
		for _, t := range headingTokens(s) {
			toks = append(toks, t.term)
		}
	}
	key := make([]byte, len(pq.must))
	for i, c := range pq.must {
		key[i] = '0'
		in := func(w qword) bool {
			return slices.ContainsFunc(w.terms(), func(t string) bool { return slices.Contains(toks, t) })
		}
		switch c.kind {
		case kindWord, kindPhrase:
			all := true
			for _, w := range c.words {
				all = all && in(w)
			}
			if all {
				key[i] = '1'
			}
		case kindPrefix:
			if slices.ContainsFunc(toks, func(t string) bool { return strings.HasPrefix(t, c.words[0].Folded) }) {
				key[i] = '1'
			}
		}
	}
	return string(key)
}

// allInTitle reports whether the title holds every clause that counts
// (then no section is looked for).
func allInTitle(pq *parsedQuery, key string) bool {
	for i, c := range pq.must {
		if key[i] == '0' && (!c.optional || pq.anyOf()) {
			return false
		}
	}
	return true
}

// noteSections finds the matching sections of the notes ids[is], whose
// title holds the clauses key marks, into secs and totals.
func (ix *Index) noteSections(ctx context.Context, pq *parsedQuery, key string, ids []string, is []int, secs [][]secHit, totals []int) error {
	var must, should []query.Query
	var mustAt []int // each must query's clause, by index in pq.must
	var optQ []query.Query
	var optAt []int // the options' queries and clauses (qmatcher.option)
	for i, c := range pq.must {
		if key[i] == '1' {
			continue
		}
		q := ix.secClause(c)
		if q == nil {
			q = query.NewMatchNoneQuery()
		}
		if c.optional && !pq.anyOf() {
			should = append(should, q)
			if c.option {
				optQ, optAt = append(optQ, q), append(optAt, i)
			}
		} else {
			must = append(must, q)
			mustAt = append(mustAt, i)
		}
	}
	if len(must) == 0 {
		return nil // the title holds every word
	}
	notes := make([]query.Query, 0, len(is))
	pos := make(map[string]int, len(is))
	for _, i := range is {
		notes = append(notes, term(fSecNote, ids[i], 1))
		pos[ids[i]] = i
	}
	run := func(words query.Query, only []int) error {
		var filter []query.Query
		for _, i := range only {
			filter = append(filter, term(fSecNote, ids[i], 1))
		}
		bq := query.NewBooleanQuery([]query.Query{words, disjunction(filter)}, should, nil)
		size := maxNoteSections * len(only)
		r, err := ix.bi.SearchInContext(ctx, bleve.NewSearchRequestOptions(bq, size, 0, false))
		if err != nil {
			return err
		}
		for _, h := range r.Hits {
			p, k, ok := splitSectionID(h.ID)
			if i, found := pos[p]; ok && found {
				secs[i] = append(secs[i], secHit{k: k, score: h.Score})
			}
		}
		for _, i := range only {
			totals[i] = len(secs[i])
		}
		if int(r.Total) > len(r.Hits) {
			// Some notes have more than were collected: count them.
			for _, i := range only {
				if len(secs[i]) == 0 {
					continue
				}
				cq := query.NewConjunctionQuery([]query.Query{words, term(fSecNote, ids[i], 1)})
				cr, err := ix.bi.SearchInContext(ctx, bleve.NewSearchRequestOptions(cq, 0, 0, false))
				if err != nil {
					return err
				}
				totals[i] = int(cr.Total)
			}
		}
		return nil
	}
	all := must[0]
	if len(must) > 1 && !pq.anyOf() {
		all = query.NewConjunctionQuery(must)
	} else if len(must) > 1 {
		all = query.NewDisjunctionQuery(must)
	}
	if err := run(all, is); err != nil {
		return err
	}
	var every uint64 // every must clause
	for _, c := range mustAt {
		if c < 64 {
			every |= 1 << c
		}
	}
	if len(must) > 1 && pq.anyOf() {
		if err := ix.heldClauses(ctx, must, mustAt, ids, is, secs); err != nil {
			return err
		}
	} else {
		for _, i := range is {
			for j := range secs[i] {
				secs[i][j].held = every
			}
		}
	}
	if len(must) > 1 && !pq.anyOf() {
		// No section has every word: those with any of them, each
		// knowing which (a section with two of three words is closer
		// than one with a single word in its heading).
		var none []int
		for _, i := range is {
			if len(secs[i]) == 0 {
				none = append(none, i)
			}
		}
		if len(none) > 0 {
			if err := run(query.NewDisjunctionQuery(must), none); err != nil {
				return err
			}
			if err := ix.heldClauses(ctx, must, mustAt, ids, none, secs); err != nil {
				return err
			}
		}
	}
	if len(optQ) > 0 {
		// Which sections hold the options: rankSections counts them.
		if err := ix.heldClauses(ctx, optQ, optAt, ids, is, secs); err != nil {
			return err
		}
	}
	for _, i := range is {
		s := secs[i]
		sort.SliceStable(s, func(a, b int) bool {
			if math.Abs(s[a].score-s[b].score) > 1e-12 {
				return s[a].score > s[b].score
			}
			return s[a].k < s[b].k
		})
	}
	return nil
}

// heldClauses marks in the collected sections of the notes ids[is] which
// of the must queries (clauses mustAt) each holds: one query per clause,
// over those sections' documents only.
func (ix *Index) heldClauses(ctx context.Context, must []query.Query, mustAt []int, ids []string, is []int, secs [][]secHit) error {
	type at struct{ i, j int }
	where := map[string]at{}
	var sids []string
	for _, i := range is {
		for j, s := range secs[i] {
			id := sectionID(ids[i], s.k)
			where[id] = at{i, j}
			sids = append(sids, id)
		}
	}
	if len(sids) == 0 {
		return nil
	}
	for b, q := range must {
		if mustAt[b] >= 64 {
			continue
		}
		cq := query.NewConjunctionQuery([]query.Query{query.NewDocIDQuery(sids), q})
		r, err := ix.bi.SearchInContext(ctx, bleve.NewSearchRequestOptions(cq, len(sids), 0, false))
		if err != nil {
			return err
		}
		for _, h := range r.Hits {
			if a, ok := where[h.ID]; ok {
				secs[a.i][a.j].held |= 1 << mustAt[b]
			}
		}
	}
	return nil
}

// matcherClauses returns, for each matcher (see matchers), the index of
// its clause in pq.must.
func matcherClauses(pq *parsedQuery, n int) []int {
	out := make([]int, 0, n)
	for i, c := range pq.must {
		k := 1
		if c.kind == kindPhrase {
			k = len(c.words)
		}
		for range k {
			out = append(out, i)
		}
	}
	for len(out) < n {
		out = append(out, -1)
	}
	return out[:n]
}

// inTitle returns, for each matcher, whether the note's title holds its
// clause (key, see titleClauses).
func inTitle(pq *parsedQuery, qm []qmatcher, key string) []bool {
	out := make([]bool, 0, len(qm))
	for i, c := range pq.must {
		n := 1
		if c.kind == kindPhrase {
			n = len(c.words)
		}
		for range n {
			out = append(out, key != "" && key[i] == '1')
		}
	}
	return out[:min(len(out), len(qm))]
}

// rankSections orders a note's matching sections, best first, by the
// query words each covers (see coverHeading) — in its own heading (the
// larger the share of the heading the words are, the more), in the
// heading of a section it lies in, or in its own text — then the deepest
// (the most specific; the top heading often spans the whole note), then by
// bleve's score, then the first. Title words and optional words count for
// nothing, but for commands' options (qmatcher.option). Where a word is
// comes from the headings (meta); a word the section's document holds
// (secHit.held; clauses gives each matcher's clause) in neither its
// heading nor an enclosing one is in its text, or
// a compound in its heading — which counts as much, and more but in the
// heading that repeats the note's title (titleText): like a title word,
// it says the note is the right one, not which part of it.
func rankSections(m meta, list []secHit, qm []qmatcher, title []bool, clauses []int, titleText string) {
	hs := m.headings
	cover := make([]float64, len(list))
	depth := make([]int, len(list))
	memo := map[int]headingHit{}
	match := func(i int) headingHit {
		if h, ok := memo[i]; ok {
			return h
		}
		h := headingMatch(hs[i].Text, qm)
		memo[i] = h
		return h
	}
	for j, s := range list {
		if s.k < 1 || s.k > len(hs) { // the text before the first heading
			for w := range qm {
				if !title[w] && (!qm[w].optional || qm[w].option) && s.holds(clauses[w]) {
					cover[j] += coverText
				}
			}
			continue
		}
		i := s.k - 1
		depth[j] = hs[i].Level
		own := match(i)
		var path []float64
		lv := hs[i].Level
		for a := i - 1; a >= 0 && lv > 1; a-- {
			if hs[a].Level < lv {
				lv = hs[a].Level
				anc := match(a)
				if path == nil {
					path = make([]float64, len(qm))
				}
				for w := range qm {
					if anc.words[w] > 0 {
						path[w] = max(path[w], coverPath*anc.words[w])
					}
				}
			}
		}
		n := max(headingWords(hs[i].Text), own.positions)
		part := 1.0 // how much a compound in the heading counts above the text
		if hs[i].Text == titleText {
			part = 0
		}
		c := coverText
		if n > 0 {
			c += (coverHeading - coverText) * float64(own.positions) / float64(n)
		}
		for w := range qm {
			if title[w] || qm[w].optional && !qm[w].option {
				continue
			}
			best := c * own.words[w]
			inHeadings := own.words[w] == 1
			if path != nil {
				best = max(best, path[w])
				inHeadings = inHeadings || path[w] == coverPath
			}
			if s.holds(clauses[w]) && !inHeadings {
				// The section has the word itself (section documents
				// hold whole words), and not in a heading: in its text;
				// or a compound in its heading (which they hold too):
				// as much, and the heading's share at part weight.
				best = max(best, coverText+(c-coverText)*own.words[w]*part)
			}
			cover[j] += best
		}
	}
	idx := make([]int, len(list))
	for j := range idx {
		idx[j] = j
	}
	const eps = 1e-9
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := idx[a], idx[b]
		if math.Abs(cover[x]-cover[y]) > eps {
			return cover[x] > cover[y]
		}
		if depth[x] != depth[y] {
			return depth[x] > depth[y]
		}
		if math.Abs(list[x].score-list[y].score) > 1e-12 {
			return list[x].score > list[y].score
		}
		return list[x].k < list[y].k
	})
	sorted := make([]secHit, len(list))
	for j, x := range idx {
		sorted[j] = list[x]
	}
	copy(list, sorted)
}

// headingHit is how a heading text matches the query words.
type headingHit struct {
	words     []float64 // by matcher: its best weight in the heading
	positions int       // the heading's word positions that match
}

// headingMatch matches a heading's text against the query words.
func headingMatch(text string, qm []qmatcher) headingHit {
	return matchHeading(text, qm, false)
}

// matchHeading is headingMatch; with pairs, a compound that holds two of
// the words counts as each of them itself ("§ 1601
// Unterhaltsverpflichtete" for "Unterhalt verpflichtet"): it names both,
// where a compound holding one word names it in passing.
func matchHeading(text string, qm []qmatcher, pairs bool) headingHit {
	hh := headingHit{words: make([]float64, len(qm))}
	at := make([]float64, len(qm)) // the weights at the current position
	pos := -1
	flush := func() {
		n := 0
		for _, x := range at {
			if x > 0 {
				n++
			}
		}
		for w, x := range at {
			if pairs && n > 1 && x > 0 {
				x = 1
			}
			hh.words[w] = max(hh.words[w], x)
			at[w] = 0
		}
		if n > 0 {
			hh.positions++
		}
	}
	for _, t := range headingTokens(text) { // by position: a part token shares its word's
		if t.pos != pos {
			flush()
			pos = t.pos
		}
		for w, q := range qm {
			at[w] = max(at[w], q.weight(t.term))
		}
	}
	flush()
	return hh
}

type posTerm struct {
	term string
	pos  int
}

// headingTokens returns the index terms of a heading text (with compound
// part tokens), remembered: the same headings come up search after search.
func headingTokens(text string) []posTerm {
	headTokens.Lock()
	ts, ok := headTokens.m[text]
	headTokens.Unlock()
	if ok {
		return ts
	}
	for _, t := range queryAnalyzer.Analyze([]byte(text)) {
		ts = append(ts, posTerm{string(t.Term), t.Position})
	}
	headTokens.Lock()
	if len(headTokens.m) >= maxWordCounts || headTokens.m == nil {
		headTokens.m = make(map[string][]posTerm) // start over rather than track use
	}
	headTokens.m[text] = ts
	headTokens.Unlock()
	return ts
}

var headTokens struct {
	sync.Mutex
	m map[string][]posTerm
}

// secClause is one clause over the section fields: whole words (and the
// parts of a compound no note has, at part weight), a phrase's words
// (without their order: section documents keep no positions), a prefix's
// expansions. nil if it can match no section.
func (ix *Index) secClause(c clause) query.Query {
	word := func(k float64, ts ...string) query.Query {
		var qs []query.Query
		for _, t := range ts {
			for _, f := range sectionFields {
				if t != "" {
					qs = append(qs, term(f.name, t, k*f.boost))
				}
			}
		}
		return disjunction(qs)
	}
	switch c.kind {
	case kindPhrase:
		var ws []query.Query
		for _, w := range c.words {
			ws = append(ws, word(1, w.terms()...))
		}
		if len(ws) == 1 {
			return ws[0]
		}
		return query.NewConjunctionQuery(ws)
	case kindPrefix:
		w := c.words[0]
		var ts []string
		if w.Term != "" {
			ts = append(ts, w.Term)
		}
		for _, t := range ix.dictPrefix(fSecBody, w.Folded, w.Term) {
			ts = append(ts, t.t)
		}
		return word(1, ts...)
	}
	w := c.words[0]
	alts := []query.Query{sumOf(word(1, w.exact()...), word(nounBoost, w.Noun))}
	if q, _ := ix.headCompounds(c, 1); q != nil {
		alts = append(alts, q)
	}
	if len(c.parts) > 0 {
		ps := make([]query.Query, 0, len(c.parts))
		for _, p := range c.parts {
			ps = append(ps, word(1, p))
		}
		cq := query.NewConjunctionQuery(ps)
		cq.SetBoost(partBoost)
		alts = append(alts, cq)
	}
	return disjunction(alts)
}

// headCompounds matches the compounds in section headings that hold a
// word clause's word ("§ 833 Haftung des Tierhalters" for Tier, "§ 11
// Urlaubsentgelt" for Entgelt, "§ 17 Anzeigepflicht" for anzeigen): the
// heading names the topic, though not in the word's own form. Ends (part
// tokens) and starts, as in the note query, for a verb form its noun's
// too, their boosts times k. It returns the postings the query reads (as
// counted in the term dictionaries); nil for a word not searched in parts.
//
// As in the note query, a compound's boost carries (idf(word)/idf(compound))²,
// so that a heading with a compound weighs partBoost of one with the word
// itself, whether the compound is rare or not; the word's own part token
// is the word itself, which its whole-word query already counts.
func (ix *Index) headCompounds(c clause, k float64) (query.Query, uint64) {
	if c.kind != kindWord || c.wholeOnly || !c.words[0].partOK() {
		return nil, 0
	}
	w := c.words[0]
	own := map[string]bool{}
	for _, st := range w.partStems() {
		own[partMark+string(reverseRunes([]byte(st)))] = true
	}
	n := ix.docCount()
	idfWord := idf(ix.docFreq(fSecHead, w.Term), n)
	var ps []query.Query
	cost := uint64(0)
	for _, f := range []string{fSecParts, fSecHead} {
		for _, t := range ix.partTerms(f, w) {
			if own[t.t] {
				continue
			}
			r := idfWord / idf(t.n, n)
			ps = append(ps, term(f, t.t, k*secHeadBoost*partBoost*r*r))
			cost += t.n
		}
	}
	// One of many compounds ("anzeig": Anzeigepflicht, Anzeigeverfahren
	// …) weighs as much as one of few, and two in one heading as one.
	return newMaxOf(ps), cost
}

// noteFile reads a note's sections for their snippets.
type noteFile struct {
	ra   io.ReaderAt
	c    func()
	size int
	ok   bool // the file is as indexed (same size): offsets hold
}

// openNote opens the note at p (nil if it cannot be read).
func (ix *Index) openNote(p string, m meta) *noteFile {
	ra, size, done := ix.openText(p, m.size)
	if ra == nil {
		return nil
	}
	return &noteFile{ra: ra, c: done, size: size, ok: int64(size) == m.size}
}

func (f *noteFile) close() { f.c() }

// bounds returns section k's byte range in the file, where its text
// starts (after the heading line) and the line of its first byte.
func (m meta) bounds(k int) (start, bodyStart, end, line int) {
	start, bodyStart, end, line = m.bodyStart, m.bodyStart, int(m.size), m.bodyLine
	if k > 0 && k <= len(m.headings) {
		h := m.headings[k-1]
		start, bodyStart, line = h.Start, h.BodyStart, h.Line
	}
	if k < len(m.headings) {
		end = m.headings[k].Start
	}
	return
}

// read returns section k's bytes (at most limit) and its bounds.
func (f *noteFile) read(m meta, k, limit int) (src []byte, start, bodyStart, line int) {
	start, bodyStart, end, line := m.bounds(k)
	start, end = min(max(start, 0), f.size), min(max(end, 0), f.size)
	end = min(max(end, start), start+limit)
	src = make([]byte, end-start)
	n, _ := f.ra.ReadAt(src, int64(start))
	return src[:n], start, min(max(bodyStart, start), start+n), line
}

// section returns section k as a hit: heading, name for read_note, and the
// snippet around its matches (analyzed from its text).
func (f *noteFile) section(m meta, k int, qm []qmatcher, withSnippet, dates bool) SectionHit {
	var sh SectionHit
	_, _, _, sh.Line = m.bounds(k)
	if k > 0 && k <= len(m.headings) {
		h := m.headings[k-1]
		sh.Heading, sh.Ref = h.Path, h.RefOrPath()
	}
	if f == nil || !f.ok || !withSnippet {
		return sh
	}
	src, start, bodyStart, line := f.read(m, k, snippetWindows*snippetWindow)
	// A section with no text of its own (a law's "§ 9 Zahl der
	// Betriebsratsmitglieder" whose paragraphs are headings) shows the
	// snippet of its first sub-section with text: that is what reading it
	// shows first.
	for j := k; j > 0 && j < len(m.headings) && m.headings[j].Level > m.headings[k-1].Level && blank(src[bodyStart-start:]); j++ {
		k = j + 1
		src, start, bodyStart, line = f.read(m, k, snippetWindows*snippetWindow)
	}
	if k > 0 && k <= len(m.headings) && note.LongHeading(m.headings[k-1].Text) {
		bodyStart = start // a paragraph: its words are the snippet's
	}
	// Analyzed a window at a time, up to the first window with a match:
	// a law's annex can be 100 KB of tables, and its first match is what
	// the snippet shows.
	var spans []span
	for lo := 0; lo < min(len(src), snippetWindows*snippetWindow) && len(spans) == 0; {
		hi := min(len(src), lo+snippetWindow)
		for hi < len(src) && !isSpaceByte(src[hi]) {
			hi++ // whole words
		}
		for _, t := range snippetTokens(src[lo:hi], dates) {
			w := 0.0
			for _, q := range qm {
				w = max(w, q.weight(t.term))
			}
			if w > 0 {
				spans = append(spans, span{start: start + lo + t.start, end: start + lo + t.end, term: t.term, weight: w, pos: t.pos})
			}
		}
		lo = hi
	}
	var ln int
	sh.Snippet, ln = snippet(src, start, bodyStart, spans)
	sh.Line = line + ln
	return sh
}

// empty reports whether section k has no text: blank lines between its
// heading and the next heading, which is not one of its sub-sections.
func (f *noteFile) empty(m meta, k int) bool {
	if k < 1 || k > len(m.headings) || !f.ok {
		return false
	}
	_, bodyStart, end, _ := m.bounds(k)
	if end-bodyStart > 64 || (k < len(m.headings) && m.headings[k].Level > m.headings[k-1].Level) {
		return false
	}
	b := make([]byte, max(end-bodyStart, 0))
	n, _ := f.ra.ReadAt(b, int64(bodyStart))
	return blank(b[:n])
}

// blank reports whether b is white space only.
func blank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// snippetToken is a word of a section as the snippet sees it.
type snippetToken struct {
	start, end, pos int
	term            string
}

// snippetTokens returns the index terms of src with their offsets. With
// dates, the analyzer itself runs (it recognizes dates across tokens);
// else the index's word split (wordTokenizer: "plugin's", "node.js" and
// "1,5" are one word each, as the index has them), each word's terms from
// the analyzer remembered (wordTerms): the analyzer's filters are most of
// its cost, and a snippet needs no more than to find the words.
func snippetTokens(src []byte, dates bool) []snippetToken {
	var out []snippetToken
	if dates {
		for _, t := range queryAnalyzer.Analyze(slices.Clone(src)) {
			out = append(out, snippetToken{t.Start, t.End, t.Position, string(t.Term)})
		}
		return out
	}
	for _, w := range (wordTokenizer{}).Tokenize(src) {
		for _, t := range wordTerms(string(src[w.Start:w.End])) {
			out = append(out, snippetToken{w.Start, w.End, w.Position, t})
		}
	}
	return out
}

// wordTerms returns the index terms of one word (its stem and compound
// part token; none for a stop word), remembered.
func wordTerms(w string) []string {
	wordTermCache.Lock()
	ts, ok := wordTermCache.m[w]
	wordTermCache.Unlock()
	if ok {
		return ts
	}
	for _, t := range queryAnalyzer.Analyze([]byte(w)) {
		ts = append(ts, string(t.Term))
	}
	wordTermCache.Lock()
	if len(wordTermCache.m) >= maxWordTerms || wordTermCache.m == nil {
		wordTermCache.m = make(map[string][]string) // start over rather than track use
	}
	wordTermCache.m[w] = ts
	wordTermCache.Unlock()
	return ts
}

// maxWordTerms bounds wordTerms' memory (about 10 MB).
const maxWordTerms = 1 << 16

var wordTermCache struct {
	sync.Mutex
	m map[string][]string
}
