package main

import (
	"encoding/csv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/tools"
)

// csvRows is how many rows --csv asks for: every row of the view (a
// person exporting a view wants all of it, as Obsidian's Export CSV does).
const csvRows = 1 << 30

// baseCmd is `vaultd base run BASE --view NAME` (query_base), with --csv.
func (a *app) baseCmd() *cobra.Command {
	var asCSV bool
	run := toolCmd(a, command[tools.QueryBaseArgs]{
		tool:  "query_base",
		use:   "BASE [--view NAME]",
		short: "Run a saved Obsidian Bases view: its rows, columns and summaries",
		long: `Run a view of an Obsidian base (query_base): a .base file, by path or name,
or a note holding base blocks. The rows come as a table with the path of
each file, the view's columns (their display names) and summaries; 50 rows
a page with the command for the next. Without --view, the base's views
with their row counts. --csv prints every row of the view as CSV, --json
the structured rows.`,
		example: `  vaultd base run Leseliste
  vaultd base run 3_Ressourcen/Leseliste.base --view "Noch nicht gelesen"
  vaultd base run Projekte --view "Nach Status" --csv > projekte.csv`,
		what: "the base (.base file) to run", onMissing: "vaultd list",
		flags: func(cmd *cobra.Command, _ tools.Tool, _ *tools.QueryBaseArgs) {
			cmd.Flags().BoolVar(&asCSV, "csv", false, "print every row of the view as CSV")
		},
		prepare: func(cmd *cobra.Command, _ []string, w *tools.QueryBaseArgs) error {
			a.csv = asCSV
			if asCSV && !cmd.Flags().Changed("limit") {
				w.Limit = csvRows
			}
			return nil
		},
	})
	run.Use = "run " + strings.TrimPrefix(run.Use, "base run ")
	run.GroupID = ""
	parent := &cobra.Command{
		Use:   "base",
		Short: "Obsidian Bases: run a saved view (base run)",
		Long:  "Obsidian Bases, without Obsidian: base run runs a saved view (query_base).",
		Args:  cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return usagef("vaultd base run BASE --view NAME", "base takes a sub-command: run")
		}),
	}
	parent.AddCommand(run)
	return parent
}

// queryCmd is `vaultd query FILTER` (query_notes), with --csv.
func (a *app) queryCmd() *cobra.Command {
	var asCSV bool
	return toolCmd(a, command[tools.QueryNotesArgs]{
		tool:  "query_notes",
		use:   "FILTER [--properties A,B] [--sort 'A desc']",
		short: "Filter notes by their properties with a Bases expression",
		long: `Filter the notes by their properties (query_notes) with an expression in
Obsidian's Bases syntax: status == "aktiv", file.hasTag("buch") && !gelesen,
due < today() + "1 week". The rows come as a table, 50 a page; --csv prints
every row as CSV.`,
		example: `  vaultd query 'status == "aktiv"' --properties status,created --sort 'created desc'
  vaultd query 'file.inFolder("3_Ressourcen/Bücher") && !gelesen' --properties autor,seiten --csv`,
		what: "the filter expression", onMissing: `vaultd query 'file.hasTag("projekt")'`,
		flags: func(cmd *cobra.Command, _ tools.Tool, _ *tools.QueryNotesArgs) {
			cmd.Flags().BoolVar(&asCSV, "csv", false, "print every row as CSV")
		},
		prepare: func(cmd *cobra.Command, _ []string, w *tools.QueryNotesArgs) error {
			a.csv = asCSV
			if asCSV && !cmd.Flags().Changed("limit") {
				w.Limit = csvRows
			}
			return nil
		},
	})
}

// writeCSV prints a view's rows as CSV: a header of path and the columns,
// then one record per row. It reports false for data that is no view.
func (a *app) writeCSV(data any) (bool, error) {
	var v tools.BaseViewData
	switch d := data.(type) {
	case tools.BaseViewData:
		v = d
	case *tools.BaseViewData:
		v = *d
	default:
		return false, nil
	}
	w := csv.NewWriter(a.out)
	header := append([]string{"path"}, v.Columns...)
	if err := w.Write(header); err != nil {
		return true, err
	}
	for _, r := range v.Rows {
		if err := w.Write(append([]string{r.Path}, r.Cells...)); err != nil {
			return true, err
		}
	}
	w.Flush()
	return true, w.Error()
}
