package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/tools"
)

// readCommands are the commands that only read: overview, read, list,
// trash, history.
func (a *app) readCommands() []*cobra.Command {
	return []*cobra.Command{a.overviewCmd(), a.readCmd(), a.listCmd(), a.trashCmd(), a.historyCmd()}
}

func (a *app) overviewCmd() *cobra.Command {
	return toolCmd(a, command[tools.OverviewArgs]{
		tool:  "vault_overview",
		short: "Show the vault: spaces, folders, rules, recent changes, tags",
		long: `Show what an agent sees first (vault_overview): the spaces with their note
counts, the folders two levels deep, the rules from 9_System/, the notes
changed last and the most used tags.`,
		example: `  vaultd overview --vault example-vault`,
	})
}

func (a *app) readCmd() *cobra.Command {
	return toolCmd(a, command[tools.ReadNoteArgs]{
		tool:  "read_note",
		use:   "NOTE",
		short: "Print a note, or one section of it, with its version",
		long: `Print a note (read_note), or with --heading one section of it, followed by
its path, title, version and space. NOTE is a path ("1_Projekte/Alpha.md",
".md" may be left out), a title, an alias or a [[wikilink]].

The version is what replace, delete and update-section take as --expect.
Long notes come in pages; the last line says which --offset reads on.`,
		example: `  vaultd read 1_Projekte/Website-Relaunch/Ziele.md
  vaultd read "Website-Relaunch" --heading "Ziele"`,
		what: "the note to read", onMissing: "vaultd list",
	})
}

func (a *app) listCmd() *cobra.Command {
	return toolCmd(a, command[tools.ListNotesArgs]{
		tool:  "list_notes",
		use:   "[FOLDER]",
		short: "List a folder's sub-folders and notes",
		long: `List a folder (list_notes): its sub-folders with their note counts and its
notes by name. With --sort changed: every note below the folder, newest
change first. Without FOLDER: the top of the vault.`,
		example: `  vaultd list 1_Projekte
  vaultd list --sort changed --limit 5`,
		what: "one folder", onMissing: "vaultd list",
	})
}

func (a *app) trashCmd() *cobra.Command {
	return toolCmd(a, command[tools.ListTrashArgs]{
		tool:  "list_trash",
		short: "List deleted notes, newest first",
		long: `List the notes deleted through vaultd (list_trash), newest first, with the
trash path that restore takes. Deleted notes lie in the vault's .trash/
folder, as Obsidian keeps them.`,
		example: `  vaultd trash
  vaultd restore ".trash/0_Inbox/Buchtipps.md" --summary "doch noch gebraucht"`,
	})
}

// historyCmd is in reorg.go.

// ctx returns the command's context (cancelled on Ctrl-C).
func ctx(cmd *cobra.Command) context.Context { return cmd.Context() }
