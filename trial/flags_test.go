package trial

import (
	"encoding/json"
	"strings"
	"testing"
)

// step builds a step from a call as text ("tool {json}") and its answer.
func step(n int, call, text string) Step {
	name, args, _ := strings.Cut(call, " ")
	var m map[string]any
	_ = json.Unmarshal([]byte(args), &m)
	return Step{N: n, Tool: name, Arguments: args, Args: m, Text: text, Chars: len([]rune(text)), IsError: IsError(text)}
}

func flagKinds(steps []Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		var k []string
		for _, f := range s.Flags {
			k = append(k, f.Kind)
		}
		out[i] = strings.Join(k, ",")
	}
	return out
}

// TestFlags: each kind of wasted call, found from the calls and texts, and
// a clean run that flags nothing.
func TestFlags(t *testing.T) {
	readA := `read_note {"path": "a.md", "heading": "Ziele"}`
	errSame := "error: no heading \"Ziele\"\nerror code: not_found\nnext: read_note {\"heading\": \"Ziele\", \"path\": \"a.md\"}\n"
	section := func(sec string) string {
		return "path: a.md\ntitle: A\nsection: " + sec + "\n\n```markdown\n## x\nsection: not this one\n```\n"
	}
	hits := "query: q\nshowing hits 1–2 of 2\n\npath: b.md\ntitle: B\nsection: B > Intro\nline 3: …\nread: read_note {\"path\": \"b.md\", \"heading\": \"B > Intro\"}\n\npath: a.md\ntitle: A\nsection: A > Ziele\nline 9: …\nread: read_note {\"path\": \"a.md\", \"heading\": \"A > Ziele\"}\n"
	for _, tc := range []struct {
		name  string
		q     Question
		where string
		steps []Step
		want  []string
	}{
		{"error suggests the failed call", Question{}, "",
			[]Step{step(1, readA, errSame)}, []string{FlagRepeats}},
		{"a suggestion followed fails", Question{}, "",
			[]Step{
				step(1, `search_notes {"query": "q"}`, "query: q\nnext: read_note {\"path\": \"z.md\"}\n"),
				step(2, `read_note {"path": "z.md"}`, "error: no note z.md\nerror code: not_found\nnext: search_notes {\"query\": \"z\"}\n"),
			}, []string{"", FlagSuggestionFailed}},
		{"the same text twice", Question{}, "",
			[]Step{step(1, readA, section("A > Ziele")), step(2, `read_note {"path": "a.md", "heading": "A > Ziele"}`, section("A > Ziele"))},
			[]string{"", FlagSameText}},
		{"a read returns another section", Question{}, "",
			[]Step{step(1, readA, section("A > Zielgruppen"))}, []string{FlagOtherSection}},
		{"a read returns the whole note", Question{}, "",
			[]Step{step(1, readA, "path: a.md\ntitle: A\n\n```markdown\n# A\n```\n")}, []string{FlagOtherSection}},
		{"a heading that begins the section's as whole words is the section", Question{}, "",
			[]Step{step(1, `read_note {"path": "a.md", "heading": "§ 626"}`, section("BGB > § 626 Fristlose Kündigung"))}, []string{""}},
		{"the answer is the second hit", Question{Note: "a.md", Phrase: "x"}, "A > Ziele",
			[]Step{step(1, `search_notes {"query": "q"}`, hits)}, []string{FlagNotFirstHit}},
		{"the answer's note first, but another section", Question{Note: "b.md", Phrase: "x"}, "B > Budget",
			[]Step{step(1, `search_notes {"query": "q"}`, hits)}, []string{FlagNotFirstHit}},
		{"the answer is the first hit", Question{Note: "b.md", Phrase: "x"}, "B > Intro",
			[]Step{step(1, `search_notes {"query": "q"}`, hits)}, []string{""}},
		{"no proof, no hit-list flag", Question{}, "",
			[]Step{step(1, `search_notes {"query": "q"}`, hits)}, []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setFlags(tc.q, tc.steps, tc.where, "")
			got := flagKinds(tc.steps)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("flags %q, want %q", got, tc.want)
				for _, s := range tc.steps {
					t.Logf("step %d: %v", s.N, s.Flags)
				}
			}
			for _, s := range tc.steps {
				for _, f := range s.Flags {
					if f.Text == "" || flagTitle[f.Kind] == "" {
						t.Errorf("flag %+v has no text or no title", f)
					}
				}
			}
		})
	}
}

// TestProof: a read of the note with the phrase proves; a hit that shows
// the phrase proves only when the answer uses it; another note's text with
// the phrase does not.
func TestProof(t *testing.T) {
	q := Question{Note: "a.md", Phrase: "Die  ANTWORT"}
	readA := step(1, `read_note {"path": "a.md"}`, "path: a.md\n\n```markdown\nhier ist die Antwort.\n```\n")
	readB := step(1, `read_note {"path": "b.md"}`, "path: b.md\n\n```markdown\nhier ist die Antwort.\n```\n")
	hit := step(1, `search_notes {"query": "q"}`, "query: q\n\npath: a.md\nline 1: hier ist «die» «Antwort».\n")
	for _, tc := range []struct {
		name   string
		steps  []Step
		answer string
		want   int
	}{
		{"read of the note", []Step{readA}, "", 1},
		{"read of another note", []Step{readB}, "die Antwort", 0},
		{"hit, answer uses it", []Step{hit}, "Hier ist die Antwort.", 1},
		{"hit, answer does not", []Step{hit}, "Keine Ahnung.", 0},
	} {
		if got, _ := proof(q, tc.steps, tc.answer); got != tc.want {
			t.Errorf("%s: proof step %d, want %d", tc.name, got, tc.want)
		}
	}
	if got, _ := proof(Question{Note: "a.md"}, []Step{readA}, ""); got != 1 {
		t.Errorf("a note without a phrase: a read of it proves; got step %d", got)
	}
}
