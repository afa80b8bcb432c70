package index

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// EngineFloor indexes every note (not attachments, not the .obsidian
// folder) into one field, keeps term vectors exactly when asked, and
// leaves one segment.
func TestEngineFloor(t *testing.T) {
	files := map[string]string{
		"a.md":                "# Zebra\nThe zebra grazes.",
		"1_Projekte/b.md":     "Kein Zebra hier, nur ein Pferd.",
		"1_Projekte/c.md":     "Nothing striped.",
		"bild.png":            "zebra",
		".obsidian/zebra.md":  "zebra",
		"1_Projekte/x/big.md": "",
	}
	for i := range 450 { // more than two batches
		files[fmt.Sprintf("many/n%03d.md", i)] = fmt.Sprintf("note %d of many", i)
	}
	v, _ := newVault(t, files)
	for _, positions := range []bool{true, false} {
		t.Run(fmt.Sprint("positions=", positions), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "index")
			n, err := EngineFloor(context.Background(), v, dir, positions)
			if err != nil {
				t.Fatal(err)
			}
			if n != 454 {
				t.Errorf("indexed %d notes, want 454", n)
			}
			bi, err := bleve.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer bi.Close()
			q := query.NewTermQuery("zebra")
			q.SetField("text")
			req := bleve.NewSearchRequest(q)
			req.IncludeLocations = true
			res, err := bi.Search(req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Total != 2 {
				t.Fatalf("zebra in %d notes, want 2 (a.md, 1_Projekte/b.md)", res.Total)
			}
			for _, h := range res.Hits {
				if got := len(h.Locations["text"]["zebra"]) > 0; got != positions {
					t.Errorf("%s: locations %v, want %v", h.ID, got, positions)
				}
			}
			adv, err := bi.Advanced()
			if err != nil {
				t.Fatal(err)
			}
			if segs := segmentCount(t, adv); segs != 1 {
				t.Errorf("%d segments after the build, want 1", segs)
			}
		})
	}
}

// segmentCount is the number of segments of adv's current snapshot.
func segmentCount(t *testing.T, adv bindex.Index) int {
	t.Helper()
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		t.Fatalf("reader %T, want a scorch snapshot", r)
	}
	return len(snap.Segments())
}
