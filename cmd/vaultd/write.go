package main

import (
	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/tools"
)

// writeCommands are the commands that change notes. Each records its
// --summary in the history; none overwrites a change it did not see.
func (a *app) writeCommands() []*cobra.Command {
	return []*cobra.Command{a.createCmd(), a.dailyCmd(), a.appendCmd(), a.updateSectionCmd(), a.replaceCmd(), a.deleteCmd(), a.restoreCmd()}
}

const contentHelp = `The content comes from --content TEXT, from --file F, or from stdin
(--file -, or a pipe when neither flag is given).`

func (a *app) createCmd() *cobra.Command {
	// With --template the content is read only when --content or --file
	// gives it: the template alone makes the note.
	given := false
	return toolCmd(a, command[tools.CreateNoteArgs]{
		tool:  "create_note",
		use:   "NOTE",
		short: "Create a new note; never overwrites one",
		long: `Create a new note (create_note) with the whole text, frontmatter included.
A note that exists already is never overwritten (exit 4). Without a folder
the note goes to the inbox the rules in 9_System/ name. With --template NAME
the note is made from that note of the templates folder (Obsidian's Settings
→ Templates), its {{title}}, {{date}} and {{time}} filled; content given too
goes below it.

` + contentHelp,
		example: `  vaultd create "0_Inbox/Idee Podcast.md" --content "# Idee Podcast" --summary "Idee festgehalten"
  cat entwurf.md | vaultd create "1_Projekte/Neu.md" --summary "Projekt angelegt"
  vaultd create "1_Projekte/Gartenteich.md" --template Projektvorlage --summary "neues Projekt"`,
		what: "the path of the new note", onMissing: "vaultd list",
		check: func(cmd *cobra.Command, _ []string, _ *tools.CreateNoteArgs) error {
			given = cmd.Flags().Changed("content") || cmd.Flags().Changed("file")
			return nil
		},
		contentIf: func(w *tools.CreateNoteArgs) bool { return w.Template == "" || given },
	})
}

func (a *app) dailyCmd() *cobra.Command {
	return toolCmd(a, command[tools.DailyNoteArgs]{
		tool:  "open_daily_note",
		use:   "[DATE]",
		short: "Open today's (or another day's) daily note, creating it from its template",
		long: `Open a daily note (open_daily_note) as Obsidian's "Open today's daily note"
does: DATE is today (default), yesterday, tomorrow, 2026-12-24, or days from
today (-1, +2). The note is where Obsidian's Daily notes settings put it
(.obsidian/daily-notes.json: folder, date format, template); when missing it
is created from the template, its variables filled. --period week, month,
quarter or year opens the periodic note the Periodic Notes plugin configures.
An existing note is only read, never rewritten. "Today" is the day in the
time zone vaultd runs in (TZ=Europe/Berlin to choose).`,
		example: `  vaultd daily
  vaultd daily yesterday
  vaultd daily 2026-12-24 --summary "Notiz für Heiligabend angelegt"
  vaultd daily --period week`,
		what: "the day", onMissing: "vaultd daily",
	})
}

func (a *app) appendCmd() *cobra.Command {
	return toolCmd(a, command[tools.AppendArgs]{
		tool:  "append_to_note",
		use:   "NOTE",
		short: "Append text to a note or to the end of one section",
		long: `Append text (append_to_note) at the end of the note, or with --heading at
the end of that section. The note's line endings are kept and one blank
line separates the new text. Appends need no version: they commute with
edits elsewhere in the note.

` + contentHelp,
		example: `  vaultd append 0_Inbox/Buchtipps.md --content "- Die Kunst des klaren Denkens" --summary "Buchtipp ergänzt"
  vaultd append Website-Relaunch --heading "Offene Fragen" --content "- Wer pflegt das Impressum?" --summary "Frage aus dem Call"`,
		what: "the note to append to", onMissing: "vaultd list",
	})
}

func (a *app) updateSectionCmd() *cobra.Command {
	return toolCmd(a, command[tools.UpdateSectionArgs]{
		tool:  "update_section",
		use:   "NOTE --heading HEADING",
		short: "Replace the text of one section, keeping its heading",
		long: `Replace the body of one section (update_section), keeping its heading line;
sub-sections are part of the body. With --expect VERSION the change still
applies when only other sections changed since you read the note, and
fails (exit 4, showing the section as it is now) when this one did.

` + contentHelp,
		example: `  vaultd read 1_Projekte/Website-Relaunch/Ziele.md --heading "Nicht-Ziele"
  vaultd update-section 1_Projekte/Website-Relaunch/Ziele.md --heading "Nicht-Ziele" \
      --content "- Kein Online-Shop." --expect 3f2a9c0d1e4b --summary "Login doch erlaubt"`,
		what: "the note whose section to replace", onMissing: "vaultd list",
		check: func(cmd *cobra.Command, args []string, w *tools.UpdateSectionArgs) error {
			if w.Heading == "" {
				return usagef(withGlobals(cmd, "vaultd read "+shellQuote(args[0])), "update-section needs --heading: the section to replace (read the note to see its outline)")
			}
			return nil
		},
	})
}

func (a *app) replaceCmd() *cobra.Command {
	return toolCmd(a, command[tools.ReplaceArgs]{
		tool:  "replace_note",
		use:   "NOTE --expect VERSION",
		short: "Replace a whole note; needs the version you read",
		long: `Replace a whole note (replace_note), frontmatter included. --expect is the
version you read (vaultd read prints it): if the note changed since, nothing
is written (exit 4).

` + contentHelp,
		example: `  vaultd read 0_Inbox/Buchtipps.md           # prints "version: 3f2a9c0d1e4b"
  vaultd replace 0_Inbox/Buchtipps.md --file buchtipps.md --expect 3f2a9c0d1e4b --summary "Liste neu sortiert"`,
		what: "the note to replace", onMissing: "vaultd list",
	})
}

func (a *app) deleteCmd() *cobra.Command {
	return toolCmd(a, command[tools.DeleteArgs]{
		tool:  "delete_note",
		use:   "NOTE --expect VERSION",
		short: "Move a note to the trash; needs the version you read",
		long: `Move a note to the vault's .trash/ folder (delete_note); nothing is erased.
--expect is the version you read: if the note changed since, it stays
(exit 4). A note with a folder of sub-notes beside it ("X.md" and "X/")
takes the folder along; more than 5 sub-notes must be counted with
--with-sub-notes N. "vaultd trash" lists deleted notes, "vaultd restore"
brings one back.`,
		example: `  vaultd delete "0_Inbox/Notiz 2026-11-18.md" --expect 3f2a9c0d1e4b --summary "erledigt"`,
		what:    "the note to delete", onMissing: "vaultd list",
	})
}

func (a *app) restoreCmd() *cobra.Command {
	return toolCmd(a, command[tools.RestoreArgs]{
		tool:  "restore_note",
		use:   "TRASHPATH",
		short: "Bring a deleted note back from the trash",
		long: `Bring a note back from the trash (restore_note) to where it was, or with
--to to another path. TRASHPATH is as "vaultd trash" lists it. A note that
exists at the target is never overwritten (exit 4).`,
		example: `  vaultd trash
  vaultd restore ".trash/0_Inbox/Buchtipps.md" --summary "doch noch gebraucht"`,
		what: "the trash path of the note", onMissing: "vaultd trash",
	})
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
