package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// maxNoteChars bounds the text of one read (AGENT-CONTRACT rule 3: stay
// far below ~25k tokens). Longer notes come as an outline plus the start;
// longer sections come in pages.
const maxNoteChars = 12000

// ReadNoteArgs are the arguments of read_note.
type ReadNoteArgs struct {
	Path          string `json:"path" jsonschema:"path, title, alias or [[wikilink]]"`
	Heading       string `json:"heading,omitempty" jsonschema:"'Ziele', '## Ziele', 'Projekte > Ziele' or the start of a heading: '§ 626'" help:"only this section: \"Ziele\", \"## Ziele\" or \"Projekte > Ziele\""`
	Offset        int    `json:"offset,omitempty" jsonschema:"characters to skip, for the next page" help:"character offset to continue a long note or section"`
	OutlineOffset int    `json:"outline_offset,omitempty" jsonschema:"outline entries to skip, for the next page of a long outline" help:"outline entries to skip, for the next page of a long outline"`
}

// ReadNoteData is read_note's structured answer.
type ReadNoteData struct {
	Note    NoteRef  `json:"note"`
	Tags    []string `json:"tags,omitempty"`
	Aliases []string `json:"aliases,omitempty"`
	Section string   `json:"section,omitempty"`
	// Content is the page shown. Over MCP it is sent once, in the text
	// (a fenced block), not again here: it was a third of a read's cost
	// (JSON-encoding the copy); the CLI's --json keeps it.
	Content  string `json:"content,omitempty"`
	Offset   int    `json:"offset,omitempty"`
	Total    int    `json:"total_chars"`
	NextPage int    `json:"next_offset,omitempty"`

	// Outline lists the sub-sections of what is shown, a page of them.
	Outline       []OutlineEntry `json:"outline,omitempty"`
	OutlineTotal  int            `json:"outline_total,omitempty"`
	OutlineOffset int            `json:"outline_offset,omitempty"`

	// Previous, Next and Up name the sections around a section read.
	Previous string `json:"previous_section,omitempty"`
	Next     string `json:"next_section,omitempty"`
	Up       string `json:"parent_section,omitempty"`

	// Properties are the frontmatter properties in file order, values
	// rendered compactly (lists as [a, b]); sent when the page shown does
	// not hold the frontmatter.
	Properties []PropertyData `json:"properties,omitempty"`

	// Conflict is set when the note holds unresolved merge conflicts.
	Conflict *ConflictData `json:"conflict,omitempty"`

	// Attachments are the files the note embeds (read_attachment shows
	// one); MoreAttachments counts those past the first 8.
	Attachments     []EmbedData `json:"attachments,omitempty"`
	MoreAttachments int         `json:"more_attachments,omitempty"`
}

// OutlineEntry is one section in an outline.
type OutlineEntry struct {
	// Heading names the section for read_note's heading argument: its own
	// text when that names it alone, else its path.
	Heading string `json:"heading"`
	Depth   int    `json:"depth"` // 1: a direct sub-section of what is shown
	Chars   int    `json:"chars"` // its characters, sub-sections included
	// Folded counts the sub-sections not listed (the outline is cut at a
	// depth that fits on a page).
	Folded int `json:"folded_sections,omitempty"`
}

// outlinePage bounds an outline page; outlineLong is the length from
// which a note (or section) shows an outline at all.
const (
	outlinePage = 40
	outlineLong = maxNoteChars
)

// ReadNote returns a note, or one section of it, with its version. The
// note may be named by path, title, alias or [[wikilink]]; an explicit
// heading argument wins over a #heading inside a wikilink.
//
// A long note (or section) comes with an outline of its sub-sections, cut
// at the depth that fits on a page and paged by outline_offset, each line
// copyable as a heading; a section comes with its previous, next and parent
// sections. offset counts characters (Unicode code points) of what is
// shown; an offset past the end is an error, never a silent restart.
func (c *Core) ReadNote(ctx context.Context, caller Caller, a ReadNoteArgs) *Result {
	const tool = "read_note"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}}}
	if a.Heading != "" {
		f.args = append(f.args, arg{"heading", a.Heading})
	}
	if strings.TrimSpace(a.Path) == "" {
		return c.fail(caller, f, &note.Error{Op: "read", Kind: note.ErrInvalid,
			Msg: "path is empty: give a note path, title, alias or [[wikilink]]"})
	}
	if looksLikePath(a.Path) {
		if err := c.badPath(a.Path); err != nil {
			return c.fail(caller, f, err)
		}
	}
	n, linkHeading, err := c.v.Find(a.Path)
	if err != nil {
		folder, isFolder := c.isFolder(a.Path)
		if isFolder && !errors.Is(err, note.ErrAmbiguous) {
			return c.folderNotNote(caller, f, "read", folder) // listed, not read
		}
		if ve, ok := note.AsError(err); ok {
			ve.Op = "read"
		}
		r := c.fail(caller, f, err)
		if isFolder {
			// Notes have the name, and a folder has it too (the folder
			// "config" beside notes named config.md): the notes are
			// what a read means, the folder one more choice.
			r.Text = beforeNext(r.Text, fmt.Sprintf("%q is also a folder: %s", folder, call{"list_notes", []arg{{"folder", folder}}}.render(caller.Door)))
		}
		return r
	}
	f.note = n
	heading := a.Heading
	if heading == "" {
		heading = linkHeading
	}
	d := n.Doc
	data := ReadNoteData{Note: refOf(n), Tags: n.Tags, Aliases: n.Aliases}

	// Not copied to a string: notes run to megabytes, a page is 12,000
	// characters.
	text, textStart := d.Src, 0
	var sub []int // the sub-sections of what is shown, for the outline
	hi := -1
	var shown *note.Heading
	if heading != "" {
		h, err := d.Section(heading)
		if err != nil {
			if ve, ok := note.AsError(err); ok {
				ve.Op, ve.Path = "read", n.Path
			}
			f.args = []arg{{"path", n.Path}, {"heading", heading}}
			return c.fail(caller, f, err)
		}
		hi = d.HeadingIndex(h)
		shown = &h
		data.Section = d.BriefPath(hi)
		text, textStart = d.Src[h.Start:h.End], h.Start
		for j := hi + 1; j < len(d.Headings) && d.Headings[j].Start < h.End; j++ {
			sub = append(sub, j)
		}
	} else {
		for j := range d.Headings {
			sub = append(sub, j)
		}
	}
	nc := c.conflictOf(n)
	if nc != nil && a.Offset == 0 {
		data.Conflict = conflictData(nc, caller, !caller.Door.CLI(), shown)
	}
	data.Total = utf8.RuneCount(text)
	if a.Offset < 0 || (a.Offset > 0 && a.Offset >= data.Total) {
		last := max(0, (data.Total-1)/maxNoteChars*maxNoteChars)
		f.args = []arg{{"path", n.Path}}
		if data.Section != "" {
			f.args = append(f.args, arg{"heading", data.Section})
		}
		r := c.fail(caller, f, &note.Error{Op: "read", Path: n.Path, Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("offset %s is past the end: offset counts characters, and this %s has %s; its last page starts at about %s",
				groupDigits(a.Offset), what(data.Section), groupDigits(data.Total), groupDigits(last))})
		r.Text += "\nnext: " + call{"read_note", append(f.args, arg{"offset", last})}.render(caller.Door)
		return r
	}

	long := data.Total > outlineLong
	// A page of a long note holds as many whole sections as fit, from the
	// offset asked for (AGENT-CONTRACT rule 22): it ends before the last
	// section that would not fit, and only a section longer than a page
	// is cut, at a line end. The outline lists the sections after it.
	page, next := pageOf(text, a.Offset, maxNoteChars)
	starts := sectionStarts(d, sub, textStart)
	if next > 0 {
		if cut := lastStartWithin(starts, a.Offset, next); cut > 0 {
			page, next = runeRange(text, a.Offset, cut), cut
		}
	}
	if len(sub) > 0 && (long || a.OutlineOffset > 0) && (next > 0 || !long) {
		// The sections not wholly on this page (the last page has none).
		from := 0
		if next > 0 {
			from = textStart + len(runeRange(text, 0, next))
		}
		data.Outline, data.OutlineTotal = outline(d, sub, a.OutlineOffset, from)
		data.OutlineOffset = a.OutlineOffset
	}
	data.Content, data.Offset, data.NextPage = page, a.Offset, next
	if hi >= 0 {
		data.Previous, data.Next, data.Up = neighbours(d, hi)
	}

	var b strings.Builder
	writeRef(&b, data.Note, "")
	if data.Section != "" {
		fmt.Fprintf(&b, "section: %s\n", data.Section)
	}
	// Properties once: in the page when it begins with the frontmatter,
	// else as a list.
	showsFrontmatter := d.HasFrontmatter && textStart == 0 && a.Offset == 0
	if !showsFrontmatter {
		data.Properties = readProperties(d)
		writeProperties(&b, data.Properties, "properties")
	}
	if inline := inlineTags(n); len(inline) > 0 {
		b.WriteString("tags: " + strings.Join(n.Tags, ", ") + "\n")
	}
	if !showsFrontmatter && len(n.Aliases) > 0 && data.Properties == nil {
		b.WriteString("aliases: " + strings.Join(n.Aliases, ", ") + "\n")
	}
	if a.Offset == 0 {
		data.Attachments, data.MoreAttachments = c.embedsOf(n)
		writeEmbeds(&b, data.Attachments, data.MoreAttachments, caller.Door)
	}
	if d.FrontmatterErr != nil {
		b.WriteString("warning: the frontmatter is not valid YAML; it is shown as written and vaultd will not rewrite it\n")
	}
	if data.Conflict != nil && !caller.Door.CLI() {
		writeConflict(&b, data.Conflict, true, caller)
		if len(nc.Regions) > 0 {
			b.WriteString("\nthe note as it is, markers included:\n")
		} else {
			b.WriteString("\nthe note as it is:\n")
		}
	}
	if a.Offset > 0 || next > 0 {
		fmt.Fprintf(&b, "showing characters %s–%s of %s (offset counts characters)\n", groupDigits(a.Offset), groupDigits(a.Offset+utf8.RuneCountInString(page)), groupDigits(data.Total))
	} else {
		fmt.Fprintf(&b, "length: %s characters\n", groupDigits(data.Total))
	}
	at := []arg{{"path", n.Path}}
	if data.Section != "" {
		at = append(at, arg{"heading", data.Section})
	}
	if len(data.Outline) > 0 {
		first, last := data.OutlineOffset+1, data.OutlineOffset+len(data.Outline)
		after := ""
		if next > 0 {
			after = " after this page"
		}
		fmt.Fprintf(&b, "\noutline%s: sections %d–%d of %d (characters each, sub-sections included; a line is a heading for read_note):\n", after, first, last, data.OutlineTotal)
		for _, e := range data.Outline {
			fmt.Fprintf(&b, "%s- %s (%s", strings.Repeat("  ", e.Depth-1), e.Heading, groupDigits(e.Chars))
			if e.Folded > 0 {
				fmt.Fprintf(&b, "; %s inside", plural(e.Folded, "section", "sections"))
			}
			b.WriteString(")\n")
		}
		if last < data.OutlineTotal {
			more := slices.Clone(at)
			if a.Offset > 0 {
				more = append(more, arg{"offset", a.Offset})
			}
			b.WriteString("more outline: " + call{"read_note", append(more, arg{"outline_offset", last})}.render(caller.Door) + "\n")
		}
	}
	if data.OutlineOffset == 0 || data.Offset > 0 {
		b.WriteString("\n")
		b.WriteString(fence(page))
	}
	if next > 0 {
		b.WriteString("more: " + call{"read_note", append(slices.Clone(at), arg{"offset", next})}.render(caller.Door) + "\n")
	}
	if len(data.Outline) > 0 {
		b.WriteString("open a section: " + call{"read_note", []arg{{"path", n.Path}, {"heading", data.Outline[0].Heading}}}.render(caller.Door) + "\n")
	}
	for _, nb := range []struct{ label, heading string }{{"previous section", data.Previous}, {"next section", data.Next}, {"parent section", data.Up}} {
		if nb.heading != "" {
			b.WriteString(nb.label + ": " + call{"read_note", []arg{{"path", n.Path}, {"heading", nb.heading}}}.render(caller.Door) + "\n")
		}
	}
	if n.NotText != nil {
		b.WriteString(notTextReadHint(n, caller))
	} else if data.Conflict != nil {
		b.WriteString("To change it: resolve its merge conflicts first (resolve above); edits that keep the markers are refused.\n")
	} else {
		b.WriteString("To change it: append_to_note or update_section with this path; replace_note needs expected_version " + data.Note.Version + ".\n")
	}
	if caller.Door.CLI() {
		return c.ReadNoteCLI(data, caller)
	}
	data.Content = ""
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

func what(section string) string {
	if section != "" {
		return "section"
	}
	return "note"
}

// inlineTags returns the note's tags that its frontmatter does not list.
func inlineTags(n *vault.Note) []string {
	return n.Doc.Tags[min(n.Doc.FrontmatterTagCount, len(n.Doc.Tags)):]
}

// ReadNoteCLI renders read_note for a person: the note's text first, its
// identity after.
func (c *Core) ReadNoteCLI(d ReadNoteData, caller Caller) *Result {
	var b strings.Builder
	b.WriteString(d.Content)
	if !strings.HasSuffix(d.Content, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("---\n")
	writeRef(&b, d.Note, "")
	if d.Section != "" {
		b.WriteString("section: " + d.Section + "\n")
	}
	writeEmbeds(&b, d.Attachments, d.MoreAttachments, DoorCLI)
	if d.NextPage > 0 {
		fmt.Fprintf(&b, "showing characters %s–%s of %s; more: --offset %d\n", groupDigits(d.Offset), groupDigits(d.Offset+utf8.RuneCountInString(d.Content)), groupDigits(d.Total), d.NextPage)
	}
	if len(d.Outline) > 0 {
		fmt.Fprintf(&b, "outline (sections %d–%d of %d):\n", d.OutlineOffset+1, d.OutlineOffset+len(d.Outline), d.OutlineTotal)
		for _, e := range d.Outline {
			fmt.Fprintf(&b, "%s- %s (%s)\n", strings.Repeat("  ", e.Depth-1), e.Heading, groupDigits(e.Chars))
		}
		if last := d.OutlineOffset + len(d.Outline); last < d.OutlineTotal {
			fmt.Fprintf(&b, "more outline: --outline-offset %d\n", last)
		}
	}
	for _, nb := range []struct{ label, heading string }{{"previous section", d.Previous}, {"next section", d.Next}, {"parent section", d.Up}} {
		if nb.heading != "" {
			fmt.Fprintf(&b, "%s: --heading %s\n", nb.label, shellQuote(nb.heading))
		}
	}
	if d.Conflict != nil {
		writeConflict(&b, d.Conflict, false, caller)
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: d}
}

// outline lists the sub-sections sub (heading indexes, in order) of what
// is shown that end after byte from of d.Src (the sections not wholly on
// the page shown), from entry offset on: cut at the deepest depth at which
// that outline fits on a page (at least the direct sub-sections), each
// with its size and the number of sections folded inside it. It returns
// the page and the number of entries in all.
func outline(d *note.Doc, sub []int, offset, from int) ([]OutlineEntry, int) {
	depth := make([]int, len(sub))
	var stack []int // levels of the open ancestors within sub
	for k, i := range sub {
		lvl := d.Headings[i].Level
		for len(stack) > 0 && stack[len(stack)-1] >= lvl {
			stack = stack[:len(stack)-1]
		}
		depth[k] = len(stack) + 1
		stack = append(stack, lvl)
	}
	// A title heading that holds everything (a law's H1, a note's own
	// name) is not a level worth a line: its sub-sections come first.
	for {
		top := 0
		for _, dp := range depth {
			if dp == 1 {
				top++
			}
		}
		if top != 1 || len(sub) < 2 || depth[0] != 1 {
			break
		}
		sub, depth = sub[1:], depth[1:]
		for k := range depth {
			depth[k]--
		}
	}
	if from > 0 {
		var keepSub, keepDepth []int
		for k, i := range sub {
			if d.Headings[i].End > from {
				keepSub, keepDepth = append(keepSub, i), append(keepDepth, depth[k])
			}
		}
		sub, depth = keepSub, keepDepth
	}
	count := map[int]int{}
	maxDepth := 0
	for _, dp := range depth {
		count[dp]++
		maxDepth = max(maxDepth, dp)
	}
	cut, n := 1, count[1]
	for dp := 2; dp <= maxDepth && n+count[dp] <= outlinePage; dp++ {
		cut, n = dp, n+count[dp]
	}
	var shown []int // positions in sub
	for k := range sub {
		if depth[k] <= cut {
			shown = append(shown, k)
		}
	}
	total := len(shown)
	if offset >= total {
		return nil, total
	}
	shown = shown[offset:min(total, offset+outlinePage)]
	idx := make([]int, len(shown))
	for j, k := range shown {
		idx[j] = sub[k]
	}
	names := d.ShortAddresses(idx)
	hs := make([]note.Heading, len(idx))
	for j, i := range idx {
		hs[j] = d.Headings[i]
	}
	runesAt := runeOffsets(d.Src, hs)
	out := make([]OutlineEntry, len(shown))
	for j, k := range shown {
		h := hs[j]
		chars, ok := runesAt[h.End]-runesAt[h.Start], runesAt != nil
		if !ok {
			chars = utf8.RuneCount(d.Src[h.Start:h.End])
		}
		folded := 0
		for m := k + 1; m < len(sub) && d.Headings[sub[m]].Start < h.End; m++ {
			if depth[m] > cut {
				folded++
			}
		}
		out[j] = OutlineEntry{Heading: names[j], Depth: depth[k], Chars: chars, Folded: folded}
	}
	return out, total
}

// neighbours names the sections around heading i: the one before it at its
// level under the same parent, the one after it (the next heading outside
// it), and its parent.
func neighbours(d *note.Doc, i int) (prev, next, up string) {
	h := d.Headings[i]
	var idx []int
	var which []string
	for j := i - 1; j >= 0; j-- {
		if g := d.Headings[j]; g.Level < h.Level {
			idx, which = append(idx, j), append(which, "up")
			break
		} else if g.Level == h.Level {
			idx, which = append(idx, j), append(which, "prev")
			break
		}
	}
	if which != nil && which[0] == "prev" {
		for j := i - 1; j >= 0; j-- {
			if d.Headings[j].Level < h.Level {
				idx, which = append(idx, j), append(which, "up")
				break
			}
		}
	}
	for j := i + 1; j < len(d.Headings); j++ {
		if d.Headings[j].Start >= h.End {
			idx, which = append(idx, j), append(which, "next")
			break
		}
	}
	names := d.ShortAddresses(idx)
	for k, w := range which {
		switch w {
		case "prev":
			prev = names[k]
		case "next":
			next = names[k]
		case "up":
			up = names[k]
		}
	}
	return prev, next, up
}

// runeOffsets maps each section bound of hs to its rune offset in src. A
// bound starts a line, so no rune (nor invalid byte) straddles it and the
// counts between bounds add up to the count of a whole section. nil if a
// bound is not at a line start (then count each section).
func runeOffsets(src []byte, hs []note.Heading) map[int]int {
	var bounds []int
	for _, h := range hs {
		bounds = append(bounds, h.Start, h.End)
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	at := make(map[int]int, len(bounds))
	prev, n := 0, 0
	for _, b := range bounds {
		if b < prev || b > len(src) || (b > 0 && b < len(src) && src[b-1] != '\n' && src[b-1] != '\r') {
			return nil
		}
		n += utf8.RuneCount(src[prev:b])
		at[b], prev = n, b
	}
	return at
}

func stripOutline(s string) string {
	if i := strings.LastIndex(s, ": "); i > 0 {
		return s[:i]
	}
	return s
}

// pageOf returns up to max runes of s from rune offset off, cut at a line
// end when one is near, and the offset of the next page (0 if none).
// Offsets count runes as a conversion to []rune does (an invalid byte is one
// rune, shown as U+FFFD), without converting the whole note: a read of the
// first page of a 2 MB law should cost its page, not the law.
func pageOf(s []byte, off, max int) (string, int) {
	from := 0
	if off > 0 {
		from = skipRunes(s, 0, off)
	}
	if off < 0 || (from == len(s) && utf8.RuneCount(s) < off) {
		off, from = 0, 0 // past the end: from the start
	}
	half := skipRunes(s, from, max/2) // rune off+max/2
	to := skipRunes(s, half, max-max/2)
	if to == len(s) { // the rest fits
		return runeString(s[from:]), 0
	}
	end := off + max
	// The last line end among runes off+max/2 … end-1 ends the page there
	// ('\n' is a rune of its own, also among invalid bytes).
	if nl := bytes.LastIndexByte(s[half:to], '\n'); nl >= 0 {
		to = half + nl + 1
		end = off + max/2 + utf8.RuneCount(s[half:to])
	}
	return runeString(s[from:to]), end
}

// sectionStarts returns, for each heading of sub, the rune offset of its
// line in the text shown (which starts at byte textStart of d.Src).
func sectionStarts(d *note.Doc, sub []int, textStart int) []int {
	if len(sub) == 0 {
		return nil
	}
	out := make([]int, len(sub))
	at, n := textStart, 0
	for k, i := range sub {
		h := d.Headings[i].Start
		if h > at {
			n += utf8.RuneCount(d.Src[at:h])
			at = h
		}
		out[k] = n
	}
	return out
}

// lastStartWithin is the last section start after from and at most to
// (rune offsets), 0 if none: where a page of whole sections ends.
func lastStartWithin(starts []int, from, to int) int {
	cut := 0
	for _, s := range starts {
		if s > from && s <= to {
			cut = s
		}
	}
	return cut
}

// runeRange returns the runes from..to of s as a string (an invalid byte
// is one rune, shown as U+FFFD, as in pageOf).
func runeRange(s []byte, from, to int) string {
	i := skipRunes(s, 0, from)
	j := skipRunes(s, i, to-from)
	return runeString(s[i:j])
}

// readProperties is propertiesData(d), remembered by the frontmatter's
// bytes (on which alone it depends): the YAML parse was a sixth of a read's
// CPU under load.
func readProperties(d *note.Doc) []PropertyData {
	if !d.HasFrontmatter {
		return nil
	}
	key := string(d.Src[:d.BodyStart])
	if out, ok := readProps.get(key); ok {
		return out
	}
	out := propertiesData(d)
	readProps.put(key, out)
	return out
}

// skipRunes returns the byte offset n runes after byte offset i.
func skipRunes(s []byte, i, n int) int {
	for ; n > 0 && i < len(s); n-- {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, w := utf8.DecodeRune(s[i:])
		i += w
	}
	return i
}

// runeString is string([]rune(string(b))): invalid bytes become U+FFFD.
func runeString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string([]rune(string(b)))
}

// ListNotesArgs are the arguments of list_notes.
type ListNotesArgs struct {
	Folder string `json:"folder,omitempty" jsonschema:"empty: the vault root"`
	Sort   string `json:"sort,omitempty" jsonschema:"name or changed" default:"name" help:"name, or changed (newest first, all sub-folders)"`
	Limit  int    `json:"limit,omitempty" default:"30" help:"notes per page (at most 100)"`
	Offset int    `json:"offset,omitempty" help:"notes to skip, for the next page"`
}

// FolderInfo is a sub-folder in a listing.
type FolderInfo struct {
	Path  string `json:"path"`
	Notes int    `json:"notes"`
	// Note is the folder's own note when it has one (a folder note:
	// "Name/index.md", "Name/README.md", "Name/Name.md").
	Note *NoteRef `json:"folder_note,omitempty"`
}

// ListedNote is a note in a listing.
type ListedNote struct {
	NoteRef
	Modified string `json:"modified"`
}

// ListNotesData is list_notes' structured answer.
type ListNotesData struct {
	Folder  string       `json:"folder"`
	Sort    string       `json:"sort"`
	Folders []FolderInfo `json:"folders,omitempty"`
	Notes   []ListedNote `json:"notes"`
	// Total counts what the listing pages through: sub-folders and notes
	// (by name), or notes (by change).
	Total        int `json:"total"`
	TotalFolders int `json:"total_folders,omitempty"`
	TotalNotes   int `json:"total_notes"`
	Offset       int `json:"offset"`
	// Excluded is what Obsidian's "Excluded files" left out.
	Excluded *ExcludedData `json:"excluded_by_obsidian,omitempty"`
}

// ListNotes lists a folder: its sub-folders with note counts, then its
// notes, by name; or, sorted by change, every note below it, newest first
// — so "what did I work on this week" is one call. Sub-folders and notes
// are paged together (limit, offset). Only the notes shown are read: the
// listing itself needs one stat per file below the folder, never a parse.
// Trash is never listed.
func (c *Core) ListNotes(ctx context.Context, caller Caller, a ListNotesArgs) *Result {
	const tool = "list_notes"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Folder, args: []arg{{"folder", a.Folder}}}
	folder, err := cleanFolder(a.Folder)
	if err != nil {
		return c.fail(caller, f, err)
	}
	sortBy := a.Sort
	switch sortBy {
	case "", "name":
		sortBy = "name"
	case "changed", "modified", "recent":
		sortBy = "changed"
	default:
		return c.fail(caller, f, &note.Error{Op: "list", Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("sort %q is not known; use \"name\" or \"changed\"", a.Sort), Alternatives: []string{"name", "changed"}})
	}
	lim := a.Limit
	if lim <= 0 {
		lim = 30
	}
	lim = min(lim, 100)
	offset := max(a.Offset, 0)

	var entries []vault.Entry
	x := c.exclusionsFor(folder)
	hidden, firstHidden := 0, ""
	werr := c.v.WalkDir(folder, func(e vault.Entry) error {
		if !e.Note {
			return nil
		}
		if x.hides(e.Path) {
			// The first hidden note, one in an excluded folder if any:
			// its folder is the listing that shows them.
			if hidden++; firstHidden == "" || x.folderOf(firstHidden) == "" && x.folderOf(e.Path) != "" {
				firstHidden = e.Path
			}
			return nil
		}
		entries = append(entries, e)
		return nil
	})
	if werr != nil {
		if errors.Is(werr, note.ErrNotFound) || (folder != "" && !c.v.Exists(folder)) {
			var folders []string
			_ = c.v.Walk(func(e vault.Entry) error {
				if d := path.Dir(e.Path); d != "." {
					folders = append(folders, d)
				}
				return nil
			})
			err := &note.Error{Op: "list", Path: folder, Kind: note.ErrNotFound, Msg: "no such folder",
				Alternatives: vault.ClosestNotes(uniqueFolders(folders), folder, maxAlternatives), AltKind: "folders"}
			return c.fail(caller, failure{tool: tool, path: folder, args: []arg{{"folder", folder}}}, err)
		}
		return c.fail(caller, f, werr)
	}
	prefix := ""
	if folder != "" {
		prefix = folder + "/"
	}
	subCount := map[string]int{}
	var direct []vault.Entry
	for _, e := range entries {
		rest := strings.TrimPrefix(e.Path, prefix)
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			subCount[prefix+rest[:i]]++
			continue
		}
		direct = append(direct, e)
	}
	data := ListNotesData{Folder: folder, Sort: sortBy, Offset: offset, Excluded: x.data(hidden, firstHidden)}
	var pageNotes []vault.Entry
	if sortBy == "changed" {
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].ModTime.After(entries[j].ModTime) })
		data.Total, data.TotalNotes = len(entries), len(entries)
		pageNotes = entries[min(offset, len(entries)):min(offset+lim, len(entries))]
	} else {
		sort.SliceStable(direct, func(i, j int) bool { return strings.ToLower(direct[i].Path) < strings.ToLower(direct[j].Path) })
		subs := sortedKeys(subCount)
		data.TotalFolders, data.TotalNotes = len(subs), len(direct)
		data.Total = len(subs) + len(direct)
		for i := offset; i < min(offset+lim, data.Total); i++ {
			if i < len(subs) {
				fi := FolderInfo{Path: subs[i], Notes: subCount[subs[i]]}
				if n := c.folderNote(subs[i]); n != nil {
					ref := refOf(n)
					fi.Note = &ref
				}
				data.Folders = append(data.Folders, fi)
				continue
			}
			pageNotes = append(pageNotes, direct[i-len(subs)])
		}
	}
	for _, e := range pageNotes {
		if n, err := c.v.Read(e.Path); err == nil {
			data.Notes = append(data.Notes, ListedNote{NoteRef: refOf(n), Modified: when(n.ModTime)})
		}
	}

	var b strings.Builder
	where := "the vault root"
	if folder != "" {
		where = "folder " + folder
	}
	if sortBy == "changed" {
		fmt.Fprintf(&b, "notes in %s and all its sub-folders, sorted by changed (newest first)\n", where)
	} else {
		fmt.Fprintf(&b, "%s, sorted by name: %s and %s\n", where, plural(data.TotalFolders, "sub-folder", "sub-folders"), plural(data.TotalNotes, "note", "notes"))
	}
	shown := len(data.Folders) + len(data.Notes)
	if d := data.Excluded; d != nil {
		more := &call{"read_note", []arg{{"path", firstHidden}}}
		if d.Folder != "" {
			more = &call{"list_notes", []arg{{"folder", d.Folder}}}
		}
		writeExcluded(&b, d, "below "+strings.TrimPrefix(where, "folder "), more, caller)
	}
	switch {
	case data.Total == 0:
		fmt.Fprintf(&b, "no notes in %s.\n", where)
	case shown == 0:
		fmt.Fprintf(&b, "nothing at offset %d; there are %d entries.\n", offset, data.Total)
	default:
		fmt.Fprintf(&b, "showing %d–%d of %d:\n", offset+1, offset+shown, data.Total)
	}
	if len(data.Folders) > 0 {
		b.WriteString("sub-folders:\n")
		for _, fi := range data.Folders {
			fmt.Fprintf(&b, "- %s/ (%s)\n", fi.Path, plural(fi.Notes, "note", "notes"))
			if fi.Note != nil {
				b.WriteString("  its folder note:\n")
				writeRef(&b, *fi.Note, "  ")
			}
		}
	}
	if len(data.Notes) > 0 {
		if len(data.Folders) > 0 {
			b.WriteString("notes:\n")
		}
		for _, n := range data.Notes {
			b.WriteString("\n")
			writeRef(&b, n.NoteRef, "")
			fmt.Fprintf(&b, "modified: %s\n", n.Modified)
		}
	}
	if next := offset + shown; shown > 0 && next < data.Total {
		var args []arg
		if folder != "" {
			args = append(args, arg{"folder", folder})
		}
		if sortBy != "name" {
			args = append(args, arg{"sort", sortBy})
		}
		if a.Limit > 0 {
			args = append(args, arg{"limit", lim})
		}
		args = append(args, arg{"offset", next})
		b.WriteString("\nnext page: " + call{"list_notes", args}.render(caller.Door) + "\n")
	} else if len(data.Folders) > 0 {
		b.WriteString("\nopen a sub-folder: " + call{"list_notes", []arg{{"folder", data.Folders[0].Path}}}.render(caller.Door) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// folderNote returns a folder's own note, if it has one: "index.md",
// "README.md" or the folder's own name ("Name/Name.md").
func (c *Core) folderNote(folder string) *vault.Note {
	for _, name := range []string{path.Base(folder) + ".md", "index.md", "README.md", "Readme.md", "readme.md"} {
		p := folder + "/" + name
		// Stat first: a failed Read looks for the closest notes.
		if fi, err := fs.Stat(c.v.FS(), p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if n, err := c.v.Read(p); err == nil && n.Path == p {
			return n
		}
	}
	return nil
}

func uniqueFolders(dirs []string) []string {
	seen := map[string]bool{}
	for _, d := range dirs {
		for ; d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
		}
	}
	return sortedKeys(seen)
}

// folders lists every folder that holds notes.
func (c *Core) folders(notes []*vault.Note) []string {
	seen := map[string]bool{}
	for _, n := range notes {
		for d := path.Dir(n.Path); d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
		}
	}
	return sortedKeys(seen)
}

// isFolder reports whether ref names a folder of the vault (and not a note
// beside it), and returns it clean.
func (c *Core) isFolder(ref string) (string, bool) {
	folder, err := cleanFolder(ref)
	if err != nil || folder == "" {
		return "", false
	}
	fi, err := fs.Stat(c.v.FS(), folder)
	return folder, err == nil && fi.IsDir()
}

// looksLikePath tells a path ("1_Projekte/X.md") from a title, alias or
// [[wikilink]].
func looksLikePath(ref string) bool {
	ref = strings.TrimSpace(ref)
	if strings.HasPrefix(ref, "[[") {
		return false
	}
	return strings.Contains(ref, "/") || strings.Contains(ref, `\`) || strings.HasSuffix(strings.ToLower(ref), ".md")
}

// badPath returns why ref, which looks like a path, cannot be one (it
// leaves the vault, names a hidden folder, a part is too long …) — unless
// it names a note anyway: a title may hold slashes and run past any file
// name's length ("Gesetz zur Ausführung der Verordnung (EG) Nr.
// 1013/2006 …", 300 characters), and is found by it.
func (c *Core) badPath(ref string) error {
	_, err := note.CleanPath(ref)
	if err == nil {
		return nil
	}
	if _, _, ferr := c.v.Find(ref); ferr == nil {
		return nil
	}
	return err
}

// cleanFolder reads a folder argument: "" is the vault root; slashes around
// it are dropped; anything else must be a valid vault path.
func cleanFolder(folder string) (string, error) {
	folder = strings.Trim(strings.TrimSpace(folder), "/")
	if folder == "" {
		return "", nil
	}
	return note.CleanPath(folder)
}

// folderNotNote is the answer to a note tool given a folder: it is one,
// and list_notes lists its notes.
func (c *Core) folderNotNote(caller Caller, f failure, op, folder string) *Result {
	r := c.fail(caller, f, &note.Error{Op: op, Path: folder, Kind: note.ErrInvalidPath, Msg: "is a folder, not a note"})
	r.Text = dropNext(r.Text) + "\nnext: " + call{"list_notes", []arg{{"folder", folder}}}.render(caller.Door)
	return r
}

// beforeNext inserts line into an answer's text before its first next:
// line (at the end when it has none).
func beforeNext(text, line string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "next: ") {
			return strings.Join(slices.Insert(lines, i, line), "\n")
		}
	}
	return text + "\n" + line
}
