package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/vaultd/vaultd/note"
)

// A write never builds on a text that another program is still writing.
//
// Editors that save in place (VS Code, vim with backupcopy=yes, `cat >
// note`) truncate the file, then write it: for a moment the note reads
// empty or short. A write built on that moment would publish the note as
// only its own change, and the editor's save, still going into the old
// file, would be lost with it. So the text a write builds on must have
// settled:
//
//   - while another program has the note's file open for writing, no
//     text has, where the system can tell (a read lease, held.go): a save
//     is under way, however whole the text looks;
//   - a text vaultd saw last (its own write, or a settled read) has, and so
//     has a non-empty text the content store holds (another vaultd process
//     published or recorded it);
//   - an empty text, and a text that is shorter than the last version
//     vaultd knows of the note (its last write or settled read, else its
//     history), still in the same file (truncated in place, not replaced
//     by a rename, which only ever publishes complete files) and cut off
//     mid-line, must stay unchanged for settleShrunk — an in-place save can
//     pause between its truncate and its write, or between two pieces;
//   - any other text changed within settleQuiet must read the same again
//     settleAgain later (a save in progress changes size or mtime between
//     two reads);
//   - anything else has.
//
// A note that does not settle within settleMax is refused with ErrBusy;
// the caller retries. The publish itself is guarded too (publishOver).
const (
	settleQuiet  = 40 * time.Millisecond
	settleAgain  = 2 * time.Millisecond
	settleShrunk = 400 * time.Millisecond
	settleMax    = 3 * time.Second
	settlePoll   = 5 * time.Millisecond
)

// ErrBusy is the kind of a write refused because another program is saving
// the note right now.
var ErrBusy = errors.New("being saved by another program")

// seenTexts remembers, per note, the last text vaultd knows was complete:
// what it published and what a write settled on. The zero value is ready.
type seenTexts struct {
	mu sync.Mutex
	m  map[string]seenText
}

type seenText struct {
	version string
	size    int
	file    fs.FileInfo // the file it was read from or published as; nil if unknown
}

func (s *seenTexts) get(real string) (seenText, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.m[real]
	return t, ok
}

func (s *seenTexts) put(real string, b []byte, fi fs.FileInfo) {
	s.put1(real, seenText{version: note.Version(b), size: len(b), file: fi})
}

func (s *seenTexts) put1(real string, t seenText) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[string]seenText)
	}
	s.m[real] = t
}

// readSettled reads note c (its real file real) once its text has settled
// (see above). Errors: those of readNote; ErrBusy after settleMax.
func (v *Vault) readSettled(op, c, real string) ([]byte, fs.FileInfo, error) {
	deadline := time.Now().Add(settleMax)
	known, haveKnown := v.w.seen.get(real)
	looked := false
	var (
		shrunkSince time.Time // when the short text now read was first seen
		shrunkText  []byte
		shrunkInfo  fs.FileInfo
	)
	for {
		b, fi, writing, err := v.readUnwritten(op, c, real)
		if err != nil {
			return nil, nil, err
		}
		if writing {
			// Another program has the note's file open for writing (or
			// began to open it during the read): a save is under way,
			// whatever the text looks like now.
			shrunkText = nil
			if time.Now().After(deadline) {
				return nil, nil, &note.Error{Op: op, Path: c, Kind: ErrBusy,
					Msg: "the note is being saved by another program right now (it has kept the note open for writing for 3 seconds); nothing was changed. Retry in a few seconds"}
			}
			time.Sleep(settlePoll)
			continue
		}
		ver := note.Version(b)
		if haveKnown && len(b) == known.size && ver == known.version {
			return b, fi, nil
		}
		if len(b) > 0 && v.stored(ver) {
			v.w.seen.put(real, b, fi)
			return b, fi, nil
		}
		if len(b) > 0 && !haveKnown && !looked {
			// Unknown to this process: what did history keep?
			looked = true
			if t, ok := v.historySize(c); ok {
				known, haveKnown = t, true
			}
		}
		age := time.Since(fi.ModTime())
		inPlace := known.file == nil || os.SameFile(known.file, fi)
		cut := len(b) > 0 && haveKnown && inPlace && len(b) < known.size && b[len(b)-1] != '\n'
		switch shrunk := len(b) == 0 || cut; {
		case shrunk:
			if shrunkText == nil || !bytes.Equal(shrunkText, b) || !sameFile(shrunkInfo, fi) {
				shrunkSince, shrunkText, shrunkInfo = time.Now(), b, fi
			}
			if time.Since(shrunkSince) >= settleShrunk && age >= settleShrunk {
				v.w.seen.put(real, b, fi)
				return b, fi, nil
			}
		case age >= settleQuiet || age < -time.Second:
			// (A clock far behind the file's, on a network mount, cannot
			// judge age; the re-check and the publish still guard.)
			v.w.seen.put(real, b, fi)
			return b, fi, nil
		default:
			shrunkText = nil
			time.Sleep(settleAgain)
			if again, fi2, writing, err := v.readUnwritten(op, c, real); err == nil && !writing && bytes.Equal(again, b) && sameFile(fi, fi2) {
				v.w.seen.put(real, again, fi2)
				return again, fi2, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, nil, &note.Error{Op: op, Path: c, Kind: ErrBusy,
				Msg: "the note is being saved by another program right now (it kept changing for 3 seconds); nothing was changed. Retry in a few seconds"}
		}
		time.Sleep(settlePoll)
	}
}

// stored reports whether the content store holds the text of version ver.
func (v *Vault) stored(ver string) bool {
	_, err := v.state.Lstat(objectName(ver))
	return err == nil
}

// historySize returns the last version history records for note c and
// its size, from the content store.
func (v *Vault) historySize(c string) (seenText, bool) {
	head, err := v.historyHead(c)
	if err != nil || head == "" {
		return seenText{}, false
	}
	fi, err := v.state.Lstat(objectName(head))
	if err != nil {
		return seenText{}, false
	}
	return seenText{version: head, size: int(fi.Size())}, true
}

// sameFile reports whether two stats of a note show the same file, not
// touched in between: same inode, size and modification time. A truncate,
// a write or a rename over the note changes one of them.
func sameFile(a, b fs.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// errDisplaced says the publish found the note changed at the last moment
// and put the other program's text back; the write recomputes.
var errDisplaced = errors.New("the note changed at the moment of the publish")

// publishOver publishes the temp file tmp as the note's real file real,
// which held cur (stat curFi) when the write read it, and never destroys a
// text it did not read. Both are entries of the folder dir (opened once
// through the Root, so that the last look and the exchange are one system
// call each): a last fstatat checks that real is still the file read, then
// the two are exchanged atomically (renameat2(RENAME_EXCHANGE) on Linux,
// renameatx_np(RENAME_SWAP) on macOS) and what was displaced is inspected.
// If it is not exactly what was read — another program saved in the
// microseconds between the last look and the exchange, or an in-place save
// had begun — its text is kept in the content store, it is put back, and
// errDisplaced asks the caller to recompute on it. (For those microseconds
// a reader could see vaultd's text in its place.)
//
// held is the note's file as recheck last read it, with its read lease
// where the system has one (held.go): a program that opened that file for
// writing since waits on the lease, and the file is put back as the note
// before that program goes on, into the note. The lease is released when
// publishOver returns. On success pub holds the published file with a
// lease of its own, which the caller releases once it has read the note
// back (readPublished): an in-place save that begins on vaultd's new file
// meanwhile waits.
//
// Where the file system cannot exchange, the note's file is hard-linked
// aside before the rename and inspected after it; a text that was
// displaced then is kept in the content store and returned as kept (the
// caller records it), and only a save landing in the microseconds between
// the link and the rename is not seen (README, "Editing alongside other
// programs").
func (v *Vault) publishOver(dir *os.File, tmp, real string, cur []byte, curFi fs.FileInfo, next []byte, held *heldFile) (kept []byte, pub *heldFile, err error) {
	defer held.release()
	if err := v.step("rename", real); err != nil {
		v.root.Remove(tmp)
		return nil, nil, err
	}
	nextFi, err := v.root.Lstat(tmp)
	if err != nil {
		v.root.Remove(tmp)
		return nil, nil, err
	}
	tb, rb := path.Base(tmp), path.Base(real)
	if !unchangedIn(dir, rb, curFi) || held.writing() {
		v.root.Remove(tmp)
		return nil, nil, errDisplaced
	}
	pub, _ = v.hold(tmp) // nothing else has it open: the lease is vaultd's
	err = exchangeIn(dir, tb, rb)
	if errors.Is(err, errNoExchange) {
		pub.release()
		kept, err = v.publishByRename(tmp, real, cur, curFi)
		return kept, nil, err
	}
	if err != nil {
		pub.release()
		v.root.Remove(tmp)
		return nil, nil, err
	}
	if err := v.step("exchanged", real); err != nil {
		pub.release()
		return nil, nil, err
	}
	d, dfi, rerr := v.readFile(tmp)
	if rerr == nil && bytes.Equal(d, cur) && sameFile(dfi, curFi) && !held.writing() {
		_ = v.step("remove-displaced", real)
		v.root.Remove(tmp)
		if held.writing() {
			// A program that looked the note's name up before the
			// exchange reached the lease only now: its save goes into
			// the file just removed.
			return nil, nil, v.putBackLate(dir, real, held, pub, nextFi, curFi.Mode().Perm(), next)
		}
		return nil, pub, nil
	}
	// Another program saved the note a moment ago, or is about to save it
	// in place. Keep its text, give it its place back, and let the write
	// recompute on it.
	if rerr == nil {
		_ = v.storeContent(d)
	}
	if !unchangedIn(dir, rb, nextFi) {
		// Replaced again already: that text is the newest and stays.
		pub.release()
		v.dropDisplaced(tmp, held, d)
		return nil, nil, errDisplaced
	}
	if err := exchangeIn(dir, tb, rb); err != nil {
		// Ours stays published; theirs is in the content store and at
		// the temp name, which Recover leaves for a person to see.
		pub.release()
		return nil, nil, fmt.Errorf("could not put back the text another program saved at the same moment (kept in the history as version %s): %w", note.ShortVersion(note.Version(d)), err)
	}
	if back, _, err := v.readFile(tmp); err == nil && !bytes.Equal(back, next) {
		// Replaced again while ours was in place: that text is the
		// newest; keep both and let the newest stand.
		_ = v.storeContent(back)
		pub.release()
		if exchangeIn(dir, tb, rb) == nil {
			v.dropDisplaced(tmp, held, d)
		}
		return nil, nil, errDisplaced
	}
	held.release() // the put-back file is the note: a save waiting on it goes on
	v.dropDisplaced(tmp, pub, next)
	return nil, nil, errDisplaced
}

// publishByRename is publishOver without an atomic exchange.
func (v *Vault) publishByRename(tmp, real string, cur []byte, curFi fs.FileInfo) ([]byte, error) {
	aside := tempName(real)
	linked := v.root.Link(real, aside) == nil
	if err := v.root.Rename(tmp, real); err != nil {
		v.root.Remove(tmp)
		if linked {
			v.root.Remove(aside)
		}
		return nil, err
	}
	if !linked {
		return nil, nil
	}
	defer v.root.Remove(aside)
	d, dfi, err := v.readFile(aside)
	if err != nil || (bytes.Equal(d, cur) && sameFile(dfi, curFi)) {
		return nil, nil
	}
	if err := v.storeContent(d); err != nil {
		return nil, nil
	}
	return d, nil
}

// readFile reads a vault file with its stat, from one descriptor.
func (v *Vault) readFile(p string) ([]byte, fs.FileInfo, error) {
	f, err := v.root.Open(p)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	b, err := readAll(f, fi.Size())
	return b, fi, err
}

// errNoExchange says the file system cannot exchange two files atomically.
var errNoExchange = errors.New("atomic exchange not supported")

// tempName returns a fresh name for a vaultd temp file next to p: dot-
// prefixed and not .md, so Obsidian, git and the watcher ignore it.
func tempName(p string) string {
	return join(note.FolderOf(p), ".vaultd-"+randHex(8)+".tmp")
}

// IsTempName reports whether a file name is one of vaultd's own temp files.
func IsTempName(name string) bool {
	return strings.HasPrefix(name, ".vaultd-") && strings.HasSuffix(name, ".tmp")
}
