package index

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
