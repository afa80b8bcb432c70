package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// SimilarNotesArgs are the arguments of search_similar_notes.
type SimilarNotesArgs struct {
	Path    string `json:"path" jsonschema:"the note: path, title, alias or [[wikilink]]"`
	Heading string `json:"heading,omitempty" jsonschema:"one section of it: notes like this section" help:"only this section: notes like it"`
	Limit   int    `json:"limit,omitempty" default:"5" help:"notes per page"`
	Offset  int    `json:"offset,omitempty" help:"notes to skip, for the next page"`
}

// SimilarHit is one note like the source, with its most similar sections.
type SimilarHit struct {
	NoteRef
	// Shared are the source's words its first section has.
	Shared       []string        `json:"shared_words"`
	Sections     []SearchSection `json:"sections"`
	MoreSections int             `json:"more_sections,omitempty"`
	// By says how the note was found where the vault searches by
	// meaning too: "words", "meaning" or "both".
	By string `json:"matched_by,omitempty"`
}

// SimilarData is search_similar_notes' structured answer.
type SimilarData struct {
	Source  NoteRef      `json:"source"`
	Section string       `json:"section,omitempty"`
	Words   []string     `json:"words"`
	Hits    []SimilarHit `json:"hits"`
	Total   int          `json:"total"`
	Offset  int          `json:"offset"`
	Index   string       `json:"index_status,omitempty"`
	// Meaning says what search by meaning could not do for this answer.
	Meaning string `json:"meaning_search,omitempty"`
}

// Bounds of search_similar_notes' answers.
const (
	similarLimit    = 5
	maxSimilarLimit = 20
)

// SearchSimilarNotes lists the notes most like a note or one section of
// it, by the words they share (a more-like-this over the index).
func (c *Core) SearchSimilarNotes(ctx context.Context, caller Caller, a SimilarNotesArgs) *Result {
	const tool = "search_similar_notes"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}}}
	if a.Heading != "" {
		f.args = append(f.args, arg{"heading", a.Heading})
	}
	if c.index() == nil {
		return c.noIndexResult(caller, f)
	}
	if strings.TrimSpace(a.Path) == "" {
		return c.fail(caller, f, &note.Error{Op: "similar", Kind: note.ErrInvalid,
			Msg: "path is empty: give the note to compare, by path, title, alias or [[wikilink]]"})
	}
	if looksLikePath(a.Path) {
		if err := c.badPath(a.Path); err != nil {
			return c.fail(caller, f, err)
		}
	}
	n, linkHeading, err := c.v.Find(a.Path)
	if err != nil {
		if ve, ok := note.AsError(err); ok {
			ve.Op = "similar"
		}
		return c.fail(caller, f, err)
	}
	f.note = n
	heading := a.Heading
	if heading == "" {
		heading = linkHeading
	}
	q := index.SimilarQuery{Path: n.Path, Offset: max(a.Offset, 0)}
	lim := a.Limit
	if lim <= 0 {
		lim = similarLimit
	}
	q.Limit = min(lim, maxSimilarLimit)
	data := SimilarData{Source: refOf(n)}
	if heading != "" {
		h, err := n.Doc.Section(heading)
		if err != nil {
			if ve, ok := note.AsError(err); ok {
				ve.Op, ve.Path = "similar", n.Path
			}
			f.args = []arg{{"path", n.Path}, {"heading", heading}}
			return c.fail(caller, f, err)
		}
		q.Section = n.Doc.HeadingIndex(h) + 1
		data.Section = h.PathString()
	}
	c.waitForBuild(ctx)
	res, err := c.idx.Similar(ctx, q)
	if err != nil {
		var qe *index.QueryError
		if errors.As(err, &qe) {
			return c.fail(caller, f, &note.Error{Op: "similar", Path: n.Path, Kind: note.ErrInvalid, Msg: qe.Msg + "; the index may still be catching up: try again in a few seconds"})
		}
		return c.fail(caller, f, err)
	}
	data.Words, data.Total, data.Offset, data.Index, data.Meaning = res.Words, res.Total, res.Offset, res.Status.Text(), res.MeaningCoverage
	if data.Words == nil {
		data.Words = []string{}
	}
	data.Hits = []SimilarHit{}
	for _, h := range res.Hits {
		hit := SimilarHit{NoteRef: NoteRef{Path: h.Path, Title: h.Title, Version: note.ShortVersion(h.Version), Space: h.Space, Encoding: encodingText(c.v.NotTextAt(h.Path)), Twin: vault.TwinNote(h.Path)},
			Shared: h.Shared, MoreSections: max(0, h.SectionsTotal-len(h.Sections)), By: h.By}
		if hit.Shared == nil {
			hit.Shared = []string{}
		}
		for i, s := range h.Sections {
			sec := searchSection(s, h.Title)
			if i > 0 {
				sec.Line, sec.Snippet, sec.In = 0, "", ""
			}
			hit.Sections = append(hit.Sections, sec)
		}
		data.Hits = append(data.Hits, hit)
	}
	return &Result{Text: similarText(caller, a, data), Data: data}
}

// similarText renders search_similar_notes' answer.
func similarText(caller Caller, a SimilarNotesArgs, data SimilarData) string {
	const tool = "search_similar_notes"
	var b strings.Builder
	if data.Index != "" {
		b.WriteString(data.Index + "\n")
	}
	if data.Meaning != "" {
		b.WriteString(data.Meaning + "\n")
	}
	if data.Section != "" {
		b.WriteString("notes like this section:\n")
	} else {
		b.WriteString("notes like this note:\n")
	}
	writeRef(&b, data.Source, "")
	if data.Section != "" {
		b.WriteString("section: " + data.Section + "\n")
	}
	again := SimilarNotesArgs{Path: data.Source.Path, Heading: data.Section, Limit: a.Limit}
	if len(data.Words) == 0 && len(data.Hits) == 0 && data.Total == 0 {
		b.WriteString("it has no words that other notes have (too short, or only very common words), so no note is alike by words.\n")
		b.WriteString("next: " + call{"read_note", readArgs(data.Source.Path, data.Section)}.render(caller.Door))
		return b.String()
	}
	if len(data.Words) > 0 {
		b.WriteString("compared by its words, weightiest first: " + strings.Join(data.Words, ", ") + "\n")
	} else {
		b.WriteString("compared by meaning only: it has no words that other notes have\n")
	}
	for _, w := range data.Words {
		if strings.HasPrefix(w, "-") {
			b.WriteString("(a word with a leading - is the last part of its compounds: " + w + ")\n")
			break
		}
	}
	if len(data.Hits) == 0 {
		if data.Total > 0 {
			fmt.Fprintf(&b, "no notes at offset %d; %s alike.\n", data.Offset, plural(data.Total, "note is", "notes are"))
			b.WriteString("first page: " + call{tool, similarArgs(again, 0)}.render(caller.Door))
			return b.String()
		}
		b.WriteString("no other note has these words.\n")
		words := data.Words[:min(2, len(data.Words))]
		b.WriteString("next: " + call{"search_notes", []arg{{"query", strings.Join(words, " ")}}}.render(caller.Door))
		return b.String()
	}
	fmt.Fprintf(&b, "showing notes %d–%d of %d%s\n", data.Offset+1, data.Offset+len(data.Hits), data.Total, offsetText(data.Offset))
	for _, h := range data.Hits {
		b.WriteString("\n")
		writeRef(&b, h.NoteRef, "")
		if h.By != "" {
			b.WriteString("matched by: " + matchedBy[h.By] + "\n")
		}
		if len(h.Shared) > 0 {
			b.WriteString("shares: " + strings.Join(h.Shared, ", ") + "\n")
		}
		for i, s := range h.Sections {
			args := readArgs(h.Path, s.Heading)
			if i > 0 {
				b.WriteString("also: " + call{"read_note", args}.render(caller.Door) + "\n")
				continue
			}
			writeSectionLines(&b, s)
			b.WriteString("read: " + call{"read_note", args}.render(caller.Door) + "\n")
		}
		if h.MoreSections > 0 {
			fmt.Fprintf(&b, "sections: %d more alike\n", h.MoreSections)
		}
	}
	if next := data.Offset + len(data.Hits); next < data.Total {
		b.WriteString("\nnext page: " + call{tool, similarArgs(again, next)}.render(caller.Door) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func readArgs(p, heading string) []arg {
	args := []arg{{"path", p}}
	if heading != "" {
		args = append(args, arg{"heading", heading})
	}
	return args
}

func similarArgs(a SimilarNotesArgs, offset int) []arg {
	args := readArgs(a.Path, a.Heading)
	if a.Limit > 0 {
		args = append(args, arg{"limit", a.Limit})
	}
	if offset > 0 {
		args = append(args, arg{"offset", offset})
	}
	return args
}
