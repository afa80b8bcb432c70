package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/vault"
)

// Index is what the core needs of the search index. It is declared here,
// where it is consumed; *index.Index implements it.
type Index interface {
	Search(ctx context.Context, q index.Query) (*index.Results, error)
	Backlinks(ctx context.Context, path string) ([]index.Backlink, error)
	Status() index.Status
	Update(paths ...string) error
	WaitReady(ctx context.Context) error
}

// buildWait is how long a search waits for an index that is still
// building: a small vault is done by then, a large one answers with what it
// has and says how far the build is.
const buildWait = 2 * time.Second

var _ Index = (*index.Index)(nil)

// SearchNotesArgs are the arguments of search_notes.
type SearchNotesArgs struct {
	Query  string `json:"query" jsonschema:"words (all must occur), \"a phrase\", -exclude, prefix*, key=value"`
	Space  string `json:"space,omitempty" jsonschema:"top-level folder"`
	Folder string `json:"folder,omitempty" jsonschema:"with sub-folders"`
	Tag    string `json:"tag,omitempty" jsonschema:"nested tags too"`
	Limit  int    `json:"limit,omitempty"`
	Offset int    `json:"offset,omitempty"`
}

// SearchHit is one hit of search_notes.
type SearchHit struct {
	NoteRef
	Properties []PropertyData `json:"properties,omitempty"`
	Section    string         `json:"section,omitempty"`
	Line       int            `json:"line,omitempty"`
	Snippet    string         `json:"snippet,omitempty"`
	// Conflict is set when the note holds unresolved merge conflicts.
	Conflict *ConflictData `json:"conflict,omitempty"`
}

// SearchData is search_notes' structured answer.
type SearchData struct {
	Query  string      `json:"query"`
	Hits   []SearchHit `json:"hits"`
	Total  int         `json:"total"`
	Offset int         `json:"offset"`
	Index  string      `json:"index_status,omitempty"`
}

// SearchNotes runs a full-text search.
func (c *Core) SearchNotes(ctx context.Context, caller Caller, a SearchNotesArgs) *Result {
	const tool = "search_notes"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Query, args: []arg{{"query", a.Query}}}
	if c.idx == nil {
		return c.noIndexResult(caller, f)
	}
	lim := a.Limit
	if lim <= 0 {
		lim = 10
	}
	lim = min(lim, 50)
	if c.idx.Status().Building {
		wctx, cancel := context.WithTimeout(ctx, buildWait)
		_ = c.idx.WaitReady(wctx)
		cancel()
	}
	res, err := c.idx.Search(ctx, index.Query{Text: a.Query, Space: a.Space, Folder: a.Folder, Tag: a.Tag, Limit: lim, Offset: max(a.Offset, 0)})
	if err != nil {
		var qe *index.QueryError
		if errors.As(err, &qe) {
			return c.fail(caller, f, &vault.Error{Op: "search", Kind: vault.ErrInvalid, Msg: qe.Error()})
		}
		return c.fail(caller, f, err)
	}
	data := SearchData{Query: a.Query, Total: res.Total, Offset: res.Offset, Index: res.Status.Text()}
	for _, h := range res.Hits {
		hit := SearchHit{
			NoteRef:    NoteRef{Path: h.Path, Title: h.Title, Version: vault.ShortVersion(h.Version), Space: h.Space},
			Properties: c.hitProperties(h.Path),
			Section:    h.Heading, Line: h.Line, Snippet: h.Snippet,
		}
		if nc := c.v.ConflictAt(h.Path); nc != nil {
			hit.Conflict = conflictData(nc, caller, false, nil)
		}
		data.Hits = append(data.Hits, hit)
	}

	var b strings.Builder
	where := filtersText(a.Space, a.Folder, a.Tag)
	if data.Index != "" {
		b.WriteString(data.Index + "\n")
	}
	if len(data.Hits) == 0 {
		if data.Total > 0 {
			fmt.Fprintf(&b, "query: %s\nno hits at offset %d%s; there are %d.\n", a.Query, a.Offset, where, data.Total)
			b.WriteString("first page: " + call{tool, searchArgs(a, 0)}.render(caller.Door))
			return &Result{Text: b.String(), Data: data}
		}
		fmt.Fprintf(&b, "query: %s\n0 notes match%s.\n", a.Query, where)
		if data.Index != "" {
			b.WriteString("The index is still being built, so this may change: search again in a few seconds.\n")
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
	fmt.Fprintf(&b, "query: %s\nshowing hits %d–%d of %d%s", a.Query, data.Offset+1, data.Offset+len(data.Hits), data.Total, where)
	if res.Relaxed {
		b.WriteString(" (no note has all words; these have some)")
	}
	b.WriteString("\n")
	if len(res.Ignored) > 0 {
		b.WriteString("ignored common words: " + strings.Join(res.Ignored, ", ") + "\n")
	}
	for _, h := range data.Hits {
		b.WriteString("\n")
		writeRef(&b, h.NoteRef, "")
		writeProperties(&b, h.Properties, "properties")
		if h.Section != "" {
			b.WriteString("section: " + h.Section + "\n")
		}
		if h.Snippet != "" {
			if h.Line > 0 {
				fmt.Fprintf(&b, "line %d: %s\n", h.Line, h.Snippet)
			} else {
				b.WriteString("snippet: " + h.Snippet + "\n")
			}
		}
		if h.Conflict != nil {
			writeConflict(&b, h.Conflict, false, caller)
		}
		args := []arg{{"path", h.Path}}
		if h.Section != "" {
			args = append(args, arg{"heading", h.Section})
		}
		b.WriteString("read: " + call{"read_note", args}.render(caller.Door) + "\n")
	}
	if next := data.Offset + len(data.Hits); next < data.Total {
		b.WriteString("\nnext page: " + call{tool, searchArgs(a, next)}.render(caller.Door) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

func searchArgs(a SearchNotesArgs, offset int) []arg {
	args := []arg{{"query", a.Query}}
	for _, kv := range []arg{{"space", a.Space}, {"folder", a.Folder}, {"tag", a.Tag}} {
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
	if c.idx == nil {
		return c.noIndexResult(caller, f)
	}
	if looksLikePath(a.Path) {
		if _, err := vault.CleanPath(a.Path); err != nil {
			return c.fail(caller, f, err)
		}
	}
	n, _, err := c.v.Find(a.Path)
	if err != nil {
		if ve, ok := vault.AsError(err); ok {
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
				From:    NoteRef{Path: l.Path, Title: l.Title, Version: vault.ShortVersion(l.Version), Space: l.Space},
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
		why = c.noIndex.Error()
	}
	r := c.fail(caller, f, &vault.Error{Op: f.tool, Kind: vault.ErrInvalid, Msg: why})
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

// hitProperties returns the first properties of a note for a search hit.
func (c *Core) hitProperties(p string) []PropertyData {
	f, err := c.v.FS().Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var head [hitPropertyHead]byte
	n, err := io.ReadFull(f, head[:])
	src := head[:n]
	if err == nil { // more follows: is the frontmatter within the head?
		src = nil
		if nl := bytes.LastIndexByte(head[:n], '\n'); nl >= 0 {
			// Whole lines only, so that a fence is never a cut-off line.
			lines := head[:nl+1]
			first, _, _ := bytes.Cut(bytes.TrimPrefix(lines, []byte("\xef\xbb\xbf")), []byte("\n"))
			if string(bytes.TrimRight(first, " \t\r")) != "---" {
				return nil // no frontmatter
			}
			if _, _, _, ok := vault.SplitFrontmatter(lines); ok {
				src = lines // the same properties as from 64 KB: they end at the fence
			}
		}
		if src == nil {
			buf := make([]byte, hitPropertyBytes)
			copy(buf, head[:n])
			m, _ := io.ReadFull(f, buf[n:])
			src = buf[:n+m]
		}
	}
	// The properties depend on the bytes up to the closing fence only;
	// notes share their frontmatter often (templates) and are hit again
	// and again, so the YAML parse (a third of a hit's cost) is remembered
	// by those bytes.
	_, _, end, ok := vault.SplitFrontmatter(src)
	if !ok {
		return nil
	}
	key := string(src[:end])
	if out, ok := hitProps.get(key); ok {
		return out
	}
	var out []PropertyData
	for _, pr := range vault.FrontmatterProperties(src[:end]) {
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
