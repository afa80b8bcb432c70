package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGolden_ObsidianExcludedFiles: with 4_Archiv/ and a regular
// expression in Obsidian's "Excluded files", search and listings leave
// those notes out and say so with the call that shows them; naming the
// folder, or reading by path, shows them.
func TestGolden_ObsidianExcludedFiles(t *testing.T) {
	dir := copyExampleVault(t)
	app := `{"attachmentFolderPath": "3_Ressourcen/Anhänge", "userIgnoreFilters": ["4_Archiv/", "/Snippets\\.md$/"]}`
	if err := os.WriteFile(filepath.Join(dir, ".obsidian", "app.json"), []byte(app), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newTestCore(t, dir)
	for _, tc := range []struct{ name, tool, args string }{
		{"search", "search_notes", `{"query":"Zeitleiste","limit":3}`},
		{"search_named_folder", "search_notes", `{"query":"Zeitleiste","folder":"4_Archiv","limit":2}`},
		{"search_regex", "search_notes", `{"query":"Shell","limit":3}`},
		{"list_root", "list_notes", `{}`},
		{"list_named_folder", "list_notes", `{"folder":"4_Archiv","limit":2}`},
		{"list_regex", "list_notes", `{"folder":"3_Ressourcen","limit":3}`},
		{"read_by_path", "read_note", `{"path":"4_Archiv/Sommerfest 2026.md"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, shown := runStep(t, c, readOnly, step{tc.tool, tc.args}, dir, "")
			if r.Err != nil {
				t.Fatalf("%s failed:\n%s", shown, r.Text)
			}
			checkContract(t, readOnly, step{tc.tool, tc.args}, r, dir)
			followSuggestions(t, c, readOnly, r)
			compareGolden(t, filepath.Join("testdata", "golden", "obsidian_excluded", tc.name+".golden"), renderGolden(shown, r, dir))
		})
	}
}
