package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// moveKey serialises moves (and deletes that take sub-notes along) across
// processes: a move plans its link updates on the whole vault, and two
// moves planning at once would each rewrite links on a picture the other
// is changing.
const moveKey = "\x00move"

// MoveResult reports what Move did.
type MoveResult struct {
	From, To string // the note, or the folder, before and after the move
	Folder   bool   // a folder was moved; From and To are folders
	// Note is the moved note at its new place; nil for a folder.
	Note *Note
	// Before and After are the note's versions before and after the move;
	// they differ when the note's own links were updated.
	Before, After string
	Moved         []MovedFile // every note and attachment that moved, sorted by old path
	// SubNotes counts the notes that moved along: those in the note's
	// folder of sub-notes ("Projekt.md" + "Projekt/"), or in the folder.
	SubNotes int
	// SubFolder is the note's folder of sub-notes after the move, "" if
	// it has none.
	SubFolder string
	Relinked  []Relinked  // notes whose links were updated, by path after the move
	Issues    []LinkIssue // links left as written, and why
	// Pending lists files a failure left unchanged (their reason is in
	// Issues); the group's "done" record lists them too.
	Pending  []string
	ChangeID string // the group id every history record of this move carries
	Detail   string // what happened, in one paragraph
	Git      string // with Options.GitCommit: the commit, or why there is none
}

// MovedFile is one file a move took to a new place.
type MovedFile struct {
	From, To string
	Note     bool // a note; otherwise an attachment
}

// Relinked is a note whose links a move updated.
type Relinked struct {
	Path          string // after the move
	Links         int
	Before, After string // versions
	ChangeID      string
}

// moveSrc is what a move takes.
type moveSrc struct {
	path   string // the note's path, or the folder's
	folder bool
	subDir string // a note's folder of sub-notes ("A/B" for "A/B.md"); "" if none
}

// movePlan is everything a move will do, decided before any file changes.
type movePlan struct {
	id        string
	src       moveSrc
	to        string // the note's or folder's new path
	subTo     string // where the note's folder of sub-notes goes
	moved     map[string]string
	movedList []MovedFile
	subNotes  int
	rl        *relinker
	rewrites  []rewriteStep
	issues    []LinkIssue
}

type rewriteStep struct {
	old, new string // the note's path before and after the move (the same unless it moved)
	links    int
	before   string // its version when planned
}

// Move moves or renames a note, or moves a whole folder, and updates the
// links that pointed into what moved.
//
// from names a note (".md" may be left off) or a folder; a name that is
// both a note and a folder ("Projekt" with "Projekt.md" and "Projekt/") is
// the note, and its folder of sub-notes moves along with it, renamed to
// the note's new name; a trailing "/" names the folder alone. to is the new
// path: a path ending in "/", or naming an existing folder, moves it into
// that folder under its own name; otherwise it is the new name (for a note,
// ".md" is added unless to ends in ".md"). A note's move needs
// o.ExpectedVersion, the version the caller read; a folder has none.
//
// Every note of the vault whose links would lead elsewhere after the move
// gets them rewritten (see relinker): links into the moved notes, relative
// links inside them, and links whose name a moved note would take over.
// Links in notes the Policy protects are not changed and are reported in
// MoveResult.Issues, as are links that were ambiguous before.
//
// The move is a group (see groups.jsonl): its plan is recorded first, then
// the renames (one atomic rename per note or folder, never replacing
// anything: renameat2 RENAME_NOREPLACE), each moved note's history record
// (op "move"), each link update as an ordinary write through the write
// protocol with its own record (op "update_links"), and a "done" record.
// Killed in between, every file is either as it was or as the move left
// it, and Recover reports the files still pending. The OnChange
// subscribers get every old and new path, and with Options.GitCommit one
// commit holds every file the move touched.
//
// Errors (*Error, Op "move"): ErrInvalid (empty summary, a missing or
// malformed version for a note, a folder into itself, a symbolic link);
// ErrInvalidPath (either path is not a vault path: outside the vault,
// hidden, not portable); ErrNotFound (no such note or folder;
// Alternatives the closest notes); ErrExists (something is at the new
// path, or at the new path of the folder of sub-notes; Alternatives a free
// name); ErrConflict (the note is not at ExpectedVersion); ErrDenied (the
// Policy refuses the move of a note out of or into a protected path).
func (v *Vault) Move(from, to string, o WriteOpts) (*MoveResult, error) {
	return v.move(from, to, o, false)
}

// move is Move; exact takes to as the new path even when it names an
// existing folder (undo moves back to exactly where a note was).
func (v *Vault) move(from, to string, o WriteOpts, exact bool) (*MoveResult, error) {
	const op = "move"
	src, err := v.moveSource(op, from)
	if err != nil {
		return nil, err
	}
	if o, err = v.writeOpts(op, src.path, o); err != nil {
		return nil, err
	}
	if !src.folder && strings.TrimSpace(o.ExpectedVersion) == "" {
		return nil, &note.Error{Op: op, Path: src.path, Kind: note.ErrInvalid,
			Msg: "moving a note needs the version you read: read the note first and pass its version"}
	}
	dest, err := v.moveDest(op, src, to, exact)
	if err != nil {
		return nil, err
	}
	unlock, err := v.lock(moveKey)
	if err != nil {
		return nil, ioErr(op, src.path, "could not lock the vault for the move", err)
	}
	p, res, err := v.planMove(op, src, dest, o)
	if err == nil && res == nil {
		res, err = v.runMove(op, p, o)
	}
	unlock()
	if res != nil && len(res.Moved)+len(res.Relinked) > 0 {
		v.notify(res.notifyPaths()...)
	}
	return res, err
}

// notifyPaths lists every path the move changed: old and new places of the
// moved files, the notes whose links were updated.
func (r *MoveResult) notifyPaths() []string {
	var out []string
	for _, m := range r.Moved {
		out = append(out, m.From, m.To)
	}
	for _, rl := range r.Relinked {
		out = append(out, rl.Path)
	}
	return uniqueSorted(out)
}

// moveSource finds the note or folder a move takes.
func (v *Vault) moveSource(op, from string) (moveSrc, error) {
	raw := strings.TrimSpace(from)
	c, err := v.cleanPath(strings.TrimRight(raw, "/"))
	if err != nil {
		return moveSrc{}, withOp(err, op, "")
	}
	if !IsNote(c) {
		if fi, err := v.root.Lstat(c); err == nil && fi.IsDir() {
			if _, err := v.root.Lstat(c + ".md"); err != nil || strings.HasSuffix(raw, "/") {
				return moveSrc{path: c, folder: true}, nil
			}
		}
	}
	n, err := v.notePath(c)
	if err != nil {
		return moveSrc{}, withOp(err, op, "")
	}
	n, real, err := v.existing(op, n)
	if err != nil {
		if e, ok := note.AsError(err); ok && errors.Is(err, note.ErrNotFound) && !strings.Contains(e.Msg, "symbolic link") {
			e.Msg = strings.Replace(e.Msg, "no such note", "no such note or folder", 1)
		}
		return moveSrc{}, err
	}
	if real != n && nfc(real) == nfc(n) {
		n = real // stored in another normal form (macOS): moved under its name on disk
	}
	if real != n {
		return moveSrc{}, &note.Error{Op: op, Path: n, Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("is a symbolic link to %q; vaultd does not move links — move %q, or the link by hand", real, real)}
	}
	s := moveSrc{path: n}
	if dir := strings.TrimSuffix(n, path.Ext(n)); dir != n {
		if fi, err := v.root.Lstat(dir); err == nil && fi.IsDir() {
			s.subDir = dir
		}
	}
	return s, nil
}

// moveDest decides the new path of what moves.
func (v *Vault) moveDest(op string, s moveSrc, to string, exact bool) (string, error) {
	raw := strings.TrimSpace(to)
	if raw == "" {
		return "", &note.Error{Op: op, Path: s.path, Kind: note.ErrInvalid,
			Msg: "the new path (to) is empty: give the new path, e.g. 4_Archiv/Name.md, or a folder to move it into, e.g. 4_Archiv/"}
	}
	into := strings.HasSuffix(raw, "/") && !exact
	clean, notePath := v.cleanPath, v.notePath
	if exact { // back where it was, spelled as it was (a twin's name by its bytes)
		clean, notePath = note.CleanPathExact, note.NotePathExact
	}
	c, err := clean(strings.TrimRight(raw, "/"))
	if err != nil {
		e, _ := note.AsError(withOp(err, op, ""))
		if e != nil && strings.Contains(e.Msg, "..") {
			e.Msg = "the new path leads outside the vault: " + e.Msg
		}
		return "", e
	}
	if !into && !exact && (s.folder || !IsNote(c)) {
		if fi, err := v.root.Stat(c); err == nil && fi.IsDir() && c != s.path {
			into = true
		}
	}
	if into {
		c = path.Join(c, path.Base(s.path))
	}
	if s.folder {
		return c, nil
	}
	n, err := notePath(c)
	if err != nil {
		return "", withOp(err, op, "")
	}
	return n, nil
}

// planMove checks the move and decides every step. A nil plan with a
// result means there is nothing to do.
func (v *Vault) planMove(op string, src moveSrc, dest string, o WriteOpts) (*movePlan, *MoveResult, error) {
	from := src.path
	if dest == from {
		what := "note"
		if src.folder {
			what = "folder"
		}
		r := &MoveResult{From: from, To: dest, Folder: src.folder,
			Detail: fmt.Sprintf("nothing changed: the %s is already at %s", what, dest)}
		if !src.folder {
			if n, err := v.read(from); err == nil {
				r.Note, r.Before, r.After = n, n.Version, n.Version
				if !note.SameVersion(o.ExpectedVersion, n.Version) {
					return nil, nil, withOp(conflictError(o.ExpectedVersion, n.Version), op, from)
				}
			}
		}
		return nil, r, nil
	}
	p := &movePlan{src: src, to: dest, moved: map[string]string{}}
	sameNote := !src.folder && note.HeadingKey(dest) == note.HeadingKey(from) // a rename that changes only case

	// Into itself.
	if src.folder && strings.HasPrefix(dest+"/", from+"/") {
		return nil, nil, &note.Error{Op: op, Path: from, Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("a folder cannot move into itself: %q is inside %q; choose a place outside it", dest, from)}
	}
	if src.subDir != "" {
		p.subTo = strings.TrimSuffix(dest, path.Ext(dest))
		if strings.HasPrefix(p.subTo+"/", src.subDir+"/") && !sameNote {
			return nil, nil, &note.Error{Op: op, Path: from, Kind: note.ErrInvalid,
				Msg: fmt.Sprintf("the note's folder of sub-notes %q would have to move into itself (%q); choose a place outside it", src.subDir, p.subTo)}
		}
	}

	// Nothing may be in the way.
	if src.folder {
		if err := v.refuseFolderAt(op, from, dest); err != nil {
			return nil, nil, err
		}
	} else {
		if !sameNote {
			if err := v.refuseExisting(op, dest); err != nil {
				e, _ := note.AsError(err)
				e.Path = from
				e.Msg = fmt.Sprintf("cannot move to %s: %s", dest, e.Msg)
				return nil, nil, e
			}
		}
		var err error
		if dest, err = v.checkFolderCase(op, dest); err != nil {
			return nil, nil, err
		}
		if p.subTo != "" && !sameNote {
			if err := v.refuseFolderAt(op, from, p.subTo); err != nil {
				e, _ := note.AsError(err)
				e.Msg = "the note's folder of sub-notes " + src.subDir + " cannot move along: " + e.Msg
				return nil, nil, e
			}
		}
	}

	// Every file that moves, old → new.
	addDir := func(dir, to string) error {
		return v.WalkDir(dir, func(e Entry) error {
			np := to + strings.TrimPrefix(e.Path, dir)
			p.moved[e.Path] = np
			p.movedList = append(p.movedList, MovedFile{From: e.Path, To: np, Note: e.Note})
			if e.Note {
				p.subNotes++
			}
			return nil
		})
	}
	if src.folder {
		if err := addDir(from, dest); err != nil {
			return nil, nil, err
		}
	} else {
		p.moved[from] = dest
		p.movedList = append(p.movedList, MovedFile{From: from, To: dest, Note: true})
		if src.subDir != "" {
			if err := addDir(src.subDir, p.subTo); err != nil {
				return nil, nil, err
			}
		}
	}
	sort.Slice(p.movedList, func(i, j int) bool { return p.movedList[i].From < p.movedList[j].From })

	s, err := v.snapshot()
	if err != nil {
		return nil, nil, err
	}
	byPath := make(map[string]*Note, len(s.notes))
	for _, n := range s.notes {
		byPath[n.Path] = n
	}

	// The rules: nothing leaves or enters a protected place.
	if pol := v.Policy(); pol != nil {
		for _, m := range p.movedList {
			var content []byte
			if n := byPath[m.From]; n != nil {
				content = n.Doc.Src
			}
			if err := pol.CheckWrite(WriteCheck{Op: op, Path: m.From, Actor: o.Actor}); err != nil {
				return nil, nil, withOp(err, op, from)
			}
			if err := pol.CheckWrite(WriteCheck{Op: op, Path: m.To, Content: content, New: true, Actor: o.Actor}); err != nil {
				return nil, nil, withOp(err, op, from)
			}
		}
	}

	// The links: what every note's links lead to before and after.
	after := make([]string, 0, len(s.paths))
	for _, q := range s.paths {
		if np, ok := p.moved[q]; ok {
			after = append(after, np)
		} else {
			after = append(after, q)
		}
	}
	for _, m := range p.movedList { // moved files the snapshot missed
		after = append(after, m.To)
	}
	p.rl = &relinker{before: s.resolver, after: note.NewResolver(uniqueSorted(after)), moved: p.moved}
	pol := v.Policy()
	for _, n := range s.notes {
		p1 := p.rl.newPath(n.Path)
		next, edits, issues := p.rl.rewriteDoc(n.Doc, n.Path, p1)
		p.issues = append(p.issues, issues...)
		k := len(edits)
		if k == 0 {
			continue
		}
		if _, moves := p.moved[n.Path]; !moves && pol != nil {
			if err := pol.CheckWrite(WriteCheck{Op: "update_links", Path: n.Path, Content: next, Actor: o.Actor}); err != nil {
				why := "the note is protected by the vault's rules"
				if e, ok := note.AsError(err); ok && e.Rule != "" {
					why = fmt.Sprintf("the note is protected (rule %q)", e.Rule)
				}
				for _, e := range edits {
					p.issues = append(p.issues, LinkIssue{Path: n.Path, Line: e.line, Link: oneLineLink(e.raw),
						Reason: fmt.Sprintf("not updated: %s; it no longer leads where it led (it would now be %s)", why, oneLineLink(e.text))})
				}
				continue
			}
		}
		p.rewrites = append(p.rewrites, rewriteStep{old: n.Path, new: p1, links: k, before: n.Version})
	}
	return p, nil, nil
}

// refuseFolderAt returns ErrExists when a file or folder is at dest, also
// one whose name differs only in case (on Windows and macOS the same).
func (v *Vault) refuseFolderAt(op, from, dest string) error {
	exists := func(what string) error {
		return &note.Error{Op: op, Path: from, Kind: ErrExists,
			Msg:          fmt.Sprintf("cannot move to %s: %s is already there", dest, what),
			Alternatives: []string{v.freeFolder(dest)}, AltKind: "free paths"}
	}
	if fi, err := v.root.Lstat(dest); err == nil {
		if fi.IsDir() {
			return exists("a folder")
		}
		return exists("a file")
	}
	if real, ok := v.findCaseInsensitiveDir(dest); ok && real != from {
		e := exists(fmt.Sprintf("the folder %q, whose name differs only in case (Windows and macOS cannot keep both)", real))
		return e
	}
	_, err := v.checkFolderCase(op, dest+"/x.md")
	return err
}

// freeFolder returns the first of "Name 2", "Name 3", … next to dir that
// nothing takes.
func (v *Vault) freeFolder(dir string) string {
	stem, n := copyStem(path.Base(dir))
	parent := note.FolderOf(dir)
	for ; ; n++ {
		cand := path.Join(parent, fmt.Sprintf("%s %d", stem, n))
		if _, err := v.root.Lstat(cand); errors.Is(err, fs.ErrNotExist) {
			if _, ok := v.findCaseInsensitiveDir(cand); !ok {
				return cand
			}
		}
	}
}

// runMove carries the plan out.
func (v *Vault) runMove(op string, p *movePlan, o WriteOpts) (*MoveResult, error) {
	src := p.src
	res := &MoveResult{From: src.path, To: p.to, Folder: src.folder, SubNotes: p.subNotes, SubFolder: p.subTo,
		Issues: p.issues}
	p.id = newID(v.opts.Now())
	res.ChangeID = p.id
	o.group = p.id

	plan := groupRecord{Event: "plan", ID: p.id, Op: op, Actor: o.Actor, Summary: o.Summary,
		From: src.path, To: p.to, Folder: src.folder}
	notesUnder := func(dir string) []string {
		var out []string
		for _, m := range p.movedList {
			if m.Note && strings.HasPrefix(m.From, dir+"/") {
				out = append(out, m.From)
			}
		}
		return out
	}
	if src.folder {
		plan.Steps = append(plan.Steps, groupStep{Op: "rename", From: src.path, To: p.to, Notes: notesUnder(src.path)})
	} else {
		if src.subDir != "" {
			plan.Steps = append(plan.Steps, groupStep{Op: "rename", From: src.subDir, To: p.subTo, Notes: notesUnder(src.subDir)})
		}
		plan.Steps = append(plan.Steps, groupStep{Op: "rename", From: src.path, To: p.to})
	}
	for _, rw := range p.rewrites {
		plan.Steps = append(plan.Steps, groupStep{Op: "update_links", From: rw.old, To: rw.new, Before: rw.before})
	}

	// The renames, under the note's lock: no vaultd writer edits it
	// between the version check and the rename.
	var unlockNote func()
	var before []byte
	if !src.folder {
		keys := []string{noteKey(src.path), noteKey(p.to)}
		sort.Strings(keys)
		var unlocks []func()
		for i, k := range keys {
			if i > 0 && k == keys[i-1] {
				continue
			}
			u, err := v.lock(k)
			if err != nil {
				for _, u := range unlocks {
					u()
				}
				return nil, ioErr(op, src.path, "could not lock the note", err)
			}
			unlocks = append(unlocks, u)
		}
		unlockNote = func() {
			for i := len(unlocks) - 1; i >= 0; i-- {
				unlocks[i]()
			}
		}
		cur, _, err := v.readNote(op, src.path, src.path)
		if err != nil {
			unlockNote()
			return nil, err
		}
		if ver := note.Version(cur); !note.SameVersion(o.ExpectedVersion, ver) {
			unlockNote()
			return nil, withOp(conflictError(o.ExpectedVersion, ver), op, src.path)
		}
		before = cur
		res.Before = note.Version(cur)
	}
	unlockOnce := func() {
		if unlockNote != nil {
			unlockNote()
			unlockNote = nil
		}
	}
	defer unlockOnce()

	if err := v.writeGroup(plan); err != nil {
		return nil, ioErr(op, src.path, "could not record the move's plan in the history", err)
	}
	var recs []Change
	renameDir := func(from, to string) error {
		if err := v.mkdirFor(op, src.path, to); err != nil {
			return err
		}
		if err := v.renameNoReplace(from, to); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return v.refuseFolderAt(op, src.path, to)
			}
			return ioErr(op, src.path, "could not move the folder "+from, err)
		}
		if err := errors.Join(v.syncDirOf(from), v.syncDirOf(to)); err != nil {
			return ioErr(op, src.path, "the folder was moved, but the move could not be made durable", err)
		}
		for _, old := range notesUnder(from) {
			np := p.moved[old]
			b, err := v.root.ReadFile(np)
			if err != nil {
				continue
			}
			ver := note.Version(b)
			recs = append(recs, Change{Op: op, Path: np, OldPath: old, Summary: o.Summary, Actor: o.Actor,
				Before: ver, After: ver, Group: p.id})
		}
		return nil
	}
	fail := func(err error) (*MoveResult, error) {
		// Close the group so that Recover does not report it: nothing of
		// it happened, or what happened is rolled back.
		_ = v.writeGroup(groupRecord{Event: "done", ID: p.id, Detail: "not moved: " + errText(err)})
		return nil, err
	}
	if src.folder {
		if err := renameDir(src.path, p.to); err != nil {
			return fail(err)
		}
	} else {
		if src.subDir != "" {
			if err := renameDir(src.subDir, p.subTo); err != nil {
				return fail(err)
			}
		}
		if err := v.mkdirFor(op, src.path, p.to); err != nil {
			return fail(v.rollbackSub(p, err))
		}
		if err := v.renameNoReplace(src.path, p.to); err != nil {
			if errors.Is(err, fs.ErrExist) {
				err = v.existsError(op, p.to, p.to)
			} else {
				err = ioErr(op, src.path, "could not move the note", err)
			}
			return fail(v.rollbackSub(p, err))
		}
		if err := errors.Join(v.syncDirOf(src.path), v.syncDirOf(p.to)); err != nil {
			return nil, ioErr(op, src.path, "the note was moved, but the move could not be made durable", err)
		}
		// The rename moved whatever was at the old path: if a program
		// outside vaultd changed the note since the check, its text moved
		// along; nothing is lost.
		moved, err := v.root.ReadFile(p.to)
		if err != nil {
			return nil, ioErr(op, p.to, "the note was moved but could not be read back", err)
		}
		recs = append(recs, Change{Op: op, Path: p.to, OldPath: src.path, Summary: o.Summary, Actor: o.Actor,
			Before: note.Version(before), After: note.Version(moved), Group: p.id})
	}
	res.Moved = p.movedList
	if _, err := v.recordBatch(recs); err != nil {
		return res, groupRecordErr(op, src.path, err)
	}
	unlockOnce()

	// The links, one note at a time through the write protocol: each is a
	// durable write with its history record, so a folder with thousands
	// of notes linking into it takes a while; Options.Progress hears it.
	progress := func(int) {}
	if f := v.opts.Progress; f != nil && len(p.rewrites) > 0 {
		progress = func(done int) { f("updating links", done, len(p.rewrites)) }
	}
	progress(0)
	for i, rw := range p.rewrites {
		rr, err := v.relink(p, rw, o)
		progress(i + 1)
		if err != nil {
			res.Pending = append(res.Pending, rw.new)
			res.Issues = append(res.Issues, LinkIssue{Path: rw.new,
				Reason: fmt.Sprintf("%s not updated: %s", plural(rw.links, "link"), reasonText(err))})
			continue
		}
		if rr != nil {
			res.Relinked = append(res.Relinked, *rr)
		}
	}

	if !src.folder {
		if n, err := v.read(p.to); err == nil {
			res.Note, res.After = n, n.Version
		}
	}
	res.Git = v.gitCommitFor(v.movePaths(p, res), o.Summary, o.Actor)
	res.Detail = moveDetail(res)
	if err := v.writeGroup(groupRecord{Event: "done", ID: p.id, Pending: res.Pending, Detail: res.Detail, Git: res.Git}); err != nil {
		return res, groupRecordErr(op, src.path, err)
	}
	return res, nil
}

// relink rewrites one note's links for the move; nil when nothing needed
// changing any more.
func (v *Vault) relink(p *movePlan, rw rewriteStep, o WriteOpts) (*Relinked, error) {
	const op = "update_links"
	real, fi, err := v.resolveLink(op, rw.new)
	if err != nil {
		return nil, err
	}
	if fi == nil {
		return nil, v.notFound(op, rw.new)
	}
	unlock, err := v.lock(noteKey(real))
	if err != nil {
		return nil, ioErr(op, rw.new, "could not lock the note", err)
	}
	defer unlock()
	what := p.src.path
	links := 0
	r, err := v.editLocked(op, rw.new, real, o, func(cur []byte) ([]byte, string, error) {
		next, k, _ := p.rl.rewrite(cur, rw.old, rw.new)
		links = k
		if k == 0 {
			return cur, "its links already lead to the right places", nil
		}
		return next, fmt.Sprintf("%s updated after the move of %s", plural(k, "link"), what), nil
	})
	if err != nil {
		return nil, err
	}
	if r.Before == r.After {
		return nil, nil
	}
	return &Relinked{Path: rw.new, Links: links, Before: r.Before, After: r.After, ChangeID: r.ChangeID}, nil
}

// rollbackSub moves a note's folder of sub-notes back after the note itself
// could not move, so that the two stay together. It returns err, extended
// when the way back failed too.
func (v *Vault) rollbackSub(p *movePlan, err error) error {
	if p.src.subDir == "" {
		return err
	}
	if rerr := v.renameNoReplace(p.subTo, p.src.subDir); rerr != nil {
		if e, ok := note.AsError(err); ok {
			cp := *e
			cp.Msg += fmt.Sprintf("; its folder of sub-notes was already moved to %s and could not be moved back", p.subTo)
			return &cp
		}
	}
	return err
}

// mkdirFor creates the folders a new path needs.
func (v *Vault) mkdirFor(op, from, p string) error {
	if dir := note.FolderOf(p); dir != "" {
		if err := v.root.MkdirAll(dir, 0o755); err != nil {
			return ioErr(op, from, "could not create the folder "+dir, err)
		}
	}
	return nil
}

// movePaths lists the files a move touched, for git: every file of a moved
// folder (not only notes and attachments), old and new, and the notes whose
// links changed.
func (v *Vault) movePaths(p *movePlan, res *MoveResult) []string {
	var out []string
	addDir := func(from, to string) {
		_ = fs.WalkDir(v.root.FS(), to, func(q string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || IsTempName(d.Name()) {
				return nil
			}
			q = nfc(q)
			out = append(out, q, from+strings.TrimPrefix(q, to))
			return nil
		})
	}
	if p.src.folder {
		addDir(p.src.path, p.to)
	} else {
		out = append(out, p.src.path, p.to)
		if p.src.subDir != "" {
			addDir(p.src.subDir, p.subTo)
		}
	}
	for _, r := range res.Relinked {
		out = append(out, r.Path)
	}
	return out
}

// moveDetail says in one paragraph what a move did.
func moveDetail(r *MoveResult) string {
	var b strings.Builder
	notes, atts := 0, 0
	for _, m := range r.Moved {
		if m.Note {
			notes++
		} else {
			atts++
		}
	}
	if r.Folder {
		fmt.Fprintf(&b, "folder %s moved to %s with %s", r.From, r.To, plural(notes, "note"))
		if atts > 0 {
			fmt.Fprintf(&b, " and %s", plural(atts, "attachment"))
		}
	} else {
		fmt.Fprintf(&b, "moved from %s to %s", r.From, r.To)
		if r.SubFolder != "" {
			subAtts := ""
			if atts > 0 {
				subAtts = " and " + plural(atts, "attachment")
			}
			fmt.Fprintf(&b, "; %s%s went along in its folder of sub-notes (now %s/)", plural(r.SubNotes, "sub-note"), subAtts, r.SubFolder)
		}
	}
	links := 0
	for _, rl := range r.Relinked {
		links += rl.Links
	}
	switch len(r.Relinked) {
	case 0:
		b.WriteString("; no links needed updating")
	default:
		fmt.Fprintf(&b, "; %s updated in %s", plural(links, "link"), plural(len(r.Relinked), "note"))
	}
	if len(r.Issues) > 0 {
		fmt.Fprintf(&b, "; %s left as written (see below)", plural(len(r.Issues), "link problem"))
	}
	if len(r.Pending) > 0 {
		fmt.Fprintf(&b, "; %s could not be updated: %s", plural(len(r.Pending), "note"), strings.Join(r.Pending, ", "))
	}
	b.WriteString(gitDetail(r.Git))
	return b.String()
}

func groupRecordErr(op, c string, err error) error {
	return &note.Error{Op: op, Path: c, Err: err,
		Msg: "the files were moved but the history record could not be saved: " + errText(err)}
}
