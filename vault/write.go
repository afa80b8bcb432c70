package vault

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vaultd/vaultd/note"
)

// writeState is the write side's part of a Vault. Its zero value is ready.
type writeState struct {
	locks   noteLocks
	seen    seenTexts    // the last complete text of each note (settle.go)
	heads   headsCache   // the history's last version of each note (historyHeads)
	damaged atomic.Int64 // torn history lines at the last reading (HistoryDamage)

	subsMu sync.Mutex
	subs   []func(paths ...string)

	// hook is nil except in the fault-injection test, which uses it to fail
	// one step of the write protocol ("sync", "rename", "link", "sync-dir",
	// "remove") or to act as an external writer between the computation and
	// the publish ("recheck"). It is called with the step and the
	// vault-relative name the step works on.
	hook func(step, name string) error
}

// maxRecompute bounds how often a write recomputes because the note changed
// between its read and its publish. Only writers outside vaultd (Obsidian,
// git, sync tools) can cause that — vaultd's own writers hold the note's
// lock — so that many rounds means something keeps rewriting the note.
// Each round waits a little longer (recomputeBackoff), to fall into a
// pause of the other writer.
const maxRecompute = 12

func recomputeBackoff(attempt int) time.Duration {
	return time.Duration(attempt+1) * time.Millisecond
}

// OnChange registers fn to be called after each write of this Vault has
// been published and recorded in history, before the write returns, with
// the vault-relative paths it changed (a restore or delete names the note's
// path, not the trash path). Subscribers run synchronously, in the order
// registered, without any lock held; the search index uses this to offer
// read-your-writes. fn must not block for long.
func (v *Vault) OnChange(fn func(paths ...string)) {
	v.w.subsMu.Lock()
	v.w.subs = append(v.w.subs, fn)
	v.w.subsMu.Unlock()
}

func (v *Vault) notify(paths ...string) {
	v.w.subsMu.Lock()
	subs := append([]func(...string){}, v.w.subs...)
	v.w.subsMu.Unlock()
	for _, fn := range subs {
		fn(paths...)
	}
}

func (v *Vault) step(step, name string) error {
	if h := v.w.hook; h != nil {
		return h(step, name)
	}
	return nil
}

// Create writes a new note at p with content, exactly as given.
//
// p goes through NotePath (".md" is added when missing). When p names no
// folder and a Policy is installed, Policy.PlaceNew decides the folder (the
// inbox rule). Missing folders are created. The write is checked with
// Policy.CheckWrite (New set) before it is published. The note is published
// without replacing anything: if a note appears at p between the check and
// the publish, Create fails rather than overwrite it.
//
// Errors (*Error, Op "create"): ErrInvalid (empty summary); ErrInvalidPath
// (a name that is not portable, a folder that differs only in case from an
// existing one — Alternatives holds the path in the existing folder);
// ErrExists (a note exists at p, also when it differs only in case or was
// created meanwhile; Current is its version when readable, Alternatives a
// free name nearby); ErrDenied from the Policy.
func (v *Vault) Create(p string, content []byte, o WriteOpts) (*Result, error) {
	return v.createAs("create", p, content, o)
}

// createAs is Create as operation op: "restore" for an undo that brings
// back a deleted note's text (the rules judge it as a restore, not as a
// new note).
func (v *Vault) createAs(op, p string, content []byte, o WriteOpts) (*Result, error) {
	c, err := v.notePath(p)
	if err != nil {
		return nil, withOp(err, op, "")
	}
	if o, err = v.writeOpts(op, c, o); err != nil {
		return nil, err
	}
	pol := v.Policy()
	if pol != nil && !o.Placed && note.FolderOf(c) == "" {
		if placed := pol.PlaceNew(c); placed != c {
			if c, err = note.NotePath(placed); err != nil {
				return nil, withOp(err, op, "")
			}
		}
	}
	if c, err = v.checkFolderCase(op, c); err != nil {
		return nil, err
	}

	unlock, err := v.lock(noteKey(c))
	if err != nil {
		return nil, ioErr(op, c, "could not lock the note", err)
	}
	res, err := v.create(op, c, content, o, pol)
	unlock()
	v.notifyIfChanged(res, c)
	return res, err
}

// notifyIfChanged tells the subscribers about a published write — also one
// whose history record failed afterwards (res is then returned with the
// error): the note did change.
func (v *Vault) notifyIfChanged(res *Result, paths ...string) {
	if res != nil && res.Before != res.After {
		v.notify(paths...)
	}
}

func (v *Vault) create(op, c string, content []byte, o WriteOpts, pol Policy) (*Result, error) {
	if err := v.refuseExisting(op, c); err != nil {
		return nil, err
	}
	if pol != nil {
		if err := pol.CheckWrite(WriteCheck{Op: op, Path: c, Content: content, New: true, Actor: o.Actor}); err != nil {
			return nil, withOp(err, op, c)
		}
	}
	if err := checkMarkers(op, nil, content); err != nil {
		return nil, withOp(err, op, c)
	}
	if err := checkNewText(op, c, content, o); err != nil {
		return nil, err
	}
	if dir := note.FolderOf(c); dir != "" {
		if err := v.root.MkdirAll(dir, 0o755); err != nil {
			return nil, ioErr(op, c, "could not create the folder "+dir, err)
		}
	}
	intent, err := v.intend(op, c, "", nil, content, o)
	if err != nil {
		return nil, err
	}
	tmp, err := v.writeTemp(c, content, 0o644, false)
	if err != nil {
		return nil, ioErr(op, c, "could not write the note", err)
	}
	if err := v.publishNew(tmp, c); err != nil {
		v.root.Remove(tmp)
		if errors.Is(err, fs.ErrExist) {
			e := v.existsError(op, c, c)
			e.Msg = "a note was created at this path meanwhile; it was left as it is"
			return nil, e
		}
		return nil, ioErr(op, c, "could not publish the note", err)
	}
	if err := v.syncDirOf(c); err != nil {
		return nil, ioErr(op, c, "the note was written but could not be made durable", err)
	}
	return v.finish(op, c, c, nil, content, "note created", o, "", intent)
}

// Append adds text to the note at p: at the end of the note when heading is
// "", else at the end of the section that heading opens ("Ziele",
// "## Ziele", "Projekte > Ziele"), after its sub-sections. Exactly one blank
// line separates the new text from what is before and after it; the text
// takes the note's line endings (CRLF notes stay CRLF) and the note ends
// with a line ending. Frontmatter and every other byte stay as they were.
//
// o.ExpectedVersion is optional and only checked for its form: an append
// commutes with edits elsewhere, even in the same section, so it is applied
// to the current text whatever changed since. If the note changes between
// the read and the publish (an editor outside vaultd), the append is
// recomputed on the new text.
//
// Errors (*Error, Op "append"): ErrInvalid (empty summary or text, a
// malformed version, text that would swallow the following headings);
// ErrInvalidPath; ErrNotFound (no such note — Alternatives the closest
// notes; or no such heading — Alternatives the note's headings);
// ErrAmbiguous (the heading matches several sections — Alternatives every
// candidate path); ErrDenied from the Policy.
func (v *Vault) Append(p, heading string, text []byte, o WriteOpts) (*Result, error) {
	return v.edit("append", p, o, func(cur []byte) ([]byte, string, error) {
		return note.AppendText(cur, heading, text)
	})
}

// UpdateSection replaces the body of the section that heading opens — from
// after its heading line to the next heading of the same or higher level,
// sub-sections included — with body, keeping the heading line. It never
// creates a heading: a missing heading is an error. A body that starts with
// the section's own heading line does not double it. The gap after the
// heading stays as it was; one blank line separates the body from the next
// heading; the note's line endings are kept.
//
// o.ExpectedVersion is optional. When given and the note has changed since,
// the edit is applied if the target section's text (heading line to end,
// ignoring trailing blank lines) is what it was at that version — other
// sections or the frontmatter may have changed, the section may have moved —
// and is a conflict if the section itself changed. What the section looked
// like at that version comes from the content store (see Content); when that
// version is unknown to it, the edit is a conflict too, since nothing tells
// whether the section changed. The same rule applies between this write's
// own read and its publish.
//
// Errors (*Error, Op "update_section"): ErrInvalid (empty summary, a
// malformed version, a body holding a heading of the section's level or
// higher, or one that would swallow the following headings); ErrInvalidPath;
// ErrNotFound and ErrAmbiguous as for Append (with Expected and Current set
// when the note changed since ExpectedVersion); ErrConflict (the section
// changed: Expected, Current and CurrentSection set); ErrDenied.
func (v *Vault) UpdateSection(p, heading string, body []byte, o WriteOpts) (*Result, error) {
	const op = "update_section"
	// base is the text the edit is based on: ExpectedVersion's, else the
	// first read. A recompute (the note changed before the publish) checks
	// the section against it again.
	var (
		base     []byte
		baseErr  error
		haveBase bool
	)
	return v.edit(op, p, o, func(cur []byte) ([]byte, string, error) {
		curV := note.Version(cur)
		rebased := false
		if !haveBase {
			haveBase = true
			if o.ExpectedVersion == "" || note.SameVersion(o.ExpectedVersion, curV) {
				base = cur
			} else {
				base, baseErr = v.Content(o.ExpectedVersion)
			}
		}
		d := note.Parse(cur)
		h, err := d.Section(heading)
		if err != nil {
			if e, ok := note.AsError(err); ok && !bytes.Equal(base, cur) && o.ExpectedVersion != "" {
				e.Expected, e.Current = strings.TrimSpace(o.ExpectedVersion), note.ShortVersion(curV)
				e.Msg += fmt.Sprintf(" (the note changed since version %s)", note.ShortVersion(e.Expected))
			}
			return nil, "", err
		}
		if !bytes.Equal(base, cur) {
			given := strings.TrimSpace(o.ExpectedVersion)
			if given == "" {
				given = note.ShortVersion(note.Version(base))
			}
			conflict := &note.Error{Kind: note.ErrConflict, Expected: given, Current: note.ShortVersion(curV),
				CurrentSection: string(d.SectionText(h))}
			if baseErr != nil {
				conflict.Msg = fmt.Sprintf("the note changed since version %s, and the text of that version is not known, so it cannot be told whether section %q changed; it is now at version %s",
					note.ShortVersion(given), h.PathString(), conflict.Current)
				return nil, "", conflict
			}
			old := note.Parse(base)
			oh, err := old.Section(heading)
			if err != nil || !bytes.Equal(trimSection(old.SectionText(oh)), trimSection(d.SectionText(h))) {
				conflict.Msg = fmt.Sprintf("section %q changed since version %s; it is now at version %s",
					h.PathString(), note.ShortVersion(given), conflict.Current)
				return nil, "", conflict
			}
			rebased = true
		}
		next, err := note.ReplaceBody(cur, h, body)
		if err != nil {
			return nil, "", err
		}
		detail := fmt.Sprintf("section %q replaced", h.PathString())
		if bytes.Equal(next, cur) {
			detail = fmt.Sprintf("section %q already had this text", h.PathString())
		} else if rebased {
			detail += fmt.Sprintf("; other parts of the note had changed since version %s and were kept",
				note.ShortVersion(strings.TrimSpace(orDefault(o.ExpectedVersion, note.Version(base)))))
		}
		return next, detail, nil
	})
}

// trimSection drops the blank lines at the end of a section's text: they
// separate it from the next section and change when the section moves.
func trimSection(b []byte) []byte { return b[:note.TrimBlankTail(b, 0)] }

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// Replace replaces the whole content of the note at p with content, exactly
// as given. o.ExpectedVersion is required: the version the caller read, so
// that no edit made since is overwritten unseen.
//
// Errors (*Error, Op "replace"): ErrInvalid (empty summary, missing or
// malformed version); ErrInvalidPath; ErrNotFound (Alternatives the closest
// notes); ErrConflict (the note is no longer at that version: Expected and
// Current set); ErrDenied.
func (v *Vault) Replace(p string, content []byte, o WriteOpts) (*Result, error) {
	const op = "replace"
	if strings.TrimSpace(o.ExpectedVersion) == "" {
		c, _ := note.NotePath(p)
		return nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalid,
			Msg: "replacing a note needs the version you read: read the note first and pass its version"}
	}
	return v.edit(op, p, o, func(cur []byte) ([]byte, string, error) {
		if curV := note.Version(cur); !note.SameVersion(o.ExpectedVersion, curV) {
			return nil, "", conflictError(o.ExpectedVersion, curV)
		}
		if bytes.Equal(cur, content) {
			return cur, "the note already had this content", nil
		}
		return content, "note replaced", nil
	})
}

func conflictError(expected, current string) *note.Error {
	e := &note.Error{Kind: note.ErrConflict, Expected: strings.TrimSpace(expected), Current: note.ShortVersion(current)}
	e.Msg = fmt.Sprintf("the note changed since version %s was read; it is now at version %s", note.ShortVersion(e.Expected), e.Current)
	return e
}

// editFunc computes a note's new bytes from its current bytes and says what
// it did. It must be pure: it may run more than once.
type editFunc func(cur []byte) (next []byte, detail string, err error)

// edit runs the write protocol (DESIGN-NOTES.md) for a write to an existing
// note: validate, lock, read, compute, temp file, re-check (recompute if the
// note changed), publish, fsync, re-read, record, notify.
func (v *Vault) edit(op, p string, o WriteOpts, fn editFunc) (*Result, error) {
	c, err := v.notePath(p)
	if err != nil {
		return nil, withOp(err, op, "")
	}
	if o, err = v.writeOpts(op, c, o); err != nil {
		return nil, err
	}
	c, real, err := v.existing(op, c)
	if err != nil {
		return nil, err
	}
	unlock, err := v.lock(noteKey(real))
	if err != nil {
		return nil, ioErr(op, c, "could not lock the note", err)
	}
	res, err := v.editLocked(op, c, real, o, fn)
	unlock()
	v.notifyIfChanged(res, c)
	return res, err
}

func (v *Vault) editLocked(op, c, real string, o WriteOpts, fn editFunc) (*Result, error) {
	pol := v.Policy()
	redone := ""
	for attempt := 0; ; attempt++ {
		again := func(now []byte) error {
			if attempt+1 < maxRecompute {
				return nil
			}
			e := conflictError(note.Version(now), note.Version(now))
			e.Op, e.Path, e.Kind = op, c, ErrBusy
			e.Msg = "the note keeps being changed by another program while vaultd writes it; nothing was changed. Retry in a few seconds"
			return e
		}
		cur, fi, err := v.readSettled(op, c, real)
		if err != nil {
			return nil, err
		}
		if err := checkText(op, c, cur, o); err != nil {
			return nil, err
		}
		next, detail, err := fn(cur)
		if err != nil {
			return nil, withOp(err, op, c)
		}
		if err := checkNewText(op, c, next, o); err != nil && !bytes.Equal(next, cur) {
			return nil, err
		}
		if bytes.Equal(next, cur) {
			ver := note.Version(cur)
			return &Result{Note: NewNote(c, cur, fi.ModTime(), fi.Size()), Before: ver, After: ver,
				Detail: "nothing changed: " + detail}, nil
		}
		if pol != nil {
			if err := pol.CheckWrite(WriteCheck{Op: op, Path: c, Content: next, Actor: o.Actor}); err != nil {
				return nil, withOp(err, op, c)
			}
		}
		if err := checkMarkers(op, cur, next); err != nil {
			return nil, withOp(err, op, c)
		}
		if o.Check != nil {
			if err := o.Check(WriteCheck{Op: op, Path: c, Content: next, Actor: o.Actor, Before: cur}); err != nil {
				return nil, withOp(err, op, c)
			}
		}
		// Both texts are kept, and the intent recorded, before anything is
		// published: a write that cannot keep them changes nothing.
		intent, err := v.intend(op, c, "", cur, next, o)
		if err != nil {
			return nil, err
		}
		tmp, err := v.writeTemp(real, next, fi.Mode().Perm(), true)
		if err != nil {
			return nil, ioErr(op, c, "could not write the note", err)
		}
		dir, err := v.root.Open(dirOrDot(path.Dir(real)))
		if err != nil {
			v.root.Remove(tmp)
			return nil, ioErr(op, c, "could not open the note's folder", err)
		}
		// Re-check: never overwrite what was not read. The bytes are
		// compared, and the file's identity, size and mtime: a same-size
		// edit within one mtime tick, or an in-place save that has only
		// begun, must not pass unseen.
		if err := v.step("recheck", c); err != nil {
			dir.Close()
			v.root.Remove(tmp)
			return nil, ioErr(op, c, "could not check the note again", err)
		}
		now, held, err := v.recheck(op, c, real, cur, fi)
		if err != nil || held == nil {
			dir.Close()
			v.root.Remove(tmp)
			if err != nil {
				return nil, err
			}
			if err := again(now); err != nil {
				return nil, err
			}
			time.Sleep(recomputeBackoff(attempt))
			continue // recompute on what is there now
		}
		kept, pub, err := v.publishOver(dir, tmp, real, cur, fi, next, held)
		dir.Close()
		defer pub.release()
		if errors.Is(err, errDisplaced) {
			if err := again(cur); err != nil {
				return nil, err
			}
			time.Sleep(recomputeBackoff(attempt))
			continue
		}
		if err != nil {
			return nil, ioErr(op, c, "could not publish the note", err)
		}
		if err := v.syncDirOf(real); err != nil {
			return nil, ioErr(op, c, "the note was written but could not be made durable", err)
		}
		if kept != nil {
			// No atomic exchange here: another program's save was
			// displaced at the last moment. Its text is kept; say so.
			if _, err := v.record(Change{Op: "external", Path: c, Actor: "external", Before: note.Version(cur), After: note.Version(kept),
				Summary: "saved by another program at the moment of a vaultd write, which replaced it; its text is kept here"}, kept); err == nil {
				cur = kept
				detail += fmt.Sprintf("; another program saved the note at the same moment: its text is kept in the history as version %s", note.ShortVersion(note.Version(kept)))
			}
		}
		res, lacked, err := v.finishOver(op, c, real, cur, next, detail+redone, o, "", intent, pub)
		if err != nil || !lacked || op != "append" || attempt+1 >= maxRecompute {
			return res, err
		}
		// An in-place save made from the text before this append replaced
		// it right after: appends commute, so it is made again on that
		// save (both writes and the save are in the history).
		redone = "; another program saved the note in place right after, from its text before this append: appended again to that save"
	}
}

// finish re-reads what was published, records the change in history (under
// the ID of its intent) and builds the Result. before is nil for a new
// note. The texts were stored by intend before the publish.
func (v *Vault) finish(op, c, real string, before, next []byte, detail string, o WriteOpts, oldPath, intent string) (*Result, error) {
	res, _, err := v.finishOver(op, c, real, before, next, detail, o, oldPath, intent, nil)
	return res, err
}

// finishOver is finish for a write whose published file pub still holds
// (publishOver, released once the note is read back). It also says
// whether an in-place save that began on the published note replaced it
// with a text made without the write's insertion (lacked): an append is
// then made again on that save.
func (v *Vault) finishOver(op, c, real string, before, next []byte, detail string, o WriteOpts, oldPath, intent string, pub *heldFile) (res *Result, lacked bool, err error) {
	after, fi, waiting, settled, err := v.readPublished(op, c, real, next, pub)
	if err != nil {
		waiting.release()
		return nil, false, ioErr(op, c, "the note was written but could not be read back", err)
	}
	if bytes.Equal(after, next) {
		// (A text another program wrote right after is not known complete.)
		v.w.seen.put(real, after, fi)
	}
	ch := Change{ID: intent, Op: op, Path: c, OldPath: oldPath, Summary: o.Summary, Actor: o.Actor, After: note.Version(next), Group: o.group}
	if before != nil {
		ch.Before = note.Version(before)
	}
	res = &Result{Note: NewNote(v.canon(c), after, fi.ModTime(), fi.Size()), Before: ch.Before, After: note.Version(after), Detail: detail}
	ch, err = v.record(ch, before, next)
	res.ChangeID = ch.ID
	res.Detail += gitDetail(ch.Git)
	if err != nil {
		waiting.release()
		return res, false, recordErr(op, c, res.After, err)
	}
	if waiting != nil {
		// Another program opened the published note to save it in place
		// and waited until vaultd had read it back. Its save is part of
		// this write's outcome: wait for it, and record it complete.
		s, sfi, ok := v.savedOver(op, c, real, next, waiting)
		if !ok {
			res.Detail += "; another program is saving the note in place right now: read the note again in a few seconds"
			return res, false, nil
		}
		if bytes.Equal(s, next) {
			return res, false, nil
		}
		after, settled = s, true
		res.Note, res.After = NewNote(nfc(c), s, sfi.ModTime(), sfi.Size()), note.Version(s)
		lacked = before != nil && lacksInsertion(before, next, s)
	}
	switch {
	case bytes.Equal(after, next):
	case !settled:
		// Still being saved in place: what is there now is no one's
		// text; the next write or start records the save once done.
		res.Detail += "; another program is saving the note in place right now: read the note again in a few seconds"
	default:
		// Someone outside vaultd wrote the note right after the publish:
		// record their version as an external change, so that history
		// explains the version returned and ours stays recoverable.
		if _, err := v.record(Change{Op: "external", Path: c, Actor: "external",
			Summary: "changed outside vaultd right after a write", Before: ch.After, After: res.After}, after); err != nil {
			return res, false, recordErr(op, c, res.After, err)
		}
		res.Detail += "; the note was changed again by another program right after"
	}
	return res, lacked, nil
}

func recordErr(op, c, ver string, err error) error {
	return &note.Error{Op: op, Path: c, Err: err,
		Msg: fmt.Sprintf("the note was written (version %s) but its history record could not be saved: %s", note.ShortVersion(ver), errText(err))}
}

// writeOpts checks the options every write needs and fills in defaults.
func (v *Vault) writeOpts(op, c string, o WriteOpts) (WriteOpts, error) {
	o.Summary = strings.Join(strings.Fields(o.Summary), " ")
	if o.Summary == "" {
		return o, &note.Error{Op: op, Path: c, Kind: note.ErrInvalid,
			Msg: "change_summary is required: say in one line what you changed and why"}
	}
	if o.Actor = strings.TrimSpace(o.Actor); o.Actor == "" {
		o.Actor = v.opts.Actor
	}
	if given := strings.TrimSpace(o.ExpectedVersion); given != "" && !isVersionLike(given) {
		return o, &note.Error{Op: op, Path: c, Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("%q is not a version: give the version (%d or more hex characters) you got when you read the note", given, note.ShortVersionLen)}
	}
	return o, nil
}

// isVersionLike reports whether s can name a version: 12 to 64 hex digits.
func isVersionLike(s string) bool {
	if len(s) < note.ShortVersionLen || len(s) > 64 {
		return false
	}
	for _, r := range strings.ToLower(s) {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// existing finds the note a write addresses: c itself, or the note whose
// name differs from c only in case (as Read does). It returns the path to
// report and the real file to write (c with symlinks resolved).
func (v *Vault) existing(op, c string) (string, string, error) {
	raw := c
	if _, err := v.root.Lstat(c); errors.Is(err, fs.ErrNotExist) {
		m := v.matchFolded(c, false)
		switch len(m) {
		case 0:
			return "", "", v.notFound(op, c)
		case 1:
			c, raw = m[0].canon, m[0].raw
		default: // twins (twins.go): never written through another's name
			return "", "", twinsError(op, c, m)
		}
	}
	real, fi, err := v.resolveLink(op, raw)
	if err != nil {
		return "", "", err
	}
	if fi == nil {
		if real != raw {
			return "", "", &note.Error{Op: op, Path: c, Kind: note.ErrNotFound,
				Msg: fmt.Sprintf("is a symbolic link to %q, which does not exist", real)}
		}
		return "", "", v.notFound(op, c)
	}
	return c, real, nil
}

// resolveLink follows c through symbolic links inside the vault and returns
// the real file and its Lstat info (nil when it does not exist). A write to
// a linked note writes the target atomically and keeps the link; renaming
// over the link itself would silently turn it into a copy. Links that leave
// the vault, folders and special files (FIFOs, sockets, devices) are refused
// with ErrInvalidPath.
func (v *Vault) resolveLink(op, c string) (string, fs.FileInfo, error) {
	real, err := v.root.reach(c, followLast)
	if err != nil {
		return "", nil, withOp(err, op, c)
	}
	fi, err := v.root.r.Lstat(real)
	if errors.Is(err, fs.ErrNotExist) {
		return real, nil, nil
	}
	if err != nil {
		return "", nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalidPath, Msg: "cannot be reached inside the vault", Err: err}
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
		return real, fi, nil
	case m.IsDir():
		return "", nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalidPath, Msg: "is a folder, not a note"}
	}
	return "", nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalidPath, Msg: "is not a regular file (a pipe, socket or device); vaultd only writes regular files"}
}

// readNote reads the real file of note c and its info. A missing file is
// ErrNotFound (it was removed meanwhile).
func (v *Vault) readNote(op, c, real string) ([]byte, fs.FileInfo, error) {
	f, err := v.root.OpenFile(real, readFlags, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, v.notFound(op, c)
	}
	if err != nil {
		return nil, nil, ioErr(op, c, "could not read the note", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, ioErr(op, c, "could not read the note", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalidPath, Msg: "is not a regular file; vaultd only writes regular files"}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, ioErr(op, c, "could not read the note", err)
	}
	return b, fi, nil
}

// writeTemp writes data to a new dot-prefixed temp file next to real (same
// folder, so same file system: the rename is atomic), invisible to Obsidian
// and git, with mode perm, synced unless NoSync. It returns the temp's
// vault-relative name. exact asks for perm exactly, bypassing the umask (a
// rewritten note keeps its mode).
func (v *Vault) writeTemp(real string, data []byte, perm fs.FileMode, exact bool) (string, error) {
	dir := path.Dir(real)
	var (
		f    *os.File
		name string
		err  error
	)
	for range 10 {
		name = path.Join(dir, ".vaultd-"+randHex(8)+".tmp")
		f, err = v.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		f.Close()
		v.root.Remove(name)
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if exact {
		if err := f.Chmod(perm); err != nil {
			return fail(err)
		}
	}
	if !v.opts.NoSync {
		if err := v.step("sync", name); err != nil {
			return fail(err)
		}
		// An fsync error means the data may not be on disk; the write
		// fails and the descriptor is not retried (fsyncgate).
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		v.root.Remove(name)
		return "", err
	}
	return name, nil
}

// publishNew publishes the temp file tmp as the new note c without ever
// replacing a file at c: a hard link fails with ErrExist when c exists,
// atomically. File systems without hard links (some FUSE and FAT mounts)
// fall back to a check then a rename, which leaves a window of microseconds.
func (v *Vault) publishNew(tmp, c string) error {
	if err := v.step("link", c); err != nil {
		return err
	}
	err := v.root.Link(tmp, c)
	switch {
	case err == nil:
		return v.root.Remove(tmp)
	case errors.Is(err, fs.ErrExist), errors.Is(err, fs.ErrNotExist):
		return err
	}
	if _, lerr := v.root.Lstat(c); lerr == nil {
		return fs.ErrExist
	}
	return v.root.Rename(tmp, c)
}

// syncDirOf fsyncs the folder holding the vault path p, making a rename or
// link in it durable.
func (v *Vault) syncDirOf(p string) error {
	return v.syncDirIn(v.root, path.Dir(p))
}

// dirOpener is a root folders can be opened in: the vault's or the state dir's.
type dirOpener interface {
	Open(name string) (*os.File, error)
}

func (v *Vault) syncDirIn(r dirOpener, dir string) error {
	if v.opts.NoSync {
		return nil
	}
	if err := v.step("sync-dir", dir); err != nil {
		return err
	}
	f, err := r.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return syncDir(f)
}

// checkFolderCase refuses to create a folder that differs only in case
// from an existing one: on Windows and macOS both would be the same folder,
// and a vault synced there would merge or lose one of them. It returns c
// with each existing folder spelled as on disk: a folder stored decomposed
// (as macOS leaves "Ü") is the same folder as its composed spelling, and a
// write into it must not make a second, identical-looking twin.
func (v *Vault) checkFolderCase(op, c string) (string, error) {
	dir := note.FolderOf(c)
	if dir == "" {
		return c, nil
	}
	parts := strings.Split(dir, "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		if _, err := v.root.Lstat(prefix); err == nil {
			continue
		}
		parent := note.FolderOf(prefix)
		if parent == "" {
			parent = "."
		}
		entries, err := fs.ReadDir(v.root.FS(), parent)
		if err != nil {
			break
		}
		want := note.HeadingKey(parts[i])
		found := false
		for _, e := range entries {
			if e.IsDir() && nfc(e.Name()) == nfc(parts[i]) {
				parts[i], found = e.Name(), true // the same folder, stored in another normal form
				break
			}
		}
		if found {
			continue
		}
		for _, e := range entries {
			if e.IsDir() && note.HeadingKey(e.Name()) == want {
				existing := nfc(path.Join(path.Dir(prefix), e.Name()))
				fixed := existing + strings.TrimPrefix(c, prefix)
				return "", &note.Error{Op: op, Path: c, Kind: note.ErrInvalidPath,
					Msg:          fmt.Sprintf("folder %q differs only in case from the existing folder %q; Windows and macOS cannot keep both", nfc(prefix), existing),
					Alternatives: []string{fixed}, AltKind: "notes"}
			}
		}
		break // the rest does not exist yet
	}
	return strings.Join(parts, "/") + "/" + path.Base(c), nil
}

// refuseExisting returns ErrExists when a note exists at c, also under a
// name that differs from c only in case.
func (v *Vault) refuseExisting(op, c string) error {
	if _, err := v.root.Lstat(c); err == nil {
		return v.existsError(op, c, c)
	}
	if real, ok := v.findCaseInsensitive(c); ok {
		e := v.existsError(op, c, real)
		if nfc(real) == nfc(c) && c == nfc(c) {
			return e // the same name, stored in another Unicode normal form
		}
		if nfc(real) == nfc(c) { // c spelled a twin (twins.go) that is not there
			e.Msg = fmt.Sprintf("the note %q is in the way: its name differs from this one only in Unicode normalisation, and Windows and macOS cannot keep both, so vaultd makes no such twin", real)
			return e
		}
		e.Msg = fmt.Sprintf("the note %q already exists, and its name differs only in case; Windows and macOS cannot keep both", nfc(real))
		e.Alternatives, e.AltKind = []string{real}, "notes"
		return e
	}
	return nil
}

// existsError is ErrExists for c, where the note at existing is in the way:
// it carries that note's version and a free name nearby.
func (v *Vault) existsError(op, c, existing string) *note.Error {
	e := &note.Error{Op: op, Path: c, Kind: ErrExists, Msg: "a note already exists at this path",
		Alternatives: []string{v.freeName(c)}, AltKind: "free paths"}
	if b, err := v.root.ReadFile(existing); err == nil {
		e.Current = note.ShortVersion(note.Version(b))
		e.Msg = fmt.Sprintf("a note already exists at this path (version %s)", e.Current)
	}
	return e
}

// freeName returns the first of "Name 2.md", "Name 3.md", … in p's folder
// that no note takes (the way Obsidian names copies); "Name 2.md" itself
// continues with "Name 3.md".
func (v *Vault) freeName(p string) string {
	dir, base := path.Split(p)
	ext := path.Ext(base)
	stem, start := copyStem(strings.TrimSuffix(base, ext))
	for n := start; ; n++ {
		cand := fmt.Sprintf("%s%s %d%s", dir, stem, n, ext)
		if _, err := v.root.Lstat(cand); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if _, ok := v.findCaseInsensitive(cand); ok {
			continue
		}
		return cand
	}
}

// withOp sets Op (and Path, when given) on a domain error from a helper.
func withOp(err error, op, c string) error {
	e, ok := note.AsError(err)
	if !ok {
		return err
	}
	cp := *e
	cp.Op = op
	if c != "" {
		cp.Path = c
	}
	return &cp
}

// ioErr wraps a file-system failure. The message names the note by its
// vault path and the cause without host paths.
func ioErr(op, c, what string, err error) error {
	if e, ok := note.AsError(err); ok {
		return withOp(e, op, c)
	}
	if escapes(err) {
		return &note.Error{Op: op, Path: c, Kind: note.ErrInvalidPath, Err: err,
			Msg: "leads outside the vault through a symbolic link; vaultd does not write outside the vault"}
	}
	return &note.Error{Op: op, Path: c, Msg: what + ": " + errText(err), Err: err}
}

// escapes reports whether os.Root refused a path because it leaves the
// root. os does not export that error, so its text is matched.
func escapes(err error) bool {
	return err != nil && strings.Contains(errText(err), "path escapes from parent")
}

// errText is an error's text without the file name a *PathError carries
// (which could be a host path).
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// staleTempAge is how old a leftover temp file must be before Recover
// removes it: far longer than any write takes, so a temp another vaultd
// process is writing right now is never touched.
const staleTempAge = time.Minute

// copyStem splits "Plan 2" into "Plan" and the next number, 3; a name
// without a number gives itself and 2.
func copyStem(stem string) (string, int) {
	i := strings.LastIndexByte(stem, ' ')
	if i <= 0 {
		return stem, 2
	}
	var n int
	if _, err := fmt.Sscanf(stem[i+1:], "%d", &n); err != nil || n < 1 || fmt.Sprint(n) != stem[i+1:] {
		return stem, 2
	}
	return stem[:i], n + 1
}

// plural renders "1 line", "3 lines".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
