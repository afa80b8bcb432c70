// Package embedtest makes what tests of search by meaning need without
// downloading a model: a tiny model2vec model written to a folder (loaded
// through the real loader), and an OpenAI-compatible embeddings server
// that computes its vectors with any Embedder, with faults to inject.
//
// embedtest imports embed only; tests and bench import it, the product
// does not.
package embedtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vaultd/vaultd/embed"
)

// Concepts of the tiny model: the words of one concept share a direction,
// in German and English, so that a text about Kündigung is near one about
// Entlassung or dismissal while sharing no word with it.
var Concepts = [][]string{
	{"kündigung", "entlassung", "dismissal", "termination", "kündigen", "entlassen"},
	{"haus", "gebäude", "house", "building", "wohnung", "home"},
	{"garten", "beet", "garden", "pflanzen", "tomaten", "gewächshaus"},
	{"auto", "wagen", "car", "fahrzeug", "vehicle"},
	{"hund", "katze", "dog", "cat", "tier", "haustier"},
	{"geld", "kosten", "budget", "money", "preis", "rechnung"},
	{"netzwerk", "switch", "router", "network", "wlan", "vlan"},
	{"reise", "urlaub", "travel", "vacation", "ferien"},
}

// Dim is the tiny model's dimensions: one per concept, and two more that
// every word has a little of (so that no two concepts are orthogonal).
var Dim = len(Concepts) + 2

// WriteModel writes the tiny model into dir (created): model.safetensors,
// tokenizer.json (WordPiece, lower case, accents stripped) and config.json.
func WriteModel(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	vocab := map[string]int{"[PAD]": 0, "[UNK]": 1, "##en": 2, "##s": 3, "##e": 4, "##er": 5, "##n": 6}
	rows := [][]float32{make([]float32, Dim), make([]float32, Dim), suffixRow(0), suffixRow(1), suffixRow(0), suffixRow(1), suffixRow(0)}
	strip := func(s string) string {
		r := []rune(s)
		for i, c := range r {
			switch c {
			case 'ä':
				r[i] = 'a'
			case 'ö':
				r[i] = 'o'
			case 'ü':
				r[i] = 'u'
			}
		}
		return string(r)
	}
	for c, words := range Concepts {
		for j, w := range words {
			w = strip(w)
			if _, ok := vocab[w]; ok {
				continue
			}
			row := make([]float32, Dim)
			row[c] = 1
			row[len(Concepts)+j%2] = 0.15
			vocab[w] = len(rows)
			rows = append(rows, row)
		}
	}
	table := make([]float32, 0, len(rows)*Dim)
	for _, r := range rows {
		table = append(table, r...)
	}
	f, err := os.Create(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		return err
	}
	if err := embed.WriteSafetensors(f, map[string][]float32{"embeddings": table}, map[string][]int{"embeddings": {len(rows), Dim}}); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	tok := map[string]any{
		"version":       "1.0",
		"normalizer":    map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"model":         map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": vocab},
	}
	b, _ := json.MarshalIndent(tok, "", " ")
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"model_type": "model2vec", "normalize": true}`), 0o644)
}

func suffixRow(k int) []float32 {
	r := make([]float32, Dim)
	r[len(Concepts)+k] = 0.05
	return r
}

// Server is an OpenAI-compatible embeddings endpoint (POST /v1/embeddings)
// computing vectors with an Embedder. Its fields inject faults.
type Server struct {
	*httptest.Server
	E embed.Embedder
	// FailNext answers the next n requests with 500.
	FailNext atomic.Int32
	// Delay holds every answer this long.
	Delay atomic.Int64 // nanoseconds
	// WrongDims answers with vectors one number short.
	WrongDims atomic.Bool

	mu       sync.Mutex
	Requests int   // requests answered (also the failed ones)
	Batches  []int // texts per request
}

// NewServer starts a server; Close it when done.
func NewServer(e embed.Embedder) *Server {
	s := &Server{E: e}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL1 is the base URL up to /v1, as a Config takes it.
func (s *Server) URL1() string { return s.URL + "/v1" }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if d := s.Delay.Load(); d > 0 {
		select {
		case <-time.After(time.Duration(d)):
		case <-r.Context().Done():
			return
		}
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	err := json.NewDecoder(r.Body).Decode(&req)
	s.mu.Lock()
	s.Requests++
	s.Batches = append(s.Batches, len(req.Input))
	s.mu.Unlock()
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if s.FailNext.Load() > 0 {
		s.FailNext.Add(-1)
		http.Error(w, `{"error":{"message":"model crashed"}}`, http.StatusInternalServerError)
		return
	}
	if err != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	vs, err := s.E.Embed(r.Context(), req.Input)
	if err != nil {
		http.Error(w, `{"error":{"message":"embedding failed"}}`, http.StatusInternalServerError)
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
	}{Object: "list", Model: req.Model}
	for i, v := range vs {
		if s.WrongDims.Load() {
			v = v[:len(v)-1]
		}
		out.Data = append(out.Data, item{"embedding", i, v})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
