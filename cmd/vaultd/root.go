package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vaultd/vaultd/mcpserver"
)

// app holds what every command shares: the streams and the global flags.
type app struct {
	in       io.Reader
	out, err io.Writer

	vaults    []string // --vault, repeatable (serve serves each)
	loneVault string   // serve of one vault without names: its name, for keys limited to vaults
	stateDir  string   // --state-dir
	json      bool     // --json
	csv       bool     // --csv of base run and query: the view's rows as CSV
	actor     string   // --actor
	noSync    bool     // --no-sync (hidden)
	gitCommit bool     // serve --git-commit: every change becomes a git commit

	embedderFlag string        // --embedder (serve, index)
	meaningWait  time.Duration // how long a command waits for search by meaning (vaultd search)

	content *contentFlags // the running command's content flags, if it takes content

	// vaultNamed names the vault openVault opened and where it came from
	// ("/home/anna/Notizen (from --vault)"): the first line of every long
	// operation says it, so that no one wonders which folder is worked on.
	vaultNamed string
	// serving: this process is vaultd serve, whose vault's long changes
	// are an agent's, not reported on stderr.
	serving bool
	changes *progress // the long change in progress (a move's link updates)

	root *cobra.Command
}

// execute runs the vaultd command line args and returns the exit code.
func execute(ctx context.Context, args []string, in io.Reader, out, errw io.Writer) int {
	a := &app{in: in, out: out, err: errw}
	root := a.newRoot()
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errw)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var f *failure
	if !errors.As(err, &f) {
		// Not returned by a command's RunE: cobra rejected the command line
		// (unknown flag, bad flag value, …).
		name := root.Name()
		if cmd != nil {
			name = cmd.CommandPath()
		}
		f = usagef(name+" --help", "%s", firstLine(err.Error()))
	}
	if ctx.Err() != nil && f.code == exitError {
		f.msg = "interrupted"
	}
	if a.json && !f.printed {
		printJSONFailure(a.out, f)
	}
	printFailure(a.err, f)
	return f.code
}

const rootLong = `vaultd lets AI agents and people search, read and carefully edit a
markdown vault — the folder you edit in Obsidian and sync with git. The
files are the truth; vaultd keeps its history, trash records and index in
a state dir (default: <vault>/.vaultd, ignored by git).

Every command below that mirrors an agent tool prints the same text an
agent reads; --json prints the structured data instead. Every change needs
--summary "what you changed and why"; it is recorded in the history.

The vault is --vault DIR, else $VAULTD_VAULT, else the current folder if
it is a vault: it has .obsidian/ (Obsidian's) or .vaultd/ (vaultd init's,
or vaultd's state from an earlier run); vaultd never guesses another.
Start from nothing with: vaultd init DIR

Errors go to stderr as "vaultd: what went wrong; try: command to run".
When the vault lists what exists instead (other notes, headings), the
message spans lines and "try: …" comes last. With --json, stdout gets
{"error": {...}} as well; the exit codes are listed at the end.`

// newRoot builds the command tree.
func (a *app) newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "vaultd",
		Short: "Let AI agents read and carefully edit your markdown vault",
		Long:  rootLong,
		// Without arguments vaultd shows its help; an unknown command is a
		// usage error with cobra's "did you mean" suggestions.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			try := "vaultd --help"
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				// The nearest command with the rest of the command line.
				line := append([]string{"vaultd", s[0]}, quoteAll(args[1:])...)
				try = strings.Join(append(line, changedFlags(cmd)...), " ")
			}
			return usagef(try, "unknown command %q", args[0])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
		SilenceUsage:               true,
		SilenceErrors:              true,
		SuggestionsMinimumDistance: 2,
		Version:                    mcpserver.Version,
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usagef(cmd.CommandPath()+" --help", "%s", firstLine(err.Error()))
	})
	root.SetVersionTemplate("vaultd {{.Version}}\n")
	// The exit codes close the top-level help, where scripts' authors look.
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		defaultHelp(cmd, args)
		if !cmd.HasParent() {
			fmt.Fprintf(cmd.OutOrStdout(), "\n%s\n", exitCodesHelp)
		}
	})

	pf := root.PersistentFlags()
	pf.Var(vaultList{&a.vaults}, "vault", "the vault folder, or a vault's name in the vaults file (default: $VAULTD_VAULT, else the current folder if it has .obsidian/ or .vaultd/); serve takes several, as NAME=DIR")
	pf.StringVar(&a.stateDir, "state-dir", "", "where vaultd keeps history, trash records and the index (default: <vault>/.vaultd)")
	pf.BoolVar(&a.json, "json", false, "print structured JSON instead of text")
	pf.StringVar(&a.actor, "actor", "cli", "who is making the change, as recorded in the history")
	pf.BoolVar(&a.noSync, "no-sync", false, "skip fsync (tests, tmpfs); changes may be lost on a crash")
	_ = pf.MarkHidden("no-sync")

	a.root = root
	root.AddGroup(
		&cobra.Group{ID: "read", Title: "Reading:"},
		&cobra.Group{ID: "write", Title: "Changing notes (each needs --summary):"},
		&cobra.Group{ID: "setup", Title: "Setting up:"},
	)
	root.SetHelpCommandGroupID("setup")
	root.SetCompletionCommandGroupID("setup")
	for _, c := range append(a.readCommands(), a.searchCmd(), a.similarCmd(), a.backlinksCmd(), a.baseCmd(), a.queryCmd()) {
		c.GroupID = "read"
		root.AddCommand(c)
	}
	for _, c := range append(append(a.writeCommands(), a.reorgCommands()...), a.resolveCmd()) {
		c.GroupID = "write"
		root.AddCommand(c)
	}
	a.addTrashEmpty(root)
	for _, c := range a.notesAppCommands() { // properties, tags, pins, boards, attachments
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{a.initCommand(), a.connectCmd(), a.serveCmd(), a.appCmd(), a.ownerCmd(), a.keysCmd(), a.indexCmd(), a.gitCmd(), a.syncCmd(), a.trialCmd(), a.versionCmd()} {
		c.GroupID = "setup"
		root.AddCommand(c)
	}
	a.addCompletions(root)
	return root
}

// runE adapts a command body: every error it returns becomes a *failure
// with the exit code of its kind, so that execute can tell the command's own
// errors from cobra's usage errors.
func runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := fn(cmd, args)
		if err == nil {
			return nil
		}
		var f *failure
		if errors.As(err, &f) {
			return f
		}
		return &failure{code: codeOf(err), msg: err.Error(), err: err}
	}
}

// args checks the number of positional arguments. what names them for the
// message ("the note path"); onMissing is the command that helps find one.
// Too many arguments are almost always a path with spaces that was not
// quoted, so the suggestion joins them.
func args(n int, optional bool, what, onMissing string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case n == 0 && len(args) > 0:
			return usagef(withGlobals(cmd, "vaultd "+cmd.Name()), "%s takes no arguments, got %s", cmd.Name(), strings.Join(quoteAll(args), " "))
		case len(args) < n && !optional:
			return usagef(withGlobals(cmd, onMissing), "%s needs %s", cmd.Name(), what)
		case len(args) > n:
			joined := strings.Join(args[n-1:], " ")
			fixed := append(append([]string{cmd.Name()}, quoteAll(args[:n-1])...), shellQuote(joined))
			fixed = append(fixed, changedFlags(cmd)...)
			return usagef("vaultd "+strings.Join(fixed, " "), "%s takes %s, got %d arguments; quote a path with spaces",
				cmd.Name(), what, len(args))
		}
		return nil
	}
}

// globalFlags returns the global flags the user set, to be repeated in a
// suggested command so that it runs against the same vault.
func globalFlags(cmd *cobra.Command) []string {
	var g []string
	for _, name := range []string{"vault", "state-dir", "actor"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			g = append(g, "--"+name, f.Value.String())
		}
	}
	return g
}

// withGlobals appends the global flags the user set to a suggested
// vaultd command line.
func withGlobals(cmd *cobra.Command, line string) string {
	if g := globalFlags(cmd); len(g) > 0 && strings.HasPrefix(line, "vaultd ") {
		return line + " " + strings.Join(quoteAll(g), " ")
	}
	return line
}

// changedFlags renders the flags set on the command line, to repeat them
// in a suggested command.
func changedFlags(cmd *cobra.Command) []string {
	var out []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Value.Type() == "bool" {
			if f.Value.String() == "true" {
				out = append(out, "--"+f.Name)
			}
			return
		}
		out = append(out, "--"+f.Name, shellQuote(f.Value.String()))
	})
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// versionCmd prints the version, the same as --version and the MCP
// serverInfo (mcpserver.Version); --json prints {"version": "…"}.
func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print vaultd's version (the same as --version and what MCP clients are told)",
		Example: "  vaultd version",
		Args:    args(0, false, "no arguments", "vaultd version"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if a.json {
				return json.NewEncoder(a.out).Encode(map[string]string{"version": mcpserver.Version})
			}
			_, err := fmt.Fprintf(a.out, "vaultd %s\n", mcpserver.Version)
			return err
		}),
	}
}
