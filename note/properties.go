package note

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Properties are a note's frontmatter, as Obsidian calls it. This file edits
// them the way a careful person would in a text editor: line by line on the
// raw YAML, using yaml.v3 only to find where each top-level key's lines are.
// The frontmatter is never re-marshalled, so every key that is not touched
// keeps its bytes: order, comments, quoting, date formats, blank lines.
//
// Every edit is checked after the fact: the new frontmatter is parsed again
// and must hold exactly the old values with the requested changes applied.
// An edit that would disturb anything else (an unusual YAML layout) is
// refused rather than written.

// Property is one frontmatter property of a note, as read.
type Property struct {
	Key string
	// Type follows Obsidian's property types: "text", "list", "number",
	// "checkbox", "date", "datetime"; plus "empty" (no value) and "object"
	// (a nested mapping, which Obsidian shows as raw YAML).
	Type string
	// Values holds the value as text: one entry for a scalar, one per item
	// for a list, none when empty. Dates read "2026-11-29", datetimes
	// "2026-11-29T14:30", numbers as written, checkboxes "true"/"false";
	// an object's entries read "key: value".
	Values []string
	Line   int // 1-based line of the key in the note
}

// Text renders the value compactly on one line: "aktiv", "[a, b]", "" when empty.
func (p Property) Text() string {
	switch p.Type {
	case "list":
		return "[" + strings.Join(p.Values, ", ") + "]"
	case "object":
		return "{" + strings.Join(p.Values, ", ") + "}"
	}
	return strings.Join(p.Values, ", ")
}

// FrontmatterProperties returns the properties of a note from its first
// bytes, without parsing the body: enough for listings and search hits. src
// may be cut anywhere after the closing fence.
func FrontmatterProperties(src []byte) []Property { return (&Doc{Src: src}).Properties() }

// Properties returns the note's frontmatter properties in file order. It
// returns nil when the note has no frontmatter or its YAML is invalid (see
// FrontmatterErr) or not a mapping.
func (d *Doc) Properties() []Property {
	fm, err := parseFM(d.Src)
	if err != nil || fm == nil || !fm.has {
		return nil
	}
	out := make([]Property, 0, len(fm.entries))
	for _, e := range fm.entries {
		p := Property{Key: e.key, Line: fm.noteLine(e.start)}
		p.Type, p.Values = describeValue(e.val)
		out = append(out, p)
	}
	return out
}

// PropertyValues returns the note's properties flattened for search: each
// key as written, mapped to the text of its value (one string per list
// item; see Property.Values). Keys should be compared case-insensitively,
// as Obsidian does. It returns nil for a note without (valid) frontmatter.
func (d *Doc) PropertyValues() map[string][]string {
	props := d.Properties()
	if len(props) == 0 {
		return nil
	}
	m := make(map[string][]string, len(props))
	for _, p := range props {
		m[p.Key] = append(m[p.Key], p.Values...)
	}
	return m
}

var (
	yamlLineRe = regexp.MustCompile(`line (\d+):`)
	dateRe     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	dateTimeRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$`)
)

// describeValue gives a value node's Obsidian type and its text.
func describeValue(n *yaml.Node) (string, []string) {
	n = resolveAlias(n)
	if n == nil {
		return "empty", nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		var vals []string
		for _, it := range n.Content {
			vals = append(vals, nodeText(it))
		}
		return "list", vals
	case yaml.MappingNode:
		var vals []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			vals = append(vals, nodeText(n.Content[i])+": "+nodeText(n.Content[i+1]))
		}
		return "object", vals
	}
	if n.Tag == "!!null" {
		return "empty", nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return "text", []string{n.Value}
	}
	switch t := v.(type) {
	case bool:
		return "checkbox", []string{n.Value}
	case int, int64, uint64, float64:
		return "number", []string{n.Value}
	case time.Time:
		if dateRe.MatchString(n.Value) {
			return "date", []string{n.Value}
		}
		return "datetime", []string{n.Value}
	case string:
		switch {
		case dateRe.MatchString(t):
			return "date", []string{t}
		case dateTimeRe.MatchString(t):
			return "datetime", []string{t}
		}
		return "text", []string{t}
	}
	return "text", []string{n.Value}
}

// nodeText renders any node on one line, for lists and objects.
func nodeText(n *yaml.Node) string {
	n = resolveAlias(n)
	if n == nil {
		return ""
	}
	switch n.Kind {
	case yaml.SequenceNode:
		var parts []string
		for _, it := range n.Content {
			parts = append(parts, nodeText(it))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case yaml.MappingNode:
		var parts []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			parts = append(parts, nodeText(n.Content[i])+": "+nodeText(n.Content[i+1]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	if n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// PropertyChange says what set_properties did to one key.
type PropertyChange struct {
	Key    string
	Action string // "added", "changed", "removed", "unchanged" (already that value), "absent" (removal of a key that is not there)
	Old    string // compact text of the value before ("" when added or absent)
	New    string // compact text of the value after ("" when removed)
}

// PropertyEdit is a set of changes to a note's properties.
type PropertyEdit struct {
	// Set maps keys to new values, as decoded from JSON: string, number
	// (float64, int, int64, json.Number), bool, or a list of those
	// ([]any or []string). nil removes the key. Obsidian's types map as
	// text, number, checkbox and list; a string "2026-11-29" is written as
	// a date and "2026-11-29T14:30" as a datetime (unquoted, as Obsidian
	// writes them); "" writes an empty property.
	Set map[string]any
	// Remove lists keys to delete.
	Remove []string
}

// ChangedProperty returns the first key an edit touches whose text differs
// between base (the version the caller read) and cur, or "" when every one
// reads the same. It fails when either frontmatter cannot be parsed.
func ChangedProperty(base, cur []byte, e PropertyEdit) (string, error) {
	old, err := parseFM(base)
	if err != nil {
		return "", err
	}
	fm, err := parseFM(cur)
	if err != nil {
		return "", err
	}
	for _, k := range e.keys() {
		if old.rawEntry(k) != fm.rawEntry(k) {
			return k, nil
		}
	}
	return "", nil
}

// keys lists every key an edit touches.
func (e PropertyEdit) keys() []string {
	out := make([]string, 0, len(e.Set)+len(e.Remove))
	out = append(out, sortedMapKeys(e.Set)...)
	return append(out, e.Remove...)
}

func sortedMapKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// EditProperties applies e to a note's bytes and returns the new bytes and
// what happened to each key (see vault.Vault.SetProperties). It is pure.
func EditProperties(src []byte, e PropertyEdit) ([]byte, []PropertyChange, error) {
	if _, err := parseFM(src); err != nil {
		return nil, nil, err
	}
	var changes []PropertyChange
	cur := src
	for _, k := range sortedMapKeys(e.Set) {
		val := e.Set[k]
		if val == nil {
			next, ch, err := removeProperty(cur, k)
			if err != nil {
				return nil, nil, err
			}
			cur, changes = next, append(changes, ch)
			continue
		}
		next, ch, err := setProperty(cur, k, val)
		if err != nil {
			return nil, nil, err
		}
		cur, changes = next, append(changes, ch)
	}
	for _, k := range e.Remove {
		next, ch, err := removeProperty(cur, k)
		if err != nil {
			return nil, nil, err
		}
		cur, changes = next, append(changes, ch)
	}
	return cur, changes, nil
}

// setProperty sets one key.
func setProperty(src []byte, key string, val any) ([]byte, PropertyChange, error) {
	key = strings.TrimSpace(key)
	if err := checkKey(key); err != nil {
		return nil, PropertyChange{}, err
	}
	pv, err := newPropValue(key, val)
	if err != nil {
		return nil, PropertyChange{}, err
	}
	fm, err := parseFM(src)
	if err != nil {
		return nil, PropertyChange{}, err
	}
	ch := PropertyChange{Key: key, New: pv.text()}
	i := fm.find(key)
	if i < 0 {
		ch.Action = "added"
		next := fm.insert(fm.renderEntry(fm.keyText(key), pv, fm.listIndent))
		return next, ch, fm.verify(next, key, &pv)
	}
	ent := fm.entries[i]
	ch.Key = ent.key
	_, oldVals := describeValue(ent.val)
	oldType, _ := describeValue(ent.val)
	ch.Old = Property{Type: oldType, Values: oldVals}.Text()
	if pv.sameAs(ent.val) {
		ch.Action, ch.New = "unchanged", ch.Old
		return src, ch, nil
	}
	ch.Action = "changed"
	indent := fm.listIndent
	if seq := resolveAlias(ent.val); seq != nil && seq.Kind == yaml.SequenceNode && seq.Style&yaml.FlowStyle == 0 && len(seq.Content) > 0 {
		indent = listIndentOf(ent.keyNode, seq)
	}
	next := fm.replace(i, fm.renderEntry(fm.entryKeyText(i), pv, indent))
	return next, ch, fm.verify(next, ent.key, &pv)
}

// removeProperty removes one key; the frontmatter goes too when nothing
// but blank lines is left in it.
func removeProperty(src []byte, key string) ([]byte, PropertyChange, error) {
	key = strings.TrimSpace(key)
	if err := checkKey(key); err != nil {
		return nil, PropertyChange{}, err
	}
	fm, err := parseFM(src)
	if err != nil {
		return nil, PropertyChange{}, err
	}
	i := fm.find(key)
	if i < 0 {
		return src, PropertyChange{Key: key, Action: "absent"}, nil
	}
	ent := fm.entries[i]
	t, vals := describeValue(ent.val)
	ch := PropertyChange{Key: ent.key, Action: "removed", Old: Property{Type: t, Values: vals}.Text()}
	next := fm.replace(i, "")
	next = dropEmptyFrontmatter(next)
	return next, ch, fm.verify(next, ent.key, nil)
}

// dropEmptyFrontmatter removes a frontmatter block that holds nothing but
// blank lines.
func dropEmptyFrontmatter(src []byte) []byte {
	y, start, body, ok := SplitFrontmatter(src)
	if !ok || len(bytes.TrimSpace(y)) != 0 {
		return src
	}
	out := make([]byte, 0, len(src)-(body-start))
	out = append(out, src[:start]...)
	return append(out, src[body:]...)
}

func checkKey(key string) error {
	switch {
	case key == "":
		return &Error{Kind: ErrInvalid, Msg: "a property name is empty; name it, e.g. status"}
	case strings.ContainsFunc(key, func(r rune) bool { return isYAMLBreak(r) || unicode.IsControl(r) }):
		return &Error{Kind: ErrInvalid, Msg: fmt.Sprintf("property name %q contains a line break or control character", key)}
	case key == "<<":
		return &Error{Kind: ErrInvalid, Msg: `"<<" is YAML's merge key, not a property`}
	}
	return nil
}

func isYAMLBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == '\u0085' || r == '\u2028' || r == '\u2029'
}

// propValue is a value to write: a scalar or a list of scalars, each
// already rendered as YAML.
type propValue struct {
	list   bool
	items  []string // rendered YAML scalars; for a scalar, one item ("" = empty)
	texts  []string // their plain text, for comparison and reports
	isDate []bool
}

func (pv propValue) text() string {
	if pv.list {
		return "[" + strings.Join(pv.texts, ", ") + "]"
	}
	return pv.texts[0]
}

// newPropValue checks and renders a value given as decoded JSON.
func newPropValue(key string, val any) (propValue, error) {
	bad := func(what string) (propValue, error) {
		return propValue{}, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(
			"property %q: %s; Obsidian properties hold text, numbers, checkboxes (true/false), dates (2026-11-29), datetimes (2026-11-29T14:30) or lists of text",
			key, what)}
	}
	var items []any
	list := false
	switch t := val.(type) {
	case []any:
		items, list = t, true
	case []string:
		for _, s := range t {
			items = append(items, s)
		}
		list = true
	default:
		items = []any{val}
	}
	pv := propValue{list: list}
	for _, it := range items {
		y, txt, err := scalarYAML(it)
		if err != nil {
			if list {
				return bad("a list item is " + err.Error())
			}
			return bad("the value is " + err.Error())
		}
		if list && txt == "" {
			return bad("a list item is empty")
		}
		pv.items = append(pv.items, y)
		pv.texts = append(pv.texts, txt)
	}
	return pv, nil
}

// scalarYAML renders one scalar the way Obsidian writes it, and its text.
func scalarYAML(v any) (yamlText, text string, err error) {
	switch t := v.(type) {
	case string:
		return yamlString(t), t, nil
	case bool:
		return strconv.FormatBool(t), strconv.FormatBool(t), nil
	case int:
		s := strconv.Itoa(t)
		return s, s, nil
	case int64:
		s := strconv.FormatInt(t, 10)
		return s, s, nil
	case json.Number:
		if _, err := t.Float64(); err != nil {
			return "", "", fmt.Errorf("not a number")
		}
		s := t.String()
		return s, s, nil
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return "", "", fmt.Errorf("not a finite number")
		}
		var s string
		if t == math.Trunc(t) && math.Abs(t) < 1e15 {
			s = strconv.FormatInt(int64(t), 10)
		} else {
			s = strconv.FormatFloat(t, 'g', -1, 64)
		}
		return s, s, nil
	case nil:
		return "", "", fmt.Errorf("null (to remove a property, list it in remove)")
	case map[string]any:
		return "", "", fmt.Errorf("an object")
	case []any, []string:
		return "", "", fmt.Errorf("a nested list")
	}
	return "", "", fmt.Errorf("of an unsupported kind")
}

// yamlString renders a string as a YAML scalar: plain when YAML reads it
// back as that same string (and dates and datetimes plain always, as
// Obsidian writes them), double-quoted otherwise.
func yamlString(s string) string {
	switch {
	case s == "":
		return ""
	case dateRe.MatchString(s) && validDate(s), dateTimeRe.MatchString(s) && validDate(s[:10]):
		return s
	case plainOK(s):
		return s
	}
	return strconv.Quote(s)
}

func validDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// plainOK reports whether s can be written unquoted both as a mapping value
// and as a block list item and read back as exactly s.
func plainOK(s string) bool {
	if s != strings.TrimSpace(s) || strings.ContainsFunc(s, func(r rune) bool {
		return isYAMLBreak(r) || unicode.IsControl(r) || r == '\ufeff' || r == '\t'
	}) {
		return false
	}
	for _, doc := range []string{"k: " + s + "\n", "- " + s + "\n"} {
		var n yaml.Node
		if yaml.Unmarshal([]byte(doc), &n) != nil || len(n.Content) != 1 {
			return false
		}
		c := n.Content[0]
		var val *yaml.Node
		switch {
		case c.Kind == yaml.MappingNode && len(c.Content) == 2:
			val = c.Content[1]
		case c.Kind == yaml.SequenceNode && len(c.Content) == 1:
			val = c.Content[0]
		default:
			return false
		}
		if val.Kind != yaml.ScalarNode || val.Tag != "!!str" || val.Style != 0 || val.Value != s {
			return false
		}
	}
	return true
}

// sameAs reports whether the node already holds this value (compared as
// text, so `status: "aktiv"` equals aktiv and `n: 3` equals 3).
func (pv propValue) sameAs(n *yaml.Node) bool {
	t, vals := describeValue(n)
	if pv.list != (t == "list") || t == "object" {
		return false
	}
	if !pv.list && pv.texts[0] == "" {
		return t == "empty"
	}
	if len(vals) != len(pv.texts) {
		return false
	}
	for i := range vals {
		if vals[i] != pv.texts[i] {
			return false
		}
	}
	return true
}

// fmText is a note's frontmatter prepared for line edits.
type fmText struct {
	src        []byte
	has        bool   // the note has frontmatter
	fenceStart int    // offset of the opening fence (after a BOM)
	start      int    // offset of the YAML: after the opening fence line; without frontmatter, where one is inserted
	end        int    // offset of the closing fence line
	eol        string // the frontmatter's line ending
	indent     string // indentation of the top-level keys
	listIndent string // indentation of block list items under their key
	entries    []fmEntry
	lines      []int // offsets (in src) where the YAML's lines start; lines[0] = start
}

type fmEntry struct {
	key          string
	keyNode, val *yaml.Node
	start, end   int // the entry's lines in src; trailing blank and comment lines excluded
}

// parseFM reads the frontmatter of src for editing. A note without
// frontmatter gives has=false. Invalid YAML and frontmatter that is not a
// block mapping of properties are ErrInvalid naming the line.
func parseFM(src []byte) (*fmText, error) {
	fm := &fmText{src: src, eol: "\n", listIndent: "  "}
	y, fence, _, ok := SplitFrontmatter(src)
	if !ok {
		if bytes.HasPrefix(src, bom) {
			fm.start = len(bom)
		}
		fm.fenceStart, fm.end = fm.start, fm.start
		if isCRLF(src) {
			fm.eol = "\r\n"
		}
		return fm, nil
	}
	fm.has = true
	fm.fenceStart = fence
	fm.start = fence + bytes.IndexByte(src[fence:], '\n') + 1
	fm.end = fm.start + len(y)
	if fm.start >= 2 && src[fm.start-2] == '\r' {
		fm.eol = "\r\n"
	}
	first := bytes.Count(src[:fm.start], []byte("\n")) + 1 // note line of the YAML's first line
	invalid := func(err error) error {
		e, _ := AsError((&Doc{Src: src, FrontmatterStart: fence}).yamlError(err))
		msg := e.Msg
		// yaml.v3 counts the lines of its parser errors ("did not find
		// expected …") from 0, those of its scanner errors from 1.
		if strings.Contains(msg, "did not find expected") {
			msg = yamlLineRe.ReplaceAllStringFunc(msg, func(m string) string {
				n, _ := strconv.Atoi(yamlLineRe.FindStringSubmatch(m)[1])
				return fmt.Sprintf("line %d:", n+1)
			})
		}
		return &Error{Kind: ErrInvalid, Err: err,
			Msg: msg + "; vaultd will not change it: fix the YAML in Obsidian or with replace_note"}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(y, &doc); err != nil {
		return nil, invalid(err)
	}
	fm.lines = yamlLineStarts(y, fm.start)
	if len(doc.Content) == 0 {
		return fm, nil
	}
	root := resolveAlias(doc.Content[0])
	switch {
	case root.Kind == yaml.ScalarNode && root.Tag == "!!null":
		return fm, nil
	case root.Kind != yaml.MappingNode:
		return nil, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(
			"the frontmatter (lines %d–%d) is not a list of properties (name: value lines), so vaultd will not change it; fix it in Obsidian or with replace_note",
			first, first+len(fm.lines)-1)}
	case root.Style&yaml.FlowStyle != 0:
		return nil, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(
			"the frontmatter (line %d) is written as one {…} mapping; vaultd only edits properties written one per line (name: value)", first)}
	}
	// Duplicate keys only show when decoding into a map.
	var m map[string]any
	if err := yaml.Unmarshal(y, &m); err != nil {
		return nil, invalid(err)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, val := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Line < 1 || k.Line > len(fm.lines) {
			return nil, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(
				"the frontmatter has a property name on line %d that is not plain text (a complex or aliased key); vaultd will not change it",
				first+k.Line-1)}
		}
		e := fmEntry{key: k.Value, keyNode: k, val: val, start: fm.lines[k.Line-1]}
		if i == 0 {
			fm.indent = strings.Repeat(" ", max(0, k.Column-1))
		}
		if i+2 < len(root.Content) {
			nk := root.Content[i+2]
			if nk.Line <= k.Line || nk.Line > len(fm.lines) {
				return nil, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(
					"the frontmatter has two properties on line %d; vaultd only edits properties written one per line", first+k.Line-1)}
			}
			e.end = fm.lines[nk.Line-1]
		} else {
			e.end = fm.end
		}
		e.end = fm.trimTail(e.start, e.end)
		fm.entries = append(fm.entries, e)
		if seq := resolveAlias(val); seq.Kind == yaml.SequenceNode && seq.Style&yaml.FlowStyle == 0 && len(seq.Content) > 0 && fm.listIndent == "  " {
			fm.listIndent = listIndentOf(k, seq)
		}
	}
	return fm, nil
}

// listIndentOf is the indentation of a block list's items relative to its key.
func listIndentOf(k, seq *yaml.Node) string {
	return strings.Repeat(" ", max(0, seq.Column-k.Column))
}

// yamlLineStarts returns where each line of y starts, as offsets shifted by
// base. Line breaks are those yaml.v3 counts: LF, CR, CRLF, NEL, LS, PS.
func yamlLineStarts(y []byte, base int) []int {
	starts := []int{base}
	for i := 0; i < len(y); {
		n := 0
		switch {
		case y[i] == '\r' && i+1 < len(y) && y[i+1] == '\n':
			n = 2
		case y[i] == '\r', y[i] == '\n':
			n = 1
		case y[i] == 0xC2 && i+1 < len(y) && y[i+1] == 0x85:
			n = 2
		case y[i] == 0xE2 && i+2 < len(y) && y[i+1] == 0x80 && (y[i+2] == 0xA8 || y[i+2] == 0xA9):
			n = 3
		}
		if n == 0 {
			i++
			continue
		}
		i += n
		if i < len(y) {
			starts = append(starts, base+i)
		}
	}
	return starts
}

// trimTail moves end back over trailing lines that hold nothing or only a
// comment starting in the first column: they belong to what follows (a
// comment above the next key) or to the frontmatter as a whole.
func (fm *fmText) trimTail(start, end int) int {
	for end > start {
		i := lineIndex(fm.lines, end-1)
		ls := fm.lines[i]
		if ls <= start {
			break
		}
		line := bytes.TrimRight(fm.src[ls:end], " \t\r\n")
		if len(line) != 0 && line[0] != '#' {
			break
		}
		end = ls
	}
	return end
}

// lineIndex returns the index of the line (in starts) containing offset off.
func lineIndex(starts []int, off int) int {
	i := sort.SearchInts(starts, off+1) - 1
	return max(i, 0)
}

// noteLine is the 1-based note line of offset off.
func (fm *fmText) noteLine(off int) int { return bytes.Count(fm.src[:off], []byte("\n")) + 1 }

// find returns the entry named key: exactly, else ignoring case when only
// one entry matches that way; -1 if none.
func (fm *fmText) find(key string) int {
	for i, e := range fm.entries {
		if e.key == key {
			return i
		}
	}
	found := -1
	for i, e := range fm.entries {
		if strings.EqualFold(e.key, key) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// rawEntry is the text of an entry's lines, "" when absent.
func (fm *fmText) rawEntry(key string) string {
	if i := fm.find(key); i >= 0 {
		return string(fm.src[fm.entries[i].start:fm.entries[i].end])
	}
	return ""
}

// keyText renders a new key: plain when YAML reads it back as that same
// text, double-quoted otherwise.
func (fm *fmText) keyText(key string) string {
	var n yaml.Node
	if key == strings.TrimSpace(key) && !strings.ContainsRune(key, '\t') &&
		yaml.Unmarshal([]byte(key+": x\n"), &n) == nil && len(n.Content) == 1 {
		if m := n.Content[0]; m.Kind == yaml.MappingNode && len(m.Content) == 2 {
			if k := m.Content[0]; k.Kind == yaml.ScalarNode && k.Style == 0 && k.Tag == "!!str" && k.Value == key {
				return key
			}
		}
	}
	return strconv.Quote(key)
}

// entryKeyText is the key of entry i as written in the file, when it can
// be taken over verbatim, else rendered anew.
func (fm *fmText) entryKeyText(i int) string {
	e := fm.entries[i]
	line := string(fm.src[e.start:e.end])
	if e.keyNode.Style == 0 && e.keyNode.Anchor == "" && strings.HasPrefix(line, fm.indent+e.key+":") {
		return e.key
	}
	return fm.keyText(e.key)
}

// renderEntry renders "key: value" lines with the frontmatter's indentation
// and line ending.
func (fm *fmText) renderEntry(key string, pv propValue, listIndent string) string {
	var b strings.Builder
	b.WriteString(fm.indent + key + ":")
	switch {
	case pv.list && len(pv.items) == 0:
		b.WriteString(" []" + fm.eol)
	case pv.list:
		b.WriteString(fm.eol)
		for _, it := range pv.items {
			b.WriteString(fm.indent + listIndent + "- " + it + fm.eol)
		}
	case pv.items[0] == "":
		b.WriteString(fm.eol)
	default:
		b.WriteString(" " + pv.items[0] + fm.eol)
	}
	return b.String()
}

// insert adds entry text at the end of the frontmatter, creating the
// frontmatter when the note has none.
func (fm *fmText) insert(entry string) []byte {
	out := make([]byte, 0, len(fm.src)+len(entry)+10)
	out = append(out, fm.src[:fm.end]...)
	if !fm.has {
		out = append(out, "---"+fm.eol...)
	}
	out = append(out, entry...)
	if !fm.has {
		out = append(out, "---"+fm.eol...)
	}
	return append(out, fm.src[fm.end:]...)
}

// replace puts text in place of entry i's lines ("" removes it).
func (fm *fmText) replace(i int, text string) []byte {
	e := fm.entries[i]
	out := make([]byte, 0, len(fm.src)+len(text))
	out = append(out, fm.src[:e.start]...)
	out = append(out, text...)
	return append(out, fm.src[e.end:]...)
}

// verify parses next and checks that its properties are fm's with only
// key changed: set to pv, or removed when pv is nil. Everything else —
// keys, order, values — must be as before.
func (fm *fmText) verify(next []byte, key string, pv *propValue) error {
	after, err := parseFM(next)
	if err == nil {
		err = fm.sameExcept(after, key, pv)
	}
	if err != nil {
		return &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(
			"vaultd cannot change property %q without disturbing the rest of the frontmatter (an unusual YAML layout); change it in Obsidian or with replace_note", key)}
	}
	return nil
}

// sameExcept checks that after holds fm's entries, in order, with the
// entry named key set to pv, or gone when pv is nil.
func (fm *fmText) sameExcept(after *fmText, key string, pv *propValue) error {
	want := fm.find(key)
	var before []fmEntry
	for i, e := range fm.entries {
		if i != want {
			before = append(before, e)
		}
	}
	var got []fmEntry
	var changed *fmEntry
	wantKey := key
	if want >= 0 {
		wantKey = fm.entries[want].key
	}
	for i, e := range after.entries {
		if e.key == wantKey && changed == nil {
			changed = &after.entries[i]
			continue
		}
		got = append(got, e)
	}
	if len(got) != len(before) {
		return fmt.Errorf("entries differ")
	}
	for i := range got {
		if got[i].key != before[i].key || canon(got[i].val) != canon(before[i].val) {
			return fmt.Errorf("entry %q differs", before[i].key)
		}
	}
	switch {
	case pv == nil && changed != nil:
		return fmt.Errorf("key still there")
	case pv != nil && changed == nil:
		return fmt.Errorf("key missing")
	case pv != nil && !pv.sameAs(changed.val):
		return fmt.Errorf("new value differs")
	}
	return nil
}

// canon renders a decoded node for comparison.
func canon(n *yaml.Node) string {
	var v any
	if err := n.Decode(&v); err != nil {
		return "!" + err.Error()
	}
	return fmt.Sprintf("%#v", v)
}
