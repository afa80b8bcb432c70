package note

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"go.abhg.dev/goldmark/hashtag"
	"go.abhg.dev/goldmark/wikilink"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/unicode/norm"
)

// Doc is a parsed note. It is produced by Parse, the one parser used by every
// read and every write.
type Doc struct {
	Src []byte // the exact bytes parsed

	// Frontmatter: FrontmatterRaw is the YAML between the fences (nil if
	// the note has none); FrontmatterStart is where the opening fence
	// starts (after a BOM); BodyStart is the first byte after the closing
	// fence line (0 without frontmatter). An unclosed leading --- is not
	// frontmatter: the note is parsed as text from byte 0.
	FrontmatterRaw   []byte
	FrontmatterStart int
	BodyStart        int
	HasFrontmatter   bool
	Frontmatter      map[string]any // decoded YAML; nil if none or invalid
	// FrontmatterErr reports invalid YAML (an *Error of kind ErrInvalid
	// whose line numbers count from the top of the note). It is never
	// fatal: headings, links and inline tags are still read, and the
	// frontmatter bytes are kept as they are.
	FrontmatterErr error

	Title   string   // frontmatter title, else first H1, else "" (see NoteTitle for the file-name fallback)
	Aliases []string // frontmatter aliases/alias
	// Tags are the frontmatter tags/tag (every YAML shape Obsidian reads)
	// and the inline #tags outside code, links and HTML blocks, without '#', in
	// order of appearance, deduplicated ignoring case (the first spelling
	// wins, as in Obsidian).
	Tags     []string
	Headings []Heading
	Links    []Link
	CRLF     bool // the note's line endings are mostly CRLF
	BOM      bool // the note starts with a UTF-8 byte order mark

	// FrontmatterTagCount is how many of Tags, at their start, come from
	// the frontmatter (the rest are inline #tags).
	FrontmatterTagCount int

	toksOnce sync.Once  // headingTokens, made on first use
	toks     [][]string // the tokens of each heading's text
	// Conflicts are the unresolved merge conflicts in the text (see
	// conflict.go). Their marker lines are not parsed as markdown, so
	// that "=======" does not make a setext heading nor ">>>>>>>" a
	// block quote; the text between them is.
	Conflicts []Conflict
}

var bom = []byte("\xef\xbb\xbf")

// md is safe for concurrent use: goldmark parsers keep no state between calls.
// No parser.WithAttribute(): Obsidian has no "{#id .class}" syntax, so
// "## Plan {v2}" is a heading whose text is "Plan {v2}".
var md = goldmark.New(
	goldmark.WithExtensions(
		extension.GFM,
		&wikilink.Extender{},
		&hashtag.Extender{Variant: hashtag.ObsidianVariant},
	),
)

// SplitFrontmatter finds a leading YAML frontmatter block the way Obsidian
// does: the note (after an optional BOM) starts with a "---" line and a
// later line is "---" again (trailing spaces, tabs and CR allowed on both).
// It returns the YAML between the fences, the offset of the opening fence
// and the first byte after the closing fence line. ok is false when the note
// has no (closed) frontmatter; an unclosed leading --- never swallows the
// note. A "..." line does not close it: Obsidian does not accept one either.
func SplitFrontmatter(src []byte) (yamlBytes []byte, start, bodyStart int, ok bool) {
	if bytes.HasPrefix(src, bom) {
		start = len(bom)
	}
	first, rest, found := bytes.Cut(src[start:], []byte("\n"))
	if !found || !isFence(first) {
		return nil, 0, 0, false
	}
	yamlStart := start + len(first) + 1
	off := yamlStart
	for len(rest) > 0 {
		line, r2, hasNL := bytes.Cut(rest, []byte("\n"))
		if isFence(line) {
			end := off + len(line)
			if hasNL {
				end++
			}
			return src[yamlStart:off], start, end, true
		}
		off += len(line) + 1
		rest = r2
	}
	return nil, 0, 0, false
}

func isFence(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

// Parse parses a note: frontmatter, headings with exact byte offsets, links
// and tags. It never fails; YAML problems are reported in FrontmatterErr.
func Parse(src []byte) *Doc {
	d := &Doc{Src: src, BOM: bytes.HasPrefix(src, bom)}
	d.CRLF = isCRLF(src)

	// goldmark must see neither the BOM nor the frontmatter, and its
	// offsets must stay file offsets; so it parses a masked copy of the
	// same length:
	//   - the BOM becomes three line feeds, not spaces: spaces would indent
	//     the first line, and "BOM + ' # Title'" would turn into a code block;
	//   - the frontmatter becomes spaces (line endings kept): blank lines;
	//   - a bare CR (old Mac line ending) becomes LF: CommonMark counts it
	//     as a line ending but goldmark does not, so "# A\r# B" would be one
	//     heading "A # B".
	masked := src
	cloned := false
	clone := func() {
		if !cloned {
			masked, cloned = bytes.Clone(src), true
		}
	}
	if d.BOM {
		clone()
		copy(masked, "\n\n\n")
	}
	if y, start, end, ok := SplitFrontmatter(src); ok {
		d.HasFrontmatter = true
		d.FrontmatterRaw = y
		d.FrontmatterStart = start
		d.BodyStart = end
		clone()
		for i := start; i < end; i++ {
			if masked[i] != '\n' && masked[i] != '\r' {
				masked[i] = ' '
			}
		}
		d.parseFrontmatter()
	}
	if d.Conflicts = FindConflicts(src); len(d.Conflicts) > 0 {
		clone()
		maskConflictMarkers(masked, d.Conflicts)
	}
	for i := bytes.IndexByte(src, '\r'); i >= 0; {
		if i+1 >= len(src) || src[i+1] != '\n' {
			clone()
			masked[i] = '\n'
		}
		j := bytes.IndexByte(src[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}

	p := &docParser{d: d, src: masked}
	if d.BOM {
		p.lineBase = len(bom)
	}
	root := md.Parser().Parse(text.NewReader(masked))
	p.collectHeadings(root)
	p.collectInline(root)
	d.placeConflicts()

	if d.Title == "" {
		for _, h := range d.Headings {
			if h.Level == 1 {
				d.Title = h.Text
				break
			}
		}
	}
	return d
}

// ParseFrontmatter is Parse for the frontmatter alone: FrontmatterRaw,
// FrontmatterStart, BodyStart, HasFrontmatter, Frontmatter,
// FrontmatterErr, Aliases, the frontmatter's title and the frontmatter's
// Tags, each as Parse gives them; no headings, links, inline tags or
// conflicts (the markdown is not parsed). A listing that needs only
// properties pays for the YAML, not for goldmark.
func ParseFrontmatter(src []byte) *Doc {
	d := &Doc{Src: src, BOM: bytes.HasPrefix(src, bom)}
	if y, start, end, ok := SplitFrontmatter(src); ok {
		d.HasFrontmatter = true
		d.FrontmatterRaw = y
		d.FrontmatterStart = start
		d.BodyStart = end
		d.parseFrontmatter()
	}
	return d
}

// docParser holds what one Parse call needs while walking the AST.
type docParser struct {
	d        *Doc
	src      []byte // the masked source: same length and offsets as d.Src
	lineBase int    // line counting starts here (after a BOM masked as line feeds)
	nls      []int  // offsets of the line feeds in src[lineBase:], built on first use
	nlsBuilt bool
}

// line returns the 1-based line number of offset i. Parse asks for the line
// of every heading and link, so it binary-searches a table of line feeds
// instead of counting from the start each time (quadratic on the long notes
// of a law corpus, with thousands of headings).
func (p *docParser) line(i int) int {
	if !p.nlsBuilt {
		p.nlsBuilt = true
		for j := p.lineBase; j < len(p.src); {
			k := bytes.IndexByte(p.src[j:], '\n')
			if k < 0 {
				break
			}
			p.nls = append(p.nls, j+k)
			j += k + 1
		}
	}
	n, _ := slices.BinarySearch(p.nls, i) // line feeds before i
	return n + 1
}

func isCRLF(src []byte) bool {
	n := bytes.Count(src, []byte("\n"))
	if n == 0 {
		return false
	}
	return bytes.Count(src, []byte("\r\n"))*2 > n
}

func (d *Doc) parseFrontmatter() {
	var m map[string]any
	if err := yaml.Unmarshal(d.FrontmatterRaw, &m); err != nil {
		d.FrontmatterErr = d.yamlError(err)
		return
	}
	d.Frontmatter = m
	if t, ok := scalarString(m[anyCaseKey(m, "title")]); ok {
		d.Title = NormSpace(t)
	}
	for _, k := range []string{"aliases", "alias"} {
		for _, a := range stringList(m[anyCaseKey(m, k)], false) {
			d.Aliases = appendUnique(d.Aliases, a)
		}
	}
	defer func() { d.FrontmatterTagCount = len(d.Tags) }()
	for _, k := range []string{"tags", "tag"} {
		k = anyCaseKey(m, k)
		v, present := m[k]
		if !present {
			continue
		}
		if v == nil {
			// `tags: #foo` is a YAML comment; Obsidian users write it anyway.
			v = rawScalar(d.FrontmatterRaw, k)
		}
		for _, t := range stringList(v, true) {
			t = strings.TrimPrefix(t, "#")
			if validTag(t) {
				d.Tags = appendTag(d.Tags, t)
			}
		}
	}
}

// anyCaseKey returns the key of m that is k ignoring case ("Title" for
// "title"), k itself when m has it or none matches: vaults written by
// other tools (site generators, exports) spell properties their own way.
func anyCaseKey(m map[string]any, k string) string {
	if _, ok := m[k]; ok {
		return k
	}
	for mk := range m {
		if strings.EqualFold(mk, k) {
			return mk
		}
	}
	return k
}

// yamlError turns a YAML error into one sentence an agent can act on: line
// numbers count from the top of the note, not of the YAML, and no Go type
// names ("map[string]interface {}") leak into the text.
func (d *Doc) yamlError(err error) error {
	first := bytes.Count(d.Src[:d.FrontmatterStart], []byte("\n")) + 2 // the line after the opening fence
	// yaml.v3 writes "yaml: line 3: …" (syntax) or a TypeError listing
	// "line 3: …" problems; its line numbers count from the YAML's first line.
	noteLine := func(msg string) string {
		msg = strings.TrimPrefix(msg, "yaml: ")
		rest, ok := strings.CutPrefix(msg, "line ")
		if !ok {
			return msg
		}
		i := strings.IndexByte(rest, ':')
		n, err := strconv.Atoi(rest[:max(i, 0)])
		if i < 0 || err != nil {
			return msg
		}
		msg = fmt.Sprintf("line %d:%s", first+n-1, rest[i+1:])
		// "… already defined at line 2" refers to a YAML line too.
		if j := strings.LastIndex(msg, " at line "); j >= 0 {
			if m, err := strconv.Atoi(msg[j+len(" at line "):]); err == nil {
				msg = fmt.Sprintf("%s at line %d", msg[:j], first+m-1)
			}
		}
		return msg
	}
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		for _, e := range te.Errors {
			if strings.Contains(e, "cannot unmarshal") {
				// The YAML is a list or a text, not name: value pairs.
				// (The raw message names Go types: map[string]interface {}.)
				msgs = []string{"the frontmatter is not a list of properties (name: value)"}
				break
			}
			msgs = append(msgs, noteLine(e))
		}
		if len(msgs) > 0 && !strings.HasPrefix(msgs[0], "the frontmatter") {
			msgs[0] = "the frontmatter is not valid YAML: " + msgs[0]
		}
	} else {
		msgs = []string{"the frontmatter is not valid YAML: " + noteLine(err.Error())}
	}
	return &Error{Op: "parse frontmatter", Kind: ErrInvalid, Msg: strings.Join(msgs, "; "), Err: err}
}

// validTag follows Obsidian: no spaces, no '#', and at least one character
// that is not a digit ("#1984" is no tag, "#y1984" is). The hashtag
// extension reads whole grapheme clusters, so "##" followed by a combining
// mark came out as the tag "#" + mark (found by FuzzParse).
func validTag(t string) bool {
	return t != "" && !strings.ContainsFunc(t, func(r rune) bool { return unicode.IsSpace(r) || r == '#' }) &&
		strings.ContainsFunc(t, func(r rune) bool { return !unicode.IsDigit(r) && r != '/' })
}

// appendTag adds a tag unless it is there already: tags are
// case-insensitive in Obsidian, and the first spelling wins.
func appendTag(list []string, t string) []string {
	for _, e := range list {
		if strings.EqualFold(e, t) {
			return list
		}
	}
	return append(list, t)
}

// rawScalar returns the raw text after "key:" on its line, for values YAML
// reads as a comment.
func rawScalar(y []byte, key string) any {
	for _, line := range strings.Split(string(y), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), key+":"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return nil
}

// stringList reads a YAML value that may be a string, a comma- (or for
// tags, space-) separated string, or a list. Maps and nested lists are not
// names and are skipped.
func stringList(v any, tags bool) []string {
	var out []string
	switch t := v.(type) {
	case string:
		sep := func(r rune) bool { return r == ',' || (tags && unicode.IsSpace(r)) }
		for _, s := range strings.FieldsFunc(t, sep) {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	case []any:
		for _, e := range t {
			if s, ok := scalarString(e); ok && s != "" {
				out = append(out, s)
			}
		}
	default:
		if s, ok := scalarString(t); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// scalarString renders a YAML scalar (string, number, bool, date) as text;
// ok is false for nil, maps and lists.
func scalarString(v any) (string, bool) {
	switch t := v.(type) {
	case nil, map[string]any, []any:
		return "", false
	case string:
		return strings.TrimSpace(t), true
	case time.Time:
		if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
			return t.Format("2006-01-02"), true
		}
		return t.Format(time.RFC3339), true
	default:
		return strings.TrimSpace(fmt.Sprint(t)), true
	}
}

func appendUnique(list []string, s string) []string {
	for _, e := range list {
		if e == s {
			return list
		}
	}
	return append(list, s)
}

// lineStart returns the offset of the start of the line containing i.
func lineStart(src []byte, i int) int {
	if i > len(src) {
		i = len(src)
	}
	return bytes.LastIndexByte(src[:i], '\n') + 1
}

// lineEnd returns the offset just past the line ending of the line
// containing i (or len(src)).
func lineEnd(src []byte, i int) int {
	if i >= len(src) {
		return len(src)
	}
	if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(src)
}

func (p *docParser) collectHeadings(root ast.Node) {
	d, src := p.d, p.src
	// Only headings that are direct children of the document count:
	// a "> ## quoted" heading or one inside a list item is not a section.
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Pos() < 0 {
			continue
		}
		var start, body int
		if l := h.Lines(); l.Len() > 0 && !isATX(src[lineStart(src, h.Pos()):]) {
			// Setext: the text lines, then the underline line. The first
			// text line, not Pos, is the start: goldmark's Pos may sit on a
			// link reference definition that preceded the text.
			start = lineStart(src, l.At(0).Start)
			underline := lineEnd(src, l.At(l.Len()-1).Start)
			if !isSetextUnderline(src[underline:lineEnd(src, underline)]) {
				// goldmark's GFM table transformer can cut a table out of
				// a setext heading's lines ("para\n| a |\n|---|\n---" gives
				// a table and a heading "para" underlined three lines
				// below). GFM reads a paragraph, a table and a thematic
				// break there, so this is no heading (found by
				// TestSections_TrapCombinations).
				continue
			}
			body = lineEnd(src, underline)
		} else {
			start = lineStart(src, h.Pos())
			body = lineEnd(src, start)
		}
		d.Headings = append(d.Headings, Heading{
			Level:     h.Level,
			Text:      headingText(h, src),
			Line:      p.line(start),
			Start:     start,
			BodyStart: body,
		})
	}
	// Ends and paths, in one pass with a stack of open sections: a heading
	// closes every open section of the same or a deeper level.
	var stack []int
	for i := range d.Headings {
		h := &d.Headings[i]
		h.End, h.OwnEnd = len(src), len(src)
		if i+1 < len(d.Headings) {
			h.OwnEnd = d.Headings[i+1].Start
		}
		for len(stack) > 0 && d.Headings[stack[len(stack)-1]].Level >= h.Level {
			d.Headings[stack[len(stack)-1]].End = h.Start
			stack = stack[:len(stack)-1]
		}
		path := make([]string, 0, len(stack)+1)
		for _, j := range stack {
			path = append(path, d.Headings[j].Text)
		}
		h.Path = append(path, h.Text)
		stack = append(stack, i)
	}
}

// isATX reports whether a line opens an ATX heading: up to three spaces,
// one to six '#', then a space, a tab or the end of the line. A setext
// heading's first line can start with '#' too ("#tag and text" underlined
// with ---), so a bare '#' is not enough.
func isATX(line []byte) bool {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	n := 0
	for i < len(line) && line[i] == '#' {
		i++
		n++
	}
	if n == 0 || n > 6 {
		return false
	}
	return i == len(line) || line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r'
}

// isSetextUnderline reports whether a line is a setext heading underline:
// up to three spaces, a run of '=' or of '-', then only spaces or tabs.
func isSetextUnderline(line []byte) bool {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i == len(line) || (line[i] != '=' && line[i] != '-') {
		return false
	}
	c := line[i]
	for i < len(line) && line[i] == c {
		i++
	}
	return len(bytes.Trim(line[i:], " \t\r\n")) == 0
}

func headingText(h *ast.Heading, src []byte) string {
	lines := h.Lines()
	if lines.Len() == 1 {
		seg := lines.At(0)
		return NormSpace(string(seg.Value(src)))
	}
	var parts []string
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		parts = append(parts, string(seg.Value(src)))
	}
	return NormSpace(strings.Join(parts, " "))
}

// NormSpace collapses runs of white space (CR included) and NFC-normalises.
func NormSpace(s string) string {
	return norm.NFC.String(strings.Join(strings.Fields(s), " "))
}

func (p *docParser) collectInline(root ast.Node) {
	d, src := p.d, p.src
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.CodeBlock, *ast.FencedCodeBlock, *ast.CodeSpan, *ast.HTMLBlock, *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		case *wikilink.Node:
			if l, ok := wikiLink(t, src); ok {
				l.Line = p.line(l.Start)
				d.Links = append(d.Links, l)
			}
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			if l, ok := mdLink(string(t.Destination), t.Pos(), false, src); ok {
				l.Line = p.line(l.Start)
				d.Links = append(d.Links, l)
			}
			return ast.WalkSkipChildren, nil
		case *ast.Image:
			if l, ok := mdLink(string(t.Destination), t.Pos(), true, src); ok {
				l.Line = p.line(l.Start)
				d.Links = append(d.Links, l)
			}
			return ast.WalkSkipChildren, nil
		case *ast.AutoLink:
			return ast.WalkSkipChildren, nil
		case *hashtag.Node:
			if tag := string(t.Tag); validTag(tag) && tagBoundary(src, t.Pos()) {
				d.Tags = appendTag(d.Tags, tag)
			}
		}
		return ast.WalkContinue, nil
	})
}

// tagBoundary reports whether a '#' at pos may open a tag. Obsidian needs a
// tag to stand apart from the word before it: "foo#bar", "C#" and
// "page#anchor" are not tags, "(#tag)" and "**#tag**" are.
func tagBoundary(src []byte, pos int) bool {
	if pos <= 0 || pos > len(src) {
		return pos == 0
	}
	r, _ := utf8.DecodeLastRune(src[:pos])
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) ||
		r == '_' || r == '-' || r == '/' || r == '#' || r == '&')
}

// wikiLink reads a [[wikilink]] from its raw bytes, so that label, target
// and fragment follow Obsidian: the target ends at the first '#' and the
// label starts after the first '|'.
func wikiLink(n *wikilink.Node, src []byte) (Link, bool) {
	start := n.Pos()
	if start < 0 || start >= len(src) {
		return Link{}, false
	}
	open := start
	embed := src[start] == '!'
	if embed {
		open++
	}
	if !bytes.HasPrefix(src[open:], []byte("[[")) {
		return Link{}, false
	}
	closeAt := bytes.Index(src[open:], []byte("]]"))
	if closeAt < 0 {
		return Link{}, false
	}
	inner := string(src[open+2 : open+closeAt])
	end := open + closeAt + 2
	l := Link{Embed: embed, Start: start, End: end}
	target, label, hasLabel := strings.Cut(inner, "|")
	if hasLabel {
		l.Label = strings.TrimSpace(label)
	}
	target, frag, _ := strings.Cut(target, "#")
	l.Target = strings.TrimSpace(target)
	l.Fragment = strings.TrimSpace(frag)
	if l.Target == "" && l.Fragment == "" {
		return Link{}, false
	}
	return l, true
}

// mdLink keeps markdown links to local files ([text](Note.md),
// ![](image.png), [text][ref] with a local definition); URLs with a scheme
// and pure #anchors are not links between notes.
func mdLink(dest string, pos int, image bool, src []byte) (Link, bool) {
	if dest == "" || pos < 0 || pos >= len(src) {
		return Link{}, false
	}
	if u, err := url.Parse(dest); err == nil && u.Scheme != "" {
		return Link{}, false
	}
	if strings.HasPrefix(dest, "//") || strings.HasPrefix(dest, "mailto:") {
		return Link{}, false
	}
	target, frag, _ := strings.Cut(dest, "#")
	if target == "" {
		return Link{}, false
	}
	if t, err := url.PathUnescape(target); err == nil {
		target = t
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	start := pos
	if image && src[start] != '!' && start > 0 && src[start-1] == '!' {
		start--
	}
	l := Link{Target: target, Fragment: frag, Embed: image, Markdown: true, Start: start}
	labelEnd, end := MarkdownLinkEnd(src, start)
	l.End = end
	if labelEnd > start {
		l.Label = string(bytes.TrimLeft(src[start:labelEnd], "![")) // text between [ and ]
	}
	return l, true
}

// MarkdownLinkEnd finds where a markdown link that starts at start ends. It
// returns the offset of the "]" closing the link text and the offset just
// past the link: past the ")" of an inline link "[t](dest)", past the
// second "]" of a reference link "[t][ref]" or "[t][]", past the "]" of a
// shortcut "[t]". Brackets and parentheses nest, backslash escapes are
// skipped, and a link never runs past a blank line. When the text cannot
// be read it returns (start, start+1) so that End > Start always holds.
func MarkdownLinkEnd(src []byte, start int) (labelEnd, end int) {
	i := start
	if i < len(src) && src[i] == '!' {
		i++
	}
	labelEnd = matchClose(src, i, '[', ']')
	if labelEnd < 0 {
		return start, min(start+1, len(src))
	}
	j := labelEnd + 1
	switch {
	case j < len(src) && src[j] == '(':
		if k := matchClose(src, j, '(', ')'); k >= 0 {
			return labelEnd, k + 1
		}
	case j < len(src) && src[j] == '[':
		if k := matchClose(src, j, '[', ']'); k >= 0 {
			return labelEnd, k + 1
		}
	}
	return labelEnd, j
}

// matchClose returns the offset of the bracket that closes the one at
// src[i] (which must be open), or -1.
func matchClose(src []byte, i int, open, close byte) int {
	if i >= len(src) || src[i] != open {
		return -1
	}
	depth := 0
	for j := i; j < len(src); j++ {
		switch c := src[j]; c {
		case '\\':
			j++
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return j
			}
		case '\n':
			if k := j + 1; k < len(src) && len(bytes.TrimLeft(src[k:lineEnd(src, k)], " \t\r\n")) == 0 {
				return -1 // a blank line ends the paragraph
			}
		}
	}
	return -1
}
