package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// tool is one tool, declared once: its name, the command line's spelling
// (command and positional argument), the right it needs, its annotations,
// its description, its arguments (a struct whose fields carry the JSON
// name, the schema text and the command line's flag help) and the core
// function it calls. The MCP schema, the CLI's commands and flags and the
// suggested calls in answers are all derived from it.
type tool struct {
	name        string
	title       string
	command     string // the vaultd command: "read"
	positional  string // the argument a command line gives without a flag; "" for none
	description string
	perm        string // read, write, delete
	idempotent  bool
	destructive bool
	argsType    reflect.Type
	run         func(ctx context.Context, c *Core, caller Caller, raw map[string]any) *Result
	invoke      func(ctx context.Context, c *Core, caller Caller, a any) *Result
}

// def completes a tool whose arguments decode into T and which calls fn.
func def[T any](t tool, fn func(c *Core, ctx context.Context, caller Caller, a T) *Result) tool {
	names := argNames[T]()
	name := t.name
	t.argsType = reflect.TypeFor[T]()
	t.run = func(ctx context.Context, c *Core, caller Caller, raw map[string]any) *Result {
		var a T
		if err := argSizes(raw); err != nil {
			return c.fail(caller, failure{tool: name}, &note.Error{Op: name, Kind: note.ErrInvalid, Msg: err.Error()})
		}
		if err := decodeArgs(raw, &a); err != nil {
			return c.fail(caller, failure{tool: name}, &note.Error{Op: name, Kind: note.ErrInvalid, Msg: err.Error()})
		}
		if unknown := unknownArgs(raw, names); len(unknown) > 0 {
			return c.failUnknownArgs(caller, name, raw, unknown, names)
		}
		return fn(c, ctx, caller, a)
	}
	t.invoke = func(ctx context.Context, c *Core, caller Caller, a any) *Result {
		return fn(c, ctx, caller, a.(T))
	}
	return t
}

// maxArgBytes bounds every string argument but a note's or file's content:
// a path, a heading, a query, a summary, a card. A read tool handed a
// 16 MB query used to take over 700 MB and 30 s to search for it.
const maxArgBytes = 4096

// longArgs are the arguments that carry content; the HTTP body limit
// bounds them (HTTPLimits.MaxBody), and the tools their own sizes.
var longArgs = map[string]bool{"content": true, "content_base64": true}

// argSizes refuses a string argument longer than maxArgBytes.
func argSizes(raw map[string]any) error {
	for _, k := range sortedKeys(raw) {
		if s, ok := raw[k].(string); ok && len(s) > maxArgBytes && !longArgs[k] {
			return fmt.Errorf("argument %q is %s bytes long; it takes at most %s (only content may be longer)", k, groupDigits(len(s)), groupDigits(maxArgBytes))
		}
	}
	return nil
}

// argNames lists the JSON names of an argument struct's fields, in order.
func argNames[T any]() []string {
	var out []string
	t := reflect.TypeFor[T]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out = append(out, name)
	}
	return out
}

// unknownArgs returns the argument names of raw that the tool does not
// take, sorted. (The MCP "_meta" a client may add is not an argument.)
func unknownArgs(raw map[string]any, known []string) []string {
	var out []string
	for k := range raw {
		if k != "_meta" && !slices.Contains(known, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// failUnknownArgs answers a call that names arguments the tool does not
// take: silently dropping one ("note" for "path") would answer another
// question than the one asked.
func (c *Core) failUnknownArgs(caller Caller, tool string, raw map[string]any, unknown, known []string) *Result {
	var b strings.Builder
	quoted := make([]string, len(unknown))
	for i, u := range unknown {
		quoted[i] = strconv.Quote(u)
	}
	what := "argument"
	if len(unknown) > 1 {
		what = "arguments"
	}
	fmt.Fprintf(&b, "error: %s has no %s %s; nothing was done\nerror code: invalid_argument\n", tool, what, strings.Join(quoted, ", "))
	b.WriteString("its arguments: " + strings.Join(known, ", ") + "\n")
	var near []string
	rename := map[string]string{}
	for _, u := range unknown {
		if k := nearestArg(u, known); k != "" {
			if _, taken := raw[k]; !taken {
				near = append(near, fmt.Sprintf("%q for %q", k, u))
				rename[u] = k
			}
		}
	}
	if len(near) > 0 {
		b.WriteString("Use " + strings.Join(near, ", ") + ", and send the call again.")
	} else {
		b.WriteString("Send the call again with these names only.")
	}
	if len(rename) == len(unknown) {
		// The corrected call, as the caller sent it but for the names.
		fixed := call{tool: tool}
		for _, k := range known {
			for raw0, v := range raw {
				if raw0 == k || rename[raw0] == k {
					fixed.args = append(fixed.args, arg{k, v})
				}
			}
		}
		sent := failure{tool: tool}
		for k, v := range raw {
			sent.args = append(sent.args, arg{k, v})
		}
		for _, l := range suggest(caller.Door, sent, fixed) {
			b.WriteString("\n" + l)
		}
	}
	return &Result{Text: b.String(),
		Data: map[string]any{"error": "invalid_argument", "unknown_arguments": unknown, "arguments": known},
		Err:  &note.Error{Op: tool, Kind: note.ErrInvalid, Msg: "unknown argument " + strings.Join(unknown, ", ")}}
}

// nearestArg guesses which known argument an unknown name meant: the same
// concept under another name (note, file, title → path), else the closest
// spelling.
func nearestArg(u string, known []string) string {
	synonyms := map[string][]string{
		"path":             {"note", "file", "title", "name", "note_path", "filename", "id", "link", "notepath"},
		"heading":          {"section", "header", "heading_path", "title_path"},
		"content":          {"text", "body", "markdown", "data"},
		"change_summary":   {"summary", "message", "reason", "commit_message", "description"},
		"query":            {"q", "search", "text", "term", "terms"},
		"folder":           {"dir", "directory", "path"},
		"expected_version": {"version", "base_version", "expected", "etag"},
		"limit":            {"max", "count", "top", "n", "size"},
		"offset":           {"skip", "start", "page", "cursor"},
	}
	u = strings.ToLower(strings.TrimSpace(u))
	for _, k := range known {
		if slices.Contains(synonyms[k], u) {
			return k
		}
	}
	best, bestD := "", 3
	for _, k := range known {
		if d := note.Distance(u, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// decodeArgs decodes tool arguments with errors that name the argument.
func decodeArgs(raw map[string]any, into any) error {
	b, err := json.Marshal(raw)
	if err != nil {
		return fmt.Errorf("the arguments are not valid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(into); err != nil {
		var te *json.UnmarshalTypeError
		if ok := asType(err, &te); ok {
			return fmt.Errorf("argument %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), jsonKind(te.Value))
		}
		return fmt.Errorf("the arguments could not be read: %v", err)
	}
	return nil
}

// jsonKind names a Go or JSON kind the way an agent writing JSON knows it,
// with its article: "a number", "a string", "an array", "true or false".
func jsonKind(k string) string {
	switch k {
	case "int", "int64", "uint", "float64", "number":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "map", "object", "struct":
		return "a JSON object"
	case "slice", "array":
		return "a list"
	case "null":
		return "null"
	}
	return "a " + k
}

func asType[T error](err error, target *T) bool {
	t, ok := err.(T)
	if ok {
		*target = t
	}
	return ok
}

// tools is the full tool set, sorted by name (AGENT-CONTRACT rule 14: the
// list is sorted and byte-stable). Descriptions say when to use the tool
// and show one example call; keep them tight — every agent pays for them.
var tools = func() []tool {
	ts := []tool{
		def(tool{name: "vault_overview", title: "Vault overview", command: "overview", perm: "read", idempotent: true,
			description: `Start here: spaces, folders, the rules for agents, pinned and recent notes, top tags. Example: vault_overview {}`},
			(*Core).Overview),
		def(tool{name: "search_notes", title: "Search notes", command: "search", positional: "query", perm: "read", idempotent: true,
			description: `Full-text search; German and English word forms and compound parts match; key=value matches a property. Each hit is a note with its best sections; path lists one note's. Example: search_notes {"query": "Zeitleiste Launch", "space": "1_Projekte"}`},
			(*Core).SearchNotes),
		def(tool{name: "search_similar_notes", title: "Similar notes", command: "similar", positional: "path", perm: "read", idempotent: true,
			description: `Notes most like a note or one section of it, by the words they share (German and English forms, compound parts), with those words. Example: search_similar_notes {"path": "2_Bereiche/Garten/Gewächshaus.md"}`},
			(*Core).SearchSimilarNotes),
		def(tool{name: "get_backlinks", title: "Backlinks", command: "backlinks", positional: "path", perm: "read", idempotent: true,
			description: `The notes linking to a note, with each link's line. Example: get_backlinks {"path": "1_Projekte/Klinikverbund Nord.md"}`},
			(*Core).GetBacklinks),
		def(tool{name: "list_trash", title: "List the trash", command: "trash", perm: "read", idempotent: true,
			description: `Deleted notes, newest first, with who deleted them and why. Example: list_trash {}`},
			(*Core).ListTrash),
		def(tool{name: "restore_note", title: "Restore from trash", command: "restore", positional: "trash_path", perm: "write",
			description: `Bring a note back from the trash (never overwrites). Example: restore_note {"trash_path": ".trash/0_Inbox/Buchtipps.md", "change_summary": "doch gebraucht"}`},
			(*Core).RestoreNote),
		def(tool{name: "move_note", title: "Move or rename", command: "move", positional: "path", perm: "write", destructive: true,
			description: `Move or rename a note or folder; sub-notes (X.md + X/) move along, links are updated. Example: move_note {"path": "0_Inbox/Idee Wissensdatenbank.md", "to": "1_Projekte/", "change_summary": "wird Projekt", "expected_version": "3f2a9c1b7d4e"}`},
			(*Core).MoveNote),
		def(tool{name: "note_history", title: "Note history", command: "history", positional: "path", perm: "read", idempotent: true,
			description: `A note's changes, newest first, with who, why and a short diff; edits outside vaultd too. Example: note_history {"path": "1_Projekte/Website-Relaunch.md"}`},
			(*Core).NoteHistory),
		def(tool{name: "recent_changes", title: "Recent changes", command: "history", perm: "read", idempotent: true,
			description: `What changed across the vault, newest first, also outside vaultd ("what did I do this week"). Example: recent_changes {"since": "7d", "space": "1_Projekte"}`},
			(*Core).RecentChanges),
		def(tool{name: "read_note", title: "Read a note", command: "read", positional: "path", perm: "read", idempotent: true,
			description: `Read a note or one section, with its version; long notes come with an outline. Example: read_note {"path": "1_Projekte/Website-Relaunch.md", "heading": "Zeitleiste"}`},
			(*Core).ReadNote),
		def(tool{name: "list_notes", title: "List notes", command: "list", positional: "folder", perm: "read", idempotent: true,
			description: `List a folder's sub-folders and notes; sort "changed": every note below it, newest first. Example: list_notes {"folder": "1_Projekte", "sort": "changed"}`},
			(*Core).ListNotes),
		def(tool{name: "create_note", title: "Create a note", command: "create", positional: "path", perm: "write",
			description: `Create a note (never overwrites), from a template if asked; without a folder it goes to the inbox. Example: create_note {"path": "0_Inbox/Idee.md", "content": "---\ntags: [idee]\n---\n# Idee\n\nEin Wiki für Kundenfragen.\n", "change_summary": "Idee notiert"}`},
			(*Core).CreateNote),
		def(tool{name: "open_daily_note", title: "Open a daily note", command: "daily", positional: "date", perm: "write",
			description: `Today's daily note (or another day's, or this week's, month's …) where Obsidian keeps it, made from the vault's template when missing. Example: open_daily_note {"date": "yesterday"}`},
			(*Core).OpenDailyNote),
		def(tool{name: "append_to_note", title: "Append to a note", command: "append", positional: "path", perm: "write",
			description: `Append at the end of a note or of one section; safe while others edit. Example: append_to_note {"path": "2_Bereiche/Team/Besprechungsprotokoll.md", "heading": "Zeitleiste", "content": "- 2026-12-01: Retro vereinbart", "change_summary": "Entscheidung"}`},
			(*Core).AppendToNote),
		def(tool{name: "update_section", title: "Replace a section", command: "update-section", positional: "path", perm: "write", destructive: true,
			description: `Replace one section's body (its heading stays); applies if only other sections changed since expected_version. Removing most of the note counts as a delete. Example: update_section {"path": "1_Projekte/Website-Relaunch.md", "heading": "Ziele", "content": "- Launch im Dezember", "change_summary": "Ziele neu", "expected_version": "3f2a9c1b7d4e"}`},
			(*Core).UpdateSection),
		def(tool{name: "replace_note", title: "Replace a whole note", command: "replace", positional: "path", perm: "write", destructive: true,
			description: `Replace a whole note; prefer update_section or append_to_note. Keeping under half of the note's words counts as a delete (needs the delete right). Example: replace_note {"path": "0_Inbox/Anruf Stadtwerke.md", "content": "# Anruf Stadtwerke\n\nErledigt.\n", "change_summary": "neu gegliedert", "expected_version": "3f2a9c1b7d4e"}`},
			(*Core).ReplaceNote),
		def(tool{name: "set_properties", title: "Set note properties", command: "set-properties", positional: "path", perm: "write", idempotent: true, destructive: true,
			description: `Set or remove frontmatter properties; the rest of the note stays byte for byte. Example: set_properties {"path": "1_Projekte/Website-Relaunch.md", "properties": {"status": "aktiv"}, "change_summary": "gestartet"}`},
			(*Core).SetProperties),
		def(tool{name: "add_tags", title: "Add tags", command: "add-tags", positional: "path", perm: "write", idempotent: true,
			description: `Add tags to the frontmatter in its own style; #tags in the text stay. Example: add_tags {"path": "0_Inbox/Buchtipps.md", "tags": ["buch"], "change_summary": "einsortiert"}`},
			(*Core).AddTags),
		def(tool{name: "remove_tags", title: "Remove tags", command: "remove-tags", positional: "path", perm: "write", idempotent: true, destructive: true,
			description: `Remove tags from the frontmatter; #tags in the text stay (reported). Example: remove_tags {"path": "0_Inbox/Buchtipps.md", "tags": ["inbox"], "change_summary": "einsortiert"}`},
			(*Core).RemoveTags),
		def(tool{name: "list_tags", title: "List tags", command: "tags", perm: "read", idempotent: true,
			description: `All tags with note counts, nested tags as a tree. Example: list_tags {"tag": "projekt"}`},
			(*Core).ListTags),
		def(tool{name: "pin_note", title: "Pin a note", command: "pin", positional: "path", perm: "write", idempotent: true,
			description: `Pin (bookmark) a note in Obsidian; vault_overview lists the pins. Example: pin_note {"path": "1_Projekte/Website-Relaunch.md", "change_summary": "Hauptprojekt"}`},
			(*Core).PinNote),
		def(tool{name: "unpin_note", title: "Unpin a note", command: "unpin", positional: "path", perm: "write", idempotent: true,
			description: `Remove a note's pin (bookmark) in Obsidian. Example: unpin_note {"path": "1_Projekte/Website-Relaunch.md", "change_summary": "erledigt"}`},
			(*Core).UnpinNote),
		def(tool{name: "read_board", title: "Read a Kanban board", command: "board", positional: "path", perm: "read", idempotent: true,
			description: `Show a Kanban board (Obsidian Kanban plugin): columns and cards. Example: read_board {"path": "1_Projekte/Website-Relaunch/Board.md"}`},
			(*Core).ReadBoard),
		def(tool{name: "move_card", title: "Move a board card", command: "move-card", positional: "path", perm: "write", idempotent: true,
			description: `Move a Kanban card (found by its text) to another column or place. Example: move_card {"path": "1_Projekte/Website-Relaunch/Board.md", "card": "Kontaktformular", "to_column": "Review", "change_summary": "fertig"}`},
			(*Core).MoveCard),
		def(tool{name: "add_card", title: "Add a board card", command: "add-card", positional: "path", perm: "write",
			description: `Add a card to a Kanban board column. Example: add_card {"path": "1_Projekte/Website-Relaunch/Board.md", "column": "Backlog", "text": "Cookies prüfen", "change_summary": "aus dem Call"}`},
			(*Core).AddCard),
		def(tool{name: "upload_attachment", title: "Upload an attachment", command: "upload", perm: "write",
			description: `Store a file (image, PDF, audio, video; at most 10 MB) in the attachment folder; with note, embed it there. Example: upload_attachment {"name": "Plan.png", "content_base64": "iVBORw0KGgo=", "note": "1_Projekte/Hausbau Lindenweg.md", "change_summary": "Grundriss"}`},
			(*Core).UploadAttachment),
		def(tool{name: "read_attachment", title: "Read an attachment", command: "attachment", positional: "path", perm: "read", idempotent: true,
			description: `See an attachment a note embeds: an image comes as image content (scaled down, metadata stripped), a PDF as its text, every kind with a text description (size, pixels, pages, the notes embedding it). path takes the vault path, the file name or the embed as written (![[Startseite Entwurf.png]]). Example: read_attachment {"path": "3_Ressourcen/Anhänge/Startseite Entwurf.png"}`},
			(*Core).ReadAttachment),
		def(tool{name: "list_attachments", title: "List attachments", command: "attachments", positional: "folder", perm: "read", idempotent: true,
			description: `Attachments with size and the notes embedding them; unused: true finds orphans. Example: list_attachments {"folder": "3_Ressourcen"}`},
			(*Core).ListAttachments),
		def(tool{name: "resolve_conflict", title: "Resolve a merge conflict", command: "resolve", positional: "path", perm: "write", destructive: true,
			description: `Resolve a note's merge conflicts (git markers), of one section or all: take ours, theirs, both (ours then theirs) or text (in content). For an attachment in conflict (vault_overview lists them): take ours, theirs or both. Example: resolve_conflict {"path": "1_Projekte/Website-Relaunch.md", "heading": "Ziele", "take": "both", "change_summary": "beide Ziele behalten"}`},
			(*Core).ResolveConflict),
		def(tool{name: "query_base", title: "Run a Bases view", command: "base run", positional: "base", perm: "read", idempotent: true,
			description: `Run a saved Obsidian Bases view (.base file) by name: its rows as a table with the view's columns and summaries; without view, the base's views. Example: query_base {"base": "Leseliste", "view": "Noch nicht gelesen"}`},
			(*Core).QueryBase),
		def(tool{name: "query_notes", title: "Filter notes by properties", command: "query", positional: "filter", perm: "read", idempotent: true,
			description: `Filter notes by their properties with a Bases expression; rows as a table. Example: query_notes {"filter": "status == \"aktiv\" && file.hasTag(\"projekt\")", "properties": "status, created", "sort": "created desc"}`},
			(*Core).QueryNotes),
		def(tool{name: "delete_note", title: "Delete a note", command: "delete", positional: "path", perm: "delete", destructive: true,
			description: `Move a note and its sub-notes (X.md + X/) to the trash; more than 5 sub-notes need "with_sub_notes": their number. Example: delete_note {"path": "0_Inbox/Buchtipps.md", "change_summary": "doppelt", "expected_version": "3f2a9c1b7d4e"}`},
			(*Core).DeleteNote),
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].name < ts[j].name })
	return ts
}()

// ToolNames lists the tools a connection with perms sees, sorted.
func ToolNames(p Perms) []string {
	var out []string
	for _, t := range tools {
		if allowed(p, t.perm) {
			out = append(out, t.name)
		}
	}
	return out
}

// AllToolNames lists every tool, sorted.
func AllToolNames() []string { return ToolNames(AllPerms) }

func allowed(p Perms, perm string) bool {
	switch perm {
	case "write":
		return p.Write
	case "delete":
		return p.Write && p.Delete
	}
	return p.Read
}

// Call runs a tool by name with JSON-like arguments, checking the caller's
// rights first. Unknown tools are an invalid-argument error listing the
// tools there are.
func (c *Core) Call(ctx context.Context, caller Caller, name string, args map[string]any) *Result {
	for _, t := range tools {
		if t.name != name {
			continue
		}
		if !allowed(caller.Perms, t.perm) {
			return permissionDenied(caller, t.name, t.perm)
		}
		return t.run(ctx, c, caller, args)
	}
	return c.fail(caller, failure{tool: name}, &note.Error{Op: "call", Kind: note.ErrInvalid,
		Msg: fmt.Sprintf("there is no tool %q; tools: %s", name, strings.Join(ToolNames(caller.Perms), ", "))})
}
