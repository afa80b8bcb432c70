package note

import (
	"strings"
	"testing"
)

const conflicted = "---\ntags: [team]\n---\n# Plan\n\n## Ziele\n\n<<<<<<< HEAD\n- schnell\n=======\n- billig\n>>>>>>> origin/main\n\n## Notiz\n\nText\n=======\nkein Marker\n\n```\n<<<<<<< HEAD\nim Code\n=======\n>>>>>>> x\n```\n"

func TestFindConflicts(t *testing.T) {
	cs := FindConflicts([]byte(conflicted))
	if len(cs) != 1 {
		t.Fatalf("got %d conflicts, want 1 (the one in a code block does not count): %+v", len(cs), cs)
	}
	c := cs[0]
	if string(c.Ours) != "- schnell\n" || string(c.Theirs) != "- billig\n" || c.OursLabel != "HEAD" || c.TheirsLabel != "origin/main" || c.Line != 8 || c.EndLine != 12 || c.Base != nil {
		t.Errorf("got %+v", c)
	}
	for _, tc := range []struct {
		name, src string
		want      int
	}{
		{"diff3 style", "<<<<<<< ours\na\n||||||| base\nb\n=======\nc\n>>>>>>> theirs\n", 1},
		{"CRLF", "<<<<<<< HEAD\r\na\r\n=======\r\nb\r\n>>>>>>> x\r\n", 1},
		{"no label", "<<<<<<<\na\n=======\nb\n>>>>>>>\n", 1},
		{"two", "<<<<<<< a\n1\n=======\n2\n>>>>>>> b\ntext\n<<<<<<< a\n3\n=======\n4\n>>>>>>> b", 2},
		{"unclosed", "<<<<<<< HEAD\na\n=======\nb\n", 0},
		{"eight characters", "<<<<<<<< HEAD\na\n========\nb\n>>>>>>>> x\n", 0},
		{"not at the line start", " <<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n", 0},
		{"out of order", ">>>>>>> x\n=======\n<<<<<<< HEAD\n", 0},
		{"tilde fence", "~~~\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n~~~\n", 0},
	} {
		if got := len(FindConflicts([]byte(tc.src))); got != tc.want {
			t.Errorf("%s: got %d conflicts in %q, want %d", tc.name, got, tc.src, tc.want)
		}
	}
}

// A conflicted note parses into the sections its authors wrote: the
// "=======" marker is no setext underline, ">>>>>>>" no block quote.
func TestParse_ConflictSections(t *testing.T) {
	src := "# Plan\n\n## Ziele\n\n<<<<<<< HEAD\nschnell\n=======\nbillig\n>>>>>>> origin/main\n\n## Zeitleiste\n\n- Start\n"
	d := Parse([]byte(src))
	if got := strings.Join(d.HeadingPaths(), " | "); got != "Plan | Plan > Ziele | Plan > Zeitleiste" {
		t.Errorf("headings: %s", got)
	}
	if len(d.Conflicts) != 1 || d.Conflicts[0].Section != "Plan > Ziele" || d.Conflicts[0].Where() != "Plan > Ziele" {
		t.Errorf("conflicts: %+v", d.Conflicts)
	}
	fm := Parse([]byte("---\n<<<<<<< HEAD\nstatus: a\n=======\nstatus: b\n>>>>>>> x\n---\n# T\n"))
	if len(fm.Conflicts) != 1 || fm.Conflicts[0].Where() != "the frontmatter" {
		t.Errorf("frontmatter conflict: %+v", fm.Conflicts)
	}
}
