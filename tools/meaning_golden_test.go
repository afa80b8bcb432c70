package tools

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/embed"
	"github.com/vaultd/vaultd/embed/embedtest"
	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/vault"
)

// meaningCases are search_notes' answers where the vault searches by
// meaning too, with the tiny test model (embedtest) loaded through the
// real model2vec loader: fused hits saying how each matched, one kind
// only, filters holding for meaning hits, and an embedder that fails.
var meaningCases = []struct {
	goldenCase
	embedder string // "static", "down" (endpoint answers 500), "unloadable", "" (none)
}{
	{goldenCase{name: "search_notes/meaning/fused", caller: readOnly, call: step{"search_notes", `{"query":"garden","limit":3}`}}, "static"},
	{goldenCase{name: "search_notes/meaning/fused_both", caller: readOnly, call: step{"search_notes", `{"query":"Garten Pflanzen","limit":3}`}}, "static"},
	{goldenCase{name: "search_notes/meaning/by_meaning_space", caller: readOnly, call: step{"search_notes", `{"query":"building house","space":"4_Archiv","by":"meaning","limit":3}`}}, "static"},
	{goldenCase{name: "search_notes/meaning/by_meaning_tag", caller: readOnly, call: step{"search_notes", `{"query":"vacation","tag":"team","by":"meaning","limit":3}`}}, "static"},
	{goldenCase{name: "search_notes/meaning/by_words_none", caller: readOnly, call: step{"search_notes", `{"query":"garden","by":"words"}`}}, "static"},
	{goldenCase{name: "search_notes/meaning/err_bad_by", caller: readOnly, call: step{"search_notes", `{"query":"garden","by":"sense"}`}}, "static"},
	{goldenCase{name: "search_notes/meaning/embedder_down", caller: readOnly, call: step{"search_notes", `{"query":"Gewächshaus","limit":2}`}}, "down"},
	{goldenCase{name: "search_notes/meaning/embedder_unloadable", caller: readOnly, call: step{"search_notes", `{"query":"Gewächshaus","limit":2}`}}, "unloadable"},
	{goldenCase{name: "search_similar_notes/meaning/note", caller: readOnly, call: step{"search_similar_notes", `{"path":"2_Bereiche/Garten/Gewächshaus.md","limit":3}`}}, "static"},
	{goldenCase{name: "search_similar_notes/meaning/section", caller: readOnly, call: step{"search_similar_notes", `{"path":"2_Bereiche/Team/Lena Hoffmann.md","heading":"Abwesenheiten","limit":3}`}}, "static"},
	{goldenCase{name: "search_notes/meaning/off", caller: readOnly, call: step{"search_notes", `{"query":"Gewächshaus","by":"meaning","limit":2}`}}, ""},
}

func TestGolden_Meaning(t *testing.T) {
	for _, tc := range meaningCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyExampleVault(t)
			c, endpoint := newMeaningCore(t, dir, tc.embedder)
			r, shown := runStep(t, c, tc.caller, tc.call, dir, "")
			got := renderGolden(shown, r, dir)
			if endpoint != "" {
				// The test server's port differs per run.
				got = strings.ReplaceAll(got, endpoint, "http://127.0.0.1:PORT")
			}
			checkContract(t, tc.caller, tc.call, r, dir)
			followSuggestions(t, c, tc.caller, r)
			compareGolden(t, filepath.Join("testdata", "golden", tc.name+".golden"), got)
		})
	}
}

// newMeaningCore is newTestCore with an embedder of the kind named, the
// first embedding pass done, and the embeddings endpoint's URL if any.
func newMeaningCore(t *testing.T, dir, kind string) (*Core, string) {
	t.Helper()
	v, err := vault.Open(dir, vault.Options{StateDir: filepath.Join(t.TempDir(), "state"), NoSync: true, Actor: "test", Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	endpoint := ""
	o := index.Options{Dir: filepath.Join(t.TempDir(), "index"), Logger: slog.New(slog.DiscardHandler)}
	model := filepath.Join(t.TempDir(), "potion-tiny")
	if err := embedtest.WriteModel(model); err != nil {
		t.Fatal(err)
	}
	switch kind {
	case "static":
		o.Embedder, o.EmbedderError = openEmbedder(embed.Config{Kind: embed.KindStatic, Path: model})
	case "down":
		s, err := embed.LoadStatic(model)
		if err != nil {
			t.Fatal(err)
		}
		srv := embedtest.NewServer(s)
		t.Cleanup(srv.Close)
		srv.FailNext.Store(1 << 20)
		zero := 0
		o.Embedder, o.EmbedderError = openEmbedder(embed.Config{Kind: embed.KindOpenAI, URL: srv.URL1(), Model: "tiny", Retries: &zero})
		endpoint = srv.URL
	case "unloadable":
		o.Embedder, o.EmbedderError = openEmbedder(embed.Config{Kind: embed.KindStatic, Path: filepath.Join(t.TempDir(), "missing")})
		if o.EmbedderError == nil {
			t.Fatal("a missing model folder loaded")
		}
	}
	idx, err := index.Open(v, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := idx.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	if m := idx.Meaning(); m != nil {
		if err := m.WaitSynced(ctx); err != nil {
			t.Fatal(err)
		}
	}
	c, err := NewCore(v, CoreOptions{Now: func() time.Time { return fixedNow }, Index: idx})
	if err != nil {
		t.Fatal(err)
	}
	return c, endpoint
}

// openEmbedder is how the CLI opens the configured embedder: a failure is
// the reason search by meaning is off.
func openEmbedder(c embed.Config) (embed.Embedder, error) {
	e, err := embed.Open(c)
	if err != nil {
		return nil, fmt.Errorf("the embedder cannot be loaded: %w", err)
	}
	return e, nil
}
