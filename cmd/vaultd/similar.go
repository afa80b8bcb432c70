package main

import (
	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/mcpserver"
)

func (a *app) similarCmd() *cobra.Command {
	var s mcpserver.SimilarNotesArgs
	cmd := &cobra.Command{
		Use:   "similar NOTE",
		Short: "List the notes most like a note, or one section of it",
		Long: `List the notes most like NOTE (search_similar_notes), or with --heading most
like one of its sections: by the words they share, weighed by how rare they
are in the vault (German and English word forms and compound parts count),
with no language model. Each hit names its most similar section and the
words it shares.`,
		Example: `  vaultd similar "Gewächshaus"
  vaultd similar 3_Ressourcen/Glossar.md --heading Wartungsfenster`,
		Args: args(1, false, "the note to compare", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			s.Path = args[0]
			return a.callWithIndex(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.SearchSimilarNotes(ctx(cmd), who, s)
			})
		}),
	}
	cmd.Flags().StringVar(&s.Heading, "heading", "", "only this section: notes like it")
	cmd.Flags().IntVar(&s.Limit, "limit", 5, "notes per page")
	cmd.Flags().IntVar(&s.Offset, "offset", 0, "notes to skip, for the next page")
	return cmd
}
