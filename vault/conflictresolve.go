package vault

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// checkMarkers refuses a write whose new text holds conflict markers
// (note.FindConflicts): a note in conflict is not edited as if it were text, and
// no write puts markers into one. Exceptions: a resolution may leave the
// regions it was not asked to resolve, and a move's link update may keep
// the regions a note has (it changes links, not conflicts).
func checkMarkers(op string, cur, next []byte) error {
	after := note.FindConflicts(next)
	if len(after) == 0 {
		return nil
	}
	before := note.ParseCached(cur).Conflicts
	switch {
	case op == "resolve_conflict" && len(after) < len(before):
		return nil
	case op == "update_links" && len(after) <= len(before):
		return nil
	case len(before) > 0:
		return &note.Error{Kind: ErrMergeConflict, Msg: fmt.Sprintf(
			"the note has %s (in %s) and this change would keep the conflict markers; nothing was changed. Resolve the conflicts first",
			plural(len(before), "unresolved merge conflict"), quoteList(note.ConflictSections(before)))}
	}
	return &note.Error{Kind: ErrMergeConflict, Msg: fmt.Sprintf(
		"the new text holds git conflict markers (<<<<<<<, ======= and >>>>>>> at the start of lines %d–%d) outside a code block; vaultd does not write them into a note: write the text you mean without them (inside a ``` block they are fine)",
		after[0].Line, after[0].EndLine)}
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

// Ways to resolve a conflict (ConflictResolution.Take).
const (
	TakeOurs    = "ours"    // the side of this clone (HEAD)
	TakeTheirs  = "theirs"  // the side merged in
	TakeBoth    = "both"    // ours, then theirs
	TakeText    = "text"    // the caller's text
	TakeCurrent = "current" // the text as it is (a note git lists as unmerged that holds no markers)
)

// TakeChoices lists the values of ConflictResolution.Take.
var TakeChoices = []string{TakeOurs, TakeTheirs, TakeBoth, TakeText, TakeCurrent}

// ConflictResolution says how ResolveConflict settles a note's conflicts.
type ConflictResolution struct {
	// Heading names the section whose conflicts are resolved (a region
	// belongs to every section it overlaps); "" resolves every conflict
	// of the note.
	Heading string
	Take    string
	// Text is the resolved text with TakeText: the section's new body
	// (without its heading line) with Heading, else the whole note.
	Text []byte
}

// ResolveConflict resolves the unresolved merge conflicts of note p — of
// one section, or all of them — by taking one side, the other, both (ours
// first) or the given text, through the write protocol like every change
// (recorded in history, with o.Summary). o.ExpectedVersion is optional:
// when given, the note must still be at it.
//
// When no conflict marker is left, a note git lists as unmerged is staged
// (`git add`), which is how git is told it is resolved; when that was the
// last unmerged file of a merge vaultd's sync started, and
// Options.GitCommit is set, vaultd concludes the merge with its commit. A
// merge the user started is left for the user to commit. Change.Git (and
// the Result's Detail) say what happened in git.
//
// Errors (*Error, Op "resolve_conflict"): ErrInvalid (empty summary, an
// unknown take, text missing or holding markers, "both" or "current" where
// they do not apply, a note without conflicts); ErrNotFound (no such note,
// heading, or no conflict in that section — Alternatives the sections
// that have one, AltKind "conflict sections"); ErrAmbiguous; ErrConflict
// (not at ExpectedVersion).
func (v *Vault) ResolveConflict(p string, r ConflictResolution, o WriteOpts) (*Result, error) {
	const op = "resolve_conflict"
	switch r.Take {
	case TakeOurs, TakeTheirs, TakeBoth, TakeText, TakeCurrent:
	default:
		c, _ := v.notePath(p)
		return nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalid, Alternatives: TakeChoices, AltKind: "choices",
			Msg: fmt.Sprintf("take %q is not one of ours, theirs, both (ours, then theirs), text (with your text) or current", r.Take)}
	}
	var unmerged bool
	// A side git holds is taken whole, byte for byte, whatever its
	// encoding; any other resolution builds on the note's text, which
	// must be UTF-8 (checked below, where git's index is known).
	whole := r.Take == TakeOurs || r.Take == TakeTheirs || r.Take == TakeCurrent
	o.whole = whole
	res, err := v.edit(op, p, o, func(cur []byte) ([]byte, string, error) {
		if o.ExpectedVersion != "" && !note.SameVersion(o.ExpectedVersion, note.Version(cur)) {
			return nil, "", conflictError(o.ExpectedVersion, note.Version(cur))
		}
		d := note.Parse(cur)
		c, _ := v.notePath(p)
		m, _ := v.unmerged()
		u, inIndex := m[c]
		unmerged = inIndex
		if pr := note.CheckText(cur); pr != nil && (!whole || !inIndex) {
			e := notTextErr(op, c, pr)
			switch {
			case inIndex:
				e.Msg += "; a side git holds can still be taken whole: take ours, theirs or current"
				e.Alternatives, e.AltKind = []string{TakeOurs, TakeTheirs, TakeCurrent}, "choices"
			case whole:
				e.Msg += "; git does not list it as unmerged, so there is no side to take"
			}
			return nil, "", e
		}
		return resolveText(d, r, inIndex, func(stage int) ([]byte, error) {
			if !u.stages[stage] {
				side := map[int]string{2: "ours", 3: "theirs"}[stage]
				return nil, &note.Error{Kind: note.ErrInvalid, Msg: fmt.Sprintf(
					"git holds no %s version of the note: that side deleted it. Keep it as it is with take current, or delete it with delete_note", side)}
			}
			return v.gitStage(c, stage)
		})
	})
	if err != nil || res == nil || res.Before != res.After || !unmerged {
		return res, err
	}
	// The text was right already (take current, or a resolution another
	// process published meanwhile): only git is told, and history records it.
	c := res.Note.Path
	ch, rerr := v.record(Change{Op: op, Path: c, Summary: o.Summary, Actor: orDefault(o.Actor, v.opts.Actor), Before: res.Before, After: res.After})
	if rerr != nil {
		return res, recordErr(op, c, res.After, rerr)
	}
	res.ChangeID = ch.ID
	res.Detail = strings.TrimPrefix(res.Detail, "nothing changed: ") + gitDetail(ch.Git)
	return res, nil
}

// resolveText computes the resolved text of a note (pure but for stage,
// which reads a side's whole text from git's index).
func resolveText(d *note.Doc, r ConflictResolution, unmerged bool, stage func(int) ([]byte, error)) ([]byte, string, error) {
	cur := d.Src
	regs := d.Conflicts
	if len(regs) == 0 {
		if !unmerged {
			return nil, "", &note.Error{Kind: note.ErrInvalid, Msg: "the note has no unresolved merge conflicts; there is nothing to resolve"}
		}
		switch r.Take {
		case TakeCurrent:
			return cur, "the note's text kept as it is", nil
		case TakeOurs, TakeTheirs:
			n := map[string]int{TakeOurs: 2, TakeTheirs: 3}[r.Take]
			b, err := stage(n)
			if err != nil {
				return nil, "", err
			}
			return b, fmt.Sprintf("the note replaced by the %s version git holds", r.Take), nil
		case TakeText:
			if err := resolutionText(r.Text); err != nil {
				return nil, "", err
			}
			return r.Text, "the note replaced by the given text", nil
		}
		return nil, "", &note.Error{Kind: note.ErrInvalid, Msg: "the note has no conflict markers left (git still lists it as unmerged), so there are no two sides to keep both of: take current to keep it as it is, or ours, theirs or text"}
	}
	if r.Take == TakeCurrent {
		return nil, "", &note.Error{Kind: note.ErrInvalid, Msg: fmt.Sprintf(
			"the note still holds %s; take ours, theirs, both or text", plural(len(regs), "region between conflict markers"))}
	}
	// The regions to resolve.
	var h *note.Heading
	pick := make([]bool, len(regs))
	if strings.TrimSpace(r.Heading) == "" {
		for i := range pick {
			pick[i] = true
		}
	} else {
		s, err := d.Section(r.Heading)
		if err != nil {
			return nil, "", err
		}
		h = &s
		any := false
		for i, c := range regs {
			if c.Start < s.End && c.End > s.Start {
				pick[i], any = true, true
			}
		}
		if !any {
			var alts []string
			for _, c := range regs {
				if c.Heading >= 0 && !c.InFrontmatter && (len(alts) == 0 || alts[len(alts)-1] != c.Section) {
					alts = append(alts, c.Section)
				}
			}
			return nil, "", &note.Error{Kind: note.ErrNotFound, Alternatives: alts, AltKind: "conflict sections",
				Msg: fmt.Sprintf("section %q has no merge conflict; the conflicts are in %s", s.PathString(), quoteList(note.ConflictSections(regs)))}
		}
	}
	left := 0
	for _, p := range pick {
		if !p {
			left++
		}
	}
	scope := "every merge conflict of the note"
	if h != nil {
		scope = fmt.Sprintf("the merge conflicts of section %q", h.PathString())
	}
	if r.Take == TakeText {
		if err := resolutionText(r.Text); err != nil {
			return nil, "", err
		}
		if h == nil {
			return r.Text, "the note replaced by the given text, which resolves " + scope, nil
		}
		for i, c := range regs {
			if pick[i] && (c.Start < h.BodyStart || c.End > h.End) {
				return nil, "", &note.Error{Kind: note.ErrInvalid, Msg: fmt.Sprintf(
					"the conflict at lines %d–%d reaches beyond section %q; resolve it for the whole note (without heading)", c.Line, c.EndLine, h.PathString())}
			}
		}
		next, err := note.ReplaceBody(cur, *h, r.Text)
		if err != nil {
			return nil, "", err
		}
		return next, fmt.Sprintf("section %q replaced by the given text, which resolves its merge conflicts%s", h.PathString(), leftText(left)), nil
	}
	eol := note.EOL(d)
	var out []byte
	prev := 0
	for i, c := range regs {
		if !pick[i] {
			continue
		}
		out = append(out, cur[prev:c.Start]...)
		switch r.Take {
		case TakeOurs:
			out = append(out, c.Ours...)
		case TakeTheirs:
			out = append(out, c.Theirs...)
		case TakeBoth:
			out = append(out, c.Ours...)
			if len(c.Ours) > 0 && c.Ours[len(c.Ours)-1] != '\n' && len(c.Theirs) > 0 {
				out = append(out, eol...)
			}
			out = append(out, c.Theirs...)
		}
		prev = c.End
	}
	out = append(out, cur[prev:]...)
	how := map[string]string{TakeOurs: "took ours", TakeTheirs: "took theirs", TakeBoth: "kept both: ours, then theirs"}[r.Take]
	return out, fmt.Sprintf("%s resolved (%s)%s", upperFirst(scope), how, leftText(left)), nil
}

func leftText(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %s left", plural(n, "merge conflict"))
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// resolutionText checks the text of a TakeText resolution.
func resolutionText(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return &note.Error{Kind: note.ErrInvalid, Msg: "take text needs the resolved text in text; to drop both sides, give the text that should stand there"}
	}
	if c := note.FindConflicts(b); len(c) > 0 {
		return &note.Error{Kind: ErrMergeConflict, Msg: fmt.Sprintf(
			"the given text still holds conflict markers (lines %d–%d of it); give the text as it should read, without them", c[0].Line, c[0].EndLine)}
	}
	return nil
}
