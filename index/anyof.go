package index

import (
	"context"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// anyOf is a disjunction of the expansions of one word (the heading
// compounds that hold it) scored without bleve's coordination factor.
// bleve scales a disjunction's score by its matched/all clauses, which
// suits separate words (the more of them, the better) but not the
// expansions of one: a heading holds one or two of them, so a word with
// 54 compounds starting with it ("anzeig": Anzeigepflicht, Anzeigeverfahren
// …) would weigh 1/54 of a word with one. The score is the disjunction's
// times its number of clauses: the sum of the matching clauses' scores
// for a document that has one of them.
type anyOf struct {
	*query.DisjunctionQuery
	n int
}

// newAnyOf returns the query matching any of qs (nil for none; the query
// itself for one).
func newAnyOf(qs []query.Query) query.Query {
	if len(qs) < 2 {
		return disjunction(qs)
	}
	return &anyOf{query.NewDisjunctionQuery(qs), len(qs)}
}

func (q *anyOf) Searcher(ctx context.Context, i bindex.IndexReader, m mapping.IndexMapping, o search.SearcherOptions) (search.Searcher, error) {
	s, err := q.DisjunctionQuery.Searcher(ctx, i, m, o)
	if err != nil {
		return nil, err
	}
	return &scaled{Searcher: s, k: float64(q.n)}, nil
}

// scaled multiplies the scores of its searcher's matches by k.
type scaled struct {
	search.Searcher
	k float64
}

func (s *scaled) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	m, err := s.Searcher.Next(ctx)
	if m != nil {
		m.Score *= s.k
	}
	return m, err
}

func (s *scaled) Advance(ctx *search.SearchContext, id bindex.IndexInternalID) (*search.DocumentMatch, error) {
	m, err := s.Searcher.Advance(ctx, id)
	if m != nil {
		m.Score *= s.k
	}
	return m, err
}
