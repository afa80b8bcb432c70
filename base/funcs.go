package base

import (
	"fmt"
	"html"
	"maps"
	"math"
	"math/rand/v2"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

type globalFunc func(s *scope, n *callNode) any

// globals are the global functions (Functions.md, "Global").
var globals map[string]globalFunc

func init() {
	globals = map[string]globalFunc{
		"escapeHTML": func(s *scope, n *callNode) any {
			return html.EscapeString(toString(s.arg(n, 0, 1)))
		},
		"date": func(s *scope, n *callNode) any {
			v := s.arg(n, 0, 1)
			switch x := v.(type) {
			case Date:
				return x
			case string:
				if d, ok := parseDate(x, s.env.loc()); ok {
					return d
				}
				fail(n.pos, "date(%q): the text is no date; write it as YYYY-MM-DD or YYYY-MM-DD HH:mm:ss", x)
			case float64:
				return Date{T: time.UnixMilli(int64(x)).In(s.env.loc()), HasTime: true}
			case nil:
				return nil
			}
			fail(n.pos, "date() takes a text such as \"2025-01-01\", not a %s", typeName(v))
			return nil
		},
		"duration": func(s *scope, n *callNode) any {
			v := s.arg(n, 0, 1)
			if d, ok := v.(Duration); ok {
				return d
			}
			d, err := ParseDuration(toString(v))
			if err != nil {
				fail(n.pos, "%v", err)
			}
			return d
		},
		"file": func(s *scope, n *callNode) any {
			switch x := s.arg(n, 0, 1).(type) {
			case *File:
				return x
			case Link:
				return s.linkFile(x)
			case string:
				if t, ok := wikiTarget(x); ok {
					x = t
				}
				if s.env.Lookup != nil {
					if f := s.env.Lookup(x); f != nil {
						return f
					}
				}
				if s.env.Resolve != nil {
					if p := s.env.Resolve(s.from(), x); p != "" && s.env.Lookup != nil {
						return s.env.Lookup(p)
					}
				}
			}
			return nil
		},
		"html":  func(s *scope, n *callNode) any { return toString(s.arg(n, 0, 1)) },
		"image": func(s *scope, n *callNode) any { return s.arg(n, 0, 1) },
		"icon":  func(s *scope, n *callNode) any { return toString(s.arg(n, 0, 1)) },
		"if": func(s *scope, n *callNode) any {
			if len(n.args) < 2 || len(n.args) > 3 {
				fail(n.pos, "if() takes a condition, a value if true and optionally one if false")
			}
			if truthy(s.eval(n.args[0])) {
				return s.eval(n.args[1])
			}
			if len(n.args) == 3 {
				return s.eval(n.args[2])
			}
			return nil
		},
		"link": func(s *scope, n *callNode) any {
			if len(n.args) < 1 || len(n.args) > 2 {
				fail(n.pos, "link() takes a path and optionally a display text")
			}
			var l Link
			switch x := s.eval(n.args[0]).(type) {
			case *File:
				if x == nil {
					return nil
				}
				l = Link{Target: strings.TrimSuffix(x.Path, ".md"), Path: x.Path}
			case Link:
				l = x
			default:
				t := toString(x)
				if w, ok := wikiTarget(t); ok {
					t = w
				}
				l = Link{Target: t}
				if s.env.Resolve != nil {
					l.Path = s.env.Resolve(s.from(), t)
				}
			}
			if len(n.args) == 2 {
				l.Display = toString(s.eval(n.args[1]))
			}
			return l
		},
		"list": func(s *scope, n *callNode) any {
			v := s.arg(n, 0, 1)
			if l, ok := v.([]any); ok {
				return l
			}
			if v == nil {
				return []any{}
			}
			return []any{v}
		},
		"max": func(s *scope, n *callNode) any { return s.extreme(n, 1) },
		"min": func(s *scope, n *callNode) any { return s.extreme(n, -1) },
		"now": func(s *scope, n *callNode) any {
			s.noArgs(n)
			return Date{T: s.env.Now.In(s.env.loc()), HasTime: true}
		},
		"today": func(s *scope, n *callNode) any {
			s.noArgs(n)
			y, m, d := s.env.Now.In(s.env.loc()).Date()
			return Date{T: time.Date(y, m, d, 0, 0, 0, 0, s.env.loc())}
		},
		"number": func(s *scope, n *callNode) any {
			v := s.arg(n, 0, 1)
			f := toNumber(v)
			if _, ok := v.(string); ok && math.IsNaN(f) {
				fail(n.pos, "number(%q): the text is not a number", v)
			}
			return f
		},
		"random": func(s *scope, n *callNode) any { s.noArgs(n); return rand.Float64() },
	}
}

func (s *scope) noArgs(n *callNode) {
	if len(n.args) != 0 {
		fail(n.pos, "%s() takes no arguments", n.fn)
	}
}

// arg evaluates argument i of a call that takes exactly want (or, with
// want < 0, at least -want) arguments.
func (s *scope) arg(n *callNode, i, want int) any {
	if want >= 0 && len(n.args) != want || want < 0 && len(n.args) < -want {
		fail(n.pos, "%s() takes %s, not %d", n.fn, plural(abs(want), "argument"), len(n.args))
	}
	return s.eval(n.args[i])
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func (s *scope) extreme(n *callNode, sign int) any {
	var best any
	for _, a := range n.args {
		v := s.eval(a)
		if l, ok := v.([]any); ok {
			for _, e := range l {
				best = s.better(best, e, sign)
			}
			continue
		}
		best = s.better(best, v, sign)
	}
	return best
}

func (s *scope) better(best, v any, sign int) any {
	if v == nil {
		return best
	}
	if best == nil {
		return v
	}
	if c, ok := s.compare(v, best); ok && c*sign > 0 {
		return v
	}
	return best
}

// methodNames are the functions called on a value (parse checks them).
var methodNames = map[string]bool{}

func init() {
	for _, m := range []string{
		// any
		"isTruthy", "isType", "toString", "isEmpty",
		// date
		"date", "format", "time", "relative",
		// string
		"contains", "containsAll", "containsAny", "endsWith", "lower", "upper", "replace", "repeat", "reverse", "slice", "split", "startsWith", "title", "trim",
		// number
		"abs", "ceil", "floor", "round", "toFixed",
		// list
		"filter", "flat", "join", "map", "reduce", "sort", "unique", "mean", "average", "sum", "min", "max", "median",
		// link and file
		"asFile", "linksTo", "asLink", "hasLink", "hasProperty", "hasTag", "inFolder",
		// object
		"keys", "values",
		// regexp
		"matches",
	} {
		methodNames[m] = true
	}
}

func (s *scope) callMethod(n *callNode) any {
	x := s.eval(n.recv)
	// Lambdas: their argument is evaluated per item.
	switch n.fn {
	case "filter", "map", "reduce":
		l, ok := x.([]any)
		if !ok {
			if x == nil {
				return nil
			}
			fail(n.pos, ".%s() applies to a list, not a %s", n.fn, typeName(x))
		}
		return s.lambda(n, l)
	}
	var buf [4]any
	args := buf[:0]
	if len(n.args) > len(buf) {
		args = make([]any, 0, len(n.args))
	}
	for _, a := range n.args {
		args = append(args, s.eval(a))
	}
	// Any type.
	switch n.fn {
	case "isTruthy":
		return truthy(x)
	case "isType":
		want := strings.ToLower(toString(s.only(n, args)))
		got := typeName(x)
		return want == got || want == "array" && got == "list" || want == "boolean" && got == "boolean"
	case "toString":
		return toString(x)
	case "isEmpty":
		return isEmpty(x)
	}
	switch v := x.(type) {
	case nil:
		// A missing property: every function of it is null, so that
		// author.lower() == "x" is false, not an error.
		return nil
	case string:
		return s.stringMethod(n, v, args)
	case float64:
		return s.numberMethod(n, v, args)
	case []any:
		return s.listMethod(n, v, args)
	case Date:
		switch n.fn {
		case "date", "format", "time", "relative":
			return s.dateMethod(n, v, args)
		}
		// A text function of a date applies to its text (2026-11-02).
		return s.stringMethod(n, Text(v), args)
	case *File:
		return s.fileMethod(n, v, args)
	case Link:
		switch n.fn {
		case "asFile":
			return s.linkFile(v)
		case "linksTo":
			f := s.linkFile(v)
			return f != nil && s.fileMethod(&callNode{fn: "hasLink", pos: n.pos}, f, args) == true
		}
		// A link is also a text (its target) for string functions.
		return s.stringMethod(n, toString(v), args)
	case map[string]any:
		switch n.fn {
		case "keys", "values":
			keys := slices.Sorted(maps.Keys(v))
			out := make([]any, len(keys))
			for i, k := range keys {
				if n.fn == "keys" {
					out[i] = k
				} else {
					out[i] = v[k]
				}
			}
			return out
		}
	case *Regexp:
		if n.fn == "matches" {
			return v.re.MatchString(toString(s.only(n, args)))
		}
	case bool:
	}
	fail(n.pos, ".%s() does not apply to a %s", n.fn, typeName(x))
	return nil
}

func (s *scope) only(n *callNode, args []any) any {
	if len(args) != 1 {
		fail(n.pos, ".%s() takes 1 argument, not %d", n.fn, len(args))
	}
	return args[0]
}

func (s *scope) lambda(n *callNode, l []any) any {
	outer := s.locals
	defer func() { s.locals = outer }()
	locals := map[string]any{}
	for k, v := range outer {
		locals[k] = v
	}
	s.locals = locals
	switch n.fn {
	case "filter", "map":
		if len(n.args) != 1 {
			fail(n.pos, ".%s() takes 1 expression using value (and index)", n.fn)
		}
		out := make([]any, 0, len(l))
		for i, v := range l {
			locals["value"], locals["index"] = v, float64(i)
			r := s.eval(n.args[0])
			if n.fn == "map" {
				out = append(out, r)
			} else if truthy(r) {
				out = append(out, v)
			}
		}
		return out
	}
	if len(n.args) != 2 {
		fail(n.pos, ".reduce() takes an expression using acc and value, and the start value of acc")
	}
	acc := s.eval(n.args[1])
	for i, v := range l {
		locals["value"], locals["index"], locals["acc"] = v, float64(i), acc
		acc = s.eval(n.args[0])
	}
	return acc
}

func (s *scope) strArgs(n *callNode, args []any) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = toString(a)
	}
	return out
}

func (s *scope) stringMethod(n *callNode, v string, args []any) any {
	switch n.fn {
	case "contains":
		return strings.Contains(v, toString(s.only(n, args)))
	case "matches":
		// "TASK-42".matches("^TASK-\\d+$"): the text against a regular
		// expression (Obsidian writes /re/.matches(text); both work).
		switch re := s.only(n, args).(type) {
		case *Regexp:
			return re.re.MatchString(v)
		default:
			r, err := compileRegexp(toString(re), "")
			if err != nil {
				fail(n.pos, "%q is no regular expression: %v", toString(re), err)
			}
			return r.re.MatchString(v)
		}
	case "containsAll":
		for _, a := range s.strArgs(n, args) {
			if !strings.Contains(v, a) {
				return false
			}
		}
		return true
	case "containsAny":
		for _, a := range s.strArgs(n, args) {
			if strings.Contains(v, a) {
				return true
			}
		}
		return false
	case "startsWith":
		return strings.HasPrefix(v, toString(s.only(n, args)))
	case "endsWith":
		return strings.HasSuffix(v, toString(s.only(n, args)))
	case "lower":
		return strings.ToLower(v)
	case "upper":
		return strings.ToUpper(v)
	case "trim":
		return strings.TrimSpace(v)
	case "title":
		rs := []rune(v)
		start := true
		for i, r := range rs {
			if unicode.IsSpace(r) {
				start = true
				continue
			}
			if start {
				rs[i] = unicode.ToUpper(r)
			}
			start = false
		}
		return string(rs)
	case "reverse":
		rs := []rune(v)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs)
	case "repeat":
		k := int(toNumber(s.only(n, args)))
		if k < 0 || k*len(v) > 1<<20 {
			fail(n.pos, ".repeat() takes a count from 0 up to a text of 1 MB")
		}
		return strings.Repeat(v, k)
	case "slice":
		rs := []rune(v)
		a, b := sliceBounds(n, args, len(rs))
		return string(rs[a:b])
	case "replace":
		if len(args) != 2 {
			fail(n.pos, ".replace() takes a pattern and a replacement")
		}
		repl := toString(args[1])
		if re, ok := args[0].(*Regexp); ok {
			if re.Global {
				return re.re.ReplaceAllString(v, jsReplacement(repl))
			}
			done := false
			return re.re.ReplaceAllStringFunc(v, func(m string) string {
				if done {
					return m
				}
				done = true
				return re.re.ReplaceAllString(m, jsReplacement(repl))
			})
		}
		return strings.ReplaceAll(v, toString(args[0]), repl)
	case "split":
		if len(args) < 1 || len(args) > 2 {
			fail(n.pos, ".split() takes a separator and optionally a count")
		}
		var parts []string
		if re, ok := args[0].(*Regexp); ok {
			parts = re.re.Split(v, -1)
		} else {
			parts = strings.Split(v, toString(args[0]))
		}
		if len(args) == 2 {
			k := int(toNumber(args[1]))
			if k >= 0 && k < len(parts) {
				parts = parts[:k]
			}
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out
	}
	fail(n.pos, ".%s() does not apply to a string", n.fn)
	return nil
}

// jsReplacement turns JavaScript's $1 into Go's ${1}.
var dollarRe = regexp.MustCompile(`\$(\d+)`)

func jsReplacement(s string) string { return dollarRe.ReplaceAllString(s, "$${$1}") }

func sliceBounds(n *callNode, args []any, length int) (int, int) {
	if len(args) < 1 || len(args) > 2 {
		fail(n.pos, ".slice() takes a start and optionally an end")
	}
	norm := func(v any) int {
		k := int(toNumber(v))
		if k < 0 {
			k += length
		}
		return max(0, min(k, length))
	}
	a, b := norm(args[0]), length
	if len(args) == 2 {
		b = norm(args[1])
	}
	if b < a {
		b = a
	}
	return a, b
}

func (s *scope) numberMethod(n *callNode, v float64, args []any) any {
	switch n.fn {
	case "abs":
		return math.Abs(v)
	case "ceil":
		return math.Ceil(v)
	case "floor":
		return math.Floor(v)
	case "round":
		digits := 0
		if len(args) > 0 {
			digits = int(toNumber(args[0]))
		}
		p := math.Pow(10, float64(digits))
		return math.Floor(v*p+0.5) / p // JavaScript's Math.round: halves up
	case "toFixed":
		digits := 0
		if len(args) > 0 {
			digits = int(toNumber(args[0]))
		}
		if digits < 0 || digits > 100 {
			fail(n.pos, ".toFixed() takes 0 to 100 digits")
		}
		return strconv.FormatFloat(v, 'f', digits, 64)
	}
	fail(n.pos, ".%s() does not apply to a number", n.fn)
	return nil
}

func (s *scope) contains(l []any, x any) bool {
	for _, e := range l {
		if s.equal(e, x) {
			return true
		}
	}
	return false
}

func (s *scope) listMethod(n *callNode, v []any, args []any) any {
	switch n.fn {
	case "contains":
		return s.contains(v, s.only(n, args))
	case "containsAll":
		for _, a := range args {
			if !s.contains(v, a) {
				return false
			}
		}
		return true
	case "containsAny":
		for _, a := range args {
			if s.contains(v, a) {
				return true
			}
		}
		return false
	case "flat":
		var out []any
		var walk func([]any)
		walk = func(l []any) {
			for _, e := range l {
				if sub, ok := e.([]any); ok {
					walk(sub)
				} else {
					out = append(out, e)
				}
			}
		}
		walk(v)
		if out == nil {
			out = []any{}
		}
		return out
	case "join":
		sep := ","
		if len(args) > 0 {
			sep = toString(args[0])
		}
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = toString(e)
		}
		return strings.Join(parts, sep)
	case "reverse":
		out := make([]any, len(v))
		for i, e := range v {
			out[len(v)-1-i] = e
		}
		return out
	case "slice":
		a, b := sliceBounds(n, args, len(v))
		return append([]any{}, v[a:b]...)
	case "sort":
		out := append([]any{}, v...)
		sort.SliceStable(out, func(i, j int) bool { return s.order(out[i], out[j]) < 0 })
		return out
	case "unique":
		out := []any{}
		for _, e := range v {
			if !s.contains(out, e) {
				out = append(out, e)
			}
		}
		return out
	case "mean", "average":
		nums := numbers(v)
		if len(nums) == 0 {
			return nil
		}
		sum := 0.0
		for _, x := range nums {
			sum += x
		}
		return sum / float64(len(nums))
	case "sum":
		sum := 0.0
		for _, x := range numbers(v) {
			sum += x
		}
		return sum
	case "median":
		nums := numbers(v)
		if len(nums) == 0 {
			return nil
		}
		sort.Float64s(nums)
		if len(nums)%2 == 1 {
			return nums[len(nums)/2]
		}
		return (nums[len(nums)/2-1] + nums[len(nums)/2]) / 2
	case "min", "max":
		sign := 1
		if n.fn == "min" {
			sign = -1
		}
		var best any
		for _, e := range v {
			best = s.better(best, e, sign)
		}
		return best
	}
	fail(n.pos, ".%s() does not apply to a list", n.fn)
	return nil
}

// numbers are the numeric items of a list (numbers, and texts that are
// numbers).
func numbers(l []any) []float64 {
	var out []float64
	for _, e := range l {
		switch x := e.(type) {
		case float64:
			if !math.IsNaN(x) {
				out = append(out, x)
			}
		case string:
			if f := toNumber(x); !math.IsNaN(f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// order sorts any two values: null last, then by kind, then within a kind.
func (s *scope) order(a, b any) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return 1
		}
		return -1
	}
	if c, ok := s.compare(a, b); ok {
		return c
	}
	ka, kb := kindRank(a), kindRank(b)
	if ka != kb {
		return ka - kb
	}
	return strings.Compare(Text(a), Text(b))
}

func kindRank(v any) int {
	switch v.(type) {
	case float64:
		return 0
	case Date:
		return 1
	case string, Link:
		return 2
	case bool:
		return 3
	}
	return 4
}

func (s *scope) dateMethod(n *callNode, v Date, args []any) any {
	switch n.fn {
	case "date":
		y, m, d := v.T.Date()
		return Date{T: time.Date(y, m, d, 0, 0, 0, 0, v.T.Location())}
	case "format":
		return FormatMoment(v.T, toString(s.only(n, args)))
	case "time":
		return v.T.Format("15:04:05")
	case "relative":
		return relative(v.T, s.env.Now)
	}
	fail(n.pos, ".%s() does not apply to a date", n.fn)
	return nil
}

func (s *scope) fileMethod(n *callNode, f *File, args []any) any {
	if f == nil {
		return nil
	}
	switch n.fn {
	case "asLink":
		l := Link{Target: strings.TrimSuffix(f.Path, ".md"), Path: f.Path}
		if len(args) > 0 {
			l.Display = toString(args[0])
		}
		return l
	case "hasLink":
		target := s.targetPath(s.only(n, args))
		f.loadLinks()
		for _, l := range f.Links {
			if target != "" && l.Path == target {
				return true
			}
			if t, ok := s.only(n, args).(string); ok && l.Path == "" && strings.EqualFold(l.Target, t) {
				return true
			}
		}
		for _, l := range f.linkProps() {
			if target != "" && l.Path == target {
				return true
			}
		}
		return false
	case "hasProperty":
		_, ok := f.prop(toString(s.only(n, args)))
		return ok
	case "hasTag":
		tags, _ := f.lowered()
		for _, arg := range args {
			a := strings.ToLower(strings.TrimPrefix(toString(arg), "#"))
			for _, t := range tags {
				if t == a || len(t) > len(a) && t[len(a)] == '/' && t[:len(a)] == a {
					return true
				}
			}
		}
		return false
	case "inFolder":
		want := strings.ToLower(strings.Trim(toString(s.only(n, args)), "/"))
		if want == "" {
			return true
		}
		_, d := f.lowered()
		return d == want || len(d) > len(want) && d[len(want)] == '/' && d[:len(want)] == want
	}
	fail(n.pos, ".%s() does not apply to a file", n.fn)
	return nil
}

// linkProps are the links in a note's frontmatter values (file.links
// includes them in Obsidian; they are counted here for hasLink too).
func (f *File) linkProps() []Link {
	var out []Link
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case Link:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, v := range f.Props {
		walk(v)
	}
	return out
}

// targetPath is the path a file, link or name argument points at.
func (s *scope) targetPath(v any) string {
	switch x := v.(type) {
	case *File:
		if x != nil {
			return x.Path
		}
	case Link:
		return x.Path
	case string:
		if t, ok := wikiTarget(x); ok {
			x = t
		}
		if s.env.Lookup != nil && s.env.Lookup(x) != nil {
			return x
		}
		if s.env.Resolve != nil {
			return s.env.Resolve(s.from(), x)
		}
	}
	return ""
}

// ParseDuration reads a duration as Bases writes them: "1 week", "2h",
// "1M" (a month), "3 days 4 hours", "-1d". Units: y/year(s), M/month(s),
// w/week(s), d/day(s), h/hour(s), m/minute(s), s/second(s), ms.
func ParseDuration(s string) (Duration, error) {
	var d Duration
	rest := strings.TrimSpace(s)
	if rest == "" {
		return d, fmt.Errorf("%q is no duration: write e.g. \"1 week\", \"3d\" or \"2 hours\"", s)
	}
	sign := 1.0
	if strings.HasPrefix(rest, "-") {
		sign, rest = -1, strings.TrimSpace(rest[1:])
	} else if strings.HasPrefix(rest, "+") {
		rest = strings.TrimSpace(rest[1:])
	}
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		if i == 0 {
			return Duration{}, fmt.Errorf("%q is no duration: write e.g. \"1 week\", \"3d\" or \"2 hours\"", s)
		}
		k, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return Duration{}, fmt.Errorf("%q is no duration: %q is not a number", s, rest[:i])
		}
		rest = strings.TrimLeft(rest[i:], " ")
		j := 0
		for j < len(rest) && unicode.IsLetter(rune(rest[j])) {
			j++
		}
		unit := rest[:j]
		rest = strings.TrimLeft(rest[j:], " ,")
		k *= sign
		switch unit {
		case "y", "year", "years":
			d.Months += int(k * 12)
		case "M", "month", "months":
			d.Months += int(k)
		case "w", "week", "weeks":
			d.Ms += k * 7 * 86400000
		case "d", "day", "days":
			d.Ms += k * 86400000
		case "h", "hour", "hours":
			d.Ms += k * 3600000
		case "m", "minute", "minutes":
			d.Ms += k * 60000
		case "s", "second", "seconds":
			d.Ms += k * 1000
		case "ms", "millisecond", "milliseconds":
			d.Ms += k
		default:
			return Duration{}, fmt.Errorf("%q is no duration: unknown unit %q; units: y, M, w, d, h, m, s (or year, month, week, day, hour, minute, second)", s, unit)
		}
	}
	return d, nil
}

func (s *scope) callGlobal(n *callNode) any {
	return globals[n.fn](s, n)
}

// lowered returns the file's lower-cased tags and folder (see Prepare).
func (f *File) lowered() ([]string, string) {
	if f.prepared {
		return f.tagsLower, f.dirLower
	}
	tags := make([]string, len(f.Tags))
	for i, t := range f.Tags {
		tags[i] = strings.ToLower(t)
	}
	return tags, strings.ToLower(path.Dir(f.Path))
}
