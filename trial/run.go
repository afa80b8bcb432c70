// Package trial runs a vault owner's questions through an agent with a
// budget of tool calls and records every step: vaultd trial.
//
// The agent is either a model behind any OpenAI-compatible
// chat-completions endpoint with tool calling (Model), or vaultd's
// built-in text-only policy (TextPolicy, Next), which stands in for a
// cheap model and needs nothing installed. Either way the agent gets the
// tools exactly as an MCP client lists them to a model (names,
// descriptions, input schemas) and sees exactly the text of each answer,
// and every call runs through the core (package tools) with the connection's
// rights and limits, as an MCP tools/call does.
//
// The text policy is an honest baseline agent, as a cheap model would be:
// it searches for the question, then follows the calls the answers spell
// out (read:, also:, next:, more:, "N more in this note:", a list of
// closest notes, open a section:, next section:, more outline:, next page:,
// or search:), an error's calls first and otherwise in the order the texts
// give them, never a call it made and never a write. After each read it
// counts how many of the question's content words (a small German and
// English stop-word list aside; inflections and compounds alike, Alike)
// the read shows, in the note's text and the lines that name it: two
// thirds or more, and it stops and answers. With one call left it makes
// only a read; with none left, or nothing to follow, it answers from its
// best read, the one that showed the most of those words (the first of
// equals). It asks for nothing past its budget, so it never runs out of
// calls. Next documents the rules one by one.
//
// The trace says per question what the agent asked, what it was shown
// (and how much), what it said, how many calls it used, what it answered
// and — when the question names a proof — whether it answered from the
// note that holds the answer. Steps that wasted a call are flagged
// mechanically (Flag). Trace.Markdown is for a person, Trace.JSON for
// scripts.
//
// Imports point one way: cmd/vaultd → trial → mcpserver, tools (and note,
// to find a proof in a note's text); nothing below imports trial.
package trial

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vaultd/vaultd/mcpserver"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/tools"
)

// Agent decides each step of a question: the calls it wants next, or its
// final answer.
type Agent interface {
	// Next returns the agent's reply to the conversation so far. An error
	// means the agent could not reply (a model endpoint that is down); the
	// run stops there.
	Next(ctx context.Context, c Conversation) (Reply, error)
}

// Conversation is what an agent knows when it replies: the question, the
// tools it may call and the server's instructions (as an MCP client passes
// them to a model), its budget, and the calls it made so far with the text
// each got.
type Conversation struct {
	Question     string
	Tools        []mcpserver.ToolSpec
	Instructions string
	Budget       int // calls allowed for this question, in all
	Steps        []Step
}

// Turns is the conversation as the text policy reads it: each call that
// ran, with its text. A malformed call (which ran nothing) is left out.
func (c Conversation) Turns() []Turn {
	var out []Turn
	for _, s := range c.Steps {
		if s.Malformed == "" {
			out = append(out, Turn{Call: Call{Tool: s.Tool, Args: s.Args}, Text: s.Text})
		}
	}
	return out
}

// Reply is one answer of an agent: calls to make, or none and the final
// answer.
type Reply struct {
	// Words is what the agent said: with calls, its words before them;
	// without, its final answer.
	Words string
	// Calls are the tool calls it asks for, in order.
	Calls []ToolCall
}

// ToolCall is one call as the agent sent it, before vaultd reads it.
type ToolCall struct {
	ID        string // the protocol's id of the call, "" when it has none
	Name      string
	Arguments string // JSON text, as sent
}

// TextPolicy is the text-only policy (Next and Answer) as an Agent.
type TextPolicy struct{}

// Next implements Agent.
func (TextPolicy) Next(_ context.Context, c Conversation) (Reply, error) {
	turns := c.Turns()
	d := Decide(c.Question, c.Budget-len(c.Steps), turns)
	if d.Done {
		return Reply{Words: Answer(c.Question, turns)}, nil
	}
	return Reply{Words: d.Why, Calls: []ToolCall{{Name: d.Call.Tool, Arguments: argsJSON(d.Call.Args)}}}, nil
}

// Step is one tool call of a question and what the agent was shown.
type Step struct {
	N     int    `json:"n"`               // calls used of the budget, this one included
	Reply int    `json:"reply"`           // which of the agent's replies asked for it, from 1
	Words string `json:"words,omitempty"` // the agent's words with that reply (on its first call)
	ID    string `json:"id"`              // the call's id in the conversation

	Tool      string         `json:"tool"`
	Arguments string         `json:"arguments"`           // as the agent sent them
	Args      map[string]any `json:"args,omitempty"`      // as vaultd read them; nil when malformed
	Malformed string         `json:"malformed,omitempty"` // why the call could not be run

	Text    string `json:"text"`     // exactly what the agent was shown
	Chars   int    `json:"chars"`    // its size in characters
	IsError bool   `json:"is_error"` // a tool failure
	Flags   []Flag `json:"flags,omitempty"`
	Millis  int64  `json:"ms"` // how long vaultd took to answer
}

// Call returns the step's call as vaultd read it.
func (s Step) Call() Call { return Call{Tool: s.Tool, Args: s.Args} }

// Verdict is how a question ended.
type Verdict string

const (
	// FromNote: the agent answered after it was shown the proof (the
	// note's text, with the phrase when one is named).
	FromNote Verdict = "answered from the note"
	// WithoutNote: the agent answered without ever being shown the proof.
	WithoutNote Verdict = "answered without it"
	// Answered: the agent answered a question that names no proof.
	Answered Verdict = "answered"
	// OutOfCalls: the agent wanted another call after its budget was used.
	OutOfCalls Verdict = "ran out of calls"
	// GaveUp: the agent stopped without an answer.
	GaveUp Verdict = "gave up"
	// ModelError: the agent could not reply; the run stopped there.
	ModelError Verdict = "model error"
)

// Outcome is one question's run.
type Outcome struct {
	Question
	Verdict Verdict `json:"verdict"`
	Calls   int     `json:"calls"` // calls used of the budget
	Chars   int     `json:"chars"` // characters of text the agent was shown
	Answer  string  `json:"answer"`
	// AnswerSection is the section of the note that holds the phrase,
	// found before the run ("" without a note and a phrase).
	AnswerSection string `json:"answer_section,omitempty"`
	// ProofStep is the step that showed the agent the proof it answered
	// from, 0 when none did.
	ProofStep int `json:"proof_step,omitempty"`
	// Wanted are the calls the agent asked for after its budget was used.
	Wanted []string `json:"wanted,omitempty"`
	Error  string   `json:"error,omitempty"` // why the agent could not reply
	Steps  []Step   `json:"steps"`
	Millis int64    `json:"ms"`
}

// Within reports whether the question names a proof and was answered from
// it within the budget.
func (o Outcome) Within() bool { return o.HasProof() && o.Verdict == FromNote }

// Trace is a whole run.
type Trace struct {
	Agent     string    `json:"agent"`  // "text policy", or the model and its endpoint
	Budget    int       `json:"budget"` // calls per question
	Rights    string    `json:"rights"` // the connection's rights: read, write, delete
	Questions []Outcome `json:"questions"`
}

// OK reports whether every question that names a proof was answered from
// it within the budget (vaultd trial's exit status).
func (t *Trace) OK() bool {
	for _, o := range t.Questions {
		if o.HasProof() && !o.Within() {
			return false
		}
	}
	return true
}

// Runner runs questions through an agent against one vault.
type Runner struct {
	Core   *tools.Core
	Conn   *tools.Connection // the rights and limits every call runs with
	Agent  Agent
	Budget int    // calls per question (default 10)
	Name   string // names the agent in the trace (default "text policy")
	// Progress, when set, is told of each question once it is done.
	Progress func(i int, o Outcome)
}

// DefaultBudget is the calls a question may use when Runner.Budget is 0:
// about what a cheap model is given in practice.
const DefaultBudget = 10

// Run runs every question in order and returns the trace. A question's
// note is resolved first, the way read_note resolves a name; one that
// names no note of the vault (vault.ErrNotFound), or a phrase its note
// does not hold (vault.ErrInvalid), is an error before anything runs. When the
// agent cannot reply (Agent.Next fails), Run returns the trace so far —
// that question included, with verdict ModelError — and the error.
func (r *Runner) Run(ctx context.Context, qs []Question) (*Trace, error) {
	budget := r.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	name := r.Name
	if name == "" {
		name = "text policy"
	}
	t := &Trace{Agent: name, Budget: budget, Rights: rights(r.Conn.Perms)}
	qs = slices.Clone(qs) // the notes are resolved in the copy
	where := make([]string, len(qs))
	for i := range qs {
		if qs[i].Note == "" {
			continue
		}
		n, _, err := r.Core.Vault().Find(qs[i].Note)
		if err != nil {
			return nil, fmt.Errorf("question %d names the note %q: %w", i+1, qs[i].Note, err)
		}
		qs[i].Note = n.Path
		if qs[i].Phrase != "" {
			sec, ok := locate(n.Doc, qs[i].Phrase)
			if !ok {
				return nil, &note.Error{Kind: note.ErrInvalid, Msg: fmt.Sprintf("question %d: the note %s does not hold the phrase %q (case and spacing do not count)", i+1, n.Path, qs[i].Phrase)}
			}
			where[i] = sec
		}
	}
	conv := Conversation{
		Tools:        mcpserver.ToolSpecs(r.Conn.Perms),
		Instructions: r.Core.InstructionsFor(r.Conn.Perms),
		Budget:       budget,
	}
	for i, q := range qs {
		o, err := r.one(ctx, conv, q, where[i])
		t.Questions = append(t.Questions, o)
		if r.Progress != nil {
			r.Progress(i, o)
		}
		if err != nil {
			return t, fmt.Errorf("question %d: %w", i+1, err)
		}
	}
	return t, nil
}

// one runs one question.
func (r *Runner) one(ctx context.Context, conv Conversation, q Question, where string) (Outcome, error) {
	start := time.Now()
	conv.Question = q.Question
	o := Outcome{Question: q, AnswerSection: where}
	finish := func() Outcome {
		o.Steps = conv.Steps
		o.Calls = len(conv.Steps)
		for _, s := range conv.Steps {
			o.Chars += s.Chars
		}
		o.ProofStep, _ = proof(q, conv.Steps, o.Answer)
		setFlags(q, conv.Steps, o.AnswerSection, o.Answer)
		o.Millis = time.Since(start).Milliseconds()
		switch {
		case o.Verdict != "":
		case strings.TrimSpace(o.Answer) == "":
			o.Verdict = GaveUp
		case !q.HasProof():
			o.Verdict = Answered
		case o.ProofStep > 0:
			o.Verdict = FromNote
		default:
			o.Verdict = WithoutNote
		}
		return o
	}
	for reply := 1; ; reply++ {
		rep, err := r.Agent.Next(ctx, conv)
		if err != nil {
			o.Verdict, o.Error = ModelError, err.Error()
			return finish(), err
		}
		if len(rep.Calls) == 0 {
			o.Answer = strings.TrimSpace(rep.Words)
			return finish(), nil
		}
		for k, tc := range rep.Calls {
			if len(conv.Steps) == conv.Budget {
				for _, w := range rep.Calls[k:] {
					o.Wanted = append(o.Wanted, strings.TrimSpace(w.Name+" "+w.Arguments))
				}
				o.Verdict = OutOfCalls
				return finish(), nil
			}
			s := r.call(ctx, tc)
			s.N, s.Reply = len(conv.Steps)+1, reply
			if k == 0 {
				s.Words = strings.TrimSpace(rep.Words)
			}
			if s.ID == "" {
				s.ID = fmt.Sprintf("call_%d", s.N)
			}
			conv.Steps = append(conv.Steps, s)
		}
	}
}

// locate returns the section of a note that holds phrase: the first whose
// own text (up to its first sub-section) holds it, else the innermost
// whose text does; "" when the phrase is in the note but before its first
// heading. ok is false when the note does not hold the phrase.
func locate(d *note.Doc, phrase string) (section string, ok bool) {
	p := norm(phrase)
	if !strings.Contains(norm(string(d.Src)), p) {
		return "", false
	}
	for _, h := range d.Headings {
		if strings.Contains(norm(string(d.Src[h.Start:h.OwnEnd])), p) {
			return h.PathString(), true
		}
	}
	best := -1
	for i, h := range d.Headings {
		if strings.Contains(norm(string(d.Src[h.Start:h.End])), p) && (best < 0 || h.Level > d.Headings[best].Level) {
			best = i
		}
	}
	if best >= 0 {
		return d.Headings[best].PathString(), true
	}
	return "", true
}

// call runs one tool call the agent sent. A call vaultd cannot read (no
// tool name, arguments that are not a JSON object) runs nothing and is
// answered with an error text, as MCP clients answer a malformed call; it
// still uses a call of the budget.
func (r *Runner) call(ctx context.Context, tc ToolCall) Step {
	s := Step{ID: tc.ID, Tool: tc.Name, Arguments: tc.Arguments}
	start := time.Now()
	args, why := readArgs(tc)
	if why != "" {
		s.Malformed = why
		s.Text = malformedText(tc, why)
		s.IsError = true
	} else {
		s.Args = args
		res := r.Core.CallAs(ctx, r.Conn, tc.Name, args)
		s.Text, s.IsError = res.Text, res.IsError()
	}
	s.Chars = len([]rune(s.Text))
	s.Millis = time.Since(start).Milliseconds()
	return s
}

// readArgs reads a call's arguments: a JSON object, or nothing at all
// (some models send "" for a tool without arguments). why says what is
// wrong with a call that cannot be run.
func readArgs(tc ToolCall) (args map[string]any, why string) {
	if strings.TrimSpace(tc.Name) == "" {
		return nil, "the call names no tool"
	}
	raw := strings.TrimSpace(tc.Arguments)
	if raw == "" {
		return map[string]any{}, ""
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return nil, "its arguments are not valid JSON (" + err.Error() + ")"
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, "its arguments are not a JSON object"
	}
	return m, ""
}

// malformedText is the error a malformed call is answered with.
func malformedText(tc ToolCall, why string) string {
	what := "this call"
	if strings.TrimSpace(tc.Name) != "" {
		what = "this " + tc.Name + " call"
	}
	return "error: " + what + " could not be run: " + why + "; nothing was done\n" +
		"error code: invalid_arguments\n" +
		"Send the call again with the tool's name and its arguments as one JSON object, as the tool's description shows."
}

// rights names a connection's rights: "read", "read, write", …
func rights(p tools.Perms) string {
	var r []string
	if p.Read {
		r = append(r, "read")
	}
	if p.Write {
		r = append(r, "write")
	}
	if p.Delete && p.Write {
		r = append(r, "delete")
	}
	return strings.Join(r, ", ")
}
