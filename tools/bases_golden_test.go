package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// basesGoldenCases run the example vault's saved views (the reading list
// and the project board) and ad-hoc filters, and each error a base or an
// expression can give.
var basesGoldenCases = []goldenCase{
	{name: "query_base/views", caller: readOnly, call: step{"query_base", `{"base":"Leseliste"}`}},
	{name: "query_base/unread", caller: readOnly, call: step{"query_base", `{"base":"Leseliste","view":"Noch nicht gelesen"}`}},
	{name: "query_base/read", caller: readOnly, call: step{"query_base", `{"base":"3_Ressourcen/Leseliste.base","view":"gelesen"}`}},
	{name: "query_base/grouped", caller: readOnly, call: step{"query_base", `{"base":"Projekte","view":"Nach Status"}`}},
	{name: "query_base/cards", caller: readOnly, call: step{"query_base", `{"base":"Projekte.base","view":"Aktiv"}`}},
	{name: "query_base/list", caller: readOnly, call: step{"query_base", `{"base":"Projekte","view":"Abgeschlossen"}`}},
	{name: "query_base/page", caller: readOnly, call: step{"query_base", `{"base":"Projekte","view":"Nach Status","limit":3}`}},
	{name: "query_base/page_2", caller: readOnly, call: step{"query_base", `{"base":"Projekte","view":"Nach Status","limit":3,"offset":3}`}},
	{name: "query_base/err_no_base", caller: readOnly, call: step{"query_base", `{"base":"Lesliste"}`}},
	{name: "query_base/err_no_view", caller: readOnly, call: step{"query_base", `{"base":"Leseliste","view":"Ungelesen"}`}},
	{name: "query_base/err_note_without_block", caller: readOnly, call: step{"query_base", `{"base":"3_Ressourcen/Git Workflow.md"}`}},
	{name: "query_notes/filter", caller: readOnly, call: step{"query_notes", `{"filter":"status == \"aktiv\" && file.hasTag(\"projekt\")","properties":"status, created, file.backlinks","sort":"created desc"}`}},
	{name: "query_notes/dates", caller: readOnly, call: step{"query_notes", `{"filter":"created >= today() - \"30 days\"","properties":"created, file.folder","sort":"created"}`}},
	{name: "query_notes/empty", caller: readOnly, call: step{"query_notes", `{"filter":"status == \"verworfen\""}`}},
	// A folder, tag or property no note has: the closest the vault has,
	// and the filter with the nearest to try.
	{name: "query_notes/empty_unknown_folder", caller: readOnly, call: step{"query_notes", `{"filter":"status == \"aktiv\" && file.inFolder(\"Projekte\")"}`}},
	{name: "query_notes/empty_unknown_property", caller: readOnly, call: step{"query_notes", `{"filter":"statuss == \"aktiv\" && file.hasTag(\"projekt\")"}`}},
	{name: "query_notes/err_parse", caller: readOnly, call: step{"query_notes", `{"filter":"status = \"aktiv\""}`}},
	{name: "query_notes/err_unknown_function", caller: readOnly, call: step{"query_notes", `{"filter":"file.hasTags(\"projekt\")"}`}},
	{name: "query_notes/err_empty", caller: readOnly, call: step{"query_notes", `{"filter":" "}`}},
}

func TestGolden_Bases(t *testing.T) {
	for _, tc := range basesGoldenCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyExampleVault(t)
			c := newTestCore(t, dir)
			checkGoldenCall(t, c, tc.caller, tc.call, dir, "", tc.name)
		})
	}
}

// TestGolden_BrokenBase: a base whose expression does not parse names the
// expression and the column, and never answers zero rows in silence.
func TestGolden_BrokenBase(t *testing.T) {
	dir := copyExampleVault(t)
	if err := os.WriteFile(filepath.Join(dir, "1_Projekte", "Kaputt.base"), []byte("filters:\n  and:\n    - status = \"aktiv\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newTestCore(t, dir)
	checkGoldenCall(t, c, readOnly, step{"query_base", `{"base":"Kaputt"}`}, dir, "", "query_base/err_broken")
}

// TestGolden_BaseBlock: a note's ```base block runs as a base named by
// the note, and a search whose best hit is that note shows its view.
func TestGolden_BaseBlock(t *testing.T) {
	dir := copyExampleVault(t)
	block := "---\ntags: [team]\n---\n# Team-Übersicht Projekte\n\nWer leitet welches Projekt:\n\n```base\nfilters:\n  and:\n    - file.hasTag(\"projekt\")\n    - status == \"aktiv\"\n    - file.folder == \"1_Projekte\"\nviews:\n  - type: table\n    name: Aktive Projekte\n    order: [file.name, created, file.backlinks]\n    sort:\n      - property: created\n        direction: ASC\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "2_Bereiche", "Team", "Projektleitung.md"), []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newTestCore(t, dir)
	checkGoldenCall(t, c, readOnly, step{"query_base", `{"base":"2_Bereiche/Team/Projektleitung.md"}`}, dir, "", "query_base/block")
	checkGoldenCall(t, c, readOnly, step{"search_notes", `{"query":"Projektleitung","limit":2}`}, dir, "", "query_base/block_search")
}
