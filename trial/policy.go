package trial

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
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
// cheap model. It knows the question, how many calls it may still make
// (left), the calls it made and the text each got — never the structured
// content, never anything about a vault — and follows the calls the texts
// spell out, in the order they spell them, until a read answers:
//
//  1. Its first call searches for the question: search_notes {"query": question}.
//  2. It keeps the calls the answers spelled (Pending): each call on a line
//     read:, also:, next:, more:, "N more in this note:", open a section:,
//     next section:, more outline:, next page: or or search:, and each
//     "- TOOL {json}" of a list of closest notes, outside the note text an
//     answer quotes; in the order of the answer, an error's before all
//     others (they mend the call just made), any other answer's after those
//     spelled before. It keeps only calls of the tools that read (readTools,
//     never a write), never a call it made, never one twice.
//  3. After a successful read_note it judges what the read showed (Judge):
//     the read answers when it holds at least two thirds of the question's
//     content words. Then it stops. A search that shows a saved view with
//     rows (a "saved view:" block: the question named the owner's Bases
//     view, or the best hit embeds it) answers too: the view is the list
//     the owner keeps for that question.
//  4. Otherwise it makes the first pending call; when one call is left, the
//     first pending read_note (a search then could not be followed).
//  5. It stops when no call is left, or nothing is pending; Answer then
//     quotes its best read, or the saved views a search showed.
//
// done is true when the agent stops; Answer gives its final answer then.
// The same question, left and texts always give the same call.
func Next(question string, left int, history []Turn) (next Call, done bool) {
	d := Decide(question, left, history)
	return d.Call, d.Done
}

// Decision is one step of the text policy: the call it makes next, or
// that it stops, and why, in a line for a person (the trace shows it as
// the agent's words).
type Decision struct {
	Call Call
	Done bool
	Why  string
}

// Decide is Next with its reason.
func Decide(question string, left int, history []Turn) Decision {
	if len(history) == 0 {
		if left <= 0 {
			return Decision{Done: true, Why: "No call is left."}
		}
		return Decision{Call: Call{Tool: "search_notes", Args: map[string]any{"query": question}}, Why: "I search for the question."}
	}
	best, bestN := Best(question, history)
	last := history[len(history)-1]
	if last.Call.Tool == "search_notes" && !IsError(last.Text) {
		if views := SavedViews(last.Text); len(views) > 0 {
			return Decision{Done: true, Why: fmt.Sprintf("Step %d shows the saved view %s with its rows: it answers.", len(history), views[0].name)}
		}
	}
	why := ""
	if last.Call.Tool == "read_note" && !IsError(last.Text) {
		j := Judge(question, Shown(last.Text))
		if j.Answers() {
			return Decision{Done: true, Why: fmt.Sprintf("Step %d's read %s: it answers.", len(history), j)}
		}
		why = fmt.Sprintf("Step %d's read %s, not enough. ", len(history), j)
	} else if IsError(last.Text) {
		why = fmt.Sprintf("Step %d failed. ", len(history))
	}
	stop := func(reason string) Decision {
		if best >= 0 {
			reason += fmt.Sprintf("; I answer from step %d's read, which holds %d of the question's words", best+1, bestN)
		}
		return Decision{Done: true, Why: why + reason + "."}
	}
	if left <= 0 {
		return stop("No call is left")
	}
	pending := Pending(history)
	if left == 1 {
		for _, p := range pending {
			if p.Call.Tool == "read_note" {
				return Decision{Call: p.Call, Why: why + "One call is left, for a read: I follow " + p.from() + "."}
			}
		}
		return stop("One call is left and no read is pending")
	}
	if len(pending) == 0 {
		return stop("The texts spell no call I have not made")
	}
	p := pending[0]
	return Decision{Call: p.Call, Why: why + "I follow " + p.from() + "."}
}

// Spelled is a call an answer spells out: the call, the step whose answer
// spelled it (from 1) and the line's label ("read", "next page", "closest"
// for an item of a list of closest notes).
type Spelled struct {
	Call  Call
	Step  int
	Label string
}

// from says where the call was spelled: "step 1's read: line", "step 2's
// list of closest notes".
func (s Spelled) from() string {
	if s.Label == "closest" {
		return fmt.Sprintf("step %d's list of closest notes", s.Step)
	}
	return fmt.Sprintf("step %d's %s: line", s.Step, s.Label)
}

// readTools are the tools the text policy follows a call to: those that
// only read. A call of any other tool an answer spells is passed over.
var readTools = map[string]bool{
	"search_notes": true, "read_note": true, "list_notes": true, "vault_overview": true,
	"get_backlinks": true, "search_similar_notes": true, "read_board": true,
}

// followed reports whether the policy follows the call on a line with
// this label: the next hit or section, more of a note or of a list, the
// mended call of an error. Not: "did you mean:" (the question with a word
// no note has respelled as the vault spells a word like it; for a question
// in a person's words mostly another word — Leuten as Left, entpacke as
// entdecken — and, shown above the hits, it would come before them),
// "previous section:" and "parent section:" (back to what led here),
// "try:" and the calls after a write.
func followed(label string) bool {
	switch label {
	case "read", "also", "next", "more", "open a section", "next section", "more outline", "next page", "or search":
		return true
	}
	n, rest, ok := strings.Cut(label, " ")
	if !ok || rest != "more in this note" || n == "" {
		return false
	}
	for _, r := range n {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Pending returns the calls the answers of history spelled that the
// policy has not made, in the order it makes them: an error's first (the
// latest error's foremost), in the order its text spells them; then the
// others, earlier answers' first.
func Pending(history []Turn) []Spelled {
	var errs, rest []Spelled
	for i, t := range history {
		s := spelled(t.Text, i+1)
		if IsError(t.Text) {
			errs = append(s, errs...)
		} else {
			rest = append(rest, s...)
		}
	}
	var out []Spelled
	for _, s := range append(errs, rest...) {
		if !made(history, s.Call) && !slices.ContainsFunc(out, func(o Spelled) bool { return same(o.Call, s.Call) }) {
			out = append(out, s)
		}
	}
	return out
}

// made reports whether history holds the call c.
func made(history []Turn, c Call) bool {
	return slices.ContainsFunc(history, func(t Turn) bool { return same(t.Call, c) })
}

// spelled returns the calls text spells that the policy follows, in
// order, outside the note text it quotes in fences.
func spelled(text string, step int) []Spelled {
	var out []Spelled
	for _, line := range outsideFences(text) {
		line = strings.TrimSpace(line)
		if item, ok := strings.CutPrefix(line, "- "); ok {
			// "- read_note {"path": "x.md"}  (why)": a closest note.
			if c, ok := parseLead(item); ok && readTools[c.Tool] {
				out = append(out, Spelled{c, step, "closest"})
			}
			continue
		}
		label, rest, ok := strings.Cut(line, ": ")
		if !ok || !followed(label) {
			continue
		}
		if c, ok := ParseCall(rest); ok && readTools[c.Tool] {
			out = append(out, Spelled{c, step, label})
		}
	}
	return out
}

// parseLead reads a call at the start of s, "TOOL {json}", followed by
// nothing or by two spaces and a reason in parentheses.
func parseLead(s string) (Call, bool) {
	if c, ok := ParseCall(s); ok {
		return c, true
	}
	i := strings.LastIndex(s, "}  (")
	if i < 0 || !strings.HasSuffix(s, ")") {
		return Call{}, false
	}
	return ParseCall(s[:i+1])
}

// Best returns the index in history of the read that holds the most of
// the question's content words (the earliest of equals) and how many it
// holds; -1 when no read_note succeeded.
func Best(question string, history []Turn) (index, held int) {
	index = -1
	for i, t := range history {
		if t.Call.Tool != "read_note" || IsError(t.Text) {
			continue
		}
		if n := len(Judge(question, Shown(t.Text)).Held); index < 0 || n > held {
			index, held = i, n
		}
	}
	return index, held
}

// Shown is what a read_note answer shows of the note, for the policy to
// judge: the values of the header lines that name it (path, title, space,
// section, tags, aliases, and each property under "properties:") and the
// note text in its fence — not its version or length, not the outline of
// sections a page does not show, nor the calls after the text.
func Shown(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "```") {
			break
		}
		label, v, ok := strings.Cut(line, ": ")
		switch {
		case !ok:
		case strings.HasPrefix(label, "  "), label == "path", label == "title", label == "space", label == "section", label == "tags", label == "aliases":
			b.WriteString(v + "\n")
		}
	}
	b.WriteString(fenced(text))
	return b.String()
}

// Judgement is how much of a question a text holds.
type Judgement struct {
	Held, Missing []string // the question's content words the text holds, and the others
}

// Answers reports whether the text answers: it holds at least two thirds
// of the question's content words (all of one or two, 2 of 3, 3 of 4).
// A question with no content word is answered by any read.
func (j Judgement) Answers() bool {
	return 3*len(j.Held) >= 2*(len(j.Held)+len(j.Missing))
}

// String says it in words: "holds 2 of 3 of the question's words (budget, kvn; not hoch)".
func (j Judgement) String() string {
	s := fmt.Sprintf("holds %d of %d of the question's words", len(j.Held), len(j.Held)+len(j.Missing))
	var parts []string
	if len(j.Held) > 0 {
		parts = append(parts, strings.Join(j.Held, ", "))
	}
	if len(j.Missing) > 0 {
		parts = append(parts, "not "+strings.Join(j.Missing, ", "))
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, "; ") + ")"
	}
	return s
}

// Judge says which of the question's content words text holds. The
// content words are the question's words (runs of letters and digits,
// lower case) less the common ones (stopWords) and single letters, each
// once; the text holds one when it has a word alike (Alike).
func Judge(question, text string) Judgement {
	var j Judgement
	words := map[string]bool{}
	for _, w := range wordsOf(text) {
		words[w] = true
	}
	for _, q := range ContentWords(question) {
		held := words[q]
		for w := range words {
			if held {
				break
			}
			held = Alike(q, w)
		}
		if held {
			j.Held = append(j.Held, q)
		} else {
			j.Missing = append(j.Missing, q)
		}
	}
	return j
}

// Alike reports whether two words (lower case) are the same word as the
// policy sees it, loosely enough for inflections and compounds: they are
// equal; or they begin with the same six letters (synchronisierten,
// synchronisierung); or the shorter has five letters or more and the
// longer holds it (günstig, günstigsten; ordner, konfigurationsordner;
// entwurf, designentwurf); or the shorter has four letters and the longer
// begins with it (list, lists). Shorter words must be equal: tar is not
// target.
func Alike(a, b string) bool {
	if a == b {
		return true
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) > len(rb) {
		ra, rb = rb, ra
		a, b = b, a
	}
	switch {
	case len(ra) >= 6 && string(rb[:6]) == string(ra[:6]):
		return true
	case len(ra) >= 5:
		return strings.Contains(b, a)
	case len(ra) == 4:
		return strings.HasPrefix(b, a)
	}
	return false
}

// ContentWords returns the question's content words in order (Judge).
func ContentWords(question string) []string {
	var out []string
	for _, w := range wordsOf(question) {
		if stopWords[w] || utf8.RuneCountInString(w) < 2 || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// wordsOf splits text into words: runs of letters and digits, lower case.
func wordsOf(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// stopWords are the common German and English words a question is made
// of besides what it asks about: articles, pronouns, auxiliary and modal
// verbs, prepositions, conjunctions, question words and the words that go
// with them (wie viele, how many). A small fixed list, not the vault's.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		der die das den dem des ein eine einen einem einer eines kein keine keinen
		und oder aber auch noch nur schon so da dann als wenn ob dass nicht
		in im an am auf aus bei beim mit nach von vom zu zum zur für über unter um bis durch gegen ohne vor
		ist sind war waren wird werden wurde wurden sein bin bist hat haben hatte hast habe
		kann können muss müssen soll sollen darf dürfen will wollen möchte
		ich du er sie es wir ihr man sich mich mir dich dir uns euch
		mein meine meinen meinem meiner meines dein deine deinen deinem deiner unser unsere
		sein seine seinen seinem seiner ihre ihren ihrem ihrer
		wie was wer wen wem wo wohin woher wann warum wieso weshalb welche welcher welches welchen welchem
		viel viele vielen wieviel wieviele lange oft hoch gibt
		alle allen aller alles jede jeder jedes jeden einmal mal immer sehr mehr ganz
		a an the and or but not no nor so than then if of to in on at by for from with into onto about as
		is are was were be been being do does did done have has had
		can could will would shall should may might must
		i me my mine we us our you your he him his she her it its they them their
		this that these those there here
		what which who whom whose when where why how
		many much long often all any some every each once again very just also only too more most
	`) {
		m[w] = true
	}
	return m
}()

// maxAnswer bounds the text policy's answer: the section it read, cut.
const maxAnswer = 1200

// Answer is the text policy's final answer once Next is done: what its
// best read showed (Best: the read that holds the most of the question's
// content words, the earliest of equals) — the note, the section and the
// text inside its fence, cut at 1,200 characters — or "" when no read
// succeeded (it gives up).
func Answer(question string, history []Turn) string {
	i, _ := Best(question, history)
	if i < 0 {
		for k := len(history) - 1; k >= 0; k-- {
			if t := history[k]; t.Call.Tool == "search_notes" && !IsError(t.Text) {
				if views := SavedViews(t.Text); len(views) > 0 {
					var b strings.Builder
					for _, v := range views {
						b.WriteString("From the saved view " + v.name + ":\n\n" + v.table + "\n")
					}
					return strings.TrimRight(b.String(), "\n")
				}
			}
		}
		return ""
	}
	text := history[i].Text
	p, _ := field(text, "path")
	where := p
	if sec, ok := field(text, "section"); ok {
		where += ", section " + sec
	}
	body := strings.TrimSpace(fenced(text))
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

// savedView is a saved Bases view a search answer showed: its name as the
// answer gives it ("Noch nicht gelesen" of X.base) and its table.
type savedView struct{ name, table string }

// SavedViews returns the saved views with rows a search answer shows: each
// "saved view: …" line with the table of rows after it.
func SavedViews(text string) []savedView {
	var out []savedView
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		head, ok := strings.CutPrefix(lines[i], "saved view: ")
		if !ok || strings.HasSuffix(head, ", 0 rows") {
			continue
		}
		name, _, _ := strings.Cut(head, " (")
		var table []string
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|") {
			i++
			table = append(table, lines[i])
		}
		if len(table) > 2 {
			out = append(out, savedView{name: name, table: strings.Join(table, "\n")})
		}
	}
	return out
}
