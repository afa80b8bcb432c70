package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// OpenAI is a client of an OpenAI-compatible embeddings endpoint
// (POST {URL}/embeddings with {"model", "input": [...], "dimensions"}).
// It sends BatchSize texts per request, retries a failed request (no
// answer, 429, 5xx) with a growing pause, and checks that every vector has
// the configured dimensions. It is safe for concurrent use.
type OpenAI struct {
	endpoint string
	model    string
	dims     int // asked for and checked; 0: learned from the first answer
	key      string
	batch    int
	retries  int
	client   *http.Client
	pause    time.Duration // before the first retry; doubles

	learned atomic.Int64 // dims learned from the first answer (when dims is 0)
}

var _ Embedder = (*OpenAI)(nil)

// Defaults of Config for the openai kind.
const (
	DefaultBatch   = 32
	DefaultTimeout = 30 * time.Second
	DefaultRetries = 2
)

// NewOpenAI returns a client for c (Kind openai). It does not connect: the
// first Embed does.
func NewOpenAI(c Config) (*OpenAI, error) {
	u, err := url.Parse(strings.TrimRight(c.URL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: the embedding URL %q is no http(s) URL; give the base up to /v1, e.g. http://localhost:11434/v1", ErrConfig, c.URL)
	}
	if c.Model == "" {
		return nil, fmt.Errorf("%w: the openai embedder needs a model name (e.g. bge-m3)", ErrConfig)
	}
	if c.Dimensions < 0 || c.BatchSize < 0 || c.Timeout < 0 {
		return nil, fmt.Errorf("%w: dimensions, batch_size and timeout must not be negative", ErrConfig)
	}
	e := &OpenAI{endpoint: u.String() + "/embeddings", model: c.Model, dims: c.Dimensions, key: c.APIKey,
		batch: c.BatchSize, retries: DefaultRetries, pause: 200 * time.Millisecond}
	if e.batch == 0 {
		e.batch = DefaultBatch
	}
	if c.Retries != nil {
		e.retries = max(0, *c.Retries)
	}
	timeout := time.Duration(c.Timeout)
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	e.client = &http.Client{Timeout: timeout}
	return e, nil
}

// Dim is the configured dimensions, or those of the first answer (0
// before it).
func (e *OpenAI) Dim() int {
	if e.dims > 0 {
		return e.dims
	}
	return int(e.learned.Load())
}

// ID names the endpoint's model and dimensions; the host is left out (the
// same model served elsewhere gives the same vectors).
func (e *OpenAI) ID() string {
	if e.dims > 0 {
		return fmt.Sprintf("openai:%s@%d", e.model, e.dims)
	}
	return "openai:" + e.model
}

// EndpointError is a failed embeddings request: which endpoint, what
// happened, and what to do.
type EndpointError struct {
	URL    string
	Status int // HTTP status; 0 when there was no answer
	Msg    string
	Err    error
}

func (e *EndpointError) Error() string { return "embedding server " + e.URL + ": " + e.Msg }
func (e *EndpointError) Unwrap() error { return e.Err }

// Embed sends the texts in batches and returns their vectors in order.
// Errors: *EndpointError; ctx errors.
func (e *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += e.batch {
		vs, err := e.batchWithRetries(ctx, texts[lo:min(len(texts), lo+e.batch)])
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

func (e *OpenAI) batchWithRetries(ctx context.Context, texts []string) ([][]float32, error) {
	pause := e.pause
	for try := 0; ; try++ {
		vs, err := e.request(ctx, texts)
		var ee *EndpointError
		if err == nil || try >= e.retries || ctx.Err() != nil || !errors.As(err, &ee) || !retryable(ee) {
			return vs, err
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		pause *= 2
	}
}

// retryable: no answer, too many requests, or a server error.
func retryable(e *EndpointError) bool {
	return e.Status == 0 || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

type embedRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (e *OpenAI) request(ctx context.Context, texts []string) ([][]float32, error) {
	body, _ := json.Marshal(embedRequest{Model: e.model, Input: texts, Dimensions: e.dims})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &EndpointError{URL: e.endpoint, Msg: err.Error(), Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	if e.key != "" {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &EndpointError{URL: e.endpoint, Msg: unreachable(err, e.client.Timeout), Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, &EndpointError{URL: e.endpoint, Status: 0, Msg: "the answer broke off: " + err.Error(), Err: err}
	}
	var er embedResponse
	jerr := json.Unmarshal(b, &er)
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(b))
		if jerr == nil && er.Error != nil && er.Error.Message != "" {
			msg = er.Error.Message
		}
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		hint := ""
		switch {
		case resp.StatusCode == http.StatusNotFound:
			hint = "; is the URL the base up to /v1, and is the model " + e.model + " pulled?"
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			hint = "; the server wants an API key (api_key in " + ConfigFile + ")"
		}
		return nil, &EndpointError{URL: e.endpoint, Status: resp.StatusCode, Msg: fmt.Sprintf("answered %d %s: %s%s", resp.StatusCode, http.StatusText(resp.StatusCode), msg, hint)}
	}
	if jerr != nil {
		return nil, &EndpointError{URL: e.endpoint, Status: resp.StatusCode, Msg: "the answer is not the JSON of an embeddings endpoint: " + jerr.Error()}
	}
	if len(er.Data) != len(texts) {
		return nil, &EndpointError{URL: e.endpoint, Status: resp.StatusCode, Msg: fmt.Sprintf("sent %d texts but got %d vectors back", len(texts), len(er.Data))}
	}
	out := make([][]float32, len(texts))
	for i, d := range er.Data {
		at := d.Index
		if at < 0 || at >= len(out) || out[at] != nil {
			at = i // servers that leave the index out
		}
		want := e.Dim()
		if want == 0 {
			e.learned.CompareAndSwap(0, int64(len(d.Embedding)))
			want = e.Dim()
		}
		if len(d.Embedding) != want || want == 0 {
			return nil, &EndpointError{URL: e.endpoint, Status: resp.StatusCode,
				Msg: fmt.Sprintf("the model %s returned vectors of %d dimensions, but %d are configured; set dimensions to %d (or leave it out) and the vectors are rebuilt", e.model, len(d.Embedding), want, len(d.Embedding))}
		}
		v := d.Embedding
		Normalize(v)
		out[at] = v
	}
	return out, nil
}

// unreachable says why a request got no answer.
func unreachable(err error, timeout time.Duration) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no answer within %s; the model may still be loading, or raise timeout in %s", timeout, ConfigFile)
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return "cannot be reached (" + oe.Err.Error() + "); is the server running? (Ollama: ollama serve; llama.cpp: llama-server --embeddings)"
	}
	return "no answer: " + err.Error()
}
