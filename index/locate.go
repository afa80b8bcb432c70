package index

import (
	"bytes"
	"context"
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

// detailsByLocations loads notes by their stored fields and the term
// locations of just these notes, from which locate picks each hit's
// matching sections (from..from+n of them, best first) and cuts their
// snippets: for the notes whose section documents do not match (details).
func (ix *Index) detailsByLocations(ctx context.Context, ids []string, positive, boost query.Query, qm []qmatcher, phrase []qword, from, n int) ([]Hit, error) {
	var q query.Query = query.NewDocIDQuery(ids)
	if positive != nil {
		bq := query.NewBooleanQuery([]query.Query{q, positive}, nil, nil)
		if boost != nil {
			bq.AddShould(boost)
		}
		q = bq
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
	out := make([]Hit, 0, len(ids))
	for _, id := range ids {
		d := byID[id]
		hit := Hit{Path: id}
		if d != nil {
			hit.Score = d.Score
			hit.Title = fieldString(d, fTitle)
			hit.Version = fieldString(d, fVersion)
			hit.Space = fieldString(d, fSpace)
			ix.locate(&hit, d, qm, phrase, from, n)
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
	pos        int // word position in its field
}

// snippetLen is the length of a snippet in bytes before marks: with the
// note's path, title, version and space, the section and the call to read
// it, one hit stays within 400 characters.
const snippetLen = 130

// qmatcher tells which query word a matched term stands for, and how much
// it counts: the word itself (its stem, or any expansion of a prefix*)
// counts 1, a compound that contains it partBoost — as in the ranking.
type qmatcher struct {
	whole    string   // the word's analyzed term
	alt      []string // its other spellings (dates)
	noun     string   // the noun a verb form stands for (nominal), at nounBoost
	parts    []string // its parts, for a compound no note has (see decompound)
	prefix   string   // prefix*: every term starting with it is the word
	stems    []string // modifier end: terms starting with a stem (projekt → projektplan)
	suffixes []string // head end: part tokens starting with partMark + a reversed stem
	optional bool     // a homograph or an option: it ranks sections but does not make them match
	// option: a command's option ("-m"): among a note's matching sections
	// it counts as the words do (the section on committing that writes
	// "git commit -m" before the one headed Commits)
	option bool
}

// weight of term t as this word (0: not this word).
func (m qmatcher) weight(t string) float64 {
	switch {
	case t == m.whole || slices.Contains(m.alt, t):
		return 1
	case t == m.noun && t != "":
		return nounBoost
	case slices.Contains(m.parts, t):
		return partBoost
	case m.prefix != "" && strings.HasPrefix(t, m.prefix):
		return 1
	}
	for i, st := range m.stems {
		if strings.HasPrefix(t, m.suffixes[i]) || strings.HasPrefix(t, st) {
			return partBoost
		}
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
			m := qmatcher{whole: w.Term, alt: w.Alt, noun: w.Noun, parts: c.parts, optional: c.optional && !pq.anyOf(), option: c.option}
			if w.partOK() && !c.wholeOnly {
				for _, st := range w.partStems() {
					m.stems = append(m.stems, st)
					m.suffixes = append(m.suffixes, partMark+string(reverseRunes([]byte(st))))
				}
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
// of its own does not beat its parent. An optional word (a homograph)
// counts coverOptional of that.
const (
	coverHeading  = 1.5
	coverText     = 1.0
	coverPath     = 0.9
	coverOptional = 0.5
	// coverPhrase is added for the query's words as a phrase, as typed.
	coverPhrase = 1.0
)

// phraseCount counts the places where the terms by position hold the
// phrase: its first word at some position p and every other word at p plus
// its distance from the first.
func phraseCount(at map[int][]string, phrase []qword) int {
	if len(at) < len(phrase) {
		return 0
	}
	n := 0
	for p, ts := range at {
		if !slices.ContainsFunc(phrase[0].terms(), func(t string) bool { return slices.Contains(ts, t) }) {
			continue
		}
		ok := true
		for _, w := range phrase[1:] {
			there := at[p+w.Pos-phrase[0].Pos]
			if !slices.ContainsFunc(w.terms(), func(t string) bool { return slices.Contains(there, t) }) {
				ok = false
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}

// maxSectionRead bounds what is read of one section for its snippet.
const maxSectionRead = 256 << 10

// locate finds the note's matching sections and cuts the snippets of
// sections from..from+n-1 of them.
//
// A section matches when it holds the most query words the note's
// sections hold: words in its own text or heading, or in the heading of a
// section it lies in, at least one of them in its own text or heading.
// Words that are in the note's title or aliases count for nothing here:
// they say the note is the right one, not which part of it (the title
// "Kanzlei Brandt" is no reason to show the introduction for "Exchange
// server Kanzlei Brandt"); nor do optional words (homographs), but for
// ranking. Matching sections are ranked by the words they cover (see
// coverHeading), each counted with its weight: 1 for the word itself,
// partBoost for a compound containing it. Ties go to the deepest section
// (the most specific one; the top heading often spans the whole note),
// then to the one with more occurrences, then to the first. When only
// title words match, the hit has one section: where the note's text
// starts. The snippet is the window of snippetLen bytes in the section
// holding the most distinct terms.
func (ix *Index) locate(hit *Hit, d *search.DocumentMatch, qm []qmatcher, phrase []qword, from, n int) {
	m := metaOf(hit.Version, fieldString(d, fMeta))
	hit.Embeds, hit.EmbedsKnown = m.embeds, m.embedsKnown
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
			spans = append(spans, span{start: int(l.Start) + m.bodyStart, end: int(l.End) + m.bodyStart, term: t, weight: w, pos: int(l.Pos)})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	// Section k is the text before the first heading (k = 0) or heading
	// k-1 with its own text. sectionOf maps a file offset to k.
	ns := len(hs) + 1
	sectionOf := m.sectionAt
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
	// Sections with the query's words as a phrase, in their text or
	// heading: by position, the terms there.
	var inPhrase []bool
	var textAt, headAt []map[int][]string
	if len(phrase) > 1 {
		inPhrase = make([]bool, ns)
		textAt, headAt = make([]map[int][]string, ns), make([]map[int][]string, ns)
		for _, s := range spans {
			k := sectionOf(s.start)
			if textAt[k] == nil {
				textAt[k] = map[int][]string{}
			}
			textAt[k][s.pos] = append(textAt[k][s.pos], s.term)
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
			if headAt != nil {
				if headAt[k] == nil {
					headAt[k] = map[int][]string{}
				}
				headAt[k][int(l.Pos)] = append(headAt[k][int(l.Pos)], t)
			}
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
		n := max(headingWords(hs[k-1].Text), len(pos))
		c := coverText + (coverHeading-coverText)*float64(len(pos))/float64(n)
		for w := range nw {
			own[k*nw+w] = max(own[k*nw+w], c*head[k*nw+w])
		}
	}
	for k := range inPhrase {
		c := phraseCount(textAt[k], phrase) + phraseCount(headAt[k], phrase)
		inPhrase[k] = c > 0
		if c > 0 {
			// How much of the section the phrase is: the score of a
			// phrase note (rank).
			lo, hi := m.bodyStart, int(m.size)
			if k > 0 {
				lo = hs[k-1].Start
			}
			if k < len(hs) {
				hi = hs[k].Start
			}
			hit.phrase = max(hit.phrase, math.Sqrt(float64(c))/math.Sqrt(float64(max(hi-lo, 1))))
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

	// Score the sections with a match of their own.
	type scored struct {
		k           int
		words, opt  int // required and optional words covered
		cover, freq float64
		depth       int
	}
	var secs []scored
	for k := range ns {
		if !has[k] {
			continue
		}
		s := scored{k: k}
		for w := range nw {
			if inTitle[w] {
				continue
			}
			c := max(own[k*nw+w], path[k*nw+w])
			if c == 0 {
				continue
			}
			if qm[w].optional {
				s.opt++
				c *= coverOptional
			} else {
				s.words++
			}
			s.cover += c
		}
		if s.cover == 0 {
			continue
		}
		if inPhrase != nil && inPhrase[k] {
			s.cover += coverPhrase
		}
		if k > 0 {
			s.depth = hs[k-1].Level
		}
		for t, n := range counts[k] {
			s.freq += termWeight(t) * (1 + 0.3*math.Log(float64(n)))
		}
		secs = append(secs, s)
	}
	// The matching sections: those with the most words.
	most, mostOpt := 0, 0
	for _, s := range secs {
		if s.words > most || s.words == most && s.opt > mostOpt {
			most, mostOpt = s.words, s.opt
		}
	}
	secs = slices.DeleteFunc(secs, func(s scored) bool { return s.words != most || s.opt != mostOpt })
	const eps = 1e-9
	sort.SliceStable(secs, func(i, j int) bool {
		a, b := secs[i], secs[j]
		if math.Abs(a.cover-b.cover) > eps {
			return a.cover > b.cover
		}
		if a.depth != b.depth {
			return a.depth > b.depth
		}
		if math.Abs(a.freq-b.freq) > eps {
			return a.freq > b.freq
		}
		return a.k < b.k
	})
	if len(secs) == 0 { // title or alias words only: the start of the note
		k := 0
		if len(hs) > 0 && hs[0].Start <= m.bodyStart {
			k = 1
		}
		secs = []scored{{k: k}}
	}
	hit.SectionsTotal = len(secs)
	hit.SectionsOffset = min(from, len(secs))
	shown := secs[hit.SectionsOffset:min(len(secs), hit.SectionsOffset+max(n, 0))]
	if len(shown) == 0 {
		return
	}

	ra, size, done := ix.openText(hit.Path, m.size)
	defer done()
	if int64(size) != m.size {
		spans = nil // changed since indexed: offsets are not to be trusted
	}
	for _, s := range shown {
		sh := SectionHit{}
		secStart, bodyStart, line := m.bodyStart, m.bodyStart, m.bodyLine
		secEnd := int(m.size)
		if s.k > 0 {
			h := hs[s.k-1]
			sh.Heading, sh.Ref = h.Path, h.RefOrPath()
			secStart, bodyStart, line = h.Start, h.BodyStart, h.Line
			if note.LongHeading(h.Text) {
				bodyStart = secStart // a paragraph: its words are the snippet's
			}
		}
		if s.k < len(hs) {
			secEnd = hs[s.k].Start
		}
		if ra != nil && size >= 0 {
			secStart, secEnd = min(max(secStart, 0), size), min(max(secEnd, 0), size, secStart+maxSectionRead)
			bodyStart = min(max(bodyStart, secStart), secEnd)
			buf := headBufs.get(max(secEnd-secStart, 0))
			nr, _ := ra.ReadAt(*buf, int64(secStart))
			src := (*buf)[:nr]
			lo := sort.Search(len(spans), func(i int) bool { return spans[i].start >= secStart })
			var in []span
			for _, sp := range spans[lo:] {
				if sp.start >= secStart+nr {
					break
				}
				if sp.end <= secStart+nr {
					in = append(in, sp)
				}
			}
			var ln int
			sh.Snippet, ln = snippet(src, secStart, bodyStart, in)
			sh.Line = line + ln
			headBufs.put(buf)
		}
		hit.Sections = append(hit.Sections, sh)
	}
	hit.Heading, hit.Line, hit.Snippet = hit.Sections[0].Heading, hit.Sections[0].Line, hit.Sections[0].Snippet
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

// cachedMeta returns the remembered heading table of a version.
func cachedMeta(version string) (meta, bool) {
	metas.Lock()
	defer metas.Unlock()
	m, ok := metas.m[version]
	return m, ok
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

// snippet cuts about snippetLen bytes of a section around the densest
// group of spans, marks them and collapses white space. src is the
// section's bytes from file offset base (its heading line, if any, ends at
// bodyStart); spans are in file offsets. It returns the snippet and the
// number of lines from base to where the snippet starts.
func snippet(src []byte, base, bodyStart int, spans []span) (string, int) {
	rel := make([]span, len(spans))
	for i, s := range spans {
		rel[i] = span{start: s.start - base, end: s.end - base, term: s.term, weight: s.weight}
	}
	secStart, secEnd := 0, len(src)
	// The heading line is not shown: the hit names the section (and its
	// matches there).
	body := min(max(bodyStart-base, 0), secEnd)
	spans = slices.DeleteFunc(rel, func(s span) bool { return s.start < body })
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
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
	for ws < we && isSpaceByte(src[ws]) {
		ws++ // the line the snippet starts on is that of its first word
	}
	var b strings.Builder
	if ws > body && len(bytes.TrimSpace(src[body:ws])) > 0 {
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
	return collapseSpace(b.String()), countByte(src[:ws], '\n')
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func runeStart(c byte) bool { return c&0xC0 != 0x80 }

func countByte(b []byte, c byte) int { return bytes.Count(b, []byte{c}) }

// collapseSpace turns every run of white space into one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
