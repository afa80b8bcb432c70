package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// A server of several vaults (tools.Vaults): every tool takes "vault",
// resources name a note as vault://note/NAME:path, and a connection sees
// only the vaults its rights name — in tools, resources, completions and
// instructions alike.

// vaultArg describes the vault argument every tool takes where one server
// serves several vaults. It names none: a key sees only its own vaults,
// and vault_overview lists them.
const vaultArg = `which vault (vault_overview {} lists them); without it, the vault that has the note, or every vault for search and lists. A path may also be written NAME:path`

// withVaultArg adds the vault argument to a tool's input schema.
func withVaultArg(t mcp.Tool) mcp.Tool {
	var schema map[string]any
	if err := json.Unmarshal(t.RawInputSchema, &schema); err != nil {
		panic(fmt.Sprintf("tool %s: %v", t.Name, err)) // a declaration bug, caught by the tests
	}
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		schema["properties"] = props
	}
	props["vault"] = map[string]any{"type": "string", "description": vaultArg}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", t.Name, err))
	}
	t.RawInputSchema = raw
	return t
}

// visibleTo lists the vaults connection cn may read.
func visibleTo(vs *tools.Vaults, cn *tools.Connection) []string {
	if cn == nil {
		return nil
	}
	return vs.Visible(tools.Caller{Perms: cn.Perms, Vaults: cn.Vaults})
}

// instructionsFor renders the server instructions for connection cn: a
// lone vault's own; for several, the vaults cn may see, then each one's.
func instructionsFor(vs *tools.Vaults, cn *tools.Connection) string {
	if !vs.Multi() {
		return vs.First().InstructionsFor(cn.Perms)
	}
	visible := visibleTo(vs, cn)
	if len(visible) == 0 {
		return "This connection may read none of the vaults this server serves."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "This server serves %d vaults: %s. Every tool takes \"vault\" (a path may also be written NAME:path, e.g. %s:0_Inbox/Idee.md); without it, a call goes to the vault that has its note, and search_notes and the lists cover every vault. Each answer names its vault, and every call it suggests names it too. Start with vault_overview {}.",
		len(visible), strings.Join(visible, ", "), visible[0])
	for _, n := range visible {
		p, _ := tools.Caller{Perms: cn.Perms, Vaults: cn.Vaults}.PermsIn(n)
		fmt.Fprintf(&b, "\n\n# Vault %s\n\n%s", n, vs.Core(n).InstructionsFor(p))
	}
	return b.String()
}

// splitVault splits "NAME:path" into a visible vault and its path.
func splitVault(vs *tools.Vaults, visible []string, p string) (name, rest string, ok bool) {
	pre, rest, found := strings.Cut(p, ":")
	if !found {
		return "", "", false
	}
	for _, n := range visible {
		if strings.EqualFold(n, pre) {
			return n, rest, true
		}
	}
	return "", "", false
}

// resourcePageIn is one page of resources/list over the visible vaults:
// each vault's notes and attachments in turn, as NAME:path.
func resourcePageIn(vs *tools.Vaults, visible []string, cursor mcp.Cursor) ([]mcp.Resource, mcp.Cursor) {
	type entry struct {
		vault string
		e     vault.Entry
	}
	var all []entry
	for _, n := range visible {
		for _, e := range listedFiles(vs.Core(n)) {
			all = append(all, entry{n, e})
		}
	}
	off := min(cursorOffset(cursor), len(all))
	end := min(off+resourcePage, len(all))
	out := make([]mcp.Resource, 0, end-off)
	for _, it := range all[off:end] {
		p := it.vault + ":" + it.e.Path
		r := mcp.NewResource(NoteURI(p), p,
			mcp.WithMIMEType(mimeOf(it.e.Path)),
			mcp.WithResourceDescription(resourceDescription(it.e)+", vault "+it.vault))
		sz := it.e.Size
		r.Size = &sz
		out = append(out, r)
	}
	var next mcp.Cursor
	if end < len(all) {
		next = listCursor(end)
	}
	return out, next
}

// readInVaults reads a vault://note/NAME:path resource of a visible vault.
func readInVaults(vs *tools.Vaults, visible []string, uri string) ([]mcp.ResourceContents, error) {
	p, isNote, ok := pathOfURI(uri)
	name, rest, inVault := "", "", false
	if ok {
		name, rest, inVault = splitVault(vs, visible, p)
	}
	if !inVault {
		example := "Notiz.md"
		if len(visible) > 0 {
			example = visible[0] + ":" + exampleNote(vs.Core(visible[0]))
		}
		return nil, fmt.Errorf("%q is not a resource of this server: it serves several vaults, and names a note as %sNAME:path (e.g. %s), an attachment as %sNAME:path; the vaults: %s; resources/list lists them",
			uri, noteURIPrefix, NoteURI(example), fileURIPrefix, strings.Join(visible, ", "))
	}
	prefix := noteURIPrefix
	if !isNote {
		prefix = fileURIPrefix
	}
	inner := prefix + strings.TrimPrefix(strings.TrimPrefix(NoteURI(rest), noteURIPrefix), fileURIPrefix)
	out, err := ReadResource(vs.Core(name), inner)
	if err != nil {
		return nil, fmt.Errorf("vault %s: %w", name, err)
	}
	for i, rc := range out {
		switch c := rc.(type) {
		case mcp.TextResourceContents:
			c.URI = uri
			c.Meta["vault"] = name
			out[i] = c
		case mcp.BlobResourceContents:
			c.URI = uri
			c.Meta["vault"] = name
			out[i] = c
		}
	}
	return out, nil
}

// completeInVaults completes a resource path where several vaults are
// served: the visible vaults' names ("team:") until one is named, then
// that vault's paths after it.
func completeInVaults(vs *tools.Vaults, visible []string, prefix string, notes bool) *mcp.Completion {
	name, rest, ok := splitVault(vs, visible, prefix)
	if !ok {
		var out []string
		for _, n := range visible {
			if strings.HasPrefix(strings.ToLower(n+":"), strings.ToLower(prefix)) {
				out = append(out, n+":")
			}
		}
		return completion(out)
	}
	var values []string
	if notes {
		values = CompleteNotePath(vs.Core(name), rest).Values
	} else {
		for _, e := range listedFiles(vs.Core(name)) {
			if !e.Note && strings.HasPrefix(strings.ToLower(e.Path), strings.ToLower(rest)) {
				values = append(values, e.Path)
			}
		}
	}
	out := make([]string, 0, len(values))
	for _, v := range values {
		out = append(out, name+":"+v)
	}
	return completion(slices.Clip(out))
}
