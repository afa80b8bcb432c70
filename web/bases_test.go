package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/tools"
)

// basePage is the URL of a view on the page.
func basePage(base, view string, offset int) string {
	u := "/base?path=" + url.QueryEscape(base) + "&view=" + url.QueryEscape(view)
	if offset > 0 {
		u += fmt.Sprintf("&offset=%d", offset)
	}
	return u
}

// wantAll fails for each piece of want body lacks.
func wantAll(t *testing.T, what, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
	if t.Failed() {
		t.Logf("%s:\n%s", what, body)
	}
}

// The list: every base of the example vault with its views, their
// layouts and row counts as query_base counts them, each a link to the
// view; a note with a base block is a base too.
func TestBases_List(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	must(t, os.WriteFile(filepath.Join(f.dir, "2_Bereiche", "Team", "Projektleitung.md"), []byte("# Projektleitung\n\n```base\nfilters: file.hasTag(\"projekt\")\nviews:\n  - type: table\n    name: Aktive Projekte\n```\n"), 0o644))
	body := f.page("/bases")
	wantAll(t, "/bases", body,
		`<a href="/bases" aria-current="page">Bases</a>`,
		`<h1>Bases</h1>`,
		`<span translate="no">Leseliste</span>`, `3_Ressourcen/Leseliste.base`,
		`<a href="/base?path=3_Ressourcen%2fLeseliste.base&view=Noch%20nicht%20gelesen" translate="no">Noch nicht gelesen</a> <span class="muted">Table · 4 rows</span>`,
		`>Gelesen</a> <span class="muted">Table · 1 row</span>`,
		`>Alle Bücher</a> <span class="muted">Cards · 5 rows</span>`,
		`<span translate="no">Projekte</span>`,
		`>Nach Status</a> <span class="muted">Table · 14 rows</span>`,
		`>Abgeschlossen</a> <span class="muted">List · 3 rows</span>`,
		// A note's base block, by the note.
		`<span translate="no">2_Bereiche/Team/Projektleitung.md</span> · a note with base blocks`,
		`>Aktive Projekte</a> <span class="muted">Table · `,
	)
	if strings.Index(body, "Projekte.base") > strings.Index(body, "Leseliste.base") {
		t.Errorf("the bases are not in path order")
	}
}

// A view as Obsidian shows it: its columns by display name, each row's
// note linked to its history, the view's filter, its summary under its
// column, and the very rows query_base answers.
func TestBases_ViewRowsAndSummaries(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	body := f.page(basePage("3_Ressourcen/Leseliste.base", "Noch nicht gelesen", 0))
	wantAll(t, "the view", body,
		`<h1><span translate="no">Noch nicht gelesen</span></h1>`,
		`A view of <span translate="no">3_Ressourcen/Leseliste.base</span>`,
		// The base's views as tabs, this one current.
		`<nav class="tabs" aria-label="Views of this base">`,
		`view=Noch%20nicht%20gelesen" aria-current="page"><span translate="no">Noch nicht gelesen</span> <span class="count">4</span></a>`,
		`view=Alle%20B%c3%bccher"><span translate="no">Alle Bücher</span>`,
		`<dt>Filter</dt><dd><code translate="no" id="base-filter">(file.hasTag("buch") && file.inFolder("3_Ressourcen/Bücher")) && (!gelesen)</code></dd>`,
		`<p class="count" id="base-count">Rows 1–4 of 4</p>`,
		`<div class="scroll base-scroll" role="region" aria-label="The view's rows" tabindex="0">`,
		`<th scope="col">Note</th><th scope="col" translate="no">Autor</th><th scope="col" translate="no">Status</th><th scope="col" translate="no">Seiten</th><th scope="col" translate="no">Lesezeit (h)</th><th scope="col" translate="no">Empfohlen von</th>`,
		`<a href="/note?path=3_Ressourcen%2fB%c3%bccher%2fMittagsstunde.md" translate="no">Mittagsstunde</a><div class="detail" translate="no">3_Ressourcen/Bücher</div>`,
		`<td translate="no">Dörte Hansen</td>`,
		`<div class="b-sum">Sum: <span translate="no">`,
	)
	// The same rows, in the same order, as the tool's answer.
	res := f.core.QueryBase(context.Background(), caller(), tools.QueryBaseArgs{Base: "Leseliste", View: "Noch nicht gelesen"})
	d := res.Data.(tools.BaseViewData)
	last := 0
	for _, r := range d.Rows {
		i := strings.Index(body, `<a href="/note?path=`+strings.ReplaceAll(url.QueryEscape(r.Path), "%2F", "%2f"))
		if i < 0 {
			i = strings.Index(body, ">"+strings.TrimSuffix(filepath.Base(r.Path), ".md")+"</a>")
		}
		if i < last {
			t.Errorf("row %s is missing or out of the tool's order", r.Path)
		}
		last = i
	}
	if len(d.Summaries) != 1 || !strings.Contains(body, `Sum: <span translate="no">`+d.Summaries[0].Value+`</span>`) {
		t.Errorf("the summary %+v is not shown under its column", d.Summaries)
	}

	// Cards and lists are cards and items, with their columns by name.
	body = f.page(basePage("3_Ressourcen/Leseliste.base", "Alle Bücher", 0))
	wantAll(t, "the cards view", body, `<ul class="cards">`, `<dl translate="no"><dt>Autor</dt><dd>Dörte Hansen</dd>`,
		`<h2>Summaries</h2>`, `<dt><span translate="no">Autor</span> · Unique</dt>`)
	body = f.page(basePage("1_Projekte/Projekte.base", "Abgeschlossen", 0))
	wantAll(t, "the list view", body, `<ul class="items">`, `<dt>Abgeschlossen</dt>`, `<dt><span translate="no">Abgeschlossen</span> · Latest</dt>`)
	// Without a view, the base's first.
	body = f.page("/base?path=Leseliste")
	wantAll(t, "the base without a view", body, `<h1><span translate="no">Noch nicht gelesen</span></h1>`)
}

// A grouped view: a headed group per value of groupBy with its rows in
// the whole view, the rows without one under "no value" (the example
// vault's two meeting notes and the fixture's Garten.md), the
// summaries.
func TestBases_GroupedView(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	body := f.page(basePage("1_Projekte/Projekte.base", "Nach Status", 0))
	wantAll(t, "the grouped view", body,
		`<dt>Grouped by</dt><dd translate="no">Status</dd>`,
		`<tr class="g-head"><th colspan="5" scope="rowgroup"><span translate="no">Status:</span> <span translate="no">abgeschlossen</span> <span class="count">(3 rows)</span></th></tr>`,
		`<span translate="no">aktiv</span> <span class="count">(7 rows)</span>`,
		`<span translate="no">geplant</span> <span class="count">(1 row)</span>`,
		`<span translate="no">Status:</span> no value <span class="count">(3 rows)</span>`,
		`Earliest: <span translate="no">2025-02-03</span>`,
		`Average: <span translate="no">`,
	)
	if strings.Count(body, "<tbody>") != 4 {
		t.Errorf("%d groups, want 4", strings.Count(body, "<tbody>"))
	}
	if a, b := strings.Index(body, ">abgeschlossen</span> <span class=\"count\">"), strings.Index(body, ">aktiv</span> <span class=\"count\">"); a < 0 || b < a {
		t.Errorf("the groups are not in the view's order")
	}
}

// Paging: 50 rows a page, "Rows 1–50 of 65", the next and previous
// pages, and a page past the end that says so.
func TestBases_Paging(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	for i := range 60 {
		must(t, os.WriteFile(filepath.Join(f.dir, "3_Ressourcen", "Bücher", fmt.Sprintf("Band %02d.md", i+1)),
			fmt.Appendf(nil, "---\ntags: [buch]\nautor: Autorin %d\nseiten: %d\n---\n# Band %d\n", i+1, 100+i, i+1), 0o644))
	}
	view := "Noch nicht gelesen"
	body := f.page(basePage("Leseliste", view, 0))
	wantAll(t, "page 1", body, `Rows 1–50 of 64`, `<a class="btn primary" href="`+basePage("3_Ressourcen/Leseliste.base", view, 50)+`" rel="next" id="base-next">Next rows</a>`)
	if n := strings.Count(body, `<tr class="b-row">`); n != 50 {
		t.Errorf("page 1 has %d rows, want 50", n)
	}
	if strings.Contains(body, `id="base-prev"`) {
		t.Errorf("page 1 offers a previous page")
	}
	body = f.page(basePage("3_Ressourcen/Leseliste.base", view, 50))
	wantAll(t, "page 2", body, `Rows 51–64 of 64`, `href="`+basePage("3_Ressourcen/Leseliste.base", view, 0)+`&offset=0" rel="prev" id="base-prev">Previous rows</a>`)
	if n := strings.Count(body, `<tr class="b-row">`); n != 14 {
		t.Errorf("page 2 has %d rows, want 14", n)
	}
	if strings.Contains(body, `id="base-next"`) {
		t.Errorf("the last page offers a next page")
	}
	body = f.page(basePage("3_Ressourcen/Leseliste.base", view, 500))
	wantAll(t, "past the end", body, `There are no rows from row 501 on: the view has 64.`, `>First rows</a>`)

	// A view whose filter selects nothing says so, with its filter.
	must(t, os.WriteFile(filepath.Join(f.dir, "3_Ressourcen", "Leer.base"), []byte("filters: 'status == \"verworfen\"'\nviews:\n  - type: table\n    name: Verworfen\n"), 0o644))
	body = f.page(basePage("3_Ressourcen/Leer.base", "Verworfen", 0))
	wantAll(t, "an empty view", body, `<code translate="no" id="base-filter">status == "verworfen"</code>`, `id="base-empty">The filter selects none of the `)
	if strings.Contains(body, "<table") {
		t.Errorf("an empty view shows an empty table")
	}
}

// A base that does not parse, or calls a function that does not exist,
// shows the core's error with the expression and column, on the list and
// on its page; the other bases are listed as ever.
func TestBases_ParseError(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	must(t, os.WriteFile(filepath.Join(f.dir, "1_Projekte", "Kaputt.base"), []byte("filters:\n  and:\n    - status = \"aktiv\"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(f.dir, "1_Projekte", "Tippfehler.base"), []byte("filters: file.hasTags(\"projekt\")\nviews:\n  - type: table\n    name: Alle\n"), 0o644))
	body := f.page("/bases")
	wantAll(t, "/bases with broken bases", body,
		`<span translate="no">Kaputt</span>`, `This base cannot be run. Obsidian shows the same error; correct the file:`,
		"filter `status = \"aktiv\"` at column 8: \"=\" is no operator",
		"unknown function .hasTags() (did you mean .hasTag()?)",
		`>Noch nicht gelesen</a>`,
	)
	body = f.page("/base?path=1_Projekte/Kaputt.base")
	wantAll(t, "the broken base", body,
		`<h1 translate="no">1_Projekte/Kaputt.base</h1>`, `id="base-broken"`,
		`<pre class="agent-text base-error" lang="en" translate="no">filter `+"`"+`status = "aktiv"`+"`"+` at column 8: "=" is no operator: compare with "==" (or "!=")</pre>`,
		`<a class="btn" href="/note?path=1_Projekte%2fKaputt.base">History of the file</a>`,
	)
	if strings.Contains(body, "<table") {
		t.Errorf("a broken base shows a table")
	}
}

// A base or view that does not exist: 404, what exists instead, as links.
func TestBases_Missing(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	st, _, body := f.do("GET", "/base?path=Lesliste", nil, nil)
	if st != http.StatusNotFound {
		t.Errorf("a missing base: %d, want 404", st)
	}
	wantAll(t, "a missing base", body, `There is no base “Lesliste” in this vault.`, `The vault's bases:`,
		`<a class="btn" href="/base?path=3_Ressourcen%2FLeseliste.base" translate="no">3_Ressourcen/Leseliste.base</a>`, `<a href="/bases" id="all-bases">`)
	st, _, body = f.do("GET", basePage("Leseliste", "Ungelesen", 0), nil, nil)
	if st != http.StatusNotFound {
		t.Errorf("a missing view: %d, want 404", st)
	}
	wantAll(t, "a missing view", body, `The base 3_Ressourcen/Leseliste.base has no view “Ungelesen”.`, `Its views:`,
		`<a class="btn" href="`+basePage("3_Ressourcen/Leseliste.base", "Noch nicht gelesen", 0)+`" translate="no">Noch nicht gelesen</a>`,
		`translate="no">Alle Bücher</a>`)
}

// Neither the list nor a view opens without the owner's sign-in.
func TestBases_SignInRequired(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"/bases", basePage("Leseliste", "Gelesen", 0)} {
		st, loc, body := f.do("GET", p, nil, nil)
		if st != http.StatusSeeOther || loc != "/signin" || strings.Contains(body, "Gelesen") {
			t.Errorf("GET %s without sign-in: %d to %q, want 303 to /signin", p, st, loc)
		}
	}
}

// In German: every text of the view, the summaries' names, the layouts,
// a missing view.
func TestBases_German(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	de := map[string]string{"Accept-Language": "de-DE,de;q=0.9"}
	get := func(p string) string {
		t.Helper()
		_, _, body := f.do("GET", p, nil, de)
		if !strings.Contains(body, `<html lang="de">`) {
			t.Fatalf("GET %s is not German", p)
		}
		return body
	}
	wantAll(t, "/bases in German", get("/bases"),
		`>Noch nicht gelesen</a> <span class="muted">Tabelle · 4 Zeilen</span>`, `Karten · 5 Zeilen`, `Tabelle · 1 Zeile`, `Liste · 3 Zeilen`)
	wantAll(t, "a view in German", get(basePage("Leseliste", "Noch nicht gelesen", 0)),
		`Eine Ansicht von`, `<th scope="col">Notiz</th>`, `Zeilen 1–4 von 4`, `Summe: `, `← Alle Bases`, `aria-label="Ansichten dieser Base"`, `<dt>Darstellung</dt><dd>Tabelle</dd>`)
	wantAll(t, "a grouped view in German", get(basePage("Projekte", "Nach Status", 0)),
		`<dt>Gruppiert nach</dt>`, `ohne Wert <span class="count">(3 Zeilen)</span>`, `(1 Zeile)`, `Frühestes: `, `Durchschnitt: `)
	wantAll(t, "a missing view in German", get(basePage("Leseliste", "Ungelesen", 0)), `Die Base 3_Ressourcen/Leseliste.base hat keine Ansicht „Ungelesen“.`, `Ihre Ansichten:`)
	// No English text in the German views (what the owner wrote is
	// marked translate="no" and left out).
	enWords, _ := words(t)
	tagRE := regexp.MustCompile(`(?s)<[^>]*translate="no"[^>]*>.*?</|<[^>]+>`)
	for _, p := range []string{"/bases", basePage("Leseliste", "Noch nicht gelesen", 0), basePage("Projekte", "Nach Status", 0)} {
		text := tagRE.ReplaceAllString(get(p), " ")
		for _, w := range proseWords(text) {
			if enWords[w] {
				t.Errorf("GET %s in German shows the English word %q", p, w)
			}
		}
	}
}

// Every summary Obsidian has is named in both languages.
func TestBases_SummaryNames(t *testing.T) {
	for _, s := range []string{"Average", "Min", "Max", "Sum", "Range", "Median", "Stddev", "Earliest", "Latest", "Checked", "Unchecked", "Empty", "Filled", "Unique"} {
		for _, l := range []*lang{en, de} {
			if _, ok := l.msgs["bases.sum."+s]; !ok {
				t.Errorf("the summary %s has no %s name", s, l.Code)
			}
		}
	}
	if got := string(de.SummaryName("formula.mine")); got != `<span translate="no">formula.mine</span>` {
		t.Errorf("a formula's summary: %q", got)
	}
}
