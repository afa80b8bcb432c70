package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// CreateNoteArgs are the arguments of create_note.
type CreateNoteArgs struct {
	Path          string `json:"path"`
	Content       string `json:"content,omitempty" jsonschema:"whole note, frontmatter included; with template: added below it" help:"the whole note, frontmatter included; with --template, text added below the template's"`
	Template      string `json:"template,omitempty" jsonschema:"a template's name or path (templates folder): its {{title}}, {{date}}, {{time}} filled" help:"NAME: make the note from this template of the templates folder, its {{title}}, {{date}} and {{time}} filled as Obsidian does"`
	ChangeSummary string `json:"change_summary" jsonschema:"what and why"`
}

// AppendArgs are the arguments of append_to_note.
type AppendArgs struct {
	Path            string `json:"path"`
	Heading         string `json:"heading,omitempty" jsonschema:"section; empty: the end" help:"append at the end of this section: \"Ziele\" or \"Projekte > Ziele\""`
	Content         string `json:"content" help:"the text to append"`
	ChangeSummary   string `json:"change_summary" jsonschema:"what and why"`
	ExpectedVersion string `json:"expected_version,omitempty" jsonschema:"optional; appends commute" help:"VERSION: optional: fail if the note is no longer at this version"`
}

// UpdateSectionArgs are the arguments of update_section.
type UpdateSectionArgs struct {
	Path            string `json:"path"`
	Heading         string `json:"heading" jsonschema:"'Ziele', '## Ziele' or 'Projekte > Ziele'" help:"the section to replace: \"Ziele\", \"## Ziele\" or \"Projekte > Ziele\" (required)"`
	Content         string `json:"content" jsonschema:"new body, without the heading line" help:"the new body of the section, without its heading line"`
	ChangeSummary   string `json:"change_summary" jsonschema:"what and why"`
	ExpectedVersion string `json:"expected_version,omitempty" jsonschema:"from read_note" help:"VERSION: the version you read; the change rebases over edits to other sections"`
}

// ReplaceArgs are the arguments of replace_note.
type ReplaceArgs struct {
	Path            string `json:"path"`
	Content         string `json:"content" jsonschema:"whole note, frontmatter included" help:"the whole new note, frontmatter included"`
	ChangeSummary   string `json:"change_summary" jsonschema:"what and why"`
	ExpectedVersion string `json:"expected_version" jsonschema:"from read_note" help:"VERSION: the version you read (required)"`
}

// DeleteArgs are the arguments of delete_note.
type DeleteArgs struct {
	Path            string `json:"path"`
	ChangeSummary   string `json:"change_summary"`
	ExpectedVersion string `json:"expected_version" jsonschema:"from read_note" help:"VERSION: the version you read (required)"`
	WithSubNotes    int    `json:"with_sub_notes,omitempty" jsonschema:"how many sub-notes go along; needed above 5" help:"N: how many sub-notes (in the folder beside the note) go to the trash with it; needed above 5"`
}

// RestoreArgs are the arguments of restore_note.
type RestoreArgs struct {
	TrashPath     string `json:"trash_path" jsonschema:"from list_trash"`
	To            string `json:"to,omitempty" jsonschema:"default: where it was" help:"restore to this path instead of where the note was"`
	ChangeSummary string `json:"change_summary"`
}

// WriteData is the structured answer of every write.
type WriteData struct {
	Note          NoteRef `json:"note"`
	Operation     string  `json:"operation"`
	Detail        string  `json:"detail"`
	Section       string  `json:"section,omitempty"`
	Previous      string  `json:"previous_version,omitempty"`
	ChangeID      string  `json:"change_id"`
	ChangeSummary string  `json:"change_summary"`
	TrashPath     string  `json:"trash_path,omitempty"`
	// A replace or section update that removed most of the note counts
	// as a delete: CountedAs is "delete", with the words before and kept.
	CountedAs   string `json:"counted_as,omitempty"`
	WordsBefore int    `json:"words_before,omitempty"`
	WordsKept   *int   `json:"words_kept,omitempty"`
	// Template is the template a created note was made from.
	Template string `json:"template,omitempty"`
}

// CreateNote creates a note; it never overwrites one.
func (c *Core) CreateNote(ctx context.Context, caller Caller, a CreateNoteArgs) *Result {
	const tool = "create_note"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}, {"content", a.Content}, {"change_summary", a.ChangeSummary}}}
	content := []byte(a.Content)
	var from string
	if strings.TrimSpace(a.Template) != "" {
		f.args = append(f.args[:2], arg{"template", a.Template}, f.args[2])
		var r *Result
		if content, from, r = c.fromTemplate(caller, f, a); r != nil {
			return r
		}
	} else if a.Content == "" {
		return c.fail(caller, f, &note.Error{Op: "create", Path: a.Path, Kind: note.ErrInvalid,
			Msg: "content is empty: give the note's text in content, or a template to make it from (template: NAME)"})
	}
	res, err := c.v.Create(a.Path, content, c.opts(caller, a.ChangeSummary, ""))
	if err != nil {
		return changedBy(c.fail(caller, f, err), res)
	}
	r := c.written(caller, "create", "", a.ChangeSummary, res)
	if from != "" {
		r.Text += "\nmade from the template " + from + ", its variables filled"
		if d, ok := r.Data.(WriteData); ok {
			d.Template = from
			r.Data = d
		}
	}
	return r
}

// AppendToNote appends at the end of a note or of one section.
func (c *Core) AppendToNote(ctx context.Context, caller Caller, a AppendArgs) *Result {
	const tool = "append_to_note"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}, {"heading", a.Heading}, {"content", a.Content}, {"change_summary", a.ChangeSummary}}}
	ref := a.Path
	np, linkHeading, nr := c.notePath(caller, f, a.Path)
	if nr != nil {
		return nr
	}
	a.Path = np
	if a.Heading == "" && linkHeading != "" {
		a.Heading = linkHeading // [[Note#Heading]]
	}
	if a.Heading == "" {
		f.args = append(f.args[:1], f.args[2:]...)
	}
	res, err := c.v.Append(a.Path, a.Heading, []byte(a.Content), c.opts(caller, a.ChangeSummary, a.ExpectedVersion))
	if err != nil {
		return changedBy(c.failWrite(caller, f, a.Path, err), res)
	}
	return withNamed(ref, a.Path, c.written(caller, "append", a.Heading, a.ChangeSummary, res))
}

// UpdateSection replaces the body of one section, keeping its heading.
func (c *Core) UpdateSection(ctx context.Context, caller Caller, a UpdateSectionArgs) *Result {
	const tool = "update_section"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}, {"heading", a.Heading}, {"content", a.Content}, {"change_summary", a.ChangeSummary}}}
	ref := a.Path
	np, linkHeading, nr := c.notePath(caller, f, a.Path)
	if nr != nil {
		return nr
	}
	a.Path = np
	if a.Heading == "" && linkHeading != "" {
		a.Heading = linkHeading // [[Note#Heading]]
	}
	g := &editGuard{caller: caller, tool: tool}
	res, err := c.v.UpdateSection(a.Path, a.Heading, []byte(a.Content), g.opts(c.opts(caller, a.ChangeSummary, a.ExpectedVersion)))
	g.settle()
	if err != nil {
		if r := g.refused(c, f, err); r != nil {
			return r
		}
		return changedBy(c.failWrite(caller, f, a.Path, err), res)
	}
	return withNamed(ref, a.Path, g.counted(c.written(caller, "update_section", a.Heading, a.ChangeSummary, res)))
}

// ReplaceNote replaces a whole note; it needs the version the caller read.
func (c *Core) ReplaceNote(ctx context.Context, caller Caller, a ReplaceArgs) *Result {
	const tool = "replace_note"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}, {"content", a.Content}, {"change_summary", a.ChangeSummary}, {"expected_version", a.ExpectedVersion}}}
	ref := a.Path
	np, _, nr := c.notePath(caller, f, a.Path)
	if nr != nil {
		return nr
	}
	a.Path = np
	g := &editGuard{caller: caller, tool: tool}
	res, err := c.v.Replace(a.Path, []byte(a.Content), g.opts(c.opts(caller, a.ChangeSummary, a.ExpectedVersion)))
	g.settle()
	if err != nil {
		if r := g.refused(c, f, err); r != nil {
			return r
		}
		return changedBy(c.failWrite(caller, f, a.Path, err), res)
	}
	return withNamed(ref, a.Path, g.counted(c.written(caller, "replace", "", a.ChangeSummary, res)))
}

// DeleteNote moves a note to the trash; it needs the version the caller read.
func (c *Core) DeleteNote(ctx context.Context, caller Caller, a DeleteArgs) *Result {
	const tool = "delete_note"
	if r := c.need(caller, tool, "delete"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}, {"change_summary", a.ChangeSummary}, {"expected_version", a.ExpectedVersion}}}
	ref := a.Path
	np, _, nr := c.notePath(caller, f, a.Path)
	if nr != nil {
		return nr
	}
	a.Path = np
	if a.WithSubNotes < 0 {
		return c.fail(caller, f, &note.Error{Op: tool, Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("with_sub_notes is %d; give the number of sub-notes that go along (0 or more), or leave it out", a.WithSubNotes)})
	}
	if a.WithSubNotes > 0 {
		f.args = append(f.args, arg{"with_sub_notes", a.WithSubNotes})
	}
	g := deleteGuard{given: a.WithSubNotes}
	o := c.opts(caller, a.ChangeSummary, a.ExpectedVersion)
	o.Check = g.check
	before, _ := c.v.Read(a.Path)
	res, err := c.v.Delete(a.Path, o)
	if err != nil {
		if r := g.refused(c, caller, a, err); r != nil {
			return r
		}
		return changedBy(c.failWrite(caller, f, a.Path, err), res)
	}
	if res.Note == nil && before != nil {
		res.Note = before
	}
	return withNamed(ref, a.Path, c.written(caller, "delete", "", a.ChangeSummary, res))
}

// RestoreNote brings a note back from the trash; it never overwrites one.
func (c *Core) RestoreNote(ctx context.Context, caller Caller, a RestoreArgs) *Result {
	const tool = "restore_note"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.TrashPath, args: []arg{{"trash_path", a.TrashPath}, {"change_summary", a.ChangeSummary}}}
	if a.To != "" {
		f.args = append(f.args, arg{"to", a.To})
	}
	res, err := c.v.Restore(a.TrashPath, a.To, c.opts(caller, a.ChangeSummary, ""))
	if err != nil && res != nil {
		return changedBy(c.fail(caller, f, err), res)
	}
	if err != nil {
		if ve, ok := note.AsError(err); ok && len(ve.Alternatives) > 0 && ve.AltKind != "notes" {
			r := c.fail(caller, f, err)
			r.Text += "\nnext: " + call{tool, []arg{{"trash_path", a.TrashPath}, {"to", ve.Alternatives[0]}, {"change_summary", a.ChangeSummary}}}.render(caller.Door)
			return r
		}
		return c.fail(caller, f, err)
	}
	return c.written(caller, "restore", "", a.ChangeSummary, res)
}

func (c *Core) opts(caller Caller, summary, expected string) vault.WriteOpts {
	return vault.WriteOpts{Summary: summary, Actor: actor(caller), ExpectedVersion: expected}
}

// failWrite renders a write error with the note's identity when the note
// exists, so that the caller can re-read or retry.
func (c *Core) failWrite(caller Caller, f failure, p string, err error) *Result {
	if n, rerr := c.v.Read(p); rerr == nil {
		f.note = n
		for i := range f.args {
			if f.args[i].name == "path" {
				f.args[i].value = n.Path
			}
		}
	}
	return c.fail(caller, f, err)
}

// written renders a successful write (AGENT-CONTRACT rule 7): what
// happened, the path and new version, and where the summary is recorded.
func (c *Core) written(caller Caller, op, heading, summary string, res *vault.Result) *Result {
	data := WriteData{
		Operation:     op,
		Detail:        res.Detail,
		Previous:      note.ShortVersion(res.Before),
		ChangeID:      res.ChangeID,
		ChangeSummary: summary,
		TrashPath:     res.TrashPath,
	}
	if res.Note != nil {
		data.Note = refOf(res.Note)
		if op == "delete" {
			data.Note.Version = note.ShortVersion(res.Before)
		}
		if heading != "" && res.Note.Doc != nil {
			if h, err := res.Note.Doc.Section(heading); err == nil {
				data.Section = h.PathString()
			}
		}
	}
	var b strings.Builder
	b.WriteString(res.Detail)
	b.WriteString(" (operation: " + op + ")")
	if data.Section != "" {
		b.WriteString("\nsection: " + data.Section)
	}
	b.WriteString("\n")
	writeRef(&b, data.Note, "")
	if data.Previous != "" && op != "delete" {
		fmt.Fprintf(&b, "previous version: %s\n", data.Previous)
	}
	if data.TrashPath != "" {
		fmt.Fprintf(&b, "trash path: %s\n", data.TrashPath)
	}
	fmt.Fprintf(&b, "recorded in history as change %s: %s\n", data.ChangeID, summary)
	switch op {
	case "delete":
		b.WriteString("undo: " + call{"restore_note", []arg{{"trash_path", data.TrashPath}, {"change_summary", "undo: " + summary}}}.render(caller.Door) + "\n")
	default:
		args := []arg{{"path", data.Note.Path}}
		if data.Section != "" {
			args = append(args, arg{"heading", data.Section})
		}
		b.WriteString("read it back: " + call{"read_note", args}.render(caller.Door) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data, Changed: res.Before != res.After}
}

// changedBy marks r, a write's error, as a change when the vault's result
// says one was made: a write whose history record failed after it was
// published comes back with both, and it did change the note.
func changedBy(r *Result, res *vault.Result) *Result {
	r.Changed = r.Changed || res != nil && res.Before != res.After
	return r
}
