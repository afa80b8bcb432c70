package vault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// Deleted notes go to Obsidian's trash folder, .trash/ at the vault root,
// under the path they had ("1_Projekte/Alt.md" → ".trash/1_Projekte/Alt.md").
// Obsidian shows and empties that folder itself. Who deleted what, when and
// why is recorded in trash.jsonl in the state dir, so the trash can be
// listed with reasons and restored.
const (
	TrashDir  = ".trash"
	trashFile = "trash.jsonl"
)

// TrashEntry is one note in the trash.
type TrashEntry struct {
	TrashPath    string    // vault-relative: ".trash/1_Projekte/Alt.md"
	OriginalPath string    // where the note was: "1_Projekte/Alt.md"
	Actor        string    // who deleted it; "" if not deleted through vaultd
	Summary      string    // why; "" if not deleted through vaultd
	Version      string    // version of the trashed text (full hex)
	DeletedAt    time.Time // when; the file's time if not deleted through vaultd
}

// trashRecord is one line of trash.jsonl.
type trashRecord struct {
	Event        string    `json:"event"` // "delete" or "restore"
	Time         time.Time `json:"time"`
	TrashPath    string    `json:"trash_path"`
	OriginalPath string    `json:"original_path,omitempty"` // delete
	RestoredTo   string    `json:"restored_to,omitempty"`   // restore
	Actor        string    `json:"actor"`
	Summary      string    `json:"summary"`
	Version      string    `json:"version"`
	ChangeID     string    `json:"change_id"`
}

func (v *Vault) recordTrash(r trashRecord) error {
	r.Time = v.opts.Now().UTC()
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return v.appendJournal(trashFile, line)
}

// Delete moves the note at p to the trash: .trash/<same path>, or
// "<name> 2.md", "<name> 3.md", … there when that is taken (nothing in the
// trash is overwritten). o.ExpectedVersion is required. The note's text is
// kept in the content store and the deletion in history and trash.jsonl;
// Restore brings it back. Result.TrashPath says where it went.
//
// A note that is a symbolic link is refused: moved into .trash/, a relative
// link would point elsewhere.
//
// Errors (*Error, Op "delete"): ErrInvalid (empty summary, missing or
// malformed version, a symbolic link); ErrInvalidPath; ErrNotFound
// (Alternatives the closest notes); ErrConflict (the note is not at that
// version, also when it changed during the move: it is then put back;
// Expected and Current set); ErrDenied.
func (v *Vault) Delete(p string, o WriteOpts) (*Result, error) {
	const op = "delete"
	c, err := NotePath(p)
	if err != nil {
		return nil, withOp(err, op, "")
	}
	if o, err = v.writeOpts(op, c, o); err != nil {
		return nil, err
	}
	if strings.TrimSpace(o.ExpectedVersion) == "" {
		return nil, &Error{Op: op, Path: c, Kind: ErrInvalid,
			Msg: "deleting a note needs the version you read: read the note first and pass its version"}
	}
	c, real, err := v.existing(op, c)
	if err != nil {
		return nil, err
	}
	if real != c {
		return nil, &Error{Op: op, Path: c, Kind: ErrInvalid,
			Msg: fmt.Sprintf("is a symbolic link to %q; vaultd does not move links to the trash — remove the link by hand, or delete %q", real, real)}
	}
	unlock, err := v.lock(noteKey(c))
	if err != nil {
		return nil, ioErr(op, c, "could not lock the note", err)
	}
	res, err := v.deleteLocked(op, c, o)
	unlock()
	v.notifyIfChanged(res, c)
	return res, err
}

func (v *Vault) deleteLocked(op, c string, o WriteOpts) (*Result, error) {
	cur, _, err := v.readNote(op, c, c)
	if err != nil {
		return nil, err
	}
	ver := Version(cur)
	if !SameVersion(o.ExpectedVersion, ver) {
		return nil, withOp(conflictError(o.ExpectedVersion, ver), op, c)
	}
	if pol := v.Policy(); pol != nil {
		if err := pol.CheckWrite(WriteCheck{Op: op, Path: c, Actor: o.Actor}); err != nil {
			return nil, withOp(err, op, c)
		}
	}
	// Keep the text before anything moves: whatever happens next, it is
	// recoverable.
	if err := v.storeContent(cur); err != nil {
		return nil, ioErr(op, c, "could not keep the note's text in history", err)
	}
	tp, err := v.moveToTrash(c)
	if err != nil {
		return nil, ioErr(op, c, "could not move the note to the trash", err)
	}
	// The rename moved whatever was at c. If another program changed the
	// note after the version check, put its text back rather than trash
	// an edit nobody has seen.
	if moved, err := v.root.ReadFile(tp); err != nil || !bytes.Equal(moved, cur) {
		now := Version(moved)
		if v.publishNew(tp, c) != nil {
			e := conflictError(o.ExpectedVersion, now)
			e.Op, e.Path = op, c
			e.Msg = fmt.Sprintf("the note changed while it was being deleted; its new text (version %s) is in the trash as %s", e.Current, tp)
			return nil, e
		}
		return nil, withOp(conflictError(o.ExpectedVersion, now), op, c)
	}
	if err := errors.Join(v.syncDirOf(c), v.syncDirOf(tp)); err != nil {
		return nil, ioErr(op, c, "the note was moved to the trash, but the move could not be made durable", err)
	}
	res := &Result{Before: ver, TrashPath: tp, Detail: "moved to trash as " + tp}
	ch, err := v.record(Change{Op: op, Path: c, Summary: o.Summary, Actor: o.Actor, Before: ver})
	if err != nil {
		return res, recordErr(op, c, ver, err)
	}
	res.ChangeID = ch.ID
	if err := v.recordTrash(trashRecord{Event: "delete", TrashPath: tp, OriginalPath: c,
		Actor: o.Actor, Summary: o.Summary, Version: ver, ChangeID: ch.ID}); err != nil {
		return res, recordErr(op, c, ver, err)
	}
	return res, nil
}

// moveToTrash renames note c into the trash under the first free name and
// returns that name. The name is reserved first with an empty file created
// exclusively (nothing in the trash is ever overwritten, even by a racing
// Obsidian), then the note is renamed over the reservation — a rename moves
// whatever is at c atomically, so no edit can slip between a copy and a
// removal.
func (v *Vault) moveToTrash(c string) (string, error) {
	dir, base := path.Split(path.Join(TrashDir, c))
	if err := v.root.MkdirAll(path.Clean(dir), 0o755); err != nil {
		return "", err
	}
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for n := 1; n < 10000; n++ {
		tp := dir + base
		if n > 1 {
			tp = fmt.Sprintf("%s%s %d%s", dir, stem, n, ext)
		}
		f, err := v.root.OpenFile(tp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		f.Close()
		if err := v.step("rename", tp); err != nil {
			v.root.Remove(tp)
			return "", err
		}
		if err := v.root.Rename(c, tp); err != nil {
			v.root.Remove(tp)
			return "", err
		}
		return tp, nil
	}
	return "", fmt.Errorf("no free name in the trash for %s", c)
}

// Trash lists the notes in the trash, newest first: those vaultd deleted,
// with who, when and why, and those Obsidian or a person put there.
func (v *Vault) Trash() ([]TrashEntry, error) {
	last := map[string]trashRecord{} // trash path → its latest record
	if err := v.readJournal(trashFile, func(line []byte) {
		var r trashRecord
		if json.Unmarshal(line, &r) == nil && r.TrashPath != "" {
			last[r.TrashPath] = r
		}
	}); err != nil {
		return nil, err
	}
	var out []TrashEntry
	err := fs.WalkDir(v.root.FS(), TrashDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == TrashDir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return nil
		}
		if d.IsDir() || !IsNote(p) || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		b, err := v.root.ReadFile(p)
		if err != nil {
			return nil
		}
		p = nfc(p)
		e := TrashEntry{TrashPath: p, OriginalPath: strings.TrimPrefix(p, TrashDir+"/"), Version: Version(b)}
		// The record counts only for the file it describes: the trash may
		// have been emptied and the name reused since.
		if r, ok := last[p]; ok && r.Event == "delete" && r.Version == e.Version {
			e.OriginalPath, e.Actor, e.Summary, e.DeletedAt = r.OriginalPath, r.Actor, r.Summary, r.Time
		} else if fi, err := d.Info(); err == nil {
			e.DeletedAt = fi.ModTime().UTC()
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].DeletedAt.Equal(out[j].DeletedAt) {
			return out[i].DeletedAt.After(out[j].DeletedAt)
		}
		return out[i].TrashPath < out[j].TrashPath
	})
	return out, nil
}

// Restore moves a note from the trash back into the vault. trashPath is a
// path as Trash lists it (".trash/1_Projekte/Alt.md") or the note's
// original path (the newest trashed note from there is taken). to is where
// it goes; "" means where it was. Nothing is overwritten. The restore is
// checked with Policy.CheckWrite (Op "restore", New set) and recorded in
// history (Path the new place, OldPath the trash path).
//
// Errors (*Error, Op "restore"): ErrInvalid (empty summary);
// ErrInvalidPath; ErrNotFound (nothing in the trash by that name;
// Alternatives the closest trash paths); ErrExists (a note is in the way;
// Alternatives a free name nearby); ErrDenied.
func (v *Vault) Restore(trashPath, to string, o WriteOpts) (*Result, error) {
	const op = "restore"
	o, err := v.writeOpts(op, "", o)
	if err != nil {
		return nil, err
	}
	entry, err := v.findTrash(op, trashPath)
	if err != nil {
		return nil, err
	}
	dest := entry.OriginalPath
	if strings.TrimSpace(to) != "" {
		dest = to
	}
	dest, err = NotePath(dest)
	if err != nil {
		return nil, withOp(err, op, "")
	}
	if err := v.checkFolderCase(op, dest); err != nil {
		return nil, err
	}
	// Lock the trashed note too, so that two restores of it cannot both
	// succeed. Trash paths and note paths never share a key (note paths
	// have no hidden parts), so the two locks cannot deadlock.
	unlockTrash, err := v.lock(noteKey(entry.TrashPath))
	if err != nil {
		return nil, ioErr(op, dest, "could not lock the note", err)
	}
	unlock, err := v.lock(noteKey(dest))
	if err != nil {
		unlockTrash()
		return nil, ioErr(op, dest, "could not lock the note", err)
	}
	res, err := v.restoreLocked(op, entry, dest, o)
	unlock()
	unlockTrash()
	v.notifyIfChanged(res, dest)
	return res, err
}

func (v *Vault) restoreLocked(op string, entry TrashEntry, dest string, o WriteOpts) (*Result, error) {
	tp := entry.TrashPath
	b, err := v.root.ReadFile(tp)
	if err != nil {
		return nil, &Error{Op: op, Path: dest, Kind: ErrNotFound,
			Msg: fmt.Sprintf("%s is no longer in the trash (restored or emptied meanwhile)", tp)}
	}
	if err := v.refuseExisting(op, dest); err != nil {
		return nil, err
	}
	if pol := v.Policy(); pol != nil {
		if err := pol.CheckWrite(WriteCheck{Op: op, Path: dest, Content: b, New: true, Actor: o.Actor}); err != nil {
			return nil, withOp(err, op, dest)
		}
	}
	if dir := FolderOf(dest); dir != "" {
		if err := v.root.MkdirAll(dir, 0o755); err != nil {
			return nil, ioErr(op, dest, "could not create the folder "+dir, err)
		}
	}
	// A hard link publishes without replacing; removing the trash name
	// afterwards completes the move. Killed in between, the note is in
	// both places — never in none.
	if err := v.publishNew(tp, dest); err != nil {
		if errors.Is(err, fs.ErrExist) {
			e := v.existsError(op, dest, dest)
			e.Msg = "a note was created at this path meanwhile; it was left as it is"
			return nil, e
		}
		return nil, ioErr(op, dest, "could not move the note out of the trash", err)
	}
	v.root.Remove(tp) // gone already when publishNew fell back to a rename
	if err := errors.Join(v.syncDirOf(dest), v.syncDirOf(tp)); err != nil {
		return nil, ioErr(op, dest, "the note was restored, but the move could not be made durable", err)
	}
	res, err := v.finish(op, dest, dest, nil, b, "restored from "+tp, o, tp)
	if res != nil && res.ChangeID != "" {
		if rerr := v.recordTrash(trashRecord{Event: "restore", TrashPath: tp, RestoredTo: dest,
			Actor: o.Actor, Summary: o.Summary, Version: res.After, ChangeID: res.ChangeID}); rerr != nil && err == nil {
			err = recordErr(op, dest, res.After, rerr)
		}
	}
	return res, err
}

// findTrash finds the trash entry named by a trash path or an original path.
func (v *Vault) findTrash(op, name string) (TrashEntry, error) {
	entries, err := v.Trash()
	if err != nil {
		return TrashEntry{}, err
	}
	name = strings.TrimSpace(strings.ReplaceAll(name, `\`, "/"))
	var want, shown string
	byTrashPath := strings.HasPrefix(name, TrashDir+"/")
	if byTrashPath {
		c, err := NotePath(strings.TrimPrefix(name, TrashDir+"/"))
		if err != nil {
			return TrashEntry{}, withOp(err, op, "")
		}
		want, shown = TrashDir+"/"+c, TrashDir+"/"+c
	} else {
		c, err := NotePath(name)
		if err != nil {
			return TrashEntry{}, withOp(err, op, "")
		}
		want, shown = c, c
	}
	for _, e := range entries { // newest first
		if byTrashPath && headingKey(e.TrashPath) == headingKey(want) ||
			!byTrashPath && headingKey(e.OriginalPath) == headingKey(want) {
			return e, nil
		}
	}
	var paths []string
	for _, e := range entries {
		paths = append(paths, e.TrashPath)
	}
	target := want
	if !byTrashPath {
		target = TrashDir + "/" + want
	}
	e := &Error{Op: op, Path: shown, Kind: ErrNotFound, AltKind: "notes",
		Alternatives: ClosestNotes(paths, target, 5)}
	if len(entries) == 0 {
		e.Msg = "the trash is empty"
	} else if byTrashPath {
		e.Msg = fmt.Sprintf("no note %q in the trash", want)
	} else {
		e.Msg = fmt.Sprintf("no note deleted from %q is in the trash", want)
	}
	return TrashEntry{}, e
}
