package main

import (
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/mcpserver"
)

// defaultPageURL is the owner's page of `vaultd serve --http 127.0.0.1:8765`.
const defaultPageURL = "http://127.0.0.1:8765"

func (a *app) ownerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "owner",
		Short: "Sign in to the owner's page of vaultd serve --http",
		Long: `The owner's page (http://ADDR/ of vaultd serve --http ADDR, or vaultd app)
shows what agents changed, with Undo; the trash, with Restore; each note's
history; and the access keys. Only the vault's owner signs in to it, with
a one-time link that vaultd owner link prints.`,
		Example: `  vaultd owner link
  vaultd owner link --url https://notes.example.org`,
		Args: args(0, false, "a subcommand: link", "vaultd owner link"),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.ownerLinkCmd())
	return cmd
}

func (a *app) ownerLinkCmd() *cobra.Command {
	var url string
	cmd := &cobra.Command{
		Use:   "link",
		Short: "Print a one-time sign-in link for the owner's page",
		Long: `Print a link that signs you in to the owner's page once, within 15
minutes. vaultd keeps only a hash of it, in the state dir. Open it in the
browser you want to use the page in; the sign-in lasts 12 hours there.

The link is for the server running on this vault (vaultd serve --http or
vaultd app note their address in the state dir); --url is the page's
address as your browser reaches it, when that is another (behind a TLS
proxy: its https address). With no server running and no --url, it is
for the default address, http://127.0.0.1:8765, and stderr says so.`,
		Example: `  vaultd owner link
  vaultd owner link --url https://notes.example.org`,
		Args: args(0, false, "no arguments", "vaultd owner link"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if url != "" && !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
				return usagef(withGlobals(cmd, "vaultd owner link --url "+defaultPageURL), "--url %s is not a web address; give the page's address, e.g. %s", shellQuote(url), defaultPageURL)
			}
			stateDir, err := a.stateDirOf()
			if err != nil {
				return err
			}
			page, from := serverAddress(stateDir, url, defaultPageURL, false)
			secret, expires, err := keys.Open(stateDir).NewLink(time.Now())
			if err != nil {
				return err
			}
			link := signinURL(strings.TrimSuffix(strings.TrimRight(page, "/"), "/mcp"), secret)
			if a.json {
				return writeJSON(a.out, map[string]any{"link": link, "expires": expires, "address_from": from})
			}
			if from != "" {
				fmt.Fprintf(a.err, "vaultd: %s\n", from)
			}
			fmt.Fprintf(a.out, "open this link to sign in to the owner's page (once, until %s):\n\n  %s\n", expires.Local().Format("15:04"), link)
			return nil
		}),
	}
	cmd.Flags().StringVar(&url, "url", "", "the page's address as the browser reaches it (default: the running server's, else "+defaultPageURL+")")
	return cmd
}

func (a *app) appCmd() *cobra.Command {
	var f serveFlags
	var addr string
	cmd := &cobra.Command{
		Use:   "app",
		Short: "Open the owner's page for a local vault (loopback only)",
		Long: `Serve the owner's page for the vault on this machine only and print a
one-time sign-in link: see what agents changed and undo it, restore notes
from the trash, read a note's history, manage the access keys. MCP clients
with an access key can connect at the same address's /mcp, and clients
that sign in (OAuth: Claude Code without a key) are approved on the page.`,
		Example: `  vaultd app --vault ~/notes
  vaultd app --vault ~/notes --addr 127.0.0.1:9000`,
		Args: args(0, false, "no arguments", "vaultd app --vault DIR"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if addr == "" {
				addr = "127.0.0.1:8765"
			}
			f.http, f.app = addr, true
			if host, _, err := net.SplitHostPort(addr); err == nil && !mcpserver.IsLoopbackHost(host) {
				return usagef(withGlobals(cmd, "vaultd app --addr 127.0.0.1:8765"), "vaultd app serves this machine only: --addr %s is not a loopback address (127.0.0.1, localhost, [::1]); to serve the network use vaultd serve --http behind a TLS proxy", shellQuote(addr))
			}
			return a.serve(cmd, f)
		}),
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8765", "loopback address to serve on")
	cmd.Flags().StringVar(&f.logLevel, "log-level", "warn", "what stderr gets: debug, info, warn or error")
	f.writesPerMinute, f.deletesPerMinute = 60, 10
	return cmd
}
