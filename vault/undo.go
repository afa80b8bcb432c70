package vault

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// UndoResult reports what Undo did.
type UndoResult struct {
	Undone ChangeEntry // the change undone (a multi-file change as one entry)
	// How it was undone: "replace" (the text before it restored), "delete"
	// (a created or restored note back to the trash), "restore" (a deleted
	// note back from the trash), "move" (moved back).
	Op      string
	Result  *Result     // for replace, delete and restore
	Move    *MoveResult // for move
	Summary string      // the undo's own change summary
}

// Undo reverts one recorded change, named by its id (or a unique prefix of
// at least 8 characters; a multi-file change by its group id or the id of
// any of its records) — but only if nothing changed since: the note must
// still be at the version the change left. Undoing is itself a change
// through the ordinary writes, with its own history record, so it can be
// undone in turn:
//
//   - a create or a restore: the note goes to the trash;
//   - an edit (append, update_section, replace, update_links, external):
//     the text from before it is written back;
//   - a delete: the note comes back from the trash (with its sub-notes);
//   - a move: the note or folder moves back, links updated again.
//
// o.Summary defaults to "undo of change <id>: <its summary>".
//
// Errors (*Error, Op "undo"): ErrNotFound (no change with that id —
// Alternatives the latest change ids; or what it changed is gone: no
// longer in the trash, deleted since); ErrAmbiguous (a prefix of several
// ids); ErrConflict (the note changed since: Expected the version the
// change left, Current the version now, Alternatives the changes made
// since, newest first, AltKind "changes"); ErrInvalid (nothing to go back
// to: the text before was never kept); and the errors of the write that
// undoes it.
func (v *Vault) Undo(id string, o WriteOpts) (*UndoResult, error) {
	const op = "undo"
	recs, err := v.allChanges()
	if err != nil {
		return nil, err
	}
	groups, err := v.groups()
	if err != nil {
		return nil, err
	}
	ch, g, err := findChange(recs, groups, strings.TrimSpace(id))
	if err != nil {
		return nil, err
	}
	entry := entryOf(ch)
	if g != nil {
		entry = ChangeEntry{ID: g.ID, Time: g.Time, Actor: g.Actor, Op: g.Op, Path: g.To, OldPath: g.From, Summary: g.Summary, Group: g.ID, Detail: g.Detail}
	}
	if strings.TrimSpace(o.Summary) == "" {
		o.Summary = fmt.Sprintf("undo of change %s: %s", entry.ID, entry.Summary)
	}
	res := &UndoResult{Undone: entry, Summary: o.Summary}

	if g != nil {
		switch g.Op {
		case "move":
			return v.undoMove(op, recs, g, o, res)
		case "delete":
			r, err := v.Restore(g.To, "", o)
			if err != nil {
				return nil, undoErr(op, entry, err)
			}
			res.Op, res.Result = "restore", r
			return res, nil
		case "restore":
			ch = lastInGroup(recs, g.ID, g.To)
		default:
			return nil, &note.Error{Op: op, Kind: note.ErrInvalid, Msg: fmt.Sprintf("change %s (%s) cannot be undone", g.ID, g.Op)}
		}
	}

	switch ch.Op {
	case "delete":
		entries, err := v.Trash()
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.OriginalPath == ch.Path && e.Version == ch.Before {
				r, err := v.Restore(e.TrashPath, "", o)
				if err != nil {
					return nil, undoErr(op, entry, err)
				}
				res.Op, res.Result = "restore", r
				return res, nil
			}
		}
		// Emptied from the trash: its text is still in the content store
		// (trash empty promises that), so the note comes back from there,
		// at its old path, if that is free.
		if ch.Before != "" && !v.Exists(ch.Path) {
			if old, err := v.Content(ch.Before); err == nil {
				o.ExpectedVersion = ""
				o.whole = true // the deleted text, byte for byte
				r, err := v.createAs("restore", ch.Path, old, o)
				if err != nil {
					return nil, undoErr(op, entry, err)
				}
				r.Detail = "brought back from vaultd's history (the trash was emptied since): " + r.Detail
				res.Op, res.Result = "create", r
				return res, nil
			}
		}
		return nil, &note.Error{Op: op, Path: ch.Path, Kind: note.ErrNotFound,
			Msg: fmt.Sprintf("cannot undo change %s: the deleted note is no longer in the trash (restored or emptied since)", ch.ID)}
	}

	if err := v.unchangedSince(op, recs, ch); err != nil {
		return nil, err
	}
	o.ExpectedVersion = ch.After
	switch ch.Op {
	case "create", "restore":
		r, err := v.Delete(ch.Path, o)
		if err != nil {
			return nil, undoErr(op, entry, err)
		}
		res.Op, res.Result = "delete", r
		return res, nil
	case "append", "update_section", "replace", "update_links", "external":
		if ch.Before == "" {
			return nil, &note.Error{Op: op, Path: ch.Path, Kind: note.ErrInvalid,
				Msg: fmt.Sprintf("cannot undo change %s: there is no earlier text to go back to", ch.ID)}
		}
		old, err := v.Content(ch.Before)
		if err != nil {
			return nil, &note.Error{Op: op, Path: ch.Path, Kind: note.ErrInvalid,
				Msg: fmt.Sprintf("cannot undo change %s: the text before it (version %s) was not kept", ch.ID, note.ShortVersion(ch.Before))}
		}
		// The text before, byte for byte, over the text the change left
		// (checked above): whatever their encodings, nothing is built on.
		o.whole = true
		r, err := v.Replace(ch.Path, old, o)
		if err != nil {
			return nil, undoErr(op, entry, err)
		}
		res.Op, res.Result = "replace", r
		return res, nil
	}
	return nil, &note.Error{Op: op, Path: ch.Path, Kind: note.ErrInvalid, Msg: fmt.Sprintf("change %s (%s) cannot be undone", ch.ID, ch.Op)}
}

// undoMove moves a moved note or folder back.
func (v *Vault) undoMove(op string, recs []Change, g *Group, o WriteOpts, res *UndoResult) (*UndoResult, error) {
	if !g.Folder {
		ch := lastInGroup(recs, g.ID, g.To)
		if err := v.unchangedSince(op, recs, ch); err != nil {
			return nil, err
		}
		o.ExpectedVersion = ch.After
	} else if fi, err := v.root.Lstat(g.To); err != nil || !fi.IsDir() {
		return nil, &note.Error{Op: op, Path: g.To, Kind: note.ErrNotFound,
			Msg: fmt.Sprintf("cannot undo change %s: the folder is no longer at %s", g.ID, g.To)}
	}
	// Exactly back: never into a folder that took the old name meanwhile.
	m, err := v.move(g.To, g.From, o, true)
	if err != nil {
		return nil, undoErr(op, res.Undone, err)
	}
	res.Op, res.Move = "move", m
	return res, nil
}

// lastInGroup is the newest record of a group at path p (the main note's
// last version after the group).
func lastInGroup(recs []Change, group, p string) Change {
	var out Change
	for _, ch := range recs {
		if ch.Group == group && ch.Path == p {
			out = ch
		}
	}
	return out
}

// unchangedSince checks that the note ch changed is still at the version
// ch left, and explains what happened since when not.
func (v *Vault) unchangedSince(op string, recs []Change, ch Change) error {
	cur := v.currentVersion(ch.Path)
	if cur == ch.After {
		return nil
	}
	var since []string
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.ID == ch.ID {
			break
		}
		if r.Path == ch.Path || r.OldPath == ch.Path {
			since = append(since, fmt.Sprintf("%s %s by %s: %s %s — %s", r.ID, r.Time.UTC().Format("2006-01-02 15:04"), r.Actor, r.Op, r.Path, r.Summary))
		}
	}
	e := &note.Error{Op: op, Path: ch.Path, Kind: note.ErrConflict, Expected: note.ShortVersion(ch.After), Current: note.ShortVersion(cur),
		Alternatives: since, AltKind: "changes"}
	switch {
	case cur == "":
		e.Kind = note.ErrNotFound
		e.Msg = fmt.Sprintf("cannot undo change %s: the note is no longer at %s (deleted or moved since)", ch.ID, ch.Path)
	case len(since) == 0:
		e.Msg = fmt.Sprintf("cannot undo change %s: the note was changed outside vaultd since (it is now at version %s, the change left %s)",
			ch.ID, note.ShortVersion(cur), note.ShortVersion(ch.After))
	default:
		e.Msg = fmt.Sprintf("cannot undo change %s: the note changed since (it is now at version %s, the change left %s); %s since",
			ch.ID, note.ShortVersion(cur), note.ShortVersion(ch.After), plural(len(since), "change"))
	}
	return e
}

// undoErr names the change in the error of the write that undoes it.
func undoErr(op string, entry ChangeEntry, err error) error {
	e, ok := note.AsError(err)
	if !ok {
		return err
	}
	cp := *e
	cp.Msg = fmt.Sprintf("cannot undo change %s: %s", entry.ID, e.Msg)
	cp.Op = op
	return &cp
}

// findChange finds a record or a group by id or unique id prefix.
func findChange(recs []Change, groups map[string]*Group, id string) (Change, *Group, error) {
	const op = "undo"
	if id == "" {
		return Change{}, nil, &note.Error{Op: op, Kind: note.ErrInvalid, Msg: "give the id of the change to undo (vaultd history lists them)"}
	}
	if g := groups[id]; g != nil && g.Op != "" {
		return Change{}, g, nil
	}
	var found []Change
	for _, ch := range recs {
		if ch.ID == id {
			found = []Change{ch}
			break
		}
		if len(id) >= 8 && strings.HasPrefix(ch.ID, id) {
			found = append(found, ch)
		}
	}
	var gfound []*Group
	if len(found) == 0 && len(id) >= 8 {
		for gid, g := range groups {
			if strings.HasPrefix(gid, id) && g.Op != "" {
				gfound = append(gfound, g)
			}
		}
		if len(gfound) == 1 {
			return Change{}, gfound[0], nil
		}
	}
	switch {
	case len(found) == 1:
		ch := found[0]
		if g := groups[ch.Group]; ch.Group != "" && g != nil && g.Op != "" {
			return ch, g, nil
		}
		return ch, nil, nil
	case len(found) > 1 || len(gfound) > 1:
		var ids []string
		for _, ch := range found {
			ids = append(ids, ch.ID)
		}
		for _, g := range gfound {
			ids = append(ids, g.ID)
		}
		sort.Strings(ids)
		return Change{}, nil, &note.Error{Op: op, Kind: note.ErrAmbiguous, Alternatives: ids, AltKind: "changes",
			Msg: fmt.Sprintf("%q is the start of %d change ids; give more of it", id, len(ids))}
	}
	var latest []string
	for i := len(recs) - 1; i >= 0 && len(latest) < 5; i-- {
		latest = append(latest, recs[i].ID+" "+recs[i].Op+" "+recs[i].Path)
	}
	return Change{}, nil, &note.Error{Op: op, Kind: note.ErrNotFound, Alternatives: latest, AltKind: "changes",
		Msg: fmt.Sprintf("no change %q is recorded", id)}
}
