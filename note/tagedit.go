package note

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"go.abhg.dev/goldmark/hashtag"
	"go.abhg.dev/goldmark/wikilink"
	"go.yaml.in/yaml/v3"
)

// Tags live in two places in Obsidian: the frontmatter property "tags"
// (or the older "tag") and #tags in the text. add_tags and remove_tags
// change only the frontmatter, in the style the note already uses; #tags
// in the text are the author's prose and are reported, never rewritten.

// Tag styles of the frontmatter property, as TagEdit.Style names them.
const (
	TagStyleBlock  = "block list"    // tags:\n  - a\n  - b
	TagStyleFlow   = "inline list"   // tags: [a, b]
	TagStyleSingle = "single string" // tags: a
	TagStyleComma  = "comma string"  // tags: a, b
	TagStyleSpace  = "space string"  // tags: a b
	TagStyleNew    = "new block list"
)

// InlineTag is one #tag in a note's text.
type InlineTag struct {
	Tag  string // without '#', as written
	Line int    // 1-based
}

// TagEdit reports what EditTags did (and so vault.Vault.AddTags and
// RemoveTags).
type TagEdit struct {
	Key     string      // the property edited: "tags" or "tag"
	Style   string      // the property's style (TagStyle…), kept by the edit
	Added   []string    // tags added to the property
	Removed []string    // tags removed from it, as they were spelled
	Present []string    // adding: already in the property, left alone
	Missing []string    // removing: not in the property
	Tags    []string    // the property's tags after the edit
	Inline  []InlineTag // #tags in the text matching the tags named; not changed
	// Dropped is set when the last tag was removed and with it the
	// property (and the frontmatter, when nothing else was in it).
	Dropped bool
}

// CleanTags strips '#' and checks each tag; duplicates (ignoring case) go.
func CleanTags(in []string) ([]string, error) {
	var out []string
	for _, t := range in {
		t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "#"))
		switch {
		case t == "":
			return nil, &Error{Kind: ErrInvalid, Msg: "a tag is empty; give tags like projekt or projekt/website"}
		case !validTag(t):
			msg := fmt.Sprintf("%q is not a tag Obsidian accepts: no spaces or '#' inside, and not only digits", t)
			if s := strings.Join(strings.FieldsFunc(t, func(r rune) bool { return unicode.IsSpace(r) || r == '#' }), "-"); validTag(s) {
				msg += "; use e.g. " + s
			}
			return nil, &Error{Kind: ErrInvalid, Msg: msg}
		}
		out = appendTag(out, t)
	}
	if len(out) == 0 {
		return nil, &Error{Kind: ErrInvalid, Msg: "no tags given; give at least one, e.g. projekt"}
	}
	return out, nil
}

// tagEntry is the frontmatter tags property as found.
type tagEntry struct {
	idx   int // entry index, -1 when absent
	key   string
	style string
	tags  []string // as spelled, without '#'
}

// findTags locates the tags property ("tags", else "tag").
func findTags(fm *fmText) (tagEntry, error) {
	te := tagEntry{idx: -1, key: "tags"}
	for _, k := range []string{"tags", "tag"} {
		for i, e := range fm.entries {
			if e.key == k {
				te.idx, te.key = i, k
				break
			}
		}
		if te.idx >= 0 {
			break
		}
	}
	if te.idx < 0 {
		te.style = TagStyleNew
		return te, nil
	}
	e := fm.entries[te.idx]
	n := resolveAlias(e.val)
	bad := &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(
		"the frontmatter property %q (line %d) is neither a list nor text, so vaultd will not change it; fix it in Obsidian or with set_properties",
		te.key, fm.noteLine(e.start))}
	switch {
	case n.Kind == yaml.SequenceNode:
		te.style = TagStyleBlock
		if n.Style&yaml.FlowStyle != 0 {
			te.style = TagStyleFlow
		}
		for _, it := range n.Content {
			it = resolveAlias(it)
			if it.Kind != yaml.ScalarNode {
				return te, bad
			}
			if s := strings.TrimPrefix(strings.TrimSpace(it.Value), "#"); s != "" {
				te.tags = append(te.tags, s)
			}
		}
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		// "tags:" or "tags: #a #b" — the latter is a YAML comment that
		// Obsidian users write anyway, and Parse reads as tags.
		te.style = TagStyleNew
		if s, ok := rawScalar(fm.src[e.start:e.end], te.key).(string); ok {
			te.tags = stringList(s, true)
			for i := range te.tags {
				te.tags[i] = strings.TrimPrefix(te.tags[i], "#")
			}
		}
	case n.Kind == yaml.ScalarNode:
		te.tags = stringList(n.Value, true)
		for i := range te.tags {
			te.tags[i] = strings.TrimPrefix(te.tags[i], "#")
		}
		switch {
		case strings.Contains(n.Value, ","):
			te.style = TagStyleComma
		case len(te.tags) > 1:
			te.style = TagStyleSpace
		default:
			te.style = TagStyleSingle
		}
	default:
		return te, bad
	}
	return te, nil
}

// EditTags adds or removes frontmatter tags of a note's bytes (see vault.Vault.AddTags
// and RemoveTags; give add or remove). Tags are given cleaned (CleanTags).
// It is pure.
func EditTags(src []byte, add, remove []string) ([]byte, *TagEdit, error) {
	fm, err := parseFM(src)
	if err != nil {
		return nil, nil, err
	}
	te, err := findTags(fm)
	if err != nil {
		return nil, nil, err
	}
	res := &TagEdit{Key: te.key, Style: te.style}
	has := func(t string) int {
		for i, x := range te.tags {
			if strings.EqualFold(x, t) {
				return i
			}
		}
		return -1
	}
	want := append([]string{}, te.tags...)
	var drop []int // indexes into te.tags
	for _, t := range add {
		if has(t) >= 0 {
			res.Present = append(res.Present, te.tags[has(t)])
			continue
		}
		res.Added = append(res.Added, t)
		want = append(want, t)
	}
	for _, t := range remove {
		i := has(t)
		if i < 0 {
			res.Missing = append(res.Missing, t)
			continue
		}
		res.Removed = append(res.Removed, te.tags[i])
		drop = append(drop, i)
	}
	if len(drop) > 0 {
		want = want[:0]
		for i, t := range te.tags {
			if !containsInt(drop, i) {
				want = append(want, t)
			}
		}
	}
	res.Tags = want
	res.Inline = matchingInline(src, append(append([]string{}, add...), remove...))
	if len(res.Added) == 0 && len(res.Removed) == 0 {
		return src, res, nil
	}

	var next []byte
	switch {
	case len(want) == 0:
		res.Dropped = true
		next = dropEmptyFrontmatter(fm.replace(te.idx, ""))
	case te.style == TagStyleBlock:
		next = editBlockTags(fm, te, res.Added, drop)
	case te.style == TagStyleFlow:
		next = editFlowTags(fm, te, res.Added, drop, want)
	case te.style == TagStyleSingle, te.style == TagStyleComma, te.style == TagStyleSpace:
		sep := ", "
		if te.style == TagStyleSpace {
			sep = " "
		}
		next = fm.replace(te.idx, fm.indent+fm.entryKeyText(te.idx)+": "+yamlString(strings.Join(want, sep))+fm.eol)
	default: // absent, empty or a comment: a new block list
		pv := propValue{list: true}
		for _, t := range want {
			pv.items = append(pv.items, yamlString(t))
		}
		entry := fm.renderEntry(fm.keyText(te.key), pv, fm.listIndent)
		if te.idx >= 0 {
			next = fm.replace(te.idx, fm.renderEntry(fm.entryKeyText(te.idx), pv, fm.listIndent))
		} else {
			next = fm.insert(entry)
		}
	}
	if err := verifyTags(fm, next, te.key, want); err != nil {
		return nil, nil, err
	}
	return next, res, nil
}

func containsInt(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

// editBlockTags adds "- tag" lines after the list's last item and removes
// the lines of dropped items.
func editBlockTags(fm *fmText, te tagEntry, add []string, drop []int) []byte {
	e := fm.entries[te.idx]
	seq := resolveAlias(e.val)
	src := fm.src
	if len(add) > 0 {
		// New items line up with the first dash.
		pad := strings.Repeat(" ", max(0, seq.Column-1))
		var b strings.Builder
		for _, t := range add {
			b.WriteString(pad + "- " + yamlString(t) + fm.eol)
		}
		out := make([]byte, 0, len(src)+b.Len())
		out = append(out, src[:e.end]...)
		out = append(out, b.String()...)
		return append(out, src[e.end:]...)
	}
	// Items are removed from the last, so earlier offsets stay valid.
	out := src
	for k := len(seq.Content) - 1; k >= 0; k-- {
		if !containsInt(drop, k) {
			continue
		}
		from := fm.lines[seq.Content[k].Line-1]
		to := e.end
		if k+1 < len(seq.Content) {
			to = fm.lines[seq.Content[k+1].Line-1]
		}
		out = append(append([]byte{}, out[:from]...), out[to:]...)
	}
	return out
}

// editFlowTags edits an inline list [a, b] in place when it sits on one
// line: ", tag" goes after the last item, a removed item goes with its
// comma. Other layouts are written anew as [a, b, c].
func editFlowTags(fm *fmText, te tagEntry, add []string, drop []int, want []string) []byte {
	e := fm.entries[te.idx]
	seq := resolveAlias(e.val)
	spans, open, ok := flowSpans(fm, seq)
	if !ok || len(spans) != len(seq.Content) {
		parts := make([]string, len(want))
		for i, t := range want {
			parts[i] = flowString(t)
		}
		return fm.replace(te.idx, fm.indent+fm.entryKeyText(te.idx)+": ["+strings.Join(parts, ", ")+"]"+fm.eol)
	}
	src := fm.src
	if len(add) > 0 {
		var b strings.Builder
		at := open + 1
		if len(spans) > 0 {
			at = spans[len(spans)-1][1]
		}
		for i, t := range add {
			if len(spans) > 0 || i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(flowString(t))
		}
		out := append([]byte{}, src[:at]...)
		out = append(out, b.String()...)
		return append(out, src[at:]...)
	}
	out := src
	for k := len(spans) - 1; k >= 0; k-- {
		if !containsInt(drop, k) {
			continue
		}
		var from, to int
		switch {
		case k > 0:
			from, to = spans[k-1][1], spans[k][1]
		case len(spans) > 1:
			from, to = spans[0][0], spans[1][0]
		default:
			from, to = spans[0][0], spans[0][1]
		}
		out = append(append([]byte{}, out[:from]...), out[to:]...)
		// Later spans shift; only earlier ones are used from here on.
	}
	return out
}

// flowSpans finds the byte spans of an inline list's items, and the
// offset of its "[", when the list sits on one line. ok is false for
// anything it cannot read with certainty (nested lists, comments, line
// breaks).
func flowSpans(fm *fmText, seq *yaml.Node) (spans [][2]int, open int, ok bool) {
	if seq.Line < 1 || seq.Line > len(fm.lines) {
		return nil, 0, false
	}
	i := fm.lines[seq.Line-1]
	for col := 1; col < seq.Column && i < len(fm.src); col++ {
		_, size := utf8.DecodeRune(fm.src[i:])
		i += size
	}
	if i >= len(fm.src) || fm.src[i] != '[' {
		return nil, 0, false
	}
	open = i
	start, end := -1, -1
	closeItem := func() {
		if start >= 0 {
			spans = append(spans, [2]int{start, end})
		}
		start, end = -1, -1
	}
	for i = open + 1; i < len(fm.src); i++ {
		c := fm.src[i]
		switch {
		case c == '\n' || c == '\r' || c == '[' || c == '{' || c == '#':
			return nil, 0, false
		case c == ']':
			closeItem()
			return spans, open, true
		case c == ',':
			closeItem()
		case c == ' ' || c == '\t':
		case c == '"' || c == '\'':
			if start < 0 {
				start = i
			}
			j := i + 1
			for ; j < len(fm.src); j++ {
				if fm.src[j] == '\n' || fm.src[j] == '\r' {
					return nil, 0, false
				}
				if c == '"' && fm.src[j] == '\\' {
					j++
					continue
				}
				if fm.src[j] == c {
					if c == '\'' && j+1 < len(fm.src) && fm.src[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			i, end = j, j+1
		default:
			if start < 0 {
				start = i
			}
			end = i + 1
		}
	}
	return nil, 0, false
}

// flowString renders a tag as an item of an inline list: plain when YAML
// reads it back unchanged there, double-quoted otherwise.
func flowString(s string) string {
	var n yaml.Node
	if s == strings.TrimSpace(s) && !strings.ContainsAny(s, ",[]{}#\"'\t\n\r") &&
		yaml.Unmarshal([]byte("k: ["+s+"]\n"), &n) == nil && len(n.Content) == 1 {
		if m := n.Content[0]; len(m.Content) == 2 && m.Content[1].Kind == yaml.SequenceNode && len(m.Content[1].Content) == 1 {
			if it := m.Content[1].Content[0]; it.Style == 0 && it.Tag == "!!str" && it.Value == s {
				return s
			}
		}
	}
	return strconv.Quote(s)
}

// verifyTags checks that next holds fm's properties unchanged except the
// tags property, which must read as want.
func verifyTags(fm *fmText, next []byte, key string, want []string) error {
	after, err := parseFM(next)
	if err == nil {
		err = sameOthers(fm, after, key)
	}
	if err == nil {
		te, ferr := findTags(after)
		switch {
		case ferr != nil:
			err = ferr
		case len(want) == 0 && te.idx >= 0 && te.key == key:
			err = fmt.Errorf("the property is still there")
		case len(want) > 0 && (te.key != key || strings.Join(te.tags, "\x00") != strings.Join(want, "\x00")):
			err = fmt.Errorf("tags read %v, want %v", te.tags, want)
		}
	}
	if err != nil {
		return &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(
			"vaultd cannot change the %s property without disturbing the rest of the frontmatter (an unusual YAML layout); change it in Obsidian or with set_properties", key)}
	}
	return nil
}

// sameOthers checks that every property but key reads the same in after.
func sameOthers(fm, after *fmText, key string) error {
	var a, b []fmEntry
	for _, e := range fm.entries {
		if e.key != key {
			a = append(a, e)
		}
	}
	for _, e := range after.entries {
		if e.key != key {
			b = append(b, e)
		}
	}
	if len(a) != len(b) {
		return fmt.Errorf("entries differ")
	}
	for i := range a {
		if a[i].key != b[i].key || canon(a[i].val) != canon(b[i].val) {
			return fmt.Errorf("entry %q differs", a[i].key)
		}
	}
	return nil
}

// matchingInline returns the #tags in the note's text that match one of
// tags (ignoring case).
func matchingInline(src []byte, tags []string) []InlineTag {
	var out []InlineTag
	for _, it := range InlineTags(src) {
		for _, t := range tags {
			if strings.EqualFold(it.Tag, t) {
				out = append(out, it)
				break
			}
		}
	}
	return out
}

// InlineTags lists the #tags in a note's text (not its frontmatter), in
// order, with their lines, by the same rules as Parse: not in code, not
// glued to a word before them ("C#"), not only digits.
func InlineTags(src []byte) []InlineTag {
	// The same masking as Parse: goldmark sees neither BOM nor
	// frontmatter, and bare CRs are line ends; offsets stay file offsets.
	masked := bytes.Clone(src)
	if bytes.HasPrefix(src, bom) {
		copy(masked, "\n\n\n")
	}
	if _, start, end, ok := SplitFrontmatter(src); ok {
		for i := start; i < end; i++ {
			if masked[i] != '\n' && masked[i] != '\r' {
				masked[i] = ' '
			}
		}
	}
	for i := range masked {
		if masked[i] == '\r' && (i+1 >= len(masked) || masked[i+1] != '\n') {
			masked[i] = '\n'
		}
	}
	root := md.Parser().Parse(text.NewReader(masked))
	var out []InlineTag
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.CodeBlock, *ast.FencedCodeBlock, *ast.CodeSpan, *ast.HTMLBlock, *ast.RawHTML, *ast.AutoLink,
			*wikilink.Node, *ast.Link, *ast.Image:
			return ast.WalkSkipChildren, nil
		case *hashtag.Node:
			if tag := string(t.Tag); validTag(tag) && tagBoundary(masked, t.Pos()) {
				out = append(out, InlineTag{Tag: tag, Line: bytes.Count(src[:min(t.Pos(), len(src))], []byte("\n")) + 1})
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}
