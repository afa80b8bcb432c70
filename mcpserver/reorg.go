package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/vault"
)

// MoveNoteArgs are the arguments of move_note.
type MoveNoteArgs struct {
	Path            string `json:"path" jsonschema:"the note (or a folder) to move, e.g. 1_Projekte/Alt.md or 1_Projekte/Alt/"`
	To              string `json:"to" jsonschema:"the new path (e.g. 4_Archiv/Alt.md), or a folder to move it into (ending in /)"`
	ChangeSummary   string `json:"change_summary" jsonschema:"one line: what you changed and why"`
	ExpectedVersion string `json:"expected_version,omitempty" jsonschema:"the note's version you read (from read_note); not needed for a folder"`
}

// MovedNote is one file a move took along.
type MovedNote struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// RelinkedNote is a note whose links a move updated.
type RelinkedNote struct {
	Path    string `json:"path"`
	Links   int    `json:"links"`
	Version string `json:"version"`
}

// LinkProblem is a link a move left as written.
type LinkProblem struct {
	Path       string   `json:"path"`
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
	if a.ExpectedVersion != "" {
		f.args = append(f.args, arg{"expected_version", a.ExpectedVersion})
	}
	res, err := c.v.Move(a.Path, a.To, c.opts(caller, a.ChangeSummary, a.ExpectedVersion))
	if err != nil {
		return c.failMove(caller, f, a, err)
	}
	return c.moved(caller, a.ChangeSummary, res)
}

// failMove renders a move's error; a name that is taken gets the call
// that moves to a free one instead.
func (c *Core) failMove(caller Caller, f failure, a MoveNoteArgs, err error) *Result {
	if errors.Is(err, vault.ErrNotFound) {
		// The closest note is to be read first: moving it needs its version.
		r := c.fail(caller, f, err)
		if ve, ok := vault.AsError(err); ok && len(ve.Alternatives) > 0 {
			replaceNext(r, call{"read_note", []arg{{"path", ve.Alternatives[0]}}}, caller.Door)
		}
		return r
	}
	if ve, ok := vault.AsError(err); ok && !strings.HasSuffix(ve.Path, ".md") {
		return c.fail(caller, f, err) // a folder: no note to show
	}
	r := c.failWrite(caller, f, a.Path, err)
	ve, ok := vault.AsError(err)
	if !ok || !errors.Is(err, vault.ErrExists) || len(ve.Alternatives) == 0 {
		return r
	}
	args := []arg{{"path", a.Path}, {"to", ve.Alternatives[0]}, {"change_summary", a.ChangeSummary}}
	if a.ExpectedVersion != "" {
		args = append(args, arg{"expected_version", a.ExpectedVersion})
	}
	replaceNext(r, call{"move_note", args}, caller.Door)
	return r
}

// replaceNext puts n in place of the "next:" lines at the end of r.
func replaceNext(r *Result, n call, door Door) {
	lines := strings.Split(r.Text, "\n")
	for len(lines) > 0 && strings.HasPrefix(lines[len(lines)-1], "next: ") {
		lines = lines[:len(lines)-1]
	}
	r.Text = strings.Join(append(lines, "next: "+n.render(door)), "\n")
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
			data.Previous = vault.ShortVersion(res.Before)
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
		fmt.Fprintf(&b, "folder: %s\nprevious folder: %s\nspace: %s\n", res.To, res.From, spaceText(vault.SpaceOf(res.To)))
	} else if data.Note != nil {
		writeRef(&b, *data.Note, "")
		fmt.Fprintf(&b, "previous path: %s\n", res.From)
		if data.Previous != "" {
			fmt.Fprintf(&b, "previous version: %s (its own links were updated)\n", data.Previous)
		}
	}
	// The files that moved along, beyond the note itself.
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
			data.Moved = append(data.Moved, MovedNote{From: m.From, To: m.To})
			fmt.Fprintf(&b, "- %s → %s\n", m.From, m.To)
		}
		if n := len(along) - maxListed; n > 0 {
			fmt.Fprintf(&b, "(%d more, all below %s)\n", n, orDir(res.SubFolder, res.To))
		}
	}
	fmt.Fprintf(&b, "files moved in all: %d\n", data.MovedTotal)
	if len(res.Relinked) > 0 {
		fmt.Fprintf(&b, "links updated in %s (notes relinked: %d):\n", plural(len(res.Relinked), "note", "notes"), data.RelinkedTotal)
		for _, r := range res.Relinked[:min(len(res.Relinked), maxListed)] {
			rn := RelinkedNote{Path: r.Path, Links: r.Links, Version: vault.ShortVersion(r.After)}
			data.Relinked = append(data.Relinked, rn)
			fmt.Fprintf(&b, "- %s: %s, now version %s\n", rn.Path, plural(rn.Links, "link", "links"), rn.Version)
		}
		if n := len(res.Relinked) - maxListed; n > 0 {
			fmt.Fprintf(&b, "(%d more; recent_changes lists them all)\n", n)
		}
	} else {
		fmt.Fprintf(&b, "notes relinked: %d (every link still leads to the same note)\n", data.RelinkedTotal)
	}
	if len(res.Issues) > 0 {
		fmt.Fprintf(&b, "links left as written (links_left_total: %d) — check them:\n", data.ProblemsTotal)
		for _, is := range res.Issues[:min(len(res.Issues), maxListed)] {
			p := LinkProblem{Path: is.Path, Line: is.Line, Link: is.Link, Reason: is.Reason, Candidates: is.Candidates}
			data.Problems = append(data.Problems, p)
			where := p.Path
			if p.Line > 0 {
				where = fmt.Sprintf("%s line %d", p.Path, p.Line)
			}
			if p.Link != "" {
				where += " " + p.Link
			}
			fmt.Fprintf(&b, "- %s: %s\n", where, p.Reason)
			if len(p.Candidates) > 0 {
				fmt.Fprintf(&b, "  candidates: %s\n", strings.Join(p.Candidates, ", "))
			}
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
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

func orDir(sub, to string) string {
	if sub != "" {
		return sub + "/"
	}
	return to + "/"
}
