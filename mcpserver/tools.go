package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/vault"
)

// tool is one MCP tool: its name, description, the right it needs, its
// annotations and how it calls the core.
type tool struct {
	name        string
	title       string
	description string
	perm        string // read, write, delete
	idempotent  bool
	destructive bool
	schema      mcp.ToolOption
	run         func(ctx context.Context, c *Core, caller Caller, raw map[string]any) *Result
}

// def builds a tool whose arguments decode into T.
func def[T any](name, title, perm string, idempotent, destructive bool, desc string, fn func(c *Core, ctx context.Context, caller Caller, a T) *Result) tool {
	return tool{
		name: name, title: title, description: desc, perm: perm,
		idempotent: idempotent, destructive: destructive,
		schema: mcp.WithInputSchema[T](),
		run: func(ctx context.Context, c *Core, caller Caller, raw map[string]any) *Result {
			var a T
			if err := decodeArgs(raw, &a); err != nil {
				return c.fail(caller, failure{tool: name}, &vault.Error{Op: name, Kind: vault.ErrInvalid, Msg: err.Error()})
			}
			return fn(c, ctx, caller, a)
		},
	}
}

// decodeArgs decodes tool arguments with errors that name the argument.
func decodeArgs(raw map[string]any, into any) error {
	b, err := json.Marshal(raw)
	if err != nil {
		return fmt.Errorf("the arguments are not valid JSON")
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(into); err != nil {
		var te *json.UnmarshalTypeError
		if ok := asType(err, &te); ok {
			want := te.Type.Kind().String()
			if want == "int" {
				want = "number"
			}
			return fmt.Errorf("argument %q must be a %s, not a %s", te.Field, want, te.Value)
		}
		return fmt.Errorf("the arguments could not be read: %v", err)
	}
	return nil
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
		def("vault_overview", "Vault overview", "read", true, false,
			`Start here. Shows the vault's spaces with note counts, its folders, the rules for agents from 9_System/, recently changed notes and top tags. Example: vault_overview {}`,
			(*Core).Overview),
		def("search_notes", "Search notes", "read", true, false,
			`Full-text search with snippets; finds German and English word forms and compound parts (Häuser finds Haus and Krankenhäuser). Each hit names the section the match is in. Filters: space, folder, tag. Example: search_notes {"query": "Zeitleiste Launch", "space": "1_Projekte"}`,
			(*Core).SearchNotes),
		def("get_backlinks", "Backlinks", "read", true, false,
			`List the notes that link to a note (also via alias or #heading), with the line of each link. Example: get_backlinks {"path": "1_Projekte/Klinikverbund Nord.md"}`,
			(*Core).GetBacklinks),
		def("list_trash", "List the trash", "read", true, false,
			`List notes deleted into the vault's trash, newest first, with who deleted them and why. Example: list_trash {}`,
			(*Core).ListTrash),
		def("restore_note", "Restore from trash", "write", false, false,
			`Bring a deleted note back from the trash (never overwrites; give "to" for another place). Example: restore_note {"trash_path": ".trash/0_Inbox/Alt.md", "change_summary": "doch noch gebraucht"}`,
			(*Core).RestoreNote),
		def("read_note", "Read a note", "read", true, false,
			`Read a note, or one section of it, with its version. path may be a path, title, alias or [[wikilink]]; heading may be "Ziele", "## Ziele" or "Projekte > Ziele". Long notes come with an outline. Example: read_note {"path": "1_Projekte/Website-Relaunch.md", "heading": "Zeitleiste"}`,
			(*Core).ReadNote),
		def("list_notes", "List notes", "read", true, false,
			`List a folder's sub-folders and notes. sort "changed" lists every note below the folder, newest first ("what changed this week"). Example: list_notes {"folder": "1_Projekte", "sort": "changed"}`,
			(*Core).ListNotes),
		def("create_note", "Create a note", "write", false, false,
			`Create a new note (never overwrites). Without a folder it goes to the inbox. Example: create_note {"path": "0_Inbox/Idee.md", "content": "---\ntags: [idee]\n---\n# Idee\n…", "change_summary": "Idee aus dem Gespräch festgehalten"}`,
			(*Core).CreateNote),
		def("append_to_note", "Append to a note", "write", false, false,
			`Append markdown at the end of a note, or at the end of one section. Safe while others edit other parts. Example: append_to_note {"path": "2_Bereiche/Team/Besprechungsprotokoll.md", "heading": "Zeitleiste", "content": "- 2026-11-29: Entscheidung …", "change_summary": "Entscheidung ergänzt"}`,
			(*Core).AppendToNote),
		def("update_section", "Replace a section", "write", false, true,
			`Replace the body of one section (its heading line stays). Pass expected_version from read_note: if only other sections changed since, it still applies. Example: update_section {"path": "1_Projekte/Website-Relaunch.md", "heading": "Ziele", "content": "- …", "change_summary": "Ziele aktualisiert", "expected_version": "3f2a9c1b7d4e"}`,
			(*Core).UpdateSection),
		def("replace_note", "Replace a whole note", "write", false, true,
			`Replace a whole note. Needs expected_version from read_note; prefer update_section or append_to_note for partial edits. Example: replace_note {"path": "0_Inbox/Idee.md", "content": "…", "change_summary": "neu gegliedert", "expected_version": "3f2a9c1b7d4e"}`,
			(*Core).ReplaceNote),
		def("delete_note", "Delete a note", "delete", false, true,
			`Move a note to the vault's trash (restorable). Needs expected_version from read_note. Example: delete_note {"path": "0_Inbox/Alt.md", "change_summary": "Doppelt, Inhalt steht in 1_Projekte/X.md", "expected_version": "3f2a9c1b7d4e"}`,
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

// mcpTool builds the mcp-go tool with all four annotations set explicitly
// (mcp-go's defaults claim destructive and open-world).
func (t tool) mcpTool() mcp.Tool {
	return mcp.NewTool(t.name,
		mcp.WithDescription(t.description),
		mcp.WithTitleAnnotation(t.title),
		t.schema,
		mcp.WithReadOnlyHintAnnotation(t.perm == "read"),
		mcp.WithDestructiveHintAnnotation(t.destructive),
		mcp.WithIdempotentHintAnnotation(t.idempotent),
		mcp.WithOpenWorldHintAnnotation(false),
	)
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
	return c.fail(caller, failure{tool: name}, &vault.Error{Op: "call", Kind: vault.ErrInvalid,
		Msg: fmt.Sprintf("there is no tool %q; tools: %s", name, strings.Join(ToolNames(caller.Perms), ", "))})
}
