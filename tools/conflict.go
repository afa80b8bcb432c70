package tools

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// A note with unresolved merge conflicts is never served as if it were a
// note: every answer that shows one — read_note, search hits,
// vault_overview, a refused write — says so here, with the places in
// conflict, both sides as text with the commits they come from, and the
// call that resolves each. This is the one renderer; the answers differ
// only in how much of each side they show.

// ConflictData is a note's conflict as an answer shows it.
type ConflictData struct {
	Summary string           `json:"summary"` // "1 unresolved merge conflict, in \"Plan > Ziele\""
	Git     string           `json:"git,omitempty"`
	Regions []ConflictRegion `json:"regions,omitempty"`
	Resolve string           `json:"resolve,omitempty"` // the call that resolves every conflict, keeping both sides
}

// ConflictRegion is one region between conflict markers.
type ConflictRegion struct {
	Where   string       `json:"section"`
	Lines   string       `json:"lines"`
	Ours    ConflictSide `json:"ours"`
	Theirs  ConflictSide `json:"theirs"`
	Resolve string       `json:"resolve,omitempty"`
}

// ConflictSide is one side of a region: its text and who wrote it.
type ConflictSide struct {
	From string `json:"from"` // "HEAD, commit 1a2b3c4 by mcp:alice at 2026-11-29 11:00 UTC: Ziele"
	Text string `json:"text"`
}

// Bounds of the sides shown: read_note shows each side up to sideChars
// (the note's text, markers and all, follows anyway), lists show a preview.
const (
	sideChars   = 1500
	sidePreview = 120
	listRegions = 3 // regions shown per note in a list
)

// resolveSummary is the change summary of a suggested resolution.
const resolveSummary = "merge conflict resolved: both sides kept"

// conflictOf describes note n's conflicts, or nil when it has none.
func (c *Core) conflictOf(n *vault.Note) *vault.NoteConflict {
	if n == nil || n.Doc == nil {
		return nil
	}
	return c.v.ConflictIn(n.Path, n.Doc)
}

// conflictData renders a conflict for the structured content and the
// text. full shows each side's text (read_note); otherwise a preview
// (lists). only, when set, limits the regions to those a section overlaps.
func conflictData(nc *vault.NoteConflict, caller Caller, full bool, only *note.Heading) *ConflictData {
	d := &ConflictData{}
	regs := nc.Regions
	if only != nil {
		regs = nil
		for _, r := range nc.Regions {
			if r.Start < only.End && r.End > only.Start {
				regs = append(regs, r)
			}
		}
	}
	places := sectionsOf(nc.Regions)
	switch {
	case len(nc.Regions) > 0:
		d.Summary = fmt.Sprintf("%s, in %s", plural(len(nc.Regions), "unresolved merge conflict", "unresolved merge conflicts"), quoteAll(places))
	case nc.OursDeleted || nc.TheirsDeleted:
		side := "ours"
		if nc.TheirsDeleted {
			side = "theirs"
		}
		d.Summary = fmt.Sprintf("unresolved merge conflict: %s deleted the note, the other side changed it", side)
	default:
		d.Summary = "git still lists the note as unmerged, but its text holds no conflict markers any more (resolved by hand, not yet marked resolved)"
	}
	switch {
	case nc.Operation != "" && nc.Unmerged && len(nc.Regions) == 0:
		d.Git = "a " + nc.Operation + " is in progress"
	case nc.Operation != "" && nc.Unmerged:
		d.Git = "a " + nc.Operation + " is in progress and git lists the note as unmerged"
	case nc.Operation != "":
		d.Git = "a " + nc.Operation + " is in progress"
	case nc.Unmerged:
		d.Git = "git lists the note as unmerged"
	default:
		d.Git = "no git operation is in progress; the markers are in the note's text"
	}
	canWrite := caller.Perms.Write
	if !full && len(regs) > listRegions {
		regs = regs[:listRegions]
	}
	for _, r := range regs {
		cr := ConflictRegion{Where: r.Where(), Lines: fmt.Sprintf("%d–%d", r.Line, r.EndLine)}
		cr.Ours = ConflictSide{From: sideFrom(r.OursLabel, nc.Ours), Text: sideText(r.Ours, full)}
		cr.Theirs = ConflictSide{From: sideFrom(r.TheirsLabel, nc.Theirs), Text: sideText(r.Theirs, full)}
		if canWrite && r.Heading >= 0 && !r.InFrontmatter {
			cr.Resolve = call{"resolve_conflict", resolveArgs(nc.Path, r.Section)}.render(caller.Door)
		}
		d.Regions = append(d.Regions, cr)
	}
	if canWrite {
		if len(nc.Regions) == 0 {
			d.Resolve = call{"resolve_conflict", []arg{{"path", nc.Path}, {"take", "current"}, {"change_summary", "merge conflict resolved by hand"}}}.render(caller.Door)
		} else {
			d.Resolve = call{"resolve_conflict", resolveArgs(nc.Path, "")}.render(caller.Door)
		}
	}
	return d
}

func resolveArgs(p, heading string) []arg {
	args := []arg{{"path", p}}
	if heading != "" {
		args = append(args, arg{"heading", heading})
	}
	return append(args, arg{"take", "both"}, arg{"change_summary", resolveSummary})
}

func sectionsOf(regs []note.Conflict) []string {
	var out []string
	for _, r := range regs {
		w := r.Where()
		if len(out) == 0 || out[len(out)-1] != w {
			out = append(out, w)
		}
	}
	return out
}

func quoteAll(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = quote(x)
	}
	return strings.Join(q, ", ")
}

// sideFrom names where a side comes from: its marker's label, and the
// commit when git knows it.
func sideFrom(label string, c *vault.Commit) string {
	if label == "" {
		label = "(no label)"
	}
	if c == nil {
		return label
	}
	return fmt.Sprintf("%s, commit %s by %s at %s: %s", label, c.Hash, c.Author, when(c.Time), c.Subject)
}

// sideText is a side's text, whole up to sideChars (full) or as a
// one-line preview.
func sideText(b []byte, full bool) string {
	s := runeString(b)
	if !full {
		if strings.TrimSpace(s) == "" {
			return "(empty)"
		}
		return cut(oneLine(s), sidePreview)
	}
	if utf8.RuneCountInString(s) > sideChars {
		r := []rune(s)
		s = string(r[:sideChars]) + fmt.Sprintf("\n… (%s more characters: the note's text below shows all of it)\n", groupDigits(len(r)-sideChars))
	}
	return s
}

// writeConflict writes a conflict into an answer's text: full for
// read_note, compact (one line per side) for lists.
func writeConflict(b *strings.Builder, d *ConflictData, full bool, caller Caller) {
	fmt.Fprintf(b, "conflict: %s (%s)\n", d.Summary, d.Git)
	switch {
	case full && len(d.Regions) > 0:
		b.WriteString("This note holds both sides of a merge between conflict markers (<<<<<<<, =======, >>>>>>>): do not rely on it as written, and resolve it before editing it — edits that keep the markers are refused.\n")
	case full:
		b.WriteString("Check that the text below reads as it should, then mark it resolved.\n")
	}
	for i, r := range d.Regions {
		if full {
			fmt.Fprintf(b, "\nconflict %d of %d, in %s, lines %s:\n", i+1, len(d.Regions), quote(r.Where), r.Lines)
			fmt.Fprintf(b, "ours (%s):\n", r.Ours.From)
			b.WriteString(fence(r.Ours.Text))
			fmt.Fprintf(b, "theirs (%s):\n", r.Theirs.From)
			b.WriteString(fence(r.Theirs.Text))
		} else {
			fmt.Fprintf(b, "in %s, lines %s:\n", quote(r.Where), r.Lines)
			fmt.Fprintf(b, "  ours: %s\n    from %s\n", r.Ours.Text, r.Ours.From)
			fmt.Fprintf(b, "  theirs: %s\n    from %s\n", r.Theirs.Text, r.Theirs.From)
		}
		if r.Resolve != "" {
			b.WriteString("resolve: " + r.Resolve + "\n")
		}
	}
	switch {
	case d.Resolve == "":
		b.WriteString("Resolving it needs the write permission, which this connection does not have: tell the user the note is in conflict.\n")
	case len(d.Regions) == 0 && caller.Door.CLI():
		b.WriteString("resolve: " + d.Resolve + "\n")
		b.WriteString("(keeps the text as it is now; or --take ours or --take theirs for that side's whole note, or --take text with the note's text in --content or --file)\n")
	case len(d.Regions) == 0:
		b.WriteString("resolve: " + d.Resolve + "\n")
		b.WriteString(`(keeps the text as it is now; or "take": "ours" or "theirs" for that side's whole note, or "take": "text" with the note's text in "content")` + "\n")
	case caller.Door.CLI():
		b.WriteString("resolve all: " + d.Resolve + "\n")
		b.WriteString("(each resolve keeps both sides, ours first; --take ours or --take theirs keeps one side, --take text with your merged text in --content or --file replaces the section's body, or without --heading the whole note)\n")
	default:
		b.WriteString("resolve all: " + d.Resolve + "\n")
		b.WriteString(`(each "resolve" keeps both sides, ours first; "take": "ours" or "theirs" keeps one side, "take": "text" with your merged text in "content" replaces the section's body, or without "heading" the whole note)` + "\n")
	}
}

// ResolveConflictArgs are the arguments of resolve_conflict.
type ResolveConflictArgs struct {
	Path            string `json:"path"`
	Heading         string `json:"heading,omitempty" jsonschema:"the section to resolve; empty: every conflict of the note" help:"resolve only the conflicts of this section: \"Ziele\" or \"Projekte > Ziele\""`
	Take            string `json:"take" jsonschema:"ours, theirs, both (ours then theirs), text (content) or current" help:"ours, theirs, both (ours, then theirs), text (with --content or --file) or current (required)"`
	Content         string `json:"content,omitempty" jsonschema:"with take text: the section's new body, or the whole note" help:"with --take text: the section's new body, or the whole note"`
	ChangeSummary   string `json:"change_summary" jsonschema:"what and why"`
	ExpectedVersion string `json:"expected_version,omitempty" jsonschema:"optional: the version you read" help:"VERSION: optional: fail if the note is no longer at this version"`
}

// ResolveConflictData is resolve_conflict's structured answer.
type ResolveConflictData struct {
	WriteData
	Remaining *ConflictData `json:"still_in_conflict,omitempty"`
}

// ResolveConflict resolves a note's merge conflicts, of one section or all.
func (c *Core) ResolveConflict(ctx context.Context, caller Caller, a ResolveConflictArgs) *Result {
	const tool = "resolve_conflict"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}}}
	if a.Heading != "" {
		f.args = append(f.args, arg{"heading", a.Heading})
	}
	f.args = append(f.args, arg{"take", a.Take})
	if a.Content != "" {
		f.args = append(f.args, arg{"content", a.Content})
	}
	f.args = append(f.args, arg{"change_summary", a.ChangeSummary})
	o := c.opts(caller, a.ChangeSummary, a.ExpectedVersion)
	if isAttachmentRef(a.Path) {
		return c.resolveAttachment(caller, f, a, o)
	}
	// A resolution by one side or both keeps text someone wrote; the
	// caller's own text may remove most of the note, and then counts as a
	// delete, as a replace does.
	g := &editGuard{caller: caller, tool: tool}
	if a.Take == vault.TakeText {
		o = g.opts(o)
	}
	res, err := c.v.ResolveConflict(a.Path, vault.ConflictResolution{Heading: a.Heading, Take: a.Take, Text: []byte(a.Content)}, o)
	g.settle()
	if err != nil {
		if r := g.refused(c, f, err); r != nil {
			return r
		}
		return changedBy(c.failWrite(caller, f, a.Path, err), res)
	}
	w := g.counted(c.written(caller, "resolve_conflict", a.Heading, a.ChangeSummary, res))
	data := ResolveConflictData{WriteData: w.Data.(WriteData)}
	if nc := c.conflictOf(res.Note); nc != nil {
		data.Remaining = conflictData(nc, caller, false, nil)
		var b strings.Builder
		b.WriteString(w.Text + "\n\nstill in conflict:\n")
		writeConflict(&b, data.Remaining, false, caller)
		w.Text = strings.TrimRight(b.String(), "\n")
	}
	w.Data = data
	// A note marked resolved in git changed even when its bytes did not.
	w.Changed = w.Changed || res.ChangeID != ""
	return w
}
