package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/tools"
)

// notesAppCommands are the twins of the notes-app tools: properties, tags,
// pins, boards and attachments. Reading commands join the "read" group,
// changing ones the "write" group.
func (a *app) notesAppCommands() []*cobra.Command {
	return []*cobra.Command{a.tagsCmd(), a.boardCmd(), a.attachmentsCmd(), a.attachmentCmd(), a.setPropertiesCmd(), a.addTagsCmd(), a.removeTagsCmd(), a.pinCmd(), a.unpinCmd(),
		a.moveCardCmd(), a.addCardCmd(), a.uploadCmd()}
}

func (a *app) setPropertiesCmd() *cobra.Command {
	var sets, removes []string
	return toolCmd(a, command[tools.SetPropertiesArgs]{
		tool:  "set_properties",
		use:   "NOTE --set KEY=VALUE… --remove KEY…",
		short: "Set, change or remove frontmatter properties of a note",
		long: `Set, change or remove frontmatter properties (set_properties). Every other
byte of the note stays as it was: untouched properties keep their order,
comments, quoting and date formats. A note without frontmatter gets one.

--set KEY=VALUE takes VALUE as JSON when it is JSON (3, true, null,
["a","b"], "quoted text"), else as text: --set status=aktiv. Dates are text:
--set due=2026-12-01 is written unquoted, as Obsidian writes dates. null
removes a property, as does --remove KEY.`,
		example: `  vaultd set-properties 1_Projekte/Website-Relaunch.md --set status=abgeschlossen --set done=true --summary "Projekt abgeschlossen"
  vaultd set-properties 0_Inbox/Buchtipps.md --set 'tags=["privat","lesen"]' --remove created -m "aufgeräumt"`,
		what: "the note whose properties to change", onMissing: "vaultd list",
		flags: func(cmd *cobra.Command, t tools.Tool, _ *tools.SetPropertiesArgs) {
			set, remove := argOf(t, "properties"), argOf(t, "remove")
			cmd.Flags().StringArrayVar(&sets, set.Flag, nil, set.Help)
			cmd.Flags().StringArrayVar(&removes, remove.Flag, nil, remove.Help)
		},
		check: func(cmd *cobra.Command, args []string, _ *tools.SetPropertiesArgs) error {
			if len(sets) == 0 && len(removes) == 0 {
				return usagef(withGlobals(cmd, "vaultd read "+shellQuote(args[0])), "set-properties needs --set KEY=VALUE or --remove KEY")
			}
			return nil
		},
		prepare: func(_ *cobra.Command, _ []string, w *tools.SetPropertiesArgs) error {
			w.Properties = map[string]any{}
			for _, s := range sets {
				k, v, ok := strings.Cut(s, "=")
				if !ok || strings.TrimSpace(k) == "" {
					return usagef("vaultd set-properties --help", "--set %s: write KEY=VALUE, e.g. --set status=aktiv", shellQuote(s))
				}
				w.Properties[strings.TrimSpace(k)] = propertyValue(v)
			}
			for _, r := range removes {
				w.Remove = append(w.Remove, splitList(r)...)
			}
			return nil
		},
	})
}

// propertyValue reads a --set value: JSON when it is JSON, else text.
func propertyValue(s string) any {
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&v); err == nil && !dec.More() {
		if _, isMap := v.(map[string]any); !isMap || strings.HasPrefix(strings.TrimSpace(s), "{") {
			return v
		}
	}
	return s
}

// splitList splits a comma-separated flag value.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// tagArgs takes a note and at least one tag, as arguments or with --tags.
func tagArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return usagef(withGlobals(cmd, "vaultd list"), "%s needs the note and at least one tag", cmd.Name())
	}
	return nil
}

func (a *app) addTagsCmd() *cobra.Command {
	return a.tagEditCmd("add_tags", "Add tags to a note's frontmatter, in the note's own style",
		`Add tags to the note's frontmatter property "tags" (add_tags), keeping its
style: a block list gets "  - tag" lines, an inline list [a, b] grows in
place, a text "a, b" gets ", tag". #tags in the text are reported, never
changed. Tags may be given with or without '#'.`,
		`  vaultd add-tags 0_Inbox/Buchtipps.md buch empfehlung --summary "einsortiert"
  vaultd add-tags "1_Projekte/Hausbau Lindenweg.md" --tags 'projekt,kunde/privat' -m "als Projekt markiert"`)
}

func (a *app) removeTagsCmd() *cobra.Command {
	return a.tagEditCmd("remove_tags", "Remove tags from a note's frontmatter, keeping its style",
		`Remove tags from the note's frontmatter property "tags" (remove_tags),
keeping its style; when no tag is left the property goes. #tags in the text
stay and are reported: edit the text to remove them.`,
		`  vaultd remove-tags 0_Inbox/Buchtipps.md lesen --summary "gelesen"`)
}

// tagEditCmd is add-tags or remove-tags: the tags come as arguments after
// NOTE, or with --tags.
func (a *app) tagEditCmd(tool, short, long, example string) *cobra.Command {
	var tags string
	return toolCmd(a, command[tools.TagsArgs]{
		tool: tool, use: "NOTE TAG…", short: short, long: long, example: example,
		args: func(*tools.TagsArgs) cobra.PositionalArgs { return tagArgs },
		flags: func(cmd *cobra.Command, t tools.Tool, _ *tools.TagsArgs) {
			arg := argOf(t, "tags")
			cmd.Flags().StringVar(&tags, arg.Flag, "", arg.Help)
		},
		check: func(cmd *cobra.Command, args []string, w *tools.TagsArgs) error {
			w.Tags = append(splitList(tags), args[1:]...)
			if len(w.Tags) == 0 {
				name := cmd.Name()
				return usagef(withGlobals(cmd, "vaultd tags"), "%s needs at least one tag: %s NOTE TAG… or --tags a,b", name, name)
			}
			return nil
		},
	})
}

func (a *app) tagsCmd() *cobra.Command {
	return toolCmd(a, command[tools.ListTagsArgs]{
		tool:  "list_tags",
		short: "List all tags with note counts, nested tags as a tree",
		long: `List every tag of the vault (list_tags) with the number of notes carrying
it; nested tags (projekt/website) appear under their parent, which counts
their notes too. With --tag only that tag and the tags below it.`,
		example: `  vaultd tags
  vaultd tags --tag projekt`,
	})
}

func (a *app) pinCmd() *cobra.Command {
	return a.pinEditCmd("pin_note", "Pin (bookmark) a note in Obsidian",
		`Pin a note (pin_note): it is added to Obsidian's bookmarks
(.obsidian/bookmarks.json, created if missing; everything else in it is
kept) and shows in "vaultd overview" and in Obsidian's Bookmarks pane.`,
		`  vaultd pin 1_Projekte/Website-Relaunch.md --summary "aktuelles Hauptprojekt"`)
}

func (a *app) unpinCmd() *cobra.Command {
	return a.pinEditCmd("unpin_note", "Remove a note's pin (bookmark) in Obsidian",
		`Unpin a note (unpin_note): its bookmarks are removed from Obsidian's
bookmarks, also inside bookmark groups (the groups stay).`,
		`  vaultd unpin 1_Projekte/Website-Relaunch.md --summary "Projekt abgeschlossen"`)
}

func (a *app) pinEditCmd(tool, short, long, example string) *cobra.Command {
	return toolCmd(a, command[tools.PinArgs]{
		tool: tool, use: "NOTE", short: short, long: long, example: example,
		what: "the note", onMissing: "vaultd list",
	})
}

func (a *app) boardCmd() *cobra.Command {
	return toolCmd(a, command[tools.ReadBoardArgs]{
		tool:  "read_board",
		use:   "NOTE",
		short: "Show a Kanban board: its columns and cards",
		long: `Show a board note of the Obsidian Kanban plugin (read_board): each column
("## Column") with its cards ("- [ ] card"). NOTE is a path, title or
[[wikilink]].`,
		example: `  vaultd board 1_Projekte/Website-Relaunch/Board.md
  vaultd board Board --column Backlog`,
		what: "the board note", onMissing: "vaultd list",
	})
}

func (a *app) moveCardCmd() *cobra.Command {
	return toolCmd(a, command[tools.MoveCardArgs]{
		tool:  "move_card",
		use:   "NOTE --card TEXT --to-column COLUMN",
		short: "Move a card of a Kanban board to another column or place",
		long: `Move a card (move_card), found by its text or a distinctive part of it, to
another column (--to-column) and/or place (--position, 1 = top). When
several cards match, nothing moves and all of them are listed as
"Column > card". Moving into a column marked **Complete** checks the card.`,
		example: `  vaultd move-card 1_Projekte/Website-Relaunch/Board.md --card Kontaktformular --to-column Review --summary "Formular fertig"`,
		what:    "the board note", onMissing: "vaultd list",
		check: func(cmd *cobra.Command, args []string, m *tools.MoveCardArgs) error {
			if strings.TrimSpace(m.Card) == "" {
				return usagef(withGlobals(cmd, "vaultd board "+shellQuote(args[0])), "move-card needs --card TEXT: the card's text or a part of it")
			}
			return nil
		},
	})
}

func (a *app) addCardCmd() *cobra.Command {
	return toolCmd(a, command[tools.AddCardArgs]{
		tool:    "add_card",
		use:     "NOTE --column COLUMN --text TEXT",
		short:   "Add a card to a column of a Kanban board",
		long:    `Add a card (add_card) to a column of a Kanban board, at the end or at --position (1 = top).`,
		example: `  vaultd add-card 1_Projekte/Website-Relaunch/Board.md --column Backlog --text "Cookie-Banner prüfen" --summary "Aufgabe aus dem Call"`,
		what:    "the board note", onMissing: "vaultd list",
		check: func(cmd *cobra.Command, args []string, w *tools.AddCardArgs) error {
			if strings.TrimSpace(w.Column) == "" || strings.TrimSpace(w.Text) == "" {
				return usagef(withGlobals(cmd, "vaultd board "+shellQuote(args[0])), "add-card needs --column COLUMN and --text TEXT")
			}
			return nil
		},
	})
}

func (a *app) uploadCmd() *cobra.Command {
	return toolCmd(a, command[tools.UploadAttachmentArgs]{
		tool:  "upload_attachment",
		use:   "FILE",
		short: "Store a file (image, PDF, audio, video) as an attachment",
		long: `Store a file in the vault's attachment folder (upload_attachment): the folder
Obsidian's "Default location for new attachments" names, else the rules'
attachments folder, else next to --note. An existing file is never
overwritten: a free name ("Foto 1.png") is chosen and printed. With --note,
![[embed]] is appended to that note. The type is checked by extension and
content; the limit is 10 MB.

FILE is a file on this computer; --name gives the name in the vault
(default: FILE's name). --content-base64 gives the bytes instead of FILE.`,
		example: `  vaultd upload ~/Downloads/grundriss.png --note "1_Projekte/Hausbau Lindenweg.md" --summary "Grundriss vom Architekten"`,
		args: func(*tools.UploadAttachmentArgs) cobra.PositionalArgs {
			return args(1, true, "one file", "vaultd upload --help")
		},
		check: func(_ *cobra.Command, args []string, u *tools.UploadAttachmentArgs) error {
			switch {
			case len(args) == 0 && u.ContentBase64 == "":
				return usagef("vaultd upload --help", "upload needs a FILE, or --name and --content-base64")
			case len(args) == 1 && u.ContentBase64 != "":
				return usagef("vaultd upload --help", "give the file once: FILE or --content-base64, not both")
			}
			return nil
		},
		prepare: func(_ *cobra.Command, args []string, u *tools.UploadAttachmentArgs) error {
			if len(args) == 1 {
				b, err := os.ReadFile(args[0])
				if err != nil {
					code := exitError
					if errors.Is(err, fs.ErrNotExist) {
						code = exitNotFound
					}
					return &failure{code: code, msg: fmt.Sprintf("cannot read %s: %v", args[0], unwrapPath(err)), err: err}
				}
				u.ContentBase64 = base64.StdEncoding.EncodeToString(b)
				if u.Name == "" {
					u.Name = filepath.Base(args[0])
				}
			}
			if u.Name == "" {
				return usagef("vaultd upload --help", "upload with --content-base64 needs --name NAME, e.g. --name Foto.png")
			}
			return nil
		},
	})
}

func (a *app) attachmentsCmd() *cobra.Command {
	return toolCmd(a, command[tools.ListAttachmentsArgs]{
		tool:  "list_attachments",
		use:   "[FOLDER]",
		short: "List attachments with size and the notes that embed them",
		long: `List the vault's attachments (list_attachments) — images, PDFs, audio,
video — with their size and the notes that embed or link to them. With
--unused only those no note uses.`,
		example: `  vaultd attachments
  vaultd attachments 3_Ressourcen --unused`,
		what: "one folder", onMissing: "vaultd attachments",
	})
}

func (a *app) attachmentCmd() *cobra.Command {
	var out string
	return toolCmd(a, command[tools.ReadAttachmentArgs]{
		tool:  "read_attachment",
		use:   "PATH [--out FILE]",
		short: "Show an attachment: kind, size, pixels or pages, a PDF's text",
		long: `Show what an agent sees of an attachment (read_attachment): its kind, size,
pixels (an image) or pages and text (a PDF, 12,000 characters at a time:
--offset), and the notes that embed it. PATH is a vault path, a file name,
or an embed as a note writes it ("![[plan.png]]"; with --note, a relative
"![](../img/plan.png)" resolves from that note). Hidden folders, links out of
the vault and files over 25 MB are refused. --out FILE saves a copy of the
file (its bytes as they are in the vault).`,
		example: `  vaultd attachment "Angebot CDN.pdf"
  vaultd attachment "Startseite Entwurf.png" --out /tmp/entwurf.png`,
		what: "one attachment", onMissing: "vaultd attachments",
		flags: func(cmd *cobra.Command, _ tools.Tool, _ *tools.ReadAttachmentArgs) {
			cmd.Flags().StringVarP(&out, "out", "o", "", "save a copy of the file to FILE")
		},
		after: func(core *tools.Core, r *tools.Result, _ *tools.ReadAttachmentArgs) *tools.Result {
			d, ok := r.Data.(tools.ReadAttachmentData)
			if out == "" || r.IsError() || !ok {
				return r
			}
			_, b, err := core.Vault().ReadAttachment(d.File, 0)
			if err == nil {
				err = os.WriteFile(out, b, 0o644)
			}
			if err != nil {
				return &tools.Result{Text: fmt.Sprintf("error: cannot save %s to %s: %v", d.File, out, unwrapPath(err)), Err: err, Data: r.Data}
			}
			r.Text = strings.TrimRight(r.Text, "\n") + fmt.Sprintf("\nsaved: %s (%s bytes)", out, groupDigitsCLI(len(b)))
			return r
		},
	})
}

// groupDigitsCLI renders 6636 as "6,636".
func groupDigitsCLI(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
