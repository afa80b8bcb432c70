package tools

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// Tool is one tool's declaration as a door reads it: what every door must
// spell the same (its name, the command and positional argument of the
// command line, the right it needs, its annotations, its description and
// its arguments). The MCP adapter derives its tools/list entry from it,
// the CLI its command and flags; only the rendering is each door's own.
type Tool struct {
	Name        string // the tool's name: "read_note"
	Title       string // its title for people: "Read a note"
	Command     string // the vaultd command calling it: "read"
	Positional  string // the argument a command line gives without a flag ("path"); "" for none
	Perm        string // the right it needs: read, write or delete
	Idempotent  bool
	Destructive bool
	Description string
	Args        []Arg // its arguments, in the order of the args struct
	ArgsType    reflect.Type
}

// Arg is one argument of a tool, read from its args struct: the JSON name
// from the json tag, and for the command line (and every form a person
// fills in) the flag, its one-letter short form, its default and its help
// from the flag, default and help tags.
type Arg struct {
	Name     string // JSON name: "expected_version"
	Field    int    // the field's index in the args struct
	Type     reflect.Type
	Required bool   // the JSON schema requires it (no omitempty)
	Flag     string // the command line's flag, without "--": "expect"
	Short    string // the flag's one-letter form ("m"), or ""
	Default  string // the flag's default as text ("30"), or ""
	Help     string // the flag's help line
}

// commonArgs are the flag spellings of arguments most tools share, used
// where the field's own tags do not say otherwise: every write records its
// --summary, and --expect is shorter than --expected-version.
var commonArgs = map[string]Arg{
	"change_summary":   {Flag: "summary", Short: "m", Help: "what you changed and why, recorded in the history (required)"},
	"expected_version": {Flag: "expect"},
}

// argsOf reads the arguments of an args struct.
func argsOf(t reflect.Type) []Arg {
	var out []Arg
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		a := commonArgs[name]
		a.Name, a.Field, a.Type = name, i, f.Type
		a.Required = !strings.Contains(","+opts+",", ",omitempty,")
		if a.Flag == "" {
			a.Flag = strings.ReplaceAll(name, "_", "-")
		}
		if fl, ok := f.Tag.Lookup("flag"); ok {
			a.Flag, a.Short, _ = strings.Cut(fl, ",")
		}
		if h, ok := f.Tag.Lookup("help"); ok {
			a.Help = h
		}
		a.Default = f.Tag.Get("default")
		out = append(out, a)
	}
	return out
}

func (t tool) declaration() Tool {
	return Tool{
		Name: t.name, Title: t.title, Command: t.command, Positional: t.positional,
		Perm: t.perm, Idempotent: t.idempotent, Destructive: t.destructive,
		Description: t.description, Args: argsOf(t.argsType), ArgsType: t.argsType,
	}
}

// Tools lists every tool's declaration, sorted by name.
func Tools() []Tool {
	out := make([]Tool, len(tools))
	for i, t := range tools {
		out[i] = t.declaration()
	}
	return out
}

// LookupTool returns the declaration of the tool name.
func LookupTool(name string) (Tool, bool) {
	for _, t := range tools {
		if t.name == name {
			return t.declaration(), true
		}
	}
	return Tool{}, false
}

// Invoke runs the tool name's core function with arguments a door built
// itself (a value of the tool's args type), as the CLI does: no JSON to
// decode, no rights to check (the caller's door has checked them).
func (c *Core) Invoke(ctx context.Context, caller Caller, name string, a any) *Result {
	for _, t := range tools {
		if t.name != name {
			continue
		}
		if reflect.TypeOf(a) != t.argsType {
			panic(fmt.Sprintf("tool %s takes %s, not %T", name, t.argsType, a)) // a door's bug, caught by its tests
		}
		return t.invoke(ctx, c, caller, a)
	}
	return c.fail(caller, failure{tool: name}, &note.Error{Op: "call", Kind: note.ErrInvalid,
		Msg: fmt.Sprintf("there is no tool %q; tools: %s", name, strings.Join(AllToolNames(), ", "))})
}
