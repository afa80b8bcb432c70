package index

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
// Every text is analyzed once per note (noteTokens): the fields of both
// kinds of document replay the same tokens. bleve analyzes a batch's
// documents in parallel, in any order, so the first field of a note to be
// analyzed runs the analysis and the others wait for it.

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

// noteTokens is the analysis of one note, shared by the fields of its
// documents.
type noteTokens struct {
	once      sync.Once
	d         *Document
	bodyBytes []byte
	body      analysis.TokenStream   // of d.Body: offsets relative to the body
	heads     []analysis.TokenStream // of each heading's text
	title     analysis.TokenStream
	aliases   []analysis.TokenStream
	secs      []analysis.TokenStream // each section's own words: body tokens without part tokens
	words     []analysis.TokenStream // each heading's words (no part tokens)
	parts     []analysis.TokenStream // each heading's part tokens
	// left counts the fields still to be analyzed; at 0 the tokens are
	// dropped, so that a batch does not keep every note's tokens until its
	// segment is built.
	left atomic.Int32
}

func (nt *noteTokens) run() {
	a := queryAnalyzer // stateless; safe for concurrent use
	d := nt.d
	// The analysis lower-cases in place; the body's fields are not stored,
	// so their values may share the bytes.
	nt.body = a.Analyze(nt.bodyBytes)
	nt.title = a.Analyze([]byte(d.Title))
	aliases := searchAliases(d)
	nt.aliases = make([]analysis.TokenStream, len(aliases))
	for i, al := range aliases {
		nt.aliases[i] = a.Analyze([]byte(al))
	}
	// Tokens come in text order but for the few that a date rewrite
	// moves; assign each by its start.
	nt.secs = make([]analysis.TokenStream, len(d.Headings)+1)
	starts := d.sectionStarts()
	for _, t := range nt.body {
		if isPartToken(t) {
			continue
		}
		k := max(sort.Search(len(starts), func(i int) bool { return starts[i] > t.Start })-1, 0)
		if t.Start >= sectionEnd(d, starts, k) {
			continue // in the next heading's line: that section's heading
		}
		nt.secs[k] = append(nt.secs[k], t)
	}
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

// replay is an analyzer that returns tokens of a noteTokens.
type replay struct {
	nt   *noteTokens
	pick func(nt *noteTokens) analysis.TokenStream
}

func (r *replay) Analyze([]byte) analysis.TokenStream {
	r.nt.once.Do(r.nt.run)
	ts := r.pick(r.nt)
	if r.nt.left.Add(-1) == 0 {
		// Every field has its tokens; bleve keeps only their counts.
		r.nt.body, r.nt.heads, r.nt.title, r.nt.aliases, r.nt.secs, r.nt.words, r.nt.parts = nil, nil, nil, nil, nil, nil, nil
	}
	return ts
}

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
	body := []byte(d.Body)
	nt := &noteTokens{d: d, bodyBytes: body}
	nt.runHeadings()
	var fields int32
	field := func(doc *document.Document, name string, pos []uint64, value []byte, opts bindex.FieldIndexingOptions, pick func(*noteTokens) analysis.TokenStream) {
		fields++
		doc.AddField(document.NewTextFieldCustom(name, pos, value, opts, &replay{nt: nt, pick: pick}))
	}
	text := func(doc *document.Document, name string, pos []uint64, value string, opts bindex.FieldIndexingOptions, pick func(*noteTokens) analysis.TokenStream) {
		field(doc, name, pos, []byte(value), opts, pick)
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
	text(nd, fTitle, nil, d.Title, optText|bindex.StoreField, func(nt *noteTokens) analysis.TokenStream { return nt.title })
	for i, a := range searchAliases(d) {
		text(nd, fAliases, []uint64{uint64(i)}, a, optText|bindex.StoreField, func(nt *noteTokens) analysis.TokenStream { return nt.aliases[i] })
	}
	// One field per heading, also empty ones, so that a match's array
	// position is the heading's index in the meta table.
	for i, h := range d.Headings {
		text(nd, fHeadings, []uint64{uint64(i)}, h.Text, optText, func(nt *noteTokens) analysis.TokenStream { return nt.heads[i] })
	}
	field(nd, fBody, nil, body, optText, func(nt *noteTokens) analysis.TokenStream { return nt.body })
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
		field(sd, fSecBody, nil, body[lo:max(lo, hi)], optRank, func(nt *noteTokens) analysis.TokenStream { return nt.secs[k] })
		if k > 0 {
			text(sd, fSecHead, nil, d.Headings[k-1].Text, optRank, func(nt *noteTokens) analysis.TokenStream { return nt.words[k-1] })
			if len(nt.parts[k-1]) > 0 {
				text(sd, fSecParts, nil, "", optRank, func(nt *noteTokens) analysis.TokenStream { return nt.parts[k-1] })
			}
		}
		if anc := d.ancestors(k - 1); len(anc) > 0 {
			text(sd, fSecCtx, nil, "", optRank, func(nt *noteTokens) analysis.TokenStream {
				var ts analysis.TokenStream
				for _, j := range anc {
					ts = append(ts, nt.words[j]...)
				}
				return ts
			})
		}
		// Scored (as part of a query that restricts to one note's
		// sections), so with counts and norms: see optRank.
		keyword(sd, fSecNote, []string{d.Path}, false, optRank)
		docs = append(docs, sd)
	}
	nt.left.Store(fields)
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
