package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/mcpserver"
)

// readCommands are the commands that only read: overview, read, list,
// trash, history.
func (a *app) readCommands() []*cobra.Command {
	return []*cobra.Command{a.overviewCmd(), a.readCmd(), a.listCmd(), a.trashCmd(), a.historyCmd()}
}

func (a *app) overviewCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "overview",
		Short: "Show the vault: spaces, folders, rules, recent changes, tags",
		Long: `Show what an agent sees first (vault_overview): the spaces with their note
counts, the folders two levels deep, the rules from 9_System/, the notes
changed last and the most used tags.`,
		Example: `  vaultd overview --vault example-vault`,
		Args:    args(0, false, "no arguments", "vaultd overview"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.Overview(ctx(cmd), who, mcpserver.OverviewArgs{})
			})
		}),
	}
}

func (a *app) readCmd() *cobra.Command {
	var r mcpserver.ReadNoteArgs
	cmd := &cobra.Command{
		Use:   "read NOTE",
		Short: "Print a note, or one section of it, with its version",
		Long: `Print a note (read_note), or with --heading one section of it, followed by
its path, title, version and space. NOTE is a path ("1_Projekte/Alpha.md",
".md" may be left out), a title, an alias or a [[wikilink]].

The version is what replace, delete and update-section take as --expect.
Long notes come in pages; the last line says which --offset reads on.`,
		Example: `  vaultd read 1_Projekte/Website-Relaunch/Ziele.md
  vaultd read "Website-Relaunch" --heading "Ziele"`,
		Args: args(1, false, "the note to read", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			r.Path = args[0]
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.ReadNote(ctx(cmd), who, r)
			})
		}),
	}
	cmd.Flags().StringVar(&r.Heading, "heading", "", `only this section: "Ziele", "## Ziele" or "Projekte > Ziele"`)
	cmd.Flags().IntVar(&r.Offset, "offset", 0, "character offset to continue a long note or section")
	cmd.Flags().IntVar(&r.OutlineOffset, "outline-offset", 0, "outline entries to skip, for the next page of a long outline")
	return cmd
}

func (a *app) listCmd() *cobra.Command {
	var l mcpserver.ListNotesArgs
	cmd := &cobra.Command{
		Use:   "list [FOLDER]",
		Short: "List a folder's sub-folders and notes",
		Long: `List a folder (list_notes): its sub-folders with their note counts and its
notes by name. With --sort changed: every note below the folder, newest
change first. Without FOLDER: the top of the vault.`,
		Example: `  vaultd list 1_Projekte
  vaultd list --sort changed --limit 5`,
		Args: args(1, true, "one folder", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				l.Folder = args[0]
			}
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.ListNotes(ctx(cmd), who, l)
			})
		}),
	}
	cmd.Flags().StringVar(&l.Sort, "sort", "name", "name, or changed (newest first, all sub-folders)")
	cmd.Flags().IntVar(&l.Limit, "limit", 30, "notes per page (at most 100)")
	cmd.Flags().IntVar(&l.Offset, "offset", 0, "notes to skip, for the next page")
	return cmd
}

func (a *app) trashCmd() *cobra.Command {
	var t mcpserver.ListTrashArgs
	cmd := &cobra.Command{
		Use:   "trash",
		Short: "List deleted notes, newest first",
		Long: `List the notes deleted through vaultd (list_trash), newest first, with the
trash path that restore takes. Deleted notes lie in the vault's .trash/
folder, as Obsidian keeps them.`,
		Example: `  vaultd trash
  vaultd restore ".trash/0_Inbox/Buchtipps.md" --summary "doch noch gebraucht"`,
		Args: args(0, false, "no arguments", "vaultd trash"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.ListTrash(ctx(cmd), who, t)
			})
		}),
	}
	cmd.Flags().IntVar(&t.Limit, "limit", 30, "entries per page")
	cmd.Flags().IntVar(&t.Offset, "offset", 0, "entries to skip, for the next page")
	return cmd
}

// historyCmd is in reorg.go.

// ctx returns the command's context (cancelled on Ctrl-C).
func ctx(cmd *cobra.Command) context.Context { return cmd.Context() }
