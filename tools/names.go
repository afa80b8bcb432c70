package tools

import (
	"context"
	"path"
	"strconv"
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

// closestBySearch completes the closest notes of a missing reference
// (ve: found by name, vault.NameTable) with what the index finds for the
// reference's words, up to maxAlternatives, and says of each why it is
// listed. The notes close by name come first (ve.AltClose: the typed name
// starts a name, or is a few slips from one), then the search's hits —
// notes whose title, aliases, folder-note folder name or text hold the
// words: an English word for a German note reaches it this way, and a law
// the name merely shares a word with does not outrank the law the search
// ranks first — then the rest of the name matches.
func (c *Core) closestBySearch(ref string, ve *note.Error) ([]string, []string) {
	paths, why := ve.Alternatives, ve.AltWhy
	if len(why) != len(paths) {
		why = make([]string, len(paths))
	}
	closeN := min(ve.AltClose, len(paths))
	out, outWhy := append([]string(nil), paths[:closeN]...), append([]string(nil), why[:closeN]...)
	words := refWords(ref)
	if c.index() != nil && words != "" && len(out) < maxAlternatives {
		ctx, cancel := context.WithTimeout(context.Background(), nameSearchWait)
		res, err := c.idx.Search(ctx, index.Query{Text: words, Limit: maxAlternatives, Sections: 1})
		cancel()
		if err == nil {
			for _, h := range res.Hits {
				if len(out) >= maxAlternatives {
					break
				}
				if !contains(out, h.Path) {
					out = append(out, h.Path)
					outWhy = append(outWhy, "a search for "+strconv.Quote(words)+" finds it")
				}
			}
		}
	}
	for i := closeN; i < len(paths) && len(out) < maxAlternatives; i++ {
		if !contains(out, paths[i]) {
			out, outWhy = append(out, paths[i]), append(outWhy, why[i])
		}
	}
	return out, outWhy
}

// titlesOf says of each note its title, from the vault's name table:
// `title "…"` ("" where it has none).
func (c *Core) titlesOf(paths []string) []string {
	out := make([]string, len(paths))
	t, _, err := c.v.Names()
	if err != nil {
		return out
	}
	for i, p := range paths {
		if e, ok := t.Entry(p); ok && e.Title != "" {
			out[i] = "title " + strconv.Quote(e.Title)
		} else if e, ok := t.Entry(p); ok && len(e.Titles) > 0 {
			out[i] = "title " + strconv.Quote(e.Titles[0])
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
