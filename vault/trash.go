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

	"github.com/vaultd/vaultd/note"
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

	file string // TrashPath as the disk spells it (twins.go: TrashPath is canonical)
}

// onDisk is the trash file's path as the disk spells it.
func (e TrashEntry) onDisk() string {
	if e.file != "" {
		return e.file
	}
	return e.TrashPath
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
	// Group: the delete (or restore) took a note's sub-notes along; the id
	// of that group (groups.jsonl), the same on the note's record and its
	// sub-notes'.
	Group string `json:"group,omitempty"`
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
// A note with a folder of sub-notes beside it ("Projekt.md" + "Projekt/")
// takes that folder along: it goes to the trash beside the note, under the
// note's trash name (".trash/Projekt 2.md" + ".trash/Projekt 2/"), every
// sub-note gets its own history and trash record in one group, and
// Result.Detail says how many went along. Restore of the note brings the
// folder back with it.
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
	c, err := v.notePath(p)
	if err != nil {
		return nil, withOp(err, op, "")
	}
	if o, err = v.writeOpts(op, c, o); err != nil {
		return nil, err
	}
	if strings.TrimSpace(o.ExpectedVersion) == "" {
		return nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalid,
			Msg: "deleting a note needs the version you read: read the note first and pass its version"}
	}
	c, real, err := v.existing(op, c)
	if err != nil {
		return nil, err
	}
	if real != c && nfc(real) == nfc(c) {
		c = real // stored in another normal form (macOS): trashed under its name on disk
	}
	if real != c {
		return nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("is a symbolic link to %q; vaultd does not move links to the trash — remove the link by hand, or delete %q", real, real)}
	}
	sub := strings.TrimSuffix(c, path.Ext(c))
	if fi, err := v.root.Lstat(sub); err != nil || !fi.IsDir() {
		sub = ""
	}
	if sub != "" {
		// A group: one at a time with moves, which plan on the whole vault.
		unlockMove, err := v.lock(moveKey)
		if err != nil {
			return nil, ioErr(op, c, "could not lock the vault", err)
		}
		defer unlockMove()
	}
	unlock, err := v.lock(noteKey(c))
	if err != nil {
		return nil, ioErr(op, c, "could not lock the note", err)
	}
	var subNotes []string
	var res *Result
	if sub != "" {
		res, subNotes, err = v.deleteWithSub(op, c, sub, o)
	} else {
		res, err = v.deleteLocked(op, c, o)
	}
	unlock()
	v.notifyIfChanged(res, append(subNotes, c)...)
	return res, err
}

func (v *Vault) deleteLocked(op, c string, o WriteOpts) (*Result, error) {
	cur, _, err := v.readNote(op, c, c)
	if err != nil {
		return nil, err
	}
	ver := note.Version(cur)
	if !note.SameVersion(o.ExpectedVersion, ver) {
		return nil, withOp(conflictError(o.ExpectedVersion, ver), op, c)
	}
	if pol := v.Policy(); pol != nil {
		if err := pol.CheckWrite(WriteCheck{Op: op, Path: c, Actor: o.Actor}); err != nil {
			return nil, withOp(err, op, c)
		}
	}
	if o.Check != nil {
		if err := o.Check(WriteCheck{Op: op, Path: c, Actor: o.Actor, Before: cur}); err != nil {
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
		now := note.Version(moved)
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

// deleteWithSub deletes note c and takes its folder of sub-notes sub along
// into the trash, as one group. It returns the sub-notes' paths.
func (v *Vault) deleteWithSub(op, c, sub string, o WriteOpts) (*Result, []string, error) {
	cur, _, err := v.readNote(op, c, c)
	if err != nil {
		return nil, nil, err
	}
	ver := note.Version(cur)
	if !note.SameVersion(o.ExpectedVersion, ver) {
		return nil, nil, withOp(conflictError(o.ExpectedVersion, ver), op, c)
	}
	var subs []Entry
	if err := v.WalkDir(sub, func(e Entry) error {
		subs = append(subs, e)
		return nil
	}); err != nil {
		return nil, nil, err
	}
	var subNotes []string
	for _, e := range subs {
		if e.Note {
			subNotes = append(subNotes, e.Path)
		}
	}
	if pol := v.Policy(); pol != nil {
		for _, p := range append([]string{c}, subNotes...) {
			if err := pol.CheckWrite(WriteCheck{Op: op, Path: p, Actor: o.Actor}); err != nil {
				return nil, nil, withOp(err, op, c)
			}
		}
	}
	if o.Check != nil {
		if err := o.Check(WriteCheck{Op: op, Path: c, Actor: o.Actor, Before: cur, SubNotes: subNotes}); err != nil {
			return nil, nil, withOp(err, op, c)
		}
	}
	// Keep every text before anything moves.
	texts := map[string][]byte{c: cur}
	if err := v.storeContent(cur); err != nil {
		return nil, nil, ioErr(op, c, "could not keep the note's text in history", err)
	}
	for _, p := range subNotes {
		b, err := v.root.ReadFile(p)
		if err != nil {
			continue
		}
		if err := v.storeContent(b); err != nil {
			return nil, nil, ioErr(op, c, "could not keep the sub-notes' texts in history", err)
		}
		texts[p] = b
	}
	tp, td, err := v.reserveTrashPair(c)
	if err != nil {
		return nil, nil, ioErr(op, c, "could not reserve a place in the trash", err)
	}
	id := newID(v.opts.Now())
	if err := v.writeGroup(groupRecord{Event: "plan", ID: id, Op: op, Actor: o.Actor, Summary: o.Summary, From: c, To: tp,
		Steps: []groupStep{{Op: "trash", From: sub, To: td, Notes: subNotes}, {Op: "trash", From: c, To: tp}}}); err != nil {
		v.root.Remove(tp)
		return nil, nil, ioErr(op, c, "could not record the delete's plan in the history", err)
	}
	closeGroup := func(detail string) { _ = v.writeGroup(groupRecord{Event: "done", ID: id, Detail: detail}) }
	if err := v.renameNoReplace(sub, td); err != nil {
		v.root.Remove(tp)
		closeGroup("not deleted: " + errText(err))
		return nil, nil, ioErr(op, c, "could not move the folder of sub-notes "+sub+" to the trash", err)
	}
	if err := v.step("rename", tp); err == nil {
		err = v.root.Rename(c, tp)
	}
	if err != nil {
		v.root.Remove(tp)
		v.renameNoReplace(td, sub)
		closeGroup("not deleted: " + errText(err))
		return nil, nil, ioErr(op, c, "could not move the note to the trash", err)
	}
	if moved, err := v.root.ReadFile(tp); err != nil || !bytes.Equal(moved, cur) {
		// Changed by another program after the check: put both back.
		now := note.Version(moved)
		closeGroup("not deleted: the note changed meanwhile")
		if v.publishNew(tp, c) != nil || v.renameNoReplace(td, sub) != nil {
			e := conflictError(o.ExpectedVersion, now)
			e.Op, e.Path = op, c
			e.Msg = fmt.Sprintf("the note changed while it was being deleted; its new text (version %s) is in the trash as %s, its sub-notes in %s/", e.Current, tp, td)
			return nil, nil, e
		}
		return nil, nil, withOp(conflictError(o.ExpectedVersion, now), op, c)
	}
	if err := errors.Join(v.syncDirOf(c), v.syncDirOf(tp)); err != nil {
		return nil, nil, ioErr(op, c, "the note was moved to the trash, but the move could not be made durable", err)
	}
	res := &Result{Before: ver, TrashPath: tp,
		Detail: fmt.Sprintf("moved to trash as %s; %s went along to %s/", tp, plural(len(subNotes), "sub-note"), td)}
	if n := len(subs) - len(subNotes); n > 0 {
		res.Detail = fmt.Sprintf("moved to trash as %s; %s and %s went along to %s/", tp, plural(len(subNotes), "sub-note"), plural(n, "attachment"), td)
	}
	var recs []Change
	for _, p := range subNotes {
		if b, ok := texts[p]; ok {
			recs = append(recs, Change{Op: op, Path: p, Summary: o.Summary, Actor: o.Actor, Before: note.Version(b), Group: id})
		}
	}
	recs = append(recs, Change{Op: op, Path: c, Summary: o.Summary, Actor: o.Actor, Before: ver, Group: id})
	out, err := v.recordBatch(recs)
	if err != nil {
		return res, subNotes, recordErr(op, c, ver, err)
	}
	for _, ch := range out {
		t := tp
		if ch.Path != c {
			t = td + strings.TrimPrefix(ch.Path, sub)
		}
		if err := v.recordTrash(trashRecord{Event: "delete", TrashPath: t, OriginalPath: ch.Path,
			Actor: o.Actor, Summary: o.Summary, Version: ch.Before, ChangeID: ch.ID, Group: id}); err != nil {
			return res, subNotes, recordErr(op, c, ver, err)
		}
	}
	res.ChangeID = out[len(out)-1].ID
	var paths []string
	for _, e := range subs {
		paths = append(paths, e.Path)
	}
	git := v.gitCommitFor(append(paths, c), o.Summary, o.Actor)
	res.Detail += gitDetail(git)
	if err := v.writeGroup(groupRecord{Event: "done", ID: id, Detail: res.Detail, Git: git}); err != nil {
		return res, subNotes, recordErr(op, c, ver, err)
	}
	return res, subNotes, nil
}

// reserveTrashPair finds the first n for which both ".trash/<path>[ n].md"
// and the folder ".trash/<path>[ n]/" are free, reserves the note's name
// with an empty file created exclusively, and returns both.
func (v *Vault) reserveTrashPair(c string) (string, string, error) {
	dir, base := path.Split(path.Join(TrashDir, c))
	if err := v.root.MkdirAll(path.Clean(dir), 0o755); err != nil {
		return "", "", err
	}
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for n := 1; n < 10000; n++ {
		name := stem
		if n > 1 {
			name = fmt.Sprintf("%s %d", stem, n)
		}
		tp, td := dir+name+ext, dir+name
		if _, err := v.root.Lstat(td); err == nil {
			continue
		}
		f, err := v.root.OpenFile(tp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", "", err
		}
		f.Close()
		return tp, td, nil
	}
	return "", "", fmt.Errorf("no free name in the trash for %s", c)
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
	if _, err := v.readJournal(trashFile, func(line []byte) bool {
		var r trashRecord
		if json.Unmarshal(line, &r) != nil || r.TrashPath == "" {
			return false
		}
		last[r.TrashPath] = r
		return true
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
		raw := p
		p = v.canon(p)
		e := TrashEntry{TrashPath: p, OriginalPath: strings.TrimPrefix(p, TrashDir+"/"), Version: note.Version(b), file: raw}
		// The record counts only for the file it describes: the trash may
		// have been emptied and the name reused since. (A twin's record
		// names it by its bytes; alone in the trash its name is NFC.)
		r, ok := last[raw]
		if !ok {
			r, ok = last[p]
		}
		if ok && r.Event == "delete" && r.Version == e.Version {
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
	// Back where it was, spelled as it was (a twin's name by its bytes),
	// or where to says.
	dest, err := note.NotePathExact(entry.OriginalPath)
	if strings.TrimSpace(to) != "" {
		dest, err = v.notePath(to)
	}
	if err != nil {
		return nil, withOp(err, op, "")
	}
	if dest, err = v.checkFolderCase(op, dest); err != nil {
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
	res, subs, err := v.restoreLocked(op, entry, dest, o)
	unlock()
	unlockTrash()
	v.notifyIfChanged(res, append([]string{dest}, subs...)...)
	return res, err
}

func (v *Vault) restoreLocked(op string, entry TrashEntry, dest string, o WriteOpts) (*Result, []string, error) {
	tp := entry.onDisk()
	b, err := v.root.ReadFile(tp)
	if err != nil {
		return nil, nil, &note.Error{Op: op, Path: dest, Kind: note.ErrNotFound,
			Msg: fmt.Sprintf("%s is no longer in the trash (restored or emptied meanwhile)", tp)}
	}
	if err := v.refuseExisting(op, dest); err != nil {
		return nil, nil, err
	}
	if pol := v.Policy(); pol != nil {
		if err := pol.CheckWrite(WriteCheck{Op: op, Path: dest, Content: b, New: true, Actor: o.Actor}); err != nil {
			return nil, nil, withOp(err, op, dest)
		}
	}
	if dir := note.FolderOf(dest); dir != "" {
		if err := v.root.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, ioErr(op, dest, "could not create the folder "+dir, err)
		}
	}
	// The note's sub-notes went to the trash with it: they come back with
	// it, as one group, unless something is in their way.
	sub := v.trashedSubNotes(tp)
	destSub := strings.TrimSuffix(dest, path.Ext(dest))
	if sub != nil {
		if _, err := v.root.Lstat(destSub); err == nil {
			sub.blocked = destSub
		} else {
			o.group = newID(v.opts.Now())
			_ = v.writeGroup(groupRecord{Event: "plan", ID: o.group, Op: op, Actor: o.Actor, Summary: o.Summary, From: tp, To: dest,
				Steps: []groupStep{{Op: "restore", From: tp, To: dest}, {Op: "restore", From: sub.dir, To: destSub, Notes: sub.notes}}})
		}
	}
	intent, err := v.intend(op, dest, tp, nil, b, o)
	if err != nil {
		return nil, nil, err
	}
	// A hard link publishes without replacing; removing the trash name
	// afterwards completes the move. Killed in between, the note is in
	// both places — never in none.
	if err := v.publishNew(tp, dest); err != nil {
		if o.group != "" {
			_ = v.writeGroup(groupRecord{Event: "done", ID: o.group, Detail: "not restored: " + errText(err)})
		}
		if errors.Is(err, fs.ErrExist) {
			e := v.existsError(op, dest, dest)
			e.Msg = "a note was created at this path meanwhile; it was left as it is"
			return nil, nil, e
		}
		return nil, nil, ioErr(op, dest, "could not move the note out of the trash", err)
	}
	v.root.Remove(tp) // gone already when publishNew fell back to a rename
	if err := errors.Join(v.syncDirOf(dest), v.syncDirOf(tp)); err != nil {
		return nil, nil, ioErr(op, dest, "the note was restored, but the move could not be made durable", err)
	}
	res, err := v.finish(op, dest, dest, nil, b, "restored from "+tp, o, tp, intent)
	if res != nil && res.ChangeID != "" {
		if rerr := v.recordTrash(trashRecord{Event: "restore", TrashPath: tp, RestoredTo: dest,
			Actor: o.Actor, Summary: o.Summary, Version: res.After, ChangeID: res.ChangeID, Group: o.group}); rerr != nil && err == nil {
			err = recordErr(op, dest, res.After, rerr)
		}
	}
	var subs []string
	if res != nil && sub != nil {
		var d string
		d, subs = v.restoreSubNotes(op, sub, dest, destSub, o)
		res.Detail += d
	}
	return res, subs, err
}

// trashedSub is the folder of sub-notes that was deleted with a note.
type trashedSub struct {
	dir     string   // in the trash
	notes   []string // trash paths of the sub-notes in it
	blocked string   // the place they would go back to is taken
}

// trashedSubNotes finds the folder of sub-notes deleted along with the
// trashed note tp (same group), if it is still in the trash.
func (v *Vault) trashedSubNotes(tp string) *trashedSub {
	dir := strings.TrimSuffix(tp, path.Ext(tp))
	if fi, err := v.root.Lstat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	last := map[string]trashRecord{}
	_, _ = v.readJournal(trashFile, func(line []byte) bool {
		var r trashRecord
		if json.Unmarshal(line, &r) != nil || r.TrashPath == "" {
			return false
		}
		last[r.TrashPath] = r
		return true
	})
	group := last[tp].Group
	if group == "" {
		return nil
	}
	s := &trashedSub{dir: dir}
	for p, r := range last {
		if r.Event == "delete" && r.Group == group && strings.HasPrefix(p, dir+"/") {
			if _, err := v.root.Lstat(p); err == nil {
				s.notes = append(s.notes, p)
			}
		}
	}
	if len(s.notes) == 0 {
		return nil
	}
	sort.Strings(s.notes)
	return s
}

// restoreSubNotes moves a restored note's folder of sub-notes back from the
// trash and records each; it returns what to add to the answer and the
// sub-notes' paths.
func (v *Vault) restoreSubNotes(op string, sub *trashedSub, dest, destSub string, o WriteOpts) (string, []string) {
	if sub.blocked != "" {
		return fmt.Sprintf("; its %s stayed in the trash in %s/, because %s/ exists: restore them one by one", plural(len(sub.notes), "sub-note"), sub.dir, sub.blocked), nil
	}
	closeGroup := func(detail, git string) {
		_ = v.writeGroup(groupRecord{Event: "done", ID: o.group, Detail: detail, Git: git})
	}
	if err := v.renameNoReplace(sub.dir, destSub); err != nil {
		git := v.gitCommitFor([]string{dest}, o.Summary, o.Actor)
		d := fmt.Sprintf("; its %s stayed in the trash in %s/: %s", plural(len(sub.notes), "sub-note"), sub.dir, errText(err)) + gitDetail(git)
		closeGroup(d, git)
		return d, nil
	}
	_ = errors.Join(v.syncDirOf(sub.dir), v.syncDirOf(destSub))
	var recs []Change
	paths := []string{dest}
	for _, tp := range sub.notes {
		np := destSub + strings.TrimPrefix(tp, sub.dir)
		b, err := v.root.ReadFile(np)
		if err != nil {
			continue
		}
		paths = append(paths, np)
		recs = append(recs, Change{Op: op, Path: np, OldPath: tp, Summary: o.Summary, Actor: o.Actor, After: note.Version(b), Group: o.group})
	}
	out, _ := v.recordBatch(recs)
	for _, ch := range out {
		_ = v.recordTrash(trashRecord{Event: "restore", TrashPath: ch.OldPath, RestoredTo: ch.Path,
			Actor: o.Actor, Summary: o.Summary, Version: ch.After, ChangeID: ch.ID, Group: o.group})
	}
	git := v.gitCommitFor(paths, o.Summary, o.Actor)
	d := fmt.Sprintf("; %s came back along (now in %s/)", plural(len(recs), "sub-note"), destSub) + gitDetail(git)
	closeGroup(d, git)
	return d, paths[1:]
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
		c, err := note.NotePath(strings.TrimPrefix(name, TrashDir+"/"))
		if err != nil {
			return TrashEntry{}, withOp(err, op, "")
		}
		want, shown = TrashDir+"/"+c, TrashDir+"/"+c
		if x, err := note.NotePathExact(strings.TrimPrefix(name, TrashDir+"/")); err == nil && x != c {
			want = TrashDir + "/" + x // a twin's bytes, matched first
		}
	} else {
		c, err := v.notePath(name)
		if err != nil {
			return TrashEntry{}, withOp(err, op, "")
		}
		want, shown = c, c
	}
	for _, e := range entries { // newest first; a twin by its exact name
		if byTrashPath && (e.TrashPath == want || e.file == want) || !byTrashPath && e.OriginalPath == want {
			return e, nil
		}
	}
	for _, e := range entries {
		if byTrashPath && note.HeadingKey(e.TrashPath) == note.HeadingKey(want) ||
			!byTrashPath && note.HeadingKey(e.OriginalPath) == note.HeadingKey(want) {
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
	e := &note.Error{Op: op, Path: shown, Kind: note.ErrNotFound, AltKind: "notes",
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

// EmptyReport says what EmptyTrash removed.
type EmptyReport struct {
	Removed []TrashEntry // deleted for good, newest first
	Kept    int          // younger than the cutoff, still in the trash
}

// EmptyTrash deletes for good the notes and attachments in the trash that
// were deleted more than olderThan ago (0: all of them), and the folders
// that leaves empty. It is for people (`vaultd trash empty`); no agent tool
// calls it. The texts of notes deleted through vaultd stay in the content
// store of the state dir, so history can still show them. Each removal is
// recorded in trash.jsonl (event "purge").
func (v *Vault) EmptyTrash(olderThan time.Duration) (*EmptyReport, error) {
	entries, err := v.Trash()
	if err != nil {
		return nil, err
	}
	cutoff := v.opts.Now().Add(-olderThan)
	rep := &EmptyReport{}
	for _, e := range entries {
		if olderThan > 0 && e.DeletedAt.After(cutoff) {
			rep.Kept++
			continue
		}
		if err := v.root.Remove(e.onDisk()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return rep, fmt.Errorf("remove %s from the trash: %s", e.TrashPath, errText(err))
		}
		rep.Removed = append(rep.Removed, e)
		if err := v.recordTrash(trashRecord{Event: "purge", TrashPath: e.TrashPath, OriginalPath: e.OriginalPath,
			Actor: v.opts.Actor, Version: e.Version}); err != nil {
			return rep, err
		}
	}
	// Attachments (and anything else) the list does not show go only when
	// emptying all; then the folders left empty.
	var dirs []string
	_ = fs.WalkDir(v.root.FS(), TrashDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		if olderThan == 0 && !IsNote(p) {
			v.root.Remove(p)
		}
		return nil
	})
	for i := len(dirs) - 1; i > 0; i-- { // deepest first; never .trash itself
		v.root.Remove(dirs[i]) // fails, harmlessly, unless empty
	}
	return rep, nil
}
