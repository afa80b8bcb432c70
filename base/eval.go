package base

import (
	"fmt"
	"math"
	"path"
	"strings"
	"time"
)

// File is one file of the vault as a base sees it: a note with its
// properties, tags and links, or an attachment (no properties).
type File struct {
	Path  string
	Size  int64
	CTime time.Time
	MTime time.Time
	// Props are the note's frontmatter properties as Values (FromYAML);
	// nil for an attachment or a note without frontmatter.
	Props map[string]any
	Tags  []string // without '#', frontmatter and inline
	// Links and Embeds are the note's outgoing links: Path is the file
	// each resolves to ("" unresolved).
	Links  []Link
	Embeds []Link
	// Backlinks are the paths of the notes linking here (Set fills them).
	Backlinks []string
	// LoadLinks, when set, fills Links, Embeds and Backlinks before they
	// are first read, and must be safe to call from several goroutines
	// (a sync.Once): a set whose files share one makes the links of all
	// of them at the first view that looks at any, so that views that
	// never do (filters on tags, properties, folders) need not parse
	// every note for its links.
	LoadLinks func()

	// lower-cased tags and folder, for hasTag and inFolder (Prepare).
	tagsLower []string
	dirLower  string
	prepared  bool
}

// Prepare computes what hasTag and inFolder compare, once: call it after
// setting Path and Tags, before the file is shared between goroutines.
// Without it they compute it per call.
func (f *File) Prepare() {
	f.tagsLower = make([]string, len(f.Tags))
	for i, t := range f.Tags {
		f.tagsLower[i] = strings.ToLower(t)
	}
	f.dirLower = strings.ToLower(path.Dir(f.Path))
	f.prepared = true
}

// Unlinked returns a copy of f without its links (Links, Embeds,
// Backlinks and LoadLinks), for a set that makes them anew. It reads none
// of them, so it may copy a file whose LoadLinks is running.
func (f *File) Unlinked() *File {
	return &File{Path: f.Path, Size: f.Size, CTime: f.CTime, MTime: f.MTime, Props: f.Props, Tags: f.Tags,
		tagsLower: f.tagsLower, dirLower: f.dirLower, prepared: f.prepared}
}

// loadLinks makes sure Links, Embeds and Backlinks are filled.
func (f *File) loadLinks() {
	if f.LoadLinks != nil {
		f.LoadLinks()
	}
}

// Name is the file name with its extension.
func (f *File) Name() string { return path.Base(f.Path) }

// Ext is the extension without the dot: "md".
func (f *File) Ext() string { return strings.TrimPrefix(path.Ext(f.Path), ".") }

// Basename is the name without the extension.
func (f *File) Basename() string { return strings.TrimSuffix(f.Name(), path.Ext(f.Path)) }

// Folder is the parent folder's path, "/" at the vault root as Obsidian
// has it.
func (f *File) Folder() string {
	d := path.Dir(f.Path)
	if d == "." {
		return "/"
	}
	return d
}

// prop looks a property up: exactly, else ignoring case (Obsidian's
// property names are case-insensitive).
func (f *File) prop(name string) (any, bool) {
	if f == nil || f.Props == nil {
		return nil, false
	}
	if v, ok := f.Props[name]; ok {
		return v, true
	}
	for k, v := range f.Props {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// Env is what evaluation needs besides the row: the vault's files, link
// resolution, the clock and the time zone.
type Env struct {
	// Resolve returns the path a link target written in the note at from
	// resolves to, "" when it does not.
	Resolve func(from, target string) string
	// Lookup returns the file at path p, nil if none.
	Lookup func(p string) *File
	Now    time.Time
	Loc    *time.Location
	// This is the file `this` names: the base file, or the note embedding
	// the base block.
	This *File
}

// scope is the evaluation of expressions for one row.
type scope struct {
	env      *Env
	file     *File
	formulas map[string]*Expr
	cache    map[string]any // formula values of this row
	busy     map[string]bool
	locals   map[string]any // value, index, acc; values in summaries
}

// evalError is an error while evaluating a row: the expression and what
// went wrong (a type error, a cycle of formulas).
type evalError struct {
	expr string
	col  int
	msg  string
}

func (e *evalError) Error() string {
	if e.col > 0 {
		return fmt.Sprintf("%s at column %d: %s", codeQuote(e.expr), e.col, e.msg)
	}
	return fmt.Sprintf("%s: %s", codeQuote(e.expr), e.msg)
}

func (s *scope) evalExpr(e *Expr) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			ee, ok := r.(*evalError)
			if !ok {
				panic(r)
			}
			if ee.expr == "" {
				ee.expr = e.Src
				ee.col = colOf(e.Src, ee.col)
			}
			v, err = nil, ee
		}
	}()
	return s.eval(e.root), nil
}

// colOf turns a byte offset (stored in col by fail) into a column.
func colOf(src string, off int) int {
	if off < 0 {
		return 0
	}
	return len([]rune(src[:min(off, len(src))])) + 1
}

// fail aborts the evaluation of the current expression.
func fail(pos int, format string, args ...any) {
	panic(&evalError{col: pos, msg: fmt.Sprintf(format, args...)})
}

func (s *scope) eval(n node) any {
	switch n := n.(type) {
	case *litNode:
		return n.v
	case *listNode:
		out := make([]any, len(n.items))
		for i, it := range n.items {
			out[i] = s.eval(it)
		}
		return out
	case *objNode:
		out := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			out[k] = s.eval(n.vals[i])
		}
		return out
	case *identNode:
		return s.ident(n)
	case *memberNode:
		if id, ok := n.x.(*identNode); ok {
			switch id.name {
			case "note":
				if _, local := s.locals["note"]; !local {
					v, _ := s.file.prop(n.name)
					return v
				}
			case "formula":
				return s.formula(n.name, n.pos)
			}
		}
		return s.member(s.eval(n.x), n.name, n.pos)
	case *indexNode:
		if id, ok := n.x.(*identNode); ok && (id.name == "note" || id.name == "formula") {
			k, ok := s.eval(n.i).(string)
			if !ok {
				fail(n.pos, "%s[…] takes a property name in quotes", id.name)
			}
			if id.name == "formula" {
				return s.formula(k, n.pos)
			}
			v, _ := s.file.prop(k)
			return v
		}
		return s.index(s.eval(n.x), s.eval(n.i), n.pos)
	case *unaryNode:
		x := s.eval(n.x)
		switch n.op {
		case "!":
			return !truthy(x)
		case "-":
			switch v := x.(type) {
			case float64:
				return -v
			case Duration:
				return Duration{Months: -v.Months, Ms: -v.Ms}
			}
			return -toNumber(x)
		}
		return toNumber(x)
	case *binaryNode:
		return s.binary(n)
	case *callNode:
		if n.recv == nil {
			return s.callGlobal(n)
		}
		return s.callMethod(n)
	}
	panic(fmt.Sprintf("base: unknown node %T", n))
}

func (s *scope) ident(n *identNode) any {
	if v, ok := s.locals[n.name]; ok {
		return v
	}
	switch n.name {
	case "file":
		if s.file == nil {
			return nil
		}
		return s.file
	case "this":
		if s.env.This == nil {
			return nil // an ad-hoc query has no this
		}
		return s.env.This
	case "note":
		if s.file == nil {
			return nil
		}
		return s.file.Props
	case "formula":
		fail(n.pos, "formula needs a name: formula.NAME")
	}
	v, _ := s.file.prop(n.name)
	return v
}

func (s *scope) formula(name string, pos int) any {
	if v, ok := s.cache[name]; ok {
		return v
	}
	e, ok := s.formulas[name]
	if !ok {
		names := make([]string, 0, len(s.formulas))
		for k := range s.formulas {
			names = append(names, "formula."+k)
		}
		if len(names) == 0 {
			fail(pos, "the base has no formula %q (it defines none)", name)
		}
		fail(pos, "the base has no formula %q; formulas: %s", name, strings.Join(sortStrings(names), ", "))
	}
	if s.busy[name] {
		fail(pos, "formula %q refers to itself (a circular reference)", name)
	}
	if s.busy == nil {
		s.busy = map[string]bool{}
	}
	s.busy[name] = true
	defer delete(s.busy, name)
	inner := *s
	inner.locals = nil
	v, err := inner.evalExpr(e)
	if err != nil {
		ee := err.(*evalError)
		panic(&evalError{expr: ee.expr, col: ee.col, msg: ee.msg + " (in formula." + name + ")"})
	}
	if s.cache == nil {
		s.cache = map[string]any{}
	}
	s.cache[name] = v
	return v
}

func (s *scope) member(x any, name string, pos int) any {
	switch v := x.(type) {
	case nil:
		return nil
	case *File:
		return s.fileField(v, name, pos)
	case map[string]any:
		if e, ok := v[name]; ok {
			return e
		}
		for k, e := range v {
			if strings.EqualFold(k, name) {
				return e
			}
		}
		return nil
	case string:
		if name == "length" {
			return float64(len([]rune(v)))
		}
	case []any:
		if name == "length" {
			return float64(len(v))
		}
	case Date:
		switch name {
		case "year":
			return float64(v.T.Year())
		case "month":
			return float64(v.T.Month())
		case "day":
			return float64(v.T.Day())
		case "hour":
			return float64(v.T.Hour())
		case "minute":
			return float64(v.T.Minute())
		case "second":
			return float64(v.T.Second())
		case "millisecond":
			return float64(v.T.Nanosecond() / 1e6)
		}
	case Link:
		if f := s.linkFile(v); f != nil {
			return s.fileField(f, name, pos)
		}
		return nil
	}
	fail(pos, "a %s has no field %q", typeName(x), name)
	return nil
}

// fileFields are the fields of a file object.
var fileFields = []string{"name", "basename", "path", "folder", "ext", "size", "ctime", "mtime", "properties", "tags", "links", "embeds", "backlinks", "file"}

func (s *scope) fileField(f *File, name string, pos int) any {
	if f == nil {
		return nil
	}
	switch name {
	case "name":
		return f.Name()
	case "basename":
		return f.Basename()
	case "path":
		return f.Path
	case "folder":
		return f.Folder()
	case "ext":
		return f.Ext()
	case "size":
		return float64(f.Size)
	case "ctime":
		return Date{T: f.CTime.In(s.env.loc()), HasTime: true}
	case "mtime":
		return Date{T: f.MTime.In(s.env.loc()), HasTime: true}
	case "properties":
		if f.Props == nil {
			return map[string]any{}
		}
		return f.Props
	case "tags":
		out := make([]any, len(f.Tags))
		for i, t := range f.Tags {
			out[i] = "#" + t
		}
		return out
	case "links":
		f.loadLinks()
		return linkList(f.Links)
	case "embeds":
		f.loadLinks()
		return linkList(f.Embeds)
	case "backlinks":
		f.loadLinks()
		out := make([]any, len(f.Backlinks))
		for i, p := range f.Backlinks {
			out[i] = Link{Target: strings.TrimSuffix(path.Base(p), ".md"), Path: p}
		}
		return out
	case "file":
		return f
	}
	fail(pos, "a file has no field %q; its fields: %s", name, strings.Join(fileFields, ", "))
	return nil
}

func linkList(ls []Link) []any {
	out := make([]any, len(ls))
	for i, l := range ls {
		out[i] = l
	}
	return out
}

func (e *Env) loc() *time.Location {
	if e.Loc == nil {
		return time.Local
	}
	return e.Loc
}

// linkFile is the file a link resolves to, nil if none.
func (s *scope) linkFile(l Link) *File {
	if l.Path == "" || s.env.Lookup == nil {
		return nil
	}
	return s.env.Lookup(l.Path)
}

func (s *scope) index(x, i any, pos int) any {
	switch v := x.(type) {
	case nil:
		return nil
	case []any:
		n, ok := i.(float64)
		if !ok {
			fail(pos, "a list is indexed by a number, not a %s", typeName(i))
		}
		k := int(n)
		if k < 0 {
			k += len(v)
		}
		if k < 0 || k >= len(v) {
			return nil
		}
		return v[k]
	case string:
		n, ok := i.(float64)
		if !ok {
			fail(pos, "a string is indexed by a number, not a %s", typeName(i))
		}
		r := []rune(v)
		if int(n) < 0 || int(n) >= len(r) {
			return nil
		}
		return string(r[int(n)])
	case map[string]any, *File, Link, Date:
		k, ok := i.(string)
		if !ok {
			fail(pos, "a %s is indexed by a name in quotes", typeName(x))
		}
		return s.member(x, k, pos)
	}
	fail(pos, "a %s cannot be indexed with [ ]", typeName(x))
	return nil
}

func (s *scope) binary(n *binaryNode) any {
	switch n.op {
	case "&&": // JavaScript's: the left operand when it is falsy, else the right
		l := s.eval(n.l)
		if !truthy(l) {
			return l
		}
		return s.eval(n.r)
	case "||": // the left operand when it is truthy, else the right
		l := s.eval(n.l)
		if truthy(l) {
			return l
		}
		return s.eval(n.r)
	case "??":
		l := s.eval(n.l)
		if l != nil {
			return l
		}
		return s.eval(n.r)
	}
	l, r := s.eval(n.l), s.eval(n.r)
	switch n.op {
	case "==":
		return s.equal(l, r)
	case "!=":
		return !s.equal(l, r)
	case "<", ">", "<=", ">=":
		c, ok := s.compare(l, r)
		if !ok {
			return false
		}
		switch n.op {
		case "<":
			return c < 0
		case ">":
			return c > 0
		case "<=":
			return c <= 0
		}
		return c >= 0
	case "+":
		return s.add(l, r, n.pos, 1)
	case "-":
		return s.add(l, r, n.pos, -1)
	case "*", "/", "%":
		if d, ok := l.(Duration); ok {
			k := toNumber(r)
			switch n.op {
			case "*":
				return Duration{Months: int(math.Round(float64(d.Months) * k)), Ms: d.Ms * k}
			case "/":
				return Duration{Months: int(math.Round(float64(d.Months) / k)), Ms: d.Ms / k}
			}
		}
		a, b := arith(l, r, n)
		switch n.op {
		case "*":
			return a * b
		case "/":
			return a / b
		}
		return math.Mod(a, b)
	}
	panic("base: operator " + n.op)
}

// arith reads both operands of *, / or % as numbers.
func arith(l, r any, n *binaryNode) (float64, float64) {
	for _, v := range []any{l, r} {
		switch v.(type) {
		case nil, float64, bool, string:
		default:
			fail(n.pos, "%q does not apply to a %s", n.op, typeName(v))
		}
	}
	return toNumber(l), toNumber(r)
}

// add is + (sign 1) and - (sign -1).
func (s *scope) add(l, r any, pos, sign int) any {
	switch a := l.(type) {
	case Date:
		switch b := r.(type) {
		case Date:
			if sign < 0 {
				return float64(a.T.Sub(b.T).Milliseconds())
			}
		case Duration:
			return Date{T: addDuration(a.T, b, sign), HasTime: a.HasTime || b.Ms != 0 && math.Mod(b.Ms, 86400000) != 0}
		case string:
			d, err := ParseDuration(b)
			if err != nil {
				fail(pos, "%v", err)
			}
			return Date{T: addDuration(a.T, d, sign), HasTime: a.HasTime || d.Ms != 0 && math.Mod(d.Ms, 86400000) != 0}
		case float64:
			return Date{T: a.T.Add(time.Duration(float64(sign)*b) * time.Millisecond), HasTime: true}
		case nil:
			return nil
		}
		fail(pos, "%s a %s to a date: use a duration such as \"1 week\"", map[int]string{1: "cannot add", -1: "cannot subtract"}[sign], typeName(r))
	case Duration:
		switch b := r.(type) {
		case Duration:
			return Duration{Months: a.Months + sign*b.Months, Ms: a.Ms + float64(sign)*b.Ms}
		case string:
			d, err := ParseDuration(b)
			if err != nil {
				fail(pos, "%v", err)
			}
			return Duration{Months: a.Months + sign*d.Months, Ms: a.Ms + float64(sign)*d.Ms}
		case Date:
			if sign > 0 {
				return Date{T: addDuration(b.T, a, 1), HasTime: b.HasTime}
			}
		}
	case string:
		if sign > 0 {
			return a + toString(r)
		}
	case []any:
		if sign > 0 {
			if b, ok := r.([]any); ok {
				return append(append([]any{}, a...), b...)
			}
			return append(append([]any{}, a...), r)
		}
	}
	if b, ok := r.(string); ok && sign > 0 {
		return toString(l) + b
	}
	switch l.(type) {
	case nil, float64, bool:
	default:
		fail(pos, "%q does not apply to a %s and a %s", map[int]string{1: "+", -1: "-"}[sign], typeName(l), typeName(r))
	}
	switch r.(type) {
	case nil, float64, bool:
	default:
		fail(pos, "%q does not apply to a %s and a %s", map[int]string{1: "+", -1: "-"}[sign], typeName(l), typeName(r))
	}
	return toNumber(l) + float64(sign)*toNumber(r)
}

func addDuration(t time.Time, d Duration, sign int) time.Time {
	if d.Months != 0 {
		t = addMonths(t, sign*d.Months)
	}
	return t.Add(time.Duration(float64(sign) * d.Ms * float64(time.Millisecond)))
}

// addMonths adds months the way moment.js does: the day is clamped to
// the last day of the target month (Jan 31 + 1 month = Feb 28/29).
func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(n), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	last := first.AddDate(0, 1, -1).Day()
	return time.Date(first.Year(), first.Month(), min(d, last), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
}

// toNumber is number(): booleans 1/0, strings parsed (NaN when not a
// number), dates as milliseconds since the epoch, null 0.
func toNumber(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		var f float64
		if _, err := fmt.Sscan(strings.TrimSpace(x), &f); err != nil || strings.TrimSpace(x) == "" {
			return math.NaN()
		}
		return f
	case Date:
		return float64(x.T.UnixMilli())
	case Duration:
		return float64(x.Months)*30*86400000 + x.Ms
	}
	return math.NaN()
}

// equal is ==: numbers, strings, booleans and null by value; dates by
// instant; a link equals a file it resolves to and a link to the same
// file (or, unresolved, the same text); a link equals a string naming its
// target; lists by their items.
func (s *scope) equal(l, r any) bool {
	switch a := l.(type) {
	case nil:
		return r == nil
	case bool:
		b, ok := r.(bool)
		return ok && a == b
	case float64:
		switch b := r.(type) {
		case float64:
			return a == b
		case string:
			return toNumber(b) == a
		case Duration:
			return s.equal(b, a)
		}
		return false
	case string:
		switch b := r.(type) {
		case string:
			return a == b
		case float64:
			return toNumber(a) == b
		case Date, Link, *File:
			return s.equal(r, l)
		}
		return false
	case Date:
		switch b := r.(type) {
		case Date:
			if !a.HasTime || !b.HasTime {
				ay, am, ad := a.T.Date()
				by, bm, bd := b.T.In(a.T.Location()).Date()
				if !a.HasTime && !b.HasTime {
					return ay == by && am == bm && ad == bd
				}
			}
			return a.T.Equal(b.T)
		case string:
			d, ok := parseDate(b, s.env.loc())
			return ok && s.equal(a, d)
		}
		return false
	case Link:
		switch b := r.(type) {
		case Link:
			if a.Path != "" || b.Path != "" {
				return a.Path == b.Path
			}
			return strings.EqualFold(a.Target, b.Target)
		case *File:
			return b != nil && a.Path == b.Path
		case string:
			if t, ok := wikiTarget(b); ok {
				b = t
			}
			if a.Path != "" && (b == a.Path || strings.TrimSuffix(a.Path, ".md") == b) {
				return true
			}
			if s.env.Resolve != nil && a.Path != "" && s.env.Resolve(s.from(), b) == a.Path {
				return true
			}
			return strings.EqualFold(a.Target, b)
		}
		return false
	case *File:
		switch b := r.(type) {
		case *File:
			return a != nil && b != nil && a.Path == b.Path
		case Link:
			return s.equal(b, a)
		case string:
			return a != nil && (a.Path == b || s.env.Resolve != nil && s.env.Resolve(s.from(), b) == a.Path)
		}
		return false
	case []any:
		b, ok := r.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !s.equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case Duration:
		switch b := r.(type) {
		case Duration:
			return a == b
		case float64:
			return toNumber(a) == b // in milliseconds, as date - date is
		}
		return false
	}
	return false
}

func (s *scope) from() string {
	if s.file == nil {
		return ""
	}
	return s.file.Path
}

// compare orders two values: numbers, strings (by code point), dates
// (a date-only against a date string), durations, booleans. ok is false
// when they do not order (null, or kinds that do not compare): a filter
// with < or > on a note without the property keeps nothing.
func (s *scope) compare(l, r any) (int, bool) {
	if l == nil || r == nil {
		return 0, false
	}
	switch a := l.(type) {
	case float64:
		// A number against anything else compares as numbers, as in
		// JavaScript: "NaN" > 5 and "abc" < 5 are both false.
		return cmpFloat(a, toNumber(r))
	case string:
		switch b := r.(type) {
		case string:
			return strings.Compare(a, b), true
		case float64:
			c, ok := s.compare(r, l)
			return -c, ok
		case Date:
			if d, ok := parseDate(a, s.env.loc()); ok {
				return s.compare(d, b)
			}
		case Link:
			return strings.Compare(a, toString(b)), true
		}
	case Date:
		switch b := r.(type) {
		case Date:
			return a.T.Compare(b.T), true
		case string:
			if d, ok := parseDate(b, s.env.loc()); ok {
				return a.T.Compare(d.T), true
			}
		case float64:
			return cmpFloat(float64(a.T.UnixMilli()), b)
		}
	case Duration:
		return cmpFloat(toNumber(a), toNumber(r))
	case bool:
		if _, ok := r.(bool); ok {
			return cmpFloat(toNumber(a), toNumber(r))
		}
	case Link:
		return strings.Compare(toString(a), toString(r)), true
	}
	return 0, false
}

func cmpFloat(a, b float64) (int, bool) {
	if math.IsNaN(a) || math.IsNaN(b) {
		return 0, false
	}
	switch {
	case a < b:
		return -1, true
	case a > b:
		return 1, true
	}
	return 0, true
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}
