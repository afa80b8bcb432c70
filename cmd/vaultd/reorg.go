package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// reorgCommands are the commands of reorganising: move and undo (in the
// "Changing notes" group). `vaultd history` is among the reading commands,
// `vaultd trash empty` under `vaultd trash`.
func (a *app) reorgCommands() []*cobra.Command {
	return []*cobra.Command{a.moveCmd(), a.undoCmd()}
}

func (a *app) moveCmd() *cobra.Command {
	return toolCmd(a, command[tools.MoveNoteArgs]{
		tool:  "move_note",
		use:   "NOTE|FOLDER [--to] DEST --expect VERSION",
		short: "Move or rename a note or folder; links to it are updated",
		long: `Move or rename a note, or move a whole folder (move_note). A note's folder
of sub-notes beside it ("Projekt.md" + "Projekt/") moves along. Links
elsewhere in the vault that led into what moved are rewritten so they
still lead there, in the style they were written in; links in protected
notes and links that were ambiguous before are listed, not changed.

DEST is the new path, or a folder to move into (ending in "/", or one that
exists). A note needs --expect, the version you read; a folder does not.
Nothing is ever overwritten (exit 4). "vaultd undo CHANGE" moves it back.`,
		example: `  vaultd move "0_Inbox/Idee Wissensdatenbank.md" 1_Projekte/ --expect 17f288e87212 --summary "Idee wird Projekt"
  vaultd move 1_Projekte/Website-Relaunch.md --to "1_Projekte/Relaunch 2027.md" --expect 96ba799f882e --summary "umbenannt"
  vaultd move 2_Bereiche/Garten/ 3_Ressourcen/ --summary "Garten ist kein Bereich mehr"`,
		args: func(w *tools.MoveNoteArgs) cobra.PositionalArgs {
			return func(cmd *cobra.Command, args []string) error {
				switch {
				case len(args) == 0:
					return usagef(withGlobals(cmd, "vaultd list"), "move needs the note or folder to move")
				case len(args) == 1 && w.To == "":
					return usagef("", "move needs where to: vaultd move %s DEST (or --to DEST)", shellQuote(args[0]))
				case len(args) == 2 && w.To != "":
					return usagef("", "move takes DEST once: as the second argument or as --to, not both")
				case len(args) > 2:
					return usagef("", "move takes the note and where to, got %d arguments; quote paths with spaces", len(args))
				}
				return nil
			}
		},
		prepare: func(_ *cobra.Command, args []string, w *tools.MoveNoteArgs) error {
			if len(args) == 2 {
				w.To = args[1]
			}
			return nil
		},
	})
}

func (a *app) undoCmd() *cobra.Command {
	var u tools.UndoArgs
	cmd := &cobra.Command{
		Use:   "undo CHANGE",
		Short: "Undo one recorded change, if nothing changed since",
		Long: `Undo one change recorded in the history (for people; agents have no undo
tool). CHANGE is the id "vaultd history" shows (a unique start of it is
enough). The note must still be at the version the change left; if it
changed since, nothing happens (exit 4) and the changes made since are
listed. An edit gets the text from before it back, a created note goes to
the trash, a deleted one comes back from it, a move moves back (links
updated again). Undoing is itself a change in the history: undo it to redo.`,
		Example: `  vaultd history 0_Inbox/Buchtipps.md
  vaultd undo 20261129T120000.000000Z-3fa2c1`,
		Args: args(1, false, "the id of the change to undo", "vaultd history"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			u.Change = args[0]
			return a.call(cmd, func(c *tools.Core, who tools.Caller) *tools.Result {
				return c.Undo(ctx(cmd), who, u)
			})
		}),
	}
	cmd.Flags().StringVarP(&u.ChangeSummary, "summary", "m", "", `why (default: "undo of change CHANGE: its summary")`)
	return cmd
}

// historyCmd is `vaultd history [NOTE]`: one note's changes with diffs
// (note_history), or without NOTE what changed across the vault
// (recent_changes).
func (a *app) historyCmd() *cobra.Command {
	var r tools.RecentChangesArgs
	var n tools.NoteHistoryArgs
	cmd := &cobra.Command{
		Use:   "history [NOTE]",
		Short: "Show what changed, newest first; with NOTE its changes and diffs",
		Long: `Without NOTE: what changed across the vault, newest first (recent_changes)
— changes made through vaultd by agents and people, and changes made
outside vaultd (Obsidian, git, an editor), found from the files. Filter
with --space, --folder, --by, --since and --until (a date, a time, or
7d / 24h / 2w back from now).

With NOTE: that note's changes (note_history), across its moves, with a
short diff of each (--by filters these too). Each change shows its id,
which "vaultd undo" takes.`,
		Example: `  vaultd history --since 7d
  vaultd history --space 1_Projekte --by mcp:claude-code
  vaultd history 0_Inbox/Buchtipps.md`,
		Args: args(1, true, "one note", "vaultd history"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				for _, f := range []string{"space", "folder", "since", "until"} {
					if cmd.Flags().Changed(f) {
						return usagef(withGlobals(cmd, "vaultd history "+shellQuote(args[0])),
							"--%s filters the whole vault's history; with NOTE, all of that note's changes are shown", f)
					}
				}
				n.Path, n.Actor, n.Limit, n.Offset = args[0], r.Actor, r.Limit, r.Offset
				return a.call(cmd, func(c *tools.Core, who tools.Caller) *tools.Result {
					return c.NoteHistory(ctx(cmd), who, n)
				})
			}
			return a.call(cmd, func(c *tools.Core, who tools.Caller) *tools.Result {
				return c.RecentChanges(ctx(cmd), who, r)
			})
		}),
	}
	// --actor is taken: it says who acts. --by filters (the flag the
	// declaration of actor names).
	recent, _ := tools.LookupTool("recent_changes")
	bindFlags(cmd, recent, &r, nil)
	return cmd
}

// trashEmptyCmd is `vaultd trash empty`: for people only, never a tool.
func (a *app) trashEmptyCmd() *cobra.Command {
	var e tools.EmptyTrashArgs
	var yes bool
	cmd := &cobra.Command{
		Use:   "empty [--older-than 30d] [--yes]",
		Short: "Delete the notes in the trash for good",
		Long: `Delete for good the notes in the vault's .trash/ folder — all of them, or
with --older-than those deleted longer ago than that (30d, 2w, 12h).
Only people can do this; no agent tool empties the trash.

It first says how many notes it would delete and asks; without a
terminal to ask at, it needs --yes. The texts of notes deleted through
vaultd stay in its history: vaultd history NOTE shows the delete, and
vaultd undo CHANGE brings the note back. Notes that Obsidian or a person
moved to .trash/ are gone for good.`,
		Example: `  vaultd trash empty --older-than 30d
  vaultd trash empty --yes`,
		Args: args(0, false, "no arguments", "vaultd trash empty"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if !yes {
				c, v, err := a.openCore()
				if err != nil {
					return err
				}
				plan, err := c.EmptyTrashPlan(e)
				v.Close()
				if err != nil {
					return err
				}
				if len(plan) > 0 {
					if ok, err := a.confirmEmpty(cmd, e, plan); err != nil || !ok {
						return err
					}
				}
			}
			return a.call(cmd, func(c *tools.Core, who tools.Caller) *tools.Result {
				return c.EmptyTrash(ctx(cmd), who, e)
			})
		}),
	}
	cmd.Flags().StringVar(&e.OlderThan, "older-than", "", "only notes deleted longer ago than this: 30d, 2w, 12h")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "delete without asking")
	return cmd
}

// confirmEmpty shows what trash empty would delete and asks at a
// terminal; elsewhere it refuses and names --yes. It reports whether to go
// on (false with a nil error: the person said no, and nothing happened).
func (a *app) confirmEmpty(cmd *cobra.Command, e tools.EmptyTrashArgs, plan []vault.TrashEntry) (bool, error) {
	what := "note"
	if len(plan) != 1 {
		what = "notes"
	}
	again := withGlobals(cmd, "vaultd trash empty")
	if e.OlderThan != "" {
		again += " --older-than " + shellQuote(e.OlderThan)
	}
	again += " --yes"
	if !isTTY(a.in) || !isTTY(a.err) {
		return false, usagef(again, "trash empty would delete %d %s for good (vaultd trash lists them); confirm with --yes", len(plan), what)
	}
	fmt.Fprintf(a.err, "This deletes %d %s in the trash for good:\n", len(plan), what)
	for _, t := range plan[:min(len(plan), 10)] {
		fmt.Fprintf(a.err, "- %s (from %s)\n", t.TrashPath, t.OriginalPath)
	}
	if len(plan) > 10 {
		fmt.Fprintf(a.err, "(%d more: vaultd trash)\n", len(plan)-10)
	}
	fmt.Fprint(a.err, "Delete them? [y/N] ")
	line, _ := bufio.NewReader(a.in).ReadString('\n')
	if ans := strings.ToLower(strings.TrimSpace(line)); ans == "y" || ans == "yes" {
		return true, nil
	}
	fmt.Fprintln(a.out, "nothing deleted: the trash is as it was")
	return false, nil
}

// addTrashEmpty hangs `empty` under the trash command.
func (a *app) addTrashEmpty(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Name() == "trash" {
			c.AddCommand(a.trashEmptyCmd())
			if !strings.Contains(c.Long, "trash empty") {
				c.Long += "\n\n\"vaultd trash empty [--older-than 30d]\" deletes them for good."
			}
		}
	}
}
