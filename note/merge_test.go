package note

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestMerge(t *testing.T) {
	const base = "---\ntitle: Protokoll\nstatus: offen\ntags:\n  - team\n---\n# Protokoll\n\nVorwort.\n\n## Zeitleiste\n\n- 2026-11-01: Start\n\n## Ziele\n\n- schnell\n- billig\n\n## Offen\n\n- Budget\n"
	for _, tc := range []struct {
		name                     string
		base, ours, theirs, want string // base: the shared one when empty
		conflicts                int
	}{
		{
			name:   "appends under the same heading keep both, ours first",
			ours:   strings.Replace(base, "- 2026-11-01: Start\n", "- 2026-11-01: Start\n\n- 2026-11-02: Alice\n", 1),
			theirs: strings.Replace(base, "- 2026-11-01: Start\n", "- 2026-11-01: Start\n\n- 2026-11-03: Bob\n", 1),
			want:   strings.Replace(base, "- 2026-11-01: Start\n", "- 2026-11-01: Start\n\n- 2026-11-02: Alice\n\n- 2026-11-03: Bob\n", 1),
		},
		{
			name:   "appends at the end of the note",
			ours:   base + "\n- Alice\n",
			theirs: base + "\n- Bob\n",
			want:   base + "\n- Alice\n\n- Bob\n",
		},
		{
			name:   "different sections and properties",
			ours:   strings.Replace(strings.Replace(base, "status: offen", "status: aktiv", 1), "- schnell\n", "- sehr schnell\n", 1),
			theirs: strings.Replace(strings.Replace(base, "tags:\n  - team\n", "tags:\n  - team\nowner: Bob\n", 1), "- Budget\n", "- Budget 2027\n", 1),
			want:   strings.Replace(strings.Replace(strings.Replace(strings.Replace(base, "status: offen", "status: aktiv", 1), "- schnell\n", "- sehr schnell\n", 1), "tags:\n  - team\n", "tags:\n  - team\nowner: Bob\n", 1), "- Budget\n", "- Budget 2027\n", 1),
		},
		{
			name:   "list items added to one property on both sides",
			ours:   strings.Replace(base, "  - team\n", "  - team\n  - alpha\n", 1),
			theirs: strings.Replace(base, "  - team\n", "  - team\n  - beta\n", 1),
			want:   strings.Replace(base, "  - team\n", "  - team\n  - alpha\n  - beta\n", 1),
		},
		{
			name:      "the same line changed on both sides is a conflict",
			ours:      strings.Replace(base, "- billig\n", "- günstig\n", 1),
			theirs:    strings.Replace(base, "- billig\n", "- preiswert\n", 1),
			want:      strings.Replace(base, "- billig\n", "<<<<<<< ours\n- günstig\n=======\n- preiswert\n>>>>>>> theirs\n", 1),
			conflicts: 1,
		},
		{
			name:      "the same property changed on both sides is a conflict",
			ours:      strings.Replace(base, "status: offen", "status: aktiv", 1),
			theirs:    strings.Replace(base, "status: offen", "status: fertig", 1),
			want:      strings.Replace(base, "status: offen\n", "<<<<<<< ours\nstatus: aktiv\n=======\nstatus: fertig\n>>>>>>> theirs\n", 1),
			conflicts: 1,
		},
		{
			name:   "different lines of one section merge line by line",
			ours:   strings.Replace(base, "- schnell\n", "- schnell!\n", 1),
			theirs: strings.Replace(base, "- billig\n\n", "- billig\n- gut\n\n", 1),
			want:   strings.Replace(strings.Replace(base, "- schnell\n", "- schnell!\n", 1), "- billig\n\n", "- billig\n- gut\n\n", 1),
		},
		{
			name:   "a section added on one side, another removed on the other",
			ours:   strings.Replace(base, "## Offen\n", "## Neu\n\n- von Alice\n\n## Offen\n", 1),
			theirs: strings.Replace(base, "## Ziele\n\n- schnell\n- billig\n\n", "", 1),
			want:   strings.Replace(strings.Replace(base, "## Offen\n", "## Neu\n\n- von Alice\n\n## Offen\n", 1), "## Ziele\n\n- schnell\n- billig\n\n", "", 1),
		},
		{
			name:   "the same new heading on both sides: both entries under it",
			ours:   base + "\n## 2026-11-29\n\n- Alice\n",
			theirs: base + "\n## 2026-11-29\n\n- Bob\n",
			want:   base + "\n## 2026-11-29\n\n- Alice\n\n- Bob\n",
		},
		{
			name:      "removed on one side, changed on the other is a conflict",
			ours:      strings.Replace(base, "## Offen\n\n- Budget\n", "", 1),
			theirs:    strings.Replace(base, "- Budget\n", "- Budget 2027\n", 1),
			want:      strings.Replace(base, "## Offen\n\n- Budget\n", "<<<<<<< ours\n=======\n## Offen\n\n- Budget 2027\n>>>>>>> theirs\n", 1),
			conflicts: 1,
		},
		{
			// The base of a later merge: A's entry, which B merged after its
			// own; now A appended again. Nothing overlaps: all lines stay.
			name:   "lines added anywhere on both sides are all kept",
			base:   strings.Replace(base, "- 2026-11-01: Start\n", "- 2026-11-01: Start\n\n- Alice 1\n", 1),
			ours:   strings.Replace(base, "- 2026-11-01: Start\n", "- 2026-11-01: Start\n\n- Alice 1\n\n- Alice 2\n", 1),
			theirs: strings.Replace(base, "- 2026-11-01: Start\n", "- 2026-11-01: Start\n\n- Bob 1\n\n- Alice 1\n", 1),
			want:   strings.Replace(base, "- 2026-11-01: Start\n", "- 2026-11-01: Start\n\n- Bob 1\n\n- Alice 1\n\n- Alice 2\n", 1),
		},
		{
			name:   "CRLF notes keep their line endings",
			ours:   "# A\r\n\r\n- a\r\n\r\n- alice\r\n",
			theirs: "# A\r\n\r\n- a\r\n\r\n- bob\r\n",
			want:   "# A\r\n\r\n- a\r\n\r\n- alice\r\n\r\n- bob\r\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := base
			if tc.base != "" {
				b = tc.base
			}
			if strings.HasPrefix(tc.ours, "# A\r\n") {
				b = "# A\r\n\r\n- a\r\n"
			}
			if tc.ours == b || tc.theirs == b {
				t.Fatal("the case changes nothing on one side; fix the test")
			}
			got := Merge([]byte(b), []byte(tc.ours), []byte(tc.theirs), MergeOptions{})
			if string(got.Text) != tc.want || got.Conflicts != tc.conflicts {
				t.Errorf("got %d conflicts:\n%s\nwant %d:\n%s", got.Conflicts, got.Text, tc.conflicts, tc.want)
			}
			// The merged note parses: its conflicts are the ones counted.
			if n := len(Parse(got.Text).Conflicts); n != tc.conflicts {
				t.Errorf("the merged note parses with %d conflicts, want %d", n, tc.conflicts)
			}
		})
	}
}

func TestMerge_Labels(t *testing.T) {
	got := Merge([]byte("a\n"), []byte("b\n"), []byte("c\n"), MergeOptions{OursLabel: "HEAD", TheirsLabel: "origin/main"})
	want := "<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> origin/main\n"
	if string(got.Text) != want || got.Conflicts != 1 || fmt.Sprint(got.Sections) != "[the text before the first heading]" {
		t.Errorf("got %q %d %v, want %q", got.Text, got.Conflicts, got.Sections, want)
	}
}

// FuzzMerge holds the merge's promises on any note: the same change on
// both sides, or a change on one side only, is that change byte for byte;
// and lines appended on both sides (to any section, through Append as an
// agent would) all survive, without a conflict.
func FuzzMerge(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "x", 1, 2)
	}
	f.Add("---\ntags: [a]\n---\n# A\n\n- a\n\n## B\n\nb\n", "neu", 1, 1)
	f.Add("# A\n## A\n# A\n", "z", 0, 2)
	f.Fuzz(func(t *testing.T, base, word string, hOurs, hTheirs int) {
		b := []byte(base)
		word = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, word)
		if word == "" {
			word = "w"
		}
		a := []byte(base + "\nanders " + word + "\n")
		for _, c := range []struct {
			name                string
			base, ours, theirs  []byte
			want                []byte
			checkBytes, noError bool
		}{
			{"merge(base, base, base)", b, b, b, b, true, true},
			{"merge(base, a, a)", b, a, a, a, true, true},
			{"merge(base, base, a)", b, b, a, a, true, true},
			{"merge(base, a, base)", b, a, b, a, true, true},
		} {
			got := Merge(c.base, c.ours, c.theirs, MergeOptions{})
			if !bytes.Equal(got.Text, c.want) || got.Conflicts != 0 {
				t.Fatalf("%s: got %q (%d conflicts), want %q", c.name, got.Text, got.Conflicts, c.want)
			}
		}
		if HasConflicts(b) {
			return
		}
		d := Parse(b)
		heading := func(i int) string {
			if len(d.Headings) == 0 || i < 0 {
				return ""
			}
			return d.HeadingPaths()[i%len(d.Headings)]
		}
		lo, lt := "- ours "+word+" 1", "- theirs "+word+" 2"
		ours, _, err1 := AppendText(b, heading(hOurs), []byte(lo))
		theirs, _, err2 := AppendText(b, heading(hTheirs), []byte(lt))
		if err1 != nil || err2 != nil {
			return
		}
		got := Merge(b, ours, theirs, MergeOptions{})
		if got.Conflicts != 0 {
			t.Fatalf("appends %q to %q and %q to %q: %d conflicts:\n%s", lo, heading(hOurs), lt, heading(hTheirs), got.Conflicts, got.Text)
		}
		for _, l := range []string{lo, lt} {
			if n := strings.Count(string(got.Text), l+"\n") + strings.Count(string(got.Text), l+"\r\n"); n != 1 {
				t.Fatalf("line %q is %d times in the merge of\nbase %q\nours %q\ntheirs %q:\n%q", l, n, b, ours, theirs, got.Text)
			}
		}
		// Merging is symmetric in what survives.
		rev := Merge(b, theirs, ours, MergeOptions{})
		if rev.Conflicts != 0 || len(rev.Text) != len(got.Text) {
			t.Fatalf("merge(base, theirs, ours) differs in size or conflicts: %q vs %q", rev.Text, got.Text)
		}
	})
}
