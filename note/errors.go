package note

import (
	"errors"
	"strings"
)

// Sentinel kinds. Every error returned by this package is an *Error whose
// Kind is one of these, so callers test with errors.Is(err, ErrNotFound).
// Package vault returns the same *Error, with these kinds and a few of its
// own that only the folder on disk can cause (vault.ErrExists,
// vault.ErrDenied, vault.ErrStateDir, vault.ErrMergeConflict, vault.ErrBusy).
var (
	ErrNotFound    = errors.New("not found")
	ErrConflict    = errors.New("version conflict")
	ErrAmbiguous   = errors.New("ambiguous")
	ErrInvalidPath = errors.New("invalid path")
	ErrInvalid     = errors.New("invalid argument")
)

// Error is the one domain error type. It names the operation and the
// vault-relative path, says what was wrong in plain words (Msg) and carries
// the valid alternatives, so that the CLI and the MCP adapter can tell the
// caller what exists instead. Messages never contain host paths.
type Error struct {
	Op   string // "read", "create", "append", "update_section", "replace", "delete", "restore", …
	Path string // vault-relative, slash-separated; may be empty
	Kind error  // one of the sentinels above, or one of package vault's
	Msg  string // one sentence; vault-relative paths only

	// Alternatives lists what exists instead, nearest first: heading paths
	// ("Projekte > Ziele"), note paths, spaces. AltKind says which
	// ("headings", "notes", "folders", "spaces", "candidates").
	Alternatives []string
	AltKind      string
	// AltWhy says, for each of Alternatives (when set), what made it a
	// candidate (`title "Grundgesetz für …"`), and AltClose how many of
	// them, from the first, are close by name; the rest only hold the
	// words asked for or share the folder named.
	AltWhy   []string
	AltClose int

	// Conflicts: the version the caller expected and the current one.
	Expected, Current string
	// CurrentSection is the current text of the target section when a
	// section edit conflicts.
	CurrentSection string

	// Rule violations: the rule as written and the note that declares it.
	Rule, RuleSource string

	Err error // wrapped cause, may be nil
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
	}
	if e.Path != "" {
		if e.Op != "" {
			b.WriteString(" ")
		}
		b.WriteString(`"` + e.Path + `"`)
		b.WriteString(": ")
	} else if e.Op != "" {
		b.WriteString(": ")
	}
	if e.Msg != "" {
		b.WriteString(e.Msg)
	} else if e.Kind != nil {
		b.WriteString(e.Kind.Error())
	}
	return b.String()
}

// Unwrap lets errors.Is match both the kind and the cause.
func (e *Error) Unwrap() []error {
	var errs []error
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// AsError returns err as *Error when it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
