package trial

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/tools"
)

// TestTextPolicy_ExampleVault runs the text policy on example-vault's ten
// questions with a budget of 4, as `vaultd trial --policy text` does,
// logs the summary, checks that no question repeats a call or calls a
// write tool, and pins the markdown trace of three of them: one whose
// first read answers (it stops), one whose first read answers from another
// section than the proof's, one whose reads do not answer (it follows
// the next hits to the end of its budget and answers from its best read,
// the first).
func TestTextPolicy_ExampleVault(t *testing.T) {
	c := newCore(t)
	qs := exampleQuestions(t)
	tr, err := (&Runner{Core: c, Conn: readOnly(), Agent: TextPolicy{}, Budget: 4}).Run(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("vaultd trial --policy text --budget 4 on example-vault:\n%s", tr.SummaryText())
	for i, o := range tr.Questions {
		if o.Calls < 1 || o.Calls > 4 || o.Chars == 0 {
			t.Errorf("Q%d: %d calls, %d characters", i+1, o.Calls, o.Chars)
		}
		if o.Steps[0].Tool != "search_notes" || o.Steps[0].Args["query"] != qs[i].Question {
			t.Errorf("Q%d: first call %s, want a search for the question", i+1, o.Steps[0].Call())
		}
		if (o.Verdict == FromNote) != (o.ProofStep > 0) {
			t.Errorf("Q%d: verdict %s with proof step %d", i+1, o.Verdict, o.ProofStep)
		}
		for k, s := range o.Steps {
			if !readTools[s.Tool] {
				t.Errorf("Q%d step %d: calls %s", i+1, k+1, s.Call())
			}
			for _, before := range o.Steps[:k] {
				if same(before.Call(), s.Call()) {
					t.Errorf("Q%d step %d: repeats %s", i+1, k+1, s.Call())
				}
			}
		}
	}
	if s := tr.Summary(); s.WithProof != 12 || s.Questions != 12 {
		t.Errorf("summary: %+v", s)
	}
	// The reading list is a saved Bases view: the search shows its rows,
	// and they answer, in English and in German, in one call (issue 34).
	for _, i := range []int{10, 11} {
		if o := tr.Questions[i]; o.Calls != 1 || o.Verdict != FromNote || !strings.HasPrefix(o.Answer, `From the saved view "Noch nicht gelesen"`) || !strings.Contains(o.Answer, "Über Menschen") {
			t.Errorf("Q%d %q: %d calls, %s, answer %q; want 1 call answered from the saved view of unread books", i+1, o.Question.Question, o.Calls, o.Verdict, o.Answer)
		}
	}

	pick := []Question{qs[3], qs[0], qs[7]}
	small, err := (&Runner{Core: c, Conn: readOnly(), Agent: TextPolicy{}, Budget: 4}).Run(context.Background(), pick)
	if err != nil {
		t.Fatal(err)
	}
	compareGolden(t, filepath.Join("testdata", "golden", "text.md"), small.Markdown())
	if o := small.Questions[0]; o.Calls != 2 || o.Verdict != FromNote {
		t.Errorf("Q1: %d calls, %s; want 2, answered from the note (its first read answers)", o.Calls, o.Verdict)
	}
	if o := small.Questions[2]; o.Calls != 4 || !strings.Contains(o.Answer, "section Design-Review Website-Relaunch > Entwürfe") {
		t.Errorf("Q3: %d calls, answer %q; want 4 calls, the answer from step 2's read (its best)", o.Calls, o.Answer)
	}

	// The JSON carries the same run for scripts.
	b, err := small.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Summary   Summary   `json:"summary"`
		OK        bool      `json:"ok"`
		Questions []Outcome `json:"questions"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.OK != small.OK() || back.Summary.Within != small.Summary().Within || len(back.Questions) != 3 || back.Questions[0].Steps[0].Text != small.Questions[0].Steps[0].Text {
		t.Errorf("JSON does not carry the run: %s", b)
	}
}

// scripted is an agent that makes fixed calls, then answers.
type scripted struct {
	calls  []string // "tool {json}"
	answer string
}

func (s scripted) Next(_ context.Context, c Conversation) (Reply, error) {
	if n := len(c.Steps); n < len(s.calls) {
		name, args, _ := strings.Cut(s.calls[n], " ")
		return Reply{Words: "step " + groupDigits(n+1), Calls: []ToolCall{{Name: name, Arguments: args}}}, nil
	}
	return Reply{Words: s.answer}, nil
}

// TestRunner_Flags: wasted calls on the real vault are flagged — a
// suggestion followed that fails, the same text twice — and a useful
// chain is not.
func TestRunner_Flags(t *testing.T) {
	c := newCore(t)
	q := Question{Question: "Wann ist der Launch?", Note: "Website-Relaunch", Phrase: "2026-12-08 Launch der neuen Website"}
	agent := scripted{calls: []string{
		`read_note {"path": "3_Ressourcen/Website-Relaunch.md", "heading": "Zeitleiste"}`, // wrong space: error with next:
		`read_note {"heading": "Zeitleiste", "path": "1_Projekte/Website-Relaunch.md"}`,   // its next:, followed
		`read_note {"path": "1_Projekte/Website-Relaunch.md", "heading": "Zeitleiste"}`,   // the same again
		`read_note {"path": "1_Projekte/Website-Relaunch.md", "heading": "Zeitleist"}`,    // a typo: error
	}, answer: "Am 2026-12-08 Launch der neuen Website."}
	tr, err := (&Runner{Core: c, Conn: readOnly(), Agent: agent, Budget: 6}).Run(context.Background(), []Question{q})
	if err != nil {
		t.Fatal(err)
	}
	o := tr.Questions[0]
	if o.Note != "1_Projekte/Website-Relaunch.md" || o.AnswerSection != "Website-Relaunch > Zeitleiste" {
		t.Errorf("note %q, section %q: the question's note was not resolved or located", o.Note, o.AnswerSection)
	}
	if o.Verdict != FromNote || o.ProofStep != 2 {
		t.Errorf("verdict %s, proof step %d; want answered from the note, step 2", o.Verdict, o.ProofStep)
	}
	kinds := func(s Step) string {
		var k []string
		for _, f := range s.Flags {
			k = append(k, f.Kind)
		}
		return strings.Join(k, ",")
	}
	want := []string{"", "", FlagSameText, ""}
	for i, s := range o.Steps {
		if got := kinds(s); got != want[i] {
			t.Errorf("step %d (%s): flags %q, want %q; %v", i+1, s.Call(), got, want[i], s.Flags)
		}
	}
	if !o.Steps[0].IsError || !strings.Contains(o.Steps[0].Text, "next: read_note") {
		t.Fatalf("step 1 was to fail with a next: call:\n%s", o.Steps[0].Text)
	}
}

// TestRunner_Rights: read-only by default — a write is refused with the
// text an MCP client gets, and nothing changes; with the write right the
// same call writes, recorded as the trial's actor.
func TestRunner_Rights(t *testing.T) {
	create := scripted{calls: []string{`create_note {"path": "0_Inbox/Trial.md", "content": "---\ntags: [test]\n---\n# Trial\n", "change_summary": "trial"}`}, answer: "done"}
	q := []Question{{Question: "Leg eine Notiz an."}}

	c := newCore(t)
	tr, err := (&Runner{Core: c, Conn: readOnly(), Agent: create}).Run(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	s := tr.Questions[0].Steps[0]
	if !s.IsError || !strings.Contains(s.Text, "permission denied") || tr.Rights != "read" || tr.Budget != DefaultBudget {
		t.Errorf("read-only create: rights %q budget %d:\n%s", tr.Rights, tr.Budget, s.Text)
	}
	if _, err := os.Stat(filepath.Join(c.Vault().Dir(), "0_Inbox", "Trial.md")); err == nil {
		t.Errorf("a read-only trial wrote a note")
	}
	if tr.Questions[0].Verdict != Answered {
		t.Errorf("verdict %s for a question without a proof, want %s", tr.Questions[0].Verdict, Answered)
	}

	rw := tools.NewConnection("trial", tools.Perms{Read: true, Write: true}, tools.Limits{})
	tr, err = (&Runner{Core: c, Conn: rw, Agent: create}).Run(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if s := tr.Questions[0].Steps[0]; s.IsError || !strings.Contains(s.Text, "budget:") {
		t.Errorf("create with the write right:\n%s", s.Text)
	}
	if _, err := os.Stat(filepath.Join(c.Vault().Dir(), "0_Inbox", "Trial.md")); err != nil {
		t.Errorf("the note was not written: %v", err)
	}
}

// TestRunner_BadQuestions: a question naming a note the vault does not
// have, or a phrase its note does not hold, stops the run before it
// starts, naming the question.
func TestRunner_BadQuestions(t *testing.T) {
	c := newCore(t)
	for _, tc := range []struct {
		q    Question
		want string
	}{
		{Question{Question: "?", Note: "1_Projekte/Nope.md"}, `question 1 names the note "1_Projekte/Nope.md"`},
		{Question{Question: "?", Note: "Website-Relaunch", Phrase: "Launch am Mars"}, `question 1: the note 1_Projekte/Website-Relaunch.md does not hold the phrase "Launch am Mars"`},
	} {
		_, err := (&Runner{Core: c, Conn: readOnly(), Agent: TextPolicy{}}).Run(context.Background(), []Question{tc.q})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.q, err, tc.want)
		}
	}
}
