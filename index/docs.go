package index

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	bindex "github.com/blevesearch/bleve_index_api"
)

// The bleve documents of a note: one note document (ID: the path) and one
// document per section (ID: path + secSep + section number).
//
// The note document is what the index always had: the note's text with
// term vectors (for phrases, snippets and the sections of a hit), its
// links, properties and filters. It answers which notes match (their
// number, the filters, -word, phrases) and ranks notes when a query's words
// are frequent.
//
// A section document holds one section's own text and heading, without
// term vectors, and as context the note's title, aliases and the headings
// of the sections it lies in. It ranks sections against each other across
// the vault, so that the paragraph of a 2 MB law that answers a question
// competes with a short note on equal terms: as part of one note document
// its words are diluted by the law's length. Section 0 is the text before
// the first heading (no document when it is blank); section k ≥ 1 is
// heading k-1 with its own text, up to the next heading of any level.
//
// Every text is analyzed once per note (noteTokens): the text fields of
// both kinds of document (noteField) count their terms from the same
// tokens. bleve analyzes a batch's documents in parallel, in any order, so
// the first field of a note to be analyzed runs the analysis for all of
// them and the others wait for it.

// secSep separates the note path from the section number in a section
// document's ID; it never occurs in a vault path.
const secSep = "\x1f"

// Section document fields. They hold whole words (a compound's notes are
// found by the note documents), but for the heading's compound part
// tokens, in a field of their own (so that they count for nothing in the
// heading's length): a heading naming the topic in a compound ("Haftung
// des Tierhalters" for Tier) holds the word. No filters: a section counts
// only if its note matches, which the note documents decide.
const (
	fSecBody  = "sbody"  // the section's own text
	fSecHead  = "shead"  // its heading
	fSecParts = "shpart" // its heading's compound part tokens
	fSecCtx   = "sctx"   // the headings of the sections it lies in
	fSecNote  = "snote"  // the note's path
)

// sectionID is the ID of section k of the note at p.
func sectionID(p string, k int) string { return p + secSep + strconv.Itoa(k) }

// splitSectionID returns the note path and section number of a section
// document's ID; ok is false for a note document's ID.
func splitSectionID(id string) (p string, k int, ok bool) {
	i := strings.LastIndex(id, secSep)
	if i < 0 {
		return id, 0, false
	}
	k, err := strconv.Atoi(id[i+len(secSep):])
	return id[:i], k, err == nil
}

// sectionSlots is the number of section numbers a note uses (its headings
// plus the text before the first): the IDs to delete when it goes.
func (d *Document) sectionSlots() int { return len(d.Headings) + 1 }

// noteTokens is the analysis of one note, shared by the text fields of its
// documents (noteField): the first field that bleve asks to analyze runs
// it for all of them (run).
type noteTokens struct {
	once      sync.Once
	d         *Document
	bodyBytes []byte
	heads     []analysis.TokenStream // each heading's tokens (runHeadings)
	words     []analysis.TokenStream // each heading's words (no part tokens)
	parts     []analysis.TokenStream // each heading's part tokens
	fields    []*noteField           // the note's text fields, in the order bleveDocs made them
}

// runHeadings analyzes the headings, before the documents are built: a
// section's document has a field for its heading's part tokens only when
// there are some.
func (nt *noteTokens) runHeadings() {
	d := nt.d
	nt.heads = make([]analysis.TokenStream, len(d.Headings))
	nt.words = make([]analysis.TokenStream, len(d.Headings))
	nt.parts = make([]analysis.TokenStream, len(d.Headings))
	for i, h := range d.Headings {
		ts := queryAnalyzer.Analyze([]byte(h.Text))
		nt.heads[i] = ts
		nt.words[i] = wordsOnly(ts)
		for _, t := range ts {
			if isPartToken(t) {
				nt.parts[i] = append(nt.parts[i], t)
			}
		}
	}
}

// run analyzes the note's text and gives each of its fields its length and
// token frequencies. Each term of the note becomes a number (terms), so
// that a field's terms are counted in an array instead of a map of its
// own, and every field of the note shares the term's one string: the
// section documents repeat the note's words, and bleve's own counting
// (analysis.TokenFrequency) allocated a string, a TokenFreq and a map slot
// for every term of every field, in a map sized for every token. The
// tokens are dropped when it returns; bleve keeps only the counts.
func (nt *noteTokens) run() {
	a := queryAnalyzer // stateless; safe for concurrent use
	d := nt.d
	// The analysis lower-cases in place; the body's fields are not
	// stored, so they need not keep its bytes.
	body := a.Analyze(nt.bodyBytes)
	title := a.Analyze([]byte(d.Title))
	var aliases []analysis.TokenStream
	for _, al := range searchAliases(d) {
		aliases = append(aliases, a.Analyze([]byte(al)))
	}
	tt := newTermTable(len(body) / 4)
	bodyIDs := tt.ids(body)
	titleIDs := tt.ids(title)
	aliasIDs := make([][]int32, len(aliases))
	for i, ts := range aliases {
		aliasIDs[i] = tt.ids(ts)
	}
	headIDs := make([][]int32, len(nt.heads))
	wordIDs := make([][]int32, len(nt.heads))
	partIDs := make([][]int32, len(nt.heads))
	for i := range nt.heads {
		headIDs[i] = tt.ids(nt.heads[i])
		wordIDs[i] = tt.ids(nt.words[i])
		partIDs[i] = tt.ids(nt.parts[i])
	}
	secIDs := sectionTerms(d, body, bodyIDs)

	c := counter{n: make([]int32, len(tt.terms)), at: make([]int32, len(tt.terms))}
	var ctx []int32
	for _, f := range nt.fields {
		switch f.kind {
		case fieldTitle:
			f.length, f.freqs = c.count(&tt, titleIDs, title, f.pos)
		case fieldAlias:
			f.length, f.freqs = c.count(&tt, aliasIDs[f.i], aliases[f.i], f.pos)
		case fieldHeading:
			f.length, f.freqs = c.count(&tt, headIDs[f.i], nt.heads[f.i], f.pos)
		case fieldBody:
			f.length, f.freqs = c.count(&tt, bodyIDs, body, f.pos)
		case fieldSecBody:
			f.length, f.freqs = c.count(&tt, secIDs[f.i], nil, nil)
		case fieldSecHead:
			f.length, f.freqs = c.count(&tt, wordIDs[f.i], nil, nil)
		case fieldSecParts:
			f.length, f.freqs = c.count(&tt, partIDs[f.i], nil, nil)
		case fieldSecCtx:
			ctx = ctx[:0]
			for _, j := range f.anc {
				ctx = append(ctx, wordIDs[j]...)
			}
			f.length, f.freqs = c.count(&tt, ctx, nil, nil)
		}
	}
	nt.heads, nt.words, nt.parts, nt.fields, nt.bodyBytes = nil, nil, nil, nil, nil
}

// sectionTerms returns each section's own words (body tokens without part
// tokens, by term number); section 0 is the text before the first
// heading, section k ≥ 1 heading k-1's text up to the next heading line.
func sectionTerms(d *Document, body analysis.TokenStream, ids []int32) [][]int32 {
	starts := d.sectionStarts()
	sec := make([]int32, len(body)) // each token's section; -1: none
	counts := make([]int, len(starts))
	k := 0
	for i, t := range body {
		sec[i] = -1
		if isPartToken(t) {
			continue
		}
		// Tokens come in text order but for the few that a date
		// rewrite moves: search only when the next section does not do.
		if t.Start < starts[k] || (k+1 < len(starts) && t.Start >= starts[k+1]) {
			k = max(sort.Search(len(starts), func(i int) bool { return starts[i] > t.Start })-1, 0)
		}
		if t.Start >= sectionEnd(d, starts, k) {
			continue // in the next heading's line: that section's heading
		}
		sec[i] = int32(k)
		counts[k]++
	}
	all := make([]int32, 0, len(body))
	out := make([][]int32, len(starts))
	for k, n := range counts {
		out[k] = all[len(all) : len(all) : len(all)+n]
		all = all[:len(all)+n]
	}
	for i, k := range sec {
		if k >= 0 {
			out[k] = append(out[k], ids[i])
		}
	}
	return out
}

// isPartToken reports whether t is a compound part token (analysis.go).
func isPartToken(t *analysis.Token) bool {
	return len(t.Term) > 0 && t.Term[0] == partMark[0] && !isDateToken(t)
}

// wordsOnly returns ts without its part tokens.
func wordsOnly(ts analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(ts))
	for _, t := range ts {
		if !isPartToken(t) {
			out = append(out, t)
		}
	}
	return out
}

// sectionStarts returns, relative to the body, where the text of each
// section starts: 0 for section 0, the byte after the heading line for the
// others. Section k's text ends where section k+1's heading line starts.
func (d *Document) sectionStarts() []int {
	out := make([]int, len(d.Headings)+1)
	for i, h := range d.Headings {
		out[i+1] = max(0, h.BodyStart-d.BodyStart)
	}
	return out
}

// termTable numbers the terms of one note.
type termTable struct {
	num   map[string]int32
	terms []string // by number: the map key every field of the note shares
	bytes [][]byte // by number: the term as the first token had it
}

func newTermTable(hint int) termTable {
	return termTable{num: make(map[string]int32, hint)}
}

// ids returns the term numbers of ts, numbering new terms.
func (tt *termTable) ids(ts analysis.TokenStream) []int32 {
	if len(ts) == 0 {
		return nil
	}
	out := make([]int32, len(ts))
	for i, t := range ts {
		n, ok := tt.num[string(t.Term)]
		if !ok {
			n = int32(len(tt.terms))
			s := string(t.Term)
			tt.num[s] = n
			tt.terms = append(tt.terms, s)
			tt.bytes = append(tt.bytes, t.Term)
		}
		out[i] = n
	}
	return out
}

// counter turns a field's term numbers into bleve's token frequencies. n
// and at are indexed by term number and left zero between fields.
type counter struct {
	n    []int32 // occurrences in the field being counted
	at   []int32 // the term's index among the field's distinct terms
	seen []int32 // the field's distinct terms, in order of appearance
}

// count returns the field's length and token frequencies: one map of the
// right size, one TokenFreq per distinct term from one slice, and with
// ts (the field's tokens, for fields with term vectors) their locations
// from one slice, each term's pointers in a window of one more.
func (c *counter) count(tt *termTable, ids []int32, ts analysis.TokenStream, pos []uint64) (int, bindex.TokenFrequencies) {
	for _, id := range ids {
		if c.n[id] == 0 {
			c.seen = append(c.seen, id)
		}
		c.n[id]++
	}
	out := make(bindex.TokenFrequencies, len(c.seen))
	tfs := make([]bindex.TokenFreq, len(c.seen))
	var ptrs []*bindex.TokenLocation
	if ts != nil {
		ptrs = make([]*bindex.TokenLocation, len(ids))
	}
	off := 0
	for j, id := range c.seen {
		tf := &tfs[j]
		tf.Term = tt.bytes[id]
		tf.SetFrequency(int(c.n[id]))
		if ts != nil {
			// A window with no room beyond it: bleve appends the
			// locations of a field of the same name (MergeAll), which
			// must not run into the next term's.
			n := int(c.n[id])
			tf.Locations = ptrs[off:off:(off + n)]
			off += n
		}
		out[tt.terms[id]] = tf
		c.at[id] = int32(j)
		c.n[id] = 0
	}
	if ts != nil {
		locs := make([]bindex.TokenLocation, len(ts))
		for i, t := range ts {
			l := &locs[i]
			*l = bindex.TokenLocation{ArrayPositions: pos, Start: t.Start, End: t.End, Position: t.Position}
			tf := &tfs[c.at[ids[i]]]
			tf.Locations = append(tf.Locations, l)
		}
	}
	c.seen = c.seen[:0]
	return len(ids), out
}

// fieldKind says which of a note's texts a noteField holds.
type fieldKind uint8

const (
	fieldTitle fieldKind = iota
	fieldAlias
	fieldHeading
	fieldBody
	fieldSecBody
	fieldSecHead
	fieldSecParts
	fieldSecCtx
)

// noteField is a text field of a note's documents, analyzed with the
// note's other text fields (noteTokens.run). It is bleve's TextField but
// for where its tokens come from.
type noteField struct {
	name  string
	pos   []uint64
	opts  bindex.FieldIndexingOptions
	value []byte // the stored value (title, aliases); nil for fields not stored
	plain int    // bytes of text the field stands for
	nt    *noteTokens
	kind  fieldKind
	i     int   // the alias, heading or section it holds
	anc   []int // fieldSecCtx: the enclosing headings

	length int
	freqs  bindex.TokenFrequencies
}

func (f *noteField) Name() string                                      { return f.name }
func (f *noteField) ArrayPositions() []uint64                          { return f.pos }
func (f *noteField) Options() bindex.FieldIndexingOptions              { return f.opts }
func (f *noteField) Value() []byte                                     { return f.value }
func (f *noteField) NumPlainTextBytes() uint64                         { return uint64(f.plain) }
func (f *noteField) EncodedFieldType() byte                            { return 't' }
func (f *noteField) AnalyzedLength() int                               { return f.length }
func (f *noteField) AnalyzedTokenFrequencies() bindex.TokenFrequencies { return f.freqs }

// Analyze runs the note's analysis unless another field of it did.
func (f *noteField) Analyze() { f.nt.once.Do(f.nt.run) }

// Size estimates the field's memory for bleve's statistics without walking
// its frequencies (bleve's TextField walks every location).
func (f *noteField) Size() int {
	const perToken = 64 // a location and its pointer, or a share of a term's count
	return noteFieldSize + len(f.name) + len(f.value) + 8*len(f.pos) + perToken*f.length
}

var noteFieldSize = int(reflect.TypeFor[noteField]().Size())

const (
	optText    = bindex.IndexField | bindex.IncludeTermVectors
	optKeyword = bindex.IndexField | bindex.SkipFreqNorm
	optStored  = bindex.StoreField
	// optRank: section text, counts and norms, no term vectors. (Not
	// SkipFreqNorm, even for the context: bleve scores such a field NaN.)
	optRank = bindex.IndexField
)

// bleveDocs returns the note document and the section documents.
func (d *Document) bleveDocs() []*document.Document {
	nt := &noteTokens{d: d, bodyBytes: []byte(d.Body)}
	nt.runHeadings()
	// field adds a text field of the note; stored fields keep value.
	field := func(doc *document.Document, f *noteField, value string) {
		f.nt, f.plain = nt, len(value)
		if f.opts.IsStored() {
			f.value = []byte(value)
		}
		nt.fields = append(nt.fields, f)
		doc.AddField(f)
	}
	keyword := func(doc *document.Document, name string, values []string, fold bool, opts bindex.FieldIndexingOptions) {
		var an analysis.Analyzer // nil: the whole value is the term (bleve's keyword analysis)
		if fold {
			an = keywordAnalyzer{}
		}
		for _, v := range values {
			doc.AddField(document.NewTextFieldCustom(name, nil, []byte(v), opts, an))
		}
	}
	stored := func(doc *document.Document, name, value string) {
		doc.AddField(document.NewTextFieldCustom(name, nil, []byte(value), optStored, nil))
	}

	// The note document (see mapping.go for the fields).
	nd := document.NewDocument(d.Path)
	field(nd, &noteField{name: fTitle, opts: optText | bindex.StoreField, kind: fieldTitle}, d.Title)
	for i, a := range searchAliases(d) {
		field(nd, &noteField{name: fAliases, pos: []uint64{uint64(i)}, opts: optText | bindex.StoreField, kind: fieldAlias, i: i}, a)
	}
	// One field per heading, also empty ones, so that a match's array
	// position is the heading's index in the meta table.
	for i, h := range d.Headings {
		field(nd, &noteField{name: fHeadings, pos: []uint64{uint64(i)}, opts: optText, kind: fieldHeading, i: i}, h.Text)
	}
	field(nd, &noteField{name: fBody, opts: optText, kind: fieldBody}, d.Body)
	links := make([]string, 0, len(d.Links))
	keys := make([]string, 0, len(d.Links))
	for _, l := range d.Links {
		if l.Target != "" {
			links = append(links, l.Target)
		}
		links = append(links, l.Candidates...)
		keys = append(keys, linkKey(l.Raw))
	}
	folders, tags := folderChain(d.Path), tagChain(d.Tags)
	keyword(nd, fPath, []string{d.Path}, false, optKeyword)
	keyword(nd, fLinks, dedupe(links), false, optKeyword)
	keyword(nd, fProps, d.Properties, false, optKeyword)
	keyword(nd, fSpace, []string{d.Space}, true, optKeyword|bindex.StoreField)
	keyword(nd, fFolder, folders, true, optKeyword)
	keyword(nd, fTags, tags, true, optKeyword)
	keyword(nd, fLinkKeys, dedupe(keys), true, optKeyword)
	if !d.Modified.IsZero() {
		if f, err := document.NewDateTimeFieldWithIndexingOptions(fModified, nil, d.Modified.UTC(), time.RFC3339, bindex.IndexField|bindex.DocValues); err == nil {
			nd.AddField(f)
		}
	}
	stored(nd, fVersion, d.Version)
	stored(nd, fMeta, encodeMeta(d))
	stored(nd, fLinkInfo, encodeLinks(d.Links))
	docs := []*document.Document{nd}

	// The section documents.
	starts := d.sectionStarts()
	for k := range starts {
		if k == 0 && !d.hasSection0() {
			continue // nothing before the first heading
		}
		sd := document.NewDocument(sectionID(d.Path, k))
		lo, hi := starts[k], sectionEnd(d, starts, k)
		field(sd, &noteField{name: fSecBody, opts: optRank, kind: fieldSecBody, i: k}, d.Body[lo:max(lo, hi)])
		if k > 0 {
			field(sd, &noteField{name: fSecHead, opts: optRank, kind: fieldSecHead, i: k - 1}, d.Headings[k-1].Text)
			if len(nt.parts[k-1]) > 0 {
				field(sd, &noteField{name: fSecParts, opts: optRank, kind: fieldSecParts, i: k - 1}, "")
			}
		}
		if anc := d.ancestors(k - 1); len(anc) > 0 {
			field(sd, &noteField{name: fSecCtx, opts: optRank, kind: fieldSecCtx, anc: anc}, "")
		}
		// Scored (as part of a query that restricts to one note's
		// sections), so with counts and norms: see optRank.
		keyword(sd, fSecNote, []string{d.Path}, false, optRank)
		docs = append(docs, sd)
	}
	return docs
}

// sectionDocs is the number of section documents of the note.
func (d *Document) sectionDocs() int {
	if d.hasSection0() {
		return len(d.Headings) + 1
	}
	return len(d.Headings)
}

// hasSection0 reports whether the note has text before its first heading
// (or no heading at all): section 0 has a document then.
func (d *Document) hasSection0() bool {
	return len(d.Headings) == 0 || strings.TrimSpace(d.Body[:sectionEnd(d, d.sectionStarts(), 0)]) != ""
}

// sectionEnd is where section k's own text ends, relative to the body: at
// the next heading line.
func sectionEnd(d *Document, starts []int, k int) int {
	if k < len(d.Headings) {
		return max(starts[k], min(len(d.Body), d.Headings[k].Start-d.BodyStart))
	}
	return len(d.Body)
}

// ancestors returns the indexes of the headings enclosing heading i,
// outermost first (none for i < 0, the text before the first heading).
func (d *Document) ancestors(i int) []int {
	if i < 0 {
		return nil
	}
	var out []int
	lv := d.Headings[i].Level
	for j := i - 1; j >= 0 && lv > 1; j-- {
		if d.Headings[j].Level < lv {
			out = append(out, j)
			lv = d.Headings[j].Level
		}
	}
	sort.Ints(out)
	return out
}
