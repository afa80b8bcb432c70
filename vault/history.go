package vault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vaultd/vaultd/note"
)

// The history lives in the state dir:
//
//	history.jsonl       one Change per line, appended under the journal lock and fsynced
//	objects/ab/cdef…    note contents by version (hex SHA-256), written once, atomically
//
// Every write stores the note's text from before and after it, so the
// history can show, undo and rebase: UpdateSection finds there what a
// section looked like at the version the caller read.
const (
	historyFile = "history.jsonl"
	objectsDir  = "objects"
)

// HistoryFilter selects changes. Zero fields select everything.
type HistoryFilter struct {
	Path  string    // a note ("1_Projekte/Alpha.md", ".md" optional) or a folder ("1_Projekte"): changes at or under it, including restores from there
	Since time.Time // changes at or after this time
	Actor string    // changes by this actor only
	Limit int       // at most this many, newest first; 0 = all
}

// History returns the recorded changes that match f, newest first.
//
// Errors: ErrInvalidPath (f.Path is not a vault path); a failure reading
// the log. A torn last line (a writer killed mid-append) is skipped.
func (v *Vault) History(f HistoryFilter) ([]Change, error) {
	var match func(string) bool
	if strings.TrimSpace(f.Path) != "" {
		p, err := v.cleanPath(f.Path)
		if err != nil {
			return nil, withOp(err, "history", "")
		}
		match = func(x string) bool {
			return x != "" && (x == p || x == p+".md" || strings.HasPrefix(x, p+"/"))
		}
	}
	var out []Change
	err := v.readChanges(func(ch Change) {
		if match != nil && !match(ch.Path) && !match(ch.OldPath) {
			return
		}
		if !f.Since.IsZero() && ch.Time.Before(f.Since) {
			return
		}
		if f.Actor != "" && !ActorMatches(ch.Actor, f.Actor) {
			return
		}
		out = append(out, ch)
	})
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// Content returns a note's text at version (full, or a prefix of at least
// 12 hex characters) from the content store: the text of every note before
// and after each of vaultd's writes, and of external changes it recorded.
//
// Errors (*Error, Op "content"): ErrInvalid (not a version); ErrNotFound
// (no stored text has that version); ErrAmbiguous (a prefix that several
// stored versions share; Alternatives lists them).
func (v *Vault) Content(version string) ([]byte, error) {
	const op = "content"
	given := strings.ToLower(strings.TrimSpace(version))
	if !isVersionLike(given) {
		return nil, &note.Error{Op: op, Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("%q is not a version: give %d or more hex characters", version, note.ShortVersionLen)}
	}
	notFound := &note.Error{Op: op, Kind: note.ErrNotFound,
		Msg: fmt.Sprintf("no stored text has version %s; vaultd keeps the text of a note from before and after each of its own writes", note.ShortVersion(given))}
	if len(given) == 64 {
		b, err := v.state.ReadFile(objectName(given))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notFound
		}
		return b, err
	}
	entries, err := fs.ReadDir(v.state.FS(), path.Join(objectsDir, given[:2]))
	if err != nil {
		return nil, notFound
	}
	var found []string
	for _, e := range entries {
		if !IsTempName(e.Name()) && strings.HasPrefix(e.Name(), given[2:]) {
			found = append(found, given[:2]+e.Name())
		}
	}
	switch len(found) {
	case 0:
		return nil, notFound
	case 1:
		return v.state.ReadFile(objectName(found[0]))
	}
	return nil, &note.Error{Op: op, Kind: note.ErrAmbiguous, Alternatives: found, AltKind: "versions",
		Msg: fmt.Sprintf("version %s matches %d stored versions; give more characters", given, len(found))}
}

func objectName(ver string) string { return objectsDir + "/" + ver[:2] + "/" + ver[2:] }

// storeContent puts b into the content store under its version. Objects
// are written once (temp file, fsync, rename), so a reader never sees a
// partial object; an existing object is left alone.
func (v *Vault) storeContent(b []byte) error {
	ver := note.Version(b)
	name := objectName(ver)
	if _, err := v.state.Lstat(name); err == nil {
		return nil
	}
	dir := path.Dir(name)
	if err := v.state.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := path.Join(dir, ".vaultd-"+randHex(8)+".tmp")
	f, err := v.state.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil && !v.opts.NoSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = v.state.Rename(tmp, name)
	}
	if err != nil {
		v.state.Remove(tmp)
	}
	return err
}

// record stores the given contents (nil ones are skipped), then appends ch
// to the history log with a new ID and the current time. The contents go
// first so that no record names a version whose text is missing.
//
// With Options.GitCommit, a change made through vaultd that stands alone
// (no Group: a multi-file change commits once, at its end) is committed
// first, and the record says how that went (Change.Git).
func (v *Vault) record(ch Change, contents ...[]byte) (Change, error) {
	for _, b := range contents {
		if b != nil {
			if err := v.storeContent(b); err != nil {
				return ch, fmt.Errorf("store the note's text: %w", err)
			}
		}
	}
	if ch.Group == "" && ch.Op != "external" && ch.Path != "" {
		// A restore's OldPath is its trash path: the trash is not part of
		// what git tracks for the user, the restored note is.
		touched := []string{ch.Path}
		if ch.Op == "pin" || ch.Op == "unpin" {
			touched = []string{BookmarksPath} // the note itself is unchanged
		}
		if ch.Op == "resolve_conflict" {
			ch.Git = v.gitResolvedFor(ch.Path, ch.Summary, ch.Actor)
		} else {
			ch.Git = v.gitCommitFor(touched, ch.Summary, ch.Actor)
		}
	}
	out, err := v.recordBatch([]Change{ch})
	if err != nil {
		return Change{}, err
	}
	return out[0], nil
}

// recordBatch appends several records with one write and one fsync (a
// folder move records every note it moved). The contents of their versions
// must be stored already, or not be needed (a move keeps the text).
func (v *Vault) recordBatch(chs []Change) ([]Change, error) {
	if len(chs) == 0 {
		return nil, nil
	}
	now := v.opts.Now().UTC()
	var buf []byte
	out := make([]Change, len(chs))
	for i, ch := range chs {
		ch.Time = now
		// Paths are recorded canonical (NFC, but for a twin's name: twins.go),
		// however the disk spells them.
		ch.Path, ch.OldPath = v.canonAs(ch.Path, true), v.canonAs(ch.OldPath, true)
		if ch.ID == "" {
			ch.ID = newID(now)
		}
		line, err := json.Marshal(ch)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf = append(buf, '\n')
		}
		buf = append(buf, line...)
		out[i] = ch
	}
	if err := v.appendJournal(historyFile, buf); err != nil {
		return nil, err
	}
	return out, nil
}

// newID returns a record id: the time, sortable, and a random suffix.
func newID(t time.Time) string {
	return t.UTC().Format("20060102T150405.000000Z") + "-" + randHex(3)
}

// appendJournal appends one JSON line to a log in the state dir, under the
// journal lock (one writer at a time across processes, so lines never
// interleave), and fsyncs it. A line left torn by a killed writer is ended
// first, so that it spoils only itself, not the next record. A write that
// fails part way (a full disk) is cut back off, so that no torn line stays
// behind; readers skip and count any that does (readChanges).
func (v *Vault) appendJournal(name string, line []byte) error {
	unlock, err := v.lock(journalKey)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := v.state.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	buf := make([]byte, 0, len(line)+2)
	if size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			return err
		}
		if last[0] != '\n' {
			buf = append(buf, '\n')
		}
	}
	buf = append(append(buf, line...), '\n')
	if err := v.step("journal", name); err != nil {
		return err
	}
	if _, err := f.Write(buf); err != nil {
		_ = f.Truncate(size)
		return err
	}
	if !v.opts.NoSync {
		if err := f.Sync(); err != nil {
			// The line may or may not be on disk; it is not trusted.
			_ = f.Truncate(size)
			return err
		}
	}
	return nil
}

// readJournal calls fn for each complete line of a log in the state dir. A
// missing log is empty. It returns how many lines were torn: a last line
// without its line end (a writer killed mid-append) or a line that fn
// reports as unreadable by returning false.
func (v *Vault) readJournal(name string, fn func(line []byte) bool) (damaged int, err error) {
	b, err := v.state.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read %s in the state dir: %s", name, errText(err))
	}
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte("\n"))
		if !ok {
			if len(bytes.TrimSpace(line)) > 0 {
				damaged++ // torn last line: a writer was killed mid-append
			}
			break
		}
		if len(bytes.TrimSpace(line)) > 0 && !fn(line) {
			damaged++
		}
		b = rest
	}
	return damaged, nil
}

// readChanges calls fn for each record of the history, oldest first,
// skipping intents (see Change.Intent) and torn lines; the number of torn
// lines is kept for HistoryDamage.
func (v *Vault) readChanges(fn func(Change)) error {
	n, err := v.readJournal(historyFile, func(line []byte) bool {
		var ch Change
		if json.Unmarshal(line, &ch) != nil || ch.ID == "" {
			return false
		}
		if !ch.Intent {
			fn(ch)
		}
		return true
	})
	if err == nil {
		v.w.damaged.Store(int64(n))
	}
	return err
}

// readIntents returns the intents of the history and the IDs of every
// completed record.
func (v *Vault) readIntents() (intents []Change, done map[string]bool, err error) {
	done = map[string]bool{}
	_, err = v.readJournal(historyFile, func(line []byte) bool {
		var ch Change
		if json.Unmarshal(line, &ch) != nil || ch.ID == "" {
			return false
		}
		if ch.Intent {
			intents = append(intents, ch)
		} else {
			done[ch.ID] = true
		}
		return true
	})
	return intents, done, err
}

// HistoryDamage returns how many lines of the history log were torn (cut
// off by a crash or a full disk) and skipped at its last reading. Readers
// of the history say so when it is not 0.
func (v *Vault) HistoryDamage() int { return int(v.w.damaged.Load()) }

// intend stores the texts a write is about to replace and publish and
// appends its intent record, before anything is published: a write whose
// texts cannot be kept (a full or read-only state dir) is refused and the
// note stays as it was. before is nil for a new note. It returns the ID
// the completed record will carry.
func (v *Vault) intend(op, c, oldPath string, before, next []byte, o WriteOpts) (string, error) {
	for _, b := range [][]byte{before, next} {
		if b == nil {
			continue
		}
		if err := v.storeContent(b); err != nil {
			return "", keepErr(op, c, err)
		}
	}
	ch := Change{Intent: true, Op: op, Path: c, OldPath: oldPath, Summary: o.Summary, Actor: o.Actor, After: note.Version(next), Group: o.group}
	if before != nil {
		ch.Before = note.Version(before)
	}
	out, err := v.recordBatch([]Change{ch})
	if err != nil {
		return "", keepErr(op, c, err)
	}
	return out[0].ID, nil
}

func keepErr(op, c string, err error) error {
	return &note.Error{Op: op, Path: c, Kind: ErrStateDir, Err: err,
		Msg: "nothing was changed: vaultd keeps the note's text before and after every write in its state dir, and could not (" + errText(err) + ")"}
}

// RecoverReport says what Recover found and did.
type RecoverReport struct {
	// RemovedTemps lists the leftover temp files removed (vault-relative;
	// those of the state dir are not listed).
	RemovedTemps []string
	// External lists the changes recorded for notes vaultd wrote before
	// that have changed since outside vaultd (Obsidian, git, a sync tool):
	// their text now is stored, so it can be compared and restored.
	External []Change
	// Interrupted lists the multi-file changes (moves, deletes with
	// sub-notes) a crash cut short, with the files still pending.
	Interrupted []Interrupted
	// Completed lists the writes a crash cut off after their publish and
	// before their record, now recorded from their intent (with the
	// actor and summary they were made with).
	Completed []Change
}

// Recover tidies up after writers that died: it removes vaultd's temp files
// (".vaultd-*.tmp") older than a minute from the vault's folders and the
// state dir — younger ones may belong to a write in progress in another
// process —, closes the multi-file changes (moves) a crash cut short,
// reporting the files still pending (RecoverReport.Interrupted), and records
// an "external" change for every note whose current
// text is not the last version history knows for it (only notes vaultd has
// written are checked, so the cost is one read per such note). The CLI
// calls it at start; the server calls its two halves, RecoverChanges at
// once and RemoveStaleTemps once its index is up to date.
func (v *Vault) Recover() (*RecoverReport, error) { return v.recover(staleTempAge) }

// RecoverChanges is Recover without the search for temp files, which
// walks the vault: the server records and finishes the changes a crash cut
// off at once, and removes the temp files (RemoveStaleTemps) once its
// index is up to date, so that the two walks do not share the start.
func (v *Vault) RecoverChanges() (*RecoverReport, error) { return v.recoverChanges() }

// RemoveStaleTemps removes vaultd's temp files older than a minute (see
// Recover) and returns their paths.
func (v *Vault) RemoveStaleTemps() ([]string, error) { return v.removeTemps(staleTempAge) }

func (v *Vault) recover(age time.Duration) (*RecoverReport, error) {
	removed, err := v.removeTemps(age)
	if err != nil {
		return &RecoverReport{RemovedTemps: removed}, err
	}
	rep, err := v.recoverChanges()
	rep.RemovedTemps = removed
	return rep, err
}

func (v *Vault) removeTemps(age time.Duration) ([]string, error) {
	var removed []string
	cutoff := time.Now().Add(-age)
	old := func(fi fs.FileInfo) bool { return !fi.ModTime().After(cutoff) }
	stale := func(d fs.DirEntry) bool {
		if d.IsDir() || !IsTempName(d.Name()) {
			return false
		}
		fi, err := d.Info()
		return err == nil && old(fi)
	}
	// Temp files live next to notes, never in hidden folders (.git,
	// .obsidian, the state dir).
	err := v.walkTemps(func(p string, fi fs.FileInfo) {
		if old(fi) && v.root.Remove(p) == nil {
			removed = append(removed, nfc(p))
		}
	})
	if err != nil {
		return removed, err
	}
	_ = fs.WalkDir(v.state.FS(), objectsDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && stale(d) {
			v.state.Remove(p)
		}
		return nil
	})
	return removed, nil
}

func (v *Vault) recoverChanges() (*RecoverReport, error) {
	rep := &RecoverReport{}
	var err error
	// Writes cut off between their publish and their record first: they
	// keep their actor and summary rather than pass for external changes.
	if rep.Completed, err = v.completeIntents(); err != nil {
		return rep, err
	}
	// Groups next: their late records explain moved notes, which the
	// check below would otherwise take for notes deleted outside vaultd.
	if rep.Interrupted, err = v.recoverGroups(); err != nil {
		return rep, err
	}
	heads, err := v.historyHeads()
	if err != nil {
		return rep, err
	}
	paths := make([]string, 0, len(heads))
	for p := range heads {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if v.currentVersion(p) == heads[p] {
			continue
		}
		ch, err := v.recordExternal(p)
		if err != nil {
			return rep, err
		}
		if ch != nil {
			rep.External = append(rep.External, *ch)
		}
	}
	return rep, nil
}

// completeIntents records, from its intent, every write that was published
// but not recorded (its process was killed in between): the note holds the
// intent's text and history does not say so yet. Each note is checked
// again under its lock, so a write still running in another process is
// left to record itself.
func (v *Vault) completeIntents() ([]Change, error) {
	intents, done, err := v.readIntents()
	if err != nil {
		return nil, err
	}
	var open []Change
	for _, in := range intents {
		if !done[in.ID] {
			open = append(open, in)
		}
	}
	var out []Change
	for i := len(open) - 1; i >= 0; i-- { // newest first: it explains the text now
		in := open[i]
		if in.Path == "" || v.currentVersion(in.Path) != in.After {
			continue
		}
		ch, err := v.completeIntent(in)
		if err != nil {
			return out, err
		}
		if ch != nil {
			out = append(out, *ch)
		}
	}
	return out, nil
}

func (v *Vault) completeIntent(in Change) (*Change, error) {
	real, _, err := v.resolveLink("recover", in.Path)
	if err != nil || real == "" {
		real = in.Path
	}
	unlock, err := v.lock(noteKey(real))
	if err != nil {
		return nil, err
	}
	defer unlock()
	_, done, err := v.readIntents()
	if err != nil || done[in.ID] {
		return nil, err
	}
	heads, err := v.historyHeads()
	if err != nil || heads[in.Path] == in.After || v.currentVersion(in.Path) != in.After {
		return nil, err
	}
	ch := in
	ch.Intent = false
	ch.Summary += " (recorded at recovery: the process was interrupted before it recorded the change)"
	out, err := v.recordBatch([]Change{ch})
	if err != nil {
		return nil, err
	}
	return &out[0], nil
}

// historyHeads returns, for each note path in history, the version its last
// record left ("" when that record deleted it).
func (v *Vault) historyHeads() (map[string]string, error) {
	var out map[string]string
	err := v.w.heads.read(v, func(heads map[string]string) { out = maps.Clone(heads) })
	return out, err
}

// historyHead is historyHeads()[p], without copying the table.
func (v *Vault) historyHead(p string) (string, error) {
	var head string
	err := v.w.heads.read(v, func(heads map[string]string) { head = heads[p] })
	return head, err
}

// headsCache keeps historyHeads between calls. The history is append-only
// (history.jsonl), so a later call parses only the lines appended since —
// by this process or any other — instead of the whole log: a write to a
// note vaultd has not written before looks its head up (settle.go), and a
// move that updates the links of 3,000 such notes parsed the growing log
// 3,000 times (2 min 58 s; 45 notes/s falling to 17).
type headsCache struct {
	mu    sync.Mutex
	file  fs.FileInfo // the history file read so far; another one (replaced, truncated) is read anew
	off   int64       // bytes of whole lines read
	last  []byte      // the last line read, with its newline: still there, or the file was cut back (appendJournal's undo) and is read anew
	heads map[string]string
}

// read brings the table up to date with the history file and calls fn
// with it, under the cache's lock.
func (c *headsCache) read(v *Vault, fn func(map[string]string)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	fi, err := v.state.Lstat(historyFile)
	if errors.Is(err, fs.ErrNotExist) {
		c.file, c.off, c.heads = nil, 0, map[string]string{}
		fn(c.heads)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s in the state dir: %s", historyFile, errText(err))
	}
	if c.heads == nil || c.file == nil || !os.SameFile(c.file, fi) || fi.Size() < c.off {
		c.off, c.last, c.heads = 0, nil, map[string]string{}
	}
	c.file = fi
	if fi.Size() > c.off {
		f, err := v.state.Open(historyFile)
		if err != nil {
			return fmt.Errorf("read %s in the state dir: %s", historyFile, errText(err))
		}
		from := c.off - int64(len(c.last))
		b, err := io.ReadAll(io.NewSectionReader(f, from, fi.Size()-from))
		if err == nil && !bytes.HasPrefix(b, c.last) {
			// The file was cut back and appended to since: read it anew.
			c.off, c.last, c.heads = 0, nil, map[string]string{}
			b, err = io.ReadAll(io.NewSectionReader(f, 0, fi.Size()))
		} else if err == nil {
			b = b[len(c.last):]
		}
		f.Close()
		if err != nil {
			return fmt.Errorf("read %s in the state dir: %s", historyFile, errText(err))
		}
		// Whole lines only: a torn last line (a writer in the middle of
		// its append, or killed in it) is read again next time, as the
		// whole-file reading would see it then.
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			b = b[:i+1]
		} else {
			b = nil
		}
		c.off += int64(len(b))
		if len(b) > 0 {
			i := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
			c.last = append(c.last[:0], b[i:]...)
		}
		for len(b) > 0 {
			line, rest, _ := bytes.Cut(b, []byte("\n"))
			b = rest
			var ch Change
			if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &ch) != nil || ch.ID == "" || ch.Intent || ch.Path == "" {
				continue
			}
			if ch.Op == "move" && ch.OldPath != "" && ch.OldPath != ch.Path {
				c.heads[ch.OldPath] = "" // nothing is there any more
			}
			c.heads[ch.Path] = ch.After
		}
	}
	fn(c.heads)
	return nil
}

// currentVersion is the version of the note at p, "" if there is none.
func (v *Vault) currentVersion(p string) string {
	b, err := v.root.ReadFile(p)
	if err != nil {
		return ""
	}
	return note.Version(b)
}

// recordExternal checks note p again under its lock (a vaultd writer in
// another process may have been between publish and record) and records
// an external change if its text still differs from its history head.
func (v *Vault) recordExternal(p string) (*Change, error) {
	real, _, err := v.resolveLink("recover", p)
	if err != nil || real == "" {
		real = p
	}
	unlock, err := v.lock(noteKey(real))
	if err != nil {
		return nil, err
	}
	defer unlock()
	heads, err := v.historyHeads()
	if err != nil {
		return nil, err
	}
	b, rerr := v.root.ReadFile(p)
	cur := ""
	if rerr == nil {
		cur = note.Version(b)
	} else {
		b = nil
	}
	if cur == heads[p] {
		return nil, nil
	}
	summary := "changed outside vaultd"
	if cur == "" {
		summary = "deleted or moved outside vaultd"
	}
	ch, err := v.record(Change{Op: "external", Path: p, Actor: "external", Summary: summary,
		Before: heads[p], After: cur}, b)
	if err != nil {
		return nil, err
	}
	return &ch, nil
}
