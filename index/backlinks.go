package index

import (
	"context"
	"sort"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/vaultd/vaultd/note"
)

// Backlink is one link to a note from another note.
type Backlink struct {
	Path    string // the linking note
	Title   string
	Version string
	Space   string

	Line     int    // 1-based line of the link in the linking note
	Context  string // that line (trimmed; long lines cut around the link)
	Raw      string // the link target as written ("Note", "folder/Note.md")
	Fragment string // the heading ("Heading") or block ("^id") linked to, if any
	Embed    bool   // ![[…]]
	// Ambiguous: the link matches this note and others equally well;
	// Obsidian opens one of them, not predictably.
	Ambiguous bool
	// Unresolved: the note does not exist; the link names it and would
	// resolve once it is created.
	Unresolved bool
}

// Backlinks returns every link to the note at p from other notes (and from
// p itself, if it links to itself by name), sorted by linking note and line:
// links by path, file name, alias or to one of its #headings alike. For a
// path that does not exist, the unresolved links naming it are returned.
// Errors: ErrClosed, ctx errors.
func (ix *Index) Backlinks(ctx context.Context, p string) ([]Backlink, error) {
	if ix.closed.Load() {
		return nil, ErrClosed
	}
	// The resolver knows every file; asking it avoids waiting for a batch
	// being committed.
	res := ix.resolver.Load().ResolveName("", p)
	exists := res.Status == note.Resolved && res.Target == p

	qs := []query.Query{term(fLinks, p, 1)}
	if !exists {
		qs = append(qs, term(fLinkKeys, pathKey(p), 1))
	}
	var out []Backlink
	const page = 500
	for from := 0; ; from += page {
		req := bleve.NewSearchRequestOptions(disjunction(qs), page, from, false)
		req.Fields = []string{fTitle, fVersion, fSpace, fLinkInfo}
		req.SortBy([]string{"_id"})
		res, err := ix.bi.SearchInContext(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			for _, l := range decodeLinks(fieldString(h, fLinkInfo)) {
				bl := Backlink{Path: h.ID, Title: fieldString(h, fTitle), Version: fieldString(h, fVersion), Space: fieldString(h, fSpace),
					Line: l.Line, Context: l.Context, Raw: l.Raw, Fragment: l.Fragment, Embed: l.Embed}
				switch {
				case l.Target == p:
				case containsString(l.Candidates, p):
					bl.Ambiguous = true
				case !exists && l.Target == "" && len(l.Candidates) == 0 && linkKey(l.Raw) == pathKey(p):
					bl.Unresolved = true
				default:
					continue
				}
				out = append(out, bl)
			}
		}
		if len(res.Hits) < page {
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
