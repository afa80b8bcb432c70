package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	bindex "github.com/blevesearch/bleve_index_api"
)

// zapFiles counts the segment files of the index in dir.
func zapFiles(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, indexDirName, "store", "*.zap"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

// TestCompact_AfterBuild: a build of many batches ends merged into one
// segment, with the merged-away files gone, and the index still answers
// and follows writes.
func TestCompact_AfterBuild(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("n/%02d.md", i)] = fmt.Sprintf("# Notiz %d\n\nBaustelle Nummer%d\n", i, i)
	}
	v, dir := newVault(t, files)
	idx := t.TempDir()
	ix := openIndex(t, v, Options{Dir: idx, BatchDocs: 5}) // 12 batches
	// The persister removes the merged-away files in the background,
	// right after compact's internal writes.
	deadline := time.Now().Add(5 * time.Second)
	for zapFiles(t, idx) != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := zapFiles(t, idx); n != 1 {
		t.Errorf("after a build of 12 batches: got %d segment files, want 1", n)
	}
	if r := mustSearch(t, ix, Query{Text: "Baustelle"}); r.Total != 60 {
		t.Errorf("search Baustelle after the build: got %d notes, want 60", r.Total)
	}
	p := filepath.Join(dir, "n", "07.md")
	if err := os.WriteFile(p, []byte("# Notiz 7\n\nKranich\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ix.Update("n/07.md"); err != nil {
		t.Fatal(err)
	}
	if r := mustSearch(t, ix, Query{Text: "Kranich"}); strings.Join(hitPaths(r), ",") != "n/07.md" {
		t.Errorf("search Kranich after a write: got %v, want [n/07.md]", hitPaths(r))
	}
}

// TestCompact_StatusSaysMerging: while a build merges its segments every
// note is in, and the status says so (searches are complete, slower)
// instead of counting notes that are all done; before the merge it
// counts, after it the index is complete.
func TestCompact_StatusSaysMerging(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("n/%02d.md", i)] = fmt.Sprintf("# Notiz %d\n\nBaustelle Nummer%d\n", i, i)
	}
	v, _ := newVault(t, files)
	var during Status
	var found int
	testHookCompact = func(ix *Index) {
		during = ix.Status()
		found = int(mustSearch(t, ix, Query{Text: "Baustelle"}).Total)
	}
	t.Cleanup(func() { testHookCompact = nil })
	ix := openIndex(t, v, Options{Dir: t.TempDir(), BatchDocs: 5}) // 12 batches
	if !during.Building || !during.Merging || during.Done != 60 || during.Total != 60 {
		t.Errorf("status while merging: %+v, want building and merging, 60 of 60", during)
	}
	if want := "index building: all 60 notes indexed, merging the index; results are complete, searches slower until it is done"; during.Text() != want {
		t.Errorf("text while merging: %q, want %q", during.Text(), want)
	}
	if found != 60 {
		t.Errorf("search while merging: %d notes, want 60", found)
	}
	if st := ix.Status(); st.Building || st.Merging || st.Text() != "" {
		t.Errorf("status after the build: %+v (%q), want complete", st, st.Text())
	}
	if st := (Status{Building: true, Done: 30, Total: 60}); st.Merging || !strings.Contains(st.Text(), "30 of 60 notes") {
		t.Errorf("status before the merge: %q", st.Text())
	}
}

// TestMetaOf_SameAsDecode: the remembered heading tables are the decoded
// ones, per version.
func TestMetaOf_SameAsDecode(t *testing.T) {
	docs := []*Document{
		{Size: 120, BodyStart: 10, Headings: []Heading{{Path: "A", Level: 1, Start: 10}, {Path: "A > B", Level: 2, Start: 40}}},
		{Size: 80, BodyStart: 0, Headings: []Heading{{Path: "C", Level: 1, Start: 0}}},
		{Size: 5},
	}
	for i, d := range docs {
		enc := encodeMeta(d)
		for range 2 {
			if got, want := metaOf(fmt.Sprintf("v%d", i), enc), decodeMeta(enc); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("metaOf(%q): got %+v, want %+v", enc, got, want)
			}
		}
	}
}

// TestHeadingWords_SameAsAnalysis: the remembered word counts are those of
// the query analysis (stop words left out, dates as one word).
func TestHeadingWords_SameAsAnalysis(t *testing.T) {
	for _, h := range []string{"Ziele", "Die Ziele des Projekts", "Wochenrunde 2026-11-16", "", "the goals and the plan"} {
		for range 2 {
			if got, want := headingWords(h), len(analyzeQuery(h)); got != want {
				t.Errorf("headingWords(%q) = %d, want %d", h, got, want)
			}
		}
	}
}

// mergedSegments is how many segments bleve's merger of ix has taken in
// so far (forced merges included).
func mergedSegments(t *testing.T, ix *Index) uint64 {
	t.Helper()
	var n uint64
	err := ix.bi.advanced(false, func(adv bindex.Index) error {
		if s, ok := adv.(*scorch.Scorch); ok {
			n, _ = s.StatsMap()["TotFileMergeSegments"].(uint64)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// buildWatched builds the index of 60 notes in 12 batches and returns it,
// the vault's folder, and how many segments the merger had taken in
// before each batch but the first.
func buildWatched(t *testing.T) (ix *Index, dir string, during []uint64) {
	t.Helper()
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("n/%02d.md", i)] = fmt.Sprintf("# Notiz %d\n\nBaustelle Nummer%d\n", i, i)
	}
	v, dir := newVault(t, files)
	opened := make(chan struct{})
	var commits int
	testHookCommit = func() {
		if commits++; commits == 1 {
			<-opened
			return
		}
		// Time for a merger that is not held to start on the segments
		// so far (it merges them as soon as it can).
		time.Sleep(20 * time.Millisecond)
		during = append(during, mergedSegments(t, ix))
	}
	defer func() { testHookCommit = nil }()
	ix, err := Open(v, Options{Dir: t.TempDir(), BatchDocs: 5}) // 12 batches
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	close(opened)
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	if err := ix.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return ix, dir, during
}

// TestBuild_MergesOnceAtTheEnd: while a build indexes its batches the
// merger takes none of their segments in (each would be written again
// and again as the merged segments grow); the build ends merged into one
// segment, and the merger works again for the writes after it.
func TestBuild_MergesOnceAtTheEnd(t *testing.T) {
	ix, dir, during := buildWatched(t)
	for i, n := range during {
		if n != 0 {
			t.Fatalf("before batch %d of the build the merger had taken in %d segments, want none (%v)", i+2, n, during)
		}
	}
	if len(during) == 0 {
		t.Fatal("the hook saw no batch of the build")
	}
	if n := mergedSegments(t, ix); n == 0 {
		t.Error("after the build: the merger took in no segment, want the build's in one merge")
	}
	if r := mustSearch(t, ix, Query{Text: "Baustelle"}); r.Total != 60 {
		t.Errorf("search Baustelle after the build: got %d notes, want 60", r.Total)
	}
	// Writes after the build: their segments are merged again (below
	// the floor, a few small segments are allowed; 30 writes are not).
	before := mergedSegments(t, ix)
	for i := range 30 {
		p := fmt.Sprintf("n/%02d.md", i)
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(fmt.Sprintf("# Notiz %d\n\nKranich %d\n", i, i)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := ix.Update(p); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(hangCap)
	for mergedSegments(t, ix) == before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if mergedSegments(t, ix) == before {
		t.Error("30 writes after the build: the merger took none of their segments in")
	}
}

// TestBuild_CloseWhileMergesAreHeld: closing an index in the middle of a
// build (merger held) returns.
func TestBuild_CloseWhileMergesAreHeld(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("n/%02d.md", i)] = fmt.Sprintf("# Notiz %d\n\nBaustelle Nummer%d\n", i, i)
	}
	v, _ := newVault(t, files)
	third := make(chan struct{})
	var commits atomic.Int32
	testHookCommit = func() {
		if commits.Add(1) == 3 {
			close(third)
		}
	}
	defer func() { testHookCommit = nil }()
	ix, err := Open(v, Options{Dir: t.TempDir(), BatchDocs: 5})
	if err != nil {
		t.Fatal(err)
	}
	<-third
	closed := make(chan error, 1)
	go func() { closed <- ix.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(hangCap):
		t.Fatal("Close in the middle of a build did not return")
	}
}

// TestBuild_MergesOnceTooManySegments: a build whose index reaches
// maxHeldSegments segment files lets the merger go on (bleve's persister
// would wait for it, with the batches piling up in memory).
func TestBuild_MergesOnceTooManySegments(t *testing.T) {
	defer func(n uint64) { maxHeldSegments = n }(maxHeldSegments)
	maxHeldSegments = 6
	var held []bool
	testHookHeld = func(h bool) { held = append(held, h) }
	defer func() { testHookHeld = nil }()
	ix, _, _ := buildWatched(t)
	testHookHeld = nil
	// Held at first, let go once 6 segment files are on disk (2 or more
	// per batch: by the end of 12 batches).
	if len(held) < 2 || !held[0] || held[len(held)-1] {
		t.Errorf("with at most 6 segment files held, the merger was held after each batch: %v, want held first and let go by the last", held)
	}
	if r := mustSearch(t, ix, Query{Text: "Baustelle"}); r.Total != 60 {
		t.Errorf("search Baustelle after the build: got %d notes, want 60", r.Total)
	}
}
