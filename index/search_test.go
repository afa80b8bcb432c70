package index

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// engineVault is a small German/English vault for engine tests.
var engineVault = map[string]string{
	"Projekte/Alpha.md": `---
tags: [projekt/alpha, aktiv]
aliases: [Projekt A1]
---
# Alpha

Einleitung zum Vorhaben.

## Ziele

Wir bauen Häuser am See und planen den Garten.

### Meilensteine

Erster Spatenstich im Mai.

## Risiken

Das Wetter.
`,
	"Projekte/Beta.md": `# Beta

## Plan

Der Projektplan steht. Wir brauchen Krankenhäuser und Gewächshäuser.
`,
	"Projekte/Gamma/Notiz.md": `# Gamma Notiz

Der Plan für Gamma ist einfach. Ein Haus.
`,
	"Archiv/Haus.md": `# Haus

Ein Haus mit Garten.
`,
	"Archiv/Tabellen.md": `# Daten

Tabellen mit Zahlen und eine Tabelle für die Kosten.
`,
	"Wissen/Projekte im Team.md": `# Projekte im Team

Mehrere Projekte laufen gleichzeitig.
`,
	"Wissen/Linking.md": `# Linking notes

How to link notes. Links connect ideas.
`,
	"Wissen/Body.md": `# Allgemeines

Hier steht nebenbei das Wort Meilenstein und auch Risiko.
`,
}

func TestSearch_LanguageAndCompounds(t *testing.T) {
	v, _ := newVault(t, engineVault)
	ix := openIndex(t, v, Options{})
	cases := []qualityCase{
		{name: "Tabellen finds Tabelle", q: Query{Text: "Tabelle"}, first: "Archiv/Tabellen.md"},
		{name: "Häuser finds Haus", q: Query{Text: "Häuser"}, top: []string{"Archiv/Haus.md", "Projekte/Gamma/Notiz.md", "Projekte/Alpha.md"}, n: 3},
		{name: "Haus finds Häuser", q: Query{Text: "Haus"}, top: []string{"Projekte/Alpha.md"}},
		{name: "Projekte finds Projekt", q: Query{Text: "Projekt"}, top: []string{"Wissen/Projekte im Team.md", "Projekte/Alpha.md"}},
		{name: "linking finds link", q: Query{Text: "linking"}, first: "Wissen/Linking.md"},
		{name: "links finds linking", q: Query{Text: "link"}, first: "Wissen/Linking.md"},
		// Compounds rank below whole words and stems.
		{name: "häuser finds Krankenhäuser and Gewächshäuser", q: Query{Text: "häuser"}, top: []string{"Projekte/Beta.md"},
			check: func(t *testing.T, r *Results) {
				if hitIndex(r, "Projekte/Beta.md") < hitIndex(r, "Projekte/Alpha.md") {
					t.Errorf("compound-only note ranks above the note with the word itself:%s", describe(r))
				}
				h := r.Hits[hitIndex(r, "Projekte/Beta.md")]
				if !strings.Contains(h.Snippet, "«Krankenhäuser»") || !strings.Contains(h.Snippet, "«Gewächshäuser»") {
					t.Errorf("snippet %q does not mark the compounds", h.Snippet)
				}
			}},
		{name: "Plan finds Projektplan", q: Query{Text: "Plan"}, top: []string{"Projekte/Beta.md", "Projekte/Gamma/Notiz.md"}},
		{name: "umlaut folding", q: Query{Text: "hauser"}, top: []string{"Projekte/Alpha.md"}},
	}
	runQuality(t, ix, cases)
}

func TestSearch_FieldRanking(t *testing.T) {
	v, _ := newVault(t, engineVault)
	ix := openIndex(t, v, Options{})
	cases := []qualityCase{
		// "Meilenstein" is a heading in Alpha and a body word in Body.
		{name: "heading above body", q: Query{Text: "Meilensteine"}, first: "Projekte/Alpha.md", heading: "Alpha > Ziele > Meilensteine"},
		{name: "title above body", q: Query{Text: "Haus"}, first: "Archiv/Haus.md"},
		{name: "alias above body", q: Query{Text: "A1"}, first: "Projekte/Alpha.md"},
		{name: "heading of best section", q: Query{Text: "Wetter"}, first: "Projekte/Alpha.md", heading: "Alpha > Risiken"},
	}
	runQuality(t, ix, cases)
}

func TestSearch_Syntax(t *testing.T) {
	v, _ := newVault(t, engineVault)
	ix := openIndex(t, v, Options{})
	only := func(want ...string) func(t *testing.T, r *Results) {
		return func(t *testing.T, r *Results) {
			got := strings.Join(hitPaths(r), ",")
			if got != strings.Join(want, ",") {
				t.Errorf("hits = %s, want %s", got, strings.Join(want, ","))
			}
			if r.Total != len(want) {
				t.Errorf("total = %d, want %d", r.Total, len(want))
			}
		}
	}
	cases := []qualityCase{
		{name: "phrase", q: Query{Text: `"Häuser am See"`}, check: only("Projekte/Alpha.md")},
		{name: "phrase in another order", q: Query{Text: `"See am Häuser"`}, check: only()},
		{name: "exclude", q: Query{Text: "Haus -Garten"}, check: func(t *testing.T, r *Results) {
			for _, h := range r.Hits {
				if h.Path == "Archiv/Haus.md" || h.Path == "Projekte/Alpha.md" {
					t.Errorf("%s has Garten but was found", h.Path)
				}
			}
			if hitIndex(r, "Projekte/Gamma/Notiz.md") < 0 {
				t.Errorf("Gamma/Notiz.md missing:%s", describe(r))
			}
		}},
		{name: "prefix", q: Query{Text: "Spaten*"}, check: only("Projekte/Alpha.md")},
		{name: "all words must occur", q: Query{Text: "Haus Garten"}, check: func(t *testing.T, r *Results) {
			if r.Total != 2 || hitIndex(r, "Archiv/Haus.md") < 0 || hitIndex(r, "Projekte/Alpha.md") < 0 {
				t.Errorf("got total %d:%s", r.Total, describe(r))
			}
		}},
		{name: "no note has all words: relaxed", q: Query{Text: "Spatenstich Zahlen"}, check: func(t *testing.T, r *Results) {
			if !r.Relaxed || r.Total != 2 {
				t.Errorf("relaxed=%v total=%d, want relaxed, 2", r.Relaxed, r.Total)
			}
			if n := r.Notices(); len(n) != 1 || !strings.HasPrefix(n[0], "no note contains all the words") {
				t.Errorf("notices = %q", n)
			}
		}},
		{name: "OR", q: Query{Text: "Spatenstich OR Zahlen"}, check: func(t *testing.T, r *Results) {
			if r.Relaxed || r.Total != 2 {
				t.Errorf("relaxed=%v total=%d, want not relaxed, 2", r.Relaxed, r.Total)
			}
		}},
		{name: "tag filter includes child tags", q: Query{Text: "Garten", Tag: "projekt"}, check: only("Projekte/Alpha.md")},
		{name: "tag filter inline", q: Query{Text: "Garten #aktiv"}, check: only("Projekte/Alpha.md")},
		{name: "tag filter alone", q: Query{Tag: "projekt/alpha"}, check: only("Projekte/Alpha.md")},
		{name: "space filter", q: Query{Text: "Haus", Space: "archiv"}, check: only("Archiv/Haus.md")},
		{name: "folder filter includes sub-folders", q: Query{Text: "Plan", Folder: "Projekte"},
			check: func(t *testing.T, r *Results) {
				for _, h := range r.Hits {
					if !strings.HasPrefix(h.Path, "Projekte/") {
						t.Errorf("hit %s outside the folder", h.Path)
					}
				}
				if hitIndex(r, "Projekte/Gamma/Notiz.md") < 0 {
					t.Errorf("sub-folder note missing:%s", describe(r))
				}
			}},
		{name: "folder filter alone lists notes by path", q: Query{Folder: "Projekte/"}, check: only("Projekte/Alpha.md", "Projekte/Beta.md", "Projekte/Gamma/Notiz.md")},
		{name: "not folders (Obsidian's excluded files)", q: Query{Text: "Haus", NotFolders: []string{"archiv/"}}, check: func(t *testing.T, r *Results) {
			if hitIndex(r, "Archiv/Haus.md") >= 0 || r.Total == 0 {
				t.Errorf("Archiv/Haus.md found though its folder is left out, or nothing found:%s", describe(r))
			}
		}},
		{name: "not folders with a phrase and sub-folders", q: Query{Text: "Plan", NotFolders: []string{"Projekte/Gamma"}}, check: func(t *testing.T, r *Results) {
			if hitIndex(r, "Projekte/Gamma/Notiz.md") >= 0 {
				t.Errorf("Projekte/Gamma/Notiz.md found though its folder is left out:%s", describe(r))
			}
		}},
		{name: "not folders with a folder filter alone", q: Query{Folder: "Projekte/", NotFolders: []string{"Projekte/Gamma/"}}, check: only("Projekte/Alpha.md", "Projekte/Beta.md")},
		{name: "stop words are reported", q: Query{Text: "die Tabelle"}, first: "Archiv/Tabellen.md", check: func(t *testing.T, r *Results) {
			if strings.Join(r.Ignored, ",") != "die" {
				t.Errorf("ignored = %q, want [die]", r.Ignored)
			}
			if n := r.Notices(); len(n) != 1 || n[0] != "left out as too common to search for: die" {
				t.Errorf("notices = %q", n)
			}
		}},
	}
	runQuality(t, ix, cases)
}

func TestSearch_HitFields(t *testing.T) {
	v, _ := newVault(t, engineVault)
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "Spatenstich"})
	if len(r.Hits) != 1 {
		t.Fatalf("got %d hits, want 1", len(r.Hits))
	}
	h := r.Hits[0]
	b, _ := v.ReadFile("Projekte/Alpha.md")
	want := Hit{Path: "Projekte/Alpha.md", Title: "Alpha", Space: "Projekte", Heading: "Alpha > Ziele > Meilensteine", Line: 15,
		Snippet: "Erster «Spatenstich» im Mai."}
	if h.Path != want.Path || h.Title != want.Title || h.Space != want.Space || h.Heading != want.Heading || h.Snippet != want.Snippet || h.Line != want.Line {
		t.Errorf("hit = %+v\nwant %+v", h, want)
	}
	if h.Version != vaultVersion(b) {
		t.Errorf("version = %s, want %s", h.Version, vaultVersion(b))
	}
	if h.Score <= 0 {
		t.Errorf("score = %v", h.Score)
	}
}

func TestSearch_Paging(t *testing.T) {
	files := map[string]string{}
	for i := range 25 {
		files[fmt.Sprintf("Serie/Note %02d.md", i)] = fmt.Sprintf("# Note %d\n\nDas Stichwort Quartalsbericht kommt %s vor.\n", i, strings.Repeat("oft ", i%5))
	}
	v, _ := newVault(t, files)
	ix := openIndex(t, v, Options{})
	seen := map[string]bool{}
	for off := 0; off < 30; off += 10 {
		r := mustSearch(t, ix, Query{Text: "Quartalsbericht", Limit: 10, Offset: off})
		if r.Total != 25 {
			t.Fatalf("offset %d: total %d, want 25", off, r.Total)
		}
		wantN := min(10, 25-off)
		if len(r.Hits) != wantN {
			t.Fatalf("offset %d: %d hits, want %d", off, len(r.Hits), wantN)
		}
		for _, h := range r.Hits {
			if seen[h.Path] {
				t.Errorf("offset %d: %s seen on an earlier page", off, h.Path)
			}
			seen[h.Path] = true
		}
	}
	if len(seen) != 25 {
		t.Errorf("pages covered %d notes, want 25", len(seen))
	}
	r := mustSearch(t, ix, Query{Text: "Quartalsbericht", Limit: 1000})
	if r.Limit != MaxLimit {
		t.Errorf("limit = %d, want %d", r.Limit, MaxLimit)
	}
}

func TestSearch_BadQuery(t *testing.T) {
	v, _ := newVault(t, engineVault)
	ix := openIndex(t, v, Options{})
	cases := []struct{ q, want string }{
		{`"Häuser am See`, "quote is not closed"},
		{`pro*jekt`, "only at the end of a word"},
		{`*`, "too short for *"},
		{`p*`, "too short for *"},
		{`-Garten`, "only excludes words"},
		{``, "nothing to search for"},
		{`die und the`, "only very common words"},
		{`tag:`, "needs a value"},
		{`-tag:x`, "cannot be excluded"},
		{`"Haus*"`, "inside a phrase"},
	}
	for _, c := range cases {
		_, err := ix.Search(t.Context(), Query{Text: c.q})
		if !errors.Is(err, ErrBadQuery) {
			t.Errorf("query %q: err = %v, want ErrBadQuery", c.q, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("query %q: error %q does not say %q", c.q, msg, c.want)
		}
		if !strings.Contains(msg, "Example:") {
			t.Errorf("query %q: error %q shows no example", c.q, msg)
		}
		for _, bad := range []string{"%!", "<nil>", "bleve", "parse error", "syntax error", "unexpected"} {
			if strings.Contains(msg, bad) {
				t.Errorf("query %q: error %q contains %q", c.q, msg, bad)
			}
		}
	}
	// Things that look odd but are fine.
	for _, q := range []string{"Haus - Garten", `""`, "Haus AND Garten", "C++", "e-mail", "100%", "a/b", "(Haus)", `Haus "`} {
		if _, err := ix.Search(t.Context(), Query{Text: q}); err != nil && !strings.Contains(q, `"`) {
			t.Errorf("query %q: %v", q, err)
		}
	}
}

func TestStatusText(t *testing.T) {
	s := Status{Building: true, Done: 3120, Total: 6636}
	if got, want := s.Text(), "index building: 3,120 of 6,636 notes; results may be incomplete"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	if got := (Status{Done: 5, Total: 5}).Text(); got != "" {
		t.Errorf("Text() of a complete index = %q, want empty", got)
	}
}

func TestSearch_Properties(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"a.md": "---\nstatus: Aktiv\npriority: 1\nteam: [Anna, \"[[Jonas Keller|Jonas]]\"]\ndone: false\ncreated: 2026-09-12\n---\n# A\n\nProjekt Alpha.\n",
		"b.md": "---\nstatus: erledigt\npriority: 2\nteam: Anna\nphase: in Arbeit\nnested: {x: 1}\n---\n# B\n\nProjekt Beta.\n",
		"c.md": "---\nstatus: aktiv\n---\n# C\n\nNotiz Gamma.\n",
		"d.md": "# D\n\nProjekt ohne Frontmatter. status=aktiv steht hier nur im Text.\n",
	})
	ix := openIndex(t, v, Options{})
	paths := func(want ...string) func(t *testing.T, r *Results) {
		return func(t *testing.T, r *Results) {
			var got []string
			for _, h := range r.Hits {
				got = append(got, h.Path)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("hits = %v, want %v", got, want)
			}
		}
	}
	cases := []qualityCase{
		{name: "property alone, case-insensitive", q: Query{Text: "status=aktiv"}, check: paths("a.md", "c.md")},
		{name: "property with words", q: Query{Text: "Projekt status=AKTIV"}, check: paths("a.md")},
		{name: "Query.Properties", q: Query{Text: "Projekt", Properties: map[string]string{"Status": "erledigt"}}, check: paths("b.md")},
		{name: "number", q: Query{Text: "priority=2"}, check: paths("b.md")},
		{name: "bool", q: Query{Text: "done=false"}, check: paths("a.md")},
		{name: "date", q: Query{Text: "created=2026-09-12"}, check: paths("a.md")},
		{name: "list value", q: Query{Text: "team=anna"}, check: paths("a.md", "b.md")},
		{name: "link value by target", q: Query{Text: `team="Jonas Keller"`}, check: paths("a.md")},
		{name: "link value as written", q: Query{Text: `team="[[Jonas Keller|Jonas]]"`}, check: paths("a.md")},
		{name: "quoted value with a space", q: Query{Text: `phase="in Arbeit"`}, check: paths("b.md")},
		{name: "excluded", q: Query{Text: "Projekt -status=erledigt"}, check: paths("a.md", "d.md")},
		{name: "two filters", q: Query{Text: "status=aktiv priority=1"}, check: paths("a.md")},
		{name: "nested maps are not indexed", q: Query{Text: "nested=1"}, check: paths()},
	}
	runQuality(t, ix, cases)

	for _, c := range []struct{ q, want string }{
		{"status=", "status= needs a value"},
		{`status="in Arbeit`, "quote is not closed"},
		{"-status=aktiv", "only excludes"},
	} {
		_, err := ix.Search(t.Context(), Query{Text: c.q})
		if !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("query %q: err = %v, want ErrBadQuery saying %q", c.q, err, c.want)
		}
	}
	if _, err := ix.Search(t.Context(), Query{Properties: map[string]string{"status": ""}}); !errors.Is(err, ErrBadQuery) {
		t.Errorf("empty property value: err = %v, want ErrBadQuery", err)
	}
}

func TestSearch_Dates(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"iso.md":      "# Iso\n\nRichtfest am 2026-11-16 mit allen Gästen.\n",
		"german.md":   "# German\n\nRichtfest am 16.11.2026 mit allen Gästen.\n",
		"short.md":    "# Short\n\nRichtfest am 16.11. mit allen.\n",
		"other.md":    "# Other\n\nRichtfest am 2025-11-16 mit allen.\n",
		"decimal.md":  "# Decimal\n\nRichtfest kostet 3.5 Tausend.\n",
		"heading.md":  "# Protokoll\n\n## Runde 2026-11-16\n\n### Beschlüsse\n\nNichts.\n\n## Runde 2026-11-09\n\n### Beschlüsse\n\nAuch nichts.\n",
		"sequence.md": "# Seq\n\nVersion 1.2.3 und Fristende 2026-11-16-2.\n",
	})
	ix := openIndex(t, v, Options{})
	set := func(want ...string) func(t *testing.T, r *Results) {
		return func(t *testing.T, r *Results) {
			got := hitPaths(r)
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("hits = %v, want %v", got, want)
			}
		}
	}
	cases := []qualityCase{
		{name: "day-month finds every spelling and year", q: Query{Text: "Richtfest 16.11."}, check: set("iso.md", "german.md", "short.md", "other.md")},
		{name: "two-digit day-month without dot", q: Query{Text: "Richtfest 16.11"}, check: set("iso.md", "german.md", "short.md", "other.md")},
		{name: "ISO finds that day and the yearless one", q: Query{Text: "Richtfest 2026-11-16"}, check: set("iso.md", "german.md", "short.md")},
		{name: "German full date likewise", q: Query{Text: "Richtfest 16.11.2026"}, check: set("iso.md", "german.md", "short.md")},
		{name: "year finds German full date", q: Query{Text: "Richtfest 2026"}, check: set("iso.md", "german.md")},
		// An ISO date is one position, as a German one: the phrase fits both.
		{name: "phrase across spellings", q: Query{Text: `"16.11.2026 mit allen Gästen"`}, check: set("iso.md", "german.md")},
		{name: "phrase with the date first", q: Query{Text: `"Richtfest am 2026-11-16"`}, check: set("iso.md", "german.md", "short.md")},
		{name: "a fourth number makes it no date", q: Query{Text: "2026-11-16"}, check: set("iso.md", "german.md", "short.md", "heading.md")},
		{name: "decimal stays a number", q: Query{Text: "3.5"}, check: set("decimal.md")},
		{name: "sub-section under a dated heading", q: Query{Text: "16.11. Beschlüsse"}, first: "heading.md", heading: "Protokoll > Runde 2026-11-16 > Beschlüsse"},
	}
	runQuality(t, ix, cases)
}

func TestSearchAliases_FileName(t *testing.T) {
	cases := []struct {
		path, title string
		aliases     []string
		want        string
		slug        string
	}{
		{"a/2026-11-04 Design-Review.md", "Design-Review Website-Relaunch", nil, "2026-11-04 Design-Review", ""},
		{"a/Note.md", "Note", []string{"N"}, "N", ""},
		{"a/note.md", "Note", nil, "", ""},
		{"a/Note.md", "Other", []string{"note"}, "note", ""},
		// A folder note is searched by its folder's name.
		{"gesetze/bgb/index.md", "Bürgerliches Gesetzbuch", nil, "bgb", ""},
		{"x/README.md", "X", []string{"Y"}, "Y", ""},
		{"Projekt/Projekt.md", "Projekt", nil, "", ""},
		{"index.md", "Start", nil, "", ""},
		// A permalink or slug names the note too, once.
		{"Dateien/Konfigurationsordner.md", "Konfigurationsordner", nil, "configuration folder", "configuration folder"},
		{"b/baupg_2013/index.md", "Baupreisgesetz", nil, "baupg_2013", "baupg 2013"},
		{"b/bgb/index.md", "Bürgerliches Gesetzbuch", nil, "bgb", "bgb"},
		{"en/Configuration folder.md", "Configuration folder", nil, "", "configuration folder"},
		{"a/Note.md", "Other", []string{"Daily notes"}, "Daily notes|Note", "daily notes"},
	}
	for _, c := range cases {
		got := strings.Join(searchAliases(&Document{Path: c.path, Title: c.title, Aliases: c.aliases, Slug: c.slug}), "|")
		if got != c.want {
			t.Errorf("searchAliases(%q, title %q, aliases %q) = %q, want %q", c.path, c.title, c.aliases, got, c.want)
		}
	}
}

func TestSearch_NotPaths(t *testing.T) {
	v, _ := newVault(t, engineVault)
	ix := openIndex(t, v, Options{})
	if r := mustSearch(t, ix, Query{Text: "Haus"}); hitIndex(r, "Archiv/Haus.md") < 0 {
		t.Fatalf("Archiv/Haus.md not found without a pattern:%s", describe(r))
	}
	r := mustSearch(t, ix, Query{Text: "Haus", NotPaths: []string{`.*(?:Haus\.md)`}})
	if hitIndex(r, "Archiv/Haus.md") >= 0 || r.Total == 0 {
		t.Errorf("Archiv/Haus.md found though a path pattern leaves it out, or nothing found:%s", describe(r))
	}
	if _, err := ix.Search(context.Background(), Query{Text: "Haus", NotPaths: []string{`^Archiv`}}); err == nil {
		t.Error("an anchored pattern was accepted; the index cannot run it")
	}
}

// TestSearch_SomeWords: with Query.Some, a page the notes with every word
// do not fill goes on with a few notes that have some of them, marked, and
// the next pages hold the rest, each note once.
func TestSearch_SomeWords(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"a.md": "# A\n\nApfel Birne Kirsche.\n", "b.md": "# B\n\nApfel und Birne.\n", "c.md": "# C\n\nEin Apfel.\n",
		"d.md": "# D\n\nEine Kirsche.\n", "e.md": "# E\n\nBirne, Kirsche.\n", "f.md": "# F\n\nNichts davon.\n",
	})
	ix := openIndex(t, v, Options{})
	q := Query{Text: "Apfel Birne Kirsche", Some: true}
	r := mustSearch(t, ix, q)
	if r.Total != 1 || r.Some != 4 || len(r.Hits) != 1+someAfterAll || r.Hits[0].Path != "a.md" || r.Hits[0].Some {
		t.Fatalf("total %d, some %d; want 1 and 4, a.md first then %d with some of the words:%s", r.Total, r.Some, someAfterAll, describe(r))
	}
	seen := map[string]bool{"a.md": true}
	for _, h := range r.Hits[1:] {
		if !h.Some || seen[h.Path] {
			t.Errorf("%s: some %v, or shown twice", h.Path, h.Some)
		}
		seen[h.Path] = true
	}
	q.Offset = len(r.Hits)
	r2 := mustSearch(t, ix, q)
	for _, h := range r2.Hits {
		if !h.Some || seen[h.Path] {
			t.Errorf("page 2: %s: some %v, or shown on page 1", h.Path, h.Some)
		}
		seen[h.Path] = true
	}
	if len(seen) != 5 || seen["f.md"] {
		t.Errorf("the pages hold %v; want a.md to e.md once each", seen)
	}
	// Not asked for, one word, or a page that notes with every word fill:
	// nothing added.
	for _, q := range []Query{{Text: "Apfel Birne Kirsche"}, {Text: "Apfel", Some: true}, {Text: "Birne Kirsche", Some: true, Limit: 2}} {
		r := mustSearch(t, ix, q)
		for _, h := range r.Hits {
			if h.Some {
				t.Errorf("%+v: %s has some of the words only:%s", q, h.Path, describe(r))
			}
		}
		if r.Some != 0 {
			t.Errorf("%+v: Some = %d, want 0", q, r.Some)
		}
	}
}

// The counts docFreq remembers follow the index: a note written changes
// them at once.
func TestDocFreq_FollowsChanges(t *testing.T) {
	v, dir := newVault(t, map[string]string{"a.md": "# A\n\nZitronenbaum im Garten.\n"})
	ix := openIndex(t, v, Options{})
	term := analyzeQuery("Zitronenbaum")[0].Term
	if n := ix.docFreq(fBody, term); n != 1 {
		t.Fatalf("docFreq before = %d, want 1", n)
	}
	writeFiles(t, dir, map[string]string{"b.md": "# B\n\nNoch ein Zitronenbaum.\n"})
	if err := ix.Update("b.md"); err != nil {
		t.Fatal(err)
	}
	if n := ix.docFreq(fBody, term); n != 2 {
		t.Errorf("docFreq after writing b.md = %d, want 2", n)
	}
	// (A deletion is not checked: bleve's dictionaries count a deleted
	// note's terms until its segment is merged away.)
}
