package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/vault"
)

// TestQuality_ExampleVault runs the ranking table on the repository's
// example vault. The expectations come from reading its notes.
func TestQuality_ExampleVault(t *testing.T) {
	dir := filepath.Join("..", "example-vault")
	if _, err := os.Stat(filepath.Join(dir, "1_Projekte", "Klinikverbund Nord.md")); err != nil {
		t.Skip("example-vault is not there (yet)")
	}
	// The index keeps its state outside; the vault itself is only read.
	v, err := vault.Open(dir, vault.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ix := openIndex(t, v, Options{})

	among := func(limit int, paths ...string) func(t *testing.T, r *Results) {
		return func(t *testing.T, r *Results) {
			for _, p := range paths {
				if i := hitIndex(r, p); i < 0 || i >= limit {
					t.Errorf("%s at rank %d, want within the first %d:%s", p, i+1, limit, describe(r))
				}
			}
		}
	}
	snippetHas := func(p, want string) func(t *testing.T, r *Results) {
		return func(t *testing.T, r *Results) {
			if i := hitIndex(r, p); i < 0 || !strings.Contains(r.Hits[i].Snippet, want) {
				t.Errorf("snippet of %s lacks %s:%s", p, want, describe(r))
			}
		}
	}
	cases := []qualityCase{
		// Inflection and compounds: Häuser → Haus, Krankenhäuser, Gewächshäuser.
		{name: "häuser: whole words first", q: Query{Text: "häuser"}, top: []string{"1_Projekte/Hausbau Lindenweg.md", "2_Bereiche/Finanzen/Baufinanzierung.md"}},
		{name: "häuser: compounds found", q: Query{Text: "häuser", Limit: 50},
			check: among(50, "1_Projekte/Klinikverbund Nord.md", "2_Bereiche/Garten/Gewächshaus.md", "3_Ressourcen/Checkliste Datenschutz.md")},
		{name: "Krankenhäuser", q: Query{Text: "Krankenhäuser"}, top: []string{"1_Projekte/Klinikverbund Nord.md", "3_Ressourcen/Checkliste Datenschutz.md"},
			heading: ""},
		{name: "Krankenhaus section", q: Query{Text: "Krankenhäuser Praxen"}, first: "3_Ressourcen/Checkliste Datenschutz.md", heading: "Checkliste Datenschutz > Krankenhäuser und Praxen"},
		{name: "Plan finds Projektplan", q: Query{Text: "Plan"}, first: "1_Projekte/Website-Relaunch/Projektplan.md"},
		{name: "Tabelle", q: Query{Text: "Tabelle"}, first: "3_Ressourcen/Markdown Tabellen.md"},
		{name: "linking", q: Query{Text: "linking"}, first: "3_Ressourcen/Linking notes.md"},
		{name: "link", q: Query{Text: "link"}, first: "3_Ressourcen/Linking notes.md"},
		{name: "alias", q: Query{Text: "KVN"}, first: "1_Projekte/Klinikverbund Nord.md"},
		{name: "alias Neubau", q: Query{Text: "Neubau"}, first: "1_Projekte/Hausbau Lindenweg.md"},
		{name: "phrase", q: Query{Text: `"elf Häuser besichtigt"`}, first: "1_Projekte/Hausbau Lindenweg.md", heading: "Hausbau Lindenweg 7 > Vorgeschichte"},
		// Section choice (found by the budgeted-agent test): the section
		// whose own text covers the query words wins, not the top heading
		// that spans the whole note; title and alias words (Neubau,
		// Kanzlei Brandt) say nothing about the section.
		{name: "section covering the words, not the note's top", q: Query{Text: "Häuser besichtigt Neubau"},
			first: "1_Projekte/Hausbau Lindenweg.md", heading: "Hausbau Lindenweg 7 > Vorgeschichte",
			check: snippetHas("1_Projekte/Hausbau Lindenweg.md", "«besichtigt»")},
		{name: "title words do not pick the section", q: Query{Text: "Exchange server Kanzlei Brandt"},
			first: "1_Projekte/Kanzlei Brandt M365-Migration.md", heading: "Kanzlei Brandt – Migration zu Microsoft 365 > Zeitleiste"},
		// Dates: 16.11. meets 2026-11-16; the enclosing heading (the
		// date) counts for the sub-section.
		{name: "German date finds ISO date", q: Query{Text: "Wochenrunde 16.11. Beschlüsse"},
			first: "2_Bereiche/Team/Besprechungsprotokoll.md", heading: "Besprechungsprotokoll Team Nordlicht > Wochenrunde 2026-11-16 > Beschlüsse"},
		{name: "ISO date finds German dates", q: Query{Text: "2026-11-16 Richtfest"},
			top: []string{"1_Projekte/Hausbau Lindenweg.md", "2_Bereiche/Team/Anna Schäfer.md", "2_Bereiche/Finanzen/Baufinanzierung.md"}},
		{name: "full German date", q: Query{Text: "04.11.2026"},
			first: "1_Projekte/Website-Relaunch/Besprechungen/2026-11-04 Design-Review.md"},
		// Query-side decompounding: no note has Startseitenentwurf; the
		// Design-Review has Startseite and Entwurf apart.
		{name: "compound no note has: its parts", q: Query{Text: "Startseitenentwurf"},
			first: "1_Projekte/Website-Relaunch/Besprechungen/2026-11-04 Design-Review.md", heading: "Design-Review Website-Relaunch > Entwürfe"},
		// ... and when no note has all the words, compounds may match by
		// their parts too.
		{name: "relaxed query: compound parts", q: Query{Text: "Designentwurf gewählt"},
			top: []string{"1_Projekte/Website-Relaunch/Besprechungen/2026-11-04 Design-Review.md"}, n: 3},
		// A compound some note has is not split.
		{name: "compound some note has", q: Query{Text: "Designentwurf"},
			top: []string{"1_Projekte/Website-Relaunch/Board.md", "1_Projekte/Website-Relaunch/Besprechungen/2026-10-14 Kickoff.md"}, check: func(t *testing.T, r *Results) {
				if r.Total != 2 {
					t.Errorf("total = %d, want 2 (the notes with the word):%s", r.Total, describe(r))
				}
			}},
		{name: "Straße finds Straßenfest", q: Query{Text: "Strasse"}, top: []string{"1_Projekte/Straßenfest Planung.md"}},
		{name: "tag filter", q: Query{Text: "Ziele", Tag: "hausbau"}, first: "1_Projekte/Hausbau Lindenweg.md"},
		{name: "folder filter", q: Query{Text: "Zeitleiste", Folder: "1_Projekte"}, check: func(t *testing.T, r *Results) {
			for _, h := range r.Hits {
				if h.Space != "1_Projekte" {
					t.Errorf("hit %s outside 1_Projekte", h.Path)
				}
			}
			if i := hitIndex(r, "1_Projekte/Hausbau Lindenweg.md"); i < 0 || r.Hits[i].Heading != "Hausbau Lindenweg 7 > Zeitleiste" {
				t.Errorf("Hausbau Lindenweg missing or wrong heading:%s", describe(r))
			}
		}},
	}
	runQuality(t, ix, cases)

	// Backlinks by alias and with display text.
	bl, err := ix.Backlinks(t.Context(), "1_Projekte/Klinikverbund Nord.md")
	if err != nil {
		t.Fatal(err)
	}
	var raws []string
	for _, b := range bl {
		if b.Path == "3_Ressourcen/Linking notes.md" {
			raws = append(raws, b.Raw)
		}
	}
	if len(raws) < 2 {
		t.Errorf("Linking notes links Klinikverbund Nord by name and by alias [[KVN]]; backlinks from it: %q", raws)
	}
}
