package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// Undo and emptying the trash are for people: the CLI calls them, no MCP
// tool does. An agent that wants a change reverted says so; the vault's
// owner runs `vaultd undo`.

// UndoArgs are the arguments of `vaultd undo`.
type UndoArgs struct {
	Change        string `json:"change"`
	ChangeSummary string `json:"change_summary,omitempty"`
}

// UndoData is the structured answer of an undo.
type UndoData struct {
	Undone        string   `json:"undone"`
	UndoneOp      string   `json:"undone_operation"`
	Operation     string   `json:"operation"`
	Detail        string   `json:"detail"`
	Note          *NoteRef `json:"note,omitempty"`
	TrashPath     string   `json:"trash_path,omitempty"` // an undone restore put the note back in the trash
	Folder        string   `json:"folder,omitempty"`     // an undone folder move
	ChangeID      string   `json:"change_id"`
	ChangeSummary string   `json:"change_summary"`
}

// Undo reverts one recorded change if nothing changed since.
func (c *Core) Undo(ctx context.Context, caller Caller, a UndoArgs) *Result {
	const tool = "undo"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	res, err := c.v.Undo(a.Change, vault.WriteOpts{Summary: a.ChangeSummary, Actor: actor(caller)})
	if err != nil {
		return c.failUndo(caller, a, err)
	}
	data := UndoData{Undone: res.Undone.ID, UndoneOp: res.Undone.Op, Operation: res.Op}
	var b strings.Builder
	switch {
	case res.Move != nil:
		data.Detail, data.ChangeID = res.Move.Detail, res.Move.ChangeID
		if res.Move.Note != nil {
			ref := refOf(res.Move.Note)
			data.Note = &ref
		} else {
			data.Folder = res.Move.To
		}
	case res.Result != nil:
		data.Detail, data.ChangeID = res.Result.Detail, res.Result.ChangeID
		if res.Result.Note != nil {
			ref := refOf(res.Result.Note)
			data.Note = &ref
		}
		data.TrashPath = res.Result.TrashPath
	}
	data.ChangeSummary = res.Summary
	fmt.Fprintf(&b, "undone: change %s (%s) — %s (operation: %s)\n", data.Undone, data.UndoneOp, data.Detail, data.Operation)
	if data.Note != nil {
		writeRef(&b, *data.Note, "")
	}
	if data.TrashPath != "" {
		fmt.Fprintf(&b, "trash path: %s\n", data.TrashPath)
	}
	if data.Folder != "" {
		fmt.Fprintf(&b, "folder: %s\n", data.Folder)
	}
	fmt.Fprintf(&b, "recorded in history as change %s: %s\n", data.ChangeID, data.ChangeSummary)
	b.WriteString("undo this too: vaultd undo " + data.ChangeID)
	return &Result{Text: b.String(), Data: data}
}

// failUndo explains why a change cannot be undone: for a note changed
// since, what happened since, newest first.
func (c *Core) failUndo(caller Caller, a UndoArgs, err error) *Result {
	ve, ok := note.AsError(err)
	if !ok || ve.AltKind != "changes" {
		return c.fail(caller, failure{tool: "undo", path: a.Change}, err)
	}
	var b strings.Builder
	data := map[string]any{"error": kindName(err)}
	fmt.Fprintf(&b, "error: %s\nerror code: %s\n", ve.Error(), kindName(err))
	if ve.Expected != "" || ve.Current != "" {
		data["expected_version"], data["current_version"] = ve.Expected, ve.Current
		fmt.Fprintf(&b, "version the change left: %s\nversion now: %s\n", orNone(ve.Expected), orNone(ve.Current))
	}
	next := "vaultd history"
	switch {
	case errors.Is(err, note.ErrNotFound) && ve.Path == "":
		if len(ve.Alternatives) > 0 {
			data["latest"] = ve.Alternatives
			b.WriteString("latest changes:\n")
			for _, s := range ve.Alternatives {
				b.WriteString("- " + s + "\n")
			}
		}
	case len(ve.Alternatives) > 0:
		data["since"] = ve.Alternatives
		b.WriteString("changes since, newest first (undo them first, newest first, or edit the note by hand):\n")
		for _, s := range ve.Alternatives {
			b.WriteString("- " + s + "\n")
		}
		next = "vaultd history " + shellQuote(ve.Path)
	case ve.Path != "":
		next = "vaultd history " + shellQuote(ve.Path)
	}
	if caller.Door.CLI() {
		b.WriteString("next: " + next)
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data, Err: err}
}

// EmptyTrashArgs are the arguments of `vaultd trash empty`.
type EmptyTrashArgs struct {
	OlderThan string `json:"older_than,omitempty"` // "30d", "12h", "2w"; empty: everything
}

// EmptyTrashData is the structured answer of emptying the trash.
type EmptyTrashData struct {
	Removed      []string `json:"removed"`
	RemovedTotal int      `json:"removed_total"`
	Kept         int      `json:"kept"`
	OlderThan    string   `json:"older_than,omitempty"`
}

// EmptyTrash deletes notes in the trash for good; for people only.
func (c *Core) EmptyTrash(ctx context.Context, caller Caller, a EmptyTrashArgs) *Result {
	const tool = "empty_trash"
	if r := c.need(caller, tool, "delete"); r != nil {
		return r
	}
	age, err := parseAge(a.OlderThan)
	if err != nil {
		return c.fail(caller, failure{tool: tool}, err)
	}
	rep, err := c.v.EmptyTrash(age)
	if err != nil {
		return c.fail(caller, failure{tool: tool}, err)
	}
	data := EmptyTrashData{RemovedTotal: len(rep.Removed), Kept: rep.Kept, OlderThan: strings.TrimSpace(a.OlderThan), Removed: []string{}}
	var b strings.Builder
	what := "every note in the trash"
	if age > 0 {
		what = "the notes deleted more than " + data.OlderThan + " ago"
	}
	fmt.Fprintf(&b, "emptied the trash of %s: %s deleted for good, %d younger kept\n", what, plural(data.RemovedTotal, "note", "notes"), data.Kept)
	for _, e := range rep.Removed[:min(len(rep.Removed), 20)] {
		data.Removed = append(data.Removed, e.TrashPath)
		fmt.Fprintf(&b, "- %s (from %s)\n", e.TrashPath, e.OriginalPath)
	}
	if n := len(rep.Removed) - 20; n > 0 {
		fmt.Fprintf(&b, "(%d more)\n", n)
	}
	var kept, lost []vault.TrashEntry
	for _, e := range rep.Removed {
		if e.Actor != "" {
			kept = append(kept, e)
		} else {
			lost = append(lost, e)
		}
	}
	if len(kept) > 0 {
		fmt.Fprintf(&b, "The texts of the notes deleted through vaultd stay in its history, and undo of the delete brings one back; the delete's change and its undo call: vaultd history %s\n",
			shellQuote(kept[0].OriginalPath))
	}
	switch {
	case len(lost) == 1:
		b.WriteString("1 note was not deleted through vaultd (moved to .trash/ by Obsidian or by hand): vaultd kept no text of it, so it is gone for good.\n")
	case len(lost) > 1:
		fmt.Fprintf(&b, "%d notes were not deleted through vaultd (moved to .trash/ by Obsidian or by hand): vaultd kept no text of them, so they are gone for good.\n", len(lost))
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// EmptyTrashPlan lists the notes EmptyTrash with a would delete for good
// (trash paths), so that a person can confirm first.
func (c *Core) EmptyTrashPlan(a EmptyTrashArgs) ([]vault.TrashEntry, error) {
	age, err := parseAge(a.OlderThan)
	if err != nil {
		return nil, err
	}
	entries, err := c.v.Trash()
	if err != nil {
		return nil, err
	}
	cutoff := time.Now().Add(-age)
	var out []vault.TrashEntry
	for _, e := range entries {
		if age > 0 && e.DeletedAt.After(cutoff) {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// parseAge reads "30d", "12h", "2w" or a Go duration; "" is 0.
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if n := len(s); n >= 2 {
		if k, err := strconv.Atoi(s[:n-1]); err == nil && k >= 0 {
			switch s[n-1] {
			case 'd':
				return time.Duration(k) * 24 * time.Hour, nil
			case 'w':
				return time.Duration(k) * 7 * 24 * time.Hour, nil
			}
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return d, nil
	}
	return 0, &note.Error{Op: "trash empty", Kind: note.ErrInvalid,
		Msg: fmt.Sprintf("--older-than %q is not an age: give days (30d), weeks (2w) or hours (12h)", s)}
}
