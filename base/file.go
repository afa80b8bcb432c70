package base

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Base is a parsed base: a .base file or one ```base block.
type Base struct {
	Filters *Filter // nil: every file
	// Formulas by name, in the file's order (FormulaNames).
	Formulas     map[string]*Expr
	FormulaNames []string
	// Display names by property id ("status", "note.status",
	// "formula.ppu", "file.ext").
	DisplayNames map[string]string
	// Summaries are the base's own summary formulas, by name; `values` is
	// the list of a column's values.
	Summaries map[string]*Expr
	Views     []*View
}

// Filter is a filter statement or an and/or/not of filters.
type Filter struct {
	Op    string // "expr", "and", "or", "not" (none of the items is true)
	Expr  *Expr
	Items []*Filter
}

// View is one view of a base.
type View struct {
	Type    string // table, cards, list (or a plugin's, run as a table)
	Name    string
	Limit   int // 0: no limit
	Filters *Filter
	Order   []string // the columns, as property ids
	Sort    []SortKey
	GroupBy *SortKey
	// Summaries: property id → summary name, in the file's order.
	Summaries []ColumnSummary
}

// SortKey is a property and a direction.
type SortKey struct {
	Property string
	Desc     bool
}

// ColumnSummary asks for one summary of one column.
type ColumnSummary struct {
	Property string
	Summary  string
}

// Parse reads a base from its YAML (a .base file, or the text of a
// ```base block). Every expression is parsed, every formula and summary a
// view names must exist: errors are *Error saying where and what.
func Parse(src []byte) (*Base, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, &Error{Where: "the base's YAML", Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	b := &Base{Formulas: map[string]*Expr{}, DisplayNames: map[string]string{}, Summaries: map[string]*Expr{}}
	if len(root.Content) == 0 {
		return b, nil // an empty file: every file, one table
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, &Error{Where: "the base", Msg: fmt.Sprintf("line %d: a base is a YAML mapping with filters, formulas, properties, summaries and views", top.Line)}
	}
	var viewsNode *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i].Value, top.Content[i+1]
		var err error
		switch k {
		case "filters":
			b.Filters, err = parseFilter(v, "filter")
		case "formulas":
			err = eachPair(v, "formulas", func(name string, n *yaml.Node) error {
				e, err := exprOf(n, fmt.Sprintf("formula %q", name))
				if err != nil {
					return err
				}
				if _, dup := b.Formulas[name]; !dup {
					b.FormulaNames = append(b.FormulaNames, name)
				}
				b.Formulas[name] = e
				return nil
			})
		case "properties":
			err = eachPair(v, "properties", func(id string, n *yaml.Node) error {
				if n.Kind != yaml.MappingNode {
					return nil
				}
				for j := 0; j+1 < len(n.Content); j += 2 {
					if n.Content[j].Value == "displayName" {
						b.DisplayNames[propID(id)] = n.Content[j+1].Value
					}
				}
				return nil
			})
		case "summaries":
			err = eachPair(v, "summaries", func(name string, n *yaml.Node) error {
				e, err := exprOf(n, fmt.Sprintf("summary %q", name))
				if err == nil {
					b.Summaries[name] = e
				}
				return err
			})
		case "views":
			viewsNode = v
		}
		if err != nil {
			return nil, err
		}
	}
	if viewsNode != nil {
		if viewsNode.Kind != yaml.SequenceNode {
			return nil, &Error{Where: "views", Msg: fmt.Sprintf("line %d: views is a list of views (- type: table, name: …)", viewsNode.Line)}
		}
		for i, vn := range viewsNode.Content {
			v, err := b.parseView(vn, i)
			if err != nil {
				return nil, err
			}
			b.Views = append(b.Views, v)
		}
	}
	if len(b.Views) == 0 {
		b.Views = []*View{{Type: "table", Name: "Table"}}
	}
	return b, b.check()
}

func eachPair(n *yaml.Node, what string, fn func(k string, v *yaml.Node) error) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &Error{Where: what, Msg: fmt.Sprintf("line %d: %s is a mapping of names to values", n.Line, what)}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if err := fn(n.Content[i].Value, n.Content[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func exprOf(n *yaml.Node, where string) (*Expr, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, &Error{Where: where, Msg: fmt.Sprintf("line %d: an expression is one text, such as 'price * 2'", n.Line)}
	}
	e, err := ParseExpr(n.Value)
	if err != nil {
		if be, ok := err.(*Error); ok {
			be.Where = where
			return nil, be
		}
		return nil, err
	}
	return e, nil
}

func parseFilter(n *yaml.Node, where string) (*Filter, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, nil
		}
		e, err := exprOf(n, where)
		if err != nil {
			return nil, err
		}
		return &Filter{Op: "expr", Expr: e}, nil
	case yaml.MappingNode:
		if len(n.Content) != 2 {
			return nil, &Error{Where: where, Msg: fmt.Sprintf("line %d: a filter group has one key, and, or or not, with a list", n.Line)}
		}
		op := n.Content[0].Value
		if op != "and" && op != "or" && op != "not" {
			return nil, &Error{Where: where, Msg: fmt.Sprintf("line %d: %q is no filter group; use and, or or not", n.Content[0].Line, op)}
		}
		items := n.Content[1]
		if items.Kind != yaml.SequenceNode {
			return filterGroup(op, []*yaml.Node{items}, where)
		}
		return filterGroup(op, items.Content, where)
	case yaml.SequenceNode:
		// A bare list reads as "and".
		return filterGroup("and", n.Content, where)
	}
	return nil, &Error{Where: where, Msg: fmt.Sprintf("line %d: a filter is an expression or a group (and, or, not)", n.Line)}
}

// filterGroup parses the items of an and, or or not group; an empty item
// (null) is left out.
func filterGroup(op string, items []*yaml.Node, where string) (*Filter, error) {
	f := &Filter{Op: op}
	for _, it := range items {
		one, err := parseFilter(it, where)
		if err != nil {
			return nil, err
		}
		if one != nil {
			f.Items = append(f.Items, one)
		}
	}
	return f, nil
}

func (b *Base) parseView(n *yaml.Node, i int) (*View, error) {
	v := &View{Type: "table", Name: fmt.Sprintf("View %d", i+1)}
	if n.Kind != yaml.MappingNode {
		return nil, &Error{Where: "views", Msg: fmt.Sprintf("line %d: a view is a mapping (type, name, order, …)", n.Line)}
	}
	// the name first, so that errors name the view
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == "name" && n.Content[j+1].Value != "" {
			v.Name = n.Content[j+1].Value
		}
	}
	where := fmt.Sprintf("view %q", v.Name)
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, val := n.Content[j].Value, n.Content[j+1]
		switch k {
		case "type":
			if val.Value != "" {
				v.Type = val.Value
			}
		case "limit":
			l, err := strconv.Atoi(val.Value)
			if err != nil || l < 0 {
				return nil, &Error{Where: where, Msg: fmt.Sprintf("line %d: limit is a number of rows, not %q", val.Line, val.Value)}
			}
			v.Limit = l
		case "filters":
			f, err := parseFilter(val, where+" filter")
			if err != nil {
				return nil, err
			}
			v.Filters = f
		case "order":
			for _, it := range val.Content {
				v.Order = append(v.Order, propID(it.Value))
			}
		case "sort":
			for _, it := range val.Content {
				sk, err := sortKey(it, where)
				if err != nil {
					return nil, err
				}
				v.Sort = append(v.Sort, sk)
			}
		case "groupBy":
			sk, err := sortKey(val, where)
			if err != nil {
				return nil, err
			}
			v.GroupBy = &sk
		case "summaries":
			err := eachPair(val, where+" summaries", func(id string, s *yaml.Node) error {
				v.Summaries = append(v.Summaries, ColumnSummary{Property: propID(id), Summary: s.Value})
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

func sortKey(n *yaml.Node, where string) (SortKey, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return SortKey{Property: propID(n.Value)}, nil
	case yaml.MappingNode:
		var sk SortKey
		for j := 0; j+1 < len(n.Content); j += 2 {
			switch n.Content[j].Value {
			case "property":
				sk.Property = propID(n.Content[j+1].Value)
			case "direction":
				switch strings.ToUpper(n.Content[j+1].Value) {
				case "DESC":
					sk.Desc = true
				case "ASC", "":
				default:
					return sk, &Error{Where: where, Msg: fmt.Sprintf("line %d: direction is ASC or DESC, not %q", n.Content[j+1].Line, n.Content[j+1].Value)}
				}
			}
		}
		if sk.Property != "" {
			return sk, nil
		}
	}
	return SortKey{}, &Error{Where: where, Msg: fmt.Sprintf("line %d: a sort or groupBy names a property (property: …, direction: ASC or DESC)", n.Line)}
}

// propID is a property's id as views name it: "note.status" and "status"
// are the same note property, spelled "status".
func propID(s string) string {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "note."); ok {
		return rest
	}
	return s
}

// builtinSummaries are the summaries every view may use.
var builtinSummaries = []string{"Average", "Min", "Max", "Sum", "Range", "Median", "Stddev", "Earliest", "Latest", "Checked", "Unchecked", "Empty", "Filled", "Unique"}

// check: every formula and summary a view names exists.
func (b *Base) check() error {
	for _, v := range b.Views {
		where := fmt.Sprintf("view %q", v.Name)
		ids := append([]string{}, v.Order...)
		for _, s := range v.Sort {
			ids = append(ids, s.Property)
		}
		if v.GroupBy != nil {
			ids = append(ids, v.GroupBy.Property)
		}
		for _, s := range v.Summaries {
			ids = append(ids, s.Property)
			if !b.knownSummary(s.Summary) {
				names := append([]string{}, builtinSummaries...)
				for k := range b.Summaries {
					names = append(names, k)
				}
				return &Error{Where: where, Msg: fmt.Sprintf("unknown summary %q for %s; summaries: %s", s.Summary, s.Property, strings.Join(names, ", "))}
			}
		}
		for _, id := range ids {
			if name, ok := strings.CutPrefix(id, "formula."); ok {
				if _, ok := b.Formulas[name]; !ok {
					return &Error{Where: where, Msg: fmt.Sprintf("it shows %s, but the base defines no formula %q (formulas: %s)", id, name, orNone(b.FormulaNames))}
				}
			}
			if name, ok := strings.CutPrefix(id, "file."); ok && !isFileField(name) {
				return &Error{Where: where, Msg: fmt.Sprintf("%s is no file property; file properties: file.%s", id, strings.Join(fileFields[:len(fileFields)-1], ", file."))}
			}
		}
	}
	return nil
}

func (b *Base) knownSummary(name string) bool {
	for _, s := range builtinSummaries {
		if s == name {
			return true
		}
	}
	_, ok := b.Summaries[name]
	return ok
}

func isFileField(name string) bool {
	for _, f := range fileFields {
		if f == name {
			return true
		}
	}
	return false
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// View returns the view named name (case-insensitively), or nil.
func (b *Base) View(name string) *View {
	for _, v := range b.Views {
		if v.Name == name {
			return v
		}
	}
	for _, v := range b.Views {
		if strings.EqualFold(v.Name, name) {
			return v
		}
	}
	return nil
}

// DisplayName is the column header of a property id.
func (b *Base) DisplayName(id string) string {
	if d, ok := b.DisplayNames[id]; ok && d != "" {
		return d
	}
	return id
}

// Blocks returns the text of every ```base (or ~~~base) code block of a
// note, in order.
func Blocks(src []byte) [][]byte {
	var out [][]byte
	lines := bytes.SplitAfter(src, []byte("\n"))
	for i := 0; i < len(lines); i++ {
		l := bytes.TrimRight(lines[i], "\r\n")
		trimmed := bytes.TrimLeft(l, " ")
		if len(l)-len(trimmed) > 3 {
			continue
		}
		fence := ""
		switch {
		case bytes.HasPrefix(trimmed, []byte("```")):
			fence = "```"
		case bytes.HasPrefix(trimmed, []byte("~~~")):
			fence = "~~~"
		default:
			continue
		}
		n := 0
		for n < len(trimmed) && trimmed[n] == fence[0] {
			n++
		}
		info := strings.TrimSpace(string(trimmed[n:]))
		var body []byte
		j := i + 1
		for ; j < len(lines); j++ {
			c := bytes.TrimSpace(lines[j])
			if len(c) >= n && bytes.Count(c, []byte{fence[0]}) == len(c) {
				break
			}
			body = append(body, lines[j]...)
		}
		if strings.EqualFold(strings.Fields(info + " x")[0], "base") {
			out = append(out, body)
		}
		i = j
	}
	return out
}

// String renders a filter on one line: statements joined by && or ||,
// a not group as !(…).
func (f *Filter) String() string {
	if f == nil {
		return ""
	}
	switch f.Op {
	case "expr":
		return f.Expr.Src
	case "and", "or":
		sep := " && "
		if f.Op == "or" {
			sep = " || "
		}
		parts := make([]string, len(f.Items))
		for i, it := range f.Items {
			parts[i] = it.String()
			if len(f.Items) > 1 && it.Op != "expr" {
				parts[i] = "(" + parts[i] + ")"
			}
		}
		return strings.Join(parts, sep)
	}
	parts := make([]string, len(f.Items))
	for i, it := range f.Items {
		parts[i] = it.String()
	}
	return "!(" + strings.Join(parts, " || ") + ")"
}

// FilterText is the view's filter as it runs: the base's and the view's,
// joined by &&; "" when neither filters.
func (b *Base) FilterText(v *View) string {
	a, c := b.Filters.String(), v.Filters.String()
	switch {
	case a == "":
		return c
	case c == "":
		return a
	}
	return "(" + a + ") && (" + c + ")"
}

// UsesClock reports whether a view's result depends on the moment it is
// run, beyond the day (now(), relative(), random() in its filters,
// formulas or summaries): such a result cannot be reused.
func (b *Base) UsesClock() bool {
	var filter func(f *Filter) bool
	filter = func(f *Filter) bool {
		if f == nil {
			return false
		}
		if f.Expr != nil && f.Expr.usesClock() {
			return true
		}
		for _, it := range f.Items {
			if filter(it) {
				return true
			}
		}
		return false
	}
	if filter(b.Filters) {
		return true
	}
	for _, e := range b.Formulas {
		if e.usesClock() {
			return true
		}
	}
	for _, e := range b.Summaries {
		if e.usesClock() {
			return true
		}
	}
	for _, v := range b.Views {
		if filter(v.Filters) {
			return true
		}
	}
	return false
}
