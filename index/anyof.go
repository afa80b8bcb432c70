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

// maxOf is a disjunction of term queries (the heading compounds that hold
// one word) scored by its best match alone: a heading with two of them
// ("Arbeitszeitausgleich und Arbeitszeitverteilung") names the word once,
// and weighs as much as a heading with one. bleve's disjunction adds its
// matches up; asked for their scores one by one (the score breakdown it
// gives for vector searches), it leaves them to be combined here.
type maxOf struct {
	*query.DisjunctionQuery
}

// newMaxOf returns the query matching any of qs, which must be term
// queries (nil for none; the query itself for one).
func newMaxOf(qs []query.Query) query.Query {
	if len(qs) < 2 {
		return disjunction(qs)
	}
	d := query.NewDisjunctionQuery(qs)
	d.RetrieveScoreBreakdown(true)
	return &maxOf{d}
}

func (q *maxOf) Searcher(ctx context.Context, i bindex.IndexReader, m mapping.IndexMapping, o search.SearcherOptions) (search.Searcher, error) {
	s, err := q.DisjunctionQuery.Searcher(ctx, i, m, o)
	if err != nil {
		return nil, err
	}
	return &best{s}, nil
}

// best scores its searcher's matches by the best score in their
// breakdown.
type best struct {
	search.Searcher
}

func (s *best) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	m, err := s.Searcher.Next(ctx)
	bestScore(m)
	return m, err
}

func (s *best) Advance(ctx *search.SearchContext, id bindex.IndexInternalID) (*search.DocumentMatch, error) {
	m, err := s.Searcher.Advance(ctx, id)
	bestScore(m)
	return m, err
}

func bestScore(m *search.DocumentMatch) {
	if m == nil || m.ScoreBreakdown == nil {
		return
	}
	m.Score = 0
	for _, x := range m.ScoreBreakdown {
		m.Score = max(m.Score, x)
	}
	clear(m.ScoreBreakdown) // not a vector search's: nothing above reads it
}
