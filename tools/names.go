package tools

import (
	"context"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/note"
)

// nameSearchWait bounds the search an error runs for its suggestions: a
// missing note's closest notes, a missed heading's sections. Past it the
// error goes out with what the names alone found.
const nameSearchWait = 2 * time.Second

// searchTerms turns a reference or a heading into plain words for a
// search: letters and digits only, so that nothing in it reads as query
// syntax ("-", "*", quotes, "key=value").
func searchTerms(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	}), " ")
}

// refWords are the words a note reference names the note by: the name of
// its last part, a folder note's folder name for x/Name/index.md
// (vault.NoteName), without brackets, label or heading.
func refWords(ref string) string {
	t, _ := note.SplitLinkText(ref)
	t = strings.Trim(strings.TrimSpace(t), "/")
	if t == "" {
		return ""
	}
	if path.Ext(t) == "" {
		t += ".md"
	}
	return searchTerms(note.NoteName(t))
}

// closestBySearch extends the closest notes of a missing reference (found
// by name: vault.NameTable) with what the index finds for the reference's
// words, up to maxAlternatives: notes whose names are not like the
// reference but whose title, aliases, folder-note folder name or text hold
// its words — an English word for a German note reaches it this way when
// the note's text uses it. Name matches stay first.
func (c *Core) closestBySearch(ref string, byName []string) []string {
	out := limit(byName, maxAlternatives)
	words := refWords(ref)
	if c.index() == nil || words == "" || len(out) >= maxAlternatives {
		return out
	}
	ctx, cancel := context.WithTimeout(context.Background(), nameSearchWait)
	defer cancel()
	res, err := c.idx.Search(ctx, index.Query{Text: words, Limit: maxAlternatives, Sections: 1})
	if err != nil {
		return out
	}
	out = append([]string(nil), out...)
	for _, h := range res.Hits {
		if len(out) >= maxAlternatives {
			break
		}
		if !contains(out, h.Path) {
			out = append(out, h.Path)
		}
	}
	return out
}

// sectionsBySearch returns the sections of the note at p whose text holds
// the words of a heading that named none of its headings, best first.
func (c *Core) sectionsBySearch(p, heading string) []string {
	words := searchTerms(heading)
	if c.index() == nil || words == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), nameSearchWait)
	defer cancel()
	res, err := c.idx.Search(ctx, index.Query{Text: words, Path: p, Limit: maxAlternatives})
	if err != nil {
		return nil
	}
	var out []string
	for _, h := range res.Hits {
		for _, s := range h.Sections {
			ref := s.Ref
			if ref == "" {
				ref = s.Heading
			}
			if ref != "" && !contains(out, ref) && len(out) < maxAlternatives {
				out = append(out, ref)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// missedHeadingSections returns, for a heading that named no heading of
// the note when none of its headings is close (vault.Doc.NearHeading),
// the note's sections whose text holds the heading's words; nil otherwise.
func (c *Core) missedHeadingSections(f failure, ve *note.Error) []string {
	h, ok := argOf(f.args, "heading")
	heading, _ := h.(string)
	if !ok || strings.TrimSpace(heading) == "" || c.index() == nil {
		return nil
	}
	n := f.note
	if n == nil || (ve.Path != "" && n.Path != ve.Path) {
		if ve.Path == "" {
			return nil
		}
		var err error
		if n, err = c.v.Read(ve.Path); err != nil {
			return nil
		}
	}
	if n.Doc == nil || n.Doc.NearHeading(heading) {
		return nil
	}
	return c.sectionsBySearch(n.Path, heading)
}
