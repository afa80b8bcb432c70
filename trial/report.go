package trial

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Summary is the run across questions.
type Summary struct {
	Questions int `json:"questions"`
	WithProof int `json:"with_proof"` // questions that name a proof
	// Within is how many questions with a proof were answered from it
	// within the budget.
	Within    int             `json:"answered_within_budget"`
	Calls     int             `json:"calls"` // calls used, all questions
	MeanCalls float64         `json:"mean_calls"`
	Chars     int             `json:"chars"` // characters read, all questions
	MeanChars int             `json:"mean_chars"`
	Verdicts  map[Verdict]int `json:"verdicts"`
	Flags     map[string]int  `json:"flags"` // flagged steps by kind
	Flagged   int             `json:"flagged_steps"`
}

// Summary sums the trace up.
func (t *Trace) Summary() Summary {
	s := Summary{Questions: len(t.Questions), Verdicts: map[Verdict]int{}, Flags: map[string]int{}}
	for _, o := range t.Questions {
		if o.HasProof() {
			s.WithProof++
		}
		if o.Within() {
			s.Within++
		}
		s.Calls += o.Calls
		s.Chars += o.Chars
		s.Verdicts[o.Verdict]++
		for _, st := range o.Steps {
			if len(st.Flags) > 0 {
				s.Flagged++
			}
			for _, f := range st.Flags {
				s.Flags[f.Kind]++
			}
		}
	}
	if s.Questions > 0 {
		s.MeanCalls = float64(s.Calls) / float64(s.Questions)
		s.MeanChars = (s.Chars + s.Questions/2) / s.Questions
	}
	return s
}

// JSON is the trace for scripts: the run, its summary and every question
// with every step.
func (t *Trace) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(struct {
		*Trace
		Summary Summary `json:"summary"`
		OK      bool    `json:"ok"`
	}{t, t.Summary(), t.OK()}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// SummaryText is the summary as a person reads it: the table of questions
// and the totals.
func (t *Trace) SummaryText() string {
	var b strings.Builder
	b.WriteString("| # | question | verdict | calls | characters read | flagged |\n")
	b.WriteString("|--:|---|---|--:|--:|--:|\n")
	for i, o := range t.Questions {
		flagged := 0
		for _, s := range o.Steps {
			if len(s.Flags) > 0 {
				flagged++
			}
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %d | %s | %d |\n", i+1, cell(o.Question.Question), o.Verdict, o.Calls, groupDigits(o.Chars), flagged)
	}
	s := t.Summary()
	b.WriteString("\n")
	if s.WithProof > 0 {
		fmt.Fprintf(&b, "**Answered within budget: %d of %d questions with a proof.**", s.Within, s.WithProof)
	} else {
		b.WriteString("**No question names a proof** (a note or a phrase), so none can be judged.")
	}
	fmt.Fprintf(&b, " Mean calls: %.1f of %d. Characters read: %s (%s a question).", s.MeanCalls, t.Budget, groupDigits(s.Chars), groupDigits(s.MeanChars))
	if s.Flagged == 0 {
		b.WriteString(" No step flagged as a wasted call.\n")
	} else {
		var kinds []string
		for _, k := range FlagKinds {
			if n := s.Flags[k]; n > 0 {
				kinds = append(kinds, fmt.Sprintf("%s %d", flagTitle[k], n))
			}
		}
		fmt.Fprintf(&b, " Steps flagged as wasted calls: %d (%s).\n", s.Flagged, strings.Join(kinds, ", "))
	}
	return b.String()
}

// Markdown is the trace as a person reads it, top to bottom: the summary
// table, then each question step by step — what the agent asked, what it
// was shown (exactly, with its size), what it said, the flags — and its
// answer and verdict.
func (t *Trace) Markdown() string {
	var b strings.Builder
	b.WriteString("# vaultd trial\n\n")
	fmt.Fprintf(&b, "agent: %s · budget: %d calls a question · rights: %s\n\n", t.Agent, t.Budget, t.Rights)
	b.WriteString(t.SummaryText())
	for i, o := range t.Questions {
		fmt.Fprintf(&b, "\n## %d. %s\n\n", i+1, oneLine(o.Question.Question))
		if o.HasProof() {
			var p []string
			if o.Note != "" {
				p = append(p, "note "+code(o.Note))
			}
			if o.Phrase != "" {
				p = append(p, "phrase "+code(o.Phrase))
			}
			if o.AnswerSection != "" {
				p = append(p, "in the section "+code(o.AnswerSection))
			}
			b.WriteString("proof: " + strings.Join(p, ", ") + "  \n")
		}
		fmt.Fprintf(&b, "verdict: **%s**, %d of %d calls", o.Verdict, o.Calls, t.Budget)
		if o.ProofStep > 0 {
			fmt.Fprintf(&b, "; the proof was shown in step %d", o.ProofStep)
		}
		b.WriteString(".\n")
		for _, s := range o.Steps {
			writeStep(&b, s, t.Budget)
		}
		switch {
		case o.Verdict == ModelError:
			b.WriteString("\n### The agent could not reply\n\n" + o.Error + "\n")
		case o.Verdict == OutOfCalls:
			b.WriteString("\n### Out of calls\n\nThe budget was used up; the agent wanted next:\n\n")
			for _, w := range o.Wanted {
				b.WriteString("- " + code(w) + "\n")
			}
		case o.Answer == "":
			b.WriteString("\n### Answer\n\n(none: the agent stopped without an answer)\n")
		default:
			b.WriteString("\n### Answer\n\n" + quote(o.Answer))
		}
	}
	return b.String()
}

// writeStep writes one step of a question.
func writeStep(b *strings.Builder, s Step, budget int) {
	what := code(strings.TrimSpace(s.Tool + " " + s.Arguments))
	if s.Malformed != "" {
		what += " (malformed)"
	}
	fmt.Fprintf(b, "\n### Step %d of %d: %s\n\n", s.N, budget, what)
	if s.Words != "" {
		b.WriteString("The agent said:\n\n" + quote(s.Words) + "\n")
	}
	kind := "answered"
	if s.IsError {
		kind = "answered with an error"
	}
	fmt.Fprintf(b, "vaultd %s (%s characters):\n\n%s", kind, groupDigits(s.Chars), fence(s.Text))
	for _, f := range s.Flags {
		fmt.Fprintf(b, "\n**Wasted call — %s:** %s\n", flagTitle[f.Kind], f.Text)
	}
}

// fence puts text in a code fence longer than any run of backticks in it.
func fence(text string) string {
	n := 3
	run := 0
	for _, r := range text {
		if r == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + "text\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n"
}

// code writes s as an inline code span, with enough backticks around it.
func code(s string) string {
	s = oneLine(s)
	n, run := 1, 0
	for _, r := range s {
		if r == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	if n > 1 || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return f + " " + s + " " + f
	}
	return f + s + f
}

// quote writes text as a markdown block quote.
func quote(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// cell writes text for a table cell: one line, no pipes, at most 70
// characters.
func cell(text string) string {
	s := oneLine(text)
	if r := []rune(s); len(r) > 70 {
		s = string(r[:69]) + "…"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
