package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/keys"
)

// defaultHTTPURL is the URL of `vaultd serve --http 127.0.0.1:8765`, used
// in the connection snippets `keys create` prints.
const defaultHTTPURL = "http://127.0.0.1:8765/mcp"

func (a *app) keysCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Manage the access keys of the HTTP server",
		Long: `Access keys let clients connect to vaultd serve --http, each with its own
rights (read, write, delete), its own rate limits and its own name in the
history ("key:NAME"). The secret is shown once, when the key is created;
vaultd keeps only its SHA-256 hash, in the state dir (never among the
notes). A revoked key is refused from its next request on, also by a
server that is running.

Where one server serves several vaults (vaultd serve --vault work=…
--vault privat=…), a key may be limited to some of them, with rights of
its own in each (--only VAULT[=RIGHTS]); it sees no other vault. Such a
server keeps its keys with its first vault: run these commands on that
one.`,
		Example: `  vaultd keys create laptop --allow read,write
  vaultd keys create team-bot --allow read,write --only team --only privat=read
  vaultd keys list
  vaultd keys limits laptop --writes-per-minute 20
  vaultd keys vaults team-bot --only team=read
  vaultd keys revoke laptop`,
		Args: args(0, false, "a subcommand: create, list, limits, vaults or revoke", "vaultd keys list"),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.keysCreateCmd(), a.keysListCmd(), a.keysLimitsCmd(), a.keysVaultsCmd(), a.keysRevokeCmd())
	return cmd
}

// keyStore opens the vault's key store (in its state dir).
func (a *app) keyStore() (*keys.Store, error) {
	dir, err := a.stateDirOf()
	if err != nil {
		return nil, err
	}
	return keys.Open(dir), nil
}

// stateDirOf opens the vault to find its state dir (making it if needed).
func (a *app) stateDirOf() (string, error) {
	v, err := a.openVault()
	if err != nil {
		return "", err
	}
	defer v.Close()
	return v.StateDir(), nil
}

// createdKey is what `keys create --json` prints.
type createdKey struct {
	Name    string    `json:"name"`
	Rights  string    `json:"rights"`
	Created time.Time `json:"created"`
	Secret  string    `json:"secret"`
	keyLimits
	keyVaults
}

// keyVaults are a key's rights per vault as --json prints them: vault
// name → rights ("read,write"); null for its rights in every vault.
type keyVaults struct {
	Vaults map[string]string `json:"vaults"`
}

func vaultsJSON(v map[string]keys.Rights) keyVaults {
	if len(v) == 0 {
		return keyVaults{}
	}
	out := keyVaults{Vaults: make(map[string]string, len(v))}
	for n, r := range v {
		out.Vaults[n] = r.String()
	}
	return out
}

// onlyFlag is --only of the keys commands: repeatable, one vault each,
// kept whole (its rights hold commas).
func onlyFlag(cmd *cobra.Command, only *[]string, rightsDefault string) {
	cmd.Flags().StringArrayVar(only, "only", nil, "limit the key to a vault of a server of several, as `VAULT[=RIGHTS]` (rights default to "+rightsDefault+"); repeat for each vault")
}

// vaultsFailure turns an error about --only into the CLI's usage failure
// (try: the command line to run instead).
func vaultsFailure(try string, err error) error {
	return usagef(try, "%s", strings.TrimPrefix(err.Error(), keys.ErrInvalidVaults.Error()+": "))
}

// keyLimits are a key's own rate limits as --json prints them: null for
// the server's default.
type keyLimits struct {
	WritesPerMinute  *int `json:"writes_per_minute"`
	DeletesPerMinute *int `json:"deletes_per_minute"`
}

func limitsJSON(l keys.Limits) keyLimits {
	var out keyLimits
	if l.WritesPerMinute > 0 {
		n := l.WritesPerMinute
		out.WritesPerMinute = &n
	}
	if l.DeletesPerMinute > 0 {
		n := l.DeletesPerMinute
		out.DeletesPerMinute = &n
	}
	return out
}

// limitFlags are --writes-per-minute and --deletes-per-minute of the keys
// commands: a key's own rate limits.
func limitFlags(cmd *cobra.Command, l *keys.Limits) {
	cmd.Flags().IntVar(&l.WritesPerMinute, "writes-per-minute", 0, "the key's own limit on writes a minute (0: the server's --writes-per-minute)")
	cmd.Flags().IntVar(&l.DeletesPerMinute, "deletes-per-minute", 0, "the key's own limit on deletes a minute (0: the server's --deletes-per-minute)")
}

func (a *app) keysCreateCmd() *cobra.Command {
	var allow, secretFile, url string
	var lim keys.Limits
	var only []string
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create an access key and print its secret (once)",
		Long: `Create an access key named NAME with the rights of --allow and print its
secret — only now; vaultd keeps only a hash. Clients send it as the header
"Authorization: Bearer SECRET". NAME (letters, digits, '.', '_', '-')
appears in the history as "key:NAME" for every change made with the key.

--secret-file also writes the secret to a file readable only by you, for
scripts. --writes-per-minute and --deletes-per-minute give the key rate
limits of its own instead of the server's (vaultd serve
--writes-per-minute, --deletes-per-minute); vaultd keys limits changes them.

--only VAULT[=RIGHTS], once per vault, limits the key to those vaults of a
server of several (the names vaultd serve --vault gives them), with
RIGHTS there (read, read,write or read,write,delete; without =RIGHTS, those
of --allow). The key sees no other vault. vaultd keys vaults changes them.`,
		Example: `  vaultd keys create laptop --allow read,write
  vaultd keys create ci-bot --allow read
  vaultd keys create team-bot --allow read,write --only team --only privat=read
  vaultd keys create night-agent --allow read,write --writes-per-minute 10 --deletes-per-minute 1
  vaultd keys create anna --allow read,write,delete --secret-file ~/.vaultd-anna`,
		Args: args(1, false, "the key's name", "vaultd keys create laptop --allow read"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			rights, err := keys.ParseRights(allow)
			if err != nil {
				return usagef(withGlobals(cmd, "vaultd keys create "+shellQuote(args[0])+" --allow read,write"), "%s", strings.TrimPrefix(err.Error(), keys.ErrInvalid.Error()+": "))
			}
			vaults, err := keys.ParseVaults(only, rights)
			if err != nil {
				return vaultsFailure(withGlobals(cmd, "vaultd keys create "+shellQuote(args[0])+" --allow "+rights.String()+" --only team --only privat=read"), err)
			}
			stateDir, err := a.stateDirOf()
			if err != nil {
				return err
			}
			s := keys.Open(stateDir)
			if err := lim.Check(); err != nil {
				return usagef(withGlobals(cmd, "vaultd keys create "+shellQuote(args[0])+" --allow "+rights.String()+" --writes-per-minute 20"), "%s", strings.TrimPrefix(err.Error(), keys.ErrInvalidLimits.Error()+": "))
			}
			secret, k, err := s.CreateWithOptions(args[0], rights, keys.CreateOptions{Limits: lim, Vaults: vaults}, time.Now())
			if err != nil {
				return keyFailure(cmd, err)
			}
			if secretFile != "" {
				if err := writeSecretFile(secretFile, secret); err != nil {
					return fmt.Errorf("the key %q was created, but its secret could not be written to %s (%v); revoke it and create it again: vaultd keys revoke %s", k.Name, secretFile, err, k.Name)
				}
			}
			if a.json {
				return writeJSON(a.out, createdKey{Name: k.Name, Rights: k.Rights.String(), Created: k.Created, Secret: secret, keyLimits: limitsJSON(k.Limits), keyVaults: vaultsJSON(k.Vaults)})
			}
			fmt.Fprintf(a.out, "created access key %q (%s)\n", k.Name, k.Rights)
			if len(k.Vaults) > 0 {
				fmt.Fprintf(a.out, "vaults: %s; it sees no other vault\n", keys.VaultsString(k.Vaults))
			}
			if k.Limits != (keys.Limits{}) {
				fmt.Fprintf(a.out, "rate limits: %s\n", k.Limits)
			}
			fmt.Fprintf(a.out, "secret — shown only now; vaultd keeps just its hash:\n\n  %s\n\n", secret)
			mcpURL, from := serverAddress(stateDir, url, defaultHTTPURL, true)
			if from != "" {
				fmt.Fprintf(a.out, "Server: %s.\n\n", from)
			}
			fmt.Fprint(a.out, connectHelp(mcpURL, secret))
			return nil
		}),
	}
	cmd.Flags().StringVar(&allow, "allow", "read", "the key's rights: read, read,write or read,write,delete")
	cmd.Flags().StringVar(&secretFile, "secret-file", "", "also write the secret to this file (mode 0600)")
	cmd.Flags().StringVar(&url, "url", "", "the server's MCP URL, for the connection lines (default: the running server's, else "+defaultHTTPURL+")")
	limitFlags(cmd, &lim)
	onlyFlag(cmd, &only, "those of --allow")
	return cmd
}

// connectHelp tells how to connect each client the README covers with a
// key — Claude Code, Cursor, Codex CLI, Gemini CLI — as lines to paste
// that work as printed (make clients runs the README's in the real CLIs).
func connectHelp(url, secret string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Clients send it as the header  Authorization: Bearer %s\n\n", secret)
	fmt.Fprintf(&b, "Claude Code:\n  claude mcp add --transport http notes %s --header \"Authorization: Bearer %s\"\n\n", url, secret)
	fmt.Fprintf(&b, "Cursor (~/.cursor/mcp.json):\n  {\"mcpServers\": {\"notes\": {\"url\": \"%s\", \"headers\": {\"Authorization\": \"Bearer %s\"}}}}\n\n", url, secret)
	fmt.Fprintf(&b, "Codex CLI and Gemini CLI read the key from $VAULTD_KEY when they connect (keep the export in your shell's profile; the single quotes keep the variable in Gemini's settings, not the secret):\n")
	if secret != "$VAULTD_KEY" { // vaultd connect without --secret-file: it is set already
		fmt.Fprintf(&b, "  export VAULTD_KEY=%s\n", secret)
	}
	fmt.Fprintf(&b, "  codex mcp add notes --url %s --bearer-token-env-var VAULTD_KEY\n", url)
	fmt.Fprintf(&b, "  gemini mcp add --scope user --transport http notes %s --header 'Authorization: Bearer $VAULTD_KEY'\n", url)
	return b.String()
}

// writeSecretFile writes the secret readable by its owner only.
func writeSecretFile(name, secret string) error {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if err := f.Chmod(0o600); err != nil { // an existing file keeps its mode on open
		f.Close()
		return err
	}
	if _, err := f.WriteString(secret + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// listedKey is one key as `keys list --json` prints it.
type listedKey struct {
	Name     string     `json:"name"`
	Rights   string     `json:"rights"`
	Created  time.Time  `json:"created"`
	LastUsed *time.Time `json:"last_used"` // null: never
	keyLimits
	keyVaults
}

func (a *app) keysListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the access keys (never their secrets)",
		Long: `List the access keys: name, rights, when each was created and last used
(to the minute; a running server records uses about once a minute), and
the key's own rate limits ("server defaults": the server's
--writes-per-minute and --deletes-per-minute). Where a key is limited to
some vaults of a server of several, a VAULTS column shows them with the
rights in each, as --only takes them ("all": every vault, with the key's
rights); --json has "vaults" (null: every vault).`,
		Example: `  vaultd keys list`,
		Args:    args(0, false, "no arguments", "vaultd keys list"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			s, err := a.keyStore()
			if err != nil {
				return err
			}
			ks, err := s.List()
			if err != nil {
				return err
			}
			if a.json {
				out := []listedKey{}
				for _, k := range ks {
					lk := listedKey{Name: k.Name, Rights: k.Rights.String(), Created: k.Created, keyLimits: limitsJSON(k.Limits), keyVaults: vaultsJSON(k.Vaults)}
					if !k.LastUsed.IsZero() {
						t := k.LastUsed
						lk.LastUsed = &t
					}
					out = append(out, lk)
				}
				return writeJSON(a.out, out)
			}
			if len(ks) == 0 {
				fmt.Fprintln(a.out, "no access keys yet; create one with: vaultd keys create laptop --allow read,write")
				return nil
			}
			// The VAULTS column only where a key has vaults: a server of
			// one vault has no use for it.
			perVault := false
			for _, k := range ks {
				perVault = perVault || len(k.Vaults) > 0
			}
			tw := tabwriter.NewWriter(a.out, 0, 0, 2, ' ', 0)
			header := "NAME\tRIGHTS\tCREATED\tLAST USED\tRATE LIMITS"
			if perVault {
				header += "\tVAULTS"
			}
			fmt.Fprintln(tw, header)
			for _, k := range ks {
				used := "never"
				if !k.LastUsed.IsZero() {
					used = k.LastUsed.Local().Format("2006-01-02 15:04")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s", k.Name, k.Rights, k.Created.Local().Format("2006-01-02 15:04"), used, k.Limits)
				if perVault {
					v := keys.VaultsString(k.Vaults)
					if v == "" {
						v = "all"
					}
					fmt.Fprintf(tw, "\t%s", v)
				}
				fmt.Fprintln(tw)
			}
			return tw.Flush()
		}),
	}
}

func (a *app) keysLimitsCmd() *cobra.Command {
	var lim keys.Limits
	cmd := &cobra.Command{
		Use:   "limits NAME",
		Short: "Set an access key's own rate limits (writes and deletes a minute)",
		Long: `Set the rate limits of the access key NAME: --writes-per-minute and
--deletes-per-minute. 0, or a flag left out, is the server's limit (vaultd
serve --writes-per-minute, --deletes-per-minute). A running server applies
them from the key's next request on. A limit also caps how many calls the
key may make at once.`,
		Example: `  vaultd keys limits laptop --writes-per-minute 20 --deletes-per-minute 2
  vaultd keys limits laptop   # back to the server's limits`,
		Args: args(1, false, "the key's name", "vaultd keys list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if err := lim.Check(); err != nil {
				return usagef(withGlobals(cmd, "vaultd keys limits "+shellQuote(args[0])+" --writes-per-minute 20"), "%s", strings.TrimPrefix(err.Error(), keys.ErrInvalidLimits.Error()+": "))
			}
			s, err := a.keyStore()
			if err != nil {
				return err
			}
			k, err := s.SetLimits(args[0], lim)
			if err != nil {
				return keyFailure(cmd, err)
			}
			if a.json {
				return writeJSON(a.out, struct {
					Name string `json:"name"`
					keyLimits
				}{k.Name, limitsJSON(k.Limits)})
			}
			fmt.Fprintf(a.out, "access key %q now has the rate limits: %s; servers apply them from its next request\n", k.Name, k.Limits)
			return nil
		}),
	}
	limitFlags(cmd, &lim)
	return cmd
}

func (a *app) keysVaultsCmd() *cobra.Command {
	var only []string
	var all bool
	cmd := &cobra.Command{
		Use:   "vaults NAME",
		Short: "Set the vaults an access key may use, and its rights in each",
		Long: `Set the vaults of a server of several that the access key NAME may use:
--only VAULT[=RIGHTS], once per vault, replaces them all (RIGHTS: read,
read,write or read,write,delete; without =RIGHTS, the key's own rights).
The key sees no other vault. --all gives it every vault again, with its
own rights. A running server applies them from the key's next request on.`,
		Example: `  vaultd keys vaults team-bot --only team=read,write --only privat=read
  vaultd keys vaults team-bot --only team   # team alone, with the key's rights
  vaultd keys vaults team-bot --all         # every vault again`,
		Args: args(1, false, "the key's name", "vaultd keys list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			try := withGlobals(cmd, "vaultd keys vaults "+shellQuote(args[0])+" --only team=read")
			switch {
			case all && len(only) > 0:
				return usagef(try, "--only and --all exclude each other: --only limits the key to the vaults it names, --all gives it every vault")
			case !all && len(only) == 0:
				return usagef(try, "keys vaults needs the vaults the key may use (--only VAULT[=RIGHTS], once per vault) or --all for every vault")
			}
			vaults, err := keys.ParseVaults(only, keys.Rights{}) // no rights: the key's own
			if err != nil {
				return vaultsFailure(try, err)
			}
			s, err := a.keyStore()
			if err != nil {
				return err
			}
			k, err := s.SetVaults(args[0], vaults)
			if errors.Is(err, keys.ErrInvalidVaults) {
				return vaultsFailure(try, err)
			}
			if err != nil {
				return keyFailure(cmd, err)
			}
			if a.json {
				return writeJSON(a.out, struct {
					Name   string `json:"name"`
					Rights string `json:"rights"`
					keyVaults
				}{k.Name, k.Rights.String(), vaultsJSON(k.Vaults)})
			}
			if len(k.Vaults) == 0 {
				fmt.Fprintf(a.out, "access key %q now has its rights (%s) in every vault; servers apply them from its next request\n", k.Name, k.Rights)
			} else {
				fmt.Fprintf(a.out, "access key %q now sees only the vaults %s; servers apply them from its next request\n", k.Name, keys.VaultsString(k.Vaults))
			}
			return nil
		}),
	}
	onlyFlag(cmd, &only, "the key's own")
	cmd.Flags().BoolVar(&all, "all", false, "give the key every vault again, with its own rights")
	return cmd
}

func (a *app) keysRevokeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "revoke NAME",
		Short: "Revoke an access key; servers refuse it from its next request",
		Long: `Revoke the access key NAME. Every server on this vault refuses it from its
next request on, also one that is running and a client that is connected.`,
		Example: `  vaultd keys revoke laptop`,
		Args:    args(1, false, "the key's name", "vaultd keys list"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			s, err := a.keyStore()
			if err != nil {
				return err
			}
			k, err := s.Revoke(args[0])
			if err != nil {
				return keyFailure(cmd, err)
			}
			if a.json {
				return writeJSON(a.out, map[string]string{"revoked": k.Name, "rights": k.Rights.String()})
			}
			fmt.Fprintf(a.out, "revoked access key %q (%s); servers refuse it from its next request\n", k.Name, k.Rights)
			return nil
		}),
	}
}

// keyFailure turns a key store error into the CLI's failure.
func keyFailure(cmd *cobra.Command, err error) error {
	var ne *keys.NameError
	if !errors.As(err, &ne) {
		return err
	}
	switch {
	case errors.Is(err, keys.ErrExists):
		return &failure{code: exitConflict, err: err, msg: ne.Msg + "; revoke it first or choose another name",
			try: withGlobals(cmd, "vaultd keys list")}
	case errors.Is(err, keys.ErrNotFound):
		try := "vaultd keys create " + shellQuote(ne.Name) + " --allow read"
		if len(ne.Existing) > 0 {
			try = "vaultd keys list"
		}
		return &failure{code: exitNotFound, err: err, msg: ne.Msg, try: withGlobals(cmd, try)}
	default:
		return &failure{code: exitInvalid, err: err, msg: ne.Msg}
	}
}
