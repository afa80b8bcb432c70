package trial

import (
	"encoding/json"
	"strings"
)

// Call is one tool call: a tool's name and its arguments.
type Call struct {
	Tool string
	Args map[string]any
}

// String spells the call the way vaultd's answers print a suggested call:
// `read_note {"heading":"Ziele","path":"1_Projekte/X.md"}` (arguments in
// key order, HTML characters kept).
func (c Call) String() string {
	return c.Tool + " " + argsJSON(c.Args)
}

// argsJSON renders arguments as compact JSON with sorted keys; nil is {}.
func argsJSON(args map[string]any) string {
	if args == nil {
		args = map[string]any{}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep "Projekte > Ziele" readable
	_ = enc.Encode(args)
	return strings.TrimSpace(b.String())
}

// same reports whether two calls name the same tool with the same
// arguments (compared as JSON values: 3 and 3.0 are the same).
func same(a, b Call) bool {
	return a.Tool == b.Tool && argsJSON(a.Args) == argsJSON(b.Args)
}

// ParseCall reads a call as vaultd's answers spell a suggested one: a tool
// name, a space and a JSON object,
// `read_note {"path": "1_Projekte/X.md", "heading": "Ziele"}`. ok is false
// when s is not of that form.
func ParseCall(s string) (c Call, ok bool) {
	name, args, found := strings.Cut(strings.TrimSpace(s), " ")
	if !found || !isToolName(name) {
		return Call{}, false
	}
	c = Call{Tool: name}
	if err := json.Unmarshal([]byte(args), &c.Args); err != nil {
		return Call{}, false
	}
	if c.Args == nil {
		c.Args = map[string]any{}
	}
	return c, true
}

// isToolName reports whether s looks like a tool name: lower-case letters
// and underscores.
func isToolName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '_' {
			return false
		}
	}
	return true
}

// Turn is one call an agent made and the text it got back: all that the
// text policy knows of the exchange.
type Turn struct {
	Call Call
	Text string
}

// IsError reports whether an answer's text is a tool failure. Every vaultd
// failure text begins with "error:" (AGENT-CONTRACT rule 8), so a reader
// of the text alone can tell, as a model shown only the text must.
func IsError(text string) bool {
	return strings.HasPrefix(text, "error:")
}

// Next is vaultd's text-only policy: a fixed agent that stands in for a
// cheap model. It knows the question, the calls it made and the text each
// got — never the structured content, never anything about a vault — and
// takes every next step from the text of the last answer:
//
//   - no calls yet: search for the question, search_notes {"query": question};
//   - an error: follow its first "next: TOOL {json}" line;
//   - a successful read_note: stop (done), the agent answers from what it read;
//   - anything else (a search, a listing, the overview): follow the first
//     "read: TOOL {json}" line, else the first "next: TOOL {json}" line,
//     else read the first "path: …" the text shows.
//
// done is true when the agent stops: it has read a section, or the text
// offers nothing to follow. Answer gives its final answer then.
func Next(question string, history []Turn) (next Call, done bool) {
	if len(history) == 0 {
		return Call{Tool: "search_notes", Args: map[string]any{"query": question}}, false
	}
	last := history[len(history)-1]
	follow := func(prefix string) (Call, bool) {
		for _, line := range strings.Split(last.Text, "\n") {
			if rest, found := strings.CutPrefix(line, prefix); found {
				return ParseCall(rest)
			}
		}
		return Call{}, false
	}
	if IsError(last.Text) {
		c, ok := follow("next: ")
		return c, !ok
	}
	if last.Call.Tool == "read_note" {
		return Call{}, true
	}
	if c, ok := follow("read: "); ok {
		return c, false
	}
	if c, ok := follow("next: "); ok {
		return c, false
	}
	if p, ok := field(last.Text, "path"); ok && p != "" {
		return Call{Tool: "read_note", Args: map[string]any{"path": p}}, false
	}
	return Call{}, true
}

// maxAnswer bounds the text policy's answer: the section it read, cut.
const maxAnswer = 1200

// Answer is the text policy's final answer once Next is done: what the
// last successful read_note showed — the note, the section and the text
// inside its fence, cut at 1,200 characters — or "" when the agent read
// nothing it could answer from (it gives up).
func Answer(history []Turn) string {
	if len(history) == 0 {
		return ""
	}
	last := history[len(history)-1]
	if last.Call.Tool != "read_note" || IsError(last.Text) {
		return ""
	}
	p, _ := field(last.Text, "path")
	where := p
	if sec, ok := field(last.Text, "section"); ok {
		where += ", section " + sec
	}
	body := strings.TrimSpace(fenced(last.Text))
	if body == "" {
		return "From " + where + "."
	}
	if r := []rune(body); len(r) > maxAnswer {
		body = string(r[:maxAnswer]) + " …"
	}
	return "From " + where + ":\n\n" + body
}

// field returns the value of the first line "name: value" in text, and
// whether there is one. Lines may be indented (errors list the note as
// "note:\n  path: …").
func field(text, name string) (string, bool) {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimLeft(line, " "), name+": "); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// fenced returns the text inside the first ```markdown fence of an answer
// (read_note shows a note's text so; the fence grows when the note itself
// holds ```), or "".
func fenced(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		trimmed := strings.TrimRight(l, "\n")
		if !strings.HasPrefix(trimmed, "```") || !strings.HasSuffix(trimmed, "markdown") {
			continue
		}
		fence := strings.TrimSuffix(trimmed, "markdown")
		var b strings.Builder
		for _, body := range lines[i+1:] {
			if strings.TrimRight(body, "\n") == fence {
				return b.String()
			}
			b.WriteString(body)
		}
	}
	return ""
}
