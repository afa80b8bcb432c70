package note

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestTags_Edit(t *testing.T) {
	for _, tc := range []struct {
		name      string
		src       string
		add, rm   []string
		want      string
		wantStyle string
	}{
		{"block list grows", "---\ntags:\n  - a\n  - b\nx: 1\n---\n", []string{"c"}, nil,
			"---\ntags:\n  - a\n  - b\n  - c\nx: 1\n---\n", TagStyleBlock},
		{"compact block list grows compact", "---\ntags:\n- a\nx: 1\n---\n", []string{"c"}, nil,
			"---\ntags:\n- a\n- c\nx: 1\n---\n", TagStyleBlock},
		{"block list shrinks", "---\ntags:\n  - a\n  - b\n  - c\n---\nText\n", nil, []string{"B"},
			"---\ntags:\n  - a\n  - c\n---\nText\n", TagStyleBlock},
		{"inline list grows in place", "---\ntags: [ a,\"b c\" ]   # Kommentar\n---\n", []string{"d"}, nil,
			"---\ntags: [ a,\"b c\", d ]   # Kommentar\n---\n", TagStyleFlow},
		{"inline list loses the first item with its comma", "---\ntags: [a, b, c]\n---\n", nil, []string{"a"},
			"---\ntags: [b, c]\n---\n", TagStyleFlow},
		{"inline list loses a middle item", "---\ntags: [a, b, c]\n---\n", nil, []string{"b"},
			"---\ntags: [a, c]\n---\n", TagStyleFlow},
		{"empty inline list", "---\ntags: []\n---\n", []string{"a", "b"}, nil,
			"---\ntags: [a, b]\n---\n", TagStyleFlow},
		{"inline list over two lines is written anew", "---\ntags: [a,\n  b]\n---\n", []string{"c"}, nil,
			"---\ntags: [a, b, c]\n---\n", TagStyleFlow},
		{"single string becomes a comma string", "---\ntags: projekt\n---\n", []string{"kunde/x"}, nil,
			"---\ntags: projekt, kunde/x\n---\n", TagStyleSingle},
		{"space string stays a space string", "---\ntags: a b\n---\n", []string{"c"}, nil,
			"---\ntags: a b c\n---\n", TagStyleSpace},
		{"comma string shrinks", "---\ntags: a, b, c\n---\n", nil, []string{"b"},
			"---\ntags: a, c\n---\n", TagStyleComma},
		{"singular key", "---\ntag: a\n---\n", []string{"b"}, nil,
			"---\ntag: a, b\n---\n", TagStyleSingle},
		{"tags written as a YAML comment become a list", "---\ntags: #a #b\n---\n", []string{"c"}, nil,
			"---\ntags:\n  - a\n  - b\n  - c\n---\n", TagStyleNew},
		{"no tags property", "---\ntitle: X\n---\n", []string{"a"}, nil,
			"---\ntitle: X\ntags:\n  - a\n---\n", TagStyleNew},
		{"the last tag takes the property and the frontmatter", "---\ntags: [a]\n---\nText\n", nil, []string{"#a"},
			"Text\n", TagStyleFlow},
		{"the last tag takes only the property", "---\ntags:\n  - a\nx: 1\n---\n", nil, []string{"a"},
			"---\nx: 1\n---\n", TagStyleBlock},
		{"CRLF", "---\r\ntags:\r\n  - a\r\n---\r\n", []string{"b"}, nil,
			"---\r\ntags:\r\n  - a\r\n  - b\r\n---\r\n", TagStyleBlock},
		{"a tag already there is left alone", "---\ntags: [Projekt]\n---\n", []string{"projekt"}, nil,
			"---\ntags: [Projekt]\n---\n", TagStyleFlow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			add, _ := CleanTags(tc.add)
			rm, _ := CleanTags(tc.rm)
			if tc.add == nil {
				add = nil
			}
			if tc.rm == nil {
				rm = nil
			}
			got, te, err := EditTags([]byte(tc.src), add, rm)
			if err != nil {
				t.Fatalf("input %q: %v", tc.src, err)
			}
			if string(got) != tc.want || te.Style != tc.wantStyle {
				t.Errorf("input %q:\ngot  %q (%s)\nwant %q (%s)", tc.src, got, te.Style, tc.want, tc.wantStyle)
			}
		})
	}
}

// TestTags_RoundTrip: adding a tag and removing it again leaves the note
// byte-identical in every style (a note without tags included).
func TestTags_RoundTrip(t *testing.T) {
	for _, src := range []string{
		"", "# T\n", "---\ntitle: X\n---\n", "---\ntags:\n  - a\n---\n", "---\ntags: [a, b]\n---\n",
		"---\ntags: a, b\n---\n", "---\ntags: a\n---\n", "---\ntags: a b\n---\n", "\ufeff---\r\ntags: [a]\r\n---\r\n",
	} {
		mid, _, err := EditTags([]byte(src), []string{"neu"}, nil)
		if err != nil {
			t.Fatalf("add to %q: %v", src, err)
		}
		back, _, err := EditTags(mid, nil, []string{"neu"})
		if err != nil || string(back) != src {
			t.Errorf("add then remove on %q: got %q (%v), via %q", src, back, err, mid)
		}
	}
}

func TestTags_Errors(t *testing.T) {
	for _, tc := range []struct{ name, src, tag, want string }{
		{"spaces", "", "zwei wörter", "use e.g. zwei-wörter"},
		{"only digits", "", "1984", "only digits"},
		{"empty", "", "#", "a tag is empty"},
		{"tags is a mapping", "---\ntags: {a: 1}\n---\n", "x", "neither a list nor text"},
		{"invalid YAML", "---\ntags: [a\n---\n", "x", "not valid YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tags, err := CleanTags([]string{tc.tag})
			if err == nil {
				_, _, err = EditTags([]byte(tc.src), tags, nil)
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("tag %q on %q: got %v, want ErrInvalid containing %q", tc.tag, tc.src, err, tc.want)
			}
		})
	}
}

func TestTags_Inline(t *testing.T) {
	src := "---\ntags: [a]\n---\n# Titel #kopf\n\nText #eins und C# und `#code`\n\n```\n#nein\n```\n\n[[Note#Abschnitt]] #zwei/drei #1984\n"
	var got []string
	for _, it := range InlineTags([]byte(src)) {
		got = append(got, fmt.Sprintf("%s@%d", it.Tag, it.Line))
	}
	if g, want := strings.Join(got, " "), "kopf@4 eins@6 zwei/drei@12"; g != want {
		t.Errorf("got %s, want %s", g, want)
	}
	// The same tags as Parse finds in the text.
	d := Parse([]byte(src))
	if fmt.Sprint(d.Tags) != "[a kopf eins zwei/drei]" {
		t.Errorf("Parse disagrees: %v", d.Tags)
	}
}

// FuzzTagsRoundTrip: on any note whose frontmatter tags can be edited,
// adding a tag it does not have and removing it again gives back the exact
// bytes, and the tag was really in the property in between. (An empty
// "---/---" block goes with the last tag, as with properties.)
func FuzzTagsRoundTrip(f *testing.F) {
	for _, s := range append(append([]string{}, propertySeeds...), fuzzSeeds...) {
		f.Add([]byte(s), "neu")
	}
	f.Add([]byte("---\ntags: [a, b]\n---\n"), "projekt/website")
	f.Add([]byte("\ufeff---\r\ntags: a b\r\n---\r\n"), "Ä")
	f.Fuzz(func(t *testing.T, src []byte, tag string) {
		tags, err := CleanTags([]string{tag})
		if err != nil {
			return
		}
		if y, _, _, ok := SplitFrontmatter(src); ok && len(bytes.TrimSpace(y)) == 0 {
			return
		}
		mid, te, err := EditTags(src, tags, nil)
		if err != nil || len(te.Added) == 0 {
			return // frontmatter vaultd does not edit, or the tag is there already
		}
		if !slices.Contains(te.Tags, tags[0]) {
			t.Fatalf("add %q to %q: the property reads %q afterwards", tags[0], src, te.Tags)
		}
		back, _, err := EditTags(mid, nil, tags)
		if err != nil || !bytes.Equal(back, src) {
			t.Fatalf("add then remove %q on %q: got %q (%v), via %q", tags[0], src, back, err, mid)
		}
	})
}
