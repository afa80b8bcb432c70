package note

import (
	"bytes"
	"strings"
)

// Unresolved merge conflicts in a note's text: the regions git (or the
// section merge of merge.go) leaves between conflict markers when both
// sides changed the same lines:
//
//	<<<<<<< HEAD
//	what this clone had
//	||||||| base            (only with merge.conflictStyle diff3)
//	what both started from
//	=======
//	what the other side had
//	>>>>>>> origin/main
//
// Such a note is not text anyone wrote: vaultd reports it as in conflict
// wherever it shows it, refuses edits that would keep the markers, and
// resolves it only when asked (ResolveConflict). Markers count only at the
// start of a line, with git's default size of seven, outside fenced code
// blocks (a note about git may show markers in a ``` block), and only as a
// complete region: opening, separator and closing marker in that order.

// markerLen is the length of git's conflict markers (conflict-marker-size
// 7, git's default).
const markerLen = 7

// Conflict is one region of a note between conflict markers.
type Conflict struct {
	Start, End    int    // bytes: the start of the "<<<<<<<" line to just past the ">>>>>>>" line (its line ending included)
	Line, EndLine int    // 1-based lines of the "<<<<<<<" and ">>>>>>>" markers
	OursLabel     string // what follows "<<<<<<< ": "HEAD", a branch, a commit
	TheirsLabel   string // what follows ">>>>>>> "
	Ours, Theirs  []byte // the two sides, line endings included
	Base          []byte // the common base between "|||||||" and "=======" (diff3 style); nil without
	// Heading is the index in Doc.Headings of the section the region
	// starts in, -1 before the first heading; Section names that section
	// as HeadingPaths does ("" before the first heading). Set by Parse.
	Heading int
	Section string
	// InFrontmatter: the region starts inside the frontmatter (a property
	// both sides changed).
	InFrontmatter bool

	markers [][2]int // the marker lines, [start, end) without the line ending; Parse blanks them
}

// FindConflicts returns the complete conflict regions of src, in order. It
// is pure and cheap on notes without markers (one bytes.Index). Heading
// and Section are left unset (-1, ""): Parse sets them.
func FindConflicts(src []byte) []Conflict {
	if !bytes.Contains(src, []byte("<<<<<<<")) {
		return nil
	}
	var (
		out   []Conflict
		cur   *Conflict
		state int // 0 outside a region; 1 ours; 2 base; 3 theirs
		part  int // where the current side's text starts
		fence []byte
		line  = 1
	)
	for off := 0; off < len(src); line++ {
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src)
		if end < 0 {
			end = len(src)
		} else {
			end += off
			next = end + 1
		}
		text := bytes.TrimSuffix(src[off:end], []byte("\r"))
		kind, label := markerKind(text)
		switch {
		case state == 0 && fence != nil:
			if closesFence(text, fence) {
				fence = nil
			}
		case state == 0 && kind == '<':
			cur = &Conflict{Start: off, Line: line, OursLabel: label, Heading: -1}
			cur.markers = append(cur.markers, [2]int{off, off + len(text)})
			state, part = 1, next
		case state == 0:
			fence = opensFence(text)
		case kind == '<': // a new region before this one closed: start over there
			cur = &Conflict{Start: off, Line: line, OursLabel: label, Heading: -1}
			cur.markers = append(cur.markers, [2]int{off, off + len(text)})
			state, part = 1, next
		case state == 1 && kind == '|':
			cur.Ours = src[part:off]
			cur.markers = append(cur.markers, [2]int{off, off + len(text)})
			state, part = 2, next
		case (state == 1 || state == 2) && kind == '=':
			if state == 1 {
				cur.Ours = src[part:off]
			} else {
				cur.Base = src[part:off]
			}
			cur.markers = append(cur.markers, [2]int{off, off + len(text)})
			state, part = 3, next
		case state == 3 && kind == '>':
			cur.Theirs = src[part:off]
			cur.TheirsLabel = label
			cur.markers = append(cur.markers, [2]int{off, off + len(text)})
			cur.End, cur.EndLine = next, line
			out = append(out, *cur)
			cur, state = nil, 0
		case kind == '>' || kind == '|' && state != 1:
			cur, state = nil, 0 // out of order: not a conflict region
		}
		off = next
	}
	return out
}

// markerKind reports whether line is a conflict marker: '<', '|', '=' or
// '>' with its label, or 0. A marker is exactly seven of its character at
// the start of the line, then the end of the line or a space and a label;
// "=======" takes no label.
func markerKind(line []byte) (byte, string) {
	if len(line) < markerLen {
		return 0, ""
	}
	c := line[0]
	if c != '<' && c != '|' && c != '=' && c != '>' {
		return 0, ""
	}
	for i := 1; i < markerLen; i++ {
		if line[i] != c {
			return 0, ""
		}
	}
	rest := line[markerLen:]
	switch {
	case len(rest) == 0:
		return c, ""
	case c == '=':
		if len(bytes.TrimRight(rest, " \t")) == 0 {
			return c, ""
		}
		return 0, ""
	case rest[0] == ' ':
		return c, strings.TrimSpace(string(rest))
	}
	return 0, ""
}

// opensFence returns the fence a line opens (``` or ~~~, three or more,
// after any indentation), or nil.
func opensFence(line []byte) []byte {
	t := bytes.TrimLeft(line, " \t")
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return nil
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && bytes.IndexByte(t[n:], '`') >= 0) {
		return nil
	}
	return t[:n]
}

// closesFence reports whether line closes fence: the same character, at
// least as many, nothing but white space after.
func closesFence(line, fence []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	n := 0
	for n < len(t) && t[n] == fence[0] {
		n++
	}
	return n >= len(fence) && len(bytes.TrimSpace(t[n:])) == 0
}

// HasConflicts reports whether src holds a complete conflict region.
func HasConflicts(src []byte) bool { return len(FindConflicts(src)) > 0 }

// maskConflictMarkers blanks the marker lines of the regions in masked (a
// copy of the note of the same length): to the markdown parser "=======" under a
// line is a setext heading and ">>>>>>>" a block quote, which would invent
// sections that nobody wrote.
func maskConflictMarkers(masked []byte, cs []Conflict) {
	for _, c := range cs {
		for _, m := range c.markers {
			for i := m[0]; i < m[1]; i++ {
				masked[i] = ' '
			}
		}
	}
}

// placeConflicts sets each region's section: the innermost heading whose
// section holds the region's first line.
func (d *Doc) placeConflicts() {
	if len(d.Conflicts) == 0 {
		return
	}
	var a *addresser
	for i := range d.Conflicts {
		c := &d.Conflicts[i]
		c.InFrontmatter = d.HasFrontmatter && c.Start < d.BodyStart
		c.Heading, c.Section = -1, ""
		for j, h := range d.Headings {
			if h.Start > c.Start {
				break
			}
			if c.Start < h.End {
				c.Heading = j
			}
		}
		if c.Heading >= 0 {
			if a == nil {
				a = d.addresser()
			}
			c.Section = a.address(c.Heading)
		}
	}
}

// ConflictSections lists the sections of cs once each, in order; a region
// before the first heading is "the frontmatter" or "the text before the
// first heading".
func ConflictSections(cs []Conflict) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cs {
		s := c.Where()
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Where names the place of a region for people: its section's path, or
// "the frontmatter", or "the text before the first heading".
func (c Conflict) Where() string {
	switch {
	case c.InFrontmatter:
		return "the frontmatter"
	case c.Heading < 0:
		return "the text before the first heading"
	}
	return c.Section
}
