package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// helpPages is a base over the Obsidian help vault's own properties
// (permalink, aliases, description, publish, mobile): its Bases pages,
// the pages by folder, and the pages without a description.
const helpPages = `filters:
  and:
    - file.ext == "md"
formulas:
  section: file.folder.split("/")[0]
  words: description.split(" ").length
properties:
  permalink:
    displayName: Permalink
  formula.words:
    displayName: Words in description
views:
  - type: table
    name: Bases pages
    filters:
      and:
        - file.inFolder("Bases")
        - permalink.startsWith("bases")
    order: [file.name, permalink, formula.words, aliases]
    sort:
      - property: permalink
        direction: ASC
    summaries:
      formula.words: Average
      aliases: Filled
  - type: list
    name: Pages with several aliases
    filters: 'aliases.length >= 2 && description.isEmpty()'
    order: [file.name, file.folder, aliases]
    sort:
      - property: file.name
        direction: DESC
    limit: 5
  - type: table
    name: By section
    filters: 'file.hasLink("Properties") && !file.inFolder("Bases")'
    groupBy:
      property: formula.section
      direction: ASC
    order: [file.name, formula.section, publish]
    summaries:
      publish: Checked
`

// TestGolden_BasesHelpVault runs bases over a copy of the English Obsidian
// help vault: the example base of its "Bases syntax" page, as the page
// gives it, and a base over the vault's own properties.
func TestGolden_BasesHelpVault(t *testing.T) {
	src := "../../shared/corpora/obsidian-help-en"
	page, err := os.ReadFile(filepath.Join(src, "Bases", "Bases syntax.md"))
	if err != nil {
		t.Skipf("no help vault: %v", err)
	}
	// The page's example: the first ```yaml block after "## Example".
	_, rest, _ := strings.Cut(string(page), "## Example")
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	example, _, _ := strings.Cut(rest, "```")
	dir := copyTree(t, src)
	for name, body := range map[string]string{"Bases/Example.base": example, "Help pages.base": helpPages} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newTestCore(t, dir)
	for _, tc := range []struct{ name, args string }{
		{"help_example", `{"base":"Example"}`},
		{"help_example_view", `{"base":"Bases/Example.base","view":"My table"}`},
		{"help_bases_pages", `{"base":"Help pages","view":"Bases pages"}`},
		{"help_aliases", `{"base":"Help pages","view":"Pages with several aliases"}`},
		{"help_by_section", `{"base":"Help pages","view":"By section","limit":12}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkGoldenCall(t, c, readOnly, step{"query_base", tc.args}, dir, "", "query_base/"+tc.name)
		})
	}
}
