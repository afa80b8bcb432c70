package main

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/tools"
)

// TestParity_ToolsAndCommands keeps the two doors to one room: every tool
// has the CLI command its declaration names, every argument of it is that
// command's positional argument or its declared flag (with the declared
// help, short form and default), and every CLI command that reads or
// changes notes has a tool. Commands without a tool are listed here, each
// with its reason; anything else fails.
func TestParity_ToolsAndCommands(t *testing.T) {
	// Commands without a tool, and why.
	cliOnly := map[string]string{
		"init":       "lays out a new vault on disk; for people starting from nothing, not for agents",
		"connect":    "prints the lines that set vaultd up in an MCP client; for the person installing it",
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
	covered := map[string]bool{}
	for _, tool := range tools.Tools() {
		words := strings.Fields(tool.Command) // "base run": a sub-command
		covered[words[0]] = true
		cmd, _, err := root.Find(words)
		if err != nil || cmd == root {
			problems = append(problems, "tool "+tool.Name+" should have the command "+tool.Command)
			continue
		}
		if !strings.Contains(cmd.Long, "("+tool.Name+")") {
			problems = append(problems, "command "+cmd.Name()+"'s help does not name its tool ("+tool.Name+")")
		}
		for _, arg := range tool.Args {
			if arg.Name == tool.Positional {
				if place := strings.TrimPrefix(cmd.Use, cmd.Name()+" "); place == cmd.Use || strings.Trim(place, "[]")[:1] == "-" {
					problems = append(problems, "command "+cmd.Name()+" takes "+arg.Name+" as its argument but its usage names none: "+cmd.Use)
				}
				continue
			}
			f := cmd.Flags().Lookup(arg.Flag)
			switch {
			case f == nil:
				problems = append(problems, "tool "+tool.Name+"'s argument "+arg.Name+" should be the flag --"+arg.Flag+" of "+cmd.Name())
			case arg.Help == "":
				problems = append(problems, "tool "+tool.Name+"'s argument "+arg.Name+" has no help for --"+arg.Flag+" (add a help tag)")
			case !strings.HasPrefix(f.Usage, arg.Help):
				problems = append(problems, "--"+arg.Flag+" of "+cmd.Name()+" says "+strconv.Quote(f.Usage)+", its declaration "+strconv.Quote(arg.Help))
			case f.Shorthand != arg.Short:
				problems = append(problems, "--"+arg.Flag+" of "+cmd.Name()+" is -"+f.Shorthand+", its declaration -"+arg.Short)
			case arg.Default != "" && f.DefValue != arg.Default:
				problems = append(problems, "--"+arg.Flag+" of "+cmd.Name()+" defaults to "+f.DefValue+", its declaration to "+arg.Default)
			}
		}
	}
	for c := range commands {
		if !covered[c] && cliOnly[c] == "" {
			problems = append(problems, "command "+c+" has no MCP tool (add one, or list it in cliOnly with a reason)")
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}
