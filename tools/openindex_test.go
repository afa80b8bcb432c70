package tools

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/vault"
)

// openingCore is a core over dir whose index opens in the background: the
// open waits for release, then opens the real index (or fails with
// openErr).
func openingCore(t *testing.T, dir string, openErr error) (c *Core, release chan struct{}) {
	t.Helper()
	v, err := vault.Open(dir, vault.Options{StateDir: filepath.Join(t.TempDir(), "state"), NoSync: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	release = make(chan struct{})
	var idx *index.Index
	c, err = NewCore(v, CoreOptions{OpenIndex: func() (Index, error) {
		<-release
		if openErr != nil {
			return nil, openErr
		}
		ix, err := index.Open(v, index.Options{Dir: filepath.Join(t.TempDir(), "index"), Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return nil, err
		}
		idx = ix
		return ix, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.WaitIndex() != nil {
			idx.Close()
		}
	})
	return c, release
}

// writeNotes writes files (vault path → text) into a new temp dir.
func writeNotes(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	return dir
}

// writeFiles writes files (vault path → text) below dir, with their folders.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	writeFilesAt(t, dir, files, time.Time{})
}

// writeFilesAt is writeFiles giving each file the modification time mt
// (none when zero), for goldens that show it.
func writeFilesAt(t *testing.T, dir string, files map[string]string, mt time.Time) {
	t.Helper()
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if !mt.IsZero() {
			if err := os.Chtimes(full, mt, mt); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestOpenIndex_CallsWaitForIt: with OpenIndex the core is there before
// the index; reads that need no index answer at once — by path, and by
// name (from CoreOptions.Names, here without one from the vault itself) —
// the status says building, and a search made while it opens waits for it
// and answers from it.
func TestOpenIndex_CallsWaitForIt(t *testing.T) {
	dir := writeNotes(t, map[string]string{
		"1_Projekte/Garten.md": "---\ntitle: Gartenplanung\n---\n# Garten\n\nTomaten und Bohnen pflanzen.\n",
		"2_Wissen/Küche.md":    "# Küche\n\nRezepte.\n",
	})
	c, release := openingCore(t, dir, nil)
	ctx := context.Background()
	if st, ok, _ := c.IndexStatus(); !ok || !st.Building {
		t.Errorf("IndexStatus while the index opens = %+v, %v; want building", st, ok)
	}
	if r := c.ReadNote(ctx, readOnly, ReadNoteArgs{Path: "2_Wissen/Küche.md"}); r.Err != nil {
		t.Fatalf("read_note by path while the index opens: %s", r.Text)
	}
	if r := c.ReadNote(ctx, readOnly, ReadNoteArgs{Path: "Gartenplanung"}); r.Err != nil || !strings.Contains(r.Text, "1_Projekte/Garten.md") {
		t.Errorf("read_note by title while the index opens: %s", r.Text)
	}
	done := make(chan *Result, 1)
	go func() { done <- c.SearchNotes(ctx, readOnly, SearchNotesArgs{Query: "Tomaten"}) }()
	select {
	case r := <-done:
		close(release)
		t.Fatalf("a search answered before the index was open: %s", r.Text)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if r := <-done; r.Err != nil || !strings.Contains(r.Text, "1_Projekte/Garten.md") {
		t.Errorf("once the index is open: %s", r.Text)
	}
}

// TestOpenIndex_Fails: an index that cannot be opened leaves search out
// with the reason, as IndexUnavailable does; reads and writes go on.
func TestOpenIndex_Fails(t *testing.T) {
	dir := writeNotes(t, map[string]string{"Notiz.md": "# Notiz\n\nText.\n"})
	c, release := openingCore(t, dir, errors.New("another vaultd process (pid 42) keeps the index and does not answer"))
	close(release)
	ctx := context.Background()
	r := c.SearchNotes(ctx, readOnly, SearchNotesArgs{Query: "Text"})
	if r.Err == nil || !strings.Contains(r.Text, "pid 42") {
		t.Errorf("search without an index = %s; want the reason", r.Text)
	}
	if _, ok, why := c.IndexStatus(); ok || why == nil {
		t.Errorf("IndexStatus after a failed open: ok %v, why %v", ok, why)
	}
	if r := c.ReadNote(ctx, readOnly, ReadNoteArgs{Path: "Notiz"}); r.Err != nil {
		t.Errorf("read_note by title without an index: %s", r.Text)
	}
	if r := c.AppendToNote(ctx, readWrite, AppendArgs{Path: "Notiz.md", Content: "Mehr.", ChangeSummary: "test"}); r.Err != nil {
		t.Errorf("append without an index: %s", r.Text)
	}
}

// statusIndex is an index that reports the status st and counts the
// waits for its build.
type statusIndex struct {
	*index.Index
	st     index.Status
	waited int
}

func (s *statusIndex) Status() index.Status { return s.st }

// Search answers from the real index with the status st, as an index in
// that state would.
func (s *statusIndex) Search(ctx context.Context, q index.Query) (*index.Results, error) {
	res, err := s.Index.Search(ctx, q)
	if res != nil {
		res.Status = s.st
	}
	return res, err
}

func (s *statusIndex) WaitReady(ctx context.Context) error {
	s.waited++
	return s.Index.WaitReady(ctx)
}

// TestSearch_WaitsForABuildNotForAMerge: a search or a similar-notes call
// on an index that is building waits (up to buildWait) for the build; on
// one that only merges its segments, every note in, it answers at once.
func TestSearch_WaitsForABuildNotForAMerge(t *testing.T) {
	base, idx := newTestCoreIndex(t, copyExampleVault(t))
	si := &statusIndex{Index: idx}
	c, err := NewCore(base.v, CoreOptions{Index: si})
	if err != nil {
		t.Fatal(err)
	}
	n := idx.Status().Total
	for _, tc := range []struct {
		st   index.Status
		wait bool
	}{
		{index.Status{Building: true, Done: n / 2, Total: n}, true},
		{index.Status{Building: true, Merging: true, Done: n, Total: n}, false},
		{index.Status{Done: n, Total: n}, false},
	} {
		for _, call := range []struct {
			tool string
			args map[string]any
		}{
			{"search_notes", map[string]any{"query": "Backup"}},
			{"search_similar_notes", map[string]any{"path": "4_Archiv/Backup-Konzept Praxis Dr. Lorenz.md"}},
		} {
			si.st, si.waited = tc.st, 0
			if r := c.Call(context.Background(), everyone, call.tool, call.args); r.Err != nil {
				t.Fatalf("%s: %v", call.tool, r.Err)
			}
			if got := si.waited > 0; got != tc.wait {
				t.Errorf("%s with %+v: waited %v, want %v", call.tool, tc.st, got, tc.wait)
			}
		}
	}
}

// TestGolden_SearchWhileMerging: a search while the index merges its
// segments after a large build says every note is in, results complete.
func TestGolden_SearchWhileMerging(t *testing.T) {
	dir := copyExampleVault(t)
	base, idx := newTestCoreIndex(t, dir)
	n := idx.Status().Total
	c, err := NewCore(base.v, CoreOptions{Now: func() time.Time { return fixedNow }, Index: &statusIndex{Index: idx, st: index.Status{Building: true, Merging: true, Done: n, Total: n}}})
	if err != nil {
		t.Fatal(err)
	}
	checkGoldenCall(t, c, readOnly, step{"search_notes", `{"query":"Backup"}`}, dir, "", "search_notes/while_merging")
}
