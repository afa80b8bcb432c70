package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// sectionDocTerms lists, for each word of words and each field of the
// section documents, which section documents of the note at p hold it,
// and which section documents the note has.
func sectionDocTerms(t *testing.T, ix *Index, p string, words []string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	ids := func(q query.Query) []string {
		res, err := ix.bi.SearchInContext(context.Background(), bleve.NewSearchRequestOptions(q, 10000, 0, false))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.ID)
		}
		slices.Sort(got)
		return got
	}
	out["(documents)"] = ids(term(fSecNote, p, 1))
	for _, f := range []string{fSecBody, fSecHead, fSecParts, fSecCtx} {
		for _, w := range words {
			if got := ids(query.NewConjunctionQuery([]query.Query{term(f, w, 1), term(fSecNote, p, 1)})); len(got) > 0 {
				out[f+":"+w] = got
			}
		}
	}
	return out
}

// TestWrites_SectionDocumentsAsFresh: after every write of a random series
// (appends, edits of one section, headings added, renamed, moved up or
// down a level, removed, text before the first heading added and taken
// away), the note's section documents hold exactly what those of a fresh
// index of the same text hold — also where a write re-indexed only the
// sections that changed (sectionMemo).
func TestWrites_SectionDocumentsAsFresh(t *testing.T) {
	const p = "log.md"
	type sec struct {
		level int
		head  string
		body  []string
	}
	secs := []sec{
		{1, "Tagebuch", []string{"Einleitung mit Kranich"}},
		{2, "Montag", []string{"Baustelle besucht"}},
		{3, "Morgens", []string{"Kaffee und Zeitung"}},
		{2, "Dienstag", []string{"Regen den ganzen Tag"}},
	}
	pre := ""
	render := func() string {
		var b strings.Builder
		if pre != "" {
			b.WriteString(pre + "\n\n")
		}
		for _, s := range secs {
			fmt.Fprintf(&b, "%s %s\n\n", strings.Repeat("#", s.level), s.head)
			for _, l := range s.body {
				b.WriteString(l + "\n")
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	v, dir := newVault(t, map[string]string{p: render()})
	ix := openIndex(t, v, Options{})
	words := []string{"kranich", "baustell", "kaffe", "regen", "einleit", "tagebuch", "montag", "dienstag", "morg", "zeitung"}
	vocab := []string{"Wolke", "Fahrrad", "Kranich", "Baustelle", "Zeitung", "Sonne", "Hafen", "Brücke"}
	for _, w := range vocab {
		for _, tok := range queryAnalyzer.Analyze([]byte(w)) {
			words = append(words, string(tok.Term))
		}
	}
	kept := 0
	testHookKept = func(string, int) { kept++ }
	defer func() { testHookKept = nil }()
	rng := rand.New(rand.NewPCG(7, 33))
	word := func() string { return vocab[rng.IntN(len(vocab))] }
	for step := range 60 {
		var what string
		switch op := rng.IntN(8); {
		case op <= 2 || len(secs) == 0:
			i := len(secs) - 1
			if i < 0 {
				secs = append(secs, sec{2, "Neu " + word(), nil})
				i = 0
			}
			secs[i].body = append(secs[i].body, "- "+word()+" am Abend")
			what = "append to the last section"
		case op == 3:
			i := rng.IntN(len(secs))
			secs[i].body = append(secs[i].body[:0:0], word()+" statt vorher")
			what = "rewrite section " + secs[i].head
		case op == 4:
			i := rng.IntN(len(secs) + 1)
			secs = slices.Insert(secs, i, sec{1 + rng.IntN(3), word() + " " + fmt.Sprint(step), []string{word()}})
			what = "insert a heading"
		case op == 5:
			i := rng.IntN(len(secs))
			secs[i].head = word() + " " + fmt.Sprint(step)
			what = "rename a heading"
		case op == 6:
			i := rng.IntN(len(secs))
			secs[i].level = 1 + rng.IntN(3)
			what = "change a heading's level"
		default:
			if rng.IntN(2) == 0 && len(secs) > 1 {
				i := rng.IntN(len(secs))
				secs = slices.Delete(secs, i, i+1)
				what = "remove a heading"
			} else if pre == "" {
				pre = word() + " vorweg"
				what = "text before the first heading"
			} else {
				pre = ""
				what = "no text before the first heading"
			}
		}
		text := render()
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := ix.Update(p); err != nil {
			t.Fatal(err)
		}
		fv, _ := newVault(t, map[string]string{p: text})
		fresh := openIndex(t, fv, Options{})
		got, want := sectionDocTerms(t, ix, p, words), sectionDocTerms(t, fresh, p, words)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("step %d (%s): the section documents differ from a fresh index's\n got: %v\nwant: %v\ntext:\n%s", step, what, got, want, text)
		}
		fresh.Close()
	}
	// An append leaves every section but the last as it is.
	if kept == 0 {
		t.Error("no write left a section document as it was")
	}
	t.Logf("%d section documents left as they were", kept)
}
