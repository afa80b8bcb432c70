package main

import (
	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/tools"
)

func (a *app) similarCmd() *cobra.Command {
	return toolCmd(a, command[tools.SimilarNotesArgs]{
		tool:  "search_similar_notes",
		use:   "NOTE",
		short: "List the notes most like a note, or one section of it",
		long: `List the notes most like NOTE (search_similar_notes), or with --heading most
like one of its sections: by the words they share, weighed by how rare they
are in the vault (German and English word forms and compound parts count),
with no language model. Each hit names its most similar section and the
words it shares.`,
		example: `  vaultd similar "Gewächshaus"
  vaultd similar 3_Ressourcen/Glossar.md --heading Wartungsfenster`,
		what: "the note to compare", onMissing: "vaultd list",
		index: true,
	})
}
