package note

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const bomS = "\xef\xbb\xbf"

func TestWriteText_Append(t *testing.T) {
	tests := []struct {
		name, src, heading, text, want string
	}{
		{"end of note", "# T\n\nab\n", "", "new", "# T\n\nab\n\nnew\n"},
		{"no trailing newline", "# T\nab", "", "x", "# T\nab\n\nx\n"},
		{"many trailing blank lines", "ab\n\n\n \n\t\n", "", "x", "ab\n\nx\n"},
		{"empty note", "", "", "x", "x\n"},
		{"bom only", bomS, "", "x", bomS + "x\n"},
		{"bom kept", bomS + "ab\n", "", "x", bomS + "ab\n\nx\n"},
		{"frontmatter only", "---\na: 1\n---\n", "", "x", "---\na: 1\n---\n\nx\n"},
		{"crlf note", "# T\r\n\r\nab\r\n", "", "x\ny", "# T\r\n\r\nab\r\n\r\nx\r\ny\r\n"},
		{"crlf note, crlf text", "ab\r\n", "", "x\r\ny\r\n", "ab\r\n\r\nx\r\ny\r\n"},
		{"lf note, crlf text", "ab\n", "", "x\r\ny", "ab\n\nx\ny\n"},
		{"text trimmed to one block", "ab\n", "", "\n\n  x\n\n\n", "ab\n\n  x\n"},
		{"text keeps inner blank lines", "ab\n", "", "x\n\ny", "ab\n\nx\n\ny\n"},
		{"section in the middle", "# T\n## A\na1\n\n## B\nb1\n", "A", "x", "# T\n## A\na1\n\nx\n\n## B\nb1\n"},
		{"section without blank before next", "## A\na1\n## B\n", "A", "x", "## A\na1\n\nx\n\n## B\n"},
		{"section with many blanks before next", "## A\na1\n\n\n\n## B\n", "## A", "x", "## A\na1\n\nx\n\n## B\n"},
		{"heading at EOF without newline", "## A", "A", "x", "## A\n\nx\n"},
		{"heading only, next follows", "## A\n## B\n", "A", "x", "## A\n\nx\n\n## B\n"},
		{"after sub-sections", "## A\na\n### A1\nsub\n## B\n", "A", "x", "## A\na\n### A1\nsub\n\nx\n\n## B\n"},
		{"into sub-section", "## A\na\n### A1\nsub\n## B\n", "A > A1", "x", "## A\na\n### A1\nsub\n\nx\n\n## B\n"},
		{"middle append ends the note with a newline", "## A\na\n## B\nb", "A", "x", "## A\na\n\nx\n\n## B\nb\n"},
		{"crlf section", "## A\r\na\r\n\r\n## B\r\nb\r\n", "A", "x", "## A\r\na\r\n\r\nx\r\n\r\n## B\r\nb\r\n"},
		{"setext sections", "A\n===\ntext\n\nB\n---\nb\n\nC\n===\n", "B", "x", "A\n===\ntext\n\nB\n---\nb\n\nx\n\nC\n===\n"},
		{"heading in code fence is not a heading", "## A\n```\n## B\n```\n## C\n", "A", "x", "## A\n```\n## B\n```\n\nx\n\n## C\n"},
		{"frontmatter untouched", "---\ntags: [a]\n\n---\n## A\na\n", "A", "x", "---\ntags: [a]\n\n---\n## A\na\n\nx\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := AppendText([]byte(tt.src), tt.heading, []byte(tt.text))
			if err != nil {
				t.Fatalf("AppendText(%q, %q, %q): %v", tt.src, tt.heading, tt.text, err)
			}
			if string(got) != tt.want {
				t.Errorf("AppendText(%q, %q, %q)\n got %q\nwant %q", tt.src, tt.heading, tt.text, got, tt.want)
			}
		})
	}
}

func TestWriteText_AppendErrors(t *testing.T) {
	tests := []struct {
		name, src, heading, text string
		kind                     error
		alts                     []string
	}{
		{"empty text", "ab\n", "", " \n\t\n", ErrInvalid, nil},
		{"missing heading", "## Ziele\n## Plan\n", "Zeile", "x", ErrNotFound, []string{"Ziele", "Plan"}},
		{"ambiguous heading", "# P\n## Ziele\n# Q\n## Ziele\n", "Ziele", "x", ErrAmbiguous, []string{"P > Ziele", "Q > Ziele"}},
		{"unclosed fence swallows next section", "## A\na\n## B\nb\n", "A", "```\ncode", ErrInvalid, nil},
		// Text appended to a section stays in it: a heading of its level or
		// higher, as the note shows it in place, would start another.
		{"heading of the section's level", "# N\n## Ziele\n- a\n## Plan\np\n", "Ziele", "## Neu\n- b", ErrInvalid, nil},
		{"higher heading", "# N\n## Ziele\n- a\n", "Ziele", "# Neu", ErrInvalid, nil},
		{"setext heading in the text", "# N\n## Ziele\n- a\n## Plan\n", "Ziele", "Neues Ziel\n---", ErrInvalid, nil},
		{"setext level 1", "# N\n## Ziele\n- a\n", "Ziele", "Neu\n===", ErrInvalid, nil},
		{"frontmatter-looking text over a heading", "# N\n## Ziele\n- a\n", "Ziele", "---\nx: 1\n---\n## Neu", ErrInvalid, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := AppendText([]byte(tt.src), tt.heading, []byte(tt.text))
			if !errors.Is(err, tt.kind) {
				t.Fatalf("AppendText(%q, %q, %q): got error %v, want kind %v", tt.src, tt.heading, tt.text, err, tt.kind)
			}
			e, _ := AsError(err)
			if tt.alts != nil && strings.Join(e.Alternatives, "|") != strings.Join(tt.alts, "|") {
				t.Errorf("alternatives: got %q, want %q", e.Alternatives, tt.alts)
			}
		})
	}
}

// What a section append may hold: deeper headings, a rule that is not an
// underline, and any heading at the end of the note (no section named).
func TestWriteText_AppendHeadingsAllowed(t *testing.T) {
	src := "# N\n## Ziele\n- a\n## Plan\np\n"
	for _, tc := range []struct{ heading, text, want string }{
		{"Ziele", "### Unterziel\n- b", "# N\n## Ziele\n- a\n\n### Unterziel\n- b\n\n## Plan\np\n"},
		{"Ziele", "- b\n\n---", "# N\n## Ziele\n- a\n\n- b\n\n---\n\n## Plan\np\n"},
		{"Ziele", "***", "# N\n## Ziele\n- a\n\n***\n\n## Plan\np\n"},
		{"", "## Neu\nn", "# N\n## Ziele\n- a\n## Plan\np\n\n## Neu\nn\n"},
		{"", "Neu\n---", "# N\n## Ziele\n- a\n## Plan\np\n\nNeu\n---\n"},
	} {
		got, _, err := AppendText([]byte(src), tc.heading, []byte(tc.text))
		if err != nil || string(got) != tc.want {
			t.Errorf("AppendText(%q, %q): %v\n%q\nwant\n%q", tc.heading, tc.text, err, got, tc.want)
		}
	}
	// The refusal says why a setext pair is a heading.
	_, _, err := AppendText([]byte(src), "Ziele", []byte("Neues Ziel\n---"))
	if err == nil || !strings.Contains(err.Error(), `the heading "Neues Ziel" of level 2 (a line of text directly above a "---"`) {
		t.Errorf("setext refusal: %v", err)
	}
}

func TestWriteText_ReplaceBody(t *testing.T) {
	tests := []struct {
		name, src, heading, body, want string
	}{
		{"blank line after heading kept", "## A\n\nold\n\n## B\nb\n", "A", "new", "## A\n\nnew\n\n## B\nb\n"},
		{"no blank after heading kept", "## A\nold\n## B\n", "A", "new", "## A\nnew\n\n## B\n"},
		{"sub-sections replaced", "## A\na\n### A1\ns\n## B\n", "A", "new", "## A\nnew\n\n## B\n"},
		{"deeper headings allowed", "## A\na\n## B\n", "A", "x\n### Sub\ny", "## A\nx\n### Sub\ny\n\n## B\n"},
		{"heading at EOF", "## A", "A", "new", "## A\n\nnew\n"},
		{"last section", "# T\n## A\nold", "A", "new\n", "# T\n## A\nnew\n"},
		{"empty body", "## A\nold\n## B\n", "A", "", "## A\n\n## B\n"},
		{"empty body at EOF", "## A\nold\n", "A", "\n", "## A\n"},
		{"own heading not doubled", "## A\n\nold\n## B\n", "A", "## A\n- new", "## A\n\n- new\n\n## B\n"},
		{"crlf", "## A\r\n\r\nold\r\n\r\n## B\r\n", "A", "x\ny", "## A\r\n\r\nx\r\ny\r\n\r\n## B\r\n"},
		{"frontmatter and bom untouched", bomS + "---\nt: 1\n---\n# T\n## A\nold\n", "A", "new", bomS + "---\nt: 1\n---\n# T\n## A\nnew\n"},
		{"setext next heading gets a blank line", "## A\nold\n\nB\n===\n", "A", "new", "## A\nnew\n\nB\n===\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := Parse([]byte(tt.src)).Section(tt.heading)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReplaceBody([]byte(tt.src), h, []byte(tt.body))
			if err != nil {
				t.Fatalf("ReplaceBody(%q, %q, %q): %v", tt.src, tt.heading, tt.body, err)
			}
			if string(got) != tt.want {
				t.Errorf("ReplaceBody(%q, %q, %q)\n got %q\nwant %q", tt.src, tt.heading, tt.body, got, tt.want)
			}
		})
	}
}

func TestWriteText_ReplaceBodyErrors(t *testing.T) {
	tests := []struct{ name, src, heading, body string }{
		{"sibling heading", "## A\na\n## B\n", "A", "x\n## C\ny"},
		{"higher heading", "## A\na\n## B\n", "A", "# Top"},
		{"unclosed fence", "## A\na\n## B\n", "A", "```go\nx"},
		{"empty heading", "## A\na\n## B\n", "A", "x\n\n##"},
		{"setext heading after a rule", "B\n---\na\n# C\n", "B", "---\nNeu\n---"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := Parse([]byte(tt.src)).Section(tt.heading)
			_, err := ReplaceBody([]byte(tt.src), h, []byte(tt.body))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ReplaceBody(%q, %q, %q): got %v, want ErrInvalid", tt.src, tt.heading, tt.body, err)
			}
			checkAgentText(t, err.Error())
		})
	}
}

// An edit changes only the bytes of its place: everything before the
// section's body and after its end is byte-for-byte what it was.
func TestWriteText_ReplaceBodyOtherBytesUnchanged(t *testing.T) {
	notes := []string{
		"---\ntitle: X\n---\n# X\n\nintro\n\n## A\n\na\n\n### A1\n\ns\n\n## B\n\nb\n",
		"\xef\xbb\xbf# X\r\n## A\r\na\r\n## B\r\nb",
		"Title\n=====\n\n## A\n```\n# not a heading\n```\n## B\n> ## quoted\n",
	}
	for _, src := range notes {
		d := Parse([]byte(src))
		for _, h := range d.Headings {
			got, err := ReplaceBody([]byte(src), h, []byte("new text"))
			if err != nil {
				t.Errorf("ReplaceBody(%q, %q): %v", src, h.Text, err)
				continue
			}
			if !bytes.HasPrefix(got, []byte(src[:h.BodyStart])) {
				t.Errorf("ReplaceBody(%q, %q) changed bytes before the body: %q", src, h.Text, got)
			}
			if !bytes.HasSuffix(got, []byte(src[h.End:])) {
				t.Errorf("ReplaceBody(%q, %q) changed bytes after the section: %q", src, h.Text, got)
			}
		}
	}
}
