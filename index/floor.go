package index

import (
	"context"
	"math"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/vaultd/vaultd/vault"
)

// EngineFloor indexes the notes of v as bleve alone does, with nothing of
// vaultd's index: each note's bytes as one text field, bleve's standard
// analyzer (Unicode words, lower-cased, English stop words), no stored
// fields, no section documents, no parsing; batches of 200 notes or 2 MB,
// bleve's default merge policy, then one forced merge into a segment. With
// positions the field keeps term vectors (positions and offsets), as the
// index's note text does for phrases and snippets.
//
// It is for the bench, which runs it beside a build to show what the
// engine itself costs on the same files (the floor under any design that
// keeps bleve). It returns the number of notes indexed; dir must not exist.
func EngineFloor(ctx context.Context, v *vault.Vault, dir string, positions bool) (int, error) {
	m := mapping.NewIndexMapping()
	m.DefaultAnalyzer = standard.Name
	an := m.AnalyzerNamed(standard.Name)
	bi, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return 0, err
	}
	opts := bindex.IndexField
	if positions {
		opts |= bindex.IncludeTermVectors
	}
	b := bi.NewBatch()
	notes, size := 0, 0
	err = v.Walk(func(e vault.Entry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !e.Note {
			return nil
		}
		text, err := v.ReadFile(e.Path)
		if err != nil {
			return nil // gone or unreadable: the build skips it too
		}
		doc := document.NewDocument(e.Path)
		doc.AddField(document.NewTextFieldCustom("text", nil, text, opts, an))
		if err := b.IndexAdvanced(doc); err != nil {
			return err
		}
		notes++
		size += len(text)
		if b.Size() >= 200 || size >= 2<<20 {
			if err := bi.Batch(b); err != nil {
				return err
			}
			b, size = bi.NewBatch(), 0
		}
		return nil
	})
	if err == nil {
		err = bi.Batch(b)
	}
	if err == nil {
		var adv bindex.Index
		if adv, err = bi.Advanced(); err == nil {
			if s, ok := adv.(*scorch.Scorch); ok {
				err = mergeIntoOne(ctx, s)
			}
		}
	}
	// Persisted and the merged-away files removed before it is closed, so
	// that its size on disk is the index's: see compact.
	for i := range 2 {
		if err == nil {
			err = bi.SetInternal([]byte(compactedKey), []byte{byte(i)})
		}
	}
	if cerr := bi.Close(); err == nil {
		err = cerr
	}
	return notes, err
}

// mergeIntoOne force-merges s until its snapshot is one segment: a forced
// merge takes the segments persisted when it starts, and the last batches'
// may not be yet.
func mergeIntoOne(ctx context.Context, s *scorch.Scorch) error {
	o := mergeplan.SingleSegmentMergePlanOptions
	o.SegmentsPerMergeTask = math.MaxInt32 // in one pass, as compact does
	for {
		if err := s.ForceMerge(ctx, &o); err != nil {
			return err
		}
		r, err := s.Reader()
		if err != nil {
			return err
		}
		n := 0
		if snap, ok := r.(*scorch.IndexSnapshot); ok {
			n = len(snap.Segments())
		}
		r.Close()
		if n <= 1 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
