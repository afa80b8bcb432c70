package vault

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"time"

	"github.com/vaultd/vaultd/note"
)

// Another program's in-place save is a truncating open, then writes, then
// a close, on whatever file the note's name points to at the open. From
// the outside, a pause in that save (the program waiting on the disk, or
// not scheduled for a few milliseconds) looks like a finished save, and a
// save whose open reached the note's file just before vaultd exchanged it
// goes on into the displaced file, which is no longer the note. Timings
// cannot tell these apart; the kernel can. On Linux a read lease on a file
// (lease_linux.go) is refused while any process has the file open for
// writing, and while it is held, another process's open of the file for
// writing, or truncate, waits until vaultd lets go and shows as a lease
// being broken. So a write:
//
//   - settles only on a text no program has open for writing, read while
//     none began to (readSettled);
//   - holds the lease on the note's file from its last look until the
//     exchange is decided: a save that began on that file meanwhile waits
//     in its open, and the file is put back as the note before the save
//     goes on, into the note (publishOver); one that reaches the file only
//     as it is removed is waited for and its text put back (putBackLate);
//   - holds a lease on its own new file from before the exchange until it
//     has read the published note back: a save that begins on the
//     published note meanwhile waits, and history records vaultd's text,
//     never the empty note such a save goes through. Then the save goes
//     on; the write waits for it and records it whole as another
//     program's change, and an append that save lacks (it was made from
//     the text before) is made again on it (finishOver).
//
// A save that begins after the write has let go of its file replaces the
// write if its program read the note before: that is the program's doing,
// as with any save of an older text, and the write stays in the history.
//
// Where leases are not available (other systems, a file owned by another
// user, file systems that do not keep them) heldFile says so and the
// checks of settle.go decide alone.

// leaseState is what a read lease says about a file's writers.
type leaseState int

const (
	leaseUnknown leaseState = iota // no lease on this system or file system, or not the caller's file
	leaseHeld                      // held: no other program had the file open for writing
	leaseWriting                   // refused: another program has the file open for writing
)

// A heldFile is a file kept open read-only, with a read lease where one
// could be taken. A nil *heldFile holds nothing.
type heldFile struct {
	f     *os.File
	state leaseState
}

// hold opens the vault file p read-only (never blocking: a FIFO put in
// its place must not hang a write) and takes a read lease on it.
func (v *Vault) hold(p string) (*heldFile, error) {
	f, err := v.root.OpenFile(p, readFlags, 0)
	if err != nil {
		return nil, err
	}
	return &heldFile{f: f, state: leaseRead(f)}, nil
}

// writing reports whether another program has the file open for writing,
// or is waiting to open it for writing or to truncate it.
func (h *heldFile) writing() bool {
	if h == nil || h.f == nil {
		return false
	}
	return h.state == leaseWriting || h.state == leaseHeld && leaseBreaking(h.f)
}

// release lets a program waiting on the lease go on and closes the file.
func (h *heldFile) release() {
	if h == nil || h.f == nil {
		return
	}
	if h.state == leaseHeld {
		leaseRelease(h.f)
	}
	h.f.Close()
	h.f = nil
}

// text reads the whole file from the start.
func (h *heldFile) text() ([]byte, fs.FileInfo, error) {
	fi, err := h.f.Stat()
	if err != nil {
		return nil, nil, err
	}
	b, err := io.ReadAll(io.NewSectionReader(h.f, 0, 1<<62))
	return b, fi, err
}

// readHeld reads the real file of note c as readNote does, from a
// descriptor it keeps with a read lease. The caller releases it. writing
// on the result tells whether another program had the file open for
// writing, or began to open it for writing during the read: the text may
// be cut short.
func (v *Vault) readHeld(op, c, real string) ([]byte, fs.FileInfo, *heldFile, error) {
	h, err := v.hold(real)
	if err != nil {
		// readNote says why, with the error an edit returns.
		b, fi, err := v.readNote(op, c, real)
		if err == nil {
			return b, fi, nil, nil
		}
		return nil, nil, nil, err
	}
	fi, err := h.f.Stat()
	if err != nil {
		h.release()
		return nil, nil, nil, ioErr(op, c, "could not read the note", err)
	}
	if !fi.Mode().IsRegular() {
		h.release()
		return nil, nil, nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalidPath, Msg: "is not a regular file; vaultd only writes regular files"}
	}
	b, err := io.ReadAll(h.f)
	if err != nil {
		h.release()
		return nil, nil, nil, ioErr(op, c, "could not read the note", err)
	}
	return b, fi, h, nil
}

// readUnwritten is readHeld for a look that keeps nothing: the lease is
// released before it returns.
func (v *Vault) readUnwritten(op, c, real string) (b []byte, fi fs.FileInfo, writing bool, err error) {
	b, fi, h, err := v.readHeld(op, c, real)
	writing = h.writing()
	h.release()
	return b, fi, writing, err
}

// recheck is the write's last look at note c before its publish: the
// note's file must still be the one read (inode, size, mtime), hold the
// text read (cur), and have no program writing it. It returns the file
// held, with its lease kept for publishOver, or nil and what is there now
// when the write must recompute.
func (v *Vault) recheck(op, c, real string, cur []byte, curFi fs.FileInfo) (now []byte, held *heldFile, err error) {
	now, nowFi, h, err := v.readHeld(op, c, real)
	if err != nil {
		return nil, nil, err
	}
	if h.writing() || !bytes.Equal(now, cur) || !sameFile(curFi, nowFi) {
		h.release()
		return now, nil, nil
	}
	if h == nil {
		h = &heldFile{} // no descriptor to hold: publishOver inspects by name
	}
	return now, h, nil
}

// dropDisplaced removes the file at the temp name p, which an exchange
// displaced from the note's name and h holds, once its text is kept: a
// program that opened it for writing while it was the note (and waits on
// the lease, or writes) is let go and waited for, up to settleMax, and a
// text other than expect is kept in the content store. A file still being
// written after that stays at its temp name, for a person to see.
func (v *Vault) dropDisplaced(p string, h *heldFile, expect []byte) {
	defer h.release()
	if h == nil || h.f == nil {
		if d, _, err := v.readFile(p); err == nil && !bytes.Equal(d, expect) {
			_ = v.storeContent(d)
		}
		v.root.Remove(p)
		return
	}
	if h.writing() {
		if h.state == leaseHeld {
			leaseRelease(h.f)
		}
		deadline := time.Now().Add(settleMax)
		for h.state = leaseRead(h.f); h.state == leaseWriting && time.Now().Before(deadline); h.state = leaseRead(h.f) {
			time.Sleep(settlePoll)
		}
	}
	d, _, err := h.text()
	if err == nil && !bytes.Equal(d, expect) {
		_ = v.storeContent(d)
	}
	if h.writing() {
		return
	}
	v.root.Remove(p)
}

// readPublished reads note c back after a write published next, while pub
// (the published file, held since before the exchange) still keeps any
// in-place save waiting. A save that was waiting is let go, and returned
// as waiting (its file still open) for savedOver. Without a lease, a text
// other than next that an in-place save may still be writing is waited for
// (readSettled), so that what history records as another program's is
// that program's save, not the empty note it went through; if it does not
// settle, settled is false.
func (v *Vault) readPublished(op, c, real string, next []byte, pub *heldFile) (after []byte, fi fs.FileInfo, waiting *heldFile, settled bool, err error) {
	after, fi, err = v.readNote(op, c, real)
	if pub.writing() {
		leaseRelease(pub.f)
		pub.state = leaseUnknown
		return after, fi, pub, true, err
	}
	defer pub.release()
	if err != nil || bytes.Equal(after, next) {
		return after, fi, nil, true, err
	}
	if pub != nil && pub.state == leaseHeld {
		// The published file cannot have changed in place while held:
		// another program replaced it with a complete file.
		return after, fi, nil, true, nil
	}
	if pub != nil && pub.f != nil {
		if pfi, err := pub.f.Stat(); err == nil {
			v.w.seen.put(real, next, pfi)
		}
	}
	s, sfi, serr := v.readSettled(op, c, real)
	if serr != nil {
		return after, fi, nil, false, nil
	}
	return s, sfi, nil, true, nil
}

// savedOver waits for the in-place save that began on the file a write
// published (w, from readPublished), up to settleMax, and returns the
// note's text once it has settled; ok is false if it did not.
func (v *Vault) savedOver(op, c, real string, next []byte, w *heldFile) (text []byte, fi fs.FileInfo, ok bool) {
	defer w.release()
	deadline := time.Now().Add(settleMax)
	for w.state = leaseRead(w.f); w.state == leaseWriting && time.Now().Before(deadline); w.state = leaseRead(w.f) {
		time.Sleep(settlePoll)
	}
	if w.state == leaseWriting {
		return nil, nil, false
	}
	if pfi, err := w.f.Stat(); err == nil {
		v.w.seen.put(real, next, pfi)
	}
	text, fi, err := v.readSettled(op, c, real)
	return text, fi, err == nil
}

// lacksInsertion reports whether next is before with text inserted at one
// place (an append) and text, a later version of the note, holds that
// insertion fewer times than next does: it was made from a text without
// it.
func lacksInsertion(before, next, text []byte) bool {
	p := 0
	for p < len(before) && p < len(next) && before[p] == next[p] {
		p++
	}
	q := 0
	for q < len(before)-p && q < len(next)-p && before[len(before)-1-q] == next[len(next)-1-q] {
		q++
	}
	ins := next[p : len(next)-q]
	if len(ins) == 0 || p+q != len(before) {
		return false
	}
	return bytes.Count(text, ins) < bytes.Count(next, ins)
}

// putBackLate keeps the save of a program that opened the note's file for
// writing as publishOver removed it, displaced: held is that file, pub the
// published one, now the note (with stat nextFi). The program is let go and
// waited for (up to settleMax); its text is kept in the content store and,
// once it is complete, published in place of vaultd's, which the write then
// recomputes on it (errDisplaced). A note replaced again meanwhile keeps
// the newer text.
func (v *Vault) putBackLate(dir *os.File, real string, held, pub *heldFile, nextFi fs.FileInfo, perm fs.FileMode, next []byte) error {
	defer pub.release()
	leaseRelease(held.f)
	deadline := time.Now().Add(settleMax)
	for held.state = leaseRead(held.f); held.state == leaseWriting && time.Now().Before(deadline); held.state = leaseRead(held.f) {
		time.Sleep(settlePoll)
	}
	text, _, err := held.text()
	if err != nil || v.storeContent(text) != nil || held.writing() {
		return errDisplaced
	}
	tmp, err := v.writeTemp(real, text, perm, true)
	if err != nil {
		return errDisplaced
	}
	if !unchangedIn(dir, path.Base(real), nextFi) || exchangeIn(dir, path.Base(tmp), path.Base(real)) != nil {
		v.root.Remove(tmp)
		return errDisplaced
	}
	v.dropDisplaced(tmp, pub, next)
	return errDisplaced
}
