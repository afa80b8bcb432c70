// Command vaultd lets AI agents and people search, read and carefully edit a
// markdown vault — the folder its owners edit in Obsidian and sync with git.
//
// Every command that mirrors an agent tool calls the same core (package
// tools) the MCP server uses and prints the text an agent would read;
// --json prints the structured data instead. See `vaultd --help` for the
// commands and the exit codes.
//
// It is the top of the house and the only importer of cobra: it wires the
// doors (mcpserver, web, trial) to the core (tools) over index, rules,
// keys, embed, vault and note. Nothing imports it; its files hold flags,
// wiring and printing, never tool logic.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run())
}

// run executes the command line of this process and returns its exit code.
// It is what the testscript scripts run as "vaultd".
func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
