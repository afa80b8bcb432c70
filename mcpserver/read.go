package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vaultd/vaultd/vault"
)

// maxNoteChars bounds the text of one read (AGENT-CONTRACT rule 3: stay
// far below ~25k tokens). Longer notes come as an outline plus the start;
// longer sections come in pages.
const maxNoteChars = 12000

// ReadNoteArgs are the arguments of read_note.
type ReadNoteArgs struct {
	Path    string `json:"path" jsonschema:"path, title, alias or [[wikilink]]"`
	Heading string `json:"heading,omitempty" jsonschema:"'Ziele', '## Ziele' or 'Projekte > Ziele'"`
	Offset  int    `json:"offset,omitempty"`
}

// ReadNoteData is read_note's structured answer.
type ReadNoteData struct {
	Note     NoteRef  `json:"note"`
	Tags     []string `json:"tags,omitempty"`
	Aliases  []string `json:"aliases,omitempty"`
	Section  string   `json:"section,omitempty"`
	Content  string   `json:"content"`
	Offset   int      `json:"offset,omitempty"`
	Total    int      `json:"total_chars"`
	Outline  []string `json:"outline,omitempty"`
	NextPage int      `json:"next_offset,omitempty"`

	// Properties are the frontmatter properties in file order, values
	// rendered compactly (lists as [a, b]).
	Properties []PropertyData `json:"properties,omitempty"`

	// Conflict is set when the note holds unresolved merge conflicts.
	Conflict *ConflictData `json:"conflict,omitempty"`
}

// ReadNote returns a note, or one section of it, with its version. The
// note may be named by path, title, alias or [[wikilink]]; an explicit
// heading argument wins over a #heading inside a wikilink.
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
		return c.fail(caller, f, &vault.Error{Op: "read", Kind: vault.ErrInvalid,
			Msg: "path is empty: give a note path, title, alias or [[wikilink]]"})
	}
	if looksLikePath(a.Path) {
		if _, err := vault.CleanPath(a.Path); err != nil {
			return c.fail(caller, f, err)
		}
	}
	n, linkHeading, err := c.v.Find(a.Path)
	if err != nil {
		if ve, ok := vault.AsError(err); ok {
			ve.Op = "read"
		}
		return c.fail(caller, f, err)
	}
	f.note = n
	heading := a.Heading
	if heading == "" {
		heading = linkHeading
	}
	d := n.Doc
	data := ReadNoteData{Note: refOf(n), Tags: n.Tags, Aliases: n.Aliases}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", n.Title)
	writeRef(&b, data.Note, "")
	if len(n.Tags) > 0 {
		b.WriteString("tags: " + strings.Join(n.Tags, ", ") + "\n")
	}
	if len(n.Aliases) > 0 {
		b.WriteString("aliases: " + strings.Join(n.Aliases, ", ") + "\n")
	}
	data.Properties = readProperties(d)
	writeProperties(&b, data.Properties, "properties")
	if d.FrontmatterErr != nil {
		b.WriteString("warning: the frontmatter is not valid YAML; it is shown as written and vaultd will not rewrite it\n")
	}

	// Not copied to a string: notes run to megabytes, a page is 12,000
	// characters.
	text := d.Src
	var sub []vault.Heading // sub-sections of what is shown, for the outline
	var shown *vault.Heading
	if heading != "" {
		h, err := d.Section(heading)
		if err != nil {
			if ve, ok := vault.AsError(err); ok {
				ve.Op, ve.Path = "read", n.Path
			}
			f.args = []arg{{"path", n.Path}, {"heading", heading}}
			return c.fail(caller, f, err)
		}
		shown = &h
		data.Section = h.PathString()
		text = d.Src[h.Start:h.End]
		for _, s := range d.Headings {
			if s.Start > h.Start && s.Start < h.End {
				sub = append(sub, s)
			}
		}
		fmt.Fprintf(&b, "section: %s\n", data.Section)
	} else {
		sub = d.Headings
	}
	if nc := c.conflictOf(n); nc != nil && a.Offset == 0 {
		data.Conflict = conflictData(nc, caller, caller.Door != DoorCLI, shown)
		if caller.Door != DoorCLI {
			writeConflict(&b, data.Conflict, true, caller)
			if len(nc.Regions) > 0 {
				b.WriteString("\nthe note as it is, markers included:\n")
			} else {
				b.WriteString("\nthe note as it is:\n")
			}
		}
	}
	data.Total = utf8.RuneCount(text)

	// Long: outline plus one page, and the exact call for the rest.
	long := data.Total > maxNoteChars
	if long && len(sub) > 0 && a.Offset == 0 {
		data.Outline = outline(d, sub)
	}
	page, next := pageOf(text, a.Offset, maxNoteChars)
	data.Content = page
	data.Offset = a.Offset
	data.NextPage = next
	if a.Offset > 0 || long {
		fmt.Fprintf(&b, "showing characters %s–%s of %s\n", groupDigits(a.Offset), groupDigits(a.Offset+utf8.RuneCountInString(page)), groupDigits(data.Total))
	} else {
		fmt.Fprintf(&b, "length: %s characters\n", groupDigits(data.Total))
	}
	if len(data.Outline) > 0 {
		b.WriteString("\nThis is long. Outline (section: characters):\n")
		for _, o := range data.Outline {
			b.WriteString("- " + o + "\n")
		}
	}
	b.WriteString("\n")
	b.WriteString(fence(page))
	if next > 0 {
		args := []arg{{"path", n.Path}}
		if data.Section != "" {
			args = append(args, arg{"heading", data.Section})
		}
		args = append(args, arg{"offset", next})
		b.WriteString("more: " + call{"read_note", args}.render(caller.Door) + "\n")
		if len(data.Outline) > 0 {
			first := stripOutline(data.Outline[0])
			b.WriteString("or read one section: " + call{"read_note", []arg{{"path", n.Path}, {"heading", first}}}.render(caller.Door) + "\n")
		}
	}
	if data.Conflict != nil {
		b.WriteString("To change it: resolve its merge conflicts first (resolve above); edits that keep the markers are refused.\n")
	} else {
		b.WriteString("To change it: append_to_note or update_section with this path; replace_note needs expected_version " + data.Note.Version + ".\n")
	}
	if caller.Door == DoorCLI {
		b.Reset()
		return c.ReadNoteCLI(data, caller)
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
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
	if d.NextPage > 0 {
		fmt.Fprintf(&b, "showing characters %s–%s of %s; more: --offset %d\n", groupDigits(d.Offset), groupDigits(d.Offset+utf8.RuneCountInString(d.Content)), groupDigits(d.Total), d.NextPage)
	}
	if len(d.Outline) > 0 {
		b.WriteString("outline:\n")
		for _, o := range d.Outline {
			b.WriteString("- " + o + "\n")
		}
	}
	if d.Conflict != nil {
		writeConflict(&b, d.Conflict, false, caller)
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: d}
}

// outline lists sections as "Path > To > Heading: N chars", at most 40.
func outline(d *vault.Doc, hs []vault.Heading) []string {
	// Sections nest (a title's section holds the whole note), so counting
	// each one's runes anew counted a long note many times over; the
	// counts are taken once, between the sorted section bounds.
	runesAt := runeOffsets(d.Src, hs[:min(len(hs), 40)])
	var out []string
	for i, h := range hs {
		if i == 40 {
			out = append(out, fmt.Sprintf("… %d more sections", len(hs)-40))
			break
		}
		n, ok := runesAt[h.End]-runesAt[h.Start], runesAt != nil
		if !ok {
			n = utf8.RuneCount(d.Src[h.Start:h.End])
		}
		out = append(out, fmt.Sprintf("%s: %s", h.PathString(), groupDigits(n)))
	}
	return out
}

// runeOffsets maps each section bound of hs to its rune offset in src. A
// bound starts a line, so no rune (nor invalid byte) straddles it and the
// counts between bounds add up to the count of a whole section. nil if a
// bound is not at a line start (then count each section).
func runeOffsets(src []byte, hs []vault.Heading) map[int]int {
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

// readProperties is propertiesData(d), remembered by the frontmatter's
// bytes (on which alone it depends): the YAML parse was a sixth of a read's
// CPU under load.
func readProperties(d *vault.Doc) []PropertyData {
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
	Sort   string `json:"sort,omitempty" jsonschema:"name or changed"`
	Limit  int    `json:"limit,omitempty"`
	Offset int    `json:"offset,omitempty"`
}

// FolderInfo is a sub-folder in a listing.
type FolderInfo struct {
	Path  string `json:"path"`
	Notes int    `json:"notes"`
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
	Total   int          `json:"total"`
	Offset  int          `json:"offset"`
}

// ListNotes lists a folder: its sub-folders with note counts, and its notes
// by name; or, sorted by change, every note below it, newest first — so
// "what did I work on this week" is one call. Trash is never listed.
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
		return c.fail(caller, f, &vault.Error{Op: "list", Kind: vault.ErrInvalid,
			Msg: fmt.Sprintf("sort %q is not known; use \"name\" or \"changed\"", a.Sort), Alternatives: []string{"name", "changed"}})
	}
	lim := a.Limit
	if lim <= 0 {
		lim = 30
	}
	lim = min(lim, 100)

	notes, err := c.v.Notes()
	if err != nil {
		return c.fail(caller, f, err)
	}
	prefix := ""
	if folder != "" {
		prefix = folder + "/"
	}
	subCount := map[string]int{}
	var in []*vault.Note
	folderExists := folder == ""
	for _, n := range notes {
		if !strings.HasPrefix(n.Path, prefix) {
			continue
		}
		folderExists = true
		rest := n.Path[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			subCount[prefix+rest[:i]]++
			if sortBy == "changed" {
				in = append(in, n)
			}
			continue
		}
		in = append(in, n)
	}
	if !folderExists && !c.v.Exists(folder) {
		folders := c.folders(notes)
		err := &vault.Error{Op: "list", Path: folder, Kind: vault.ErrNotFound, Msg: "no such folder",
			Alternatives: vault.ClosestNotes(folders, folder, maxAlternatives), AltKind: "folders"}
		r := c.fail(caller, failure{tool: tool, path: folder, args: []arg{{"folder", folder}}}, err)
		return r
	}
	if sortBy == "changed" {
		sort.SliceStable(in, func(i, j int) bool { return in[i].ModTime.After(in[j].ModTime) })
	} else {
		sort.SliceStable(in, func(i, j int) bool { return strings.ToLower(in[i].Path) < strings.ToLower(in[j].Path) })
	}
	data := ListNotesData{Folder: folder, Sort: sortBy, Total: len(in), Offset: a.Offset}
	if sortBy == "name" {
		for _, k := range sortedKeys(subCount) {
			data.Folders = append(data.Folders, FolderInfo{Path: k, Notes: subCount[k]})
		}
	}
	page := in
	if a.Offset > 0 {
		page = page[min(a.Offset, len(page)):]
	}
	if len(page) > lim {
		page = page[:lim]
	}
	for _, n := range page {
		data.Notes = append(data.Notes, ListedNote{NoteRef: refOf(n), Modified: when(n.ModTime)})
	}

	var b strings.Builder
	where := "the vault root"
	if folder != "" {
		where = "folder " + folder
	}
	if sortBy == "changed" {
		fmt.Fprintf(&b, "notes in %s and all its sub-folders, sorted by changed (newest first)\n", where)
	} else {
		fmt.Fprintf(&b, "%s, sorted by name\n", where)
	}
	if len(data.Folders) > 0 {
		b.WriteString("sub-folders:\n")
		for _, fi := range data.Folders {
			fmt.Fprintf(&b, "- %s/ (%s)\n", fi.Path, plural(fi.Notes, "note", "notes"))
		}
	}
	if len(data.Notes) == 0 {
		if data.Total == 0 {
			fmt.Fprintf(&b, "no notes directly in %s.\n", where)
		} else {
			fmt.Fprintf(&b, "no notes at offset %d; there are %d.\n", a.Offset, data.Total)
		}
	} else {
		fmt.Fprintf(&b, "showing notes %d–%d of %d:\n", a.Offset+1, a.Offset+len(data.Notes), data.Total)
		for _, n := range data.Notes {
			b.WriteString("\n")
			writeRef(&b, n.NoteRef, "")
			fmt.Fprintf(&b, "modified: %s\n", n.Modified)
		}
	}
	if next := a.Offset + len(data.Notes); next < data.Total {
		var args []arg
		if folder != "" {
			args = append(args, arg{"folder", folder})
		}
		if sortBy != "name" {
			args = append(args, arg{"sort", sortBy})
		}
		args = append(args, arg{"offset", next})
		b.WriteString("\nnext page: " + call{"list_notes", args}.render(caller.Door) + "\n")
	} else if len(data.Folders) > 0 {
		b.WriteString("\nopen a sub-folder: " + call{"list_notes", []arg{{"folder", data.Folders[0].Path}}}.render(caller.Door) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
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

// looksLikePath tells a path ("1_Projekte/X.md") from a title, alias or
// [[wikilink]].
func looksLikePath(ref string) bool {
	ref = strings.TrimSpace(ref)
	if strings.HasPrefix(ref, "[[") {
		return false
	}
	return strings.Contains(ref, "/") || strings.Contains(ref, `\`) || strings.HasSuffix(strings.ToLower(ref), ".md")
}

// cleanFolder reads a folder argument: "" is the vault root; slashes around
// it are dropped; anything else must be a valid vault path.
func cleanFolder(folder string) (string, error) {
	folder = strings.Trim(strings.TrimSpace(folder), "/")
	if folder == "" {
		return "", nil
	}
	return vault.CleanPath(folder)
}
