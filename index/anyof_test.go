package index

import (
	"math"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/search/query"
)

// memIndex is an in-memory bleve index of docs (ID → text of field "f").
func memIndex(t *testing.T, docs map[string]string) bleve.Index {
	t.Helper()
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = standard.Name
	bi, err := bleve.NewMemOnly(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bi.Close() })
	for id, text := range docs {
		if err := bi.Index(id, map[string]string{"f": text}); err != nil {
			t.Fatal(err)
		}
	}
	return bi
}

func scores(t *testing.T, bi bleve.Index, q query.Query) map[string]float64 {
	t.Helper()
	res, err := bi.Search(bleve.NewSearchRequestOptions(q, 10, 0, false))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, h := range res.Hits {
		out[h.ID] = h.Score
	}
	return out
}

func fterm(t string) query.Query {
	q := query.NewTermQuery(t)
	q.SetField("f")
	return q
}

// TestAnyOf: a document with one of n expansions scores as with that
// expansion alone, where bleve's disjunction gives it 1/n of that.
func TestAnyOf(t *testing.T) {
	bi := memIndex(t, map[string]string{
		"a": "anzeigepflicht",
		"b": "anzeigeverfahren anzeigefrist",
		"c": "nichts davon",
	})
	terms := []query.Query{fterm("anzeigepflicht"), fterm("anzeigeverfahren"), fterm("anzeigefrist"), fterm("anzeigenblatt")}
	plain := scores(t, bi, query.NewDisjunctionQuery(terms))
	got := scores(t, bi, newAnyOf(terms))
	if len(got) != 2 || got["c"] != 0 {
		t.Fatalf("anyOf matched %v, want a and b", got)
	}
	for id, s := range plain {
		if want := s * 4; math.Abs(got[id]-want) > 1e-9 {
			t.Errorf("%s: anyOf scored %g, want %g (the disjunction's %g × 4 clauses)", id, got[id], want, s)
		}
	}
	if newAnyOf(nil) != nil || newAnyOf(terms[:1]) != terms[0] {
		t.Error("anyOf of none or one clause is not nil or the clause itself")
	}
}
