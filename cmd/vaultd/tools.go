package main

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/tools"
)

// command is what the command line adds to a tool's declaration
// (tools.Tool): the texts of its help and the checks a person's command
// line needs before the call. The command's name, its positional argument,
// its flags with their help and defaults and the call itself come from the
// declaration; a new tool is one declaration, its core function and one of
// these.
type command[T any] struct {
	tool                 string // the tool it calls
	use                  string // the usage after the command's name: "NOTE --heading HEADING"
	short, long, example string
	what, onMissing      string // the positional argument for a message ("the note to read") and the command that finds one

	index bool // open (and catch up) the search index first

	// args replaces the check of the positional arguments derived from the
	// declaration.
	args func(w *T) cobra.PositionalArgs
	// flags binds the arguments the derivation does not (lists, maps),
	// under their declared flag names and help.
	flags func(cmd *cobra.Command, t tools.Tool, w *T)
	// check runs first, before the change summary is asked for.
	check func(cmd *cobra.Command, args []string, w *T) error
	// contentIf says whether to read the content; nil: always, when the
	// tool takes content.
	contentIf func(w *T) bool
	// prepare runs last, after the content is read, before the call.
	prepare func(cmd *cobra.Command, args []string, w *T) error
	// after runs on the call's result, before it is printed: what only
	// the command line does with an answer (attachment --out saves the
	// file).
	after func(core *tools.Core, r *tools.Result, w *T) *tools.Result
}

// toolCmd derives the command of c.tool from its declaration. The order of
// a run is fixed: the positional argument, c.check, the version a
// destructive write requires (--expect), the summary every write records
// (--summary), the content (--content, --file or stdin), c.prepare, the
// call; so every command refuses a wrong command line before it reads
// stdin or touches the vault.
func toolCmd[T any](a *app, c command[T]) *cobra.Command {
	t, ok := tools.LookupTool(c.tool)
	if !ok {
		panic("no tool " + c.tool) // a declaration bug, caught by the parity test
	}
	if t.ArgsType != reflect.TypeFor[T]() {
		panic(fmt.Sprintf("tool %s takes %s, not %s", t.Name, t.ArgsType, reflect.TypeFor[T]()))
	}
	var w T
	var in contentFlags
	field := func(name string) (reflect.Value, bool) {
		for _, arg := range t.Args {
			if arg.Name == name {
				return reflect.ValueOf(&w).Elem().Field(arg.Field), true
			}
		}
		return reflect.Value{}, false
	}
	positional, _ := field(t.Positional)
	summary, hasSummary := field("change_summary")
	// A summary the tool can go without (open_daily_note's, for a note it
	// may create) is not asked for.
	hasSummary = hasSummary && argOf(t, "change_summary").Required
	content, hasContent := field("content")
	expect, hasExpect := field("expected_version")
	needsExpect := hasExpect && argOf(t, "expected_version").Required

	cmd := &cobra.Command{
		Use:     strings.TrimSpace(t.Command + " " + c.use),
		Short:   c.short,
		Long:    c.long,
		Example: c.example,
		GroupID: "write",
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if t.Positional != "" && len(args) > 0 {
				positional.SetString(args[0])
			}
			if c.check != nil {
				if err := c.check(cmd, args, &w); err != nil {
					return err
				}
			}
			if needsExpect {
				if err := needExpect(cmd, args[0], expect.String()); err != nil {
					return err
				}
			}
			if hasSummary {
				if err := needSummary(summary.String()); err != nil {
					return err
				}
			}
			if hasContent && (c.contentIf == nil || c.contentIf(&w)) {
				a.content = &in
				text, err := in.read(cmd, a.in)
				if err != nil {
					return err
				}
				content.SetString(text)
			}
			if c.prepare != nil {
				if err := c.prepare(cmd, args, &w); err != nil {
					return err
				}
			}
			call := a.call
			if c.index {
				call = a.callWithIndex
			}
			return call(cmd, func(core *tools.Core, who tools.Caller) *tools.Result {
				r := core.Invoke(ctx(cmd), who, t.Name, w)
				if c.after != nil {
					r = c.after(core, r, &w)
				}
				return r
			})
		}),
	}
	if t.Perm == "read" {
		cmd.GroupID = "read"
	}
	switch {
	case c.args != nil:
		cmd.Args = c.args(&w)
	case t.Positional == "":
		cmd.Args = args(0, false, "no arguments", "vaultd "+t.Command)
	default:
		cmd.Args = args(1, !argOf(t, t.Positional).Required, c.what, c.onMissing)
	}
	bindFlags(cmd, t, &w, &in)
	if c.flags != nil {
		c.flags(cmd, t, &w)
	}
	return cmd
}

// bindFlags makes a flag of every argument of t but the positional one,
// bound to its field in w: strings, numbers and true/false under the
// declared flag, short form, default and help; the content as --content
// and --file (with in). Lists and maps are left to the command.
func bindFlags(cmd *cobra.Command, t tools.Tool, w any, in *contentFlags) {
	v := reflect.ValueOf(w).Elem()
	fl := cmd.Flags()
	for _, arg := range t.Args {
		if arg.Name == t.Positional {
			continue
		}
		if arg.Name == "content" && in != nil {
			in.register(cmd, arg.Help)
			continue
		}
		p := v.Field(arg.Field).Addr().Interface()
		switch p := p.(type) {
		case *string:
			fl.StringVarP(p, arg.Flag, arg.Short, arg.Default, arg.Help)
		case *int:
			n, _ := strconv.Atoi(arg.Default)
			fl.IntVarP(p, arg.Flag, arg.Short, n, arg.Help)
		case *bool:
			fl.BoolVarP(p, arg.Flag, arg.Short, arg.Default == "true", arg.Help)
		}
	}
}

// argOf returns the argument name of t.
func argOf(t tools.Tool, name string) tools.Arg {
	for _, a := range t.Args {
		if a.Name == name {
			return a
		}
	}
	panic("tool " + t.Name + " has no argument " + name)
}
