package base

import (
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// The conformance tests follow the levels of the mdbase specification's
// suite that apply to Obsidian Bases (its levels 1, 2 and 6 are about
// mdbase's own type files and writes): level 3, expressions and queries
// (literals, operators, null handling, string, number, list and date
// functions, formulas, sort, limit); level 4, links (wikilinks in
// properties, link(), file.links, hasLink, asFile); level 5, backlinks.
// Each case is an expression evaluated on one note, or a base run over a
// small vault, with the rows or value Obsidian's documentation gives.

var testNow = time.Date(2026, 12, 5, 10, 30, 0, 0, time.UTC)

// vaultOf builds files from "path: frontmatter YAML" pairs; links are
// given as "path -> target" lines in links.
func vaultOf(t *testing.T, notes map[string]string, links ...string) ([]*File, *Env) {
	t.Helper()
	byPath := map[string]*File{}
	var files []*File
	paths := []string{}
	for p := range notes {
		paths = append(paths, p)
	}
	sortStrings(paths)
	resolve := func(from, target string) string {
		target = strings.TrimSuffix(target, ".md")
		for _, p := range paths {
			if strings.TrimSuffix(p, ".md") == target || strings.HasSuffix(strings.TrimSuffix(p, ".md"), "/"+target) {
				return p
			}
		}
		return ""
	}
	for _, p := range paths {
		var fm map[string]any
		if err := yaml.Unmarshal([]byte(notes[p]), &fm); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f := &File{Path: p, Size: int64(len(notes[p])), MTime: testNow.Add(-48 * time.Hour), CTime: testNow.Add(-240 * time.Hour)}
		if fm != nil {
			f.Props = map[string]any{}
			for k, v := range fm {
				f.Props[k] = FromYAML(v, time.UTC, func(tg string) string { return resolve(p, tg) })
			}
			for _, tg := range stringsOf(fm["tags"]) {
				f.Tags = append(f.Tags, tg)
			}
		}
		byPath[p] = f
		files = append(files, f)
	}
	for _, l := range links {
		from, to, _ := strings.Cut(l, " -> ")
		f := byPath[from]
		lk := Link{Target: to, Path: resolve(from, to)}
		f.Links = append(f.Links, lk)
		if lk.Path != "" {
			byPath[lk.Path].Backlinks = append(byPath[lk.Path].Backlinks, from)
		}
	}
	env := &Env{Now: testNow, Loc: time.UTC, Resolve: resolve, Lookup: func(p string) *File { return byPath[p] }}
	return files, env
}

func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// rows runs a base (YAML) over files and returns the paths of view's rows.
func rows(t *testing.T, files []*File, env *Env, src, view string) []string {
	t.Helper()
	b, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse:\n%s\nerror: %v", src, err)
	}
	v := b.Views[0]
	if view != "" {
		v = b.View(view)
	}
	res := b.Run(v, files, env)
	if res.ErrorCount > 0 {
		t.Fatalf("base:\n%s\nrow errors: %+v", src, res.Errors)
	}
	var out []string
	for _, r := range res.Rows {
		out = append(out, r.File.Path)
	}
	return out
}

var itemsVault = map[string]string{
	"items/a.md":    "title: Alpha\ncount: 10\nactive: true\ntags: [one, two]\nprice: 2.5\nstatus: open\ndue: 2026-12-01\nauthor: \"[[people/Ann]]\"",
	"items/b.md":    "title: Beta\ncount: 0\nactive: false\ntags: []\nprice: 4\nstatus: done\ndue: 2026-12-20",
	"items/c.md":    "title: \"  Trim me  \"\ncount: 3\nactive: false\ntags: [two, book/fiction]\nstatus: open\nlabel: null",
	"people/Ann.md": "role: author",
	"notes/x.md":    "",
}

func TestConformance_Level3_Expressions(t *testing.T) {
	files, env := vaultOf(t, itemsVault, "items/a.md -> people/Ann", "notes/x.md -> Alpha", "items/c.md -> a")
	a := files[0]
	cases := []struct{ expr, want string }{
		// literals and comparison
		{`title == "Alpha"`, "true"},
		{`title == 'Alpha'`, "true"},
		{`count == 10`, "true"},
		{`count > -1`, "true"},
		{`active == true`, "true"},
		{`title != null`, "true"},
		{`missing == null`, "true"},
		{`count >= 10 && count <= 10`, "true"},
		{`"abc" < "abd"`, "true"},
		// arithmetic, precedence, parentheses
		{`count + 2 * 3`, "16"},
		{`(count + 2) * 3`, "36"},
		{`count % 3`, "1"},
		{`count / 4`, "2.5"},
		{`-count`, "-10"},
		{`"n=" + count`, "n=10"},
		{`price * 2`, "5"},
		// boolean operators
		{`!active`, "false"},
		{`active && count > 5`, "true"},
		{`!active || count > 50`, "false"},
		// null handling
		{`missing.lower()`, ""},
		{`missing > 3`, "false"},
		{`missing.isEmpty()`, "true"},
		{`(missing ?? "none")`, "none"},
		// strings
		{`title.contains("lph")`, "true"},
		{`title.containsAll("A", "ha")`, "true"},
		{`title.containsAny("x", "p")`, "true"},
		{`title.startsWith("Al") && title.endsWith("ha")`, "true"},
		{`title.lower()`, "alpha"},
		{`title.upper()`, "ALPHA"},
		{`title.length`, "5"},
		{`"hello world".title()`, "Hello World"},
		{`"  hi  ".trim()`, "hi"},
		{`"hello".slice(1, 4)`, "ell"},
		{`"hello".reverse()`, "olleh"},
		{`"123".repeat(2)`, "123123"},
		{`"a,b,c,d".split(",", 3)`, "a, b, c"},
		{`"a:b:c:d".replace(/:/, "-")`, "a-b:c:d"},
		{`"a:b:c:d".replace(/:/g, "-")`, "a-b-c-d"},
		{`"John Smith".replace(/(\w+) (\w+)/, "$2, $1")`, "Smith, John"},
		{`"a.b".replace(".", "-")`, "a-b"},
		{`"".isEmpty()`, "true"},
		{`/abc/.matches("abcde")`, "true"},
		{`escapeHTML("<b>")`, "&lt;b&gt;"},
		// numbers
		{`(-5).abs()`, "5"},
		{`(2.1).ceil()`, "3"},
		{`(2.9).floor()`, "2"},
		{`(2.5).round()`, "3"},
		{`(2.3333).round(2)`, "2.33"},
		{`(3.14159).toFixed(2)`, "3.14"},
		{`number("3.4") + 1`, "4.4"},
		{`number(true)`, "1"},
		{`max(1, 5, 3)`, "5"},
		{`min(4, 2, 8)`, "2"},
		// lists
		{`tags.contains("one")`, "true"},
		{`tags.length`, "2"},
		{`[1,2,3].containsAll(2,3)`, "true"},
		{`[1,2,3].containsAny(3,4)`, "true"},
		{`[1,2,3,4].filter(value > 2)`, "3, 4"},
		{`[1,2,3,4].map(value + 1)`, "2, 3, 4, 5"},
		{`[1,2,3].reduce(acc + value, 0)`, "6"},
		{`[1,[2,3]].flat()`, "1, 2, 3"},
		{`[1,2,3].join("-")`, "1-2-3"},
		{`[1,2,3].reverse()`, "3, 2, 1"},
		{`[1,2,3,4].slice(1,3)`, "2, 3"},
		{`[3,1,2].sort()`, `1, 2, 3`},
		{`["c","a","b"].sort()`, "a, b, c"},
		{`[1,2,2,3].unique()`, "1, 2, 3"},
		{`[1,2,3].isEmpty()`, "false"},
		{`tags[0]`, "one"},
		{`list("value")`, "value"},
		{`list(tags).length`, "2"},
		{`[2,4].mean()`, "3"},
		{`values`, ""},
		// objects
		{`{"a": 1, "b": 2}.keys()`, "a, b"},
		{`{"a": 1, "b": 2}.values()`, "1, 2"},
		{`{}.isEmpty()`, "true"},
		{`note["title"]`, "Alpha"},
		{`note.count`, "10"},
		{`file.properties.status`, "open"},
		// any
		{`1.isTruthy()`, "true"},
		{`"example".isType("string")`, "true"},
		{`true.isType("boolean")`, "true"},
		{`123.toString()`, "123"},
		{`if(count > 5, "big", "small")`, "big"},
		{`if(missing, "yes")`, ""},
		// dates
		{`date("2024-12-01") + "1M" + "4h" + "3m"`, "2025-01-01 04:03"},
		{`date("2025-01-31") + "1 month"`, "2025-02-28"},
		{`due + "1 week"`, "2026-12-08"},
		{`due - "2d"`, "2026-11-29"},
		{`(now() + "1d") - now()`, "86400000"},
		{`now() + (duration("1d") * 2)`, "2026-12-07 10:30"},
		{`today()`, "2026-12-05"},
		{`now().date().format("YYYY-MM-DD HH:mm:ss")`, "2026-12-05 00:00:00"},
		{`now().time()`, "10:30:00"},
		{`due.format("dddd, MMMM Do YYYY")`, "Tuesday, December 1st 2026"},
		{`due.format("DD.MM.YY [KW] W")`, "01.12.26 KW 49"},
		{`due.year + due.month + due.day`, "2039"},
		{`due < today()`, "true"},
		{`due < "2026-12-02"`, "true"},
		{`due == date("2026-12-01")`, "true"},
		{`file.mtime > now() - "1 week"`, "true"},
		{`file.mtime.relative()`, "2 days ago"},
		{`file.ctime < file.mtime`, "true"},
		{`date("2026-12-01 12:00:00").hour`, "12"},
		{`due.isEmpty()`, "false"},
		{`due.contains("2026-12")`, "true"},
		{`"a\u00a0b".contains("\xa0")`, "true"},
		// file
		{`file.name`, "a.md"},
		{`file.basename`, "a"},
		{`file.path`, "items/a.md"},
		{`file.folder`, "items"},
		{`file.ext`, "md"},
		{`file.tags`, "#one, #two"},
		{`file.hasTag("one", "zzz")`, "true"},
		{`file.hasProperty("price")`, "true"},
		{`file.hasProperty("nope")`, "false"},
		{`file.inFolder("items")`, "true"},
		{`file.inFolder("item")`, "false"},
		{`file.asLink()`, "[[items/a]]"},
		{`file.size > 0`, "true"},
		// formulas
		{`formula.double`, "20"},
		{`formula.quad`, "40"},
	}
	for _, c := range cases {
		e, err := ParseExpr(c.expr)
		if err != nil {
			t.Errorf("ParseExpr(%s): %v", c.expr, err)
			continue
		}
		s := &scope{env: env, file: a, formulas: map[string]*Expr{"double": mustExpr(t, "count * 2"), "quad": mustExpr(t, "formula.double * 2")}}
		v, err := s.evalExpr(e)
		if err != nil {
			t.Errorf("%s: error %v", c.expr, err)
			continue
		}
		if got := Text(v); got != c.want {
			t.Errorf("%s = %q, want %q", c.expr, got, c.want)
		}
	}
}

func mustExpr(t *testing.T, s string) *Expr {
	t.Helper()
	e, err := ParseExpr(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestConformance_Level3_Queries(t *testing.T) {
	files, env := vaultOf(t, itemsVault)
	cases := []struct {
		name, base string
		want       string
	}{
		{"and of statements", "filters:\n  and:\n    - 'status == \"open\"'\n    - count > 5\n", "items/a.md"},
		{"or", "filters:\n  or:\n    - count > 5\n    - status == \"done\"\n", "items/a.md items/b.md"},
		{"not is none of", "filters:\n  not:\n    - status == \"open\"\n    - file.inFolder(\"people\")\n", "items/b.md notes/x.md"},
		{"nested groups", "filters:\n  and:\n    - file.inFolder(\"items\")\n    - or:\n        - file.hasTag(\"book\")\n        - count == 0\n", "items/b.md items/c.md"},
		{"one statement", "filters: 'file.hasTag(\"two\")'\n", "items/a.md items/c.md"},
		{"nested tag", "filters: 'file.hasTag(\"book\")'\n", "items/c.md"},
		{"view filter ands with the base's", "filters: file.inFolder(\"items\")\nviews:\n  - type: table\n    name: Open\n    filters: 'status != \"done\"'\n", "items/a.md items/c.md"},
		{"sort desc", "filters: file.inFolder(\"items\")\nviews:\n  - type: table\n    name: T\n    sort:\n      - property: count\n        direction: DESC\n", "items/a.md items/c.md items/b.md"},
		{"sort by formula, nulls last", "formulas:\n  p: price\nviews:\n  - type: table\n    name: T\n    filters: file.inFolder(\"items\")\n    sort:\n      - property: formula.p\n        direction: ASC\n", "items/a.md items/b.md items/c.md"},
		{"limit", "filters: file.inFolder(\"items\")\nviews:\n  - type: table\n    name: T\n    limit: 2\n    sort:\n      - property: file.name\n        direction: DESC\n", "items/c.md items/b.md"},
		{"formula in filter", "formulas:\n  ppu: (price / count).toFixed(2)\nfilters: 'formula.ppu == \"0.25\"'\n", "items/a.md"},
		{"date filter", "filters: 'due < today()'\n", "items/a.md"},
		{"file.ext", "filters: 'file.ext == \"md\" && file.folder == \"people\"'\n", "people/Ann.md"},
		{"no filter: every file", "views:\n  - type: list\n    name: L\n", "items/a.md items/b.md items/c.md notes/x.md people/Ann.md"},
	}
	for _, c := range cases {
		got := strings.Join(rows(t, files, env, c.base, ""), " ")
		if got != c.want {
			t.Errorf("%s:\n%s\ngot rows  %s\nwant rows %s", c.name, c.base, got, c.want)
		}
	}
}

func TestConformance_Level3_GroupsAndSummaries(t *testing.T) {
	files, env := vaultOf(t, itemsVault)
	b, err := Parse([]byte(`filters: file.inFolder("items")
formulas:
  double: count * 2
properties:
  count:
    displayName: Anzahl
summaries:
  customAverage: 'values.mean().round(3)'
views:
  - type: table
    name: By status
    groupBy:
      property: status
      direction: DESC
    order: [file.name, count, formula.double, due, active]
    sort:
      - property: count
        direction: ASC
    summaries:
      count: Sum
      formula.double: customAverage
      due: Earliest
      active: Checked
      file.name: Unique
`))
	if err != nil {
		t.Fatal(err)
	}
	res := b.Run(b.Views[0], files, env)
	if res.ErrorCount > 0 {
		t.Fatalf("errors: %+v", res.Errors)
	}
	var groups []string
	for _, g := range res.Groups {
		var ps []string
		for _, r := range g.Rows {
			ps = append(ps, r.File.Path)
		}
		groups = append(groups, Text(g.Value)+": "+strings.Join(ps, " "))
	}
	if got, want := strings.Join(groups, " | "), "open: items/c.md items/a.md | done: items/b.md"; got != want {
		t.Errorf("groups %q, want %q", got, want)
	}
	if res.Columns[1].Name != "Anzahl" {
		t.Errorf("display name %q, want Anzahl", res.Columns[1].Name)
	}
	var sums []string
	for _, s := range res.Summaries {
		sums = append(sums, s.Column+" "+s.Summary+"="+Text(s.Value))
	}
	want := "count Sum=13 formula.double customAverage=8.667 due Earliest=2026-12-01 active Checked=1 file.name Unique=3"
	if got := strings.Join(sums, " "); got != want {
		t.Errorf("summaries\n got %s\nwant %s", got, want)
	}
}

func TestConformance_Level4_Links(t *testing.T) {
	files, env := vaultOf(t, itemsVault, "items/a.md -> people/Ann", "notes/x.md -> Alpha", "items/b.md -> a")
	cases := []struct{ base, want string }{
		{`filters: 'file.hasLink("people/Ann")'`, "items/a.md"},
		{`filters: 'file.hasLink(link("Ann"))'`, "items/a.md"},
		{`filters: 'author == link("people/Ann")'`, "items/a.md"},
		{`filters: 'author.asFile().properties.role == "author"'`, "items/a.md"},
		{`filters: 'file.links.contains(link("a"))'`, "items/b.md"},
		{`filters: 'file.hasLink(file("items/a.md"))'`, "items/b.md"},
		{`filters: 'author == "[[people/Ann]]"'`, "items/a.md"},
		{`filters: 'file.links.length > 0 && !file.hasLink("Alpha")'`, "items/a.md items/b.md"},
	}
	for _, c := range cases {
		if got := strings.Join(rows(t, files, env, c.base, ""), " "); got != c.want {
			t.Errorf("%s: got %q, want %q", c.base, got, c.want)
		}
	}
}

func TestConformance_Level5_BacklinksAndThis(t *testing.T) {
	files, env := vaultOf(t, itemsVault, "items/a.md -> people/Ann", "items/b.md -> people/Ann", "items/c.md -> a")
	env.This = env.Lookup("people/Ann.md")
	cases := []struct{ base, want string }{
		{`filters: 'file.backlinks.length > 0'`, "items/a.md people/Ann.md"},
		{`filters: 'file.hasLink(this.file)'`, "items/a.md items/b.md"},
		{`filters: 'file.hasLink(this)'`, "items/a.md items/b.md"},
		{`filters: 'this.file.backlinks.contains(file.asLink())'`, "items/a.md items/b.md"},
		{`filters: 'author == this'`, "items/a.md"},
	}
	for _, c := range cases {
		if got := strings.Join(rows(t, files, env, c.base, ""), " "); got != c.want {
			t.Errorf("%s: got %q, want %q", c.base, got, c.want)
		}
	}
}

// TestConformance_Errors: a parse error or unknown function names the
// expression and the column, and what there is instead.
func TestConformance_Errors(t *testing.T) {
	cases := []struct{ base, want string }{
		{`filters: 'status = "x"'`, "filter `status = \"x\"` at column 8: \"=\" is no operator: compare with \"==\" (or \"!=\")"},
		{`filters: 'status == "x'`, "filter `status == \"x` at column 11: the text starting here has no closing \""},
		{`filters: 'foo(1)'`, "filter `foo(1)` at column 1: unknown function foo(); functions: date, duration, escapeHTML, file, html, icon, if, image, link, list, max, min, now, number, random, today"},
		{`filters: 'title.shoutLoudly()'`, "filter `title.shoutLoudly()` at column 7: unknown function .shoutLoudly(); functions on values:"},
		{`filters: 'file.hasTags("x")'`, "filter `file.hasTags(\"x\")` at column 6: unknown function .hasTags() (did you mean .hasTag()?); functions on values:"},
		{`filters: 'tody() > due'`, "filter `tody() > due` at column 1: unknown function tody() (did you mean today()?); functions:"},
		{"formulas:\n  x: 'price *'\n", "formula \"x\" `price *` at column 8: the expression ends where a value is expected"},
		{"views:\n  - type: table\n    name: T\n    order: [formula.nope]\n", `view "T": it shows formula.nope, but the base defines no formula "nope" (formulas: none)`},
		{"views:\n  - type: table\n    name: T\n    summaries:\n      price: Avg\n", `view "T": unknown summary "Avg" for price; summaries: Average, Min, Max`},
		{"filters:\n  xor:\n    - a\n", `filter: line 2: "xor" is no filter group; use and, or or not`},
		{"views:\n  - type: table\n    name: T\n    order: [file.nme]\n", `view "T": file.nme is no file property`},
		{`filters: 'a b'`, "filter `a b` at column 3: unexpected name \"b\" after a complete expression"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.base))
		if err == nil {
			t.Errorf("%s: no error, want %s", c.base, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %s\nwant %s…", c.base, err, c.want)
		}
	}
	// Evaluation errors leave the row out and are reported, never silent.
	files, env := vaultOf(t, itemsVault)
	b, err := Parse([]byte("filters: 'file.inFolder(\"items\") && title.length - date(\"nope\") > 0'\n"))
	if err != nil {
		t.Fatal(err)
	}
	res := b.Run(b.Views[0], files, env)
	if res.ErrorCount != 3 || len(res.Rows) != 0 || !strings.Contains(res.Errors[0].Err, `date("nope"): the text is no date`) {
		t.Errorf("got %d errors %+v and %d rows, want 3 errors naming date(\"nope\")", res.ErrorCount, res.Errors, len(res.Rows))
	}
	// A formula that refers to itself.
	b, err = Parse([]byte("formulas:\n  a: formula.b + 1\n  b: formula.a\nviews:\n  - type: table\n    name: T\n    order: [formula.a]\n"))
	if err != nil {
		t.Fatal(err)
	}
	res = b.Run(b.Views[0], files[:1], env)
	if res.ErrorCount != 1 || !strings.Contains(res.Errors[0].Err, "circular") {
		t.Errorf("cycle: got %+v", res.Errors)
	}
}

func TestBlocks(t *testing.T) {
	src := "# Note\n\n```base\nfilters: file.hasTag(\"x\")\n```\n\n```yaml\na: 1\n```\n\n~~~base\nviews: []\n~~~\n"
	bl := Blocks([]byte(src))
	if len(bl) != 2 || string(bl[0]) != "filters: file.hasTag(\"x\")\n" || string(bl[1]) != "views: []\n" {
		t.Errorf("Blocks = %q", bl)
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]Duration{
		"1 week": {Ms: 7 * 86400000}, "1w": {Ms: 7 * 86400000}, "1M": {Months: 1}, "2 years": {Months: 24},
		"3 days 4 hours": {Ms: 3*86400000 + 4*3600000}, "-1d": {Ms: -86400000}, "90m": {Ms: 90 * 60000}, "5 seconds": {Ms: 5000},
	} {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	if _, err := ParseDuration("1 fortnight"); err == nil || !strings.Contains(err.Error(), `unknown unit "fortnight"`) {
		t.Errorf("1 fortnight: %v", err)
	}
}

func TestExpr_Properties(t *testing.T) {
	e := mustExpr(t, `status == "x" && note.prio > 2 && note["due date"] < today() && file.hasTag("a") && tags.map(value.lower()).contains(formula.f)`)
	if got := strings.Join(e.Properties(), ", "); got != "status, prio, due date, tags" {
		t.Errorf("Properties() = %s", got)
	}
}

func TestBase_UsesClock(t *testing.T) {
	for src, want := range map[string]bool{
		"filters: 'due < today()'\n":                               false,
		"filters: 'file.mtime > now() - \"1 week\"'\n":             true,
		"formulas:\n  r: file.mtime.relative()\n":                  true,
		"views:\n  - type: table\n    filters: 'random() > 0.5'\n": true,
		"summaries:\n  s: 'values.length'\n":                       false,
	} {
		b, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got := b.UsesClock(); got != want {
			t.Errorf("%s: UsesClock() = %v, want %v", src, got, want)
		}
	}
}

// TestThis_Nil: without a file for `this` (an ad-hoc query), this is
// null, not a crash.
func TestThis_Nil(t *testing.T) {
	files, env := vaultOf(t, itemsVault)
	for expr, want := range map[string]string{`this`: "", `this.file.name`: "", `if(this, "y", "n")`: "n", `this == null`: "true"} {
		s := &scope{env: env, file: files[0]}
		v, err := s.evalExpr(mustExpr(t, expr))
		if err != nil || Text(v) != want {
			t.Errorf("%s = %q (%v), want %q", expr, Text(v), err, want)
		}
	}
}

// TestExpr_FileCalls: the text arguments of file.inFolder and file.hasTag,
// wherever they stand in the expression; not other functions' arguments,
// not a method of another receiver, not an argument that is no text.
func TestExpr_FileCalls(t *testing.T) {
	e, err := ParseExpr(`file.inFolder("A/B") && (!file.hasTag("x", "y/z") || note.file.inFolder("C")) && file.name.contains("D") && file.inFolder(folder) || [file.hasTag('w')].length > 0`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(e.FileCalls("inFolder"), ", "); got != "A/B" {
		t.Errorf("FileCalls(inFolder) = %s, want A/B", got)
	}
	if got := strings.Join(e.FileCalls("hasTag"), ", "); got != "x, y/z, w" {
		t.Errorf("FileCalls(hasTag) = %s, want x, y/z, w", got)
	}
}
