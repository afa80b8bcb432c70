package main

import (
	"bytes"
	"sort"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/mcpserver"
)

// TestParity_ToolsAndCommands keeps the two doors to one room: every MCP
// tool has a CLI command calling the same core, and every CLI command that
// reads or changes notes has a tool. Differences are listed here, each with
// its reason; anything else fails.
func TestParity_ToolsAndCommands(t *testing.T) {
	// tool → command
	twins := map[string]string{
		"vault_overview":       "overview",
		"search_notes":         "search",
		"search_similar_notes": "similar",
		"read_note":            "read",
		"list_notes":           "list",
		"get_backlinks":        "backlinks",
		"create_note":          "create",
		"append_to_note":       "append",
		"update_section":       "update-section",
		"replace_note":         "replace",
		"delete_note":          "delete",
		"list_trash":           "trash",
		"restore_note":         "restore",
		// reorganising and history (issue 6)
		"move_note":      "move",
		"note_history":   "history",
		"recent_changes": "history",
		// properties, tags, pins, boards, attachments
		"set_properties":    "set-properties",
		"add_tags":          "add-tags",
		"remove_tags":       "remove-tags",
		"list_tags":         "tags",
		"pin_note":          "pin",
		"unpin_note":        "unpin",
		"read_board":        "board",
		"move_card":         "move-card",
		"add_card":          "add-card",
		"upload_attachment": "upload",
		"list_attachments":  "attachments",
		// git-synced teams (issue 18)
		"resolve_conflict": "resolve",
	}
	// Commands without a tool, and why.
	cliOnly := map[string]string{
		"init":       "lays out a new vault on disk; for people starting from nothing, not for agents",
		"serve":      "starts the MCP server itself",
		"app":        "serves the owner's page on loopback for a person in a browser, not for agents",
		"owner":      "signs the vault's owner in to the owner's page; an agent must never sign in as the owner",
		"keys":       "the vault owner hands out access keys to clients of the HTTP server; an agent must not mint its own",
		"index":      "builds or catches up the search index; the server keeps its index current by itself",
		"undo":       "for people: an agent asks for a change to be reverted; the vault's owner decides and runs it",
		"git":        "the owner sets up the clone's git (vaultd as merge driver); git runs the merge driver itself",
		"sync":       "syncs the clone with its git remote; the owner's choice (serve --git-sync runs it), not an agent's",
		"trial":      "runs an agent over the tools to trace how the vault's texts serve it; a client of the tools, not one of them",
		"help":       "cobra's help",
		"completion": "shell completion script",
		"version":    "prints the version; MCP clients get it as serverInfo.version",
	}
	a := &app{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &bytes.Buffer{}}
	root := a.newRoot()
	commands := map[string]bool{}
	for _, c := range root.Commands() {
		commands[c.Name()] = true
	}
	// cobra adds help and completion lazily.
	commands["help"], commands["completion"] = true, true

	var problems []string
	for _, tool := range mcpserver.AllToolNames() {
		cmd, ok := twins[tool]
		if !ok {
			problems = append(problems, "tool "+tool+" has no CLI command (add one, or list it here with a reason)")
			continue
		}
		if !commands[cmd] {
			problems = append(problems, "tool "+tool+" should have the command "+cmd)
		}
	}
	covered := map[string]bool{}
	for _, c := range twins {
		covered[c] = true
	}
	for c := range commands {
		if !covered[c] && cliOnly[c] == "" {
			problems = append(problems, "command "+c+" has no MCP tool (add one, or list it in cliOnly with a reason)")
		}
	}
	for tool := range twins {
		found := false
		for _, n := range mcpserver.AllToolNames() {
			found = found || n == tool
		}
		if !found {
			problems = append(problems, "twins lists "+tool+", which is not a tool")
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}
