package trial

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Texts as vaultd spells them, cut down to what the policy reads.
const (
	q = "Wie hoch ist das Budget beim KVN?" // content words: budget, kvn

	searchText = "query: " + q + "\nshowing notes 1–2 of 2\n\n" +
		"path: a.md\ntitle: A\nread: read_note {\"path\": \"a.md\", \"heading\": \"Kosten\"}\n\n" +
		"path: b.md\ntitle: B\nread: read_note {\"path\": \"b.md\", \"heading\": \"Budget\"}\n\n" +
		"other matching sections of these notes:\n" +
		"also: read_note {\"path\": \"a.md\", \"heading\": \"Plan\"}\n" +
		"3 more in this note: search_notes {\"query\": \"" + q + "\", \"path\": \"a.md\", \"offset\": 3}\n\n" +
		"next page: search_notes {\"query\": \"" + q + "\", \"offset\": 2}"

	// A read of a.md > Kosten: holds "Budget", not "KVN".
	missText = "path: a.md\ntitle: A\nsection: A > Kosten\nlength: 40 characters\n\n```markdown\n## Kosten\n\nDas Budget ist offen.\n```\n" +
		"previous section: read_note {\"path\": \"a.md\", \"heading\": \"Ziele\"}\n" +
		"next section: read_note {\"path\": \"a.md\", \"heading\": \"Termine\"}"
	// A read of b.md > Budget: holds both, KVN among the note's aliases.
	hitText = "path: b.md\ntitle: B\nsection: B > Budget\nproperties:\n  aliases: [KVN]\nlength: 40 characters\n\n```markdown\n## Budget\n\n386.000 € netto.\n```\n" +
		"next section: read_note {\"path\": \"b.md\", \"heading\": \"Termine\"}"

	closestText = "error: read \"Budgets.md\": no such note\nerror code: not_found\n" +
		"closest notes, nearest first, each a call to copy:\n" +
		"- read_note {\"path\": \"c.md\"}  (title \"Budget\")\n" +
		"- read_note {\"path\": \"d.md\"}  (a search for \"Budgets\" finds it)\n" +
		"- read_note {\"path\": \"e.md\"}  (a search for \"Budgets\" finds it)\n" +
		"spaces: 1_Projekte, 2_Bereiche\n" +
		"next: read_note {\"path\": \"c.md\"}"
)

func mustCall(t *testing.T, s string) Call {
	t.Helper()
	c, ok := ParseCall(s)
	if !ok {
		t.Fatalf("not a call: %s", s)
	}
	return c
}

// TestNext: each rule of the text policy, on texts as vaultd spells them.
func TestNext(t *testing.T) {
	search := Call{Tool: "search_notes", Args: map[string]any{"query": q}}
	readA := mustCall(t, `read_note {"path": "a.md", "heading": "Kosten"}`)
	readB := mustCall(t, `read_note {"path": "b.md", "heading": "Budget"}`)
	readMissing := mustCall(t, `read_note {"path": "Budgets.md"}`)
	readC := mustCall(t, `read_note {"path": "c.md"}`)
	readD := mustCall(t, `read_note {"path": "d.md"}`)
	other := func(path string) string { // a read that holds neither word
		return "path: " + path + "\ntitle: X\nlength: 3 characters\n\n```markdown\nNix.\n```"
	}
	for _, tc := range []struct {
		name    string
		left    int
		history []Turn
		want    string // the next call, "" when done
	}{
		{"first call searches the question", 4, nil, `search_notes {"query":"` + q + `"}`},
		{"no call left: no search", 0, nil, ""},
		{"a search: its first hit's read:", 4, []Turn{{search, searchText}}, `read_note {"heading":"Kosten","path":"a.md"}`},
		{"first hit does not answer: the second hit's read:", 4, []Turn{{search, searchText}, {readA, missText}},
			`read_note {"heading":"Budget","path":"b.md"}`},
		{"a read that answers: stops", 4, []Turn{{search, searchText}, {readA, missText}, {readB, hitText}}, ""},
		{"then the hits' other sections (also:), before this read's next section", 4,
			[]Turn{{search, searchText}, {readA, missText}, {readB, missText}},
			`read_note {"heading":"Plan","path":"a.md"}`},
		{"then more in this note, the next page, then the reads' next sections", 9,
			[]Turn{{search, searchText}, {readA, missText}, {readB, other("b.md")}, {mustCall(t, `read_note {"path": "a.md", "heading": "Plan"}`), other("a.md")}},
			`search_notes {"offset":3,"path":"a.md","query":"` + q + `"}`},
		{"an error with a list of closest notes: the first", 4, []Turn{{readMissing, closestText}}, `read_note {"path":"c.md"}`},
		{"… then the second", 4, []Turn{{readMissing, closestText}, {readC, other("c.md")}}, `read_note {"path":"d.md"}`},
		{"… then the third", 4, []Turn{{readMissing, closestText}, {readC, other("c.md")}, {readD, other("d.md")}}, `read_note {"path":"e.md"}`},
		{"an error's calls come before the hits still to read", 6, []Turn{{search, searchText}, {readA, closestText}}, `read_note {"path":"c.md"}`},
		{"one call left: a read, not the next page", 1,
			[]Turn{{search, "query: x\n\nnext: search_notes {\"query\": \"y\"}\nalso: read_note {\"path\": \"f.md\"}"}},
			`read_note {"path":"f.md"}`},
		{"one call left and no read pending: stops", 1, []Turn{{search, "query: x\nnext page: search_notes {\"query\": \"x\", \"offset\": 5}"}}, ""},
		{"budget used up: stops", 0, []Turn{{search, searchText}, {readA, missText}}, ""},
		{"never a write tool", 4, []Turn{{search, "query: x\nnext: append_to_note {\"path\": \"a.md\", \"content\": \"x\"}\n" +
			"- update_section {\"path\": \"a.md\"}  (why)\nread: read_note {\"path\": \"g.md\"}"}}, `read_note {"path":"g.md"}`},
		{"never a call it made", 4, []Turn{{search, "query: x\nread: search_notes {\"query\": \"" + q + "\"}\nread: read_note {\"path\": \"h.md\"}"}},
			`read_note {"path":"h.md"}`},
		{"not the calls of the note text, nor did you mean:, previous or parent section:", 4,
			[]Turn{{search, "query: x\ndid you mean: search_notes {\"query\": \"y\"}\n```markdown\nread: read_note {\"path\": \"i.md\"}\n```\n" +
				"previous section: read_note {\"path\": \"j.md\"}\nparent section: read_note {\"path\": \"k.md\"}\nnext section: read_note {\"path\": \"l.md\"}"}},
			`read_note {"path":"l.md"}`},
		{"an error without a call: stops", 4, []Turn{{readA, "error: denied\nerror code: permission_denied\ntry: vaultd serve"}}, ""},
		{"nothing to follow: stops", 4, []Turn{{search, "query: x\nno notes match"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(q, tc.left, tc.history)
			got := ""
			if !d.Done {
				got = d.Call.String()
			}
			if got != tc.want || d.Done != (tc.want == "") {
				t.Errorf("got %q done %v, want %q (%s)", got, d.Done, tc.want, d.Why)
			}
			if next, done := Next(q, tc.left, tc.history); done != d.Done || next.String() != d.Call.String() {
				t.Errorf("Next and Decide differ: %s %v", next, done)
			}
		})
	}
}

// TestNext_Walk: the policy run against a scripted vault never repeats a
// call, never writes, and stops within its budget, answering from the
// best read.
func TestNext_Walk(t *testing.T) {
	answers := map[string]string{
		`search_notes {"query":"` + q + `"}`:                          searchText + "\nnext: append_to_note {\"path\": \"a.md\", \"content\": \"x\"}",
		`read_note {"heading":"Kosten","path":"a.md"}`:                missText,
		`read_note {"heading":"Budget","path":"b.md"}`:                hitText,
		`read_note {"heading":"Plan","path":"a.md"}`:                  "error: no heading \"Plan\"\nnext: read_note {\"path\": \"a.md\", \"heading\": \"Kosten\"}",
		`search_notes {"offset":2,"query":"` + q + `"}`:               searchText,
		`search_notes {"offset":3,"path":"a.md","query":"` + q + `"}`: searchText,
	}
	walk := func(question string, budget int) []Turn {
		var history []Turn
		for {
			next, done := Next(question, budget-len(history), history)
			if done {
				return history
			}
			if len(history) == budget {
				t.Fatalf("budget %d: asks for a call past its budget: %s", budget, next)
			}
			if !readTools[next.Tool] {
				t.Fatalf("budget %d: calls %s", budget, next)
			}
			if made(history, next) {
				t.Fatalf("budget %d: repeats %s", budget, next)
			}
			key := next.String()
			if len(history) == 0 {
				key = `search_notes {"query":"` + q + `"}` // the same hits for either question
			}
			text, ok := answers[key]
			if !ok {
				text = "error: no such note\nerror code: not_found"
			}
			history = append(history, Turn{next, text})
		}
	}
	for budget := 1; budget <= 8; budget++ {
		history := walk(q, budget)
		want := ""
		switch {
		case budget >= 3:
			want = "From b.md, section B > Budget:"
		case budget == 2:
			want = "From a.md, section A > Kosten:"
		}
		if got := Answer(q, history); !strings.HasPrefix(got, want) || (want == "") != (got == "") {
			t.Errorf("budget %d: %d calls, answer %q, want %q…", budget, len(history), got, want)
		}
		if budget >= 3 && len(history) != 3 {
			t.Errorf("budget %d: %d calls, want 3: it stops at the read that answers", budget, len(history))
		}
		// A question no text answers: it follows every spelled call
		// once, within the budget, and answers from its first read.
		history = walk("Wann ist das Sommerfest?", budget)
		if budget >= 2 && !strings.HasPrefix(Answer("Wann ist das Sommerfest?", history), "From a.md, section A > Kosten:") {
			t.Errorf("budget %d: %d calls, answer %q, want the first read", budget, len(history), Answer("Wann ist das Sommerfest?", history))
		}
		var calls []string
		for _, h := range history {
			calls = append(calls, h.Call.String())
		}
		// The hits, the hits' other sections, the error's call (made
		// already), more in the note, the next page, the reads' next
		// sections; with one call left, a read.
		all := []string{`search_notes {"query":"Wann ist das Sommerfest?"}`, `read_note {"heading":"Kosten","path":"a.md"}`,
			`read_note {"heading":"Budget","path":"b.md"}`, `read_note {"heading":"Plan","path":"a.md"}`,
			`search_notes {"offset":3,"path":"a.md","query":"` + q + `"}`, `search_notes {"offset":2,"query":"` + q + `"}`,
			`read_note {"heading":"Termine","path":"a.md"}`, `read_note {"heading":"Termine","path":"b.md"}`}
		order := map[int][]int{1: {0}, 2: {0, 1}, 3: {0, 1, 2}, 4: {0, 1, 2, 3}, 5: {0, 1, 2, 3, 6}, 6: {0, 1, 2, 3, 4, 6}, 7: {0, 1, 2, 3, 4, 5, 6}, 8: {0, 1, 2, 3, 4, 5, 6, 7}}
		var wantCalls []string
		for _, i := range order[budget] {
			wantCalls = append(wantCalls, all[i])
		}
		if got, want := strings.Join(calls, " → "), strings.Join(wantCalls, " → "); got != want {
			t.Errorf("budget %d:\n got %s\nwant %s", budget, got, want)
		}
	}
}

// TestJudge: which of a question's words a text holds.
func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		question, text string
		held, missing  string
		answers        bool
	}{
		{"Wie hoch ist das Budget beim KVN?", "Das Budget des KVN", "budget kvn", "", true},
		{"Wie hoch ist das Budget beim KVN?", "Das Budget ist offen", "budget", "kvn", false},
		{"Mit wie vielen Leuten kann ich einen synchronisierten Tresor teilen?", "Remote-Tresor teilen: bis zu 20 Personen, Synchronisierung",
			"synchronisierten tresor teilen", "leuten", true},
		{"Welches Gewächshaus ist am günstigsten?", "Gewächshäuser im Vergleich: Vitavia, günstig", "gewächshaus günstigsten", "", true},
		{"Wo ist der Konfigurationsordner?", "der Ordner .obsidian", "konfigurationsordner", "", true},
		{"Wo liegt der Ordner?", "der Konfigurationsordner .obsidian", "ordner", "liegt", false},
		{"Wo ist das Handy?", "das Handbuch", "", "handy", false},
		{"Welcher Designentwurf wurde gewählt?", "Entwurf B wird umgesetzt", "designentwurf", "gewählt", false},
		{"How do I extract a tar archive?", "extracting the target archives", "extract archive", "tar", true},
		{"How do I list files?", "lists of files", "list files", "", true},
		{"How can I collapse headings?", "collaborate on heads", "", "collapse headings", false},
		{"Wer ist da?", "irgendwas", "", "", true},
	} {
		j := Judge(tc.question, tc.text)
		if strings.Join(j.Held, " ") != tc.held || strings.Join(j.Missing, " ") != tc.missing || j.Answers() != tc.answers {
			t.Errorf("%q in %q: %s, answers %v; want held %q, missing %q, answers %v", tc.question, tc.text, j, j.Answers(), tc.held, tc.missing, tc.answers)
		}
	}
}

func TestAnswer(t *testing.T) {
	text := "path: a.md\ntitle: A\nsection: A > B\n\n```markdown\n## B\n\nDie Antwort.\n```\nnext section: read_note {}\n"
	read := Call{Tool: "read_note", Args: map[string]any{"path": "a.md"}}
	if got, want := Answer("Was ist B?", []Turn{{read, text}}), "From a.md, section A > B:\n\n## B\n\nDie Antwort."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Answer("Was ist B?", []Turn{{Call{Tool: "search_notes"}, "path: a.md"}}); got != "" {
		t.Errorf("an answer after a search: %q, want none", got)
	}
	if got := Answer("Was ist B?", []Turn{{read, "error: no"}}); got != "" {
		t.Errorf("an answer after an error: %q, want none", got)
	}
	// From the best read, not the last: the one that holds the most of
	// the question's words, the first of equals.
	readA := mustCall(t, `read_note {"path": "a.md", "heading": "Kosten"}`)
	history := []Turn{{readA, missText}, {mustCall(t, `read_note {"path": "b.md"}`), hitText}, {readA, missText}, {Call{Tool: "search_notes"}, searchText}}
	if got := Answer(q, history); !strings.HasPrefix(got, "From b.md, section B > Budget:\n\n## Budget") {
		t.Errorf("answer %q, want the read of b.md", got)
	}
	if got := Answer(q, []Turn{{readA, missText}, {readA, strings.Replace(missText, "Kosten", "Termine", -1)}}); !strings.Contains(got, "section A > Kosten") {
		t.Errorf("answer %q, want the first of two equal reads", got)
	}
}

func TestParseCall(t *testing.T) {
	c, ok := ParseCall(` read_note {"path": "1_Projekte/X.md", "heading": "Projekte > Ziele"}`)
	if !ok || c.String() != `read_note {"heading":"Projekte > Ziele","path":"1_Projekte/X.md"}` {
		t.Errorf("got %v %v", c, ok)
	}
	for _, bad := range []string{"", "read_note", `read_note {"path": }`, `vaultd read x`, `Read_Note {}`, `read_note ["x"]`} {
		if c, ok := ParseCall(bad); ok {
			t.Errorf("ParseCall(%q) = %v, want not a call", bad, c)
		}
	}
}

// TestIsError_EveryGolden: the text policy tells a failure by its text
// alone ("error:" first), as a model shown only the text must. Every
// answer the goldens of the core (tools) and of the MCP adapter (mcpserver)
// pin agrees with its isError flag.
func TestIsError_EveryGolden(t *testing.T) {
	n := 0
	for _, pkg := range []string{"tools", "mcpserver"} {
		err := filepath.WalkDir(filepath.Join("..", pkg, "testdata", "golden"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".golden") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := string(b)
			_, rest, ok := strings.Cut(s, "isError: ")
			if !ok {
				return nil
			}
			isErr := strings.HasPrefix(rest, "true")
			_, text, ok := strings.Cut(rest, "--- text ---\n")
			if !ok {
				return nil
			}
			n++
			if IsError(text) != isErr {
				t.Errorf("%s: isError %v, but the text begins %q", p, isErr, firstLine(text))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 50 {
		t.Errorf("only %d goldens checked; did the golden layout of tools or mcpserver change?", n)
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func TestParseQuestions(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     int
		err      string
	}{
		{"yaml list", "# mine\n- question: A?\n  note: x.md\n- question: B?\n  phrase: b c\n", 2, ""},
		{"json list", `[{"question": "A?", "note": "x.md", "phrase": "p"}]`, 1, ""},
		{"wrapped", "questions:\n  - question: A?\n", 1, ""},
		{"unknown key", "- question: A?\n  phrse: x\n", 0, "field phrse not found"},
		{"no question", "- note: x.md\n", 0, "question 1 has no question text"},
		{"empty", "  \n", 0, "the questions file is empty"},
		{"empty list", "[]", 0, "lists no questions"},
		{"not a list", "question: A?\n", 0, "not a list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qs, err := ParseQuestions([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil || len(qs) != tc.want {
				t.Fatalf("got %d questions, %v; want %d", len(qs), err, tc.want)
			}
			if qs[0].Question != "A?" {
				t.Errorf("first question: %+v", qs[0])
			}
		})
	}
}
