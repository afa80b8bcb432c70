package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// MoveNoteArgs are the arguments of move_note.
type MoveNoteArgs struct {
	Path            string `json:"path" jsonschema:"a note, or a folder ending in /"`
	To              string `json:"to" jsonschema:"new path, or a folder ending in /" help:"DEST: the new path, or a folder to move into"`
	ChangeSummary   string `json:"change_summary"`
	ExpectedVersion string `json:"expected_version,omitempty" jsonschema:"from read_note; not for a folder" help:"VERSION: the note's version you read (required for a note, not for a folder)"`
}

// MovedNote is one file a move took along: a note by its block at its new
// place, an attachment by its new path; From is where it was.
type MovedNote struct {
	FileRef
	From string `json:"from"`
}

// RelinkedNote is a note whose links a move updated, as it is now.
type RelinkedNote struct {
	NoteRef
	Links int `json:"links"`
}

// LinkProblem is a link a move left as written, in the note (as it is now)
// that holds it.
type LinkProblem struct {
	NoteRef
	Line       int      `json:"line,omitempty"`
	Link       string   `json:"link,omitempty"`
	Reason     string   `json:"reason"`
	Candidates []string `json:"candidates,omitempty"`
}

// MoveData is move_note's structured answer.
type MoveData struct {
	Operation     string         `json:"operation"`
	Detail        string         `json:"detail"`
	From          string         `json:"from"`
	To            string         `json:"to"`
	Folder        bool           `json:"folder,omitempty"`
	Note          *NoteRef       `json:"note,omitempty"`
	Previous      string         `json:"previous_version,omitempty"`
	SubNotes      int            `json:"sub_notes_moved"`
	SubFolder     string         `json:"sub_folder,omitempty"`
	Moved         []MovedNote    `json:"moved,omitempty"`
	MovedTotal    int            `json:"moved_total"`
	Relinked      []RelinkedNote `json:"links_updated,omitempty"`
	RelinkedTotal int            `json:"notes_relinked"`
	Problems      []LinkProblem  `json:"links_left,omitempty"`
	ProblemsTotal int            `json:"links_left_total,omitempty"`
	Pending       []string       `json:"pending,omitempty"`
	ChangeID      string         `json:"change_id"`
	ChangeSummary string         `json:"change_summary,omitempty"`
}

// maxListed bounds each list in a move's answer (AGENT-CONTRACT rule 3).
const maxListed = 10

// MoveNote moves or renames a note (with its folder of sub-notes), or a
// whole folder, and updates the links that pointed into it.
func (c *Core) MoveNote(ctx context.Context, caller Caller, a MoveNoteArgs) *Result {
	const tool = "move_note"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}, {"to", a.To}, {"change_summary", a.ChangeSummary}}}
	ref := a.Path
	np, _, nr := c.notePathOrFolder(caller, f, a.Path)
	if nr != nil {
		return nr
	}
	a.Path = np
	if a.ExpectedVersion != "" {
		f.args = append(f.args, arg{"expected_version", a.ExpectedVersion})
	}
	res, err := c.v.Move(a.Path, a.To, c.opts(caller, a.ChangeSummary, a.ExpectedVersion))
	if err != nil {
		r := c.failMove(caller, f, a, err)
		r.Changed = res != nil && len(res.Moved) > 0
		return r
	}
	return withNamed(ref, a.Path, c.moved(caller, a.ChangeSummary, res))
}

// failMove renders a move's error; a name that is taken gets the call
// that moves to a free one instead.
func (c *Core) failMove(caller Caller, f failure, a MoveNoteArgs, err error) *Result {
	if errors.Is(err, note.ErrNotFound) {
		// The closest note is to be read first: moving it needs its version.
		r := c.fail(caller, f, err)
		if ve, ok := note.AsError(err); ok && len(ve.Alternatives) > 0 {
			replaceNext(r, f, call{"read_note", []arg{{"path", ve.Alternatives[0]}}}, caller.Door)
		}
		return r
	}
	if ve, ok := note.AsError(err); ok && !strings.HasSuffix(ve.Path, ".md") {
		return c.fail(caller, f, err) // a folder: no note to show
	}
	r := c.failWrite(caller, f, a.Path, err)
	ve, ok := note.AsError(err)
	if !ok || !errors.Is(err, vault.ErrExists) || len(ve.Alternatives) == 0 {
		return r
	}
	args := []arg{{"path", a.Path}, {"to", ve.Alternatives[0]}, {"change_summary", a.ChangeSummary}}
	if a.ExpectedVersion != "" {
		args = append(args, arg{"expected_version", a.ExpectedVersion})
	}
	replaceNext(r, f, call{"move_note", args}, caller.Door)
	return r
}

// replaceNext puts the suggestion n (for the failed call f) in place of the
// "next:" and "then:" lines at the end of r.
func replaceNext(r *Result, f failure, n call, door Door) {
	lines := strings.Split(r.Text, "\n")
	for len(lines) > 0 && (strings.HasPrefix(lines[len(lines)-1], "next: ") || strings.HasPrefix(lines[len(lines)-1], "then: ")) {
		lines = lines[:len(lines)-1]
	}
	r.Text = strings.Join(append(lines, suggest(door, f, n)...), "\n")
}

// moved renders a successful move (AGENT-CONTRACT rule 7): what moved
// where, how many sub-notes went along, which links were updated or left.
func (c *Core) moved(caller Caller, summary string, res *vault.MoveResult) *Result {
	data := MoveData{Operation: "move", Detail: res.Detail, From: res.From, To: res.To, Folder: res.Folder,
		SubNotes: res.SubNotes, SubFolder: res.SubFolder, MovedTotal: len(res.Moved), RelinkedTotal: len(res.Relinked),
		ProblemsTotal: len(res.Issues), Pending: res.Pending, ChangeID: res.ChangeID, ChangeSummary: summary}
	if res.Note != nil {
		ref := refOf(res.Note)
		data.Note = &ref
		if res.Before != res.After {
			data.Previous = note.ShortVersion(res.Before)
		}
	}
	var b strings.Builder
	b.WriteString(res.Detail + " (operation: move)\n")
	if res.ChangeID == "" { // nothing to do
		data.ChangeSummary = ""
		if data.Note != nil {
			writeRef(&b, *data.Note, "")
		}
		return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
	}
	if res.Folder {
		fmt.Fprintf(&b, "folder: %s\nprevious folder: %s\nspace: %s\n", res.To, res.From, spaceText(note.SpaceOf(res.To)))
	} else if data.Note != nil {
		writeRef(&b, *data.Note, "")
		fmt.Fprintf(&b, "previous path: %s\n", res.From)
		if data.Previous != "" {
			fmt.Fprintf(&b, "previous version: %s (its own links were updated)\n", data.Previous)
		}
	}
	// The files that moved along, beyond the note itself; each note, and
	// each note whose links were updated or left, with its block (rule 2).
	refs := c.noteRefs()
	var along []vault.MovedFile
	for _, m := range res.Moved {
		if res.Folder || m.From != res.From {
			along = append(along, m)
		}
	}
	if len(along) > 0 {
		title := "moved along"
		if res.Folder {
			title = "moved"
		}
		fmt.Fprintf(&b, "%s (%s; sub-notes: %d):\n", title, plural(len(along), "file", "files"), res.SubNotes)
		for _, m := range along[:min(len(along), maxListed)] {
			mn := MovedNote{FileRef: refs.fileRef(m.To), From: m.From}
			data.Moved = append(data.Moved, mn)
			mn.write(&b, "previous path: "+mn.From)
		}
		if n := len(along) - maxListed; n > 0 {
			dir := strings.TrimSuffix(orDir(res.SubFolder, res.To), "/")
			fmt.Fprintf(&b, "(%d more: %s lists them)\n", n, call{"list_notes", []arg{{"folder", dir}}}.render(caller.Door))
		}
	}
	fmt.Fprintf(&b, "files moved in all: %d\n", data.MovedTotal)
	if len(res.Relinked) > 0 {
		fmt.Fprintf(&b, "links updated in %s (notes relinked: %d):\n", plural(len(res.Relinked), "note", "notes"), data.RelinkedTotal)
		for _, r := range res.Relinked[:min(len(res.Relinked), maxListed)] {
			rn := RelinkedNote{NoteRef: refs.at(r.Path), Links: r.Links}
			rn.Version = note.ShortVersion(r.After) // what the relink wrote, not a cache's view
			data.Relinked = append(data.Relinked, rn)
			FileRef{NoteRef: &rn.NoteRef}.write(&b, "links updated: "+fmt.Sprint(rn.Links))
		}
		if n := len(res.Relinked) - maxListed; n > 0 {
			fmt.Fprintf(&b, "(%d more not listed; get_backlinks on a moved note lists the notes that link to it)\n", n)
		}
	} else {
		fmt.Fprintf(&b, "notes relinked: %d (every link still leads to the same note)\n", data.RelinkedTotal)
	}
	if len(res.Issues) > 0 {
		fmt.Fprintf(&b, "links left as written (links_left_total: %d) — check them:\n", data.ProblemsTotal)
		for _, is := range res.Issues[:min(len(res.Issues), maxListed)] {
			p := LinkProblem{NoteRef: refs.at(is.Path), Line: is.Line, Link: is.Link, Reason: is.Reason, Candidates: is.Candidates}
			data.Problems = append(data.Problems, p)
			where := "link"
			if p.Line > 0 {
				where = fmt.Sprintf("line %d", p.Line)
			}
			if p.Link != "" {
				where += " " + p.Link
			}
			extra := []string{where + ": " + p.Reason}
			if len(p.Candidates) > 0 {
				extra = append(extra, "candidates: "+strings.Join(p.Candidates, ", "))
			}
			FileRef{NoteRef: &p.NoteRef}.write(&b, extra...)
		}
		if n := len(res.Issues) - maxListed; n > 0 {
			fmt.Fprintf(&b, "(%d more)\n", n)
		}
	}
	if len(res.Pending) > 0 {
		fmt.Fprintf(&b, "pending (not updated, see above): %s\n", strings.Join(res.Pending, ", "))
	}
	fmt.Fprintf(&b, "recorded in history as change %s: %s\n", res.ChangeID, summary)
	if res.Folder {
		b.WriteString("next: " + call{"list_notes", []arg{{"folder", res.To}}}.render(caller.Door) + "\n")
	} else {
		b.WriteString("read it back: " + call{"read_note", []arg{{"path", res.To}}}.render(caller.Door) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data, Changed: true}
}

func orDir(sub, to string) string {
	if sub != "" {
		return sub + "/"
	}
	return to + "/"
}
