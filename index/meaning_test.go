package index

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/embed"
	"github.com/vaultd/vaultd/embed/embedtest"
)

var meaningNotes = map[string]string{
	"Arbeit/Kündigung.md": "# Kündigung\n\nDie Kündigung kam per Post, fristlos.\n\n## Reise\n\nDanach Urlaub und Ferien.\n",
	"Garten/Beet.md":      "# Beet\n\nTomaten und Pflanzen im Gewächshaus.\n",
	"Haus/Umzug.md":       "# Umzug\n\nDie neue Wohnung ist ein altes Gebäude.\n",
	"Netz/Router.md":      "# Router\n\nDer Router verteilt das WLAN, ein Switch pro Stock.\n",
}

func startMeaning(t *testing.T, ix *Index, e embed.Embedder) *Meaning {
	t.Helper()
	m, err := ix.StartMeaning(e)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	if err := m.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	return m
}

func tinyStatic(t *testing.T) *embed.Static {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := embedtest.WriteModel(dir); err != nil {
		t.Fatal(err)
	}
	s, err := embed.LoadStatic(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMeaning_FindsOtherWords: "Entlassung" is in no note; by meaning the
// note on Kündigung is found, its section named; a query with the words
// finds by both.
func TestMeaning_FindsOtherWords(t *testing.T) {
	v, _ := newVault(t, meaningNotes)
	ix := openIndex(t, v, Options{})
	m := startMeaning(t, ix, tinyStatic(t))
	if c := m.CoverageText(); c != "" {
		t.Errorf("after the first pass: coverage %q, want complete", c)
	}
	ctx := context.Background()
	words := mustSearch(t, ix, Query{Text: "Entlassung"})
	if len(words.Hits) != 0 {
		t.Fatalf("by words Entlassung finds %v, want nothing", hitPaths(words))
	}
	r, err := ix.SearchFused(ctx, m, Query{Text: "Entlassung"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Hits) == 0 || r.Hits[0].Path != "Arbeit/Kündigung.md" || r.Hits[0].By != ByMeaning || r.Hits[0].Heading != "Kündigung" {
		t.Fatalf("fused Entlassung: got %+v, want Arbeit/Kündigung.md by meaning, section Kündigung", r.Hits)
	}
	r, _ = ix.SearchFused(ctx, m, Query{Text: "Urlaub"}, "")
	if len(r.Hits) == 0 || r.Hits[0].Path != "Arbeit/Kündigung.md" || r.Hits[0].By != ByBoth {
		t.Errorf("fused Urlaub: got %+v, want the note by both", r.Hits)
	}
	r, _ = ix.SearchFused(ctx, m, Query{Text: "Gebäude"}, ByWords)
	if len(r.Hits) != 1 || r.Hits[0].By != "" {
		t.Errorf("words only: got %+v", r.Hits)
	}
	r, _ = ix.SearchFused(ctx, m, Query{Text: "house", Space: "Haus"}, ByMeaning)
	if len(r.Hits) != 1 || r.Hits[0].Path != "Haus/Umzug.md" {
		t.Errorf("meaning only in a space: got %+v", r.Hits)
	}
}

// TestMeaning_StoreKeyedByContent: a restart embeds nothing again; a
// changed section only that; another model starts over in its own file.
func TestMeaning_StoreKeyedByContent(t *testing.T) {
	v, dir := newVault(t, meaningNotes)
	idxDir := filepath.Join(t.TempDir(), "ix")
	ix := openIndex(t, v, Options{Dir: idxDir})
	s := tinyStatic(t)
	srv := embedtest.NewServer(s)
	defer srv.Close()
	client := func(model string) embed.Embedder {
		e, err := embed.NewOpenAI(embed.Config{Kind: embed.KindOpenAI, URL: srv.URL1(), Model: model, BatchSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	m := startMeaning(t, ix, client("tiny"))
	first := srv.Requests
	if first == 0 {
		t.Fatal("nothing was embedded")
	}
	m.Close()
	m = startMeaning(t, ix, client("tiny"))
	if srv.Requests != first {
		t.Errorf("a restart sent %d more requests, want none", srv.Requests-first)
	}
	// One section changes.
	p := filepath.Join(dir, "Garten", "Beet.md")
	if err := os.WriteFile(p, []byte("# Beet\n\nTomaten und Paprika im Garten.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ix.Update("Garten/Beet.md"); err != nil {
		t.Fatal(err)
	}
	srv.Batches = nil
	if err := m.sync(); err != nil {
		t.Fatal(err)
	}
	if got := srv.Batches; len(got) != 1 || got[0] != 1 {
		t.Errorf("after one section changed: batches %v, want one of 1", got)
	}
	m.Close()
	// Another model: its own file, the old one removed.
	m2 := startMeaning(t, ix, client("other"))
	files, _ := filepath.Glob(filepath.Join(idxDir, "vectors-*.bin"))
	if len(files) != 1 || !strings.Contains(files[0], "openai_other") {
		t.Errorf("vector files %v, want only the other model's", files)
	}
	if m2.StoreSize() == 0 {
		t.Error("the other model's vectors are empty")
	}
}

// TestMeaning_EndpointDown: the embedder cannot be reached; search by
// words goes on and says why meaning is missing.
func TestMeaning_EndpointDown(t *testing.T) {
	v, _ := newVault(t, meaningNotes)
	ix := openIndex(t, v, Options{})
	srv := embedtest.NewServer(tinyStatic(t))
	srv.FailNext.Store(1 << 20)
	defer srv.Close()
	zero := 0
	e, _ := embed.NewOpenAI(embed.Config{Kind: embed.KindOpenAI, URL: srv.URL1(), Model: "tiny", Retries: &zero})
	m := startMeaning(t, ix, e)
	if c := m.CoverageText(); !strings.Contains(c, "meaning search is not available: embedding server") || !strings.Contains(c, "by words only") {
		t.Errorf("coverage %q", c)
	}
	r, err := ix.SearchFused(context.Background(), m, Query{Text: "Router"}, "")
	if err != nil || len(r.Hits) != 1 || r.MeaningProblem == "" {
		t.Errorf("got %+v, %v; want the word hit and the problem", r, err)
	}
}

// TestMeaning_FiltersHoldForMeaningHits: a note found by meaning only
// passes the same tag, property and exclusion filters as a word hit; one
// that fails them is left out, not the whole meaning ranking.
func TestMeaning_FiltersHoldForMeaningHits(t *testing.T) {
	notes := map[string]string{
		"Arbeit/Kündigung.md": "---\ntags: [recht]\nstatus: offen\n---\n# Kündigung\n\nDie Kündigung kam per Post, fristlos.\n",
		"Arbeit/Entlassen.md": "---\ntags: [archiv]\nstatus: erledigt\n---\n# Entlassen\n\nEntlassen wurde er im Mai.\n",
		"Haus/Umzug.md":       "# Umzug\n\nDie neue Wohnung ist ein altes Gebäude.\n",
	}
	v, _ := newVault(t, notes)
	ix := openIndex(t, v, Options{})
	m := startMeaning(t, ix, tinyStatic(t))
	ctx := context.Background()
	cases := []struct {
		q    Query
		want []string
	}{
		{Query{Text: "dismissal"}, []string{"Arbeit/Entlassen.md", "Arbeit/Kündigung.md"}},
		{Query{Text: "dismissal", Tag: "recht"}, []string{"Arbeit/Kündigung.md"}},
		{Query{Text: "dismissal tag:archiv"}, []string{"Arbeit/Entlassen.md"}},
		{Query{Text: "dismissal", Properties: map[string]string{"status": "offen"}}, []string{"Arbeit/Kündigung.md"}},
		{Query{Text: "dismissal -status=offen"}, []string{"Arbeit/Entlassen.md"}},
		{Query{Text: "dismissal", NotFolders: []string{"Arbeit"}}, nil},
	}
	for _, c := range cases {
		r, err := ix.SearchFused(ctx, m, c.q, ByMeaning)
		if err != nil {
			t.Fatalf("%+v: %v", c.q, err)
		}
		got := hitPaths(r)
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%+v by meaning: got %v, want %v", c.q, got, c.want)
		}
		for _, h := range r.Hits {
			if h.By != ByMeaning {
				t.Errorf("%+v: hit %s by %q, want meaning", c.q, h.Path, h.By)
			}
		}
	}
	// Search (the index's own embedder) fuses by default and obeys By.
	ix2 := openIndex(t, v, Options{Dir: filepath.Join(t.TempDir(), "ix2"), Embedder: tinyStatic(t)})
	wctx, cancel := context.WithTimeout(ctx, hangCap)
	defer cancel()
	if err := ix2.Meaning().WaitSynced(wctx); err != nil {
		t.Fatal(err)
	}
	if st := ix2.Status().Meaning; !st.Complete() || st.Model == "" {
		t.Errorf("status after the first pass: %+v, want complete", st)
	}
	r, err := ix2.Search(ctx, Query{Text: "dismissal"})
	if err != nil || len(r.Hits) != 2 || r.Hits[0].By != ByMeaning {
		t.Errorf("Search with an embedder: %+v, %v; want two meaning hits", r, err)
	}
	r, err = ix2.Search(ctx, Query{Text: "dismissal", By: ByWords})
	if err != nil || len(r.Hits) != 0 {
		t.Errorf("Search by words: %+v, %v; want none", r, err)
	}
}

// TestMeaningStatus_Text: what an answer says while vectors are missing,
// when embedding fails, and nothing when complete or off.
func TestMeaningStatus_Text(t *testing.T) {
	cases := []struct {
		s    MeaningStatus
		want string
	}{
		{MeaningStatus{}, ""},
		{MeaningStatus{Model: "m", Done: 8120, Total: 13000, Synced: false}, "meaning search covers 62 % of the vault (8,120 of 13,000 sections); the rest is being embedded"},
		{MeaningStatus{Model: "m", Synced: false}, "meaning search starts once the word index is ready; the hits are by words only"},
		{MeaningStatus{Model: "m", Done: 40, Total: 40, Synced: false}, "meaning search is reading the vault's sections; the hits may miss some"},
		{MeaningStatus{Model: "m", Done: 40, Total: 40, Synced: true}, ""},
		{MeaningStatus{Problem: "the configured embedder cannot be loaded"}, "meaning search is not available: the configured embedder cannot be loaded; the hits are by words only"},
	}
	for _, c := range cases {
		if got := c.s.Text(); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.s, got, c.want)
		}
		if c.s.Complete() != (c.s.Model != "" && c.want == "") {
			t.Errorf("%+v: Complete() = %v", c.s, c.s.Complete())
		}
	}
}

// TestMeaning_SimilarByVectors: with an embedder, similar notes also
// finds the note that says the same in other words (no word shared), and
// says how each hit was found; the source is never a hit.
func TestMeaning_SimilarByVectors(t *testing.T) {
	notes := map[string]string{
		"Arbeit/Kündigung.md": "# Kündigung\n\nDie Kündigung kam fristlos.\n",
		"Arbeit/Entlassen.md": "# Entlassen\n\nEntlassen wurde er im Mai: termination.\n",
		"Haus/Umzug.md":       "# Umzug\n\nDie neue Wohnung ist ein altes Gebäude.\n",
	}
	v, _ := newVault(t, notes)
	ix := openIndex(t, v, Options{Embedder: tinyStatic(t)})
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	if err := ix.Meaning().WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := ix.Similar(ctx, SimilarQuery{Path: "Arbeit/Kündigung.md", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Hits) == 0 || r.Hits[0].Path != "Arbeit/Entlassen.md" || r.Hits[0].By != ByMeaning || r.Hits[0].Sections[0].Snippet == "" {
		t.Fatalf("got %+v, want Arbeit/Entlassen.md first, by meaning, with a snippet", r.Hits)
	}
	for _, h := range r.Hits {
		if h.Path == "Arbeit/Kündigung.md" || h.Path == "Haus/Umzug.md" {
			t.Errorf("hit %s: the source itself or a note on another matter", h.Path)
		}
	}
}
