// Package embed turns texts into vectors for search by meaning. It owns the
// Embedder interface and its two kinds: a client of any OpenAI-compatible
// /v1/embeddings endpoint the user runs (Ollama, llama.cpp server, LM
// Studio, LocalAI), and static embeddings in the model2vec format
// (a safetensors token-embedding table and a tokenizer.json) computed in
// process, in pure Go.
//
// Nothing here is on by default: a vault searches by words until its owner
// configures an embedder (Config, kept in the state dir).
//
// embed imports no other package of vaultd; index calls it.
package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Embedder turns texts into vectors of Dim numbers each, in order, one
// per text. Vectors from one ID are comparable with each other only.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dim() int
	// ID names the model and everything that changes its vectors
	// ("static:potion-multilingual-128M@3f2a…", "openai:bge-m3@1024"):
	// stored vectors are keyed by it, so another ID rebuilds them.
	ID() string
}

// Kinds of embedders.
const (
	KindOpenAI = "openai"
	KindStatic = "static"
)

// Config chooses and sets up an embedder. The zero value (Kind "") means
// none: search by words only.
type Config struct {
	Kind string `json:"kind"` // "openai", "static" or "" (none)

	// static: the folder holding model.safetensors and tokenizer.json.
	Path string `json:"path,omitempty"`

	// openai: the endpoint's base URL up to /v1 (http://localhost:11434/v1),
	// the model name, and optionally the dimensions to ask for (models
	// that can shorten their vectors) and the key.
	URL        string `json:"url,omitempty"`
	Model      string `json:"model,omitempty"`
	Dimensions int    `json:"dimensions,omitempty"`
	APIKey     string `json:"api_key,omitempty"`
	// BatchSize texts per request (default 32); Timeout per request
	// (default 30 s); Retries after a failed request (default 2).
	BatchSize int      `json:"batch_size,omitempty"`
	Timeout   Duration `json:"timeout,omitempty"`
	Retries   *int     `json:"retries,omitempty"`
}

// Duration is a time.Duration written as "30s" in JSON.
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is written as a string like \"30s\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is no duration; write it like \"30s\" or \"2m\"", s)
	}
	*d = Duration(v)
	return nil
}

// ConfigFile is the name of the embedder's configuration in the state dir.
const ConfigFile = "embedder.json"

// ErrConfig means the configuration cannot be used; the message says why
// and what to write instead.
var ErrConfig = errors.New("embedder configuration")

// ReadConfig reads the configuration in the state dir; no file is the zero
// Config (no embedder).
func ReadConfig(stateDir string) (Config, error) {
	var c Config
	b, err := os.ReadFile(filepath.Join(stateDir, ConfigFile))
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%w: %s in the state dir is not valid: %v", ErrConfig, ConfigFile, err)
	}
	return c, nil
}

// WriteConfig writes the configuration to the state dir (atomically).
func WriteConfig(stateDir string, c Config) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(stateDir, "."+ConfigFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(stateDir, ConfigFile))
}

// ParseFlag reads the --embedder flag's value: "static:DIR",
// "openai:URL#MODEL" (with optional "@DIMENSIONS" after the model), or
// "none".
func ParseFlag(s string) (Config, error) {
	kind, rest, _ := strings.Cut(strings.TrimSpace(s), ":")
	switch kind {
	case "", "none", "off":
		return Config{}, nil
	case KindStatic:
		if rest == "" {
			return Config{}, fmt.Errorf("%w: static needs the model folder: --embedder static:/path/to/potion-multilingual-128M", ErrConfig)
		}
		return Config{Kind: KindStatic, Path: rest}, nil
	case KindOpenAI:
		u, model, ok := strings.Cut(rest, "#")
		if !ok || u == "" || model == "" {
			return Config{}, fmt.Errorf("%w: openai needs the URL and the model: --embedder 'openai:http://localhost:11434/v1#bge-m3'", ErrConfig)
		}
		c := Config{Kind: KindOpenAI, URL: u, Model: model}
		if m, dims, ok := strings.Cut(model, "@"); ok {
			n := 0
			if _, err := fmt.Sscan(dims, &n); err != nil || n <= 0 {
				return Config{}, fmt.Errorf("%w: %q after @ is no number of dimensions: --embedder 'openai:%s#%s@384'", ErrConfig, dims, u, m)
			}
			c.Model, c.Dimensions = m, n
		}
		return c, nil
	}
	return Config{}, fmt.Errorf("%w: unknown embedder %q; use static:DIR, openai:URL#MODEL or none", ErrConfig, kind)
}

// Open returns the configured embedder; nil for the zero Config.
func Open(c Config) (Embedder, error) {
	switch c.Kind {
	case "":
		return nil, nil
	case KindStatic:
		return LoadStatic(c.Path)
	case KindOpenAI:
		return NewOpenAI(c)
	}
	return nil, fmt.Errorf("%w: unknown kind %q; use %q or %q", ErrConfig, c.Kind, KindStatic, KindOpenAI)
}

// Normalize scales v to unit length in place (a zero vector stays zero),
// so that a dot product is the cosine.
func Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// Dot is the dot product of two vectors of equal length.
func Dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
