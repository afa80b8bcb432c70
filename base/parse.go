package base

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Expr is a parsed expression.
type Expr struct {
	Src  string
	root node
}

type node interface{}

type (
	litNode   struct{ v any }
	identNode struct {
		name string
		pos  int
	}
	memberNode struct {
		x    node
		name string
		pos  int
	}
	indexNode struct {
		x, i node
		pos  int
	}
	callNode struct {
		fn   string // a global function's name, or the method's
		recv node   // nil for a global function
		args []node
		pos  int
	}
	unaryNode struct {
		op  string
		x   node
		pos int
	}
	binaryNode struct {
		op   string
		l, r node
		pos  int
	}
	listNode struct{ items []node }
	objNode  struct {
		keys []string
		vals []node
	}
)

// binding powers of the infix operators (higher binds tighter).
var infixPower = map[string]int{
	"??": 1, "||": 2, "&&": 3,
	"==": 4, "!=": 4,
	"<": 5, ">": 5, "<=": 5, ">=": 5,
	"+": 6, "-": 6,
	"*": 7, "/": 7, "%": 7,
}

const prefixPower = 8

// ParseExpr parses one expression of a filter, formula or summary.
// Errors are *Error with the column; an unknown function or method is an
// error naming the ones there are.
func ParseExpr(src string) (*Expr, error) {
	p := &parser{lex: lexer{src: src}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tEOF {
		return nil, &Error{Expr: src, Msg: "the expression is empty"}
	}
	n, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, p.errf(p.tok.pos, "unexpected %s after a complete expression (missing operator such as && or ==?)", p.describe(p.tok))
	}
	return &Expr{Src: src, root: n}, nil
}

type parser struct {
	lex lexer
	tok token
}

func (p *parser) advance() error {
	t, err := p.lex.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) errf(pos int, format string, args ...any) *Error {
	return p.lex.errAt(pos, format, args...)
}

func (p *parser) describe(t token) string {
	switch t.kind {
	case tEOF:
		return "the end of the expression"
	case tStr:
		return "text " + quoteShort(t.text)
	case tNum:
		return "number " + t.text
	case tIdent:
		return "name " + quoteShort(t.text)
	case tRegex:
		return "regular expression"
	}
	return quoteShort(t.text)
}

func quoteShort(s string) string {
	if utf8.RuneCountInString(s) > 30 {
		s = string([]rune(s)[:30]) + "…"
	}
	return `"` + s + `"`
}

func (p *parser) isOp(op string) bool { return p.tok.kind == tOp && p.tok.text == op }

func (p *parser) expect(op string) error {
	if !p.isOp(op) {
		return p.errf(p.tok.pos, "expected %q, found %s", op, p.describe(p.tok))
	}
	return p.advance()
}

func (p *parser) expr(minPower int) (node, error) {
	left, err := p.prefix()
	if err != nil {
		return nil, err
	}
	for {
		left, err = p.postfix(left)
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tOp {
			return left, nil
		}
		pw, ok := infixPower[p.tok.text]
		if !ok || pw <= minPower {
			return left, nil
		}
		op, pos := p.tok.text, p.tok.pos
		if err := p.advance(); err != nil {
			return nil, err
		}
		right, err := p.expr(pw)
		if err != nil {
			return nil, err
		}
		left = &binaryNode{op: op, l: left, r: right, pos: pos}
	}
}

func (p *parser) prefix() (node, error) {
	t := p.tok
	switch t.kind {
	case tEOF:
		return nil, p.errf(t.pos, "the expression ends where a value is expected")
	case tNum:
		return &litNode{v: t.num}, p.advance()
	case tStr:
		return &litNode{v: t.text}, p.advance()
	case tRegex:
		re, err := compileRegexp(t.text, t.flags)
		if err != nil {
			return nil, p.errf(t.pos, "the regular expression /%s/ is not valid: %v", t.text, err)
		}
		return &litNode{v: re}, p.advance()
	case tIdent:
		if err := p.advance(); err != nil {
			return nil, err
		}
		switch t.text {
		case "true":
			return &litNode{v: true}, nil
		case "false":
			return &litNode{v: false}, nil
		case "null":
			return &litNode{v: nil}, nil
		}
		if p.isOp("(") {
			if _, ok := globals[t.text]; !ok {
				return nil, p.errf(t.pos, "unknown function %s()%s; functions: %s", t.text, didYouMean(t.text, globalNames(), ""), strings.Join(globalNames(), ", "))
			}
			args, err := p.args()
			if err != nil {
				return nil, err
			}
			return &callNode{fn: t.text, args: args, pos: t.pos}, nil
		}
		return &identNode{name: t.text, pos: t.pos}, nil
	case tOp:
		switch t.text {
		case "(":
			if err := p.advance(); err != nil {
				return nil, err
			}
			n, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			return n, p.expect(")")
		case "!", "-", "+":
			if err := p.advance(); err != nil {
				return nil, err
			}
			x, err := p.expr(prefixPower - 1)
			if err != nil {
				return nil, err
			}
			// a postfix binds tighter: -x.abs() is -(x.abs())
			return &unaryNode{op: t.text, x: x, pos: t.pos}, nil
		case "[":
			if err := p.advance(); err != nil {
				return nil, err
			}
			items, err := p.exprsUntil("]", "in the list")
			if err != nil {
				return nil, err
			}
			return &listNode{items: items}, nil
		case "{":
			if err := p.advance(); err != nil {
				return nil, err
			}
			o := &objNode{}
			for !p.isOp("}") {
				if p.tok.kind != tStr && p.tok.kind != tIdent {
					return nil, p.errf(p.tok.pos, "expected a key in the object, found %s", p.describe(p.tok))
				}
				o.keys = append(o.keys, p.tok.text)
				if err := p.advance(); err != nil {
					return nil, err
				}
				if err := p.expect(":"); err != nil {
					return nil, err
				}
				v, err := p.expr(0)
				if err != nil {
					return nil, err
				}
				o.vals = append(o.vals, v)
				if p.isOp(",") {
					if err := p.advance(); err != nil {
						return nil, err
					}
				} else if !p.isOp("}") {
					return nil, p.errf(p.tok.pos, "expected \",\" or \"}\" in the object, found %s", p.describe(p.tok))
				}
			}
			return o, p.advance()
		}
	}
	return nil, p.errf(t.pos, "unexpected %s where a value is expected", p.describe(t))
}

func (p *parser) postfix(x node) (node, error) {
	for {
		switch {
		case p.isOp("."):
			if err := p.advance(); err != nil {
				return nil, err
			}
			if p.tok.kind != tIdent {
				return nil, p.errf(p.tok.pos, "expected a property or function name after \".\", found %s", p.describe(p.tok))
			}
			name, pos := p.tok.text, p.tok.pos
			if err := p.advance(); err != nil {
				return nil, err
			}
			if p.isOp("(") {
				if !methodNames[name] {
					return nil, p.errf(pos, "unknown function .%s()%s; functions on values: %s", name, didYouMean(name, sortedMethods(), "."), strings.Join(sortedMethods(), ", "))
				}
				args, err := p.args()
				if err != nil {
					return nil, err
				}
				x = &callNode{fn: name, recv: x, args: args, pos: pos}
				continue
			}
			x = &memberNode{x: x, name: name, pos: pos}
		case p.isOp("["):
			pos := p.tok.pos
			if err := p.advance(); err != nil {
				return nil, err
			}
			i, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			x = &indexNode{x: x, i: i, pos: pos}
		default:
			return x, nil
		}
	}
}

func (p *parser) args() ([]node, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	return p.exprsUntil(")", "after an argument")
}

// exprsUntil parses expressions separated by commas up to closer, which
// it consumes: a list's items or a call's arguments. where says in an
// error where the parser was ("in the list").
func (p *parser) exprsUntil(closer, where string) ([]node, error) {
	var out []node
	for !p.isOp(closer) {
		n, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if p.isOp(",") {
			if err := p.advance(); err != nil {
				return nil, err
			}
			continue
		}
		if !p.isOp(closer) {
			return nil, p.errf(p.tok.pos, "expected \",\" or %q %s, found %s", closer, where, p.describe(p.tok))
		}
	}
	return out, p.advance()
}

// compileRegexp compiles a JavaScript regexp literal's source with Go's
// RE2 syntax (the common subset: no look-around or back-references).
func compileRegexp(src, flags string) (*Regexp, error) {
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i', 'm', 's':
			prefix += string(f)
		}
	}
	s := src
	if prefix != "" {
		s = "(?" + prefix + ")" + s
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, err
	}
	return &Regexp{Source: src, Global: strings.Contains(flags, "g"), re: re}, nil
}

func globalNames() []string {
	out := make([]string, 0, len(globals))
	for k := range globals {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedMethods() []string {
	out := make([]string, 0, len(methodNames))
	for k := range methodNames {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// didYouMean names the closest of names to a misspelt one (at most two
// edits, one for a name of up to 5 letters), or "".
func didYouMean(name string, names []string, prefix string) string {
	best, bestD := "", 2 // one edit for a short name
	if len(name) > 5 {
		bestD = 3
	}
	for _, n := range names {
		d := editDistance(strings.ToLower(name), strings.ToLower(n))
		if d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + prefix + best + "()?)"
}

// editDistance is the Levenshtein distance of two short names.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Properties are the note properties the expression reads, bare or as
// note.x / note["x"], each once, in order: what an empty answer reports
// the values of.
func (e *Expr) Properties() []string {
	var out []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	e.visit(func(n node) bool {
		switch n := n.(type) {
		case *identNode:
			switch n.name {
			case "file", "this", "note", "formula", "value", "index", "acc", "values":
			default:
				add(n.name)
			}
		case *memberNode:
			if id, ok := n.x.(*identNode); ok && id.name == "note" {
				add(n.name)
				return false
			}
		case *indexNode:
			if id, ok := n.x.(*identNode); ok && id.name == "note" {
				if l, ok := n.i.(*litNode); ok {
					if k, ok := l.v.(string); ok {
						add(k)
						return false
					}
				}
			}
		}
		return true
	})
	return out
}

// FileCalls returns the text arguments of the expression's calls of the
// file method fn, as written: the folders of file.inFolder("x"), the tags
// of file.hasTag("x", "y").
func (e *Expr) FileCalls(fn string) []string {
	var out []string
	e.visit(func(n node) bool {
		c, ok := n.(*callNode)
		if !ok || c.fn != fn {
			return true
		}
		if id, ok := c.recv.(*identNode); ok && id.name == "file" {
			for _, a := range c.args {
				if l, ok := a.(*litNode); ok {
					if s, ok := l.v.(string); ok {
						out = append(out, s)
					}
				}
			}
		}
		return true
	})
	return out
}

// usesClock reports whether the expression reads the time of the call
// (now(), relative()) or chance (random()): its value changes between two
// calls on the same files. today() changes once a day.
func (e *Expr) usesClock() bool {
	found := false
	e.visit(func(n node) bool {
		if c, ok := n.(*callNode); ok && (c.fn == "now" && c.recv == nil || c.fn == "random" && c.recv == nil || c.fn == "relative") {
			found = true
		}
		return !found
	})
	return found
}

// visit calls fn for every node of the expression, a node before the
// nodes inside it; those are left out where fn returns false.
func (e *Expr) visit(fn func(n node) bool) {
	var walk func(n node)
	walk = func(n node) {
		if n == nil || !fn(n) {
			return
		}
		switch n := n.(type) {
		case *callNode:
			walk(n.recv)
			for _, a := range n.args {
				walk(a)
			}
		case *memberNode:
			walk(n.x)
		case *indexNode:
			walk(n.x)
			walk(n.i)
		case *unaryNode:
			walk(n.x)
		case *binaryNode:
			walk(n.l)
			walk(n.r)
		case *listNode:
			for _, it := range n.items {
				walk(it)
			}
		case *objNode:
			for _, v := range n.vals {
				walk(v)
			}
		}
	}
	walk(e.root)
}
