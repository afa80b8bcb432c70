package vault

import (
	"io"
	"io/fs"
	"os"

	"github.com/vaultd/vaultd/note"
)

// Another program's in-place save is a truncating open, then writes, then
// a close. From the outside, a pause in that save (the program waiting on
// the disk, or not scheduled for a few milliseconds) looks like a finished
// save: a text cut at a line end reads like a whole, shorter note. Timings
// cannot tell these apart; the kernel can. On Linux a read lease on a file
// (lease_linux.go) is refused while any process has the file open for
// writing, and while it is held, another process's open of the file for
// writing, or truncate, waits until vaultd lets go and shows as a lease
// being broken. So a write settles only on a text no program has open for
// writing, read while none began to (readSettled).
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
