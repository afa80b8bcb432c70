package trial

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNext(t *testing.T) {
	read := Call{Tool: "read_note", Args: map[string]any{"path": "a.md"}}
	search := Call{Tool: "search_notes", Args: map[string]any{"query": "x"}}
	for _, tc := range []struct {
		name     string
		history  []Turn
		want     string // the next call, "" when done
		wantDone bool
	}{
		{"first call searches the question", nil, `search_notes {"query":"Wo ist X?"}`, false},
		{"error: follows next:", []Turn{{read, "error: no note\nerror code: not_found\nnext: read_note {\"path\": \"b.md\"}"}}, `read_note {"path":"b.md"}`, false},
		{"error without next: stops", []Turn{{read, "error: denied\nerror code: permission_denied\ntry: vaultd serve"}}, "", true},
		{"a read: stops, it answers", []Turn{{read, "path: a.md\nread: read_note {\"path\": \"c.md\"}"}}, "", true},
		{"search: follows the first read:", []Turn{{search, "query: x\n\npath: a.md\nread: read_note {\"path\": \"a.md\", \"heading\": \"H\"}\n\npath: b.md\nread: read_note {\"path\": \"b.md\"}"}}, `read_note {"heading":"H","path":"a.md"}`, false},
		{"listing: follows next:", []Turn{{Call{Tool: "list_notes"}, "folder: x\nnext: list_notes {\"folder\": \"y\"}"}}, `list_notes {"folder":"y"}`, false},
		{"else reads the first path:", []Turn{{Call{Tool: "list_notes"}, "folder: x\n  path: x/a.md\n"}}, `read_note {"path":"x/a.md"}`, false},
		{"nothing to follow: stops", []Turn{{search, "query: x\nno notes match"}}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, done := Next("Wo ist X?", tc.history)
			got := ""
			if !done {
				got = next.String()
			}
			if got != tc.want || done != tc.wantDone {
				t.Errorf("got %q done %v, want %q done %v", got, done, tc.want, tc.wantDone)
			}
		})
	}
}

func TestAnswer(t *testing.T) {
	text := "path: a.md\ntitle: A\nsection: A > B\n\n```markdown\n## B\n\nDie Antwort.\n```\nnext section: read_note {}\n"
	read := Call{Tool: "read_note", Args: map[string]any{"path": "a.md"}}
	if got, want := Answer([]Turn{{read, text}}), "From a.md, section A > B:\n\n## B\n\nDie Antwort."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Answer([]Turn{{Call{Tool: "search_notes"}, "path: a.md"}}); got != "" {
		t.Errorf("an answer after a search: %q, want none", got)
	}
	if got := Answer([]Turn{{read, "error: no"}}); got != "" {
		t.Errorf("an answer after an error: %q, want none", got)
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
