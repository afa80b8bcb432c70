package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// NoteRef is how every answer names a note: path, title, version, space.
type NoteRef struct {
	Path    string `json:"path"`
	Title   string `json:"title"`
	Version string `json:"version"`
	Space   string `json:"space"`
	// Encoding is set for a note that is not UTF-8 text: what it is, and
	// that it is never edited (text.go).
	Encoding string `json:"encoding,omitempty"`
	// Twin is set for a note whose name differs from another's only in
	// Unicode normalisation (vault/twins.go): what tells it apart.
	Twin string `json:"twin,omitempty"`
}

func refOf(n *vault.Note) NoteRef {
	return NoteRef{Path: n.Path, Title: n.Title, Version: note.ShortVersion(n.Version), Space: n.Space, Encoding: encodingText(n.NotText), Twin: vault.TwinNote(n.Path)}
}

// spaceText renders a space for text; notes at the root have none.
func spaceText(s string) string {
	if s == "" {
		return "(vault root)"
	}
	return s
}

// writeRef writes the four lines that identify a note, each on its own
// line so that a model can copy any of them back.
func writeRef(b *strings.Builder, r NoteRef, indent string) {
	fmt.Fprintf(b, "%spath: %s\n", indent, r.Path)
	fmt.Fprintf(b, "%stitle: %s\n", indent, r.Title)
	fmt.Fprintf(b, "%sversion: %s\n", indent, r.Version)
	fmt.Fprintf(b, "%sspace: %s\n", indent, spaceText(r.Space))
	if r.Encoding != "" {
		fmt.Fprintf(b, "%sencoding: %s\n", indent, r.Encoding)
	}
	if r.Twin != "" {
		fmt.Fprintf(b, "%sname: %s\n", indent, r.Twin)
	}
}

// goneVersion is the version of a note path where no note is now (deleted
// or moved away since): there is no version to pass as expected_version.
const goneVersion = "(none: not in the vault now)"

// noteRefs names notes as they are now: from the vault's name table where
// the file is as the table read it (a stat), else read afresh (Known);
// each note once per answer.
type noteRefs struct {
	c    *Core
	refs map[string]NoteRef
}

func (c *Core) noteRefs() *noteRefs { return &noteRefs{c: c, refs: map[string]NoteRef{}} }

// at names the note at p: its path, title, current version and space; or,
// where no note is now, its path, the title its file name gives,
// goneVersion and its space.
func (r *noteRefs) at(p string) NoteRef {
	if ref, ok := r.refs[p]; ok {
		return ref
	}
	ref := NoteRef{Path: p, Title: note.NoteTitle(p, nil), Version: goneVersion, Space: note.SpaceOf(p)}
	if e, ok := r.c.v.Known(p); ok {
		ref = refOfEntry(e)
	}
	r.refs[p] = ref
	return ref
}

// refOfEntry names a note as the name table knows it.
func refOfEntry(e vault.NameEntry) NoteRef {
	title := e.Title
	if title == "" {
		title = note.NoteTitle(e.Path, nil)
	}
	return NoteRef{Path: e.Path, Title: title, Version: note.ShortVersion(e.Version), Space: note.SpaceOf(e.Path)}
}

// FileRef names a file an answer lists: a note by its block (path, title,
// version, space), an attachment by its path alone.
type FileRef struct {
	*NoteRef
	File string `json:"file,omitempty"`
}

// fileRef names the file at p: a note by its block, anything else by path.
func (r *noteRefs) fileRef(p string) FileRef {
	if vault.IsNote(p) {
		ref := r.at(p)
		return FileRef{NoteRef: &ref}
	}
	return FileRef{File: p}
}

// write writes a listed file: a note's block as a list item, or
// "- file: PATH"; extra lines follow, indented under it.
func (f FileRef) write(b *strings.Builder, extra ...string) {
	if f.NoteRef != nil {
		fmt.Fprintf(b, "- path: %s\n  title: %s\n  version: %s\n  space: %s\n", f.Path, f.Title, f.Version, spaceText(f.Space))
	} else {
		fmt.Fprintf(b, "- file: %s\n", f.File)
	}
	for _, e := range extra {
		b.WriteString("  " + e + "\n")
	}
}

// arg is one argument of a suggested call, in the order shown.
type arg struct {
	name  string
	value any
}

// call is a suggested next call, spelled per door.
type call struct {
	tool string
	args []arg
}

// cliSpelling says how a tool is spelled on the command line: the command,
// which argument, if any, is positional, and each argument's flag. It is
// filled from the tools' declarations at start (tools' handlers render
// calls, so the table cannot be computed from tools in its initializer).
var cliSpelling = map[string]struct {
	cmd, positional string
	flags           map[string]string
}{}

func init() {
	for _, t := range tools {
		flags := map[string]string{}
		for _, a := range argsOf(t.argsType) {
			flags[a.Name] = "--" + a.Flag
		}
		cliSpelling[t.name] = struct {
			cmd, positional string
			flags           map[string]string
		}{t.command, t.positional, flags}
	}
}

func (c call) render(door Door) string {
	if door.CLI() {
		sp, ok := cliSpelling[c.tool]
		if ok {
			parts := []string{"vaultd", sp.cmd}
			if door.vault != "" {
				parts = append(parts, "--vault", shellQuote(door.vault))
			}
			for _, a := range c.args {
				if a.name == sp.positional {
					parts = append(parts, shellQuote(fmt.Sprint(a.value)))
				}
			}
			for _, a := range c.args {
				if a.name == sp.positional {
					continue
				}
				flag, ok := sp.flags[a.name]
				if !ok {
					flag = "--" + strings.ReplaceAll(a.name, "_", "-")
				}
				parts = append(parts, flag, shellQuote(fmt.Sprint(a.value)))
			}
			return strings.Join(parts, " ")
		}
	}
	var b strings.Builder
	b.WriteString(c.tool)
	b.WriteString(" {")
	if door.vault != "" {
		b.WriteString(`"vault": ` + jsonText(door.vault))
		if len(c.args) > 0 {
			b.WriteString(", ")
		}
	}
	for i, a := range c.args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsonText(a.name))
		b.WriteString(": ")
		b.WriteString(jsonText(a.value))
	}
	b.WriteString("}")
	return b.String()
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quote renders a user-visible name in double quotes.
func quote(s string) string { return strconv.Quote(s) }

// plural renders "1 note", "3 notes".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%s %s", groupDigits(n), many)
}

// groupDigits renders 6636 as "6,636".
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + groupDigits(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// when renders a time for agents: absolute, in UTC, minute precision.
func when(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// cut shortens s to at most n runes at a word boundary, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	c := string(r[:n])
	if i := strings.LastIndexAny(c, " \n"); i > n/2 {
		c = c[:i]
	}
	return strings.TrimSpace(c) + " …"
}

// oneLine folds white space so that a preview stays on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// jsonText renders a value as JSON without HTML escaping, so that
// "Projekte > Ziele" stays readable.
func jsonText(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(buf.String(), "\n")
}
