package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// Prompts are workflows on a vault a person picks in the client (Claude
// Code's /mcp__notes__… commands): each returns a message that says what
// to do and names the exact tool calls to make, in order — only tools the
// connection may use — plus the notes it is about as embedded resources.
type prompt struct {
	name, title, description string
	args                     []promptArg
	build                    func(e promptEnv, args map[string]string) (*mcp.GetPromptResult, error)
}

// promptEnv is what a prompt is built for: the vault's core, the
// connection's rights there, and how its calls are spelled (naming the
// vault where the server serves several). vault is "" for a lone vault.
type promptEnv struct {
	c     *tools.Core
	p     tools.Perms
	door  tools.Door
	vault string
}

// call spells a call of tool for the prompt's vault.
func (e promptEnv) call(tool string, args ...tools.CallArg) string {
	return tools.CallText(e.door, tool, args...)
}

// uri is the resource URI of vault path p in the prompt's vault.
func (e promptEnv) uri(p string) string {
	if e.vault != "" {
		return NoteURI(e.vault + ":" + p)
	}
	return NoteURI(p)
}

type promptArg struct {
	name, description string
	kind              string // what completes it: "path", "heading", "space"
	required          bool
}

var prompts = []prompt{
	{
		name:  "changes_this_week",
		title: "What changed this week",
		description: "Summarise what changed in the vault in the last 7 days — by agents, people, Obsidian and git — grouped by space, " +
			"with the notes that matter most read in full.",
		args:  []promptArg{{name: "space", description: "only this space (top-level folder), e.g. 1_Projekte", kind: "space"}},
		build: changesPrompt,
	},
	{
		name:  "triage_inbox",
		title: "Triage the inbox",
		description: "Go through the inbox following the vault's rules in 9_System: for each note say where it belongs and why, " +
			"and move it there when the connection may write and you are asked to.",
		build: triagePrompt,
	},
	{
		name:        "summarize_note",
		title:       "Summarise a note with its backlinks",
		description: "Summarise one note (or one section of it) and what the notes that link to it say about it.",
		args: []promptArg{
			{name: "path", description: "the note: a path, title or alias, e.g. 1_Projekte/Website-Relaunch.md", kind: "path", required: true},
			{name: "heading", description: "only this section of the note", kind: "heading"},
		},
		build: summarizePrompt,
	},
}

func promptByName(name string) (prompt, bool) {
	for _, p := range prompts {
		if p.name == name {
			return p, true
		}
	}
	return prompt{}, false
}

// argKind is what completes the prompt's argument name ("" if nothing).
func argKind(p prompt, name string) string {
	for _, a := range p.args {
		if a.name == name {
			return a.kind
		}
	}
	return ""
}

// vaultPromptArg is the argument every prompt takes where one server
// serves several vaults.
var vaultPromptArg = promptArg{name: "vault", description: "the vault (a path may also be written NAME:path); without it, the one vault this connection may read, or the vault holding the note", kind: "vault"}

// addPrompts registers the prompts; each is built for the connection
// that asks, in the vault it names where the server serves several.
func addPrompts(vs *tools.Vaults, s *server.MCPServer, permsOf func(context.Context) tools.Perms, visibleOf func(context.Context) []string, callerOf func(context.Context) tools.Caller) {
	for _, p := range prompts {
		p := p
		opts := []mcp.PromptOption{mcp.WithPromptTitle(p.title), mcp.WithPromptDescription(p.description)}
		args := p.args
		if vs.Multi() {
			args = append(slices.Clone(args), vaultPromptArg)
		}
		for _, a := range args {
			ao := []mcp.ArgumentOption{mcp.ArgumentDescription(a.description)}
			if a.required {
				ao = append(ao, mcp.RequiredArgument())
			}
			opts = append(opts, mcp.WithArgument(a.name, ao...))
		}
		s.AddPrompt(mcp.NewPrompt(p.name, opts...), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if !vs.Multi() {
				return p.build(promptEnv{c: vs.First(), p: permsOf(ctx), door: tools.DoorMCP}, req.Params.Arguments)
			}
			args := maps.Clone(req.Params.Arguments)
			if args == nil {
				args = map[string]string{}
			}
			e, err := promptVault(vs, p, visibleOf(ctx), callerOf(ctx), args)
			if err != nil {
				return nil, err
			}
			return p.build(e, args)
		})
	}
}

// promptVault picks the vault a prompt is for where the server serves
// several: its vault argument, the NAME: of its path, the one vault the
// connection may read, or the vault holding the note it names. NAME: is
// taken off args["path"]; the error lists the vaults there are.
func promptVault(vs *tools.Vaults, p prompt, visible []string, caller tools.Caller, args map[string]string) (promptEnv, error) {
	name := ""
	if v := strings.TrimSpace(args["vault"]); v != "" {
		for _, n := range visible {
			if strings.EqualFold(n, v) {
				name = n
			}
		}
		if name == "" {
			return promptEnv{}, fmt.Errorf("%s: no vault %q; the vaults: %s", p.name, v, strings.Join(visible, ", "))
		}
	}
	if n, rest, ok := splitVault(vs, visible, args["path"]); ok {
		if name != "" && name != n {
			return promptEnv{}, fmt.Errorf("%s: vault %s and the path's vault %s differ; name one", p.name, name, n)
		}
		name, args["path"] = n, rest
	}
	if name == "" && len(visible) == 1 {
		name = visible[0]
	}
	if ref := strings.TrimSpace(args["path"]); name == "" && ref != "" {
		var in []string
		for _, n := range visible {
			if c := vs.Core(n); c != nil {
				if _, _, err := c.Vault().Find(ref); err == nil {
					in = append(in, n)
				}
			}
		}
		if len(in) == 1 {
			name = in[0]
		} else if len(in) > 1 {
			return promptEnv{}, fmt.Errorf("%s: %q is in %d vaults (%s); give vault", p.name, ref, len(in), strings.Join(in, ", "))
		}
	}
	if name == "" {
		if p.name == "changes_this_week" && strings.TrimSpace(args["space"]) == "" {
			return promptEnv{c: vs.Core(visible[0]), p: caller.Perms, door: tools.DoorMCP}, nil // recent_changes covers every vault
		}
		return promptEnv{}, fmt.Errorf("%s needs vault: this server serves %s", p.name, strings.Join(visible, ", "))
	}
	c := vs.Core(name)
	if c == nil {
		return promptEnv{}, fmt.Errorf("%s: vault %s is no longer served; the vaults: %s", p.name, name, strings.Join(visible, ", "))
	}
	perms, _ := caller.PermsIn(name)
	return promptEnv{c: c, p: perms, door: tools.DoorMCP.In(name), vault: name}, nil
}

// GetPrompt builds a prompt by name for a connection with perms (the CLI
// and tests; MCP clients go through prompts/get).
func GetPrompt(c *tools.Core, name string, perms tools.Perms, args map[string]string) (*mcp.GetPromptResult, error) {
	e := promptEnv{c: c, p: perms, door: tools.DoorMCP}
	p, ok := promptByName(name)
	if !ok {
		var names []string
		for _, p := range prompts {
			names = append(names, p.name)
		}
		return nil, fmt.Errorf("no prompt %q; the prompts are %s", name, strings.Join(names, ", "))
	}
	return p.build(e, args)
}

func userText(text string) mcp.PromptMessage {
	return mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))
}

// noteResource embeds a note's markdown in a prompt message.
func noteResource(e promptEnv, n *vault.Note) mcp.PromptMessage {
	return mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(mcp.TextResourceContents{
		URI: e.uri(n.Path), MIMEType: "text/markdown", Text: string(n.Doc.Src),
		Meta: map[string]any{"path": n.Path, "title": n.Title, "version": note.ShortVersion(n.Version), "space": n.Space},
	}))
}

func steps(lines ...string) string {
	var b strings.Builder
	n := 0
	for _, l := range lines {
		if l == "" {
			continue
		}
		n++
		fmt.Fprintf(&b, "%d. %s\n", n, l)
	}
	return b.String()
}

func changesPrompt(e promptEnv, args map[string]string) (*mcp.GetPromptResult, error) {
	c := e.c
	space := strings.TrimSpace(args["space"])
	rc := []tools.CallArg{{Name: "since", Value: "7d"}}
	where := "the vault"
	if space != "" {
		if !containsFold(c.Vault().Spaces(), space) {
			return nil, fmt.Errorf("no space %q; the spaces are %s", space, strings.Join(c.Vault().Spaces(), ", "))
		}
		rc = append(rc, tools.CallArg{Name: "space", Value: space})
		where = "the space " + space
	}
	text := fmt.Sprintf("Tell me what changed in %s over the last 7 days.\n\n", where) + steps(
		"Call "+e.call("recent_changes", rc...)+" — it lists every change, newest first: by agents and people through vaultd, and by Obsidian, git or an editor (actor \"outside vaultd\"). Follow its \"next page:\" call until you have them all (at most 5 pages; then say how many you left out).",
		"For the 3 notes that changed most or matter most, call note_history with their path to see each change's diff, and read_note where you need the whole text.",
		"Answer grouped by space: for each note its path and title, who changed it, what changed and why (the change summaries). End with what looks unfinished or needs a person.",
	) + "\nDo not change any note: this is a report."
	return mcp.NewGetPromptResult("What changed in "+where+" in the last 7 days", []mcp.PromptMessage{userText(text)}), nil
}

func triagePrompt(e promptEnv, _ map[string]string) (*mcp.GetPromptResult, error) {
	c, p := e.c, e.p
	r, err := c.Rules()
	if err != nil {
		return nil, err
	}
	inbox := r.Inbox
	if inbox == "" {
		inbox = "0_Inbox"
		for _, s := range c.Vault().Spaces() {
			if strings.Contains(strings.ToLower(s), "inbox") {
				inbox = s
				break
			}
		}
	}
	if !c.Vault().Exists(inbox) {
		return nil, fmt.Errorf("the vault has no inbox folder %q (a rules note in 9_System can name one: inbox: FOLDER); the spaces are %s", inbox, strings.Join(c.Vault().Spaces(), ", "))
	}
	var msgs []mcp.PromptMessage
	var ruleSteps []string
	var rulesRead []string
	for _, n := range r.Notes {
		rulesRead = append(rulesRead, e.call("read_note", tools.CallArg{Name: "path", Value: n.Path}))
	}
	if len(rulesRead) > 0 {
		ruleSteps = append(ruleSteps, "The vault's rules are in 9_System (the first one is below): read them all first — "+strings.Join(rulesRead, ", ")+". They say which folders exist for what, which properties new notes need, and what agents may not change.")
	} else {
		ruleSteps = append(ruleSteps, "This vault has no rules notes in 9_System: go by its spaces ("+strings.Join(c.Vault().Spaces(), ", ")+"), which vault_overview {} describes.")
	}
	act := "Propose a place for each note; this connection may only read, so say what the vault's owner should move."
	if p.Write {
		act = "Propose a place for each note and wait for my go-ahead; then move each with move_note, its path, the folder as to (ending in /), the version read_note showed as expected_version and a change_summary saying why. Notes the rules protect stay where they are."
	}
	text := fmt.Sprintf("Triage the inbox %s of this vault, following its rules.\n\n", inbox) + steps(append(ruleSteps,
		"Call "+e.call("list_notes", tools.CallArg{Name: "folder", Value: inbox})+" to see what is in the inbox (follow its \"next page:\" call if there is one).",
		"Read each note with read_note and its path; search_notes finds where similar notes already live.",
		act,
	)...) + "\nAnswer with a table: note, where it belongs, why."
	msgs = append(msgs, userText(text))
	if len(r.Notes) > 0 {
		if n, err := c.Vault().Read(r.Notes[0].Path); err == nil {
			msgs = append(msgs, noteResource(e, n))
		}
	}
	return mcp.NewGetPromptResult("Triage "+inbox+" following the rules in 9_System", msgs), nil
}

func summarizePrompt(e promptEnv, args map[string]string) (*mcp.GetPromptResult, error) {
	c := e.c
	ref := strings.TrimSpace(args["path"])
	if ref == "" {
		return nil, fmt.Errorf("summarize_note needs path: the note to summarise, e.g. %s", exampleNote(c))
	}
	n, linkHeading, err := c.Vault().Find(ref)
	if err != nil {
		msg := err.Error()
		if ve, ok := note.AsError(err); ok && len(ve.Alternatives) > 0 {
			msg += "; closest: " + strings.Join(tools.Closest(ve.Alternatives), ", ")
		}
		return nil, fmt.Errorf("summarize_note: %s", msg)
	}
	heading := strings.TrimSpace(args["heading"])
	if heading == "" {
		heading = linkHeading
	}
	read := []tools.CallArg{{Name: "path", Value: n.Path}}
	what := fmt.Sprintf("the note %s (%q)", n.Path, n.Title)
	if heading != "" {
		read = append(read, tools.CallArg{Name: "heading", Value: heading})
		what = fmt.Sprintf("the section %q of the note %s", heading, n.Path)
	}
	text := fmt.Sprintf("Summarise %s and what the notes that link to it say about it.\n\n", what) + steps(
		"The note's text is below (version "+note.ShortVersion(n.Version)+"). If it is long or you need one section, call "+e.call("read_note", read...)+".",
		"Call "+e.call("get_backlinks", tools.CallArg{Name: "path", Value: n.Path})+" for the notes that link to it, with the line of each link; read the ones that add something with read_note.",
		"Answer in the note's language: a summary of 5 sentences at most, then what the linking notes add (each by path), then open questions.",
	) + "\nDo not change any note."
	return mcp.NewGetPromptResult("Summary of "+n.Path+" with its backlinks", []mcp.PromptMessage{userText(text), noteResource(e, n)}), nil
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
