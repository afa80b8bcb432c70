package index

import (
	"context"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// "Did you mean": a query word that occurs in no note, not even as part of
// a compound, gets the words of the vault that are spelled alike — found
// in the index's own term dictionary (Levenshtein distance 1, or 2 for
// words of more than 5 letters), most frequent first among the closest,
// and shown as the vault writes them (the dictionary holds stems:
// "kundigung" is shown as "Kündigung", read from a note that has it). The
// first of them whose query finds notes becomes Suggestion.Query.
const (
	maxSuggestions  = 3
	suggestMinRunes = 4 // shorter words are too often someone's abbreviation
)

func (ix *Index) suggest(ctx context.Context, q Query, pq *parsedQuery) []Suggestion {
	var out []Suggestion
	for _, c := range pq.must {
		if c.kind != kindWord || len(c.parts) > 0 {
			continue
		}
		w := c.words[0]
		if !w.letters() || utf8.RuneCountInString(w.Folded) < suggestMinRunes || ix.occurs(w) {
			continue
		}
		words := ix.alike(ctx, w)
		if len(words) == 0 {
			continue
		}
		s := Suggestion{Word: c.raw, Words: words}
		for _, alt := range words {
			text := replaceToken(q.Text, c.raw, alt)
			q2 := q
			q2.Text, q2.Offset, q2.Limit = text, 0, 1
			if r, err := ix.searchQuery(ctx, q2, false); err == nil && r.Total > 0 {
				s.Query = text
				break
			}
		}
		if s.Query != "" {
			out = append(out, s)
		}
	}
	return out
}

// occurs reports whether some note has w: as a word in a text field, or as
// a part of a compound.
func (ix *Index) occurs(w qword) bool {
	if slices.ContainsFunc(w.terms(), ix.known) {
		return true
	}
	for _, st := range w.partStems() {
		for _, p := range []string{partMark + string(reverseRunes([]byte(st))), st} {
			if len(ix.dictPrefix(fBody, p, "")) > 0 {
				return true
			}
		}
	}
	return false
}

// alike returns the vault's words spelled like w, as written in a note.
func (ix *Index) alike(ctx context.Context, w qword) []string {
	type cand struct {
		term string
		dist uint8
		n    uint64
	}
	var cands []cand
	err := ix.bi.advanced(false, func(adv bindex.Index) error {
		r, err := adv.Reader()
		if err != nil {
			return err
		}
		defer r.Close()
		fr, ok := r.(bindex.IndexReaderFuzzy)
		if !ok {
			return nil
		}
		fuzz := 1
		if utf8.RuneCountInString(w.Term) > 5 {
			fuzz = 2
		}
		d, auto, err := fr.FieldDictFuzzyAutomaton(fBody, w.Term, fuzz, "")
		if err != nil {
			return err
		}
		defer d.Close()
		for i := 0; i < maxScan; i++ {
			e, err := d.Next()
			if err != nil || e == nil {
				break
			}
			if strings.HasPrefix(e.Term, partMark) || strings.ContainsAny(e.Term, "-0123456789") {
				continue
			}
			_, dist := auto.MatchAndDistance(e.Term)
			cands = append(cands, cand{e.Term, dist, e.Count})
		}
		return nil
	})
	if err != nil {
		return nil
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		if cands[i].n != cands[j].n {
			return cands[i].n > cands[j].n
		}
		return cands[i].term < cands[j].term
	})
	var out []string
	seen := map[string]bool{}
	for _, c := range cands {
		if len(out) == maxSuggestions {
			break
		}
		word := ix.surface(ctx, c.term)
		if word == "" || seen[strings.ToLower(word)] {
			continue
		}
		seen[strings.ToLower(word)] = true
		out = append(out, word)
	}
	return out
}

// surface returns a word of some note whose term is t, as the note writes
// it ("" if none is found or it does not analyze to t).
func (ix *Index) surface(ctx context.Context, t string) string {
	tq := query.NewTermQuery(t)
	tq.SetField(fBody)
	req := bleve.NewSearchRequestOptions(tq, 1, 0, false)
	req.Fields = []string{fVersion, fMeta}
	req.IncludeLocations = true
	res, err := ix.bi.SearchInContext(ctx, req)
	if err != nil || len(res.Hits) == 0 {
		return ""
	}
	h := res.Hits[0]
	locs := h.Locations[fBody][t]
	if len(locs) == 0 {
		return ""
	}
	m := metaOf(fieldString(h, fVersion), fieldString(h, fMeta))
	f, err := ix.v.FS().Open(h.ID)
	if err != nil {
		return ""
	}
	defer f.Close()
	l := locs[0]
	start, end := int(l.Start)+m.bodyStart, int(l.End)+m.bodyStart
	if end <= start || end-start > 200 {
		return ""
	}
	buf := make([]byte, end-start)
	ra, ok := f.(interface {
		ReadAt([]byte, int64) (int, error)
	})
	if !ok {
		return ""
	}
	if n, _ := ra.ReadAt(buf, int64(start)); n != len(buf) {
		return ""
	}
	word := string(buf)
	if ws := analyzeQuery(word); len(ws) != 1 || ws[0].Term != t {
		return ""
	}
	return word
}

// replaceToken replaces the first white-space separated token of text
// that equals tok by with; the tokens are joined by single spaces.
func replaceToken(text, tok, with string) string {
	fields := strings.Fields(text)
	for i, f := range fields {
		if f == tok {
			fields[i] = with
			break
		}
	}
	return strings.Join(fields, " ")
}
