package index

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Similar notes without a model: a more-like-this over the index's own
// term statistics.
//
// The source (a note, or one section of it with its sub-sections) is
// analyzed as the index analyzes every text (German and English stems,
// folded umlauts), and each of its words is weighed by how often the
// source has it and how rare it is across the vault's sections:
// (1 + ln tf) · idf. The similarWords weightiest words that some other
// section has, and the heads of its compounds that the vault knows as
// words (Kündigungsfrist → Frist, at half weight), become one query over
// the section documents: any of the words, the more the better (bleve's
// coordination factor). Sections rank notes as in search (best section,
// half the second, a quarter of the third); each hit names its most
// similar section and the source's words it shares.
//
// Words in more than a tenth of the sections (Gesetz, Absatz in the laws)
// say nothing about what a text is about and would make the query read
// most of the index; they are left out, and so are numbers.

// SimilarQuery asks for the notes most like one note or one section.
type SimilarQuery struct {
	Path string // the source note, a vault path
	// Section is 0 for the whole note, k ≥ 1 for the section of the
	// note's k-th heading (with its sub-sections).
	Section int
	Limit   int // hits per page; default 10, at most MaxLimit
	Offset  int // hits to skip (paging)
}

// SimilarResults is one page of notes like the source.
type SimilarResults struct {
	// Words are the source's words the notes were compared by, weightiest
	// first, as the source spells them; a compound's head that the
	// vault has as a word is written "-frist".
	Words []string
	Hits  []SimilarHit
	// Total is the number of notes with a similar section among the
	// similarScan most similar sections of the vault.
	Total         int
	Offset, Limit int
	Status        Status
	// MeaningCoverage says what search by meaning could not do (see
	// Results.MeaningCoverage); "" when it took part in full or is off.
	MeaningCoverage string
}

// SimilarHit is a note like the source, with its most similar sections.
type SimilarHit struct {
	Path    string
	Title   string
	Version string // full hex SHA-256
	Space   string
	Score   float64
	// Sections are the note's most similar sections, best first (at most
	// similarSections); only the first has a snippet.
	Sections []SectionHit
	// SectionsTotal counts the note's similar sections among those
	// compared.
	SectionsTotal int
	// Shared are the source's words that Sections[0] has, weightiest
	// first (as in Words).
	Shared []string
	// By says how the note was found when the index has an embedder:
	// ByWords, ByMeaning or ByBoth ("" without one).
	By string
}

// Bounds of a similar-notes search.
const (
	similarWords    = 25  // words in the query (Lucene's MoreLikeThis default)
	similarScan     = 300 // sections compared, as sectionScan
	similarSections = 3   // sections shown per hit
	// similarSource bounds the bytes of the source analyzed: the words of
	// a law's first 256 KB say what it is about.
	similarSource = 256 << 10
	// similarLookups bounds the source's words whose frequency is looked
	// up, the most frequent first.
	similarLookups = 600
	// similarCommon: words in more than this share of the sections are
	// left out.
	similarCommon = 0.1
	// headWeight is the weight of a compound's head against the compound.
	headWeight = 0.5
	// similarShared bounds the shared words a hit lists.
	similarShared = 8
)

// simWord is one word of the source query.
type simWord struct {
	term    string
	surface string
	weight  float64
	head    bool // a compound's head
}

// Similar returns the notes most like the note or section q names. Errors:
// a *QueryError (ErrBadQuery) when the note is not in the index or the
// section does not exist; ErrClosed; ctx errors. A source too short or too
// common to compare gives no hits and no words, not an error.
func (ix *Index) Similar(ctx context.Context, q SimilarQuery) (*SimilarResults, error) {
	if ix.closed.Load() {
		return nil, ErrClosed
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	offset := max(q.Offset, 0)
	out := &SimilarResults{Offset: offset, Limit: limit, Status: ix.Status()}

	src, err := ix.readNote(q.Path)
	if err != nil {
		return nil, err
	}
	d := FromNote(q.Path, src, time.Time{}, nil)
	text, secs, err := similarSourceText(d, shownText(src), q.Section)
	if err != nil {
		return nil, err
	}
	words := ix.sourceWords(text)
	for _, w := range words {
		out.Words = append(out.Words, w.surface)
	}
	var near []MeaningHit
	if m := ix.meaning; m != nil {
		out.MeaningCoverage = m.CoverageText()
		near = m.nearNote(q.Path, secs, q.Section, similarScanNear)
	}
	if len(words) == 0 && len(near) == 0 {
		return out, nil
	}
	secRes, noteRes := &bleve.SearchResult{}, (*bleve.SearchResult)(nil)
	if len(words) > 0 {
		if secRes, noteRes, err = ix.similarSearch(ctx, q, words, secs); err != nil {
			return nil, err
		}
	}
	type noteScore struct {
		secs  []int
		score [3]float64
	}
	byNote := map[string]*noteScore{}
	var bySec []ranked
	for _, h := range secRes.Hits {
		p, k, ok := splitSectionID(h.ID)
		if !ok {
			continue
		}
		ns := byNote[p]
		if ns == nil {
			ns = &noteScore{}
			byNote[p] = ns
			bySec = append(bySec, ranked{id: p})
		}
		if n := len(ns.secs); n < len(ns.score) {
			ns.score[n] = h.Score
		}
		ns.secs = append(ns.secs, k)
	}
	for i := range bySec {
		s := byNote[bySec[i].id].score
		bySec[i].score = s[0] + s[1]/2 + s[2]/4
	}
	sortRanked(bySec)
	order := bySec
	if noteRes != nil && len(bySec) > 0 && noteRes.MaxScore > 0 {
		// A note like a note is one whose whole text is alike, not only
		// one paragraph: each note scores by its sections and by its note
		// document, each as a share of the best (a note found by its text
		// as a whole but with no section among those compared has nothing
		// to show and is left out).
		doc := make(map[string]float64, len(noteRes.Hits))
		for _, h := range noteRes.Hits {
			doc[h.ID] = h.Score / noteRes.MaxScore
		}
		top := bySec[0].score
		for i := range order {
			order[i].score = order[i].score/top + doc[order[i].id]
		}
		sortRanked(order)
	}
	by := map[string]string{}
	if ix.meaning != nil {
		// With vectors: the word ranking fused with the notes nearest
		// by meaning (reciprocal rank fusion, as search does).
		byMeaning := make([]ranked, len(near))
		for i, h := range near {
			byMeaning[i] = ranked{h.Path, float64(h.Score)}
			by[h.Path] = ByMeaning
			if byNote[h.Path] == nil {
				byNote[h.Path] = &noteScore{secs: []int{h.Section}}
			}
		}
		for _, r := range order {
			if by[r.id] == ByMeaning {
				by[r.id] = ByBoth
			} else {
				by[r.id] = ByWords
			}
		}
		order = FuseRanks(order, byMeaning)
	}
	out.Total = len(order)
	if offset >= len(order) {
		return out, nil
	}
	page := order[offset:min(len(order), offset+limit)]
	ids := make([]string, len(page))
	for i, r := range page {
		ids[i] = r.id
	}
	fields, err := ix.noteFields(ctx, ids)
	if err != nil {
		return nil, err
	}
	qm := make([]qmatcher, len(words))
	for i, w := range words {
		qm[i] = qmatcher{whole: w.term}
	}
	for _, r := range page {
		dm := fields[r.id]
		if dm == nil {
			continue // removed since the search
		}
		ns := byNote[r.id]
		version := fieldString(dm, fVersion)
		m := metaOf(version, fieldString(dm, fMeta))
		h := SimilarHit{Path: r.id, Title: fieldString(dm, fTitle), Version: version, Space: fieldString(dm, fSpace),
			Score: r.score, SectionsTotal: len(ns.secs), By: by[r.id]}
		f := ix.openNote(r.id, m)
		for i, k := range ns.secs[:min(len(ns.secs), similarSections)] {
			h.Sections = append(h.Sections, f.section(m, k, qm, i == 0, false))
		}
		h.Shared = sharedWords(f, m, ns.secs[0], words)
		if h.By == ByMeaning && h.Sections[0].Snippet == "" {
			h.Sections[0].Snippet = firstWords(f, m, ns.secs[0])
		}
		if f != nil {
			f.close()
		}
		out.Hits = append(out.Hits, h)
	}
	return out, nil
}

// readNote reads a note's bytes through the vault. A note the vault does
// not have is a *QueryError.
func (ix *Index) readNote(p string) ([]byte, error) {
	f, err := ix.v.FS().Open(p)
	if err != nil {
		return nil, &QueryError{Query: p, Msg: fmt.Sprintf("the note %q cannot be read", p)}
	}
	defer f.Close()
	return io.ReadAll(f)
}

// similarSourceText returns the text of the source and its section
// numbers: for the whole note its title and body, for section k its text
// up to the next heading of the same or a higher level (sections k…).
func similarSourceText(d *Document, src []byte, k int) (string, []int, error) {
	if k == 0 {
		body := d.Body[:min(len(d.Body), similarSource)]
		return d.Title + "\n" + body, nil, nil
	}
	if k < 1 || k > len(d.Headings) {
		return "", nil, &QueryError{Query: d.Path, Msg: fmt.Sprintf("the note %q has no section %d; it has %d headings", d.Path, k, len(d.Headings))}
	}
	h := d.Headings[k-1]
	end, secs := len(src), []int{k}
	for j := k; j < len(d.Headings); j++ {
		if d.Headings[j].Level <= h.Level {
			end = d.Headings[j].Start
			break
		}
		secs = append(secs, j+1)
	}
	start := min(max(h.Start, 0), len(src))
	end = min(max(end, start), start+similarSource)
	return string(src[start:end]), secs, nil
}

// sourceWords returns the weightiest words of text that other sections
// have, with the heads of its compounds, weightiest first.
func (ix *Index) sourceWords(text string) []simWord {
	type count struct {
		tf       int
		spelling map[string]int
		first    string
	}
	counts := map[string]*count{}
	var terms []string
	b := []byte(text)
	for _, t := range queryAnalyzer.Analyze(slices.Clone(b)) {
		if isPartToken(t) || isDateToken(t) || !hasLetter(t.Term) || utf8.RuneCount(t.Term) < 3 {
			continue
		}
		if everyday[strings.ToLower(string(b[t.Start:t.End]))] {
			continue
		}
		key := string(t.Term)
		c := counts[key]
		if c == nil {
			c = &count{spelling: map[string]int{}}
			counts[key] = c
			terms = append(terms, key)
		}
		c.tf++
		s := string(b[t.Start:t.End])
		if c.first == "" {
			c.first = s
		}
		c.spelling[s]++
	}
	sort.SliceStable(terms, func(i, j int) bool { return counts[terms[i]].tf > counts[terms[j]].tf })
	terms = terms[:min(len(terms), similarLookups)]
	n := ix.docCount()
	var ws []simWord
	for _, t := range terms {
		df := ix.docFreq(fSecBody, t) + ix.docFreq(fSecHead, t)
		if df < 2 || float64(df) > similarCommon*float64(n) && n > 50 {
			continue
		}
		c := counts[t]
		surface := c.first
		for s, k := range c.spelling {
			if k > c.spelling[surface] || k == c.spelling[surface] && s < surface && s != c.first {
				surface = s
			}
		}
		ws = append(ws, simWord{term: t, surface: surface, weight: (1 + math.Log(float64(c.tf))) * idf(df, n)})
	}
	sort.SliceStable(ws, func(i, j int) bool {
		if ws[i].weight != ws[j].weight {
			return ws[i].weight > ws[j].weight
		}
		return ws[i].term < ws[j].term
	})
	ws = ws[:min(len(ws), similarWords)]
	have := map[string]bool{}
	for _, w := range ws {
		have[w.term] = true
	}
	for _, w := range slices.Clone(ws) {
		head, t := ix.compoundHead(w.surface)
		if t == "" || have[t] {
			continue
		}
		have[t] = true
		ws = append(ws, simWord{term: t, surface: "-" + head, weight: w.weight * headWeight, head: true})
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].weight > ws[j].weight })
	return ws
}

// compoundHead returns the longest head of a German compound that the
// vault has as a word (Kündigungsfrist → frist), and its term; "" if none.
func (ix *Index) compoundHead(word string) (string, string) {
	if r, _ := utf8.DecodeRuneInString(word); !unicode.IsUpper(r) {
		return "", "" // German compounds worth splitting are nouns
	}
	ws := analyzeQuery(word)
	if len(ws) != 1 || !ws[0].partOK() {
		return "", ""
	}
	r := []rune(ws[0].Folded)
	if len(r) < minCompound {
		return "", ""
	}
	lower := []rune(strings.ToLower(word)) // the head as spelled, when folding kept the letters
	for at := minPartQuery; at <= len(r)-minPartQuery; at++ {
		head := string(r[at:])
		t := ix.knownWord(head)
		if t == "" || t == ws[0].Term || !ix.knownModifier(string(r[:at])) {
			continue
		}
		{
			if len(lower) == len(r) {
				head = string(lower[at:])
			}
			return head, t
		}
	}
	return "", ""
}

// sharedWords returns the words of ws that section k of the note has,
// weightiest first (at most similarShared).
func sharedWords(f *noteFile, m meta, k int, ws []simWord) []string {
	if f == nil || !f.ok {
		return nil
	}
	src, _, _, _ := f.read(m, k, snippetWindows*snippetWindow)
	in := map[string]bool{}
	for _, t := range snippetTokens(src, false) {
		in[t.term] = true
	}
	var out []string
	for _, w := range ws {
		if in[w.term] && len(out) < similarShared {
			out = append(out, w.surface)
		}
	}
	return out
}

func hasLetter(b []byte) bool {
	return strings.IndexFunc(string(b), unicode.IsLetter) >= 0
}

// similarSearch runs the source's words over the section documents (all
// but the source's own sections) and, for a whole note, over the note
// documents (all but the note).
func (ix *Index) similarSearch(ctx context.Context, q SimilarQuery, words []simWord, secs []int) (*bleve.SearchResult, *bleve.SearchResult, error) {
	run := func(fields []boostedField, not query.Query) (*bleve.SearchResult, error) {
		groups := make([]query.Query, 0, len(words))
		for _, w := range words {
			fq := make([]query.Query, len(fields))
			for i, f := range fields {
				fq[i] = term(f.name, w.term, f.boost*w.weight)
			}
			groups = append(groups, disjunction(fq))
		}
		bq := query.NewBooleanQuery([]query.Query{query.NewDisjunctionQuery(groups)}, nil, []query.Query{not})
		return ix.bi.SearchInContext(ctx, bleve.NewSearchRequestOptions(bq, similarScan, 0, false))
	}
	if q.Section > 0 {
		ids := make([]string, len(secs))
		for i, k := range secs {
			ids[i] = sectionID(q.Path, k)
		}
		res, err := run(similarSecFields, query.NewDocIDQuery(ids))
		return res, nil, err
	}
	res, err := run(similarSecFields, term(fSecNote, q.Path, 1))
	if err != nil {
		return nil, nil, err
	}
	notes, err := run(similarNoteFields, query.NewDocIDQuery([]string{q.Path}))
	return res, notes, err
}

// The fields the source's words are looked for in: a section's heading
// counts twice its text, a note's title and headings as in search.
var (
	similarSecFields  = []boostedField{{fSecBody, 1}, {fSecHead, 2}}
	similarNoteFields = []boostedField{{fBody, boostBody}, {fHeadings, boostHeadings}, {fTitle, boostTitle}}
)

// rrfK is the constant of reciprocal rank fusion (Cormack et al. 2009:
// 60 worked best across their runs, and it is what others use).
const rrfK = 60

// FuseRanks merges rankings by reciprocal rank fusion: an item scores
// Σ 1/(rrfK + rank) over the rankings it is in (rank from 1), so that one
// ranked high in either, or fairly high in both, comes first. Scores are
// not compared across rankings, only ranks. Ties go by id.
func FuseRanks(rankings ...[]ranked) []ranked {
	score := map[string]float64{}
	var ids []string
	for _, r := range rankings {
		for i, x := range r {
			if _, ok := score[x.id]; !ok {
				ids = append(ids, x.id)
			}
			score[x.id] += 1 / float64(rrfK+i+1)
		}
	}
	out := make([]ranked, len(ids))
	for i, id := range ids {
		out[i] = ranked{id, score[id]}
	}
	sortRanked(out)
	return out
}

// knownModifier reports whether the front of a compound, with or without a
// linking s, es, n, en or e, is a word the vault has (as decompound asks):
// a head alone would split words that are no compounds (Bauträger is, but
// reservieren is not).
func (ix *Index) knownModifier(mod string) bool {
	for _, cut := range []string{"", "s", "es", "n", "en", "e"} {
		if m, ok := strings.CutSuffix(mod, cut); ok && utf8.RuneCountInString(m) >= 3 && ix.knownWord(m) != "" {
			return true
		}
	}
	return false
}

// everyday are words that say nothing about what a note is about but are
// not in the stop word lists the index uses (Snowball's German list has
// "bei" and "werden", not "beim" and "wurde"): in a small vault, where no
// word is common enough to be left out by similarCommon, they were among
// the compared words ("wurde", "beim", "möchte" on example-vault). They
// are left out of the words a note is compared by only; the index and
// search keep them.
var everyday = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		beim bzw ca usw etc ggf evtl sowie sowohl jedoch dass ab je pro statt anstatt außer
		wurde wurden worden geworden wäre wären hätte hätten sei seien gibt gab geben gilt
		darf dürfen dürfte muss müssen müsste musste mussten kann konnte konnten könnte
		soll sollen möchte möchten mag bleibt bleiben geht gehen ging kommt kommen kam
		macht machen gemacht lässt lassen steht stehen stand sagt sagen gesagt
		immer schon mehr dabei daher bereits ebenfalls dazu davon darauf darin daran dafür
		dagegen danach deshalb trotzdem eher fast genau gerade kaum meist meiste meisten
		meistens oft sogar vielleicht wohl eigentlich einfach ja nein nie mal bitte ganz
		ganze ganzen gut gute guten besser beste besten bestes neu neue neuen neuer neues
		erst erste ersten später spätestens mindestens höchstens direkt wirklich
		eins zwei drei vier fünf sechs sieben acht neun zehn
		also just like get got use used using one two three new may might must shall
		can could would make made see way well much many really
	`) {
		m[w] = true
	}
	return m
}()
