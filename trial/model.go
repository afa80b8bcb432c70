package trial

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Model is an Agent behind an OpenAI-compatible chat-completions endpoint
// with tool calling: Ollama, llama.cpp's server, LM Studio, vLLM, or a
// hosted API.
//
// Each reply is one POST of the whole conversation to URL/chat/completions:
// a system message (the server instructions, as an MCP client passes them,
// and the budget), the question, and every call so far as the assistant's
// tool_calls with the tool messages that answered them — each exactly the
// text vaultd answered. The tools are the MCP tool list, each as a
// "function" with its name, description and input schema as parameters.
type Model struct {
	// URL is the API's base URL, e.g. http://localhost:11434/v1; a URL
	// that ends in /chat/completions is used as it is.
	URL string
	// Name is the model, as the endpoint names it.
	Name string
	// Key, when set, is sent as "Authorization: Bearer KEY".
	Key string
	// KeyFrom names where Key came from (an environment variable), for
	// the error when the endpoint refuses it.
	KeyFrom string
	// Timeout bounds one request (default 2 min: a local model on a CPU is
	// slow). A request that times out is not retried.
	Timeout time.Duration
	// Retries is how often a request answered 429 or 5xx is sent again
	// (default 4; negative: never), after Backoff, doubling (default 1 s;
	// a Retry-After of up to a minute is honoured instead).
	Retries int
	Backoff time.Duration
	// Client is the HTTP client (default: a fresh one).
	Client *http.Client
}

// Defaults of a Model.
const (
	DefaultTimeout = 2 * time.Minute
	DefaultRetries = 4
	DefaultBackoff = time.Second
)

// Endpoint returns the URL requests go to.
func (m *Model) Endpoint() string {
	u := strings.TrimRight(m.URL, "/")
	if strings.HasSuffix(u, "/chat/completions") {
		return u
	}
	return u + "/chat/completions"
}

// The chat-completions wire format, the part vaultd uses.
type (
	chatRequest struct {
		Model      string        `json:"model"`
		Messages   []chatMessage `json:"messages"`
		Tools      []chatTool    `json:"tools"`
		ToolChoice string        `json:"tool_choice"`
		Stream     bool          `json:"stream"`
	}
	chatMessage struct {
		Role       string         `json:"role"`
		Content    string         `json:"content"`
		ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
		ToolCallID string         `json:"tool_call_id,omitempty"`
	}
	chatToolCall struct {
		ID       string       `json:"id"`
		Type     string       `json:"type"`
		Function chatFunction `json:"function"`
	}
	chatFunction struct {
		Name string `json:"name"`
		// Arguments is a JSON string holding JSON text; some servers send
		// the object itself, which is read as well.
		Arguments json.RawMessage `json:"arguments"`
	}
	chatTool struct {
		Type     string       `json:"type"`
		Function chatToolSpec `json:"function"`
	}
	chatToolSpec struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	chatResponse struct {
		Choices []struct {
			Message struct {
				Content   *string        `json:"content"`
				ToolCalls []chatToolCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Error *apiError `json:"error"`
	}
	apiError struct {
		Message string `json:"message"`
	}
)

// SystemPrompt is the system message a model gets: the server's
// instructions, as an MCP client passes them on, and its budget.
func SystemPrompt(c Conversation) string {
	return strings.TrimSpace(c.Instructions) + "\n\n" + fmt.Sprintf(
		"Answer the user's question from this vault with its tools. You may make at most %d tool calls for this question; then answer in your own words and say which note the answer is from.", c.Budget)
}

// messages is the conversation as chat messages: what Model sends.
func messages(c Conversation) []chatMessage {
	msgs := []chatMessage{
		{Role: "system", Content: SystemPrompt(c)},
		{Role: "user", Content: c.Question},
	}
	for i := 0; i < len(c.Steps); {
		reply := c.Steps[i].Reply
		a := chatMessage{Role: "assistant", Content: c.Steps[i].Words}
		j := i
		for ; j < len(c.Steps) && c.Steps[j].Reply == reply; j++ {
			s := c.Steps[j]
			args, _ := json.Marshal(s.Arguments)
			a.ToolCalls = append(a.ToolCalls, chatToolCall{ID: s.ID, Type: "function", Function: chatFunction{Name: s.Tool, Arguments: args}})
		}
		msgs = append(msgs, a)
		for ; i < j; i++ {
			msgs = append(msgs, chatMessage{Role: "tool", ToolCallID: c.Steps[i].ID, Content: c.Steps[i].Text})
		}
	}
	return msgs
}

// Next implements Agent: one chat completion.
func (m *Model) Next(ctx context.Context, c Conversation) (Reply, error) {
	req := chatRequest{Model: m.Name, Messages: messages(c), ToolChoice: "auto"}
	for _, t := range c.Tools {
		req.Tools = append(req.Tools, chatTool{Type: "function", Function: chatToolSpec{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}})
	}
	body, err := json.Marshal(req)
	if err != nil {
		return Reply{}, err
	}
	resp, err := m.post(ctx, body)
	if err != nil {
		return Reply{}, err
	}
	if len(resp.Choices) == 0 {
		return Reply{}, fmt.Errorf("the model endpoint %s answered a chat completion without choices", m.Endpoint())
	}
	msg := resp.Choices[0].Message
	var rep Reply
	if msg.Content != nil {
		rep.Words = *msg.Content
	}
	for _, tc := range msg.ToolCalls {
		rep.Calls = append(rep.Calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: argumentsText(tc.Function.Arguments)})
	}
	return rep, nil
}

// argumentsText reads a tool call's arguments: the JSON string the
// protocol has them in, or (from servers that send it) the object itself.
// Anything else is passed on as it came, for the runner to call malformed.
func argumentsText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	if t := strings.TrimSpace(string(raw)); t != "null" {
		return t
	}
	return ""
}

// post sends one request, retrying 429 and 5xx answers with backoff.
func (m *Model) post(ctx context.Context, body []byte) (*chatResponse, error) {
	timeout, retries, backoff := m.Timeout, m.Retries, m.Backoff
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if retries < 0 {
		retries = 0
	} else if retries == 0 {
		retries = DefaultRetries
	}
	if backoff <= 0 {
		backoff = DefaultBackoff
	}
	client := m.Client
	if client == nil {
		client = &http.Client{}
	}
	url := m.Endpoint()
	start := time.Now()
	for attempt := 0; ; attempt++ {
		status, header, b, err := m.once(ctx, client, url, body, timeout)
		if err != nil {
			return nil, m.transportError(ctx, err, timeout)
		}
		if status == http.StatusOK {
			var r chatResponse
			if err := json.Unmarshal(b, &r); err != nil {
				return nil, fmt.Errorf("the model endpoint %s answered something that is not a chat completion (%v): %s", url, err, snippet(b))
			}
			if r.Error != nil && len(r.Choices) == 0 {
				return nil, fmt.Errorf("the model endpoint %s answered an error: %s", url, r.Error.Message)
			}
			return &r, nil
		}
		retryable := status == http.StatusTooManyRequests || status >= 500
		if !retryable {
			return nil, m.statusError(url, status, b)
		}
		if attempt >= retries {
			return nil, fmt.Errorf("the model endpoint %s answered %s %d times (retried for %s): %s",
				url, statusText(status), attempt+1, time.Since(start).Round(time.Millisecond), apiMessage(b))
		}
		wait := backoff << attempt
		if s, err := strconv.Atoi(strings.TrimSpace(header.Get("Retry-After"))); err == nil && s > 0 && s <= 60 {
			wait = time.Duration(s) * time.Second
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// once sends one request and reads the answer.
func (m *Model) once(ctx context.Context, client *http.Client, url string, body []byte, timeout time.Duration) (int, http.Header, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if m.Key != "" {
		req.Header.Set("Authorization", "Bearer "+m.Key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.StatusCode, resp.Header, b, nil
}

// transportError says plainly why no answer came.
func (m *Model) transportError(ctx context.Context, err error, timeout time.Duration) error {
	url := m.Endpoint()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return fmt.Errorf("the model at %s did not answer within %s; a slow model needs a longer --model-timeout", url, timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("the model endpoint %s is down (connection refused); start the model server (e.g. ollama serve) or check --model-url", url)
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return fmt.Errorf("the model endpoint %s cannot be reached: no host %q; check --model-url", url, dns.Name)
	}
	return fmt.Errorf("the model endpoint %s cannot be reached: %v; check --model-url", url, err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// statusError says what a refusal that retrying will not change means.
func (m *Model) statusError(url string, status int, b []byte) error {
	msg := fmt.Sprintf("the model endpoint %s answered %s: %s", url, statusText(status), apiMessage(b))
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		from := "the API key's environment variable"
		if m.KeyFrom != "" {
			from = "$" + m.KeyFrom
		}
		if m.Key == "" {
			msg += "; it wants an API key: set " + from
		} else {
			msg += "; check the API key in " + from
		}
	case http.StatusNotFound:
		msg += "; check --model-url (it ends in /v1 for most servers) and --model"
	}
	return errors.New(msg)
}

func statusText(status int) string {
	return strings.TrimSpace(fmt.Sprintf("%d %s", status, http.StatusText(status)))
}

// apiMessage is the error message of an API's answer body, else its start.
func apiMessage(b []byte) string {
	var r struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &r) == nil && len(r.Error) > 0 {
		var e apiError
		if json.Unmarshal(r.Error, &e) == nil && e.Message != "" {
			return e.Message
		}
		var s string
		if json.Unmarshal(r.Error, &s) == nil && s != "" {
			return s
		}
	}
	return snippet(b)
}

func snippet(b []byte) string {
	s := oneLine(string(b))
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}
