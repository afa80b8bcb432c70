package index

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Query is a search request.
type Query struct {
	// Text in the query language (see parseQuery): words (all must occur),
	// "phrases", -exclude, prefix*, tag:x, space:x, folder:x,
	// property=value. It may be empty when a filter is given: then every
	// note passing the filters matches, sorted by path.
	Text   string
	Space  string // only notes in this space (top-level folder), case-insensitive
	Folder string // only notes in this folder or one below it, case-insensitive
	Tag    string // only notes with this tag or one below it (project → project/alpha)
	// Properties: only notes whose frontmatter property (key) has the value
	// (or, for a list, contains it), case-insensitive: {"status": "aktiv"}.
	Properties map[string]string
	Limit      int // hits per page; default 10, at most 100
	Offset     int // hits to skip (paging)
}

// DefaultLimit and MaxLimit bound Query.Limit.
const (
	DefaultLimit = 10
	MaxLimit     = 100
)

// Results is one page of search hits.
type Results struct {
	Hits   []Hit
	Total  int // notes matching (all pages)
	Offset int // of the first hit
	Limit  int // page size used
	// Relaxed is set when no note contained all words and the hits are
	// notes containing some of them.
	Relaxed bool
	// Ignored lists query words left out because they are too common to
	// be indexed (stop words such as "die", "the").
	Ignored []string
	// Status is the index's state when the search ran; Status.Building
	// means hits may be missing (say so: Status.Text()).
	Status Status
}

// Notices returns what the one who searched should be told besides the
// hits, one plain sentence each: that the index is still building (and how
// far), that no note had all words, which words were left out.
func (r *Results) Notices() []string {
	var out []string
	if t := r.Status.Text(); t != "" {
		out = append(out, t)
	}
	if r.Relaxed {
		out = append(out, "no note contains all the words; showing notes that contain some of them")
	}
	if len(r.Ignored) > 0 {
		out = append(out, "left out as too common to search for: "+strings.Join(r.Ignored, ", "))
	}
	return out
}

// Hit is one matching note.
type Hit struct {
	Path    string // vault-relative
	Title   string
	Version string // full hex SHA-256 of the indexed content
	Space   string
	Score   float64
	// Heading is the heading path of the section holding the best match,
	// "Projekte > Ziele"; "" when it lies before the first heading. Reading
	// just that section is usually enough.
	Heading string
	Line    int    // 1-based line where the snippet starts (0 if no snippet)
	Snippet string // a short excerpt; matched words are marked «like this»
}

// Snippet marks.
const (
	MarkStart = "«"
	MarkEnd   = "»"
)

// Field boosts: title, alias and heading matches rank above body matches.
// Word parts (compounds) get partBoost of their field's boost, so they
// rank below whole-word and stem matches.
const (
	boostTitle    = 4.0
	boostAliases  = 3.0
	boostHeadings = 2.0
	boostBody     = 1.0
	partBoost     = 0.25

	// maxExpand bounds how many dictionary terms one prefix or word-part
	// query expands to per field (the most frequent are kept).
	maxExpand = 64
	// maxScan bounds how many dictionary terms are looked at per expansion.
	maxScan = 50000
)

var textFields = []struct {
	name  string
	boost float64
}{{fTitle, boostTitle}, {fAliases, boostAliases}, {fHeadings, boostHeadings}, {fBody, boostBody}}

// Search runs a query. Errors: *QueryError (ErrBadQuery) when the text
// cannot be understood — its message is written for the one who typed the
// query; ErrClosed; ctx errors. An empty result is not an error.
func (ix *Index) Search(ctx context.Context, q Query) (*Results, error) {
	if ix.closed.Load() {
		return nil, ErrClosed
	}
	pq, err := parseQuery(q.Text)
	if err != nil {
		return nil, err
	}
	if s := strings.TrimSpace(q.Space); s != "" {
		pq.spaces = append(pq.spaces, s)
	}
	if s := strings.TrimSpace(q.Folder); s != "" {
		pq.folders = append(pq.folders, s)
	}
	if s := strings.TrimSpace(q.Tag); s != "" {
		pq.tags = append(pq.tags, strings.TrimPrefix(s, "#"))
	}
	keys := make([]string, 0, len(q.Properties))
	for k := range q.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		k2, v := strings.TrimSpace(k), strings.TrimSpace(q.Properties[k])
		if k2 == "" || v == "" {
			return nil, &QueryError{Query: q.Text, Msg: fmt.Sprintf("the property filter %q=%q needs a name and a value, for example status=aktiv", k, q.Properties[k])}
		}
		pq.props = append(pq.props, propFilter{key: k2, value: v})
	}
	filters := pq.filtered()
	if pq.empty() && !filters {
		msg := "there is nothing to search for"
		if len(pq.ignored) > 0 {
			msg = "it has only very common words (" + strings.Join(pq.ignored, ", ") + "), which the index leaves out; add a more specific word"
		}
		return nil, &QueryError{Query: q.Text, Msg: msg}
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	offset := max(q.Offset, 0)

	out := &Results{Offset: offset, Limit: limit, Ignored: pq.ignored, Status: ix.Status()}
	ix.decompound(pq, false)
	positive, err := ix.positiveQuery(pq, pq.any)
	if err != nil {
		return nil, err
	}
	res, err := ix.search(ctx, pq, positive, limit, offset)
	if err != nil {
		return nil, err
	}
	if res.Total == 0 && !pq.any && len(pq.must) > 1 {
		// No note has all words: any will do, and compounds that notes
		// have may match by their parts too ("Designentwurf gewählt"
		// finds the note on "Entwurf B").
		ix.decompound(pq, true)
		positive, err = ix.positiveQuery(pq, true)
		if err != nil {
			return nil, err
		}
		if res, err = ix.search(ctx, pq, positive, limit, offset); err != nil {
			return nil, err
		}
		out.Relaxed = res.Total > 0
	}
	out.Total = int(res.Total)
	if len(res.Hits) == 0 {
		return out, nil
	}
	hits, err := ix.details(ctx, res.Hits, positive, matchers(pq))
	if err != nil {
		return nil, err
	}
	out.Hits = hits
	return out, nil
}

// search runs phase 1: IDs, scores and the total, without locations (which
// would be decoded for every matching note, not just this page).
func (ix *Index) search(ctx context.Context, pq *parsedQuery, positive query.Query, limit, offset int) (*bleve.SearchResult, error) {
	var must []query.Query
	if positive != nil {
		must = append(must, positive)
	} else {
		must = append(must, query.NewMatchAllQuery())
	}
	var not []query.Query
	for _, c := range pq.not {
		if q := ix.clauseQuery(c, false); q != nil {
			not = append(not, q)
		}
	}
	for _, f := range pq.noProps {
		not = append(not, term(fProps, f.term(), 1))
	}
	bq := query.NewBooleanQuery(must, nil, not)
	if f := filterQuery(pq); f != nil {
		bq.AddFilter(f)
	}
	req := bleve.NewSearchRequestOptions(bq, limit, offset, false)
	if positive == nil {
		req.SortBy([]string{"_id"})
	}
	return ix.bi.SearchInContext(ctx, req)
}

// positiveQuery combines the positive clauses: all of them, or any (OR).
// nil when there are none (filters only).
func (ix *Index) positiveQuery(pq *parsedQuery, anyOf bool) (query.Query, error) {
	var qs []query.Query
	for _, c := range pq.must {
		q := ix.clauseQuery(c, true)
		if q == nil {
			q = query.NewMatchNoneQuery()
		}
		qs = append(qs, q)
	}
	switch {
	case len(qs) == 0:
		return nil, nil
	case len(qs) == 1:
		return qs[0], nil
	case anyOf:
		return query.NewDisjunctionQuery(qs), nil
	default:
		return query.NewConjunctionQuery(qs), nil
	}
}

func filterQuery(pq *parsedQuery) query.Query {
	var fs []query.Query
	add := func(field string, vals []string, clean func(string) string) {
		for _, v := range vals {
			t := query.NewTermQuery(clean(v))
			t.SetField(field)
			fs = append(fs, t)
		}
	}
	add(fTags, pq.tags, func(s string) string { return foldKey(strings.Trim(strings.TrimPrefix(s, "#"), "/")) })
	add(fSpace, pq.spaces, func(s string) string { return foldKey(strings.Trim(s, "/")) })
	add(fFolder, pq.folders, func(s string) string { return foldKey(strings.Trim(s, "/")) })
	for _, f := range pq.props {
		t := query.NewTermQuery(f.term())
		t.SetField(fProps)
		fs = append(fs, t)
	}
	switch len(fs) {
	case 0:
		return nil
	case 1:
		return fs[0]
	}
	return query.NewConjunctionQuery(fs)
}

func term(field, t string, boost float64) query.Query {
	q := query.NewTermQuery(t)
	q.SetField(field)
	q.SetBoost(boost)
	return q
}

func disjunction(qs []query.Query) query.Query {
	switch len(qs) {
	case 0:
		return nil
	case 1:
		return qs[0]
	}
	return query.NewDisjunctionQuery(qs)
}

// clauseQuery builds the query of one clause; withParts adds word-part
// (compound) matching to single words. nil if the clause can match nothing.
func (ix *Index) clauseQuery(c clause, withParts bool) query.Query {
	switch c.kind {
	case kindPhrase:
		if len(c.words) == 1 {
			return wholeWord(c.words[0].terms()...)
		}
		phrase := phraseTerms(c.words)
		var qs []query.Query
		for _, f := range textFields {
			p := query.NewMultiPhraseQuery(phrase, f.name)
			p.SetBoost(f.boost)
			qs = append(qs, p)
		}
		return disjunction(qs)
	case kindPrefix:
		w := c.words[0]
		var qs []query.Query
		for _, f := range textFields {
			var fq []query.Query
			if w.Term != "" {
				fq = append(fq, term(f.name, w.Term, f.boost))
			}
			for _, t := range ix.dictPrefix(f.name, w.Folded, w.Term) {
				fq = append(fq, term(f.name, t.t, f.boost))
			}
			if q := disjunction(fq); q != nil {
				qs = append(qs, q)
			}
		}
		return disjunction(qs)
	}
	w := c.words[0]
	if !withParts || !w.partOK() {
		return wholeWord(w.terms()...)
	}
	// Word parts: compounds ending in the word (its reversed stem is a
	// prefix of their part tokens: häuser → "~suah" ⊂ "~suahneknark") and
	// words starting with it (projekt → projektplan).
	//
	// bleve scores a term by boost·idf²·tf·norm, so a rare compound would
	// outscore a common whole word by its idf alone. Each part term's boost
	// therefore carries (idf(word)/idf(part))², which makes one occurrence
	// of a part worth partBoost of one occurrence of the whole word.
	//
	// Parts join their field's whole-word term in one group per field, so
	// that bleve's coordination factor (matched/all clauses of a
	// disjunction) treats a note with a whole word and a note with only a
	// compound in the same field alike: "fields matched of 4".
	n := ix.docCount()
	suffix := partMark + string(reverseRunes([]byte(w.Stem)))
	groups := make([]query.Query, 0, len(textFields))
	for _, f := range textFields {
		idfWord := idf(ix.docFreq(f.name, w.Term), n)
		var fq []query.Query
		for _, t := range append(ix.dictPrefix(f.name, suffix, ""), ix.dictPrefix(f.name, w.Stem, w.Term)...) {
			r := idfWord / idf(t.n, n)
			fq = append(fq, term(f.name, t.t, f.boost*partBoost*r*r))
		}
		if len(fq) == 0 {
			groups = append(groups, term(f.name, w.Term, f.boost))
			continue
		}
		groups = append(groups, query.NewDisjunctionQuery([]query.Query{term(f.name, w.Term, f.boost), disjunction(fq)}))
	}
	if len(c.parts) > 0 {
		// A compound no note has: notes with its parts, at part weight.
		pq := make([]query.Query, 0, len(c.parts))
		for _, p := range c.parts {
			fq := make([]query.Query, 0, len(textFields))
			for _, f := range textFields {
				fq = append(fq, term(f.name, p, f.boost*partBoost))
			}
			pq = append(pq, query.NewDisjunctionQuery(fq))
		}
		var all query.Query = pq[0]
		if len(pq) > 1 {
			all = query.NewConjunctionQuery(pq)
		}
		groups = append(groups, all)
	}
	return query.NewDisjunctionQuery(groups)
}

// minCompound is the shortest word (in letters) that is split into parts
// when no note has it: two parts of at least minPartQuery letters.
const minCompound = 2 * minPartQuery

// decompound gives each long query word that no note has (as a whole word,
// in any field) its parts, when the term dictionary knows both: the
// longest known head (Designentwurf → Entwurf) and the modifier before it,
// with or without a linking s, es, n, en or e (Arbeitsvertrag → Arbeit). A
// note then matches with both parts apart ("Design-Review … Entwurf B"), at
// part weight. A head alone would be too loose (Verlorenwort → Wort). Words that some note has are left alone
// unless all is set (no note had all the words), so this costs nothing for
// them beyond one lookup per field.
func (ix *Index) decompound(pq *parsedQuery, all bool) {
	for i := range pq.must {
		c := &pq.must[i]
		if c.kind != kindWord {
			continue
		}
		w := c.words[0]
		r := []rune(w.Folded)
		if !w.partOK() || len(r) < minCompound || c.parts != nil || (!all && ix.known(w.Term)) {
			continue
		}
	split:
		for at := minPartQuery; at <= len(r)-minPartQuery; at++ {
			head := ix.knownWord(string(r[at:]))
			if head == "" {
				continue
			}
			mod := string(r[:at])
			for _, cut := range []string{"", "s", "es", "n", "en", "e"} {
				m, ok := strings.CutSuffix(mod, cut)
				if !ok || len([]rune(m)) < 3 {
					continue
				}
				if t := ix.knownWord(m); t != "" && t != head {
					c.parts = []string{head, t}
					break split
				}
			}
		}
	}
}

// known reports whether some note has the term in a text field.
func (ix *Index) known(t string) bool {
	for _, f := range textFields {
		if ix.docFreq(f.name, t) > 0 {
			return true
		}
	}
	return false
}

// knownWord analyzes s as one word and returns its term if some note has
// it in its text ("" if not, or if s is a stop word). Only the body is
// asked: a split tries many candidates.
func (ix *Index) knownWord(s string) string {
	ws := analyzeQuery(s)
	if len(ws) != 1 || !ws[0].letters() || ix.docFreq(fBody, ws[0].Term) == 0 {
		return ""
	}
	return ws[0].Term
}

// idf is bleve's tf-idf inverse document frequency.
func idf(df, n uint64) float64 {
	return 1 + math.Log(float64(n)/float64(df+1))
}

func (ix *Index) docCount() uint64 {
	n, err := ix.bi.DocCount()
	if err != nil || n == 0 {
		return 1
	}
	return n
}

// docFreq is the number of notes with term t in field f.
func (ix *Index) docFreq(f, t string) uint64 {
	d, err := ix.bi.FieldDictRange(f, []byte(t), []byte(t))
	if err != nil {
		return 0
	}
	defer d.Close()
	e, err := d.Next()
	if err != nil || e == nil || e.Term != t {
		return 0
	}
	return e.Count
}

// wholeWord matches analyzed terms (a word and its other spellings) in any
// text field.
func wholeWord(ts ...string) query.Query {
	qs := make([]query.Query, 0, len(textFields)*len(ts))
	for _, f := range textFields {
		for _, t := range ts {
			qs = append(qs, term(f.name, t, f.boost))
		}
	}
	return query.NewDisjunctionQuery(qs)
}

// phraseTerms lays the words out by position; stop words leave empty slots
// that match any word.
func phraseTerms(ws []qword) [][]string {
	first := ws[0].Pos
	last := ws[len(ws)-1].Pos
	out := make([][]string, last-first+1)
	for _, w := range ws {
		out[w.Pos-first] = append(out[w.Pos-first], w.terms()...)
	}
	return out
}

// dictPrefix lists the terms of a field starting with prefix (at most
// maxExpand, the most frequent), without skip and without part tokens
// unless the prefix is one.
func (ix *Index) dictPrefix(field, prefix, skip string) []termCount {
	if prefix == "" {
		return nil
	}
	d, err := ix.bi.FieldDictPrefix(field, []byte(prefix))
	if err != nil {
		return nil
	}
	defer d.Close()
	var all []termCount
	for i := 0; i < maxScan; i++ {
		e, err := d.Next()
		if err != nil || e == nil {
			break
		}
		if e.Term == skip {
			continue
		}
		all = append(all, termCount{e.Term, e.Count})
	}
	if len(all) > maxExpand {
		sort.Slice(all, func(i, j int) bool {
			if all[i].n != all[j].n {
				return all[i].n > all[j].n
			}
			return all[i].t < all[j].t
		})
		all = all[:maxExpand]
	}
	return all
}

type termCount struct {
	t string
	n uint64
}

// details runs phase 2 for one page: the stored fields and the term
// locations of just these notes, then picks each hit's best section and
// cuts its snippet.
func (ix *Index) details(ctx context.Context, hits search.DocumentMatchCollection, positive query.Query, qm []qmatcher) ([]Hit, error) {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	var q query.Query = query.NewDocIDQuery(ids)
	if positive != nil {
		q = query.NewConjunctionQuery([]query.Query{q, positive})
	}
	req := bleve.NewSearchRequestOptions(q, len(ids), 0, false)
	req.Fields = []string{fTitle, fVersion, fSpace, fMeta}
	req.IncludeLocations = positive != nil
	res, err := ix.bi.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*search.DocumentMatch, len(res.Hits))
	for _, h := range res.Hits {
		byID[h.ID] = h
	}
	out := make([]Hit, 0, len(hits))
	for _, h := range hits {
		d := byID[h.ID]
		hit := Hit{Path: h.ID, Score: h.Score}
		if d != nil {
			hit.Title = fieldString(d, fTitle)
			hit.Version = fieldString(d, fVersion)
			hit.Space = fieldString(d, fSpace)
			ix.locate(&hit, d, qm)
		}
		out = append(out, hit)
	}
	return out, nil
}

func fieldString(d *search.DocumentMatch, f string) string {
	s, _ := d.Fields[f].(string)
	return s
}

// span is a match in the file.
type span struct {
	start, end int
	term       string
	weight     float64
}

// snippetLen is the length of a snippet in bytes before marks.
const snippetLen = 220

// qmatcher tells which query word a matched term stands for, and how much
// it counts: the word itself (its stem, or any expansion of a prefix*)
// counts 1, a compound that contains it partBoost — as in the ranking.
type qmatcher struct {
	whole  string   // the word's analyzed term
	alt    []string // its other spellings (dates)
	parts  []string // its parts, for a compound no note has (see decompound)
	prefix string   // prefix*: every term starting with it is the word
	stem   string   // modifier end: terms starting with the stem (projekt → projektplan)
	suffix string   // head end: part tokens starting with partMark + reversed stem
}

// weight of term t as this word (0: not this word).
func (m qmatcher) weight(t string) float64 {
	switch {
	case t == m.whole || slices.Contains(m.alt, t):
		return 1
	case slices.Contains(m.parts, t):
		return partBoost
	case m.prefix != "" && strings.HasPrefix(t, m.prefix):
		return 1
	case m.suffix != "" && strings.HasPrefix(t, m.suffix):
		return partBoost
	case m.stem != "" && strings.HasPrefix(t, m.stem):
		return partBoost
	}
	return 0
}

// matchers lists the positive query words, one matcher each: the words of
// a phrase separately.
func matchers(pq *parsedQuery) []qmatcher {
	var out []qmatcher
	for _, c := range pq.must {
		switch c.kind {
		case kindPrefix:
			w := c.words[0]
			out = append(out, qmatcher{whole: w.Term, prefix: w.Folded})
		case kindPhrase:
			for _, w := range c.words {
				out = append(out, qmatcher{whole: w.Term, alt: w.Alt})
			}
		default:
			w := c.words[0]
			m := qmatcher{whole: w.Term, alt: w.Alt, parts: c.parts}
			if w.partOK() {
				m.stem = w.Stem
				m.suffix = partMark + string(reverseRunes([]byte(w.Stem)))
			}
			out = append(out, m)
		}
	}
	return out
}

// How much a query word counts for a section, by where the section has it
// (the best place counts): in its own heading, in its own text, or in the
// heading of a section it lies in. Own text is the heading line to the next
// heading of any level. A heading counts between coverText and coverHeading
// by the share of its words that match. The enclosing headings are the
// section's context ("Wochenrunde 2026-11-16 > Beschlüsse" is about that
// day), a little less than its own text, so that a sub-section with nothing
// of its own does not beat its parent.
const (
	coverHeading = 1.5
	coverText    = 1.0
	coverPath    = 0.9
)

// locate finds the section holding the best match and cuts the snippet.
//
// A section scores by the query words it covers (see coverHeading), each
// counted with its weight: 1 for the word itself, partBoost for a compound
// containing it. Words that are in the note's title or aliases count for
// nothing here: they say the note is the right one, not which part of it
// (the title "Kanzlei Brandt" is no reason to show the introduction for
// "Exchange server Kanzlei Brandt"). A section needs a match in its own
// text or heading to be chosen. Ties go to the deepest section (the most
// specific one; the top heading often spans the whole note), then to the
// one with more occurrences, then to the first. When only title words
// match, the hit points at the start of the note. The snippet is the window
// of snippetLen bytes in the section holding the most distinct terms.
func (ix *Index) locate(hit *Hit, d *search.DocumentMatch, qm []qmatcher) {
	m := metaOf(hit.Version, fieldString(d, fMeta))
	hs := m.headings
	nw := len(qm)

	// The words each matched term stands for, with their weights.
	type wordWeight struct {
		word int
		w    float64
	}
	cache := map[string][]wordWeight{}
	match := func(t string) []wordWeight {
		if r, ok := cache[t]; ok {
			return r
		}
		var r []wordWeight
		for i, m := range qm {
			if w := m.weight(t); w > 0 {
				r = append(r, wordWeight{i, w})
			}
		}
		cache[t] = r
		return r
	}
	termWeight := func(t string) float64 {
		w := 0.0
		for _, x := range match(t) {
			w = max(w, x.w)
		}
		if w == 0 { // not traced to a word (should not happen): count it as a part
			w = partBoost
		}
		return w
	}
	inTitle := make([]bool, nw)
	for _, f := range []string{fTitle, fAliases} {
		for t := range d.Locations[f] {
			for _, x := range match(t) {
				if x.w == 1 {
					inTitle[x.word] = true
				}
			}
		}
	}

	var spans []span
	for t, locs := range d.Locations[fBody] {
		w := termWeight(t)
		for _, l := range locs {
			spans = append(spans, span{start: int(l.Start) + m.bodyStart, end: int(l.End) + m.bodyStart, term: t, weight: w})
		}
	}
	// Section k is the text before the first heading (k = 0) or heading
	// k-1 with its own text. sectionOf maps a file offset to k.
	ns := len(hs) + 1
	sectionOf := func(off int) int {
		return sort.Search(len(hs), func(i int) bool { return hs[i].Start > off })
	}
	own := make([]float64, ns*nw)  // own text and heading, by word
	path := make([]float64, ns*nw) // enclosing headings, by word
	has := make([]bool, ns)        // a match of its own
	counts := make([]map[string]int, ns)
	for _, s := range spans {
		k := sectionOf(s.start)
		has[k] = true
		if counts[k] == nil {
			counts[k] = map[string]int{}
		}
		counts[k][s.term]++
		for _, x := range match(s.term) {
			own[k*nw+x.word] = max(own[k*nw+x.word], coverText*x.w)
		}
	}
	head := make([]float64, ns*nw) // each heading's own words
	hpos := map[int]map[uint64]bool{}
	for t, locs := range d.Locations[fHeadings] {
		for _, l := range locs {
			if len(l.ArrayPositions) == 0 || int(l.ArrayPositions[0]) >= len(hs) {
				continue
			}
			k := int(l.ArrayPositions[0]) + 1
			has[k] = true
			if hpos[k] == nil {
				hpos[k] = map[uint64]bool{}
			}
			hpos[k][l.Pos] = true
			for _, x := range match(t) {
				head[k*nw+x.word] = max(head[k*nw+x.word], x.w)
			}
		}
	}
	for k, pos := range hpos {
		// A heading made of query words is a better match than one that
		// merely mentions one: "Diagramme" over "Dateien in einem Diagramm
		// verknüpfen" for the query Diagramme.
		n := max(headingWords(lastHeading(hs[k-1].Path)), len(pos))
		c := coverText + (coverHeading-coverText)*float64(len(pos))/float64(n)
		for w := range nw {
			own[k*nw+w] = max(own[k*nw+w], c*head[k*nw+w])
		}
	}
	// Enclosing headings: the parent's heading and the parent's context.
	var stack []int // sections of the open headings, outermost first
	for k := 1; k < ns; k++ {
		lv := hs[k-1].Level
		for len(stack) > 0 && hs[stack[len(stack)-1]-1].Level >= lv {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			p := stack[len(stack)-1]
			for w := range nw {
				path[k*nw+w] = max(path[p*nw+w], coverPath*head[p*nw+w])
			}
		}
		stack = append(stack, k)
	}

	best, bestCover, bestDepth, bestFreq := -1, 0.0, -1, 0.0
	for k := range ns {
		if !has[k] {
			continue
		}
		cover := 0.0
		for w := range nw {
			if !inTitle[w] {
				cover += max(own[k*nw+w], path[k*nw+w])
			}
		}
		if cover == 0 {
			continue
		}
		depth := 0
		if k > 0 {
			depth = hs[k-1].Level
		}
		freq := 0.0
		for t, n := range counts[k] {
			freq += termWeight(t) * (1 + 0.3*math.Log(float64(n)))
		}
		const eps = 1e-9
		better := cover > bestCover+eps
		if !better && cover > bestCover-eps {
			better = depth > bestDepth || (depth == bestDepth && freq > bestFreq+eps)
		}
		if best < 0 || better {
			best, bestCover, bestDepth, bestFreq = k, cover, depth, freq
		}
	}
	if best < 0 { // title or alias words only: the start of the note
		best = 0
		if len(hs) > 0 && hs[0].Start <= m.bodyStart {
			best = 1
		}
	}
	if best > 0 {
		hit.Heading = hs[best-1].Path
	}

	// Only the file's head up to the section's end is read (and the byte
	// after it, which snippet looks at): the lines before the snippet are
	// counted, the rest of a 2 MB law is not needed.
	f, err := ix.v.FS().Open(hit.Path)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	size := int(fi.Size())
	if int64(size) != m.size {
		spans = nil // changed since indexed: offsets are not to be trusted
	}
	secStart, secEnd := m.bodyStart, size
	if best > 0 {
		secStart = hs[best-1].Start
	}
	if best < len(hs) {
		secEnd = hs[best].Start
	}
	secStart, secEnd = min(max(secStart, 0), size), min(max(secEnd, 0), size)
	if secEnd < secStart {
		secEnd = secStart
	}
	buf := headBufs.get(min(size, secEnd+1))
	defer headBufs.put(buf)
	n, _ := io.ReadFull(f, *buf)
	src := (*buf)[:n]
	if n < len(*buf) { // shrunk since the stat
		spans = nil
		secStart, secEnd = min(secStart, n), min(secEnd, n)
	}
	var in []span
	for _, s := range spans {
		if s.start >= secStart && s.end <= secEnd {
			in = append(in, s)
		}
	}
	hit.Snippet, hit.Line = snippet(src, secStart, secEnd, in)
}

// headingWords returns len(analyzeQuery(h)), remembered: locate asks it for
// every heading with a match in every hit, and the same headings come up
// search after search (analysis is a tenth of a search's CPU otherwise).
func headingWords(h string) int {
	wordCounts.Lock()
	n, ok := wordCounts.m[h]
	wordCounts.Unlock()
	if ok {
		return n
	}
	n = len(analyzeQuery(h))
	wordCounts.Lock()
	if len(wordCounts.m) >= maxWordCounts || wordCounts.m == nil {
		wordCounts.m = make(map[string]int) // start over rather than track use
	}
	wordCounts.m[h] = n
	wordCounts.Unlock()
	return n
}

// maxWordCounts bounds the headings headingWords remembers (about 1 MB).
const maxWordCounts = 16384

var wordCounts struct {
	sync.Mutex
	m map[string]int
}

// metaOf returns decodeMeta(enc), remembered by the note's version: the
// heading table of a law runs to thousands of entries, and decoding it for
// every hit was a fifth of locate's time. The table is derived from the
// note's bytes alone, so their hash names it.
func metaOf(version, enc string) meta {
	if version == "" {
		return decodeMeta(enc)
	}
	metas.Lock()
	m, ok := metas.m[version]
	metas.Unlock()
	if ok {
		return m
	}
	m = decodeMeta(enc)
	metas.Lock()
	if metas.m == nil || metas.bytes+len(enc) > maxMetaBytes {
		metas.m, metas.bytes = make(map[string]meta), 0 // start over rather than track use
	}
	metas.m[version] = m
	metas.bytes += len(enc)
	metas.Unlock()
	return m
}

// maxMetaBytes bounds metaOf's memory, counted as the encoded tables' size.
const maxMetaBytes = 16 << 20

var metas struct {
	sync.Mutex
	m     map[string]meta
	bytes int
}

// headBufs holds the buffers locate reads file heads into: a search reads
// up to megabytes for its 10 snippets, and under load allocating them anew
// kept the garbage collector busy.
var headBufs bufPool

type bufPool struct{ p sync.Pool }

// maxPooledBuf is the largest buffer kept for reuse.
const maxPooledBuf = 4 << 20

// get returns a buffer of length n.
func (b *bufPool) get(n int) *[]byte {
	if p, ok := b.p.Get().(*[]byte); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	s := make([]byte, n)
	return &s
}

func (b *bufPool) put(p *[]byte) {
	if cap(*p) <= maxPooledBuf {
		b.p.Put(p)
	}
}

// snippet cuts about snippetLen bytes of src[secStart:secEnd] around the
// densest group of spans, marks them and collapses white space.
func snippet(src []byte, secStart, secEnd int, spans []span) (string, int) {
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	// The heading line is shown only when a match is in it: the hit's
	// Heading already names the section.
	body := secStart
	if nl := indexByteFrom(src, '\n', secStart, secEnd); nl >= 0 && isHeadingLine(src[secStart:nl]) {
		body = nl + 1
	}
	ws := body
	if len(spans) > 0 {
		bestN := -1.0
		for i, a := range spans {
			lo := secStart
			if a.start >= body {
				lo = body
			}
			from := max(lo, a.start-snippetLen/5)
			seen := map[string]bool{}
			n := 0.0
			for _, s := range spans[i:] {
				if s.end > from+snippetLen {
					break
				}
				if !seen[s.term] {
					seen[s.term] = true
					n += s.weight
				}
			}
			if n > bestN {
				bestN, ws = n, from
			}
		}
	}
	we := min(secEnd, ws+snippetLen)
	// Whole words and whole runes at both ends.
	lo := body
	if ws < body {
		lo = secStart
	}
	for ws > lo && !isSpaceByte(src[ws-1]) && (len(spans) == 0 || ws > spans[0].start-snippetLen/2) {
		ws--
	}
	for we < secEnd && !isSpaceByte(src[we]) && we-ws < snippetLen+40 {
		we++
	}
	for ws < we && !runeStart(src[ws]) {
		ws++
	}
	for we > ws && we < len(src) && !runeStart(src[we]) {
		we--
	}
	var b strings.Builder
	if ws > body {
		b.WriteString("…")
	}
	pos := ws
	for _, s := range spans {
		if s.start < pos || s.start >= we {
			continue
		}
		end := min(s.end, we)
		b.Write(src[pos:s.start])
		b.WriteString(MarkStart)
		b.Write(src[s.start:end])
		b.WriteString(MarkEnd)
		pos = end
	}
	b.Write(src[pos:we])
	if we < secEnd {
		b.WriteString("…")
	}
	line := 1 + countByte(src[:ws], '\n')
	return collapseSpace(b.String()), line
}

func indexByteFrom(b []byte, c byte, from, to int) int {
	for i := from; i < to && i < len(b); i++ {
		if b[i] == c {
			return i
		}
	}
	return -1
}

func isHeadingLine(l []byte) bool {
	s := strings.TrimLeft(string(l), " ")
	return strings.HasPrefix(s, "#")
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func runeStart(c byte) bool { return c&0xC0 != 0x80 }

func countByte(b []byte, c byte) int { return bytes.Count(b, []byte{c}) }

// collapseSpace turns every run of white space into one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
