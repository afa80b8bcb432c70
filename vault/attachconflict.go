package vault

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/vaultd/vaultd/note"
)

// Attachments changed on both sides of a merge. git cannot merge two
// versions of a picture or a PDF: its merge stops, and while it is
// stopped nothing else can be committed — agents' writes would wait for a
// person to run git. So vaultd's sync keeps both at once and lets the
// merge go on (keepBothAttachments): ours stays at the attachment's path
// (notes embedding it keep showing what they showed here), theirs is
// written beside it as "<name> (theirs).<ext>", and where one side deleted
// the file, the version the other side changed stays. The merge commits
// and pushes like any other, nothing of either side is lost, and the
// choice is remembered (attachConflictFile) until someone makes it with
// resolve_conflict — take ours (theirs goes to the trash), theirs (it
// replaces ours at the path) or both (both stay) — which is committed
// like any change. An attachment a merge the user started left unmerged
// is resolved the same way, from the versions git's index holds.

// AttachmentConflict is an attachment both sides of a merge changed.
type AttachmentConflict struct {
	Path string `json:"path"` // the attachment's path: ours, or the version kept where ours deleted it
	// Copy is where theirs was kept, when both sides have a version; ""
	// when one side deleted the file.
	Copy          string    `json:"copy,omitempty"`
	OursDeleted   bool      `json:"ours_deleted,omitempty"`
	TheirsDeleted bool      `json:"theirs_deleted,omitempty"`
	Ours          *Commit   `json:"ours,omitempty"`
	Theirs        *Commit   `json:"theirs,omitempty"`
	Upstream      string    `json:"upstream,omitempty"` // where theirs came from: "origin/main"
	Time          time.Time `json:"time"`
	// Unmerged: git's index lists it as unmerged now (a merge the user
	// started); Copy is then not written yet.
	Unmerged bool `json:"-"`
}

// Text says in one line what is where.
func (a AttachmentConflict) Text() string {
	who := func(c *Commit) string {
		if c == nil {
			return ""
		}
		return fmt.Sprintf(" (%s by %s, %s)", c.Hash, c.Author, c.Time.Format("2006-01-02 15:04"))
	}
	from := "the other side"
	if a.Upstream != "" {
		from = a.Upstream
	}
	switch {
	case a.Unmerged && a.OursDeleted:
		return fmt.Sprintf("%s: deleted here%s, changed on %s%s; git's merge waits", a.Path, who(a.Ours), from, who(a.Theirs))
	case a.Unmerged && a.TheirsDeleted:
		return fmt.Sprintf("%s: changed here%s, deleted on %s%s; git's merge waits", a.Path, who(a.Ours), from, who(a.Theirs))
	case a.Unmerged:
		return fmt.Sprintf("%s: changed here%s and on %s%s; git's merge waits", a.Path, who(a.Ours), from, who(a.Theirs))
	case a.OursDeleted:
		return fmt.Sprintf("%s: deleted here%s, changed on %s%s: the changed version is kept at its path", a.Path, who(a.Ours), from, who(a.Theirs))
	case a.TheirsDeleted:
		return fmt.Sprintf("%s: changed here%s, deleted on %s%s: ours is kept at its path", a.Path, who(a.Ours), from, who(a.Theirs))
	}
	return fmt.Sprintf("%s: changed here%s and on %s%s: ours is kept at its path, theirs as %s", a.Path, who(a.Ours), from, who(a.Theirs), a.Copy)
}

// attachConflictFile, in the state dir, holds the attachment conflicts a
// sync kept both ways, until they are resolved.
const attachConflictFile = "attachment-conflicts.json"

func (v *Vault) pendingAttachments() []AttachmentConflict {
	b, err := v.state.ReadFile(attachConflictFile)
	if err != nil {
		return nil
	}
	var out []AttachmentConflict
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

func (v *Vault) savePendingAttachments(list []AttachmentConflict) error {
	if len(list) == 0 {
		if err := v.state.Remove(attachConflictFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return v.writeStateFile(attachConflictFile, append(b, '\n'))
}

// AttachmentConflicts lists the attachments in conflict: those a sync kept
// both ways until someone chooses, and those git's index lists as unmerged
// (a merge the user started), by path.
func (v *Vault) AttachmentConflicts() []AttachmentConflict {
	var out []AttachmentConflict
	seen := map[string]bool{}
	for _, a := range v.pendingAttachments() {
		if _, err := v.root.Lstat(a.Path); err != nil && a.Copy == "" {
			continue // deleted meanwhile: nothing left to choose
		}
		seen[a.Path] = true
		out = append(out, a)
	}
	m, op := v.unmerged()
	for p, e := range m {
		if seen[p] || IsNote(p) || hiddenPath(p) {
			continue
		}
		a := AttachmentConflict{Path: p, Unmerged: true, OursDeleted: !e.stages[2], TheirsDeleted: !e.stages[3]}
		if op != "" {
			a.Ours, a.Theirs = v.sides(p)
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// hiddenPath reports whether a vault path has a hidden part (.obsidian/…):
// agents never reach those, so their conflicts are left to a person.
func hiddenPath(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}

// theirsCopy is the free name beside p for theirs: "Plan (theirs).png",
// then "Plan (theirs 2).png", …
func (v *Vault) theirsCopy(p string) string {
	dir, base := path.Split(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for n := 1; ; n++ {
		c := fmt.Sprintf("%s%s (theirs)%s", dir, stem, ext)
		if n > 1 {
			c = fmt.Sprintf("%s%s (theirs %d)%s", dir, stem, n, ext)
		}
		if _, err := v.root.Lstat(c); errors.Is(err, fs.ErrNotExist) {
			if _, taken := v.findCaseInsensitive(c); !taken {
				return c
			}
		}
	}
}

// keepBothAttachments resolves, in the merge in progress that the sync
// started, the attachments (and other files that are not notes, outside
// hidden folders) left unmerged: both versions are kept (see above) and
// staged. The caller holds gitKey. It returns what it kept.
func (v *Vault) keepBothAttachments(upstream string, unmerged []string) ([]AttachmentConflict, error) {
	m, _ := v.unmerged()
	var kept []AttachmentConflict
	for _, p := range unmerged {
		if IsNote(p) || hiddenPath(p) {
			continue
		}
		e := m[p]
		a := AttachmentConflict{Path: p, OursDeleted: !e.stages[2], TheirsDeleted: !e.stages[3], Upstream: upstream, Time: v.opts.Now().UTC()}
		a.Ours, a.Theirs = v.sides(p)
		var add []string
		switch {
		case a.OursDeleted && a.TheirsDeleted:
			continue
		case a.OursDeleted, a.TheirsDeleted:
			// The side that changed it is kept at its path.
			keep := 3
			if a.TheirsDeleted {
				keep = 2
			}
			b, err := v.gitStage(p, keep)
			if err != nil {
				return kept, fmt.Errorf("read %s from git: %s", p, err)
			}
			if err := v.putFile(p, b, false); err != nil {
				return kept, err
			}
			add = []string{p}
		default:
			ours, err := v.gitStage(p, 2)
			if err != nil {
				return kept, fmt.Errorf("read %s from git: %s", p, err)
			}
			theirs, err := v.gitStage(p, 3)
			if err != nil {
				return kept, fmt.Errorf("read %s from git: %s", p, err)
			}
			a.Copy = v.theirsCopy(p)
			if err := v.putFile(p, ours, false); err != nil {
				return kept, err
			}
			if err := v.putFile(a.Copy, theirs, true); err != nil {
				return kept, err
			}
			add = []string{p, a.Copy}
		}
		if out, err := v.git(append([]string{"add", "--"}, add...)...); err != nil {
			return kept, fmt.Errorf("git add failed: %s", gitSays(out, err))
		}
		kept = append(kept, a)
	}
	v.forgetGit()
	if len(kept) > 0 {
		all := append(v.pendingAttachments(), kept...)
		if err := v.savePendingAttachments(all); err != nil {
			return kept, fmt.Errorf("could not remember the attachment conflicts: %s", errText(err))
		}
	}
	return kept, nil
}

// putFile writes b to p atomically (temp file, rename; new: never over a
// file that appeared meanwhile).
func (v *Vault) putFile(p string, b []byte, isNew bool) error {
	if dir := note.FolderOf(p); dir != "" {
		if err := v.root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create the folder %s: %s", dir, errText(err))
		}
	}
	tmp, err := v.writeTemp(p, b, 0o644, false)
	if err != nil {
		return fmt.Errorf("write %s: %s", p, errText(err))
	}
	if isNew {
		err = v.publishNew(tmp, p)
	} else {
		err = v.root.Rename(tmp, p)
	}
	if err != nil {
		v.root.Remove(tmp)
		return fmt.Errorf("write %s: %s", p, errText(err))
	}
	return v.syncDirOf(p)
}

// AttachmentResolution says what ResolveAttachment did.
type AttachmentResolution struct {
	Path    string   // the attachment
	Take    string   // ours, theirs or both
	Kept    []string // the files that stay
	Trashed []string // the files moved to the trash: their trash paths
	Detail  string   // in words, with what git was told
}

// ResolveAttachment resolves the merge conflict of attachment p (see
// above): take ours, theirs or both (current: keep the files as they are,
// as both). What goes goes to the trash; every step is recorded in
// history and committed with o.Summary (or staged, in a merge in
// progress).
//
// Errors (*Error, Op "resolve_conflict"): ErrInvalid (an empty summary, a
// take that is not ours, theirs, both or current); ErrNotFound (p has no
// merge conflict: Alternatives the attachments that have one).
func (v *Vault) ResolveAttachment(p, take string, o WriteOpts) (*AttachmentResolution, error) {
	const op = "resolve_conflict"
	c, err := v.cleanPath(p)
	if err != nil {
		return nil, withOp(err, op, "")
	}
	if o, err = v.writeOpts(op, c, o); err != nil {
		return nil, err
	}
	if take == TakeCurrent {
		take = TakeBoth
	}
	if take != TakeOurs && take != TakeTheirs && take != TakeBoth {
		return nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalid, Alternatives: []string{TakeOurs, TakeTheirs, TakeBoth}, AltKind: "choices",
			Msg: fmt.Sprintf("take %q does not apply to an attachment: take ours, theirs or both (both versions stay, theirs under its own name)", take)}
	}
	var found *AttachmentConflict
	all := v.AttachmentConflicts()
	for i := range all {
		if all[i].Path == c || note.HeadingKey(all[i].Path) == note.HeadingKey(c) && found == nil {
			found = &all[i]
		}
	}
	if found == nil {
		var alts []string
		for _, a := range all {
			alts = append(alts, a.Path)
		}
		return nil, &note.Error{Op: op, Path: c, Kind: note.ErrNotFound, Alternatives: alts, AltKind: "attachments",
			Msg: "has no merge conflict to resolve"}
	}
	a := *found
	res := &AttachmentResolution{Path: a.Path, Take: take}
	if a.Unmerged {
		return res, v.resolveUnmergedAttachment(op, a, take, o, res)
	}
	trash := func(q string) error {
		cur, err := v.root.ReadFile(q)
		if err != nil {
			return ioErr(op, q, "could not read it", err)
		}
		unlock, err := v.lock(noteKey(q))
		if err != nil {
			return ioErr(op, q, "could not lock it", err)
		}
		r, err := v.deleteLocked(op, q, WriteOpts{Summary: o.Summary, Actor: o.Actor, ExpectedVersion: note.Version(cur)})
		unlock()
		if err != nil {
			return err
		}
		v.notify(q)
		res.Trashed = append(res.Trashed, r.TrashPath)
		return nil
	}
	switch {
	case take == TakeBoth:
		res.Kept = append(res.Kept, a.Path)
		if a.Copy != "" {
			res.Kept = append(res.Kept, a.Copy)
		}
	case a.Copy != "" && take == TakeOurs:
		if err := trash(a.Copy); err != nil {
			return nil, err
		}
		res.Kept = []string{a.Path}
	case a.Copy != "" && take == TakeTheirs:
		theirs, err := v.root.ReadFile(a.Copy)
		if err != nil {
			return nil, ioErr(op, a.Copy, "could not read theirs", err)
		}
		unlock, err := v.lock(noteKey(a.Path))
		if err != nil {
			return nil, ioErr(op, a.Path, "could not lock it", err)
		}
		o2 := o
		o2.whole = true
		_, err = v.editLocked(op, a.Path, a.Path, o2, func([]byte) ([]byte, string, error) {
			return theirs, "replaced by theirs", nil
		})
		unlock()
		if err != nil {
			return nil, err
		}
		v.notify(a.Path)
		if err := trash(a.Copy); err != nil {
			return nil, err
		}
		res.Kept = []string{a.Path}
	case a.OursDeleted && take == TakeOurs, a.TheirsDeleted && take == TakeTheirs:
		if err := trash(a.Path); err != nil {
			return nil, err
		}
	default: // the side that changed it is at its path already
		res.Kept = []string{a.Path}
	}
	var rest []AttachmentConflict
	for _, x := range v.pendingAttachments() {
		if x.Path != a.Path {
			rest = append(rest, x)
		}
	}
	if err := v.savePendingAttachments(rest); err != nil {
		return nil, &note.Error{Op: op, Path: a.Path, Err: err, Msg: "resolved, but vaultd could not forget the conflict: " + errText(err)}
	}
	res.Detail = resolutionDetail(a, res)
	return res, nil
}

// resolveUnmergedAttachment resolves an attachment git's index lists as
// unmerged, from the versions the index holds, and tells git.
func (v *Vault) resolveUnmergedAttachment(op string, a AttachmentConflict, take string, o WriteOpts, res *AttachmentResolution) error {
	unlock, err := v.lock(noteKey(a.Path))
	if err != nil {
		return ioErr(op, a.Path, "could not lock it", err)
	}
	defer unlock()
	stage := map[string]int{TakeOurs: 2, TakeTheirs: 3, TakeBoth: 2}[take]
	gone := stage == 2 && a.OursDeleted || stage == 3 && a.TheirsDeleted
	if take == TakeBoth && gone {
		stage, gone = 3, false // ours deleted it: both is the version theirs changed
	}
	var staged []string
	if gone {
		if _, err := v.root.Lstat(a.Path); err == nil {
			cur, _ := v.root.ReadFile(a.Path)
			if _, err := v.deleteLocked(op, a.Path, WriteOpts{Summary: o.Summary, Actor: o.Actor, ExpectedVersion: note.Version(cur)}); err != nil {
				return err
			}
		}
		if out, err := v.git("rm", "--cached", "-q", "--", a.Path); err != nil {
			return &note.Error{Op: op, Path: a.Path, Msg: "git rm failed: " + gitSays(out, err)}
		}
	} else {
		b, err := v.gitStage(a.Path, stage)
		if err != nil {
			return ioErr(op, a.Path, "could not read the version git holds", err)
		}
		if err := v.putFile(a.Path, b, false); err != nil {
			return &note.Error{Op: op, Path: a.Path, Msg: err.Error()}
		}
		res.Kept = append(res.Kept, a.Path)
		staged = append(staged, a.Path)
		if take == TakeBoth && !a.TheirsDeleted && !a.OursDeleted {
			theirs, err := v.gitStage(a.Path, 3)
			if err != nil {
				return ioErr(op, a.Path, "could not read theirs from git", err)
			}
			cp := v.theirsCopy(a.Path)
			if err := v.putFile(cp, theirs, true); err != nil {
				return &note.Error{Op: op, Path: a.Path, Msg: err.Error()}
			}
			res.Kept = append(res.Kept, cp)
			staged = append(staged, cp)
		}
	}
	if len(staged) > 0 {
		if out, err := v.git(append([]string{"add", "--"}, staged...)...); err != nil {
			return &note.Error{Op: op, Path: a.Path, Msg: "git add failed: " + gitSays(out, err)}
		}
	}
	v.forgetGit()
	v.notify(append(staged, a.Path)...)
	res.Detail = resolutionDetail(a, res) + "; marked resolved in git"
	if left := v.UnmergedPaths(); len(left) > 0 {
		res.Detail += fmt.Sprintf("; the merge still has %s in conflict: %s", plural(len(left), "file"), namesList(left))
	} else if gitDir, _ := v.repo(); v.opts.GitCommit && v.ownMerge(gitDir) {
		unlockGit, err := v.lock(gitKey)
		if err == nil {
			hash, err := v.concludeMerge(o.Actor)
			unlockGit()
			if err == nil {
				res.Detail += "; every conflict of the merge is resolved: vaultd committed the merge as " + hash
			}
		}
	} else {
		res.Detail += "; every conflict of the merge is resolved: finish it with git commit"
	}
	return nil
}

// resolutionDetail says what a resolution kept and removed.
func resolutionDetail(a AttachmentConflict, r *AttachmentResolution) string {
	var parts []string
	how := map[string]string{TakeOurs: "took ours", TakeTheirs: "took theirs", TakeBoth: "kept both"}[r.Take]
	parts = append(parts, "the attachment conflict of "+a.Path+" resolved ("+how+")")
	if len(r.Kept) > 0 {
		parts = append(parts, "kept: "+strings.Join(r.Kept, ", "))
	}
	if len(r.Trashed) > 0 {
		parts = append(parts, "moved to the trash: "+strings.Join(r.Trashed, ", "))
	}
	if len(r.Kept) == 0 {
		parts = append(parts, "the attachment is deleted, as "+map[bool]string{true: "ours", false: "theirs"}[r.Take == TakeOurs]+" did")
	}
	return strings.Join(parts, "; ")
}
