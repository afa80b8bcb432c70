package note

import (
	"bytes"
	"errors"
	"fmt"

	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestProperties_Edit(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		edit PropertyEdit
		want string
	}{
		{"add to a note without frontmatter", "# Titel\n\nText\n",
			PropertyEdit{Set: map[string]any{"status": "aktiv"}},
			"---\nstatus: aktiv\n---\n# Titel\n\nText\n"},
		{"add keeps everything else", "---\n# Kommentar oben\ntitle: \"X: Y\"\ncreated: 2026-10-03   # angelegt\nn: 0x10\n---\nText\n",
			PropertyEdit{Set: map[string]any{"status": "aktiv"}},
			"---\n# Kommentar oben\ntitle: \"X: Y\"\ncreated: 2026-10-03   # angelegt\nn: 0x10\nstatus: aktiv\n---\nText\n"},
		{"change in place", "---\na: 1\nstatus: 'geplant' # Kommentar\nb: 2\n---\n",
			PropertyEdit{Set: map[string]any{"status": "aktiv"}},
			"---\na: 1\nstatus: aktiv\nb: 2\n---\n"},
		{"change a block list keeps its indentation", "---\nliste:\n- a\n- b\nx: 1\n---\n",
			PropertyEdit{Set: map[string]any{"liste": []any{"c"}}},
			"---\nliste:\n- c\nx: 1\n---\n"},
		{"new lists follow the note's list style", "---\naliases:\n    - A\n---\n",
			PropertyEdit{Set: map[string]any{"orte": []any{"Kiel", "Hamburg"}}},
			"---\naliases:\n    - A\norte:\n    - Kiel\n    - Hamburg\n---\n"},
		{"remove keeps the comment above the next key", "---\na: 1\nb: |\n  Zeile\n\n  Zeile 2\n# über c\nc: 3\n---\n",
			PropertyEdit{Remove: []string{"b"}},
			"---\na: 1\n# über c\nc: 3\n---\n"},
		{"remove the last property removes the fences", "---\nstatus: aktiv\n---\nText\n",
			PropertyEdit{Remove: []string{"status"}},
			"Text\n"},
		{"remove the last property keeps comments", "---\n# nur ein Kommentar\nstatus: aktiv\n---\nText\n",
			PropertyEdit{Remove: []string{"status"}},
			"---\n# nur ein Kommentar\n---\nText\n"},
		{"null removes", "---\na: 1\nb: 2\n---\n",
			PropertyEdit{Set: map[string]any{"a": nil}},
			"---\nb: 2\n---\n"},
		{"types are written as Obsidian writes them", "",
			PropertyEdit{Set: map[string]any{"text": "hallo welt", "quoted": "ja: nein", "num": 2.5, "int": 3.0, "yes": true,
				"date": "2026-12-01", "datetime": "2026-12-01T14:30", "notdate": "2026-13-45", "numtext": "42", "link": "[[Note]]",
				"empty": "", "list": []any{"a", "#b", 1.0}, "nolist": []any{}, "multi": "eins\nzwei", "hash": "#tag", "spaces": " x "}},
			"---\ndate: 2026-12-01\ndatetime: 2026-12-01T14:30\nempty:\nhash: \"#tag\"\nint: 3\nlink: \"[[Note]]\"\nlist:\n  - a\n  - \"#b\"\n  - 1\nmulti: \"eins\\nzwei\"\nnolist: []\nnotdate: 2026-13-45\nnum: 2.5\nnumtext: \"42\"\nquoted: \"ja: nein\"\nspaces: \" x \"\ntext: hallo welt\nyes: true\n---\n"},
		{"CRLF stays CRLF", "---\r\na: 1\r\n---\r\nText\r\n",
			PropertyEdit{Set: map[string]any{"b": []any{"x"}}},
			"---\r\na: 1\r\nb:\r\n  - x\r\n---\r\nText\r\n"},
		{"BOM stays in front", "\ufeff# T\n",
			PropertyEdit{Set: map[string]any{"a": "b"}},
			"\ufeff---\na: b\n---\n# T\n"},
		{"key case is matched when unique", "---\nStatus: alt\n---\n",
			PropertyEdit{Set: map[string]any{"status": "neu"}},
			"---\nStatus: neu\n---\n"},
		{"a key that needs quotes", "",
			PropertyEdit{Set: map[string]any{"a: b": "x", "true": "y"}},
			"---\n\"a: b\": x\n\"true\": y\n---\n"},
		{"same value is no change", "---\nstatus: \"aktiv\"\nn: 3\nd: 2026-01-02\nl: [a, b]\n---\n",
			PropertyEdit{Set: map[string]any{"status": "aktiv", "n": 3.0, "d": "2026-01-02", "l": []any{"a", "b"}}},
			"---\nstatus: \"aktiv\"\nn: 3\nd: 2026-01-02\nl: [a, b]\n---\n"},
		{"empty frontmatter", "---\n---\nText\n",
			PropertyEdit{Set: map[string]any{"a": "b"}},
			"---\na: b\n---\nText\n"},
		{"a note that starts with an unclosed fence", "---\nkein Frontmatter\n",
			PropertyEdit{Set: map[string]any{"a": "b"}},
			"---\na: b\n---\n---\nkein Frontmatter\n"},
		{"indented mapping", "---\n  a: 1\n  b: 2\n---\n",
			PropertyEdit{Set: map[string]any{"c": "3"}},
			"---\n  a: 1\n  b: 2\n  c: \"3\"\n---\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := EditProperties([]byte(tc.src), tc.edit)
			if err != nil {
				t.Fatalf("input %q: %v", tc.src, err)
			}
			if string(got) != tc.want {
				t.Errorf("input %q:\ngot  %q\nwant %q", tc.src, got, tc.want)
			}
		})
	}
}

func TestProperties_EditErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		edit      PropertyEdit
		want      string // in the message
	}{
		{"invalid YAML names the line", "---\na: 1\nb: [x\n---\n", PropertyEdit{Set: map[string]any{"c": "d"}}, "line 3"},
		{"duplicate keys", "---\na: 1\na: 2\n---\n", PropertyEdit{Set: map[string]any{"c": "d"}}, "already defined"},
		{"a list, not properties", "---\n- a\n- b\n---\n", PropertyEdit{Set: map[string]any{"c": "d"}}, "lines 2–3) is not a list of properties"},
		{"a flow mapping", "---\n{a: 1, b: 2}\n---\n", PropertyEdit{Set: map[string]any{"c": "d"}}, "one {…} mapping"},
		{"an object value", "", PropertyEdit{Set: map[string]any{"c": map[string]any{"x": 1.0}}}, "the value is an object"},
		{"a nested list", "", PropertyEdit{Set: map[string]any{"c": []any{[]any{"x"}}}}, "a list item is a nested list"},
		{"an empty key", "", PropertyEdit{Set: map[string]any{" ": "x"}}, "a property name is empty"},
		{"a key with a line break", "", PropertyEdit{Set: map[string]any{"a\nb": "x"}}, "line break"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := EditProperties([]byte(tc.src), tc.edit)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("input %q: got %v, want ErrInvalid containing %q", tc.src, err, tc.want)
			}
		})
	}
}

func TestProperties_Read(t *testing.T) {
	d := Parse([]byte("---\ntitle: X\ntags: [a, b]\ncreated: 2026-10-03\nat: 2026-10-03T10:00\nn: 3\nok: true\nm: {x: 1}\ne:\nalias: &x hallo\nref: *x\n---\n"))
	var got []string
	for _, p := range d.Properties() {
		got = append(got, fmt.Sprintf("%s(%s,line %d)=%s", p.Key, p.Type, p.Line, p.Text()))
	}
	want := "title(text,line 2)=X tags(list,line 3)=[a, b] created(date,line 4)=2026-10-03 at(datetime,line 5)=2026-10-03T10:00 " +
		"n(number,line 6)=3 ok(checkbox,line 7)=true m(object,line 8)={x: 1} e(empty,line 9)= alias(text,line 10)=hallo ref(text,line 11)=hallo"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
	flat := d.PropertyValues()
	if fmt.Sprint(flat["tags"]) != "[a b]" || fmt.Sprint(flat["created"]) != "[2026-10-03]" || len(flat["e"]) != 0 {
		t.Errorf("PropertyValues: got %v", flat)
	}
	if Parse([]byte("---\na: [\n---\n")).Properties() != nil {
		t.Error("invalid YAML has properties")
	}
}

// propertySeeds are notes whose frontmatter layouts the round trip must
// survive.
var propertySeeds = []string{
	"",
	"# Nur Text\n",
	"---\ntitle: X\n---\n",
	"---\ntags: [a, b]\naliases:\n  - A\n# Kommentar\ncreated: 2026-10-03\n---\n# Titel\n",
	"---\r\na: 1\r\nb:\r\n- x\r\n---\r\nText\r\n",
	"\ufeff---\na: 1\n---\n",
	"---\na: |\n  Zeile\n\n  Zeile\n\n# Schluss-Kommentar\n---\nText",
	"---\na: 1\n\n\n---\n",
	"---\nkein: frontmatter\n",
	"---\n  a: 1\n---\n",
	"---\na: 1 # c\n---\n---\n",
	"---\na: \"x\\\n  y\"\n---\n",
	"---\na: 1\rb: 2\n---\n",
}

// checkRoundTrip sets a property that is not there and removes it again:
// the note must come back byte-identical. A note whose frontmatter holds
// only blank lines loses it (documented), so it is skipped.
func checkPropertyRoundTrip(t testing.TB, src []byte, key string, val any) {
	if y, _, _, ok := SplitFrontmatter(src); ok && len(bytes.TrimSpace(y)) == 0 {
		return
	}
	fm, err := parseFM(src)
	if err != nil || fm.find(key) >= 0 {
		return
	}
	set, _, err := EditProperties(src, PropertyEdit{Set: map[string]any{key: val}})
	if err != nil {
		return // refused: an error is allowed, a wrong edit is not
	}
	props := Parse(set).PropertyValues()
	if _, ok := props[key]; !ok {
		t.Fatalf("set %q=%v on %q: the key is not there after: %q", key, val, src, set)
	}
	back, _, err := EditProperties(set, PropertyEdit{Remove: []string{key}})
	if err != nil {
		t.Fatalf("remove %q after set on %q (%q): %v", key, src, set, err)
	}
	if !bytes.Equal(back, src) {
		t.Fatalf("set then remove %q on %q:\ngot  %q\nwant %q\n(after set: %q)", key, src, back, src, set)
	}
	// The body is untouched by the set too.
	if _, _, b1, ok := SplitFrontmatter(src); ok {
		_, _, b2, _ := SplitFrontmatter(set)
		if !bytes.Equal(src[b1:], set[b2:]) {
			t.Fatalf("set %q on %q changed the body: %q", key, src, set)
		}
	}
}

func TestProperties_RoundTripSeeds(t *testing.T) {
	for _, src := range propertySeeds {
		for _, val := range []any{"aktiv", "2026-12-01", []any{"a", "b"}, true, 3.0, "", "a: b #c"} {
			checkPropertyRoundTrip(t, []byte(src), "neu", val)
		}
	}
}

// FuzzPropertiesRoundTrip: setting a key that is not there and removing it
// again leaves every note byte-identical, whatever its frontmatter, and a
// set changes nothing but that key (EditProperties verifies that itself;
// here its output is parsed once more).
func FuzzPropertiesRoundTrip(f *testing.F) {
	for _, s := range propertySeeds {
		f.Add([]byte(s), "neu", "aktiv")
	}
	f.Add([]byte("---\ntags:\n  - a\n---\n"), "status", "2026-11-29")
	f.Add([]byte("---\nx: [a,\n  b]\n---\n"), "y z", "[[Link]]")
	f.Fuzz(func(t *testing.T, src []byte, key, val string) {
		if strings.TrimSpace(key) == "" || checkKey(strings.TrimSpace(key)) != nil {
			return
		}
		checkPropertyRoundTrip(t, src, strings.TrimSpace(key), val)
		checkPropertyRoundTrip(t, src, strings.TrimSpace(key), []any{val + "x"})
		// Whatever is written must be YAML that reads back as written.
		if set, _, err := EditProperties(src, PropertyEdit{Set: map[string]any{strings.TrimSpace(key): val}}); err == nil {
			y, _, _, ok := SplitFrontmatter(set)
			var m map[string]any
			if !ok || yaml.Unmarshal(y, &m) != nil {
				t.Fatalf("set on %q wrote invalid frontmatter: %q", src, set)
			}
		}
	})
}
