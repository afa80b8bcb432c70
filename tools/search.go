package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// Index is what the core needs of the search index. It is declared here,
// where it is consumed; *index.Index implements it.
type Index interface {
	Search(ctx context.Context, q index.Query) (*index.Results, error)
	Similar(ctx context.Context, q index.SimilarQuery) (*index.SimilarResults, error)
	Backlinks(ctx context.Context, path string) ([]index.Backlink, error)
	Status() index.Status
	Update(paths ...string) error
	WaitReady(ctx context.Context) error
}

// buildWait is how long a search waits for an index that is still
// building: a small vault is done by then, a large one answers with what it
// has and says how far the build is. An index merging its segments after
// a build has every note (index.Status.Merging): a search answers at once.
const buildWait = 2 * time.Second

// waitForBuild waits up to buildWait while the index is building, unless
// it only merges.
func (c *Core) waitForBuild(ctx context.Context) {
	if st := c.idx.Status(); st.Building && !st.Merging {
		wctx, cancel := context.WithTimeout(ctx, buildWait)
		_ = c.idx.WaitReady(wctx)
		cancel()
	}
}

var _ Index = (*index.Index)(nil)

// SearchNotesArgs are the arguments of search_notes.
type SearchNotesArgs struct {
	Query  string `json:"query" jsonschema:"words (notes with every one first, then a few with some), \"a phrase\", -exclude, prefix*, key=value"`
	Space  string `json:"space,omitempty" jsonschema:"top-level folder" help:"only this space (top-level folder)"`
	Folder string `json:"folder,omitempty" jsonschema:"with sub-folders" help:"only this folder and its sub-folders"`
	Tag    string `json:"tag,omitempty" jsonschema:"nested tags too" help:"only notes with this tag"`
	Path   string `json:"path,omitempty" jsonschema:"one note: list its matching sections" help:"only this note: list its matching sections"`
	// By asks for one kind of match where the vault searches by meaning
	// too: "words" or "meaning" ("" or "both": both, fused).
	By     string `json:"by,omitempty" jsonschema:"words or meaning: one kind of match only (default both, where the vault searches by meaning)" help:"words or meaning: one kind of match only (default both, with an embedder)"`
	Limit  int    `json:"limit,omitempty" default:"10" help:"hits per page (with --path: sections)"`
	Offset int    `json:"offset,omitempty" help:"hits to skip, for the next page (with --path: sections)"`
}

// SearchSection is one matching section of a hit.
type SearchSection struct {
	// Heading names the section for read_note: the heading path, or for
	// a long one the shortest form that names it alone.
	Heading string `json:"heading,omitempty"`
	// In is the enclosing headings where Heading does not show them
	// (shortened to the nearest two).
	In      string `json:"in,omitempty"`
	Line    int    `json:"line,omitempty"`
	Snippet string `json:"snippet,omitempty"`
}

// SearchHit is one hit of search_notes: a note and its best sections.
type SearchHit struct {
	NoteRef
	Properties []PropertyData  `json:"properties,omitempty"`
	Sections   []SearchSection `json:"sections"`
	// MoreSections counts the note's matching sections not shown (the
	// "more" call lists them).
	MoreSections int `json:"more_sections,omitempty"`
	// Conflict is set when the note holds unresolved merge conflicts.
	Conflict *ConflictData `json:"conflict,omitempty"`
	// Attachments are the files the note embeds; MoreAttachments counts
	// those past the first 8.
	Attachments     []EmbedData `json:"attachments,omitempty"`
	MoreAttachments int         `json:"more_attachments,omitempty"`
	// By says how the note matched where the vault searches by meaning
	// too: "words", "meaning" or "both" ("" for a word search).
	By string `json:"matched_by,omitempty"`
	// Some is set for a note with some of the words but not all (after
	// the notes with every word, SearchData.Some).
	Some bool `json:"some_words_only,omitempty"`
	// Views are the saved Bases views the note embeds, with their rows
	// (basesearch.go); only the first hit shows them.
	Views    []SavedViewData `json:"saved_views,omitempty"`
	matching int             // all of them
	short    bool            // shown as its note and one read call (after notes with every word)
	score    float64         // the index's score, to merge the hits of several vaults
	Vault    string          `json:"vault,omitempty"` // the vault the hit is in, where several are searched at once
}

// caller is the caller whose calls read the hit: in its vault, where
// several are searched at once.
func (h SearchHit) caller(c Caller) Caller {
	if h.Vault != "" {
		c.Door = c.Door.In(h.Vault)
	}
	return c
}

// SearchSuggestion is a "did you mean" for a word no note has.
type SearchSuggestion struct {
	Word  string   `json:"word"`
	Words []string `json:"vault_words"`
	Query string   `json:"query"`
}

// SearchData is search_notes' structured answer.
type SearchData struct {
	Query string      `json:"query"`
	Hits  []SearchHit `json:"hits"`
	Total int         `json:"total"`
	// Some counts the notes with some of the words but not all, which
	// follow the Total with every word when a page has room for them.
	Some        int                `json:"with_some_words,omitempty"`
	Offset      int                `json:"offset"`
	Ignored     []string           `json:"ignored_words,omitempty"`
	Optional    []string           `json:"ranking_only_words,omitempty"`
	Options     []string           `json:"ranking_only_options,omitempty"`
	TagsAsWords []string           `json:"tags_as_words,omitempty"`
	WholeOnly   []string           `json:"whole_words_only,omitempty"`
	Prefixes    []string           `json:"prefix_notes,omitempty"`
	Suggestions []SearchSuggestion `json:"did_you_mean,omitempty"`
	Index       string             `json:"index_status,omitempty"`
	// Excluded is what Obsidian's "Excluded files" left out.
	Excluded *ExcludedData `json:"excluded_by_obsidian,omitempty"`
	// Meaning says what search by meaning could not do for this answer
	// (still embedding, not available, failed): "" when it took part in
	// full or is off.
	Meaning string `json:"meaning_search,omitempty"`
	// Views are the saved Bases views the query names, with their rows
	// (basesearch.go).
	Views []SavedViewData `json:"saved_views,omitempty"`
}

// Bounds of search_notes' answers: notes per page (and sections per page
// with a path), and how many sections one hit shows.
const (
	searchLimit    = 10
	maxSearchLimit = 50
	hitSections    = 3
	// maxInChars bounds the enclosing headings shown for a section.
	maxInChars = 70
	// Hit properties: at most this many characters for one value and for
	// the line.
	hitPropertyValue = 40
	hitPropertyLine  = 90
)

// SearchNotes runs a full-text search. Each hit is a note with its best
// matching sections (AGENT-CONTRACT rule 20); with path, the page is that
// one note's matching sections.
func (c *Core) SearchNotes(ctx context.Context, caller Caller, a SearchNotesArgs) *Result {
	a.Limit = min(a.Limit, maxSearchLimit)
	p, r := c.search(ctx, caller, a)
	if r != nil {
		return r
	}
	return renderSearch(caller, p)
}

// searchPage is one page of search_notes' hits, ready to render: the
// hits of one vault, or of several merged (vaults.go).
type searchPage struct {
	a         SearchNotesArgs
	data      SearchData
	relaxed   bool   // no note has every word; the hits have some
	meaningOn bool   // the vault searches by meaning too
	shownBy   string // the kind of match asked for, as the answer names it
}

// search runs search_notes up to its page of hits; r is set instead when
// the answer is something else (an error, the note the query names, one
// note's sections).
func (c *Core) search(ctx context.Context, caller Caller, a SearchNotesArgs) (p *searchPage, r *Result) {
	const tool = "search_notes"
	if r := c.need(caller, tool, "read"); r != nil {
		return nil, r
	}
	f := failure{tool: tool, path: a.Query, args: []arg{{"query", a.Query}}}
	if c.index() == nil {
		return nil, c.noIndexResult(caller, f)
	}
	lim := a.Limit
	if lim <= 0 {
		lim = searchLimit
	}
	var one *vault.Note
	if strings.TrimSpace(a.Path) != "" {
		pf := failure{tool: tool, path: a.Path, args: searchArgs(a, 0)}
		if looksLikePath(a.Path) {
			if err := c.badPath(a.Path); err != nil {
				return nil, c.fail(caller, pf, err)
			}
		}
		n, _, err := c.v.Find(a.Path)
		if err != nil {
			if ve, ok := note.AsError(err); ok {
				ve.Op = "search"
			}
			return nil, c.fail(caller, pf, err)
		}
		one = n
	} else if p, rest, ok := c.pathInQuery(a.Query); ok {
		// A question naming a note by its path ("how do I list an
		// archive with common/tar.md"): its words are searched in that
		// note; a path alone answers with the note.
		n, err := c.v.Read(p)
		if err == nil {
			if strings.TrimSpace(rest) == "" {
				if r := c.namedInstead(caller, SearchNotesArgs{Query: p}, nil, "it is the path of a note", nil); r != nil {
					return nil, r
				}
			} else {
				one, a.Query = n, rest
			}
		}
	}
	by, r := c.searchBy(caller, a)
	if r != nil {
		return nil, r
	}
	a.By = by
	c.waitForBuild(ctx)
	st := c.idx.Status()
	meaningOff := by == index.ByMeaning && !st.Meaning.On()
	shownBy := by
	if meaningOff {
		by, shownBy = index.ByWords, ""
	}
	q := index.Query{Text: a.Query, Space: a.Space, Folder: a.Folder, Tag: a.Tag, Limit: lim, Offset: max(a.Offset, 0), Sections: hitSections, By: by, Some: true}
	x := c.exclusionsFor(a.Space, a.Folder)
	if one != nil {
		q.Path = one.Path
		x.on = false // a note named by path is searched, excluded or not
	} else if x.on {
		q.NotFolders, q.NotPaths = x.folders, x.patterns
	}
	res, err := c.idx.Search(ctx, q)
	if err != nil {
		var qe *index.QueryError
		if errors.As(err, &qe) {
			if r := c.namedInstead(caller, a, one, qe.Error(), nil); r != nil {
				return nil, r
			}
			return nil, c.fail(caller, f, &note.Error{Op: "search", Kind: note.ErrInvalid, Msg: qe.Error()})
		}
		return nil, c.fail(caller, f, err)
	}
	if res.Total == 0 && res.Some == 0 && a.Offset == 0 {
		// A filter naming nothing of the vault is why first; then a
		// query that names a note answers with it.
		if one == nil {
			if r := c.unknownFilter(caller, a); r != nil {
				return nil, r
			}
		}
		if r := c.namedInstead(caller, a, one, "", res.Suggestions); r != nil {
			return nil, r
		}
	}
	data := SearchData{Query: a.Query, Total: res.Total, Some: res.Some, Offset: res.Offset, Index: res.Status.Text(), Ignored: res.Ignored, Optional: res.Optional, Options: res.Options, TagsAsWords: res.TagsAsWords, WholeOnly: res.WholeWordsOnly, Prefixes: res.Prefixes,
		Meaning: meaningText(res, meaningOff)}
	for _, s := range res.Suggestions {
		data.Suggestions = append(data.Suggestions, SearchSuggestion{Word: s.Word, Words: s.Words, Query: s.Query})
	}
	hidden, firstHidden := 0, ""
	if x.on {
		hidden, firstHidden = c.hiddenHits(ctx, q, res, a.Folder)
	}
	for _, h := range res.Hits {
		if x.hides(h.Path) {
			// A filter the index cannot apply (a regular expression
			// with anchors inside, say): left out of this page.
			hidden++
			continue
		}
		props, g := c.hitGlance(h.Path)
		ref := NoteRef{Path: h.Path, Title: h.Title, Version: note.ShortVersion(h.Version), Space: h.Space, Encoding: encodingText(g.NotText), Twin: vault.TwinNote(h.Path)}
		hit := SearchHit{NoteRef: ref, Properties: hitPropsShown(props, ref), matching: h.SectionsTotal, By: h.By, Some: h.Some, score: h.Score}
		for i, s := range h.Sections {
			sec := searchSection(s, h.Title)
			if i > 0 && one == nil {
				sec.Line, sec.Snippet, sec.In = 0, "", "" // further sections: the call that reads them
			}
			hit.Sections = append(hit.Sections, sec)
		}
		if one == nil {
			hit.MoreSections = max(0, h.SectionsTotal-len(h.Sections))
		}
		if h.Some && res.Offset < res.Total && len(hit.Sections) > 0 {
			// After notes with every word: the note and its best
			// section's heading, in case those were not the ones meant
			// (the next page shows these in full).
			hit.Properties, hit.MoreSections, hit.short = nil, 0, true
			hit.Sections = []SearchSection{{Heading: hit.Sections[0].Heading}}
		}
		if g.Conflict != nil {
			hit.Conflict = conflictData(g.Conflict, caller, false, nil)
		}
		if !hit.short {
			hit.Attachments, hit.MoreAttachments = c.hitEmbeds(h.Path, h.Version, h.Embeds, h.EmbedsKnown)
			byQuery(hit.Attachments, a.Query)
		}
		data.Hits = append(data.Hits, hit)
	}
	data.Excluded = x.data(hidden, firstHidden)
	if one != nil {
		return nil, c.searchInNote(caller, a, one, res, data)
	}
	if a.Offset <= 0 {
		top, inHit := c.savedViews(caller, a.Query, data.Hits)
		data.Views = top
		if len(inHit) > 0 {
			data.Hits[0].Views = inHit
		}
	}

	return &searchPage{a: a, data: data, relaxed: res.Relaxed, meaningOn: res.Status.Meaning.On(), shownBy: shownBy}, nil
}

// renderSearch renders a page of hits. A hit from one of several vaults
// spells its calls in its vault; the page's own calls (the next page, a
// search without filters) search where this one did.
func renderSearch(caller Caller, p *searchPage) *Result {
	const tool = "search_notes"
	a, data, shownBy := p.a, p.data, p.shownBy
	var b strings.Builder
	where := filtersText(a.Space, a.Folder, a.Tag)
	if data.Index != "" {
		b.WriteString(data.Index + "\n")
	}
	if data.Meaning != "" {
		b.WriteString(data.Meaning + "\n")
	}
	fmt.Fprintf(&b, "query: %s\n", a.Query)
	writeSearchNotices(&b, data, caller, len(data.Hits) > 0)
	if d := data.Excluded; d != nil {
		var more *call
		if d.Folder != "" {
			more = &call{tool, []arg{{"query", a.Query}, {"folder", d.Folder}}}
		}
		writeExcluded(&b, d, "matching", more, caller)
	}
	total := data.Total + data.Some
	for _, v := range data.Views {
		b.WriteString("\n")
		writeSavedView(&b, v, caller)
	}
	if len(data.Views) > 0 {
		b.WriteString("\n")
	}
	if len(data.Hits) == 0 {
		if total > 0 {
			fmt.Fprintf(&b, "no hits at offset %d%s; there are %d.\n", a.Offset, where, total)
			b.WriteString("first page: " + call{tool, searchArgs(a, 0)}.render(caller.Door))
			return &Result{Text: b.String(), Data: data}
		}
		fmt.Fprintf(&b, "0 notes match%s%s.\n", where, byText(shownBy))
		if data.Index != "" {
			b.WriteString("The index is still being built, so this may change: search again in a few seconds.\n")
		}
		if a.By == index.ByWords && p.meaningOn && data.Meaning == "" {
			b.WriteString("next: " + call{tool, searchArgs(SearchNotesArgs{Query: a.Query, Space: a.Space, Folder: a.Folder, Tag: a.Tag}, 0)}.render(caller.Door))
			return &Result{Text: b.String(), Data: data}
		}
		if len(data.Suggestions) > 0 {
			b.WriteString("next: " + call{tool, searchArgs(SearchNotesArgs{Query: data.Suggestions[0].Query, Space: a.Space, Folder: a.Folder, Tag: a.Tag}, 0)}.render(caller.Door))
			return &Result{Text: b.String(), Data: data}
		}
		b.WriteString("Try fewer or other words (German and English forms are matched, e.g. Häuser finds Haus), a prefix like proj*, or search without filters.\n")
		if where != "" {
			b.WriteString("next: " + call{tool, []arg{{"query", a.Query}}}.render(caller.Door))
		} else if words := strings.Fields(a.Query); len(words) > 1 {
			b.WriteString("next: " + call{tool, []arg{{"query", words[0]}}}.render(caller.Door))
		} else {
			b.WriteString("next: " + call{"vault_overview", nil}.render(caller.Door))
		}
		return &Result{Text: b.String(), Data: data}
	}
	fmt.Fprintf(&b, "showing notes %d–%d of %d%s%s%s", data.Offset+1, data.Offset+len(data.Hits), total, where, byText(shownBy), offsetText(data.Offset))
	if p.relaxed {
		b.WriteString(" (no note has all words; these have some)")
	}
	if data.Some > 0 {
		fmt.Fprintf(&b, " (%s every word, then %d with some of them)", plural(data.Total, "note has", "notes have"), data.Some)
	}
	b.WriteString("\n")
	for i, h := range data.Hits {
		hc := h.caller(caller)
		if h.Some && (i == 0 || !data.Hits[i-1].Some) {
			b.WriteString("\nthe notes below have some of the words, not all:\n")
		}
		b.WriteString("\n")
		writeRef(&b, h.NoteRef, "")
		if h.Vault != "" {
			b.WriteString("vault: " + h.Vault + "\n")
		}
		if h.short {
			// The call that reads its best section (see above).
			args := []arg{{"path", h.Path}}
			if s := h.Sections[0].Heading; s != "" {
				args = append(args, arg{"heading", s})
			}
			b.WriteString("read: " + call{"read_note", args}.render(hc.Door) + "\n")
			continue
		}
		if h.By != "" {
			b.WriteString("matched by: " + matchedBy[h.By] + "\n")
		}
		writeHitProperties(&b, h.Properties)
		writeEmbeds(&b, h.Attachments, h.MoreAttachments, hc.Door)
		if len(h.Sections) > 0 {
			writeSectionLines(&b, h.Sections[0])
			b.WriteString("read: " + call{"read_note", sectionArgs(h.Path, h.Sections[0])}.render(hc.Door) + "\n")
		}
		if n := len(h.Sections) - 1 + h.MoreSections; n > 0 {
			fmt.Fprintf(&b, "other sections that match: %d (listed after the hits)\n", n)
		}
		for _, v := range h.Views {
			writeSavedView(&b, v, hc)
		}
		if h.Conflict != nil {
			writeConflict(&b, h.Conflict, false, hc)
		}
	}
	// The other sections of each hit after every hit (AGENT-CONTRACT rule
	// 22): an agent that follows the lines in order reads the next note's
	// best section before a second section of this one.
	moreHeader := false
	for _, h := range data.Hits {
		hc := h.caller(caller)
		if h.short || len(h.Sections) <= 1 && h.MoreSections == 0 {
			continue
		}
		if !moreHeader {
			b.WriteString("\nother matching sections of these notes:\n")
			moreHeader = true
		}
		for _, s := range h.Sections[1:] {
			// The call that reads each (their snippets would double the
			// answer).
			b.WriteString("also: " + call{"read_note", sectionArgs(h.Path, s)}.render(hc.Door) + "\n")
		}
		if h.MoreSections > 0 {
			fmt.Fprintf(&b, "%d more in this note: %s\n", h.MoreSections, call{tool, searchArgs(SearchNotesArgs{Query: a.Query, Path: h.Path}, len(h.Sections))}.render(hc.Door))
		}
	}
	if next := data.Offset + len(data.Hits); next < total {
		b.WriteString("\nnext page: " + call{tool, searchArgs(a, next)}.render(caller.Door) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// searchInNote renders a search within one note: its matching sections,
// paged.
func (c *Core) searchInNote(caller Caller, a SearchNotesArgs, one *vault.Note, res *index.Results, data SearchData) *Result {
	const tool = "search_notes"
	var b strings.Builder
	if data.Index != "" {
		b.WriteString(data.Index + "\n")
	}
	fmt.Fprintf(&b, "query: %s\n", a.Query)
	writeSearchNotices(&b, data, caller, true)
	if len(data.Hits) == 0 {
		// The note exists (Find found it) but has none of the words.
		ref := refOf(one)
		data.Hits = []SearchHit{}
		b.WriteString("no section of this note matches.\n")
		writeRef(&b, ref, "")
		b.WriteString("next: " + call{tool, searchArgs(SearchNotesArgs{Query: a.Query, Space: a.Space, Folder: a.Folder, Tag: a.Tag}, 0)}.render(caller.Door))
		data.Hits = append(data.Hits, SearchHit{NoteRef: ref, Sections: []SearchSection{}})
		return &Result{Text: b.String(), Data: data}
	}
	h := data.Hits[0]
	writeRef(&b, h.NoteRef, "")
	writeHitProperties(&b, h.Properties)
	if h.Conflict != nil {
		writeConflict(&b, h.Conflict, false, caller)
	}
	if len(h.Sections) == 0 {
		fmt.Fprintf(&b, "no sections at offset %d; %s match.\n", a.Offset, plural(h.matching, "section", "sections"))
		b.WriteString("first page: " + call{tool, searchArgs(a, 0)}.render(caller.Door))
		return &Result{Text: b.String(), Data: data}
	}
	from := res.Hits[0].SectionsOffset
	fmt.Fprintf(&b, "showing sections %d–%d of %d%s\n", from+1, from+len(h.Sections), h.matching, offsetText(from))
	for _, s := range h.Sections {
		b.WriteString("\n")
		writeSectionLines(&b, s)
		args := []arg{{"path", h.Path}}
		if s.Heading != "" {
			args = append(args, arg{"heading", s.Heading})
		}
		b.WriteString("read: " + call{"read_note", args}.render(caller.Door) + "\n")
	}
	if next := from + len(h.Sections); next < h.matching {
		b.WriteString("\nnext page: " + call{tool, searchArgs(a, next)}.render(caller.Door) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// offsetText names a page's offset (the structured answer carries it).
func offsetText(offset int) string {
	if offset == 0 {
		return ""
	}
	return fmt.Sprintf(" (offset %d)", offset)
}

// writeSearchNotices writes what the search left out or suggests: for a
// word no note has, the vault's words spelled alike and (with calls, when
// the answer is not empty: an empty one gives it as its next call) the
// search with the first of them, which finds notes.
func writeSearchNotices(b *strings.Builder, data SearchData, caller Caller, calls bool) {
	if len(data.Ignored) > 0 {
		b.WriteString("ignored common words: " + strings.Join(data.Ignored, ", ") + "\n")
	}
	if len(data.Optional) > 0 {
		b.WriteString("counted for ranking only (also common words): " + strings.Join(data.Optional, ", ") + "\n")
	}
	if len(data.Options) > 0 {
		b.WriteString("counted for ranking only (commands' options): " + strings.Join(data.Options, ", ") + "\n")
	}
	if len(data.TagsAsWords) > 0 {
		b.WriteString("no note has the tag " + strings.Join(data.TagsAsWords, ", ") + ": counted as words, for ranking only\n")
	}
	if len(data.WholeOnly) > 0 {
		b.WriteString("searched as whole words only, without compounds and longer forms (too frequent to expand): " + strings.Join(data.WholeOnly, ", ") + "\n")
	}
	for _, p := range data.Prefixes {
		b.WriteString(p + "\n")
	}
	for _, s := range data.Suggestions {
		fmt.Fprintf(b, "no note has %q; the vault has %s\n", s.Word, strings.Join(s.Words, ", "))
		if calls {
			b.WriteString("did you mean: " + call{"search_notes", []arg{{"query", s.Query}}}.render(caller.Door) + "\n")
		} else if s.Query != data.Suggestions[0].Query {
			b.WriteString("or: " + call{"search_notes", []arg{{"query", s.Query}}}.render(caller.Door) + "\n")
		}
	}
}

// writeSectionLines writes a section's enclosing headings (when the read
// call does not show them) and its snippet.
func writeSectionLines(b *strings.Builder, s SearchSection) {
	if s.In != "" {
		b.WriteString("in: " + s.In + "\n")
	}
	if s.Snippet != "" {
		if s.Line > 0 {
			fmt.Fprintf(b, "line %d: %s\n", s.Line, s.Snippet)
		} else {
			b.WriteString("snippet: " + s.Snippet + "\n")
		}
	}
}

// searchSection turns an index section into a hit's section: named by the
// shortest form that names it alone (a law's heading path runs to 180
// characters, and read_note takes the heading's own text when no other
// heading has it), with the enclosing heading that form leaves out beside
// it — the nearest one, and none when that is the note's top heading
// repeating the title.
func searchSection(s index.SectionHit, title string) SearchSection {
	out := SearchSection{Heading: s.Heading, Line: s.Line, Snippet: s.Snippet}
	if s.Snippet == "" {
		// A heading with no text of its own: the line is of a snippet
		// only, and the read call names the section.
		out.Line = 0
	}
	if s.Ref == "" || s.Ref == s.Heading {
		return out
	}
	out.Heading = s.Ref
	parts := strings.Split(s.Heading, note.HeadingSep)
	if strings.HasSuffix(s.Heading, note.HeadingSep+s.Ref) {
		parts = strings.Split(strings.TrimSuffix(s.Heading, note.HeadingSep+s.Ref), note.HeadingSep)
	} else if len(parts) > 0 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 0 && strings.HasPrefix(foldTitle(parts[0]), foldTitle(title)) {
		parts = parts[1:] // the top heading is the title
	}
	in := strings.Join(parts, note.HeadingSep)
	for len(parts) > 1 {
		parts = parts[1:]
		in = "…" + note.HeadingSep + strings.Join(parts, note.HeadingSep)
	}
	out.In = cut(in, maxInChars)
	return out
}

func foldTitle(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// hitPropsShown are the properties a hit shows: not those that repeat (a
// part of) the title or a part of the path (a slug), each value cut to
// hitPropertyValue characters, as many as fit hitPropertyLine.
func hitPropsShown(props []PropertyData, ref NoteRef) []PropertyData {
	segs := map[string]bool{}
	for _, s := range strings.Split(strings.TrimSuffix(ref.Path, ".md"), "/") {
		segs[strings.ToLower(s)] = true
	}
	var out []PropertyData
	n := 0
	for _, p := range props {
		v := strings.ToLower(strings.TrimSpace(p.Value))
		if segs[v] || len(v) >= 3 && strings.Contains(strings.ToLower(ref.Title), v) {
			continue // the path or the title says it
		}
		p.Value = cut(p.Value, hitPropertyValue)
		w := utf8.RuneCountInString(p.Key) + utf8.RuneCountInString(p.Value) + 4
		if n+w > hitPropertyLine && len(out) > 0 {
			break
		}
		n += w
		out = append(out, p)
	}
	return out
}

// writeHitProperties writes a hit's properties on one line.
func writeHitProperties(b *strings.Builder, props []PropertyData) {
	if len(props) == 0 {
		return
	}
	parts := make([]string, len(props))
	for i, p := range props {
		v := p.Value
		if v == "" {
			v = "(empty)"
		}
		parts[i] = p.Key + ": " + v
	}
	b.WriteString("properties: " + strings.Join(parts, " · ") + "\n")
}

func searchArgs(a SearchNotesArgs, offset int) []arg {
	args := []arg{{"query", a.Query}}
	for _, kv := range []arg{{"space", a.Space}, {"folder", a.Folder}, {"tag", a.Tag}, {"path", a.Path}, {"by", a.By}} {
		if kv.value != "" {
			args = append(args, kv)
		}
	}
	if a.Limit > 0 {
		args = append(args, arg{"limit", a.Limit})
	}
	if offset > 0 {
		args = append(args, arg{"offset", offset})
	}
	return args
}

func filtersText(space, folder, tag string) string {
	var parts []string
	if space != "" {
		parts = append(parts, "space "+space)
	}
	if folder != "" {
		parts = append(parts, "folder "+folder)
	}
	if tag != "" {
		parts = append(parts, "tag #"+strings.TrimPrefix(tag, "#"))
	}
	if len(parts) == 0 {
		return ""
	}
	return " in " + strings.Join(parts, ", ")
}

// GetBacklinksArgs are the arguments of get_backlinks.
type GetBacklinksArgs struct {
	Path string `json:"path" jsonschema:"path, title, alias or [[wikilink]]"`
}

// BacklinkItem is one link to the note.
type BacklinkItem struct {
	From    NoteRef `json:"from"`
	Line    int     `json:"line"`
	Context string  `json:"context"`
	Heading string  `json:"heading,omitempty"`
}

// BacklinksData is get_backlinks' structured answer.
type BacklinksData struct {
	Note  NoteRef        `json:"note"`
	Links []BacklinkItem `json:"links"`
	Notes int            `json:"linking_notes"`
	Index string         `json:"index_status,omitempty"`
}

// maxBacklinks bounds one answer.
const maxBacklinks = 50

// GetBacklinks lists the notes that link to a note, with the line of each link.
func (c *Core) GetBacklinks(ctx context.Context, caller Caller, a GetBacklinksArgs) *Result {
	const tool = "get_backlinks"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}}}
	if c.index() == nil {
		return c.noIndexResult(caller, f)
	}
	if looksLikePath(a.Path) {
		if err := c.badPath(a.Path); err != nil {
			return c.fail(caller, f, err)
		}
	}
	n, _, err := c.v.Find(a.Path)
	if err != nil {
		if ve, ok := note.AsError(err); ok {
			ve.Op = "backlinks"
		}
		return c.fail(caller, f, err)
	}
	links, err := c.idx.Backlinks(ctx, n.Path)
	if err != nil {
		return c.fail(caller, f, err)
	}
	data := BacklinksData{Note: refOf(n), Index: c.idx.Status().Text()}
	seen := map[string]bool{}
	for _, l := range links {
		if l.Path == n.Path && l.Fragment != "" && l.Raw == "" {
			continue // [[#Heading]] inside the note itself
		}
		seen[l.Path] = true
		if len(data.Links) < maxBacklinks {
			data.Links = append(data.Links, BacklinkItem{
				From:    NoteRef{Path: l.Path, Title: l.Title, Version: note.ShortVersion(l.Version), Space: l.Space, Encoding: encodingText(c.v.NotTextAt(l.Path)), Twin: vault.TwinNote(l.Path)},
				Line:    l.Line,
				Context: l.Context,
				Heading: l.Fragment,
			})
		}
	}
	data.Notes = len(seen)
	var b strings.Builder
	if data.Index != "" {
		b.WriteString(data.Index + "\n")
	}
	if len(data.Links) == 0 {
		b.WriteString("no note links to this note.\n")
		writeRef(&b, data.Note, "")
		b.WriteString("next: " + call{"search_notes", []arg{{"query", n.Title}}}.render(caller.Door))
		return &Result{Text: b.String(), Data: data}
	}
	fmt.Fprintf(&b, "%s from %s link to this note", plural(len(links), "link", "links"), plural(data.Notes, "note", "notes"))
	if len(links) > len(data.Links) {
		fmt.Fprintf(&b, " (showing the first %d)", len(data.Links))
	}
	b.WriteString(":\n")
	writeRef(&b, data.Note, "")
	prev := ""
	for _, l := range data.Links {
		if l.From.Path != prev {
			b.WriteString("\n")
			writeRef(&b, l.From, "")
			prev = l.From.Path
		}
		fmt.Fprintf(&b, "line %d: %s\n", l.Line, l.Context)
		if l.Heading != "" {
			b.WriteString("links to heading: " + l.Heading + "\n")
		}
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// noIndexResult answers search and backlinks when this process has no index.
func (c *Core) noIndexResult(caller Caller, f failure) *Result {
	why := "this vaultd runs without a search index"
	if c.noIndex != nil {
		// Host paths stay out of answers.
		why = scrubHostPaths(scrubHostPaths(c.noIndex.Error(), c.v.StateDir()), c.v.Dir())
		if !errors.Is(c.noIndex, index.ErrBusy) {
			why = "the search index could not be opened: " + why
		}
	}
	r := c.fail(caller, f, &note.Error{Op: f.tool, Kind: note.ErrInvalid, Msg: why})
	r.Text += "\nReading, listing and writing work; find notes with " + call{"list_notes", nil}.render(caller.Door) + " and read_note meanwhile."
	return r
}

// Bounds of the properties shown with a search hit: the first few, read
// from the start of the file only (frontmatter is at the top; a law text of
// 2 MB is not read whole for its title).
const (
	hitProperties    = 6
	hitPropertyBytes = 64 << 10
	// hitPropertyHead is read first: most frontmatter ends within it, so
	// a search reads a few KB per hit rather than 64 KB (which, allocated
	// and read for each of 10 hits, was a tenth of a search's CPU under
	// load).
	hitPropertyHead = 4 << 10
)

// hitGlance is what a search hit shows of its note besides the index's
// answer, from one open of it (vault.Glance): its first properties,
// whether it is text, and its conflict.
func (c *Core) hitGlance(p string) ([]PropertyData, vault.Glance) {
	var head [hitPropertyHead]byte
	g := c.v.Glance(p, head[:])
	if !g.Found {
		return nil, g
	}
	return c.headProperties(p, head[:g.Head], g.Whole), g
}

// hitProperties returns the first properties of a note for a search hit.
func (c *Core) hitProperties(p string) []PropertyData {
	props, _ := c.hitGlance(p)
	return props
}

// headProperties are the first properties of the note at p whose first
// bytes are head (whole: all of it), read further when its frontmatter
// goes on past them.
func (c *Core) headProperties(p string, head []byte, whole bool) []PropertyData {
	src := head
	if !whole { // more follows: is the frontmatter within the head?
		src = nil
		if nl := bytes.LastIndexByte(head, '\n'); nl >= 0 {
			// Whole lines only, so that a fence is never a cut-off line.
			lines := head[:nl+1]
			first, _, _ := bytes.Cut(bytes.TrimPrefix(lines, []byte("\xef\xbb\xbf")), []byte("\n"))
			if string(bytes.TrimRight(first, " \t\r")) != "---" {
				return nil // no frontmatter
			}
			if _, _, _, ok := note.SplitFrontmatter(lines); ok {
				src = lines // the same properties as from 64 KB: they end at the fence
			}
		}
		if src == nil { // a long frontmatter: up to hitPropertyBytes of it
			f, err := c.v.FS().Open(p)
			if err != nil {
				return nil
			}
			buf := make([]byte, hitPropertyBytes)
			n, _ := io.ReadFull(f, buf)
			f.Close()
			src = buf[:n]
		}
	}
	// The properties depend on the bytes up to the closing fence only;
	// notes share their frontmatter often (templates) and are hit again
	// and again, so the YAML parse (a third of a hit's cost) is remembered
	// by those bytes.
	_, _, end, ok := note.SplitFrontmatter(src)
	if !ok {
		return nil
	}
	key := string(src[:end])
	if out, ok := hitProps.get(key); ok {
		return out
	}
	var out []PropertyData
	for _, pr := range note.FrontmatterProperties(src[:end]) {
		if len(out) == hitProperties {
			break
		}
		if pr.Key == "aliases" || pr.Key == "alias" {
			continue
		}
		out = append(out, PropertyData{Key: pr.Key, Value: cut(oneLine(pr.Text()), maxPropertyChars)})
	}
	hitProps.put(key, out)
	return slices.Clip(out)
}

// hiddenHits counts the notes matching q that Obsidian's filters left
// out of res (q.NotFolders, q.NotPaths), and names the first one found in
// an excluded folder ("" when only other filters hid notes); folder is
// the folder the caller searched ("" for none).
func (c *Core) hiddenHits(ctx context.Context, q index.Query, res *index.Results, folder string) (int, string) {
	if len(q.NotFolders)+len(q.NotPaths) == 0 {
		return 0, ""
	}
	all := q
	all.NotFolders, all.NotPaths, all.Limit, all.Offset = nil, nil, 1, 0
	r, err := c.idx.Search(ctx, all)
	if err != nil || r.Total <= res.Total {
		return 0, ""
	}
	n := r.Total - res.Total
	folder = strings.ToLower(strings.Trim(folder, "/"))
	for _, f := range q.NotFolders {
		if folder != "" && !strings.HasPrefix(strings.ToLower(f)+"/", folder+"/") {
			continue // outside the folder searched
		}
		cq := all
		cq.Folder = f
		if r, err := c.idx.Search(ctx, cq); err == nil && len(r.Hits) > 0 {
			return n, r.Hits[0].Path
		}
	}
	return n, ""
}

// pathInQuery finds the one word of query that is the exact path of a note
// (with or without .md), and returns it and the query without it; false
// when there is none or more than one, or the path is a quoted phrase.
func (c *Core) pathInQuery(query string) (p, rest string, ok bool) {
	if strings.Contains(query, `"`) {
		return "", "", false
	}
	words := strings.Fields(query)
	at := -1
	for i, w := range words {
		w = strings.TrimRight(w, "?!.,;:")
		if !strings.Contains(w, "/") {
			continue
		}
		cp, err := note.NotePath(strings.TrimPrefix(w, "/"))
		if err != nil || !c.v.Exists(cp) {
			continue
		}
		if at >= 0 {
			return "", "", false // two paths: the words are the question's
		}
		at, p = i, cp
	}
	if at < 0 {
		return "", "", false
	}
	return p, strings.Join(append(append([]string(nil), words[:at]...), words[at+1:]...), " "), true
}

// sectionArgs are read_note's arguments for one section of a hit.
func sectionArgs(p string, s SearchSection) []arg {
	args := []arg{{"path", p}}
	if s.Heading != "" {
		args = append(args, arg{"heading", s.Heading})
	}
	return args
}

// namedInstead answers a search whose words find nothing — or that has no
// words to search, only common ones or punctuation ("am", "!", "du") —
// with the note whose name it is (a title, alias, file name or path, as
// read_note finds it), or the notes with a name like it: people and agents
// search for the name of the note they mean, a path, or a name with a
// slip. nil when the query names nothing close, or is limited to a note,
// a space, a folder or a tag (the words were asked for there).
func (c *Core) namedInstead(caller Caller, a SearchNotesArgs, one *vault.Note, reason string, sugg []index.Suggestion) *Result {
	const tool = "search_notes"
	if one != nil || a.Space != "" || a.Folder != "" || a.Tag != "" || strings.TrimSpace(a.Query) == "" {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "query: %s\n", a.Query)
	if reason != "" {
		fmt.Fprintf(&b, "no words to search: %s.\n", reason)
	} else {
		b.WriteString("0 notes have these words.\n")
	}
	data := SearchData{Query: a.Query, Hits: []SearchHit{}}
	n, _, err := c.v.Find(a.Query)
	if err == nil {
		ref := refOf(n)
		data.Total = 1
		data.Hits = append(data.Hits, SearchHit{NoteRef: ref, By: "name", Sections: []SearchSection{}})
		b.WriteString("A note has this name:\n\n")
		writeRef(&b, ref, "")
		b.WriteString("matched by: " + matchedBy["name"] + "\n")
		b.WriteString("read: " + call{"read_note", []arg{{"path", n.Path}}}.render(caller.Door) + "\n")
		return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
	}
	ve, ok := note.AsError(err)
	if !ok || ve.AltKind != "notes" || len(ve.Alternatives) == 0 {
		return nil
	}
	paths, why := limit(ve.Alternatives, maxAlternatives), ve.AltWhy
	if errors.Is(err, note.ErrAmbiguous) {
		b.WriteString("Several notes have this name:\n")
		why = c.titlesOf(paths)
	} else {
		closeN := min(ve.AltClose, len(paths))
		if closeN == 0 {
			return nil // no name is close: the answer without hits says what to try
		}
		paths = paths[:closeN]
		b.WriteString("Notes with a name like it, nearest first:\n")
	}
	refs := c.noteRefs()
	for i, p := range paths {
		ref := refs.at(p)
		data.Hits = append(data.Hits, SearchHit{NoteRef: ref, By: "name", Sections: []SearchSection{}})
		b.WriteString("\n")
		writeRef(&b, ref, "")
		if i < len(why) && why[i] != "" {
			b.WriteString("name: " + why[i] + "\n")
		}
		b.WriteString("read: " + call{"read_note", []arg{{"path", p}}}.render(caller.Door) + "\n")
	}
	for _, sg := range sugg {
		data.Suggestions = append(data.Suggestions, SearchSuggestion{Word: sg.Word, Words: sg.Words, Query: sg.Query})
	}
	if len(data.Suggestions) > 0 {
		// The words spelled as the vault spells them find notes too.
		b.WriteString("\nor search: " + call{tool, []arg{{"query", data.Suggestions[0].Query}}}.render(caller.Door) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// matchedBy names how a hit matched, for the text.
var matchedBy = map[string]string{
	"name":          "its name (the words as a whole are its title, an alias, its file name or its path)",
	index.ByWords:   "words",
	index.ByMeaning: "meaning (none of the words need occur)",
	index.ByBoth:    "both (words and meaning)",
}

// byText names one kind of match asked for: " by meaning".
func byText(by string) string {
	if by == "" {
		return ""
	}
	return " by " + by
}

// searchBy checks search_notes' by: "words", "meaning", or "" and "both"
// for both (returned as "").
func (c *Core) searchBy(caller Caller, a SearchNotesArgs) (string, *Result) {
	switch by := strings.ToLower(strings.TrimSpace(a.By)); by {
	case "", index.ByBoth:
		return "", nil
	case index.ByWords, index.ByMeaning:
		return by, nil
	}
	f := failure{tool: "search_notes", path: a.Query, args: []arg{{"query", a.Query}, {"by", a.By}}}
	r := c.fail(caller, f, &note.Error{Op: "search", Kind: note.ErrInvalid,
		Msg: fmt.Sprintf("by %q is no kind of match: give \"words\" or \"meaning\", or leave it out for both", a.By)})
	fixed := a
	fixed.By = ""
	r.Text = strings.TrimRight(r.Text, "\n") + "\nnext: " + call{"search_notes", searchArgs(fixed, 0)}.render(caller.Door)
	return "", r
}

// meaningText is the line saying what search by meaning could not do for
// an answer, "" when it took part in full or is off.
func meaningText(res *index.Results, off bool) string {
	switch {
	case off:
		return "meaning search is off for this vault (its owner turns it on with vaultd serve --embedder and a model, see the README); the hits are by words"
	case res.MeaningProblem != "":
		return "meaning search failed for this query (" + res.MeaningProblem + "); the hits are by words only"
	}
	return res.MeaningCoverage
}
