package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/vault"
)

// PinArgs are the arguments of pin_note and unpin_note.
type PinArgs struct {
	Path          string `json:"path"`
	ChangeSummary string `json:"change_summary"`
}

// PinData is the structured answer of pin_note and unpin_note. Note is the
// note as it is now; for a dangling bookmark's note, with goneVersion.
type PinData struct {
	Note          NoteRef `json:"note"`
	Operation     string  `json:"operation"`
	Detail        string  `json:"detail"`
	ChangeID      string  `json:"change_id,omitempty"`
	ChangeSummary string  `json:"change_summary,omitempty"`
	Pinned        int     `json:"pinned_files"`
}

// PinNote bookmarks a note in Obsidian (.obsidian/bookmarks.json).
func (c *Core) PinNote(ctx context.Context, caller Caller, a PinArgs) *Result {
	return c.pin(caller, "pin_note", "pin", a)
}

// UnpinNote removes a note's bookmarks in Obsidian.
func (c *Core) UnpinNote(ctx context.Context, caller Caller, a PinArgs) *Result {
	return c.pin(caller, "unpin_note", "unpin", a)
}

func (c *Core) pin(caller Caller, tool, op string, a PinArgs) *Result {
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}, {"change_summary", a.ChangeSummary}}}
	ref := a.Path
	np, _, nr := c.notePath(caller, f, a.Path)
	if nr != nil {
		return nr
	}
	a.Path = np
	o := c.opts(caller, a.ChangeSummary, "")
	var (
		res *vault.PinResult
		err error
	)
	if op == "pin" {
		res, err = c.v.Pin(a.Path, o)
	} else {
		res, err = c.v.Unpin(a.Path, o)
	}
	if err != nil {
		r := c.failApp(caller, f, a.Path, err)
		r.Changed = res != nil && res.Changed
		return r
	}
	data := PinData{Operation: op, Detail: res.Detail, Pinned: len(res.Pins)}
	var b strings.Builder
	if !res.Changed {
		data.Detail = "nothing changed: " + res.Detail
	}
	b.WriteString(data.Detail + " (operation: " + op + ")\n")
	if res.Note != nil {
		data.Note = refOf(res.Note)
	} else {
		data.Note = c.noteRefs().at(res.Path)
	}
	writeRef(&b, data.Note, "")
	if res.Note == nil {
		b.WriteString("The note no longer exists; its bookmark was dangling.\n")
	}
	if res.Changed {
		data.ChangeID, data.ChangeSummary = res.ChangeID, a.ChangeSummary
		fmt.Fprintf(&b, "recorded in history as change %s: %s (the note itself is unchanged)\n", res.ChangeID, a.ChangeSummary)
	} else {
		b.WriteString("nothing was written, so nothing was recorded in history\n")
	}
	fmt.Fprintf(&b, "pinned now: %s in %s; vault_overview lists the pinned notes\n", plural(len(res.Pins), "bookmarked file", "bookmarked files"), vault.BookmarksPath)
	switch {
	case res.Changed && op == "pin":
		b.WriteString("undo: " + call{"unpin_note", []arg{{"path", res.Path}, {"change_summary", "undo: " + a.ChangeSummary}}}.render(caller.Door) + "\n")
	case res.Changed && res.Note != nil:
		b.WriteString("undo: " + call{"pin_note", []arg{{"path", res.Path}, {"change_summary", "undo: " + a.ChangeSummary}}}.render(caller.Door) + "\n")
	}
	return withNamed(ref, a.Path, &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data, Changed: res.Changed})
}

// pinnedNotes returns the notes pinned in Obsidian, in bookmark order, and
// how many bookmarked files are not notes or no longer exist.
func (c *Core) pinnedNotes() ([]NoteRef, int) {
	pins, err := c.v.Pins()
	if err != nil {
		c.log.Warn("bookmarks could not be read", "error", err)
		return nil, 0
	}
	var out []NoteRef
	seen := map[string]bool{}
	other := 0
	for _, p := range pins {
		if seen[p.Path] {
			continue
		}
		seen[p.Path] = true
		if !vault.IsNote(p.Path) {
			other++
			continue
		}
		n, err := c.v.Read(p.Path)
		if err != nil {
			other++
			continue
		}
		out = append(out, refOf(n))
	}
	return out, other
}
