package index

import (
	"bytes"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// Document is what the index stores about one note. FromNote builds it from
// a note's bytes; tests may build it by hand.
type Document struct {
	Path  string // vault-relative, slash-separated: the document ID
	Title string
	// Titles are the names the note's own text gives it (vault.TitleNames:
	// frontmatter title, first H1); the name table looks notes up by them.
	Titles  []string
	Aliases []string
	// Slug is the name the note's permalink or slug property gives it,
	// in words ("configuration-folder" → "configuration folder"; "" if
	// none): searched like an alias (searchAliases).
	Slug      string
	Headings  []Heading
	Body      string // the note's text after the frontmatter
	BodyStart int    // byte offset of Body in the file
	BodyLine  int    // 1-based line where Body starts
	Tags      []string
	// Properties are the indexed frontmatter properties as terms,
	// "prop:status=aktiv" (see props.go).
	Properties []string
	Space      string
	Modified   time.Time
	Size       int64
	Version    string // full hex SHA-256 of the file
	Links      []LinkRef
	Conflicts  bool // the text holds merge conflict markers
}

// Heading is a heading of a note as the index keeps it.
type Heading struct {
	Path      string // heading path, "Projekte > Ziele"
	Text      string // its own text, "Ziele"
	Level     int
	Start     int // byte offset of the heading line in the file
	BodyStart int // byte offset of the line after it
	Line      int // 1-based line of the heading
	// Ref names the heading alone in read_note's heading argument: its
	// text when no other heading has that text, else its path (as
	// vault.Doc.HeadingPaths gives it). "" when that is Path.
	Ref string
}

// RefOrPath returns Ref, or Path when Ref is empty.
func (h Heading) RefOrPath() string {
	if h.Ref != "" {
		return h.Ref
	}
	return h.Path
}

// LinkRef is one outgoing link of a note.
type LinkRef struct {
	Target string // resolved vault path; "" when the link does not resolve (yet) or is ambiguous
	// Candidates are the equally good targets of an ambiguous link (Obsidian
	// picks one of them unpredictably); backlinks list the link under each.
	Candidates []string
	Raw        string // the target as written: "Note", "folder/Note.md", "x.png"
	Fragment   string // "Heading" or "^block"
	Embed      bool
	Line       int    // 1-based line of the link
	Context    string // the line containing the link (trimmed, at most ~300 bytes)
}

// FromNote builds the Document of the note at p from its bytes. r resolves
// its links, by Obsidian's rules and then by the notes' aliases (nil: no
// link resolves).
func FromNote(p string, src []byte, mod time.Time, r *note.Resolver) *Document {
	if note.CheckText(src) != nil {
		text := shownText(src)
		d := fromNote(p, text, mod, r, note.ParseCached(text))
		d.Version = note.Version(src)
		return d
	}
	return fromNote(p, src, mod, r, note.ParseCached(src)) // a note vaultd just wrote was parsed by the write
}

// fromNote is FromNote with the parse done.
func fromNote(p string, src []byte, mod time.Time, r *note.Resolver, d *note.Doc) *Document {
	doc := &Document{
		Path:       p,
		Title:      note.NoteTitle(p, d),
		Titles:     note.TitleNames(d),
		Aliases:    d.Aliases,
		Slug:       slugName(d.Frontmatter),
		Body:       string(src[min(d.BodyStart, len(src)):]),
		BodyStart:  min(d.BodyStart, len(src)),
		BodyLine:   1 + bytes.Count(src[:min(d.BodyStart, len(src))], []byte{'\n'}),
		Tags:       d.Tags,
		Properties: propertyTerms(d.Frontmatter),
		Space:      note.SpaceOf(p),
		Modified:   mod,
		Size:       int64(len(src)),
		Version:    note.Version(src),
		Conflicts:  len(d.Conflicts) > 0,
	}
	refs := headingRefs(d)
	for i, h := range d.Headings {
		hd := Heading{Path: note.JoinHeadingPath(h.Path), Text: h.Text, Level: h.Level, Start: h.Start, BodyStart: h.BodyStart, Line: h.Line}
		if refs[i] != hd.Path {
			hd.Ref = refs[i]
		}
		doc.Headings = append(doc.Headings, hd)
	}
	for _, l := range d.Links {
		if l.Target == "" {
			continue // [[#Heading]] inside the note itself
		}
		lr := LinkRef{Raw: l.Target, Fragment: l.Fragment, Embed: l.Embed, Line: l.Line, Context: lineContext(src, l.Start, l.End)}
		if r != nil {
			res := r.ResolveAlias(p, l)
			switch res.Status {
			case note.Resolved:
				lr.Target = res.Target
			case note.Ambiguous:
				lr.Candidates = res.Candidates
			}
		}
		doc.Links = append(doc.Links, lr)
	}
	return doc
}

// maxContext bounds the context line of a backlink.
const maxContext = 300

// lineContext returns the line containing [start,end), trimmed, cut to about
// maxContext bytes around the link.
func lineContext(src []byte, start, end int) string {
	start = max(0, min(start, len(src)))
	end = max(start, min(end, len(src)))
	ls := bytes.LastIndexByte(src[:start], '\n') + 1
	le := bytes.IndexByte(src[end:], '\n')
	if le < 0 {
		le = len(src)
	} else {
		le += end
	}
	from, to := ls, le
	if to-from > maxContext {
		half := (maxContext - (end - start)) / 2
		from = max(ls, start-max(half, 0))
		to = min(le, max(end, from+maxContext))
		for from > ls && !utf8.RuneStart(src[from]) {
			from--
		}
		for to < le && !utf8.RuneStart(src[to]) {
			to++
		}
	}
	s := strings.TrimSpace(strings.TrimRight(string(src[from:to]), "\r"))
	if from > ls {
		s = "…" + s
	}
	if to < le {
		s += "…"
	}
	return s
}

// Field names in the bleve index.
const (
	fTitle    = "title"
	fAliases  = "aliases"
	fHeadings = "headings"
	fBody     = "body"
	fPath     = "path"
	fSpace    = "space"
	fFolder   = "folder"
	fTags     = "tags"
	fLinks    = "links"
	fLinkKeys = "linkkeys"
	fProps    = "props"
	fModified = "modified"
	fVersion  = "ver"
	fMeta     = "meta" // stored: size, body start, heading table
	fLinkInfo = "li"   // stored: the outgoing links with their lines
)

// searchAliases are the aliases as searched: the frontmatter aliases and,
// when the title comes from elsewhere (frontmatter title, first heading),
// the file name, which is what Obsidian shows and what links use
// ("2026-11-04 Design-Review" for the note whose heading is "Design-Review
// Website-Relaunch"). Generic names that many notes share (index.md,
// README.md: a folder's page) name nothing: a folder note is searched by
// its folder's name instead (x/BGB/index.md by "BGB", vault.NoteName).
//
// A permalink or slug property names the note too, in the words of the
// site it is published on: each note of the German Obsidian help has an
// English one ("Konfigurationsordner": permalink configuration-folder), so
// that "configuration folder" finds it.
func searchAliases(d *Document) []string {
	out := d.Aliases[:len(d.Aliases):len(d.Aliases)]
	// Names that differ only in case or in - and _ for spaces are one
	// (a law's folder baupg_2013 and its slug baupg_2013).
	key := func(s string) string { return spaced(foldKey(s)) }
	has := func(s string) bool {
		k := key(s)
		if k == key(d.Title) {
			return true
		}
		for _, a := range out {
			if key(a) == k {
				return true
			}
		}
		return false
	}
	name := note.NoteName(d.Path)
	switch foldKey(name) {
	case "", "index", "_index", "readme":
	default:
		if !has(name) {
			out = append(out, name)
		}
	}
	if d.Slug != "" && !has(d.Slug) {
		out = append(out, d.Slug)
	}
	return out
}

// slugName returns the name a note's permalink or slug property gives it,
// in words: the last part of its path without an extension, with - and _
// as spaces ("plugins/graph-view.html" → "graph view"); "" when there is
// none or it has no letters.
func slugName(fm map[string]any) string {
	for k, v := range fm {
		if !strings.EqualFold(k, "permalink") && !strings.EqualFold(k, "slug") {
			continue
		}
		s, ok := v.(string)
		if !ok {
			continue
		}
		s = path.Base(strings.Trim(strings.TrimSpace(s), "/"))
		if e := path.Ext(s); e == ".html" || e == ".htm" || e == ".md" {
			s = strings.TrimSuffix(s, e)
		}
		s = spaced(s)
		if len(s) > 100 || !strings.ContainsFunc(s, unicode.IsLetter) {
			continue
		}
		return s
	}
	return ""
}

// spaced returns s with each run of -, _ and spaces as one space, trimmed.
func spaced(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || unicode.IsSpace(r) }), " ")
}

// folderChain lists the folders a note is in, outermost first:
// "a/b/c.md" → ["a", "a/b"], so a folder filter matches sub-folders.
func folderChain(p string) []string {
	var out []string
	dir := path.Dir(p)
	for dir != "." && dir != "/" && dir != "" {
		out = append(out, dir)
		dir = path.Dir(dir)
	}
	return out
}

// tagChain adds the parents of nested tags: "a/b" → "a/b", "a".
func tagChain(tags []string) []string {
	var out []string
	for _, t := range tags {
		t = strings.Trim(strings.TrimPrefix(t, "#"), "/")
		for t != "" {
			out = append(out, t)
			i := strings.LastIndexByte(t, '/')
			if i < 0 {
				break
			}
			t = t[:i]
		}
	}
	return dedupe(out)
}

func dedupe(s []string) []string {
	seen := make(map[string]bool, len(s))
	out := s[:0:0]
	for _, x := range s {
		k := foldKey(x)
		if !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

// foldKey is the case-insensitive, NFC form used for tags, spaces, folders
// and link keys.
func foldKey(s string) string {
	return strings.ToLower(norm.NFC.String(s))
}

// linkKey is the key a link target is found by when notes appear or
// disappear: its last path element, lower-cased, without ".md".
// "folder/Note.md" → "note", "Note" → "note", "x.png" → "x.png".
func linkKey(target string) string {
	b := path.Base(strings.ReplaceAll(target, "\\", "/"))
	if strings.EqualFold(path.Ext(b), ".md") {
		b = b[:len(b)-3]
	}
	return foldKey(b)
}

// Stored encodings. Separators are ASCII unit (0x1f) and record (0x1e)
// separators, which do not occur in notes' headings or links.
const (
	unitSep    = "\x1f"
	recordSep  = "\x1e"
	recordSep2 = "\x1d" // between the candidates of an ambiguous link
)

func clean(s string) string {
	if strings.ContainsAny(s, unitSep+recordSep+recordSep2) {
		s = strings.NewReplacer(unitSep, " ", recordSep, " ", recordSep2, " ").Replace(s)
	}
	return s
}

// meta is "size␟bodyStart␟bodyLine␞start␟bodyStart␟line␟level␟ref␟text␞…␞embeds␟targets"
// (one record per heading; ref is empty when it is the path; the targets
// are embedTargets, ␝ between them). Only each
// heading's own text is kept; the paths follow from the levels. (A stored
// field is read with every other of its document: the heading table of a
// law, 2,787 full paths, was 400 KB to decompress for each hit.)
func encodeMeta(d *Document) string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(d.Size, 10))
	b.WriteString(unitSep)
	b.WriteString(strconv.Itoa(d.BodyStart))
	b.WriteString(unitSep)
	b.WriteString(strconv.Itoa(d.BodyLine))
	for _, h := range d.Headings {
		b.WriteString(recordSep)
		for _, n := range []int{h.Start, h.BodyStart, h.Line, h.Level} {
			b.WriteString(strconv.Itoa(n))
			b.WriteString(unitSep)
		}
		b.WriteString(clean(h.Ref))
		b.WriteString(unitSep)
		b.WriteString(clean(h.Text))
	}
	// The embeds last, in a record of two units, which a decoder from
	// before them skips as it skips any record that is not a heading's.
	b.WriteString(recordSep)
	b.WriteString(embedsRecord)
	b.WriteString(unitSep)
	for i, t := range embedTargets(d) {
		if i > 0 {
			b.WriteString(recordSep2)
		}
		b.WriteString(t)
	}
	return b.String()
}

// embedsRecord names the meta's record of embeds.
const embedsRecord = "embeds"

type meta struct {
	size      int64
	bodyStart int
	bodyLine  int
	headings  []Heading
	// embeds are the targets of the note's embeds that may lead to an
	// attachment (embedTargets); embedsKnown is false for a meta written
	// before the index kept them.
	embeds      []string
	embedsKnown bool
}

// embedTargets returns the targets of the note's embeds that may lead to
// an attachment (vault.Embeddable), as written, in the note's order.
func embedTargets(d *Document) []string {
	var out []string
	for _, l := range d.Links {
		if t := strings.TrimSpace(l.Raw); l.Embed && vault.Embeddable(t) && !strings.ContainsAny(t, unitSep+recordSep+recordSep2) {
			out = append(out, t)
		}
	}
	return out
}

// sectionAt returns the number of the section holding file offset off:
// 0 for the text before the first heading, k for heading k-1 and its text.
func (m meta) sectionAt(off int) int {
	return sort.Search(len(m.headings), func(j int) bool { return m.headings[j].Start > off })
}

func decodeMeta(s string) meta {
	var m meta
	recs := strings.Split(s, recordSep)
	if len(recs) == 0 {
		return m
	}
	first := strings.Split(recs[0], unitSep)
	if len(first) == 3 {
		m.size, _ = strconv.ParseInt(first[0], 10, 64)
		m.bodyStart, _ = strconv.Atoi(first[1])
		m.bodyLine, _ = strconv.Atoi(first[2])
	}
	for _, r := range recs[1:] {
		f := strings.SplitN(r, unitSep, 6)
		if len(f) == 2 && f[0] == embedsRecord {
			m.embedsKnown = true
			if f[1] != "" {
				m.embeds = strings.Split(f[1], recordSep2)
			}
			continue
		}
		if len(f) != 6 {
			continue
		}
		var n [4]int
		for i := range n {
			n[i], _ = strconv.Atoi(f[i])
		}
		m.headings = append(m.headings, Heading{Start: n[0], BodyStart: n[1], Line: n[2], Level: n[3], Ref: f[4], Text: f[5]})
	}
	// A heading's path is its parent's and its text.
	var stack []int
	for i := range m.headings {
		h := &m.headings[i]
		for len(stack) > 0 && m.headings[stack[len(stack)-1]].Level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		h.Path = h.Text
		if len(stack) > 0 {
			h.Path = m.headings[stack[len(stack)-1]].Path + note.HeadingSep + h.Text
		}
		stack = append(stack, i)
	}
	return m
}

// headingRefs returns, for each heading of d, the shortest way to name it
// alone in read_note's heading argument: its own text when that is unique
// among the note's headings and reads as plain text (no '>', no leading
// '#', no "(line N)" ending, white space as vault normalizes it), which
// vault.Doc.Section resolves by an exact match; else the address
// vault.Doc.HeadingPaths gives it (computed only when needed: a law has
// thousands of headings).
func headingRefs(d *note.Doc) []string {
	count := make(map[string]int, len(d.Headings))
	for _, h := range d.Headings {
		count[h.Text]++
	}
	out := make([]string, len(d.Headings))
	// "Parent > Text" names heading i alone when no other heading with
	// that text has a heading with the parent's text among its ancestors
	// (a path may skip levels).
	parent := make([]int, len(d.Headings))
	var stack []int
	under := map[[2]string]int{} // (ancestor text, text) → headings
	for i, h := range d.Headings {
		for len(stack) > 0 && d.Headings[stack[len(stack)-1]].Level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		parent[i] = -1
		if len(stack) > 0 {
			parent[i] = stack[len(stack)-1]
		}
		seen := map[string]bool{}
		for _, a := range stack {
			if t := d.Headings[a].Text; !seen[t] {
				seen[t] = true
				under[[2]string{t, h.Text}]++
			}
		}
		stack = append(stack, i)
	}
	anyGT := false // a heading text with '>' could match "Parent > Text" whole
	for _, h := range d.Headings {
		anyGT = anyGT || strings.Contains(h.Text, ">")
	}
	var paths []string
	for i, h := range d.Headings {
		if count[h.Text] == 1 && plainHeadingText(h.Text) {
			out[i] = d.BriefName(i, h.Text)
			continue
		}
		if p := parent[i]; p >= 0 && !anyGT && plainHeadingText(h.Text) {
			if pt := d.Headings[p].Text; plainHeadingText(pt) && under[[2]string{pt, h.Text}] == 1 {
				out[i] = pt + note.HeadingSep + h.Text
				continue
			}
		}
		if paths == nil {
			paths = d.HeadingPaths()
		}
		out[i] = paths[i]
	}
	return out
}

func plainHeadingText(t string) bool {
	if t == "" || t[0] == '#' || strings.Contains(t, ">") || strings.HasSuffix(t, ")") && strings.Contains(t, "(line ") {
		return false
	}
	return t == norm.NFC.String(strings.Join(strings.Fields(t), " "))
}

func encodeLinks(ls []LinkRef) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteString(recordSep)
		}
		emb := "0"
		if l.Embed {
			emb = "1"
		}
		for j, f := range []string{l.Target, strings.Join(l.Candidates, recordSep2), clean(l.Raw), clean(l.Fragment), emb, strconv.Itoa(l.Line), clean(l.Context)} {
			if j > 0 {
				b.WriteString(unitSep)
			}
			b.WriteString(f)
		}
	}
	return b.String()
}

func decodeLinks(s string) []LinkRef {
	if s == "" {
		return nil
	}
	var out []LinkRef
	for _, r := range strings.Split(s, recordSep) {
		f := strings.SplitN(r, unitSep, 7)
		if len(f) != 7 {
			continue
		}
		line, _ := strconv.Atoi(f[5])
		var cands []string
		if f[1] != "" {
			cands = strings.Split(f[1], recordSep2)
		}
		out = append(out, LinkRef{Target: f[0], Candidates: cands, Raw: f[2], Fragment: f[3], Embed: f[4] == "1", Line: line, Context: f[6]})
	}
	return out
}
