package index

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// A long note whose words are diluted by its length, and short notes that
// mention the same words once.
func sectionVault() map[string]string {
	var law strings.Builder
	law.WriteString("# Gesetz über Tiere\n\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&law, "## § %d Allgemeines %d\n\nDie Vorschrift %d regelt Verwaltungsverfahren, Fristen und Zuständigkeiten der Behörden.\n\n", i, i, i)
	}
	law.WriteString("## § 41 Haftung des Tierhalters\n\nWird durch ein Tier ein Mensch verletzt, so ist derjenige, welcher das Tier hält, zum Ersatz verpflichtet.\n\n")
	for i := 42; i <= 80; i++ {
		fmt.Fprintf(&law, "## § %d Schlussvorschrift %d\n\nDie Vorschrift %d gilt ab dem Jahr %d; der Tierhalter wird unterrichtet.\n\n", i, i, i, 1950+i)
	}
	return map[string]string{
		"Gesetze/Tiergesetz.md":       law.String(),
		"Notizen/Haftung.md":          "# Haftung\n\nHaftung ist ein weites Feld.\n",
		"Notizen/Tierhalter.md":       "# Tierhalter\n\nDer Tierhalter füttert.\n",
		"Notizen/Grundgesetz.md":      "# Grundgesetz\n\n## Art 1\n\nDie Würde des Menschen ist unantastbar.\n\n## Art 2\n\nJeder hat das Recht auf die freie Entfaltung seiner Persönlichkeit.\n",
		"Notizen/Konjunktiv.md":       "# Konjunktiv\n\nEr würde kommen, wenn es den Menschen passt. Menschen würden das begrüßen.\n",
		"Notizen/Arbeitsrecht.md":     "# Arbeitsrecht\n\n## Fristen\n\nDie Kündigung braucht eine Frist.\n\n## Form\n\nDie Kündigung bedarf der Schriftform.\n\n## Gründe\n\nEine Kündigung aus wichtigem Grund.\n\n## Zugang\n\nDie Kündigung muss zugehen.\n\n## Sonstiges\n\nNichts.\n",
		"Notizen/Ohne Überschrift.md": "Kündigung ohne jede Überschrift.\n",
	}
}

// TestSections_LongNoteParagraph: the paragraph of a long note that answers
// comes first, though short notes have the words too.
func TestSections_LongNoteParagraph(t *testing.T) {
	v, _ := newVault(t, sectionVault())
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "Haftung Tierhalter"})
	if len(r.Hits) == 0 || r.Hits[0].Path != "Gesetze/Tiergesetz.md" || r.Hits[0].Heading != "Gesetz über Tiere > § 41 Haftung des Tierhalters" {
		t.Fatalf("search Haftung Tierhalter: want Gesetze/Tiergesetz.md at § 41 first; got:%s", describe(r))
	}
	s := r.Hits[0].Sections[0]
	if s.Ref != "§ 41 Haftung des Tierhalters" || s.Line != 165 || !strings.HasPrefix(s.Snippet, "Wird durch ein Tier") {
		t.Errorf("section = %+v, want ref %q, line 165 and its text as the snippet", s, "§ 41 Haftung des Tierhalters")
	}
	if r := mustSearch(t, ix, Query{Text: "Tierhalter Ersatz"}); len(r.Hits) == 0 || !strings.Contains(r.Hits[0].Snippet, "zum «Ersatz» verpflichtet") {
		t.Errorf("search Tierhalter Ersatz: want the snippet to mark «Ersatz»; got:%s", describe(r))
	}
	// The compound no note has finds the same paragraph by its parts.
	r = mustSearch(t, ix, Query{Text: "Tierhalterhaftung"})
	if len(r.Hits) == 0 || r.Hits[0].Heading != "Gesetz über Tiere > § 41 Haftung des Tierhalters" {
		t.Errorf("search Tierhalterhaftung: want § 41 first; got:%s", describe(r))
	}
}

// TestSections_SeveralPerHit: a hit shows its best sections (3 by
// default), counts all that match, and Path pages through them.
func TestSections_SeveralPerHit(t *testing.T) {
	v, _ := newVault(t, sectionVault())
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "Kündigung"})
	i := hitIndex(r, "Notizen/Arbeitsrecht.md")
	if i < 0 {
		t.Fatalf("search Kündigung: Notizen/Arbeitsrecht.md missing:%s", describe(r))
	}
	h := r.Hits[i]
	if len(h.Sections) != 3 || h.SectionsTotal != 4 {
		t.Fatalf("hit %s: %d sections shown of %d, want 3 of 4 (Fristen, Form, Gründe, Zugang): %+v", h.Path, len(h.Sections), h.SectionsTotal, h.Sections)
	}
	for _, s := range h.Sections[1:] {
		if s.Snippet != "" || s.Heading == "" {
			t.Errorf("further section %+v: want a heading and no snippet", s)
		}
	}
	var all []string
	for off := 0; off < 6; off += 2 {
		p := mustSearch(t, ix, Query{Text: "Kündigung", Path: "Notizen/Arbeitsrecht.md", Limit: 2, Offset: off})
		if p.Total != 1 || len(p.Hits) != 1 {
			t.Fatalf("path search at %d: %d notes, %d hits, want 1 and 1", off, p.Total, len(p.Hits))
		}
		ph := p.Hits[0]
		if ph.SectionsTotal != 4 || ph.SectionsOffset != min(off, 4) {
			t.Errorf("path search at %d: total %d offset %d, want 4 and %d", off, ph.SectionsTotal, ph.SectionsOffset, min(off, 4))
		}
		for _, s := range ph.Sections {
			if s.Snippet == "" {
				t.Errorf("path search: section %q has no snippet", s.Heading)
			}
			all = append(all, s.Ref)
		}
	}
	if got := strings.Join(all, ","); len(all) != 4 || !strings.Contains(got, "Fristen") || !strings.Contains(got, "Zugang") {
		t.Errorf("pages list %q, want the 4 matching sections once each", got)
	}
	// The pages continue where the hit's sections end.
	if first := mustSearch(t, ix, Query{Text: "Kündigung", Path: "Notizen/Arbeitsrecht.md", Limit: 3}); fmt.Sprint(refs(first.Hits[0])) != fmt.Sprint(refs(h)) {
		t.Errorf("path search lists %v first, the hit showed %v", refs(first.Hits[0]), refs(h))
	}
	// A note without headings is one section: its text.
	if p := mustSearch(t, ix, Query{Text: "Kündigung", Path: "Notizen/Ohne Überschrift.md"}); len(p.Hits) != 1 || p.Hits[0].SectionsTotal != 1 || p.Hits[0].Sections[0].Heading != "" || p.Hits[0].Sections[0].Snippet == "" {
		t.Errorf("note without headings: %+v", p.Hits)
	}
	// A note that does not have the words is no hit.
	if p := mustSearch(t, ix, Query{Text: "Kündigung", Path: "Notizen/Haftung.md"}); p.Total != 0 || len(p.Hits) != 0 {
		t.Errorf("path search in a note without the word: %d notes", p.Total)
	}
}

func refs(h Hit) []string {
	var out []string
	for _, s := range h.Sections {
		out = append(out, s.Ref)
	}
	return out
}

// TestSearch_Homograph: a stop word that is also a noun is searched when it
// is the only word, and ranks without restricting beside other words; the
// words as a phrase rank first.
func TestSearch_Homograph(t *testing.T) {
	v, _ := newVault(t, sectionVault())
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "Würde"})
	if r.Total == 0 || hitIndex(r, "Notizen/Grundgesetz.md") < 0 {
		t.Errorf("search Würde: want Notizen/Grundgesetz.md; got:%s", describe(r))
	}
	r = mustSearch(t, ix, Query{Text: "Würde des Menschen"})
	if len(r.Hits) == 0 || r.Hits[0].Path != "Notizen/Grundgesetz.md" || r.Hits[0].Heading != "Grundgesetz > Art 1" {
		t.Errorf("search Würde des Menschen: want Grundgesetz > Art 1 first; got:%s", describe(r))
	}
	if strings.Join(r.Optional, ",") != "Würde" || strings.Join(r.Ignored, ",") != "des" {
		t.Errorf("optional %q, ignored %q; want [Würde] and [des]", r.Optional, r.Ignored)
	}
	// Menschen is required, Würde is not.
	if hitIndex(r, "Notizen/Konjunktiv.md") < 0 {
		t.Errorf("search Würde des Menschen: Notizen/Konjunktiv.md (Menschen, würde) missing:%s", describe(r))
	}
}

// TestSearch_DidYouMean: a word no note has gets the vault's words spelled
// alike, as the notes write them, and a query with the first of them that
// finds notes.
func TestSearch_DidYouMean(t *testing.T) {
	v, _ := newVault(t, sectionVault())
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "Kündgung"})
	if r.Total != 0 || len(r.Suggestions) != 1 {
		t.Fatalf("search Kündgung: %d notes, suggestions %+v; want 0 notes and one suggestion", r.Total, r.Suggestions)
	}
	s := r.Suggestions[0]
	if s.Word != "Kündgung" || len(s.Words) == 0 || s.Words[0] != "Kündigung" || s.Query != "Kündigung" {
		t.Errorf("suggestion %+v, want Kündgung → Kündigung", s)
	}
	if r2 := mustSearch(t, ix, Query{Text: s.Query}); r2.Total == 0 {
		t.Errorf("the suggested query %q finds nothing", s.Query)
	}
	// A word some note has gets none.
	if r := mustSearch(t, ix, Query{Text: "Kündigung"}); len(r.Suggestions) != 0 {
		t.Errorf("search Kündigung: suggestions %+v, want none", r.Suggestions)
	}
}

// TestSections_Documents: every note has its section documents, and
// rewriting or removing a note leaves none behind.
func TestSections_Documents(t *testing.T) {
	files := sectionVault()
	v, dir := newVault(t, files)
	idx := t.TempDir()
	ix := openIndex(t, v, Options{Dir: idx})
	count := func() int {
		n, err := ix.bi.DocCount()
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	want := func() int {
		ix.wmu.Lock()
		defer ix.wmu.Unlock()
		return ix.man.docs()
	}
	// 7 notes; the law has 81 headings and no text before them.
	if got := count(); got != want() || got != 7+81+1+1+3+1+6+1 {
		t.Errorf("documents: got %d, manifest %d", got, want())
	}
	p := filepath.Join(dir, "Notizen", "Arbeitsrecht.md")
	if err := os.WriteFile(p, []byte("# Arbeitsrecht\n\nNur noch ein Abschnitt.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ix.Update("Notizen/Arbeitsrecht.md"); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != want() || got != 7+81+1+1+3+1+1+1 {
		t.Errorf("after shortening a note: %d documents, manifest %d", got, want())
	}
	if r := mustSearch(t, ix, Query{Text: "Schriftform"}); r.Total != 0 {
		t.Errorf("a removed section still matches:%s", describe(r))
	}
	if err := os.Remove(filepath.Join(dir, "Gesetze", "Tiergesetz.md")); err != nil {
		t.Fatal(err)
	}
	if err := ix.Update("Gesetze/Tiergesetz.md"); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != want() || got != 6+1+1+3+1+1+1 {
		t.Errorf("after removing the law: %d documents, manifest %d", got, want())
	}
	if r := mustSearch(t, ix, Query{Text: "Tierhalter"}); hitIndex(r, "Gesetze/Tiergesetz.md") >= 0 {
		t.Errorf("the removed law still matches:%s", describe(r))
	}
	// A restart finds index and manifest in agreement.
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix2 := openIndex(t, v, Options{Dir: idx})
	if st := ix2.Status(); st.Indexed != 0 {
		t.Errorf("restart reindexed %d notes, want 0", st.Indexed)
	}
}

// TestSections_CompoundInHeading: a section whose heading holds the
// query's words only inside a compound (Timesheets for time sheet,
// Urlaubsantrag for Antrag Urlaub) holds those words, and goes before
// sections whose heading is one of the words alone.
func TestSections_CompoundInHeading(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"Team/Handbook.md": "# Team handbook\n\n## Sheets\n\nThe printer prints a test sheet each morning.\n\n" +
			"## Office hours\n\nThe office opens at eight; submit questions to the front desk.\n\n" +
			"## Timesheets\n\nSubmit your hours every Friday in the HR portal.\n\n## Time off\n\nAsk your lead two weeks ahead.\n",
		"Team/Handbuch.md": "# Handbuch\n\n## Urlaub\n\nJeder hat 30 Tage im Jahr.\n\n" +
			"## Anträge allgemein\n\nEin Antrag auf Reisekosten geht an die Buchhaltung.\n\n" +
			"## Urlaubsantrag\n\nDen Antrag stellt man im Portal, zwei Wochen vorher.\n",
	})
	ix := openIndex(t, v, Options{})
	for _, c := range []struct{ q, path, heading string }{
		{"submit time sheet", "Team/Handbook.md", "Team handbook > Timesheets"},
		{"Antrag Urlaub", "Team/Handbuch.md", "Handbuch > Urlaubsantrag"},
		{"Wie stelle ich einen Antrag auf Urlaub?", "Team/Handbuch.md", "Handbuch > Urlaubsantrag"},
	} {
		r := mustSearch(t, ix, Query{Text: c.q})
		i := hitIndex(r, c.path)
		if i < 0 || len(r.Hits[i].Sections) == 0 || r.Hits[i].Sections[0].Heading != c.heading {
			t.Errorf("search %q: want %s with %q as its first section; got:%s", c.q, c.path, c.heading, describe(r))
		}
	}
}

// A build indexes each batch in parts, one per core: every note and every
// section is found, and the index holds as many documents as the manifest
// says, however the notes were dealt to the parts.
func TestBuild_Parts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var mu sync.Mutex
	most := 0
	testHookParts = func(n int) {
		mu.Lock()
		most = max(most, n)
		mu.Unlock()
	}
	defer func() { testHookParts = nil }()
	files := map[string]string{}
	for i := range 40 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Notiz %d\n\nEinleitung.\n\n", i)
		for k := range i % 5 {
			fmt.Fprintf(&b, "## Abschnitt %d\n\nText mit wort%dx%d darin.\n\n", k, i, k)
		}
		files[fmt.Sprintf("n/notiz%02d.md", i)] = b.String()
	}
	v, _ := newVault(t, files)
	ix := openIndex(t, v, Options{BatchDocs: 9})
	if most < 2 {
		t.Fatalf("the build's batches were indexed in at most %d part(s), want more on 4 cores", most)
	}
	n, err := ix.bi.DocCount()
	if err != nil {
		t.Fatal(err)
	}
	ix.wmu.Lock()
	want := ix.man.docs()
	ix.wmu.Unlock()
	if int(n) != want {
		t.Errorf("%d documents in the index, the manifest counts %d", n, want)
	}
	for i := range 40 {
		for k := range i % 5 {
			r := mustSearch(t, ix, Query{Text: fmt.Sprintf("wort%dx%d", i, k)})
			if len(r.Hits) != 1 || r.Hits[0].Path != fmt.Sprintf("n/notiz%02d.md", i) || len(r.Hits[0].Sections) == 0 ||
				!strings.HasSuffix(r.Hits[0].Sections[0].Heading, fmt.Sprintf("Abschnitt %d", k)) {
				t.Errorf("wort%dx%d:%s", i, k, describe(r))
			}
		}
	}
}

// A word in most sections is left out of the section ranking (over
// sectionBudget), the most frequent first, not the whole ranking: the
// notes are still ordered by the sections that hold the rarer words, and
// must still hold every word.
func TestSections_FrequentWordLeftOut(t *testing.T) {
	var law strings.Builder
	law.WriteString("# Tiergesetz\n\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&law, "## § %d Allgemeines %d\n\nDieses Gesetz gilt ab dem Tag der Verkündung, Absatz %d.\n\n", i, i, i)
	}
	law.WriteString("## § 31 Haftung\n\nDer Tierhalter haftet nach diesem Gesetz für jeden Schaden.\n")
	v, _ := newVault(t, map[string]string{
		"Recht/Tiergesetz.md": law.String(),
		"Recht/Notiz.md":      "# Notiz\n\nGesetz Gesetz Gesetz: ein Tierhalter wird hier nur erwähnt.\n",
		"Recht/Ohne.md":       "# Ohne\n\nDer Tierhalter ohne das andere Wort.\n",
	})
	ix := openIndex(t, v, Options{})
	defer func(b uint64) { sectionBudget = b }(sectionBudget)
	sectionBudget = ix.docFreq(fSecBody, "tierhalt") + ix.docFreq(fSecHead, "tierhalt") + 5
	if n := ix.docFreq(fSecBody, "gesetz"); n <= sectionBudget {
		t.Fatalf("gesetz is in %d sections, within the budget %d", n, sectionBudget)
	}
	for _, c := range []struct {
		q              string
		ranked         bool
		first, section string
	}{
		// The frequent word first: it is left out, not the rare one.
		{"Gesetz Tierhalter", true, "Recht/Tiergesetz.md", "Tiergesetz > § 31 Haftung"},
		{"Gesetz", false, "", ""},
	} {
		pq, err := buildQuery(Query{Text: c.q})
		if err != nil {
			t.Fatal(err)
		}
		if got := ix.sectionQuery(pq) != nil; got != c.ranked {
			t.Errorf("%q: ranked by sections %v, want %v", c.q, got, c.ranked)
		}
		if c.first == "" {
			continue
		}
		r := mustSearch(t, ix, Query{Text: c.q})
		if hitIndex(r, "Recht/Ohne.md") >= 0 {
			t.Errorf("%q: a note without Gesetz is a hit:%s", c.q, describe(r))
		}
		if len(r.Hits) == 0 || r.Hits[0].Path != c.first || len(r.Hits[0].Sections) == 0 || r.Hits[0].Sections[0].Heading != c.section {
			t.Errorf("%q: want %s, section %q, first; got:%s", c.q, c.first, c.section, describe(r))
		}
	}
}

// A section repeated word for word (a law's annex repeats a contract's
// "Urlaub" section for each trade) counts once for its note: of two notes
// with the same section, the one named by the words (Urlaub.md) comes
// first, though the other's repeats add up to more.
func TestSections_RepeatsCountOnce(t *testing.T) {
	repeat := "## Urlaub\n\n24 Werktage sind mindestens als Urlaub zu gewähren.\n\n"
	v, _ := newVault(t, map[string]string{
		"Tarif/Anlagen.md":  "# Anlagen\n\n" + strings.Repeat("## Anlage\n\nFür das Gewerbe gilt:\n\n"+repeat, 4),
		"Gesetze/Urlaub.md": "# Arbeitnehmerrechte\n\n" + repeat + "## § 4 Wartezeit\n\nNach sechs Monaten.\n",
		"Gesetze/Andere.md": "# Andere\n\nNichts zum Thema.\n",
	})
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "Urlaub mindestens 24 Werktage"})
	if len(r.Hits) < 2 || r.Hits[0].Path != "Gesetze/Urlaub.md" {
		t.Errorf("want Gesetze/Urlaub.md first; got:%s", describe(r))
	}
}

// A section whose heading names every word as asked comes before one
// whose heading names one of them in another form, even with the words
// as a phrase in its text: § 1601 Unterhaltsverpflichtete (a compound of
// both words) before § 1751's "Verpflichtung zum Unterhalt" (the noun of
// verpflichtet), whose text says "des Unterhalts verpflichtet".
func TestSearch_HeadingNamingTheWordsFirst(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"b/bgb/index.md": "# Bürgerliches Gesetzbuch\n\n" +
			"## § 1601 Unterhaltsverpflichtete\n\nVerwandte in gerader Linie sind verpflichtet, einander Unterhalt zu gewähren.\n\n" +
			"## § 1751 Wirkung der elterlichen Einwilligung, Verpflichtung zum Unterhalt\n\n(4) Der Annehmende ist dem Kind vor den Verwandten des Kindes zur Gewährung des Unterhalts verpflichtet, sobald die Eltern des Kindes die erforderliche Einwilligung erteilt haben.\n",
	})
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "Wer ist zum Unterhalt verpflichtet?"})
	wantFirstSection(t, r, "b/bgb/index.md", "§ 1601 Unterhaltsverpflichtete")
}

// A section with nothing to read (its heading, then a heading as high)
// is shown last: reading it would show its heading alone. A section whose
// text is its sub-sections shows the first one's snippet.
func TestSearch_EmptySectionsLast(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"2_Bereiche/Wochenrunde.md": "# Wochenrunde 2026-11-16\n\n" +
			"## Budget Beschlüsse\n\n" +
			"## Protokoll\n\nBeschlüsse: Das Budget für den Relaunch wird freigegeben, 12.000 Euro.\n",
		"1_Projekte/Relaunch.md": "# Relaunch\n\n" +
			"## Budget Planung\n\n" +
			"### Erstes Quartal\n\nDie Planung sieht für das erste Quartal ein Budget von 4.000 Euro vor.\n",
	})
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "Budget Beschlüsse"})
	if len(r.Hits) == 0 || len(r.Hits[0].Sections) < 2 || !strings.HasSuffix(r.Hits[0].Sections[0].Heading, "Protokoll") {
		t.Errorf("first section: want Protokoll, before the empty Budget Beschlüsse\n%s", describe(r))
	}
	r = mustSearch(t, ix, Query{Text: "Budget Planung"})
	if len(r.Hits) == 0 || len(r.Hits[0].Sections) == 0 {
		t.Fatalf("no hit\n%s", describe(r))
	}
	s := r.Hits[0].Sections[0]
	if !strings.HasSuffix(s.Heading, "Budget Planung") || !strings.Contains(s.Snippet, "«Budget»") || s.Line != 7 {
		t.Errorf("first section: want Budget Planung with the snippet of its sub-section, line 7; got %q line %d %q\n%s", s.Heading, s.Line, s.Snippet, describe(r))
	}
}

// Notes are ranked by their best sections, and a section whose heading
// names a word in a compound ("§ 11 Urlaubsentgelt" for Urlaub) counts
// it there, at part weight, as the sections shown within a note do: the
// paragraph about holiday pay comes before a shorter one that mentions
// both words in passing.
func TestSearch_SectionRankCountsHeadingCompounds(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"b/burlg/index.md": "# Mindesturlaubsgesetz für Arbeitnehmer (Bundesurlaubsgesetz)\n\n" +
			"## § 1 Urlaubsanspruch\n\nJeder Arbeitnehmer hat in jedem Kalenderjahr Anspruch auf bezahlten Erholungsurlaub.\n\n" +
			"## § 11 Urlaubsentgelt\n\n(1) Das Urlaubsentgelt bemißt sich nach dem durchschnittlichen Arbeitsverdienst, das der Arbeitnehmer in den letzten dreizehn Wochen vor dem Beginn des Urlaubs erhalten hat, mit Ausnahme des zusätzlich für Überstunden gezahlten Arbeitsverdienstes. " +
			"Bei Verdiensterhöhungen nicht nur vorübergehender Natur, die während des Berechnungszeitraums oder des Urlaubs eintreten, ist von dem erhöhten Verdienst auszugehen.\n",
		"s/sgb_9/index.md": "# Neuntes Buch Sozialgesetzbuch\n\n" +
			"## § 210 Beschäftigung schwerbehinderter Menschen in Heimarbeit\n\n(3) Die Bezahlung des zusätzlichen Urlaubs richtet sich nach dem Arbeitsverdienst.\n",
	})
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "Urlaub Arbeitsverdienst"})
	wantFirstSection(t, r, "b/burlg/index.md", "§ 11 Urlaubsentgelt")
}

// A heading with two compounds of a word names it once: a collective
// agreement's "Arbeitszeitverteilung / Arbeitszeitausgleich", repeated for
// each trade, does not outrank the paragraph on the working day.
func TestSearch_HeadingCompoundsCountOnce(t *testing.T) {
	trade := "## Arbeitszeitverteilung / Arbeitszeitausgleich\n\nDie regelmäßige oder an einzelnen Werktagen ausfallende Arbeitszeit kann durch Verlängerung der Arbeitszeit an anderen Werktagen ausgeglichen werden. " +
		"Für gesetzliche Wochenfeiertage ist eine Arbeitszeit von 7,5 Stunden (Winterarbeitszeit) bzw. von 8 Stunden (Sommerarbeitszeit) maßgeblich, die werktägliche Arbeitszeit beträgt acht Stunden.\n\n"
	v, _ := newVault(t, map[string]string{
		"a/arbzg/index.md": "# Arbeitszeitgesetz (ArbZG)\n\n" +
			"## § 3 Arbeitszeit der Arbeitnehmer\n\nDie werktägliche Arbeitszeit der Arbeitnehmer darf acht Stunden nicht überschreiten. Sie kann auf bis zu zehn Stunden nur verlängert werden, wenn innerhalb von sechs Kalendermonaten oder innerhalb von 24 Wochen im Durchschnitt acht Stunden werktäglich nicht überschritten werden.\n\n" +
			"## § 4 Ruhepausen\n\nDie Arbeit ist durch im Voraus feststehende Ruhepausen von mindestens 30 Minuten bei einer Arbeitszeit von mehr als sechs bis zu neun Stunden zu unterbrechen.\n",
		"s/sokasig/index.md": "# Gesetz zur Sicherung der Sozialkassenverfahren\n\n" +
			"# Dachdeckerhandwerk\n\n" + trade + "# Gerüstbauerhandwerk\n\n" + trade + "# Steinmetzhandwerk\n\n" + trade,
	})
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "werktägliche Arbeitszeit acht Stunden"})
	wantFirstSection(t, r, "a/arbzg/index.md", "§ 3 Arbeitszeit der Arbeitnehmer")
}

// A section that holds every word of the question answers it more than a
// short one with some of them in its heading and text: KSchG § 17
// (Arbeitgeber, Entlassungen and Anzeige in its long text) before a
// pension fund's "§ 6 Ausscheiden von Arbeitgebern", which mentions an
// Entlassung and has no Anzeige.
func TestSearch_SectionWithEveryWordFirst(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"k/kschg/index.md": "# Kündigungsschutzgesetz (KSchG)\n\n## § 1 Sozial ungerechtfertigte Kündigungen\n\n(1) Die Kündigung des Arbeitsverhältnisses gegenüber einem Arbeitnehmer ist rechtsunwirksam, wenn sie sozial ungerechtfertigt ist.\n\n" +
			"## Dritter Abschnitt - Anzeigepflichtige Entlassungen\n\n### § 17 Anzeigepflicht\n\n(1) Der Arbeitgeber ist verpflichtet, der Agentur für Arbeit Anzeige zu erstatten, bevor er\n\n" +
			"1.  in Betrieben mit in der Regel mehr als 20 und weniger als 60 Arbeitnehmern mehr als 5 Arbeitnehmer,\n\n" +
			"2.  in Betrieben mit in der Regel mindestens 60 und weniger als 500 Arbeitnehmern 10 vom Hundert der im Betrieb regelmäßig beschäftigten Arbeitnehmer oder aber mehr als 25 Arbeitnehmer,\n\n" +
			"3.  in Betrieben mit in der Regel mindestens 500 Arbeitnehmern mindestens 30 Arbeitnehmer\n\n" +
			"innerhalb von 30 Kalendertagen entläßt. Den Entlassungen stehen andere Beendigungen des Arbeitsverhältnisses gleich, die vom Arbeitgeber veranlaßt werden.\n\n" +
			"(2) Beabsichtigt der Arbeitgeber, nach Absatz 1 anzeigepflichtige Entlassungen vorzunehmen, hat er dem Betriebsrat rechtzeitig die zweckdienlichen Auskünfte zu erteilen und ihn schriftlich insbesondere zu unterrichten über die Gründe für die geplanten Entlassungen.\n",
		"p/pkdbsa/index.md": "# Satzung der Pensionskasse (PKDBSa)\n\n## § 5 Anzeige der Beschäftigten\n\nDie beteiligten Arbeitgeber zeigen der Kasse die Beschäftigten an.\n\n" +
			"## § 6 Ausscheiden von Arbeitgebern\n\n(2) Die Arbeitgeber können ihre Mitgliedschaft mit einer Frist von einem Jahr zum Ende eines Geschäftsjahres kündigen.\n\n" +
			"(3) In besonderen Fällen kann eine Entlassung aus der Mitgliedschaft ohne Kündigungsfrist vereinbart werden, wenn der Arbeitgeber eine gleichwertige Versorgung anderweitig sicherstellt.\n",
	})
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "Muss der Arbeitgeber Entlassungen anzeigen?"})
	wantFirstSection(t, r, "k/kschg/index.md", "§ 17 Anzeigepflicht")
}

// wantFirstSection fails t unless the first section shown is note p's
// section whose heading path ends in heading.
func wantFirstSection(t *testing.T, r *Results, p, heading string) {
	t.Helper()
	if secs := flatSections(r); len(secs) == 0 || secs[0].path != p || !strings.HasSuffix(secs[0].heading, heading) {
		t.Errorf("first section: want %s, %s\n%s", p, heading, describe(r))
	}
}

// TestNoteFields_ForgetsOnlyWhatACommitIndexed: a commit forgets the
// remembered fields of the notes it indexed, not those of the others (a
// write every few hundred ms made every search read its hits' fields
// again), and a search then shows the new title.
func TestNoteFields_ForgetsOnlyWhatACommitIndexed(t *testing.T) {
	v, dir := newVault(t, map[string]string{
		"a.md": "---\ntitle: Alpha Vertrag\n---\nKündigungsfrist drei Monate.\n",
		"b.md": "---\ntitle: Beta Vertrag\n---\nKündigungsfrist sechs Wochen.\n",
	})
	ix := openIndex(t, v, Options{})
	titles := func() map[string]string {
		out := map[string]string{}
		for _, h := range mustSearch(t, ix, Query{Text: "Kündigungsfrist"}).Hits {
			out[h.Path] = h.Title
		}
		return out
	}
	if got := titles(); got["a.md"] != "Alpha Vertrag" || got["b.md"] != "Beta Vertrag" {
		t.Fatalf("titles = %v", got)
	}
	remembered := func(p string) bool {
		ix.fields.Lock()
		defer ix.fields.Unlock()
		_, ok := ix.fields.m[p]
		return ok
	}
	if !remembered("a.md") || !remembered("b.md") {
		t.Fatalf("a search did not remember its hits' fields")
	}
	writeFiles(t, dir, map[string]string{"a.md": "---\ntitle: Alpha Vertrag neu\n---\nKündigungsfrist drei Monate.\n"})
	if err := ix.Update("a.md"); err != nil {
		t.Fatal(err)
	}
	if remembered("a.md") || !remembered("b.md") {
		t.Errorf("after a commit of a.md: a.md remembered %v (want false), b.md %v (want true)", remembered("a.md"), remembered("b.md"))
	}
	if got := titles(); got["a.md"] != "Alpha Vertrag neu" || got["b.md"] != "Beta Vertrag" {
		t.Errorf("titles after the commit = %v", got)
	}
}

// TestSnippet_MarksWordsAsTheIndexHasThem: a snippet marks a word the
// index holds as one term though it has an apostrophe, a dot or a comma
// inside ("plugin's", "node.js", "1,5"): cut at them, such words were
// matched but not marked.
func TestSnippet_MarksWordsAsTheIndexHasThem(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"a.md": "# Plugins\n\nOpen the plugin's settings tab.\n",
		"b.md": "# Setup\n\nInstall node.js first, then the rest.\n",
		"c.md": "# Radweg\n\nDer Abstand beträgt 1,5 m innerorts.\n",
		"d.md": "# Anderes\n\nThe plugin list and the settings.\n",
	})
	ix := openIndex(t, v, Options{})
	for q, want := range map[string]string{
		"plugin's settings": "«plugin's» «settings»",
		"node.js":           "«node.js»",
		"Abstand 1,5":       "«Abstand» beträgt «1,5»",
	} {
		r := mustSearch(t, ix, Query{Text: q})
		if len(r.Hits) == 0 || !strings.Contains(r.Hits[0].Snippet, want) {
			t.Errorf("search %q: want %q in the first snippet\n%s", q, want, describe(r))
		}
	}
}
