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

	"github.com/vaultd/vaultd/mcpserver"
)

// notesAppCommands are the twins of the notes-app tools: properties, tags,
// pins, boards and attachments. Reading commands join the "read" group,
// changing ones the "write" group.
func (a *app) notesAppCommands() []*cobra.Command {
	read := []*cobra.Command{a.tagsCmd(), a.boardCmd(), a.attachmentsCmd()}
	write := []*cobra.Command{a.setPropertiesCmd(), a.addTagsCmd(), a.removeTagsCmd(), a.pinCmd(), a.unpinCmd(),
		a.moveCardCmd(), a.addCardCmd(), a.uploadCmd()}
	for _, c := range read {
		c.GroupID = "read"
	}
	for _, c := range write {
		c.GroupID = "write"
	}
	return append(read, write...)
}

func (a *app) setPropertiesCmd() *cobra.Command {
	var w mcpserver.SetPropertiesArgs
	var sets, removes []string
	cmd := &cobra.Command{
		Use:   "set-properties NOTE --set KEY=VALUE… --remove KEY…",
		Short: "Set, change or remove frontmatter properties of a note",
		Long: `Set, change or remove frontmatter properties (set_properties). Every other
byte of the note stays as it was: untouched properties keep their order,
comments, quoting and date formats. A note without frontmatter gets one.

--set KEY=VALUE takes VALUE as JSON when it is JSON (3, true, null,
["a","b"], "quoted text"), else as text: --set status=aktiv. Dates are text:
--set due=2026-12-01 is written unquoted, as Obsidian writes dates. null
removes a property, as does --remove KEY.`,
		Example: `  vaultd set-properties 1_Projekte/Website-Relaunch.md --set status=abgeschlossen --set done=true --summary "Projekt abgeschlossen"
  vaultd set-properties 0_Inbox/Buchtipps.md --set 'tags=["privat","lesen"]' --remove created -m "aufgeräumt"`,
		Args: args(1, false, "the note whose properties to change", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if len(sets) == 0 && len(removes) == 0 {
				return usagef(withGlobals(cmd, "vaultd read "+shellQuote(args[0])), "set-properties needs --set KEY=VALUE or --remove KEY")
			}
			if err := needSummary(w.ChangeSummary); err != nil {
				return err
			}
			w.Path = args[0]
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
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.SetProperties(ctx(cmd), who, w)
			})
		}),
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "KEY=VALUE: set a property (repeatable); VALUE is JSON or text")
	cmd.Flags().StringArrayVar(&removes, "remove", nil, "KEY: remove a property (repeatable, or comma-separated)")
	summaryFlag(cmd, &w.ChangeSummary)
	expectFlag(cmd, &w.ExpectedVersion, "optional: the version you read; fails if the properties you change changed since")
	return cmd
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
	return a.tagEditCmd("add-tags", "Add tags to a note's frontmatter, in the note's own style",
		`Add tags to the note's frontmatter property "tags" (add_tags), keeping its
style: a block list gets "  - tag" lines, an inline list [a, b] grows in
place, a text "a, b" gets ", tag". #tags in the text are reported, never
changed. Tags may be given with or without '#'.`,
		`  vaultd add-tags 0_Inbox/Buchtipps.md buch empfehlung --summary "einsortiert"
  vaultd add-tags "1_Projekte/Hausbau Lindenweg.md" --tags 'projekt,kunde/privat' -m "als Projekt markiert"`,
		func(c *mcpserver.Core, cmd *cobra.Command, who mcpserver.Caller, t mcpserver.TagsArgs) *mcpserver.Result {
			return c.AddTags(ctx(cmd), who, t)
		})
}

func (a *app) removeTagsCmd() *cobra.Command {
	return a.tagEditCmd("remove-tags", "Remove tags from a note's frontmatter, keeping its style",
		`Remove tags from the note's frontmatter property "tags" (remove_tags),
keeping its style; when no tag is left the property goes. #tags in the text
stay and are reported: edit the text to remove them.`,
		`  vaultd remove-tags 0_Inbox/Buchtipps.md lesen --summary "gelesen"`,
		func(c *mcpserver.Core, cmd *cobra.Command, who mcpserver.Caller, t mcpserver.TagsArgs) *mcpserver.Result {
			return c.RemoveTags(ctx(cmd), who, t)
		})
}

func (a *app) tagEditCmd(name, short, long, example string, run func(*mcpserver.Core, *cobra.Command, mcpserver.Caller, mcpserver.TagsArgs) *mcpserver.Result) *cobra.Command {
	var t mcpserver.TagsArgs
	var tags string
	cmd := &cobra.Command{
		Use:     name + " NOTE TAG…",
		Short:   short,
		Long:    long,
		Example: example,
		Args:    tagArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			t.Path = args[0]
			t.Tags = append(splitList(tags), args[1:]...)
			if len(t.Tags) == 0 {
				return usagef(withGlobals(cmd, "vaultd tags"), "%s needs at least one tag: %s NOTE TAG… or --tags a,b", name, name)
			}
			if err := needSummary(t.ChangeSummary); err != nil {
				return err
			}
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return run(c, cmd, who, t)
			})
		}),
	}
	cmd.Flags().StringVar(&tags, "tags", "", "tags, comma-separated (or give them as arguments after NOTE)")
	summaryFlag(cmd, &t.ChangeSummary)
	return cmd
}

func (a *app) tagsCmd() *cobra.Command {
	var l mcpserver.ListTagsArgs
	cmd := &cobra.Command{
		Use:   "tags",
		Short: "List all tags with note counts, nested tags as a tree",
		Long: `List every tag of the vault (list_tags) with the number of notes carrying
it; nested tags (projekt/website) appear under their parent, which counts
their notes too. With --tag only that tag and the tags below it.`,
		Example: `  vaultd tags
  vaultd tags --tag projekt`,
		Args: args(0, false, "no arguments", "vaultd tags"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.ListTags(ctx(cmd), who, l)
			})
		}),
	}
	cmd.Flags().StringVar(&l.Tag, "tag", "", "only this tag and the tags nested below it")
	cmd.Flags().IntVar(&l.Limit, "limit", 100, "lines per page (at most 500)")
	cmd.Flags().IntVar(&l.Offset, "offset", 0, "lines to skip, for the next page")
	return cmd
}

func (a *app) pinCmd() *cobra.Command {
	return a.pinEditCmd("pin", "Pin (bookmark) a note in Obsidian",
		`Pin a note (pin_note): it is added to Obsidian's bookmarks
(.obsidian/bookmarks.json, created if missing; everything else in it is
kept) and shows in "vaultd overview" and in Obsidian's Bookmarks pane.`,
		`  vaultd pin 1_Projekte/Website-Relaunch.md --summary "aktuelles Hauptprojekt"`,
		func(c *mcpserver.Core, cmd *cobra.Command, who mcpserver.Caller, p mcpserver.PinArgs) *mcpserver.Result {
			return c.PinNote(ctx(cmd), who, p)
		})
}

func (a *app) unpinCmd() *cobra.Command {
	return a.pinEditCmd("unpin", "Remove a note's pin (bookmark) in Obsidian",
		`Unpin a note (unpin_note): its bookmarks are removed from Obsidian's
bookmarks, also inside bookmark groups (the groups stay).`,
		`  vaultd unpin 1_Projekte/Website-Relaunch.md --summary "Projekt abgeschlossen"`,
		func(c *mcpserver.Core, cmd *cobra.Command, who mcpserver.Caller, p mcpserver.PinArgs) *mcpserver.Result {
			return c.UnpinNote(ctx(cmd), who, p)
		})
}

func (a *app) pinEditCmd(name, short, long, example string, run func(*mcpserver.Core, *cobra.Command, mcpserver.Caller, mcpserver.PinArgs) *mcpserver.Result) *cobra.Command {
	var p mcpserver.PinArgs
	cmd := &cobra.Command{
		Use:     name + " NOTE",
		Short:   short,
		Long:    long,
		Example: example,
		Args:    args(1, false, "the note", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if err := needSummary(p.ChangeSummary); err != nil {
				return err
			}
			p.Path = args[0]
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return run(c, cmd, who, p)
			})
		}),
	}
	summaryFlag(cmd, &p.ChangeSummary)
	return cmd
}

func (a *app) boardCmd() *cobra.Command {
	var r mcpserver.ReadBoardArgs
	cmd := &cobra.Command{
		Use:   "board NOTE",
		Short: "Show a Kanban board: its columns and cards",
		Long: `Show a board note of the Obsidian Kanban plugin (read_board): each column
("## Column") with its cards ("- [ ] card"). NOTE is a path, title or
[[wikilink]].`,
		Example: `  vaultd board 1_Projekte/Website-Relaunch/Board.md
  vaultd board Board --column Backlog`,
		Args: args(1, false, "the board note", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			r.Path = args[0]
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.ReadBoard(ctx(cmd), who, r)
			})
		}),
	}
	cmd.Flags().StringVar(&r.Column, "column", "", "only this column")
	cmd.Flags().IntVar(&r.Offset, "offset", 0, "cards to skip in each column, for the next page")
	cmd.Flags().IntVar(&r.Limit, "limit", 50, "cards per column (at most 200)")
	return cmd
}

func (a *app) moveCardCmd() *cobra.Command {
	var m mcpserver.MoveCardArgs
	cmd := &cobra.Command{
		Use:   "move-card NOTE --card TEXT --to-column COLUMN",
		Short: "Move a card of a Kanban board to another column or place",
		Long: `Move a card (move_card), found by its text or a distinctive part of it, to
another column (--to-column) and/or place (--position, 1 = top). When
several cards match, nothing moves and all of them are listed as
"Column > card". Moving into a column marked **Complete** checks the card.`,
		Example: `  vaultd move-card 1_Projekte/Website-Relaunch/Board.md --card Kontaktformular --to-column Review --summary "Formular fertig"`,
		Args:    args(1, false, "the board note", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(m.Card) == "" {
				return usagef(withGlobals(cmd, "vaultd board "+shellQuote(args[0])), "move-card needs --card TEXT: the card's text or a part of it")
			}
			if err := needSummary(m.ChangeSummary); err != nil {
				return err
			}
			m.Path = args[0]
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.MoveCard(ctx(cmd), who, m)
			})
		}),
	}
	cmd.Flags().StringVar(&m.Card, "card", "", "the card's text, or a distinctive part of it (required)")
	cmd.Flags().StringVar(&m.ToColumn, "to-column", "", "the column to move it to (default: its own)")
	cmd.Flags().StringVar(&m.FromColumn, "from-column", "", "look for the card only in this column")
	cmd.Flags().IntVar(&m.Position, "position", 0, "1-based place in the target column (default: at the end)")
	summaryFlag(cmd, &m.ChangeSummary)
	expectFlag(cmd, &m.ExpectedVersion, "optional: fail if the board is no longer at this version")
	return cmd
}

func (a *app) addCardCmd() *cobra.Command {
	var w mcpserver.AddCardArgs
	cmd := &cobra.Command{
		Use:     "add-card NOTE --column COLUMN --text TEXT",
		Short:   "Add a card to a column of a Kanban board",
		Long:    `Add a card (add_card) to a column of a Kanban board, at the end or at --position (1 = top).`,
		Example: `  vaultd add-card 1_Projekte/Website-Relaunch/Board.md --column Backlog --text "Cookie-Banner prüfen" --summary "Aufgabe aus dem Call"`,
		Args:    args(1, false, "the board note", "vaultd list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(w.Column) == "" || strings.TrimSpace(w.Text) == "" {
				return usagef(withGlobals(cmd, "vaultd board "+shellQuote(args[0])), "add-card needs --column COLUMN and --text TEXT")
			}
			if err := needSummary(w.ChangeSummary); err != nil {
				return err
			}
			w.Path = args[0]
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.AddCard(ctx(cmd), who, w)
			})
		}),
	}
	cmd.Flags().StringVar(&w.Column, "column", "", "the column (required)")
	cmd.Flags().StringVar(&w.Text, "text", "", "the card's text, one line (required)")
	cmd.Flags().IntVar(&w.Position, "position", 0, "1-based place in the column (default: at the end)")
	summaryFlag(cmd, &w.ChangeSummary)
	return cmd
}

func (a *app) uploadCmd() *cobra.Command {
	var u mcpserver.UploadAttachmentArgs
	cmd := &cobra.Command{
		Use:   "upload FILE",
		Short: "Store a file (image, PDF, audio, video) as an attachment",
		Long: `Store a file in the vault's attachment folder (upload_attachment): the folder
Obsidian's "Default location for new attachments" names, else the rules'
attachments folder, else next to --note. An existing file is never
overwritten: a free name ("Foto 1.png") is chosen and printed. With --note,
![[embed]] is appended to that note. The type is checked by extension and
content; the limit is 10 MB.

FILE is a file on this computer; --name gives the name in the vault
(default: FILE's name). --content-base64 gives the bytes instead of FILE.`,
		Example: `  vaultd upload ~/Downloads/grundriss.png --note "1_Projekte/Hausbau Lindenweg.md" --summary "Grundriss vom Architekten"`,
		Args:    args(1, true, "one file", "vaultd upload --help"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0 && u.ContentBase64 == "":
				return usagef("vaultd upload --help", "upload needs a FILE, or --name and --content-base64")
			case len(args) == 1 && u.ContentBase64 != "":
				return usagef("vaultd upload --help", "give the file once: FILE or --content-base64, not both")
			}
			if err := needSummary(u.ChangeSummary); err != nil {
				return err
			}
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
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.UploadAttachment(ctx(cmd), who, u)
			})
		}),
	}
	cmd.Flags().StringVar(&u.Name, "name", "", "the file's name in the vault (default: FILE's name)")
	cmd.Flags().StringVar(&u.ContentBase64, "content-base64", "", "the file's bytes, base64-encoded, instead of FILE")
	cmd.Flags().StringVar(&u.Note, "note", "", "append ![[embed]] to this note")
	cmd.Flags().StringVar(&u.Heading, "heading", "", "with --note: append at the end of this section")
	summaryFlag(cmd, &u.ChangeSummary)
	return cmd
}

func (a *app) attachmentsCmd() *cobra.Command {
	var l mcpserver.ListAttachmentsArgs
	cmd := &cobra.Command{
		Use:   "attachments [FOLDER]",
		Short: "List attachments with size and the notes that embed them",
		Long: `List the vault's attachments (list_attachments) — images, PDFs, audio,
video — with their size and the notes that embed or link to them. With
--unused only those no note uses.`,
		Example: `  vaultd attachments
  vaultd attachments 3_Ressourcen --unused`,
		Args: args(1, true, "one folder", "vaultd attachments"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				l.Folder = args[0]
			}
			return a.call(cmd, func(c *mcpserver.Core, who mcpserver.Caller) *mcpserver.Result {
				return c.ListAttachments(ctx(cmd), who, l)
			})
		}),
	}
	cmd.Flags().BoolVar(&l.Unused, "unused", false, "only attachments no note embeds or links to")
	cmd.Flags().IntVar(&l.Limit, "limit", 20, "attachments per page (at most 100)")
	cmd.Flags().IntVar(&l.Offset, "offset", 0, "attachments to skip, for the next page")
	return cmd
}
