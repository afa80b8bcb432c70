package index

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	vregexp "github.com/blevesearch/vellum/regexp"
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
	// NotFolders leaves out the notes in these folders and below them
	// (Obsidian's "Excluded files"), case-insensitive.
	NotFolders []string
	// NotPaths leaves out the notes whose whole vault path matches one
	// of these regular expressions (the syntax PathPatternOK accepts).
	NotPaths []string
	// Properties: only notes whose frontmatter property (key) has the value
	// (or, for a list, contains it), case-insensitive: {"status": "aktiv"}.
	Properties map[string]string
	// Path, if set, searches this one note (a vault path): the page is its
	// matching sections, best first, and Limit and Offset count sections.
	Path   string
	Limit  int // hits per page; default 10, at most 100
	Offset int // hits to skip (paging)
	// Sections bounds the sections a hit shows (default 3, at most 10);
	// with Path, Limit does.
	Sections int
	// By asks for one kind of match when the index searches by meaning
	// too (Options.Embedder): ByWords or ByMeaning; "" fuses both.
	By string
	// Some asks, for a search by words of two words or more, that a page
	// the notes with every word do not fill continue with notes that have
	// some of them (Results.Some, Hit.Some): at most someAfterAll after
	// the last note with every word, a whole page after that. A fused
	// search (By "") ranks by meaning instead.
	Some bool
}

// DefaultLimit and MaxLimit bound Query.Limit; DefaultSections and
// MaxSections bound Query.Sections.
const (
	DefaultLimit    = 10
	MaxLimit        = 100
	DefaultSections = 3
	MaxSections     = 10
)

// Results is one page of search hits.
type Results struct {
	Hits   []Hit
	Total  int // notes matching (all pages)
	Offset int // of the first hit (with Query.Path: of the first section)
	Limit  int // page size used
	// Relaxed is set when no note contained all words and the hits are
	// notes containing some of them.
	Relaxed bool
	// Some counts the notes with some of the words but not all, which
	// follow the Total notes with every word when Query.Some asks for
	// them: a page with room after those continues with the best of these
	// (Hit.Some), and paging goes on through them. 0 when the page ends
	// within the notes with every word, or there are none.
	Some int
	// Ignored lists query words left out because they are too common to
	// be indexed (stop words such as "die", "the").
	Ignored []string
	// Optional lists query words that are also common words (Würde and
	// würde, see homographs): they ranked the hits but were not required,
	// because the query has other words.
	Optional []string
	// Options lists the commands' options of the query ("-r", "--all"):
	// they ranked the hits but were not required, because the query has
	// words besides them.
	Options []string
	// TagsAsWords lists the #tags of the query that no note has: they
	// ranked the hits as words but were not required (hashTagsAsWords).
	TagsAsWords []string
	// WholeWordsOnly lists query words searched without their compounds
	// and longer forms: with them the query would read too much of the
	// index (partBudget). They are words of most notes, so whole words
	// find nearly the same notes.
	WholeWordsOnly []string
	// Prefixes says, for each prefix* that stands for more words than a
	// search expands to (maxExpand, the most frequent), how many it
	// stood for: one sentence each.
	Prefixes []string
	// Suggestions are, for query words that occur in no note, words of the
	// vault spelled alike.
	Suggestions []Suggestion
	// Status is the index's state when the search ran; Status.Building
	// means hits may be missing (say so: Status.Text()).
	Status Status
	// MeaningCoverage is the state of search by meaning while it is
	// incomplete or not available (MeaningStatus.Text; "" when complete
	// or off); MeaningProblem why this query could not be searched by
	// meaning (its hits are by words).
	MeaningCoverage, MeaningProblem string
}

// Suggestion offers, for a query word no note has, the vault's words that
// are spelled alike ("did you mean").
type Suggestion struct {
	Word  string   // as typed
	Words []string // the vault's words, closest first (at most 3)
	// Query is the query text with Word replaced by Words[0]; searching
	// it finds notes (it was tried).
	Query string
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
	if len(r.Optional) > 0 {
		out = append(out, "counted for ranking only (also a common word): "+strings.Join(r.Optional, ", "))
	}
	if len(r.Options) > 0 {
		out = append(out, "counted for ranking only (a command's option): "+strings.Join(r.Options, ", "))
	}
	if len(r.TagsAsWords) > 0 {
		out = append(out, tagsAsWordsText(r.TagsAsWords))
	}
	if len(r.WholeWordsOnly) > 0 {
		out = append(out, wholeOnlyText(r.WholeWordsOnly))
	}
	out = append(out, r.Prefixes...)
	for _, s := range r.Suggestions {
		out = append(out, fmt.Sprintf("no note has %q; the vault has %s", s.Word, strings.Join(s.Words, ", ")))
	}
	return out
}

// Hit is one matching note and the sections of it that match best.
type Hit struct {
	Path    string // vault-relative
	Title   string
	Version string // full hex SHA-256 of the indexed content
	Space   string
	// Score is the note's relevance: never below the score of a hit after
	// it on the page with as many of the words (Some), so that the pages
	// of several indexes merge by it.
	Score float64
	// Sections are the note's matching sections on this page, best first:
	// those holding the most query words, in their own text or heading
	// or in the heading of a section they lie in (title words count for
	// nothing: they say the note is the right one, not which part of it).
	// When only the title matches, the one section is where the note's
	// text starts.
	Sections []SectionHit
	// SectionsTotal is the number of the note's matching sections (all
	// pages); SectionsOffset is the index of Sections[0] among them (with
	// Query.Path, the page's offset; else 0).
	SectionsTotal, SectionsOffset int
	// Heading, Line and Snippet are those of Sections[0]: the section
	// holding the best match.
	Heading string
	Line    int
	Snippet string

	// By says what found the hit when words and meaning are fused
	// (SearchFused): ByWords, ByMeaning or ByBoth; "" for a word search.
	By string
	// Some is set for a note with some of the words but not all, shown
	// after the notes with every word (Results.Some).
	Some bool
	// Embeds are the targets of the note's embeds that may lead to an
	// attachment, as written (vault.EmbeddedTargets resolves them), when
	// EmbedsKnown: the index keeps them since this version of vaultd.
	Embeds      []string
	EmbedsKnown bool

	phrase float64 // see locate
}

// SectionHit is one section of a hit.
type SectionHit struct {
	// Heading is the section's heading path, "Projekte > Ziele"; "" for
	// the text before the first heading.
	Heading string
	// Ref names the heading alone, as read_note's heading argument takes
	// it: the heading's own text when no other heading of the note has it
	// ("§ 833 Haftung des Tierhalters"), else Heading or a longer form.
	Ref     string
	Line    int    // 1-based line where the snippet starts (0 if no snippet)
	Snippet string // a short excerpt; matched words are marked «like this»
}

// Snippet marks.
const (
	MarkStart = "«"
	MarkEnd   = "»"
)

// searchWords runs a query by words (Search adds meaning). Errors: *QueryError (ErrBadQuery) when the text
// cannot be understood — its message is written for the one who typed the
// query; ErrClosed; ctx errors. An empty result is not an error.
//
// How notes are found and ranked: the note documents decide which notes
// match (all words somewhere in the note, the filters, -words, phrases)
// and how many. When the query's words are specific enough that its
// sections can be ranked across the vault cheaply (sectionQuery), the notes
// come in the order of their best section, so that the paragraph of a long
// law that answers a question is not buried by the law's length; matching
// notes without such a section follow in the note documents' order. For
// frequent words the note documents' order is used alone. Each hit then
// shows its best sections (locate).
func (ix *Index) searchWords(ctx context.Context, q Query) (*Results, error) {
	return ix.searchQuery(ctx, q, true)
}

// buildQuery parses q's text and adds its filters and exclusions.
// Errors: *QueryError.
func buildQuery(q Query) (*parsedQuery, error) {
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
	for _, f := range q.NotFolders {
		if f = strings.Trim(strings.TrimSpace(f), "/"); f != "" {
			pq.notFolders = append(pq.notFolders, f)
		}
	}
	for _, re := range q.NotPaths {
		if !PathPatternOK(re) {
			return nil, &QueryError{Query: q.Text, Msg: fmt.Sprintf("the path pattern %q cannot be used", re)}
		}
		pq.notPaths = append(pq.notPaths, re)
	}
	if s := strings.Trim(strings.TrimSpace(q.Path), "/"); s != "" {
		pq.paths = append(pq.paths, s)
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
	return pq, nil
}

func (ix *Index) searchQuery(ctx context.Context, q Query, suggest bool) (*Results, error) {
	if ix.closed.Load() {
		return nil, ErrClosed
	}
	pq, err := buildQuery(q)
	if err != nil {
		return nil, err
	}
	ix.typedPropsAsWords(pq)
	ix.hashTagsAsWords(pq)
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
	perHit := q.Sections
	if perHit <= 0 {
		perHit = DefaultSections
	}
	perHit = min(perHit, MaxSections)
	inNote := len(pq.paths) > 0

	out := &Results{Offset: offset, Limit: limit, Ignored: pq.ignored, Optional: pq.optionalWords(), Options: pq.options(true), TagsAsWords: pq.tagsAsWords, Status: ix.Status()}
	ix.decompound(pq, false)
	ix.boundParts(pq)
	out.WholeWordsOnly = pq.wholeOnly
	positive, err := ix.positiveQuery(pq, pq.any)
	if err != nil {
		return nil, err
	}
	out.Prefixes = ix.prefixBounds(pq)
	boost := ix.boostQuery(pq)
	want := offset + limit // notes needed, from the first
	if inNote {
		want = 1
	}
	res, err := ix.search(ctx, pq, positive, boost, want, nil)
	if err != nil {
		return nil, err
	}
	if res.Total == 0 && !pq.any && len(pq.required()) > 1 {
		// No note has all words: any will do, and compounds that notes
		// have may match by their parts too ("Designentwurf gewählt"
		// finds the note on "Entwurf B").
		if positive, res, err = ix.searchSome(ctx, pq, boost, want); err != nil {
			return nil, err
		}
		out.Relaxed = res.Total > 0
	}
	out.Total = int(res.Total)
	if suggest {
		out.Suggestions = ix.suggest(ctx, q, pq)
	}
	if len(res.Hits) == 0 {
		return out, nil
	}
	if inNote {
		hits, err := ix.details(ctx, []string{res.Hits[0].ID}, pq, positive, boost, offset, limit, limit)
		if err != nil {
			return nil, err
		}
		out.Hits = hits
		return out, nil
	}
	order, done, err := ix.rank(ctx, pq, res, positive, boost, want, perHit)
	if err != nil {
		return nil, err
	}
	if order, err = ix.namedFirst(ctx, pq, withoutOptions(q.Text, pq.options(false)), positive, order); err != nil {
		return nil, err
	}
	if offset < len(order) {
		if out.Hits, err = ix.pageHits(ctx, pq, positive, boost, order[offset:min(len(order), offset+limit)], done, perHit); err != nil {
			return nil, err
		}
	}
	if q.Some && !pq.relaxed && !pq.any && len(pq.required()) > 1 && out.Total < want && int(res.Total) == len(res.Hits) {
		// Every note with all the words is in res (fewer than the page
		// asks for): the page goes on with notes that have some of
		// them. "sync notes between phone and computer" has 3 notes with
		// every word on the Obsidian help; "Sync your notes across
		// devices", with neither phone nor computer, is the best of the
		// 147 with some.
		all := make(map[string]bool, len(res.Hits))
		for _, h := range res.Hits {
			all[h.ID] = true
		}
		var sres *bleve.SearchResult
		if positive, sres, err = ix.searchSome(ctx, pq, boost, want); err != nil {
			return nil, err
		}
		if out.Some = int(sres.Total) - out.Total; out.Some <= 0 {
			out.Some = 0
			return out, nil
		}
		// After notes with every word, a few of these, each with its best
		// section: they are there in case those were not the ones meant,
		// and the next page has more.
		n, per := limit-len(out.Hits), perHit
		if len(out.Hits) > 0 {
			n, per = min(n, someAfterAll), 1
		}
		sorder, sdone, err := ix.rank(ctx, pq, sres, positive, boost, want, per)
		if err != nil {
			return nil, err
		}
		sorder = slices.DeleteFunc(sorder, func(r ranked) bool { return all[r.id] })
		if from := max(0, offset-out.Total); from < len(sorder) {
			hits, err := ix.pageHits(ctx, pq, positive, boost, sorder[from:min(len(sorder), from+n)], sdone, per)
			if err != nil {
				return nil, err
			}
			for _, h := range hits {
				h.Some = true
				out.Hits = append(out.Hits, h)
			}
		}
	}
	return out, nil
}

// searchSome relaxes pq to any of its words (with the compounds' parts)
// and searches the notes again: the positive query and the first size
// notes.
func (ix *Index) searchSome(ctx context.Context, pq *parsedQuery, boost query.Query, size int) (query.Query, *bleve.SearchResult, error) {
	ix.decompound(pq, true)
	pq.relaxed = true
	positive, err := ix.positiveQuery(pq, true)
	if err != nil {
		return nil, nil, err
	}
	res, err := ix.search(ctx, pq, positive, boost, size, nil)
	if err != nil {
		return nil, nil, err
	}
	return positive, res, nil
}

// someAfterAll is how many notes with some of the words a page shows after
// the last note with every word (Query.Some).
const someAfterAll = 3

// pageHits returns the hits of page, in its order, with their sections:
// those in done were computed on the way (rank), the others are now.
func (ix *Index) pageHits(ctx context.Context, pq *parsedQuery, positive, boost query.Query, page []ranked, done map[string]Hit, perHit int) ([]Hit, error) {
	var ids []string
	for _, r := range page {
		if _, ok := done[r.id]; !ok {
			ids = append(ids, r.id)
		}
	}
	if len(ids) > 0 {
		hits, err := ix.details(ctx, ids, pq, positive, boost, 0, perHit, 1)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			done[h.Path] = h
		}
	}
	out := make([]Hit, 0, len(page))
	for _, r := range page {
		h := done[r.id]
		h.Score = r.score
		out = append(out, h)
	}
	// A note placed before another (as a phrase, by its name) scores at
	// least as high: Score then ranks the hits as the page does, and the
	// pages of several indexes merge by it (Hit.Score).
	for i := len(out) - 2; i >= 0; i-- {
		if out[i].Some == out[i+1].Some && out[i].Score < out[i+1].Score {
			out[i].Score = out[i+1].Score
		}
	}
	return out, nil
}

// namedFirst puts first the notes the query names (a title, an alias, the
// file or folder name is the query's text but for case and punctuation,
// vault.NameTable.Named) and that match it: a search for a note's title
// finds the note before the notes that mention or link to it ("Grundlegende
// Formatierungssyntax" listed ten notes linking to the note of that name,
// not the note). Several named notes keep the order the ranking gave them.
func (ix *Index) namedFirst(ctx context.Context, pq *parsedQuery, text string, positive query.Query, order []ranked) ([]ranked, error) {
	t := ix.nameTable()
	named := t.Named(text)
	if len(named) == 0 || positive == nil {
		return order, nil
	}
	res, err := ix.search(ctx, pq, positive, nil, len(named), query.NewDocIDQuery(named))
	if err != nil {
		return nil, err
	}
	match := make(map[string]bool, len(res.Hits))
	score := make(map[string]float64, len(res.Hits))
	for _, h := range res.Hits {
		match[h.ID], score[h.ID] = true, h.Score
	}
	if pq.onlyOptions() {
		// The name was left out as a common word ("du -v", "which
		// -a"), its options alone searched for: the named note is the
		// answer whether it writes them or not — where the filters and
		// exclusions let it be.
		all, err := ix.search(ctx, pq, nil, nil, len(named), query.NewDocIDQuery(named))
		if err != nil {
			return nil, err
		}
		for _, h := range all.Hits {
			match[h.ID] = true
		}
	}
	if len(match) == 0 {
		return order, nil
	}
	out := make([]ranked, 0, len(order)+len(match))
	for _, r := range order {
		if match[r.id] {
			out = append(out, r)
			delete(match, r.id)
		}
	}
	for _, p := range named { // matching, but not among the notes ranked
		if match[p] {
			out = append(out, ranked{id: p, score: score[p]})
		}
	}
	// Those named exactly (but for case and spacing) first: "clang"
	// names clang and clang++, and the page on clang++ ranked higher.
	exact := make(map[string]bool, len(out))
	for _, r := range out {
		exact[r.id] = t.NamedExactly(r.id, text)
	}
	slices.SortStableFunc(out, func(a, b ranked) int {
		switch {
		case exact[a.id] == exact[b.id]:
			return 0
		case exact[a.id]:
			return -1
		}
		return 1
	})
	first := len(out)
	for _, r := range order {
		if !slices.ContainsFunc(out[:first], func(x ranked) bool { return x.id == r.id }) {
			out = append(out, r)
		}
	}
	return out, nil
}

// withoutOptions is text without the commands' options it holds: "grep
// -r" names the note grep, "git commit -m" the note git commit.
func withoutOptions(text string, options []string) string {
	if len(options) == 0 {
		return text
	}
	words := strings.Fields(text)
	return strings.Join(slices.DeleteFunc(words, func(w string) bool { return slices.Contains(options, w) }), " ")
}

// ranked is a note in the order of a page.
type ranked struct {
	id    string
	score float64
}

// sortRanked sorts by score, best first, and equal scores by path: bleve
// breaks ties by its internal document numbers, which differ from build
// to build.
func sortRanked(rs []ranked) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].score != rs[j].score {
			return rs[i].score > rs[j].score
		}
		return rs[i].id < rs[j].id
	})
}

// sectionScan is how many of the best sections rank the notes (when the
// words are specific enough); sectionBudget bounds the postings that
// ranking may read, as counted in the term dictionaries: a search for
// Kündigung over the 139,000 sections of the laws reads about 4,000 of them
// and takes 2 ms; one for Gesetz would read 57,000 and take 20 ms, while
// the note documents rank it in a few.
const (
	sectionScan = 300
	// phraseNotes bounds the notes with the words as a phrase that go
	// first.
	phraseNotes = 20
)

// sectionBudget: see sectionScan (a variable for tests).
var sectionBudget uint64 = 20000

// rank orders the matching notes for the first want positions: first
// the notes that have the words as typed, as a phrase ("Haftung des
// Tierhalters"); then by their best sections when sectionQuery can rank
// the sections; then the rest of res (the note documents' order).
//
// Notes whose hits rank computed on the way (with perHit sections) are
// returned in done.
func (ix *Index) rank(ctx context.Context, pq *parsedQuery, res *bleve.SearchResult, positive, boost query.Query, want, perHit int) ([]ranked, map[string]Hit, error) {
	done := map[string]Hit{}
	var order []ranked
	in := map[string]bool{}
	add := func(rs ...ranked) {
		for _, r := range rs {
			if !in[r.id] {
				in[r.id] = true
				order = append(order, r)
			}
		}
	}
	var cands []ranked // by their best sections
	if positive != nil {
		var err error
		if cands, err = ix.bySections(ctx, pq, positive, want); err != nil {
			return nil, nil, err
		}
	}
	if ph := phraseQuery(pq); ph != nil && positive != nil && !pq.relaxed && ix.phraseCheap(pq) {
		// The phrase holds every word, so it needs no positive query;
		// the filters and exclusions apply.
		pres, err := ix.search(ctx, pq, ph, nil, phraseNotes, nil)
		if err != nil {
			return nil, nil, err
		}
		// By how much of a section the phrase makes up: "Die Würde des
		// Menschen ist unantastbar." is the phrase's section more than a
		// page that mentions it.
		ids := make([]string, len(pres.Hits))
		scores := make(map[string]float64, len(pres.Hits))
		for i, h := range pres.Hits {
			ids[i], scores[h.ID] = h.ID, h.Score
		}
		hits, err := ix.details(ctx, ids, pq, positive, boost, 0, perHit, 1)
		if err != nil {
			return nil, nil, err
		}
		for i := range hits {
			hits[i].Score = scores[hits[i].Path]
		}
		sort.SliceStable(hits, func(i, j int) bool {
			if hits[i].phrase != hits[j].phrase {
				return hits[i].phrase > hits[j].phrase
			}
			return hits[i].Path < hits[j].Path
		})
		for _, h := range hits {
			add(ranked{h.Path, h.Score})
			done[h.Path] = h
		}
	}
	add(cands...)
	byNotes := func(res *bleve.SearchResult) {
		rs := make([]ranked, len(res.Hits))
		for i, h := range res.Hits {
			rs[i] = ranked{h.ID, h.Score}
		}
		sortRanked(rs)
		add(rs...)
	}
	byNotes(res)
	if len(order) < want && int(res.Total) > len(res.Hits) {
		// The notes already placed took some of the positions the note
		// documents' order was asked for.
		res2, err := ix.search(ctx, pq, positive, boost, want+len(order), nil)
		if err != nil {
			return nil, nil, err
		}
		byNotes(res2)
	}
	return order, done, nil
}

// bySections returns matching notes in the order of their best sections
// (nil when sectionQuery cannot rank them cheaply).
func (ix *Index) bySections(ctx context.Context, pq *parsedQuery, positive query.Query, want int) ([]ranked, error) {
	sq := ix.sectionQuery(pq)
	if sq == nil {
		return nil, nil
	}
	req := bleve.NewSearchRequestOptions(sq, sectionScan, 0, false)
	sres, err := ix.bi.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	// A note scores as its best section, plus half its second and a
	// quarter of its third (a note on the subject mentions it in several
	// places), plus its note document (which matches by title and
	// aliases).
	type noteScore struct {
		secs [3]float64 // best first
		doc  float64
	}
	byNote := map[string]*noteScore{}
	var cands []ranked
	for _, h := range sres.Hits {
		p, _, isSection := splitSectionID(h.ID)
		sc := byNote[p]
		if sc == nil {
			sc = &noteScore{}
			byNote[p] = sc
			cands = append(cands, ranked{id: p})
		}
		if !isSection {
			sc.doc = h.Score
			continue
		}
		for i := range sc.secs { // hits come best first
			if sc.secs[i] == h.Score {
				// The same score: a repeat of a section already
				// counted (a law's annex repeats a contract's
				// "Urlaub" section for each trade), not another
				// place that mentions the words.
				break
			}
			if sc.secs[i] == 0 {
				sc.secs[i] = h.Score
				break
			}
		}
	}
	for i := range cands {
		sc := byNote[cands[i].id]
		cands[i].score = sc.secs[0] + sc.secs[1]/4 + sc.secs[2]/8 + sc.doc
	}
	if pq.relaxed {
		if err := ix.coordinate(ctx, pq, cands); err != nil {
			return nil, err
		}
	}
	sortRanked(cands)
	cands = cands[:min(len(cands), 2*want+10)]
	if pq.needsMembership() && len(cands) > 0 {
		// Keep the notes that match as a whole: all words, the filters.
		// (A note with a word only in a compound may be dropped here; it
		// keeps its place in the note documents' order.)
		ids := make([]string, len(cands))
		for i, c := range cands {
			ids[i] = c.id
		}
		member := positive
		if w := ix.wholeQuery(pq); w != nil {
			member = w
		}
		mres, err := ix.search(ctx, pq, member, nil, len(ids), query.NewDocIDQuery(ids))
		if err != nil {
			return nil, err
		}
		in := make(map[string]bool, len(mres.Hits))
		for _, h := range mres.Hits {
			in[h.ID] = true
		}
		cands = slices.DeleteFunc(cands, func(r ranked) bool { return !in[r.id] })
	}
	return cands, nil
}

// coordinate weighs the notes of a search with some of the words by how
// many of them each note holds, in any of its sections or its title: a
// note's score adds up documents (its sections, its title) that bleve
// coordinates one by one, so a note titled with one word of the question
// ("docker logs") outranked the page that holds five of its six words in
// one section (journalctl for "delete journal logs older than two days").
// The share is squared: by the share alone, "git log" (three of the six
// words, one in its title) still came first and journalctl fifth.
func (ix *Index) coordinate(ctx context.Context, pq *parsedQuery, cands []ranked) error {
	cs := pq.required()
	if len(cs) < 2 || len(cands) == 0 {
		return nil
	}
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.id
	}
	only := query.NewDocIDQuery(ids)
	held := make(map[string]int, len(cands))
	for _, c := range cs {
		q := ix.clauseQuery(c, true)
		if q == nil {
			continue
		}
		req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{q, only}), len(ids), 0, false)
		req.Score = "none"
		res, err := ix.bi.SearchInContext(ctx, req)
		if err != nil {
			return err
		}
		for _, h := range res.Hits {
			held[h.ID]++
		}
	}
	for i := range cands {
		f := float64(held[cands[i].id]) / float64(len(cs))
		cands[i].score *= f * f
	}
	return nil
}

// searchBy is search for the notes matching positive (and the filters),
// scored by by alone.
func (ix *Index) searchBy(ctx context.Context, pq *parsedQuery, by, positive query.Query, size int) (*bleve.SearchResult, error) {
	var not []query.Query
	for _, c := range pq.not {
		if q := ix.clauseQuery(c, false); q != nil {
			not = append(not, q)
		}
	}
	for _, f := range pq.noProps {
		not = append(not, term(fProps, f.term(), 1))
	}
	for _, f := range pq.notFolders {
		not = append(not, term(fFolder, foldKey(f), 1))
	}
	for _, re := range pq.notPaths {
		rq := query.NewRegexpQuery(re)
		rq.SetField(fPath)
		not = append(not, rq)
	}
	bq := query.NewBooleanQuery([]query.Query{by}, nil, not)
	filter := positive
	if f := filterQuery(pq); f != nil {
		filter = query.NewConjunctionQuery([]query.Query{positive, f})
	}
	bq.AddFilter(filter)
	return ix.bi.SearchInContext(ctx, bleve.NewSearchRequestOptions(bq, size, 0, false))
}

// search runs the note query: IDs, scores and the total, without
// locations (which would be decoded for every matching note, not just
// this page). boost ranks without restricting; only, if set, restricts to
// its documents.
func (ix *Index) search(ctx context.Context, pq *parsedQuery, positive, boost query.Query, size int, only query.Query) (*bleve.SearchResult, error) {
	var must []query.Query
	if positive != nil {
		must = append(must, positive)
	} else {
		must = append(must, query.NewMatchAllQuery())
	}
	if only != nil {
		must = append(must, only)
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
	for _, f := range pq.notFolders {
		not = append(not, term(fFolder, foldKey(f), 1))
	}
	for _, re := range pq.notPaths {
		rq := query.NewRegexpQuery(re)
		rq.SetField(fPath)
		not = append(not, rq)
	}
	var should []query.Query
	if boost != nil {
		should = append(should, boost)
	}
	bq := query.NewBooleanQuery(must, should, not)
	if f := filterQuery(pq); f != nil {
		bq.AddFilter(f)
	}
	req := bleve.NewSearchRequestOptions(bq, size, 0, false)
	if positive == nil {
		req.SortBy([]string{"_id"})
	}
	return ix.bi.SearchInContext(ctx, req)
}

// Section ranking weights: a word in the section's heading counts twice,
// in the heading of a section it lies in half.
var sectionFields = []boostedField{{fSecBody, 1.0}, {fSecHead, secHeadBoost}, {fSecCtx, 0.5}}

const secHeadBoost = 2.0

// secBoostTitle weighs a note's title and aliases against its sections: a
// section is a short text, so its words weigh more than the same words in
// a whole note's text, against which the title boosts were set.
const secBoostTitle = 2.0

var secTitleFields = []boostedField{{fTitle, boostTitle * secBoostTitle}, {fAliases, boostAliases * secBoostTitle}}

// sectionQuery is the query that ranks sections for the notes' order: any
// of the words, the more the better (bleve's coordination factor), whole
// words only; note documents take part by their title and aliases (with
// compounds, as in the note query), which rank adds to the note's best
// section. The words that would take it over sectionBudget are left out
// of it, the most frequent first; nil when every word is, or none can be
// searched by section.
func (ix *Index) sectionQuery(pq *parsedQuery) query.Query {
	cost := uint64(0)
	word := func(k float64, ts ...string) query.Query {
		var qs []query.Query
		for _, t := range ts {
			if t == "" {
				continue // a word without a noun
			}
			for _, f := range sectionFields {
				if n := ix.docFreq(f.name, t); n > 0 {
					cost += n
					qs = append(qs, term(f.name, t, k*f.boost))
				}
			}
		}
		return disjunction(qs)
	}
	// Each word's clause and the postings it reads.
	type wordClause struct {
		q        query.Query
		cost     uint64
		optional bool
	}
	var words []wordClause
	for _, c := range pq.must {
		cost = 0
		var q query.Query
		switch c.kind {
		case kindWord:
			var alts []query.Query
			w := c.words[0]
			// The word, its noun and its compounds in section headings
			// add up (in a disjunction, a section with the word alone
			// would count as much less as the word has more forms). A
			// compound counts half, as in the note query (fieldsQuery),
			// where the word or a compound is one match of two: the
			// note documents' titles, whose compounds count so, stay
			// above sections that name the word only in a compound.
			h, n := ix.headCompounds(c, 0.5)
			cost += n
			if q := sumOf(word(1, w.exact()...), word(nounBoost, w.Noun), h); q != nil {
				alts = append(alts, q)
			}
			if len(c.parts) > 0 {
				var ps []query.Query
				for _, p := range c.parts {
					if w := word(1, p); w != nil {
						ps = append(ps, w)
					}
				}
				if len(ps) == len(c.parts) {
					cq := query.NewConjunctionQuery(ps)
					cq.SetBoost(partBoost)
					alts = append(alts, cq)
				}
			}
			q = disjunction(alts)
		case kindPhrase:
			var ws []query.Query
			for _, w := range c.words {
				if q := word(1, w.terms()...); q != nil {
					ws = append(ws, q)
				}
			}
			if len(ws) == len(c.words) {
				q = query.NewConjunctionQuery(ws)
			}
		case kindPrefix:
			w := c.words[0]
			var ts []string
			if w.Term != "" {
				ts = append(ts, w.Term)
			}
			for _, t := range ix.dictPrefix(fSecBody, w.Folded, w.Term) {
				ts = append(ts, t.t)
			}
			q = word(1, ts...)
		}
		var alts []query.Query
		if q != nil {
			alts = append(alts, q)
		}
		if t := ix.fieldsQuery(c, true, secTitleFields); t != nil {
			alts = append(alts, t)
		}
		if len(alts) > 0 {
			// Two branches, so that a section and a note document are
			// both one match of two to bleve's coordination factor.
			words = append(words, wordClause{query.NewDisjunctionQuery(alts), cost, c.optional})
		}
	}
	// The words that fit the budget, the required and the rarest first:
	// a word in most sections ("Grund", "zwei", "Gesetz") says little
	// about which section answers, and the notes must hold it anyway
	// (bySections). An optional word (a homograph) comes last.
	sort.SliceStable(words, func(i, j int) bool {
		if words[i].optional != words[j].optional {
			return !words[i].optional
		}
		return words[i].cost < words[j].cost
	})
	var clauses []query.Query
	total := uint64(0)
	for _, w := range words {
		if total+w.cost > sectionBudget {
			continue
		}
		total += w.cost
		clauses = append(clauses, w.q)
	}
	if len(clauses) == 0 {
		return nil
	}
	if len(clauses) > 1 {
		// A section with every word counts twice: the paragraph that
		// holds the whole question ("§ 17 Anzeigepflicht": Arbeitgeber,
		// Entlassungen, Anzeige in its long text) answers it more than a
		// short one with two of the words in its heading and text, which
		// bleve's coordination factor (matched/all) alone let win. Added
		// up rather than joined as another clause, which would lower
		// the note documents' share.
		return sumOf(disjunction(clauses), query.NewConjunctionQuery(slices.Clone(clauses)))
	}
	return disjunction(clauses)
}

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

// boostedField is a text field with its boost.
type boostedField struct {
	name  string
	boost float64
}

// textFields are the note document's text fields; titleFields those that
// name the note.
var (
	textFields  = []boostedField{{fTitle, boostTitle}, {fAliases, boostAliases}, {fHeadings, boostHeadings}, {fBody, boostBody}}
	titleFields = textFields[:2]
)

// positiveQuery combines the positive clauses: all of them, or any (OR).
// Optional clauses (homographs) are left out unless anyOf: boostQuery
// ranks by them. nil when there are none (filters only).
func (ix *Index) positiveQuery(pq *parsedQuery, anyOf bool) (query.Query, error) {
	var qs []query.Query
	for _, c := range pq.must {
		if c.optional && !anyOf {
			continue
		}
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

// boostQuery ranks notes higher without restricting them: by the optional
// words (homographs, commands' options). nil if there are none. (The words
// as a phrase rank too: see rank.)
func (ix *Index) boostQuery(pq *parsedQuery) query.Query {
	var qs []query.Query
	for _, c := range pq.must {
		if c.optional && !pq.anyOf() {
			if q := ix.clauseQuery(c, false); q != nil {
				qs = append(qs, q)
			}
		}
	}
	return disjunction(qs)
}

// wholeQuery is a cheap stand-in for the positive query where only notes
// that surely match are wanted: every required clause by its whole words
// (no compounds, no prefix expansions beyond the stem), nil when the query
// has a prefix clause or is searched with any of its words. A note it
// matches matches the positive query too.
func (ix *Index) wholeQuery(pq *parsedQuery) query.Query {
	if pq.anyOf() {
		return nil
	}
	var qs []query.Query
	for _, c := range pq.required() {
		if c.kind == kindPrefix {
			return nil
		}
		q := ix.clauseQuery(c, false)
		if q == nil {
			return query.NewMatchNoneQuery()
		}
		qs = append(qs, q)
	}
	switch len(qs) {
	case 0:
		return nil
	case 1:
		return qs[0]
	}
	return query.NewConjunctionQuery(qs)
}

// phraseBudget bounds the phrase passes (the notes with the words as a
// phrase first, the sections with them first): they run only when the
// phrase's rarest word is in at most this many notes. A phrase search
// reads the positions of every word in every note that has them all; for
// ten words of every law (Gesetz Absatz Satz … Antrag, the rarest in 1,506
// of the 6,636 laws) that was 300 ms of a 430 ms search, while the phrases
// people type have a word in a few hundred notes at most (Urlaub 119,
// Menschen 511, Haftung 422).
const phraseBudget = 1000

// phraseCheap reports whether the phrase passes may run (phraseBudget):
// whether some word of the phrase is in at most phraseBudget notes' text.
func (ix *Index) phraseCheap(pq *parsedQuery) bool {
	ws := pq.phraseWords()
	if len(ws) < 2 {
		return false
	}
	for _, w := range ws {
		n := uint64(0)
		for _, t := range w.terms() {
			n += ix.docFreq(fBody, t)
		}
		if n <= phraseBudget {
			return true
		}
	}
	return false
}

// phraseQuery matches the query's words as a phrase (see
// parsedQuery.seq) in any text field; nil unless the query is two or more
// plain words.
func phraseQuery(pq *parsedQuery) query.Query {
	ws := pq.phraseWords()
	if len(ws) < 2 {
		return nil
	}
	phrase := phraseTerms(ws)
	var qs []query.Query
	for _, f := range textFields {
		p := query.NewMultiPhraseQuery(phrase, f.name)
		p.SetBoost(f.boost)
		qs = append(qs, p)
	}
	return disjunction(qs)
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
	add(fTags, pq.tags, tagTerm)
	add(fSpace, pq.spaces, func(s string) string { return foldKey(strings.Trim(s, "/")) })
	add(fFolder, pq.folders, func(s string) string { return foldKey(strings.Trim(s, "/")) })
	add(fPath, pq.paths, func(s string) string { return s })
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

// clauseQuery builds the query of one clause over the note document's
// text fields; withParts adds word-part (compound) matching to single
// words. nil if the clause can match nothing.
func (ix *Index) clauseQuery(c clause, withParts bool) query.Query {
	return ix.fieldsQuery(c, withParts, textFields)
}

// fieldsQuery is clauseQuery over the given fields.
func (ix *Index) fieldsQuery(c clause, withParts bool, fields []boostedField) query.Query {
	switch c.kind {
	case kindPhrase:
		if len(c.words) == 1 {
			return wordQuery(fields, c.words[0])
		}
		phrase := phraseTerms(c.words)
		var qs []query.Query
		for _, f := range fields {
			p := query.NewMultiPhraseQuery(phrase, f.name)
			p.SetBoost(f.boost)
			qs = append(qs, p)
		}
		return disjunction(qs)
	case kindPrefix:
		w := c.words[0]
		var qs []query.Query
		for _, f := range fields {
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
	if !withParts || !w.partOK() || c.wholeOnly {
		return wordQuery(fields, w)
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
	groups := make([]query.Query, 0, len(fields))
	for _, f := range fields {
		idfWord := idf(ix.docFreq(f.name, w.Term), n)
		var fq []query.Query
		for _, t := range ix.partTerms(f.name, w) {
			r := idfWord / idf(t.n, n)
			fq = append(fq, term(f.name, t.t, f.boost*partBoost*r*r))
		}
		whole := wordQuery([]boostedField{f}, w)
		if len(fq) == 0 {
			groups = append(groups, whole)
			continue
		}
		groups = append(groups, query.NewDisjunctionQuery([]query.Query{whole, disjunction(fq)}))
	}
	if len(c.parts) > 0 {
		// A compound no note has: notes with its parts, at part weight.
		pq := make([]query.Query, 0, len(c.parts))
		for _, p := range c.parts {
			fq := make([]query.Query, 0, len(fields))
			for _, f := range fields {
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

// partTerms returns the terms of field that hold w as a word part: the
// compounds ending in it (its reversed stem is a prefix of their part
// tokens: häuser → "~suah" ⊂ "~suahneknark") and the words starting with
// it (projekt → projektplan), for its own stem and its noun's.
func (ix *Index) partTerms(field string, w qword) []termCount {
	stems := w.partStems()
	if len(stems) == 1 {
		return append(ix.dictPrefix(field, partMark+string(reverseRunes([]byte(w.Stem))), ""), ix.dictPrefix(field, w.Stem, w.Term)...)
	}
	var out []termCount
	seen := map[string]bool{w.Term: true, w.Noun: true}
	for _, st := range stems {
		for _, ts := range [][]termCount{ix.dictPrefix(field, partMark+string(reverseRunes([]byte(st))), ""), ix.dictPrefix(field, st, "")} {
			for _, t := range ts {
				if !seen[t.t] {
					seen[t.t] = true
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// partBudget bounds the postings (as counted in the term dictionaries)
// that the compounds and longer forms of a query's words may add to its
// note search. Over it, the words whose whole form is in the most notes
// are searched as whole words only, until the rest fits, and the answer
// says so (Results.WholeWordsOnly). On the 6,636 laws, ten words of every
// law (Gesetz Absatz Satz … Antrag) expand to 2,350 terms with 119,000
// postings; the bench's ordinary queries to at most 20,000 (Gesetz alone),
// "Gesetz Verordnung" to 33,000.
const partBudget = 40000

// boundParts marks words to search without their compounds (partBudget).
func (ix *Index) boundParts(pq *parsedQuery) {
	type word struct {
		i          int
		cost, freq uint64
	}
	var ws []word
	total := uint64(0)
	for i, c := range pq.must {
		w := c.words[0]
		if c.kind != kindWord || !w.partOK() || c.wholeOnly {
			continue
		}
		x := word{i: i}
		for _, f := range textFields {
			// (Remembered: the note query asks for the same lists.)
			for _, t := range ix.partTerms(f.name, w) {
				x.cost += t.n
			}
		}
		total += x.cost
		ws = append(ws, x)
	}
	if total <= partBudget {
		return
	}
	for j := range ws {
		ws[j].freq = ix.docFreq(fBody, pq.must[ws[j].i].words[0].Term)
	}
	sort.SliceStable(ws, func(a, b int) bool { return ws[a].freq > ws[b].freq })
	for _, x := range ws {
		if total <= partBudget {
			break
		}
		c := &pq.must[x.i]
		c.wholeOnly = true
		pq.wholeOnly = append(pq.wholeOnly, c.raw)
		total -= x.cost
	}
}

// prefixBounds returns Results.Prefixes (after positiveQuery, which
// expands the prefixes).
func (ix *Index) prefixBounds(pq *parsedQuery) []string {
	var out []string
	for _, c := range pq.must {
		if c.kind != kindPrefix {
			continue
		}
		w := c.words[0]
		n := ix.prefixTotal(fBody, w.Folded, w.Term)
		if n <= maxExpand {
			continue
		}
		count := thousands(n)
		if n >= maxScan {
			count = "more than " + thousands(maxScan)
		}
		out = append(out, fmt.Sprintf("%s* stands for the %d most frequent of the %s words starting with %q here; add letters to reach the others",
			c.raw, maxExpand, count, c.raw))
	}
	return out
}

// wholeOnlyText is the notice for Results.WholeWordsOnly.
func wholeOnlyText(words []string) string {
	return "searched as whole words only, without compounds and longer forms (frequent words; with them the search would read too much of the index): " + strings.Join(words, ", ")
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

// docFreq is the number of notes with term t in field f, remembered
// until the index next changes (ix.gen): a search asks for its words'
// counts in several fields, again for each group of notes it shows, and
// each lookup walks every segment's dictionary.
func (ix *Index) docFreq(f, t string) uint64 {
	key := f + "\x00" + t
	gen := ix.gen.Load()
	ix.freqs.Lock()
	if ix.freqs.gen != gen || ix.freqs.m == nil || len(ix.freqs.m) >= maxFreqs {
		ix.freqs.m, ix.freqs.gen = map[string]uint64{}, gen
	}
	n, ok := ix.freqs.m[key]
	ix.freqs.Unlock()
	if ok {
		return n
	}
	n, ok = ix.lookupFreq(f, t)
	if !ok {
		return 0 // not remembered: the index could not be read
	}
	ix.freqs.Lock()
	if ix.freqs.gen == gen {
		ix.freqs.m[key] = n
	}
	ix.freqs.Unlock()
	return n
}

// maxFreqs bounds the remembered counts.
const maxFreqs = 1 << 16

// lookupFreq is docFreq without the memory; ok is false when the
// dictionary could not be read.
func (ix *Index) lookupFreq(f, t string) (uint64, bool) {
	d, err := ix.bi.FieldDictRange(f, []byte(t), []byte(t))
	if err != nil {
		return 0, false
	}
	defer d.Close()
	e, err := d.Next()
	if err != nil {
		return 0, false
	}
	if e == nil || e.Term != t {
		return 0, true
	}
	return e.Count, true
}

// wholeWord matches analyzed terms (a word and its other spellings) in any
// of the fields.
func wholeWord(fields []boostedField, ts ...string) query.Query {
	qs := make([]query.Query, 0, len(fields)*len(ts))
	for _, f := range fields {
		for _, t := range ts {
			qs = append(qs, term(f.name, t, f.boost))
		}
	}
	return query.NewDisjunctionQuery(qs)
}

// wordQuery matches w as a whole word in fields: its terms, its noun at
// nounBoost.
func wordQuery(fields []boostedField, w qword) query.Query {
	if w.Noun == "" && len(fields) == 1 && len(w.Alt) == 0 {
		return term(fields[0].name, w.Term, fields[0].boost)
	}
	exact := wholeWord(fields, w.exact()...)
	if w.Noun == "" {
		return exact
	}
	qs := make([]query.Query, 0, len(fields))
	for _, f := range fields {
		qs = append(qs, term(f.name, w.Noun, f.boost*nounBoost))
	}
	return sumOf(exact, query.NewDisjunctionQuery(qs))
}

// sumOf matches any of qs (nil ones left out) and scores a match by the
// sum of theirs, as alternative forms of one word: a text with the word
// scores as it would without its other forms in the query (a disjunction
// would scale it by the share of its clauses matched). nil for none.
func sumOf(qs ...query.Query) query.Query {
	var in []query.Query
	for _, q := range qs {
		if q != nil {
			in = append(in, q)
		}
	}
	return newAnyOf(in)
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
//
// The lists are remembered until the index next changes (ix.gen): the
// scan of a short prefix walks thousands of terms ("plan" has 2,400 in the
// laws' bodies), the same for every search with the word.
func (ix *Index) dictPrefix(field, prefix, skip string) []termCount {
	if prefix == "" {
		return nil
	}
	key := field + "\x00" + prefix + "\x00" + skip
	gen := ix.gen.Load()
	ix.prefixes.Lock()
	if ix.prefixes.gen != gen || ix.prefixes.m == nil || len(ix.prefixes.m) >= maxPrefixes {
		ix.prefixes.m, ix.prefixes.n, ix.prefixes.gen = map[string][]termCount{}, nil, gen
	}
	all, ok := ix.prefixes.m[key]
	ix.prefixes.Unlock()
	if ok {
		return all
	}
	all, n := ix.scanPrefix(field, prefix, skip)
	ix.prefixes.Lock()
	if ix.prefixes.gen == gen {
		ix.prefixes.m[key] = all
		if n > len(all) {
			if ix.prefixes.n == nil || len(ix.prefixes.n) >= maxPrefixes {
				ix.prefixes.n = map[string]int{}
			}
			ix.prefixes.n[key] = n
		}
	}
	ix.prefixes.Unlock()
	return all
}

// prefixTotal is the number of terms dictPrefix found for its arguments
// before it kept the maxExpand most frequent (at most maxScan); call it
// after dictPrefix.
func (ix *Index) prefixTotal(field, prefix, skip string) int {
	key := field + "\x00" + prefix + "\x00" + skip
	ix.prefixes.Lock()
	defer ix.prefixes.Unlock()
	if n, ok := ix.prefixes.n[key]; ok {
		return n
	}
	return len(ix.prefixes.m[key])
}

// maxPrefixes bounds the remembered prefix lists.
const maxPrefixes = 4096

// scanPrefix is dictPrefix without the memory; n is the number of terms
// found before the most frequent were kept.
func (ix *Index) scanPrefix(field, prefix, skip string) (all []termCount, n int) {
	d, err := ix.bi.FieldDictPrefix(field, []byte(prefix))
	if err != nil {
		return nil, 0
	}
	defer d.Close()
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
	n = len(all)
	if len(all) > maxExpand {
		sort.Slice(all, func(i, j int) bool {
			if all[i].n != all[j].n {
				return all[i].n > all[j].n
			}
			return all[i].t < all[j].t
		})
		all = all[:maxExpand]
	}
	return all, n
}

type termCount struct {
	t string
	n uint64
}

// PathPatternOK reports whether re can be a Query.NotPaths pattern: a
// regular expression the index's term automata run (no anchors, word
// boundaries or lazy repetition), matched against a whole vault path.
func PathPatternOK(re string) bool {
	_, err := vregexp.New(re)
	return err == nil
}

// tagsAsWordsText is the notice of Results.TagsAsWords.
func tagsAsWordsText(tags []string) string {
	return "no note has the tag " + strings.Join(tags, ", ") + ": counted as words, for ranking only"
}
