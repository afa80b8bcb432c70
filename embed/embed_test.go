package embed_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/embed"
	"github.com/vaultd/vaultd/embed/embedtest"
)

func tinyModel(t *testing.T) *embed.Static {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny-model")
	if err := embedtest.WriteModel(dir); err != nil {
		t.Fatal(err)
	}
	s, err := embed.LoadStatic(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func cos(t *testing.T, e embed.Embedder, a, b string) float32 {
	t.Helper()
	vs, err := e.Embed(context.Background(), []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	return embed.Dot(vs[0], vs[1])
}

// TestStatic_Meaning: texts sharing no word but the concept are near; the
// tokenizer folds case and accents and splits off punctuation and suffixes.
func TestStatic_Meaning(t *testing.T) {
	s := tinyModel(t)
	if s.Dim() != embedtest.Dim {
		t.Fatalf("Dim %d, want %d", s.Dim(), embedtest.Dim)
	}
	if !strings.HasPrefix(s.ID(), "static:tiny-model@") {
		t.Errorf("ID %q", s.ID())
	}
	near := cos(t, s, "Die Kündigung kam per Post.", "Entlassung, fristlos!")
	far := cos(t, s, "Die Kündigung kam per Post.", "Tomaten im Gewächshaus")
	if near < 0.9 || far > 0.3 {
		t.Errorf("Kündigung~Entlassung %.3f (want ≥ 0.9), Kündigung~Tomaten %.3f (want ≤ 0.3)", near, far)
	}
	if c := cos(t, s, "GEBÄUDE", "house"); c < 0.9 {
		t.Errorf("GEBÄUDE~house %.3f, want ≥ 0.9 (case and umlaut folded)", c)
	}
	if c := cos(t, s, "Häusern", "Haus"); c < 0.9 {
		t.Errorf("Häusern~Haus %.3f, want ≥ 0.9 (haus ##er ##n)", c)
	}
	vs, _ := s.Embed(context.Background(), []string{"xyz qqq"})
	for _, x := range vs[0] {
		if x != 0 {
			t.Fatalf("a text of unknown words: got %v, want the zero vector", vs[0])
		}
	}
}

func TestStatic_Errors(t *testing.T) {
	good := filepath.Join(t.TempDir(), "m")
	if err := embedtest.WriteModel(good); err != nil {
		t.Fatal(err)
	}
	copyModel := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "m")
		if err := os.CopyFS(dir, os.DirFS(good)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, tc := range []struct {
		name  string
		spoil func(dir string)
		want  string
	}{
		{"no folder", func(dir string) { os.RemoveAll(dir) }, "does not exist"},
		{"no tokenizer", func(dir string) { os.Remove(filepath.Join(dir, "tokenizer.json")) }, "has no tokenizer.json"},
		{"no table", func(dir string) { os.Remove(filepath.Join(dir, "model.safetensors")) }, "has no model.safetensors"},
		{"cut off", func(dir string) {
			p := filepath.Join(dir, "model.safetensors")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-10], 0o644)
		}, "does not fit"},
		{"not safetensors", func(dir string) {
			os.WriteFile(filepath.Join(dir, "model.safetensors"), []byte("GGUF this is something else entirely"), 0o644)
		}, "is no safetensors file"},
		{"BPE tokenizer", func(dir string) {
			os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(`{"model":{"type":"BPE","vocab":{}}}`), 0o644)
		}, "vaultd reads WordPiece and Unigram"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyModel(t)
			tc.spoil(dir)
			_, err := embed.LoadStatic(dir)
			if err == nil || !errors.Is(err, embed.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrConfig saying %q", err, tc.want)
			}
		})
	}
}

// TestUnigram: the most likely split of a word, pieces ▁-prefixed by
// Metaspace.
func TestUnigram(t *testing.T) {
	dir := t.TempDir()
	tok := `{"normalizer":{"type":"Lowercase"},"pre_tokenizer":{"type":"Metaspace","replacement":"▁"},
	"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["▁kündigung",-2],["▁künd",-3],["igung",-3],["▁haus",-2],["s",-4],["frist",-2.5]]}}`
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(tok), 0o644)
	// 7 rows, 7 dims: row i is unit vector i.
	table := make([]float32, 49)
	for i := range 7 {
		table[i*7+i] = 1
	}
	f, _ := os.Create(filepath.Join(dir, "model.safetensors"))
	embed.WriteSafetensors(f, map[string][]float32{"embeddings": table}, map[string][]int{"embeddings": {7, 7}})
	f.Close()
	s, err := embed.LoadStatic(dir)
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := s.Embed(context.Background(), []string{"Kündigungsfrist"})
	// ▁kündigung + s + frist: rows 1, 5, 6 a third each, then unit length.
	want := []int{1, 5, 6}
	for i, x := range vs[0] {
		in := i == want[0] || i == want[1] || i == want[2]
		if in != (x > 0.5) {
			t.Fatalf("Kündigungsfrist: got %v, want rows %v", vs[0], want)
		}
	}
}

func openAI(t *testing.T, srv *embedtest.Server, c embed.Config) *embed.OpenAI {
	t.Helper()
	c.Kind, c.URL = embed.KindOpenAI, srv.URL1()
	if c.Model == "" {
		c.Model = "tiny"
	}
	e, err := embed.NewOpenAI(c)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestOpenAI_SameAsStatic: the client, in batches, gives the vectors the
// model gives in process.
func TestOpenAI_SameAsStatic(t *testing.T) {
	s := tinyModel(t)
	srv := embedtest.NewServer(s)
	defer srv.Close()
	e := openAI(t, srv, embed.Config{BatchSize: 2, Dimensions: embedtest.Dim})
	texts := []string{"Kündigung", "Haus", "Garten", "Hund", "Reise"}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := s.Embed(context.Background(), texts)
	for i := range texts {
		if d := embed.Dot(got[i], want[i]); d < 0.999 {
			t.Errorf("%s: cos %.4f with the in-process vector", texts[i], d)
		}
	}
	if got := srv.Batches; len(got) != 3 || got[0] != 2 || got[2] != 1 {
		t.Errorf("batches %v, want [2 2 1]", got)
	}
	if e.ID() != "openai:tiny@10" {
		t.Errorf("ID %q", e.ID())
	}
}

func TestOpenAI_Errors(t *testing.T) {
	s := tinyModel(t)
	ctx := context.Background()
	zero := 0

	t.Run("500 then retried", func(t *testing.T) {
		srv := embedtest.NewServer(s)
		defer srv.Close()
		srv.FailNext.Store(2)
		e := openAI(t, srv, embed.Config{})
		if _, err := e.Embed(ctx, []string{"Haus"}); err != nil {
			t.Fatalf("two 500s then an answer, with 2 retries: %v", err)
		}
		if srv.Requests != 3 {
			t.Errorf("%d requests, want 3", srv.Requests)
		}
	})
	t.Run("500 for good", func(t *testing.T) {
		srv := embedtest.NewServer(s)
		defer srv.Close()
		srv.FailNext.Store(100)
		e := openAI(t, srv, embed.Config{Retries: &zero})
		_, err := e.Embed(ctx, []string{"Haus"})
		var ee *embed.EndpointError
		if !errors.As(err, &ee) || ee.Status != 500 || !strings.Contains(err.Error(), "answered 500 Internal Server Error: model crashed") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("wrong dimensions", func(t *testing.T) {
		srv := embedtest.NewServer(s)
		defer srv.Close()
		srv.WrongDims.Store(true)
		e := openAI(t, srv, embed.Config{Dimensions: embedtest.Dim})
		_, err := e.Embed(ctx, []string{"Haus"})
		if err == nil || !strings.Contains(err.Error(), "returned vectors of 9 dimensions, but 10 are configured; set dimensions to 9") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		srv := embedtest.NewServer(s)
		defer srv.Close()
		srv.Delay.Store(int64(2 * time.Second))
		e := openAI(t, srv, embed.Config{Timeout: embed.Duration(100 * time.Millisecond), Retries: &zero})
		start := time.Now()
		_, err := e.Embed(ctx, []string{"Haus"})
		if err == nil || !strings.Contains(err.Error(), "no answer within 100ms") {
			t.Errorf("got %v", err)
		}
		if time.Since(start) > time.Second {
			t.Errorf("took %s, want about the timeout", time.Since(start))
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // nothing listens there now
		e, _ := embed.NewOpenAI(embed.Config{Kind: embed.KindOpenAI, URL: "http://" + addr + "/v1", Model: "bge-m3", Retries: &zero})
		_, err = e.Embed(ctx, []string{"Haus"})
		if err == nil || !strings.Contains(err.Error(), "cannot be reached") || !strings.Contains(err.Error(), "is the server running?") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("wrong path", func(t *testing.T) {
		srv := embedtest.NewServer(s)
		defer srv.Close()
		e, _ := embed.NewOpenAI(embed.Config{Kind: embed.KindOpenAI, URL: srv.URL, Model: "tiny", Retries: &zero})
		_, err := e.Embed(ctx, []string{"Haus"})
		if err == nil || !strings.Contains(err.Error(), "answered 404") || !strings.Contains(err.Error(), "base up to /v1") {
			t.Errorf("got %v", err)
		}
	})
}

func TestParseFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want embed.Config
		err  string
	}{
		{"none", embed.Config{}, ""},
		{"static:/models/potion", embed.Config{Kind: "static", Path: "/models/potion"}, ""},
		{"openai:http://localhost:11434/v1#bge-m3", embed.Config{Kind: "openai", URL: "http://localhost:11434/v1", Model: "bge-m3"}, ""},
		{"openai:http://h:8080/v1#e5@384", embed.Config{Kind: "openai", URL: "http://h:8080/v1", Model: "e5", Dimensions: 384}, ""},
		{"openai:http://h/v1", embed.Config{}, "needs the URL and the model"},
		{"static:", embed.Config{}, "needs the model folder"},
		{"bert:x", embed.Config{}, "unknown embedder"},
	} {
		got, err := embed.ParseFlag(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got %v, want error %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got.Kind != tc.want.Kind || got.Path != tc.want.Path || got.URL != tc.want.URL || got.Model != tc.want.Model || got.Dimensions != tc.want.Dimensions {
			t.Errorf("%s: got %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestConfig_RoundTrip(t *testing.T) {
	dir := t.TempDir()
	if c, err := embed.ReadConfig(dir); err != nil || c.Kind != "" {
		t.Fatalf("no file: got %+v, %v; want none", c, err)
	}
	three := 3
	in := embed.Config{Kind: "openai", URL: "http://localhost:11434/v1", Model: "bge-m3", BatchSize: 16, Timeout: embed.Duration(time.Minute), Retries: &three}
	if err := embed.WriteConfig(dir, in); err != nil {
		t.Fatal(err)
	}
	out, err := embed.ReadConfig(dir)
	if err != nil || out.Model != "bge-m3" || time.Duration(out.Timeout) != time.Minute || *out.Retries != 3 {
		t.Errorf("got %+v, %v", out, err)
	}
	os.WriteFile(filepath.Join(dir, embed.ConfigFile), []byte(`{"kind":"openai","timeout":30}`), 0o600)
	if _, err := embed.ReadConfig(dir); err == nil || !strings.Contains(err.Error(), `like "30s"`) {
		t.Errorf("bad timeout: got %v", err)
	}
}
