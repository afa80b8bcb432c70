package trial

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultd/vaultd/mcpserver"
	"github.com/vaultd/vaultd/tools"
)

// fakeModel is a local OpenAI-compatible chat-completions server whose
// "model" is the text policy: it reads the conversation the client sends
// (its own decoding of the wire format, not the client's types), rebuilds
// the calls and the texts they got, and answers as the policy would — a
// tool call, or a final message — in the chat-completions tool-calling
// protocol. Knobs make it fail the way real endpoints do.
type fakeModel struct {
	t *testing.T

	mu       sync.Mutex
	requests []wireRequest
	headers  []http.Header
	// statuses are answered, one per request, before any real answer
	// (429, 503, …).
	statuses []int
	// delay holds every answer back this long.
	delay time.Duration
	// malformed: the first tool call of each question goes out with
	// arguments that are not JSON.
	malformed bool
	// parallel: when the policy reads a hit list, the model asks for two
	// calls at once, the policy's and a listing.
	parallel bool
}

// The wire format as the fake server reads it.
type (
	wireRequest struct {
		Model      string        `json:"model"`
		Messages   []wireMessage `json:"messages"`
		Tools      []wireTool    `json:"tools"`
		ToolChoice string        `json:"tool_choice"`
	}
	wireMessage struct {
		Role      string  `json:"role"`
		Content   *string `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolCallID string `json:"tool_call_id"`
	}
	wireTool struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
)

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error": {"message": "no such route"}}`, http.StatusNotFound)
		return
	}
	var req wireRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.t.Errorf("the client sent a body that is not JSON: %v", err)
		http.Error(w, `{"error": {"message": "bad json"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.headers = append(f.headers, r.Header.Clone())
	var status int
	if len(f.statuses) > 0 {
		status, f.statuses = f.statuses[0], f.statuses[1:]
	}
	delay := f.delay
	f.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error": {"message": "the fake model says %d"}}`, status)
		return
	}
	msg := f.reply(req)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(msg)}},
	})
}

func finishReason(msg map[string]any) string {
	if _, ok := msg["tool_calls"]; ok {
		return "tool_calls"
	}
	return "stop"
}

// budgetRE reads the budget from the system message, as a model does.
var budgetRE = regexp.MustCompile(`at most (\d+) tool calls`)

// reply is the text policy's next message for a conversation.
func (f *fakeModel) reply(req wireRequest) map[string]any {
	question, turns, calls, malformedSeen := f.read(req)
	budget := 0
	if m := budgetRE.FindStringSubmatch(*req.Messages[0].Content); m != nil {
		budget, _ = strconv.Atoi(m[1])
	}
	next, done := Next(question, budget-calls, turns)
	if done {
		return map[string]any{"role": "assistant", "content": Answer(question, turns)}
	}
	args := argsJSON(next.Args)
	if f.malformed && !malformedSeen {
		args = strings.TrimSuffix(args, "}") // cut off: not JSON
	}
	tc := []any{toolCall(fmt.Sprintf("call_%d", calls+1), next.Tool, args)}
	if f.parallel && len(turns) > 0 && turns[len(turns)-1].Call.Tool == "search_notes" {
		tc = append(tc, toolCall(fmt.Sprintf("call_%d", calls+2), "list_notes", `{"folder": "1_Projekte"}`))
	}
	return map[string]any{"role": "assistant", "content": "I follow the text: " + next.String(), "tool_calls": tc}
}

func toolCall(id, name, args string) map[string]any {
	return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}
}

// read rebuilds the question and the policy's history from the messages,
// checking the protocol as it goes: system, user, then each assistant
// message's tool calls answered by tool messages with their ids. A call
// whose arguments are not a JSON object is left out of the history (the
// policy ignores what did not run).
func (f *fakeModel) read(req wireRequest) (question string, turns []Turn, calls int, malformed bool) {
	ms := req.Messages
	if len(ms) < 2 || ms[0].Role != "system" || ms[1].Role != "user" || ms[1].Content == nil {
		f.t.Errorf("conversation does not start with a system and a user message: %+v", ms)
		return "", nil, 0, false
	}
	question = *ms[1].Content
	pending := map[string]Call{}
	var order []string
	for _, m := range ms[2:] {
		switch m.Role {
		case "assistant":
			if len(pending) > 0 {
				f.t.Errorf("assistant message before the tool calls %v were answered", order)
			}
			for _, tc := range m.ToolCalls {
				calls++
				if tc.Type != "function" || tc.ID == "" {
					f.t.Errorf("tool call %+v: want type function and an id", tc)
				}
				var args map[string]any
				if json.Unmarshal([]byte(tc.Function.Arguments), &args) != nil {
					malformed = true
					pending[tc.ID] = Call{}
				} else {
					pending[tc.ID] = Call{Tool: tc.Function.Name, Args: args}
				}
				order = append(order, tc.ID)
			}
		case "tool":
			c, ok := pending[m.ToolCallID]
			if !ok || m.Content == nil {
				f.t.Errorf("tool message for unknown call %q", m.ToolCallID)
				continue
			}
			delete(pending, m.ToolCallID)
			if c.Tool != "" && c.Tool != "list_notes" {
				turns = append(turns, Turn{Call: c, Text: *m.Content})
			}
		default:
			f.t.Errorf("unexpected message role %q", m.Role)
		}
	}
	if len(pending) > 0 {
		f.t.Errorf("tool calls %v were never answered", order)
	}
	return question, turns, calls, malformed
}

// startFake starts a fake model and returns it with its base URL.
func startFake(t *testing.T, f *fakeModel) string {
	t.Helper()
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// model is a client of the fake with short waits.
func model(url string) *Model {
	return &Model{URL: url, Name: "text-policy", Key: "sk-test", KeyFrom: "TEST_KEY", Timeout: 5 * time.Second, Backoff: time.Millisecond}
}

// portRE hides the fake server's port in a trace.
var portRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)

// TestModel_TextPolicyOverChat: the text policy answering as a model over
// chat completions takes exactly the steps it takes when run directly —
// the client sends the MCP tool list and the exact texts, and reads the
// tool calls and the final message back.
func TestModel_TextPolicyOverChat(t *testing.T) {
	qs := exampleQuestions(t)
	pick := []Question{qs[3], qs[0], qs[7]}
	direct, err := (&Runner{Core: newCore(t), Conn: readOnly(), Agent: TextPolicy{}, Budget: 4}).Run(context.Background(), pick)
	if err != nil {
		t.Fatal(err)
	}

	f := &fakeModel{}
	url := startFake(t, f)
	m := model(url)
	viaChat, err := (&Runner{Core: newCore(t), Conn: readOnly(), Agent: m, Budget: 4, Name: "model text-policy at " + m.Endpoint()}).Run(context.Background(), pick)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pick {
		d, c := direct.Questions[i], viaChat.Questions[i]
		if d.Verdict != c.Verdict || d.Answer != c.Answer || len(d.Steps) != len(c.Steps) {
			t.Fatalf("Q%d: direct %s in %d steps, over chat %s in %d steps", i+1, d.Verdict, len(d.Steps), c.Verdict, len(c.Steps))
		}
		for k := range d.Steps {
			ds, cs := d.Steps[k], c.Steps[k]
			if ds.Tool != cs.Tool || argsJSON(ds.Args) != argsJSON(cs.Args) || ds.Text != cs.Text {
				t.Errorf("Q%d step %d: direct %s, over chat %s", i+1, k+1, ds.Call(), cs.Call())
			}
			if cs.Words == "" {
				t.Errorf("Q%d step %d: the model's words were not kept", i+1, k+1)
			}
		}
	}

	// What went over the wire: the tools are the MCP tool list, the
	// tool messages are exactly vaultd's texts, the key is sent.
	specs := mcpserver.ToolSpecs(tools.Perms{Read: true})
	first := f.requests[0]
	if first.Model != "text-policy" || first.ToolChoice != "auto" || len(first.Tools) != len(specs) {
		t.Fatalf("request: model %q, tool_choice %q, %d tools; want text-policy, auto, %d", first.Model, first.ToolChoice, len(first.Tools), len(specs))
	}
	for i, s := range specs {
		w := first.Tools[i]
		if w.Type != "function" || w.Function.Name != s.Name || w.Function.Description != s.Description || string(w.Function.Parameters) != string(s.InputSchema) {
			t.Errorf("tool %d: got %s %q %s, want %s %q %s", i, w.Function.Name, w.Function.Description, w.Function.Parameters, s.Name, s.Description, s.InputSchema)
		}
	}
	if got := f.headers[0].Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization %q, want Bearer sk-test", got)
	}
	if sys := *first.Messages[0].Content; !strings.Contains(sys, "vault_overview") || !strings.Contains(sys, "at most 4 tool calls") {
		t.Errorf("system message lacks the server instructions or the budget:\n%s", sys)
	}
	last := f.requests[len(f.requests)-1] // the final answer of Q3
	var texts []string
	for _, m := range last.Messages {
		if m.Role == "tool" {
			texts = append(texts, *m.Content)
		}
	}
	q3 := viaChat.Questions[2]
	if len(texts) != len(q3.Steps) {
		t.Fatalf("last request carries %d tool results, want %d", len(texts), len(q3.Steps))
	}
	for k, s := range q3.Steps {
		if texts[k] != s.Text {
			t.Errorf("tool message %d is not the text vaultd answered:\n%s\nwant\n%s", k+1, texts[k], s.Text)
		}
	}
}

// TestModel_Golden pins the markdown trace of a model run: the model's
// words, a malformed call answered as a tool error, two calls in one
// reply, the final answers.
func TestModel_Golden(t *testing.T) {
	qs := exampleQuestions(t)
	f := &fakeModel{malformed: true, parallel: true}
	m := model(startFake(t, f))
	tr, err := (&Runner{Core: newCore(t), Conn: readOnly(), Agent: m, Budget: 4, Name: "model text-policy at " + m.Endpoint()}).Run(context.Background(), []Question{qs[3], qs[1]})
	if err != nil {
		t.Fatal(err)
	}
	compareGolden(t, filepath.Join("testdata", "golden", "model.md"), portRE.ReplaceAllString(tr.Markdown(), "127.0.0.1:PORT"))
}

// TestModel_Retries: 429 and 5xx answers are retried with backoff until
// the endpoint answers; past the retries the error says what the endpoint
// answered and how often.
func TestModel_Retries(t *testing.T) {
	c := newCore(t)
	q := exampleQuestions(t)[3:4]
	f := &fakeModel{statuses: []int{429, 503, 500}}
	m := model(startFake(t, f))
	tr, err := (&Runner{Core: c, Conn: readOnly(), Agent: m, Budget: 4}).Run(context.Background(), q)
	if err != nil {
		t.Fatalf("3 failures within 4 retries: %v", err)
	}
	if got := tr.Questions[0].Verdict; got != FromNote {
		t.Errorf("verdict %q, want %q", got, FromNote)
	}
	if n := len(f.requests); n != 3+3 { // 3 refused, then search, read, answer
		t.Errorf("%d requests, want 6", n)
	}

	f = &fakeModel{statuses: []int{503, 503, 503}}
	m = model(startFake(t, f))
	m.Retries = 2
	tr, err = (&Runner{Core: c, Conn: readOnly(), Agent: m, Budget: 4}).Run(context.Background(), q)
	if err == nil || !strings.Contains(err.Error(), "answered 503 Service Unavailable 3 times") || !strings.Contains(err.Error(), "the fake model says 503") {
		t.Fatalf("got %v, want the endpoint's 503 answered 3 times", err)
	}
	if tr == nil || tr.Questions[0].Verdict != ModelError || tr.OK() {
		t.Errorf("trace after the error: %+v", tr)
	}
	if !strings.Contains(tr.Markdown(), "### The agent could not reply") {
		t.Errorf("the markdown does not say the agent could not reply:\n%s", tr.Markdown())
	}
}

// TestModel_Timeout: an endpoint that does not answer in time is a clear
// error naming the limit, not a hang.
func TestModel_Timeout(t *testing.T) {
	f := &fakeModel{delay: 2 * time.Second}
	m := model(startFake(t, f))
	m.Timeout = 100 * time.Millisecond
	start := time.Now()
	_, err := (&Runner{Core: newCore(t), Conn: readOnly(), Agent: m, Budget: 4}).Run(context.Background(), exampleQuestions(t)[:1])
	if err == nil || !strings.Contains(err.Error(), "did not answer within 100ms") || !strings.Contains(err.Error(), "--model-timeout") {
		t.Fatalf("got %v, want a timeout error naming 100ms and --model-timeout", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %s; a timed-out request must not be retried", d)
	}
}

// TestModel_Down: an endpoint nobody listens on is a clear error at once.
func TestModel_Down(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/v1"
	l.Close()
	_, err = (&Runner{Core: newCore(t), Conn: readOnly(), Agent: model(url), Budget: 4}).Run(context.Background(), exampleQuestions(t)[:1])
	if err == nil || !strings.Contains(err.Error(), "is down (connection refused)") || !strings.Contains(err.Error(), url+"/chat/completions") {
		t.Fatalf("got %v, want: the endpoint URL is down", err)
	}
}

// TestModel_Refused: answers that retrying will not change say what to fix.
func TestModel_Refused(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   string
	}{
		{401, "check the API key in $TEST_KEY"},
		{404, "check --model-url"},
		{400, "answered 400 Bad Request: the fake model says 400"},
	} {
		f := &fakeModel{statuses: []int{tc.status}}
		_, err := (&Runner{Core: newCore(t), Conn: readOnly(), Agent: model(startFake(t, f)), Budget: 4}).Run(context.Background(), exampleQuestions(t)[:1])
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d: got %v, want %q", tc.status, err, tc.want)
		}
		if len(f.requests) != 1 {
			t.Errorf("%d: %d requests, want 1 (not retried)", tc.status, len(f.requests))
		}
	}
}

// TestModel_MalformedCall: a tool call whose arguments are not JSON is
// answered as a tool error (the model sees it and sends the call again)
// and uses a call of the budget.
func TestModel_MalformedCall(t *testing.T) {
	f := &fakeModel{malformed: true}
	m := model(startFake(t, f))
	tr, err := (&Runner{Core: newCore(t), Conn: readOnly(), Agent: m, Budget: 4}).Run(context.Background(), exampleQuestions(t)[3:4])
	if err != nil {
		t.Fatal(err)
	}
	o := tr.Questions[0]
	if o.Calls != 3 || o.Verdict != FromNote {
		t.Fatalf("%d calls, %s; want 3 calls (malformed, search, read), answered from the note", o.Calls, o.Verdict)
	}
	s := o.Steps[0]
	if s.Malformed == "" || !s.IsError || !strings.HasPrefix(s.Text, "error: this search_notes call could not be run: its arguments are not valid JSON") {
		t.Errorf("malformed step: %+v", s)
	}
	// The model was shown that error as the tool's result.
	var shown string
	for _, msg := range f.requests[1].Messages {
		if msg.Role == "tool" {
			shown = *msg.Content
		}
	}
	if shown != s.Text {
		t.Errorf("the model was shown %q, want the step's text %q", shown, s.Text)
	}
	if !strings.Contains(tr.Markdown(), "(malformed)") {
		t.Errorf("the markdown does not mark the malformed call")
	}
}

// TestModel_BudgetExhausted: a model that still wants calls when its
// budget is spent ran out of calls; the calls it wanted are in the trace,
// and the run is not OK. Two calls in one reply count as two.
func TestModel_BudgetExhausted(t *testing.T) {
	f := &fakeModel{parallel: true}
	m := model(startFake(t, f))
	tr, err := (&Runner{Core: newCore(t), Conn: readOnly(), Agent: m, Budget: 2}).Run(context.Background(), exampleQuestions(t)[3:4])
	if err != nil {
		t.Fatal(err)
	}
	o := tr.Questions[0]
	if o.Verdict != OutOfCalls || o.Calls != 2 || len(o.Wanted) != 1 || !strings.HasPrefix(o.Wanted[0], "list_notes ") {
		t.Fatalf("got %s after %d calls wanting %v; want ran out of calls after 2, wanting the listing", o.Verdict, o.Calls, o.Wanted)
	}
	if o.Steps[1].Reply != 2 || o.Steps[1].Tool != "read_note" {
		t.Errorf("step 2: %+v", o.Steps[1])
	}
	if tr.OK() {
		t.Errorf("a run that ran out of calls is OK")
	}
	if md := tr.Markdown(); !strings.Contains(md, "### Out of calls") || !strings.Contains(md, "list_notes") {
		t.Errorf("markdown lacks the calls wanted:\n%s", md)
	}
}
