package main

import (
	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/mcpserver"
)

// writeCommands are the commands that change notes. Each records its
// --summary in the history; none overwrites a change it did not see.
func (a *app) writeCommands() []*cobra.Command {
	return []*cobra.Command{a.createCmd(), a.appendCmd(), a.updateSectionCmd(), a.replaceCmd(), a.deleteCmd(), a.restoreCmd()}
}

const contentHelp = `The content comes from --content TEXT, from --file F, or from stdin
(--file -, or a pipe when neither flag is given).`

func (a *app) createCmd() *cobra.Command {
	var w mcpserver.CreateNoteArgs
	var in contentFlags
	cmd := &cobra.Command{
		Use:   "create NOTE",
		Short: "Create a new note; never overwrites one",
		Long: `Create a new note (create_note) with the whole text, frontmatter included.
A note that exists already is never overwritten (exit 4). Without a folder
the note goes to the inbox the rules in 9_System/ name.

` + contentHelp,
		Example: `  vaultd create "0_Inbox/Idee Podcast.md" --content "# Idee Podcast" --summary "Idee festgehalten"
  cat entwurf.md | vaultd create "1_Projekte/Neu.md" --summary "Projekt angelegt"`,
		Args: args(1, false, "the path of the new note", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if err := needSummary(w.ChangeSummary); err != nil {
				return err
			}
			a.content = &in
			content, err := in.read(cmd, a.in)
			if err != nil {
				return err
			}
			w.Path, w.Content = args[0], content
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.CreateNote(ctx(cmd), who, w)
			})
		}),
	}
	in.register(cmd, "the whole note, frontmatter included")
	summaryFlag(cmd, &w.ChangeSummary)
	return cmd
}

func (a *app) appendCmd() *cobra.Command {
	var w mcpserver.AppendArgs
	var in contentFlags
	cmd := &cobra.Command{
		Use:   "append NOTE",
		Short: "Append text to a note or to the end of one section",
		Long: `Append text (append_to_note) at the end of the note, or with --heading at
the end of that section. The note's line endings are kept and one blank
line separates the new text. Appends need no version: they commute with
edits elsewhere in the note.

` + contentHelp,
		Example: `  vaultd append 0_Inbox/Buchtipps.md --content "- Die Kunst des klaren Denkens" --summary "Buchtipp ergänzt"
  vaultd append Website-Relaunch --heading "Offene Fragen" --content "- Wer pflegt das Impressum?" --summary "Frage aus dem Call"`,
		Args: args(1, false, "the note to append to", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if err := needSummary(w.ChangeSummary); err != nil {
				return err
			}
			a.content = &in
			content, err := in.read(cmd, a.in)
			if err != nil {
				return err
			}
			w.Path, w.Content = args[0], content
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.AppendToNote(ctx(cmd), who, w)
			})
		}),
	}
	cmd.Flags().StringVar(&w.Heading, "heading", "", `append at the end of this section: "Ziele" or "Projekte > Ziele"`)
	in.register(cmd, "the text to append")
	summaryFlag(cmd, &w.ChangeSummary)
	expectFlag(cmd, &w.ExpectedVersion, "optional: fail if the note is no longer at this version")
	return cmd
}

func (a *app) updateSectionCmd() *cobra.Command {
	var w mcpserver.UpdateSectionArgs
	var in contentFlags
	cmd := &cobra.Command{
		Use:   "update-section NOTE --heading HEADING",
		Short: "Replace the text of one section, keeping its heading",
		Long: `Replace the body of one section (update_section), keeping its heading line;
sub-sections are part of the body. With --expect VERSION the change still
applies when only other sections changed since you read the note, and
fails (exit 4, showing the section as it is now) when this one did.

` + contentHelp,
		Example: `  vaultd read 1_Projekte/Website-Relaunch/Ziele.md --heading "Nicht-Ziele"
  vaultd update-section 1_Projekte/Website-Relaunch/Ziele.md --heading "Nicht-Ziele" \
      --content "- Kein Online-Shop." --expect 3f2a9c0d1e4b --summary "Login doch erlaubt"`,
		Args: args(1, false, "the note whose section to replace", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if w.Heading == "" {
				return usagef(withGlobals(cmd, "vaultd read "+shellQuote(args[0])), "update-section needs --heading: the section to replace (read the note to see its outline)")
			}
			if err := needSummary(w.ChangeSummary); err != nil {
				return err
			}
			a.content = &in
			content, err := in.read(cmd, a.in)
			if err != nil {
				return err
			}
			w.Path, w.Content = args[0], content
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.UpdateSection(ctx(cmd), who, w)
			})
		}),
	}
	cmd.Flags().StringVar(&w.Heading, "heading", "", `the section to replace: "Ziele", "## Ziele" or "Projekte > Ziele" (required)`)
	in.register(cmd, "the new body of the section, without its heading line")
	summaryFlag(cmd, &w.ChangeSummary)
	expectFlag(cmd, &w.ExpectedVersion, "the version you read; the change rebases over edits to other sections")
	return cmd
}

func (a *app) replaceCmd() *cobra.Command {
	var w mcpserver.ReplaceArgs
	var in contentFlags
	cmd := &cobra.Command{
		Use:   "replace NOTE --expect VERSION",
		Short: "Replace a whole note; needs the version you read",
		Long: `Replace a whole note (replace_note), frontmatter included. --expect is the
version you read (vaultd read prints it): if the note changed since, nothing
is written (exit 4).

` + contentHelp,
		Example: `  vaultd read 0_Inbox/Buchtipps.md           # prints "version: 3f2a9c0d1e4b"
  vaultd replace 0_Inbox/Buchtipps.md --file buchtipps.md --expect 3f2a9c0d1e4b --summary "Liste neu sortiert"`,
		Args: args(1, false, "the note to replace", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if err := needExpect(cmd, args[0], w.ExpectedVersion); err != nil {
				return err
			}
			if err := needSummary(w.ChangeSummary); err != nil {
				return err
			}
			a.content = &in
			content, err := in.read(cmd, a.in)
			if err != nil {
				return err
			}
			w.Path, w.Content = args[0], content
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.ReplaceNote(ctx(cmd), who, w)
			})
		}),
	}
	in.register(cmd, "the whole new note, frontmatter included")
	summaryFlag(cmd, &w.ChangeSummary)
	expectFlag(cmd, &w.ExpectedVersion, "the version you read (required)")
	return cmd
}

func (a *app) deleteCmd() *cobra.Command {
	var w mcpserver.DeleteArgs
	cmd := &cobra.Command{
		Use:   "delete NOTE --expect VERSION",
		Short: "Move a note to the trash; needs the version you read",
		Long: `Move a note to the vault's .trash/ folder (delete_note); nothing is erased.
--expect is the version you read: if the note changed since, it stays
(exit 4). A note with a folder of sub-notes beside it ("X.md" and "X/")
takes the folder along; more than 5 sub-notes must be counted with
--with-sub-notes N. "vaultd trash" lists deleted notes, "vaultd restore"
brings one back.`,
		Example: `  vaultd delete "0_Inbox/Notiz 2026-11-18.md" --expect 3f2a9c0d1e4b --summary "erledigt"`,
		Args:    args(1, false, "the note to delete", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if err := needExpect(cmd, args[0], w.ExpectedVersion); err != nil {
				return err
			}
			if err := needSummary(w.ChangeSummary); err != nil {
				return err
			}
			w.Path = args[0]
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.DeleteNote(ctx(cmd), who, w)
			})
		}),
	}
	summaryFlag(cmd, &w.ChangeSummary)
	expectFlag(cmd, &w.ExpectedVersion, "the version you read (required)")
	cmd.Flags().IntVar(&w.WithSubNotes, "with-sub-notes", 0, "N: how many sub-notes (in the folder beside the note) go to the trash with it; needed above 5")
	return cmd
}

func (a *app) restoreCmd() *cobra.Command {
	var w mcpserver.RestoreArgs
	cmd := &cobra.Command{
		Use:   "restore TRASHPATH",
		Short: "Bring a deleted note back from the trash",
		Long: `Bring a note back from the trash (restore_note) to where it was, or with
--to to another path. TRASHPATH is as "vaultd trash" lists it. A note that
exists at the target is never overwritten (exit 4).`,
		Example: `  vaultd trash
  vaultd restore ".trash/0_Inbox/Buchtipps.md" --summary "doch noch gebraucht"`,
		Args: args(1, false, "the trash path of the note", "vaultd trash"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if err := needSummary(w.ChangeSummary); err != nil {
				return err
			}
			w.TrashPath = args[0]
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.RestoreNote(ctx(cmd), who, w)
			})
		}),
	}
	cmd.Flags().StringVar(&w.To, "to", "", "restore to this path instead of where the note was")
	summaryFlag(cmd, &w.ChangeSummary)
	return cmd
}

func expectFlag(cmd *cobra.Command, v *string, usage string) {
	cmd.Flags().StringVar(v, "expect", "", "VERSION: "+usage)
}

// needExpect refuses replace and delete without the version the caller
// read: both would otherwise destroy a change the caller never saw.
func needExpect(cmd *cobra.Command, note, v string) error {
	if v != "" {
		return nil
	}
	return usagef(withGlobals(cmd, "vaultd read "+shellQuote(note)),
		"%s needs --expect VERSION, the version you read, so that a change made since is not lost; read the note to get it", cmd.Name())
}
