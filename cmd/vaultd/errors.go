package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// Exit codes. They are part of the CLI's contract: scripts branch on them,
// so a code never changes meaning. Documented in `vaultd --help` (exitCodesHelp)
// and in README.md.
const (
	exitOK       = 0 // done
	exitError    = 1 // any other error: I/O, a broken state dir, an interrupted run
	exitUsage    = 2 // the command line is wrong: unknown command or flag, missing argument or --summary
	exitNotFound = 3 // the note, section, folder, trash entry or vault does not exist
	exitConflict = 4 // the note changed since the version given (--expect), a heading or name is ambiguous, the note already exists, holds merge conflicts or is not UTF-8 text
	exitDenied   = 5 // the vault's rules (9_System) or a permission forbid the change
	exitInvalid  = 6 // the path or an argument is not valid: outside the vault, a name Windows cannot store, …
	exitTrial    = 7 // vaultd trial: a question with a proof was not answered from its note within the budget
)

// exitCodesHelp is the exit-code table shown in `vaultd --help`; README.md
// repeats it. Keep the three in step (TestHelp_ExitCodes checks the help).
const exitCodesHelp = `Exit codes:
  0  ok
  1  other error (I/O, state dir, interrupted)
  2  usage: unknown command or flag, missing argument, missing --summary
  3  not found: note, section, folder, trash entry or vault
  4  conflict: the note changed since --expect VERSION, an ambiguous
     heading or name, the note already exists, it holds unresolved merge
     conflicts (vaultd resolve), or it is not UTF-8 text
  5  denied by the vault's rules (9_System) or a permission
  6  invalid path or argument (outside the vault, a name Windows cannot
     store, a bad --sort value, …)
  7  trial: a question with a proof was not answered from its note
     within the budget`

// failure is an error as the CLI reports it: what went wrong, what to run
// instead, and the exit code. Every error a command returns is turned into
// one (see fail); errors cobra returns itself are usage errors.
type failure struct {
	code int
	// msg says what went wrong. For usage and setup errors it is one line.
	// For domain errors it is the core's Result.Text — the text an agent
	// reads — which may span lines because it lists what exists instead.
	msg string
	// try is a complete command line to run instead ("" when none fits).
	// It never repeats the failed command unchanged.
	try string
	err error // the cause, for errors.Is and --json; may be nil
	// printed says stdout already holds the command's --json answer (a
	// trial's trace, which says what failed), so no error JSON follows it.
	printed bool
}

func (f *failure) Error() string { return f.msg }
func (f *failure) Unwrap() error { return f.err }

// usagef builds an exit-2 failure.
func usagef(try, format string, args ...any) *failure {
	return &failure{code: exitUsage, msg: fmt.Sprintf(format, args...), try: try}
}

// codeOf maps an error to its exit code by the vault's sentinel kinds.
func codeOf(err error) int {
	var f *failure
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &f):
		return f.code
	case errors.Is(err, note.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return exitNotFound
	case errors.Is(err, note.ErrConflict), errors.Is(err, note.ErrAmbiguous), errors.Is(err, vault.ErrExists), errors.Is(err, vault.ErrMergeConflict), errors.Is(err, vault.ErrNotText):
		return exitConflict
	case errors.Is(err, vault.ErrDenied), errors.Is(err, fs.ErrPermission):
		return exitDenied
	case errors.Is(err, note.ErrInvalidPath), errors.Is(err, note.ErrInvalid):
		return exitInvalid
	}
	return exitError
}

// kindOf names an error's kind for --json output.
func kindOf(code int) string {
	switch code {
	case exitUsage:
		return "usage"
	case exitNotFound:
		return "not_found"
	case exitConflict:
		return "conflict"
	case exitDenied:
		return "denied"
	case exitInvalid:
		return "invalid"
	case exitTrial:
		return "not_answered"
	}
	return "error"
}

// printFailure writes the failure to stderr:
//
//	vaultd: <what went wrong>; try: <command>
//
// A domain error's text spans lines when it lists alternatives; then the
// text comes first, unchanged, and "try: <command>" closes it on a line of
// its own, so the last line is always what to run.
func printFailure(w io.Writer, f *failure) {
	msg := strings.TrimRight(f.msg, "\n")
	if msg == "" {
		msg = "failed"
	}
	switch {
	case f.try == "":
		fmt.Fprintf(w, "vaultd: %s\n", msg)
	case strings.Contains(msg, "\n"):
		fmt.Fprintf(w, "vaultd: %s\ntry: %s\n", msg, f.try)
	default:
		fmt.Fprintf(w, "vaultd: %s; try: %s\n", msg, f.try)
	}
}

// jsonError is what --json prints on stdout when a command fails, so a
// script that parses stdout always gets a JSON value. The human text still
// goes to stderr.
type jsonError struct {
	Error jsonErrorBody `json:"error"`
}

type jsonErrorBody struct {
	ExitCode       int      `json:"exit_code"`
	Kind           string   `json:"kind"`
	Message        string   `json:"message"`
	Try            string   `json:"try,omitempty"`
	Op             string   `json:"op,omitempty"`
	Path           string   `json:"path,omitempty"`
	Alternatives   []string `json:"alternatives,omitempty"`
	AltKind        string   `json:"alternatives_kind,omitempty"`
	Expected       string   `json:"expected_version,omitempty"`
	Current        string   `json:"current_version,omitempty"`
	CurrentSection string   `json:"current_section,omitempty"`
	Rule           string   `json:"rule,omitempty"`
	RuleSource     string   `json:"rule_source,omitempty"`
}

func printJSONFailure(w io.Writer, f *failure) {
	body := jsonErrorBody{ExitCode: f.code, Kind: kindOf(f.code), Message: strings.TrimRight(f.msg, "\n"), Try: f.try}
	if e, ok := note.AsError(f.err); ok {
		body.Op, body.Path = e.Op, e.Path
		body.Alternatives, body.AltKind = e.Alternatives, e.AltKind
		body.Expected, body.Current, body.CurrentSection = e.Expected, e.Current, e.CurrentSection
		body.Rule, body.RuleSource = e.Rule, e.RuleSource
	}
	writeJSON(w, jsonError{body})
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
