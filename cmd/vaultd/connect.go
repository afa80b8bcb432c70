package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

func (a *app) connectCmd() *cobra.Command {
	var url, secretFile string
	cmd := &cobra.Command{
		Use:   "connect",
		Short: "Print the lines that connect Claude Code, Cursor, Codex and Gemini to this vault",
		Long: `Print, for this vault, the line to paste into each MCP client the README
covers: Claude Code, Cursor, Codex CLI and Gemini CLI. They name this
vaultd binary and the vault by absolute paths, so they work as printed
from any folder, whether vaultd is on your PATH or not.

By default the client starts vaultd itself (stdio). With --url the lines
connect to a vaultd serve --http at that address instead, with the access
key whose secret is in --secret-file (vaultd keys create NAME
--secret-file F writes one); without --secret-file they read it from
$VAULTD_KEY.`,
		Example: `  vaultd connect --vault ~/Notizen
  vaultd connect --vault ~/Notizen --url http://127.0.0.1:8765/mcp --secret-file ~/.vaultd-key`,
		Args: args(0, false, "no arguments", "vaultd connect"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			v, err := a.openVault()
			if err != nil {
				return err
			}
			dir := v.Dir()
			v.Close()
			if url != "" {
				secret := "$VAULTD_KEY"
				if secretFile != "" {
					b, err := os.ReadFile(secretFile)
					if err != nil {
						return &failure{code: exitNotFound, err: err, msg: fmt.Sprintf("--secret-file %s cannot be read (%v); vaultd keys create NAME --secret-file FILE writes one", shellQuote(secretFile), err),
							try: withGlobals(cmd, "vaultd keys create laptop --allow read,write --secret-file "+shellQuote(secretFile))}
					}
					secret = strings.TrimSpace(string(b))
				}
				fmt.Fprintf(a.out, "vaultd serves %s at %s.\n\n", dir, url)
				fmt.Fprint(a.out, connectHelp(url, secret))
				return nil
			}
			fmt.Fprint(a.out, stdioLines(vaultdPath(), dir))
			return nil
		}),
	}
	cmd.Flags().StringVar(&url, "url", "", "connect over HTTP to the vaultd serve --http at this MCP URL instead of starting vaultd")
	cmd.Flags().StringVar(&secretFile, "secret-file", "", "with --url: the file holding the access key's secret (default: the lines read $VAULTD_KEY)")
	return cmd
}

// vaultdPath is this binary's absolute path, links resolved: the command
// a client should start, wherever the client runs from.
func vaultdPath() string {
	p, err := os.Executable()
	if err != nil {
		return "vaultd"
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return p
}

// stdioLines are the lines that make each client start vaultd on the
// vault over stdio: bin and vault absolute, quoted for a shell (and as
// JSON strings for Cursor's mcp.json).
func stdioLines(bin, vault string) string {
	jq := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	serve := shellQuote(bin) + " serve --vault " + shellQuote(vault)
	var b strings.Builder
	fmt.Fprintf(&b, "Agents that start vaultd themselves (stdio) get %s with these lines:\n\n", vault)
	fmt.Fprintf(&b, "Claude Code:\n  claude mcp add notes -- %s\n\n", serve)
	fmt.Fprintf(&b, "Cursor (~/.cursor/mcp.json):\n  {\"mcpServers\": {\"notes\": {\"command\": %s, \"args\": [\"serve\", \"--vault\", %s]}}}\n\n", jq(bin), jq(vault))
	fmt.Fprintf(&b, "Codex CLI:\n  codex mcp add notes -- %s\n\n", serve)
	fmt.Fprintf(&b, "Gemini CLI (it starts MCP servers only in a folder you trust: start gemini there once and answer its prompt):\n  gemini mcp add --scope user notes %s\n\n", serve)
	fmt.Fprintf(&b, "Over HTTP, for several clients or another machine: vaultd keys create NAME --allow read,write, then vaultd serve --http 127.0.0.1:8765 --vault %s\n", shellQuote(vault))
	return b.String()
}
