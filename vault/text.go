package vault

import (
	"errors"
	"fmt"
	"sync"

	"github.com/vaultd/vaultd/note"
)

// Only UTF-8 notes are edited. A note whose bytes are UTF-16, UTF-32,
// Latin-1, hold a NUL byte or are a Git LFS pointer (note.CheckText) is
// read — decoded where it can be (NewNote parses the text DisplayText
// shows) — but every write that builds on its text is refused with
// ErrNotText before anything is computed: an append would add UTF-8 bytes
// to a UTF-16 file, a section or property edit would cut it at offsets
// that mean nothing in it, and git would commit the mix. A write that
// puts back a whole text byte for byte (undo, a side of a merge conflict
// git holds) builds on nothing and is exempt (WriteOpts.whole); so are a
// delete (to the trash, as it is) and a restore from the trash. No write
// publishes a new text that is not UTF-8 either.

// ErrNotText is the kind of a write refused because the note, or the text
// to write, is not UTF-8 text (note.CheckText says why).
var ErrNotText = errors.New("not UTF-8 text")

// checkText refuses op on note c when its current bytes cur are not UTF-8
// text, unless o puts back a whole text. Attachments are bytes.
func checkText(op, c string, cur []byte, o WriteOpts) error {
	if o.whole || !IsNote(c) {
		return nil
	}
	if p := note.CheckText(cur); p != nil {
		return notTextErr(op, c, p)
	}
	return nil
}

// notTextErr is the refusal of a write to a note that is not UTF-8 text.
func notTextErr(op, c string, p *note.TextProblem) *note.Error {
	what := "is " + p.String()
	if p.Encoding != "" {
		what += ", not UTF-8"
	}
	return &note.Error{Op: op, Path: c, Kind: ErrNotText, Err: &TextError{Problem: p},
		Msg: fmt.Sprintf("the note %s; vaultd edits only UTF-8 notes, so nothing was changed", what)}
}

// checkNewText refuses a write whose new text next is not UTF-8 text,
// unless o puts back a whole text kept before.
func checkNewText(op, c string, next []byte, o WriteOpts) error {
	if o.whole || !IsNote(c) { // attachments are bytes
		return nil
	}
	p := note.CheckText(next)
	if p == nil {
		return nil
	}
	return &note.Error{Op: op, Path: c, Kind: ErrNotText, Err: &TextError{Problem: p, New: true},
		Msg: fmt.Sprintf("the text to write %s; vaultd writes only UTF-8 text, so nothing was changed", p.Brief())}
}

// TextError carries what CheckText found, for a door to explain it
// (errors.As): whether it is the note on disk or the new text (New).
type TextError struct {
	Problem *note.TextProblem
	New     bool
}

func (e *TextError) Error() string { return e.Problem.String() }

// NotTextAt says why the note at p is not UTF-8 text as it is on disk now
// (note.CheckText), or nil when it is, or cannot be read. The answer is
// remembered by the file's size and mtime: a search asks for every hit.
func (v *Vault) NotTextAt(p string) *note.TextProblem {
	fi, err := v.root.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	key := markerKey{size: fi.Size(), mod: fi.ModTime().UnixNano()}
	if got, ok := v.texts.get(p, key); ok {
		return got
	}
	b, err := v.root.ReadFile(p)
	if err != nil {
		return nil
	}
	prob := note.CheckText(b)
	if int64(len(b)) == key.size {
		v.texts.put(p, key, prob)
	}
	return prob
}

// textCache remembers NotTextAt's answers by path, size and mtime.
type textCache struct {
	mu sync.Mutex
	m  map[string]textEntry
}

type textEntry struct {
	key  markerKey
	prob *note.TextProblem
}

func (c *textCache) get(p string, k markerKey) (*note.TextProblem, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[p]
	return e.prob, ok && e.key == k
}

func (c *textCache) put(p string, k markerKey, prob *note.TextProblem) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCleanNotes {
		c.m = map[string]textEntry{}
	}
	c.m[p] = textEntry{k, prob}
}

// reasonText is why a step of a larger change failed, for its report: a
// domain error's message without its operation and path (the report names
// the note), else the error's text.
func reasonText(err error) string {
	if e, ok := note.AsError(err); ok && e.Msg != "" {
		return e.Msg
	}
	return errText(err)
}
