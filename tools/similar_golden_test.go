package tools

import (
	"path/filepath"
	"testing"
)

// similarCases are search_similar_notes' answers on example-vault: a note,
// a section, a page further, a note too short to compare and the errors.
var similarCases = []goldenCase{
	{name: "search_similar_notes/note", caller: readOnly, call: step{"search_similar_notes", `{"path":"2_Bereiche/Garten/Gewächshaus.md","limit":3}`}},
	{name: "search_similar_notes/by_title", caller: readOnly, call: step{"search_similar_notes", `{"path":"Sommerfest 2026","limit":2}`}},
	{name: "search_similar_notes/section", caller: readOnly, call: step{"search_similar_notes", `{"path":"3_Ressourcen/Glossar.md","heading":"Wartungsfenster","limit":3}`}},
	{name: "search_similar_notes/wikilink_heading", caller: readOnly, call: step{"search_similar_notes", `{"path":"[[Website-Relaunch#Zeitleiste]]","limit":2}`}},
	{name: "search_similar_notes/second_page", caller: readOnly, call: step{"search_similar_notes", `{"path":"1_Projekte/Hausbau Lindenweg.md","limit":2,"offset":2}`}},
	{name: "search_similar_notes/past_the_end", caller: readOnly, call: step{"search_similar_notes", `{"path":"1_Projekte/Hausbau Lindenweg.md","offset":500}`}},
	{name: "search_similar_notes/no_words", caller: readOnly,
		before: []step{{"create_note", `{"path":"0_Inbox/Oder.md","content":"---\ntags: [inbox]\n---\nund oder\n","change_summary":"kurz"}`}},
		call:   step{"search_similar_notes", `{"path":"0_Inbox/Oder.md"}`}},
	{name: "search_similar_notes/err_missing_note", caller: readOnly, call: step{"search_similar_notes", `{"path":"2_Bereiche/Garten/Gewaechshaus.md"}`}},
	{name: "search_similar_notes/err_missing_heading", caller: readOnly, call: step{"search_similar_notes", `{"path":"3_Ressourcen/Glossar.md","heading":"Wartungsfenstr"}`}},
	{name: "search_similar_notes/err_empty_path", caller: readOnly, call: step{"search_similar_notes", `{"path":""}`}},
}

func TestGolden_Similar(t *testing.T) {
	for _, tc := range similarCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyExampleVault(t)
			c := newTestCore(t, dir)
			for _, s := range tc.before {
				if r, _ := runStep(t, c, everyone, s, dir, ""); r.Err != nil {
					t.Fatalf("setup %s failed:\n%s", s.tool, r.Text)
				}
			}
			r, shown := runStep(t, c, tc.caller, tc.call, dir, "")
			got := renderGolden(shown, r, dir)
			checkContract(t, tc.caller, tc.call, r, dir)
			followSuggestions(t, c, tc.caller, r)
			compareGolden(t, filepath.Join("testdata", "golden", tc.name+".golden"), got)
		})
	}
}
