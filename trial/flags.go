package trial

import (
	"fmt"
	"strings"
	"unicode"
)

// Flag marks a step that wasted a call, found mechanically from the texts
// and calls alone.
type Flag struct {
	Kind string `json:"kind"` // one of the Flag… constants
	Text string `json:"text"` // what happened, for a person
}

// The kinds of flag.
const (
	// FlagRepeats: an error whose suggested call is the call that failed.
	FlagRepeats = "suggestion-repeats-call"
	// FlagSuggestionFailed: a call an earlier answer suggested, followed
	// as printed, failed.
	FlagSuggestionFailed = "suggestion-failed"
	// FlagSameText: the answer is the same text an earlier call got.
	FlagSameText = "same-text"
	// FlagOtherSection: a read of one section returned another one, or
	// the whole note.
	FlagOtherSection = "other-section"
	// FlagNotFirstHit: a hit list whose first hit is not where the answer
	// is.
	FlagNotFirstHit = "answer-not-first-hit"
)

// FlagKinds lists the kinds in the order the report counts them.
var FlagKinds = []string{FlagRepeats, FlagSuggestionFailed, FlagSameText, FlagOtherSection, FlagNotFirstHit}

// flagTitle names a kind for a person.
var flagTitle = map[string]string{
	FlagRepeats:          "error suggests the failed call",
	FlagSuggestionFailed: "suggested call failed",
	FlagSameText:         "same text twice",
	FlagOtherSection:     "other section than asked",
	FlagNotFirstHit:      "answer not in the first hit",
}

// suggestion is a call an answer spells out on a line of its own,
// "label: TOOL {json}" (next:, try:, read:, next page:, …).
type suggestion struct {
	label string
	call  Call
}

// suggestions returns the calls a text suggests, in order, outside the
// note text it quotes in fences.
func suggestions(text string) []suggestion {
	var out []suggestion
	for _, line := range outsideFences(text) {
		label, rest, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if !ok || !isLabel(label) {
			continue
		}
		if c, ok := ParseCall(rest); ok {
			out = append(out, suggestion{label, c})
		}
	}
	return out
}

// isLabel reports whether s is a line label: lower-case words.
func isLabel(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLower(r) && r != ' ' {
			return false
		}
	}
	return true
}

// outsideFences returns the lines of text that are not inside a ``` fence
// (the note text an answer quotes, which may hold anything).
func outsideFences(text string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimRight(line, " ")
		if fence != "" {
			if t == fence {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") {
			fence = strings.TrimRight(t, "abcdefghijklmnopqrstuvwxyz")
			continue
		}
		out = append(out, line)
	}
	return out
}

// headerField is field over the lines before the first fence: the facts an
// answer states about itself, not the note text it quotes.
func headerField(text, name string) (string, bool) {
	var head []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			break
		}
		head = append(head, line)
	}
	return field(strings.Join(head, "\n"), name)
}

// block is the part of an answer about one note: a read's whole text, or
// one hit of a list (from its "path:" line to the next).
type block struct {
	path, section, text string
}

// blocks splits an answer into its notes. A read_note answer is one block;
// any other answer starts a block at every line "path: …".
func blocks(s Step) []block {
	if s.Tool == "read_note" {
		p, _ := headerField(s.Text, "path")
		sec, _ := headerField(s.Text, "section")
		return []block{{p, sec, s.Text}}
	}
	var out []block
	var cur *block
	for _, line := range strings.Split(s.Text, "\n") {
		if p, ok := strings.CutPrefix(line, "path: "); ok {
			out = append(out, block{path: strings.TrimSpace(p)})
			cur = &out[len(out)-1]
		}
		if cur == nil {
			continue
		}
		if sec, ok := strings.CutPrefix(line, "section: "); ok && cur.section == "" {
			cur.section = strings.TrimSpace(sec)
		}
		cur.text += line + "\n"
	}
	return out
}

// norm folds text for a phrase match: lower case, one space for any run of
// spaces, and without the «» marks search puts around matched words.
func norm(s string) string {
	s = strings.NewReplacer("«", "", "»", "").Replace(s)
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// proof returns the step that showed q's proof to the agent, and the
// block that held it, or 0. With a phrase: a text that shows the phrase —
// inside the note's part of it when a note is named. With a note alone: a
// successful read of that note. A read counts; a search hit counts only
// when the agent's answer carries the phrase (it used the hit): a hit the
// agent passed over for another note's text is not an answer from the
// note. Error texts never count.
func proof(q Question, steps []Step, answer string) (int, block) {
	if !q.HasProof() {
		return 0, block{}
	}
	phrase := norm(q.Phrase)
	used := phrase != "" && strings.Contains(norm(answer), phrase)
	// Reads first: the step the agent read the answer in, rather than the
	// hit that led there.
	for _, reads := range []bool{true, false} {
		for _, s := range steps {
			if s.IsError || s.Malformed != "" || (s.Tool == "read_note") != reads || (!reads && !used) {
				continue
			}
			for _, b := range blocks(s) {
				switch {
				case phrase == "":
					if s.Tool == "read_note" && b.path == q.Note {
						return s.N, b
					}
				case q.Note != "" && b.path != q.Note:
				case strings.Contains(norm(b.text), phrase):
					return s.N, b
				}
			}
			if phrase != "" && q.Note == "" && strings.Contains(norm(s.Text), phrase) {
				return s.N, block{} // shown, but in no note's part of the text
			}
		}
	}
	return 0, block{}
}

// setFlags sets the flags of every step of one question. where is the
// section that holds the answer when it is known before the run; the
// proof, when the agent was shown it, tells the rest.
func setFlags(q Question, steps []Step, where, answer string) {
	ansNote, ansSection := q.Note, where
	if n, b := proof(q, steps, answer); n > 0 {
		if ansNote == "" {
			ansNote = b.path
		}
		if ansSection == "" {
			ansSection = b.section
		}
	}
	for k := range steps {
		s := &steps[k]
		s.Flags = nil
		add := func(kind, format string, args ...any) {
			s.Flags = append(s.Flags, Flag{Kind: kind, Text: fmt.Sprintf(format, args...)})
		}
		if s.IsError && s.Malformed == "" {
			for _, sg := range suggestions(s.Text) {
				if same(sg.call, s.Call()) {
					add(FlagRepeats, "the error suggests the call that failed (%s: %s)", sg.label, sg.call)
					break
				}
			}
			for j := k - 1; j >= 0; j-- {
				if sg, ok := suggested(steps[j], s.Call()); ok {
					add(FlagSuggestionFailed, "followed step %d's suggestion (%s: %s), and it failed", steps[j].N, sg.label, sg.call)
					break
				}
			}
		}
		for j := 0; j < k; j++ {
			if steps[j].Text == s.Text && s.Text != "" {
				add(FlagSameText, "the same text as step %d: %s characters read again", steps[j].N, groupDigits(s.Chars))
				break
			}
		}
		if s.Tool == "read_note" && !s.IsError {
			if h, _ := s.Args["heading"].(string); strings.TrimSpace(h) != "" {
				sec, ok := headerField(s.Text, "section")
				switch {
				case !ok:
					add(FlagOtherSection, "asked for the section %q, got the whole note", h)
				case !sectionIs(sec, h):
					add(FlagOtherSection, "asked for the section %q, got %q", h, sec)
				}
			}
		}
		if s.Tool == "search_notes" && !s.IsError && ansNote != "" {
			if why := notFirst(blocks(*s), ansNote, ansSection); why != "" {
				add(FlagNotFirstHit, "%s", why)
			}
		}
	}
}

// suggested returns the suggestion of step s that is call c, if any.
func suggested(s Step, c Call) (suggestion, bool) {
	for _, sg := range suggestions(s.Text) {
		if same(sg.call, c) {
			return sg, true
		}
	}
	return suggestion{}, false
}

// sectionIs reports whether the section path a read returned is the one
// its heading argument asked for: the heading's parts end the path, each
// equal to its part or beginning it as whole words (§ 626 names
// "§ 626 Fristlose Kündigung").
func sectionIs(section, heading string) bool {
	sp := strings.Split(section, " > ")
	hp := strings.Split(strings.TrimSpace(heading), " > ")
	if len(hp) > len(sp) {
		return false
	}
	tail := sp[len(sp)-len(hp):]
	for i, h := range hp {
		got, want := strings.ToLower(strings.TrimSpace(tail[i])), strings.ToLower(strings.TrimSpace(h))
		if got != want && !strings.HasPrefix(got, want+" ") {
			return false
		}
	}
	return true
}

// notFirst says why a hit list's first hit is not where the answer is
// (the note, and its section when known), or "" when it is or the list is
// empty.
func notFirst(hits []block, note, section string) string {
	if len(hits) == 0 {
		return ""
	}
	at := func(b block) bool {
		return b.path == note && (section == "" || b.section == "" || b.section == section)
	}
	if at(hits[0]) {
		return ""
	}
	name := func(b block) string {
		if b.section == "" {
			return b.path
		}
		return b.path + ", section " + b.section
	}
	where := name(block{path: note, section: section})
	first := "; the first hit is " + name(hits[0])
	for i, h := range hits {
		if at(h) {
			return fmt.Sprintf("the answer (%s) is hit %d of %d%s", where, i+1, len(hits), first)
		}
	}
	for i, h := range hits {
		if h.path == note {
			if i == 0 {
				first = ""
			}
			return fmt.Sprintf("the answer is in %s; hit %d of %d is that note, but with the section %s%s", where, i+1, len(hits), h.section, first)
		}
	}
	shown := fmt.Sprintf("the %d hits shown", len(hits))
	if len(hits) == 1 {
		shown = "the one hit shown"
	}
	return fmt.Sprintf("the answer (%s) is not among %s%s", where, shown, first)
}

// groupDigits writes n with thousands separators: 12,345.
func groupDigits(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + groupDigits(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
