package base

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is a base that cannot be read or run as written: which part
// (Where: "filter", "formula \"ppu\"", "view \"Table\"", …), the
// expression, the 1-based column in it (0 when none applies) and what is
// wrong, with what is supported where that helps.
type Error struct {
	Where string
	Expr  string
	Col   int
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Where != "" {
		b.WriteString(e.Where)
	}
	if e.Expr != "" {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString(codeQuote(e.Expr))
	}
	if e.Col > 0 {
		fmt.Fprintf(&b, " at column %d", e.Col)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// codeQuote quotes an expression as code: `status == "x"` (backticks keep
// its own quotes readable), or with Go quotes when it holds a backtick.
func codeQuote(s string) string {
	if strings.Contains(s, "`") || strings.ContainsAny(s, "\n\r") {
		return strconv.Quote(s)
	}
	return "`" + s + "`"
}

type tokKind int

const (
	tEOF tokKind = iota
	tNum
	tStr
	tIdent
	tOp
	tRegex
)

type token struct {
	kind tokKind
	text string  // the operator, identifier or the string's value
	num  float64 // tNum
	pos  int     // byte offset in the expression
	// flags of a regexp literal
	flags string
}

// operators, longest first.
var operators = []string{"&&", "||", "==", "!=", "<=", ">=", "??", "+", "-", "*", "/", "%", "(", ")", "[", "]", "{", "}", ",", ".", "!", "<", ">", ":"}

type lexer struct {
	src  string
	pos  int
	prev *token // the token before, to tell a regexp from a division
}

func (l *lexer) errAt(pos int, format string, args ...any) *Error {
	return &Error{Expr: l.src, Col: utf8.RuneCountInString(l.src[:min(pos, len(l.src))]) + 1, Msg: fmt.Sprintf(format, args...)}
}

// regexAllowed: a "/" starts a regexp where an operand is expected.
func (l *lexer) regexAllowed() bool {
	if l.prev == nil {
		return true
	}
	switch l.prev.kind {
	case tNum, tStr, tIdent, tRegex:
		return false
	case tOp:
		return l.prev.text != ")" && l.prev.text != "]" && l.prev.text != "}"
	}
	return true
}

func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) {
		r, n := utf8.DecodeRuneInString(l.src[l.pos:])
		if !unicode.IsSpace(r) {
			break
		}
		l.pos += n
	}
	t, err := l.scan()
	if err == nil {
		l.prev = &t
	}
	return t, err
}

func (l *lexer) scan() (token, error) {
	start := l.pos
	if l.pos >= len(l.src) {
		return token{kind: tEOF, pos: start}, nil
	}
	c := l.src[l.pos]
	switch {
	case c >= '0' && c <= '9':
		end := l.pos
		for end < len(l.src) && (l.src[end] >= '0' && l.src[end] <= '9' || l.src[end] == '.' && end+1 < len(l.src) && l.src[end+1] >= '0' && l.src[end+1] <= '9') {
			end++
		}
		f, err := strconv.ParseFloat(l.src[l.pos:end], 64)
		if err != nil {
			return token{}, l.errAt(start, "%q is not a number", l.src[l.pos:end])
		}
		l.pos = end
		return token{kind: tNum, num: f, text: l.src[start:end], pos: start}, nil
	case c == '"' || c == '\'':
		var b strings.Builder
		i := l.pos + 1
		for i < len(l.src) {
			ch := l.src[i]
			if ch == c {
				l.pos = i + 1
				return token{kind: tStr, text: b.String(), pos: start}, nil
			}
			if ch == '\\' && i+1 < len(l.src) {
				i++
				switch l.src[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case 'r':
					b.WriteByte('\r')
				case 'u', 'x':
					// \u00a0 and \xa0, as JavaScript reads them
					n := 4
					if l.src[i] == 'x' {
						n = 2
					}
					if i+n < len(l.src) {
						if r, err := strconv.ParseUint(l.src[i+1:i+1+n], 16, 32); err == nil {
							b.WriteRune(rune(r))
							i += n + 1
							continue
						}
					}
					return token{}, l.errAt(i-1, "\\%c takes %d hex digits", l.src[i], n)
				default:
					b.WriteByte(l.src[i])
				}
				i++
				continue
			}
			b.WriteByte(ch)
			i++
		}
		return token{}, l.errAt(start, "the text starting here has no closing %c", c)
	case c == '/' && l.regexAllowed():
		i := l.pos + 1
		inClass := false
		for i < len(l.src) {
			ch := l.src[i]
			if ch == '\\' {
				i += 2
				continue
			}
			if ch == '[' {
				inClass = true
			} else if ch == ']' {
				inClass = false
			} else if ch == '/' && !inClass {
				break
			}
			i++
		}
		if i >= len(l.src) {
			return token{}, l.errAt(start, "the regular expression starting here has no closing /")
		}
		src := l.src[l.pos+1 : i]
		i++
		fs := i
		for i < len(l.src) && strings.IndexByte("gimsuy", l.src[i]) >= 0 {
			i++
		}
		l.pos = i
		return token{kind: tRegex, text: src, flags: l.src[fs:i], pos: start}, nil
	}
	r, _ := utf8.DecodeRuneInString(l.src[l.pos:])
	if isIdentStart(r) {
		end := l.pos
		for end < len(l.src) {
			r, n := utf8.DecodeRuneInString(l.src[end:])
			if !isIdentPart(r) {
				break
			}
			end += n
		}
		l.pos = end
		return token{kind: tIdent, text: l.src[start:end], pos: start}, nil
	}
	for _, op := range operators {
		if strings.HasPrefix(l.src[l.pos:], op) {
			l.pos += len(op)
			return token{kind: tOp, text: op, pos: start}, nil
		}
	}
	if c == '=' {
		return token{}, l.errAt(start, `"=" is no operator: compare with "==" (or "!=")`)
	}
	if c == '&' || c == '|' {
		return token{}, l.errAt(start, `%q is no operator: use "&&" (and) or "||" (or)`, string(c))
	}
	return token{}, l.errAt(start, "unexpected %q", string(r))
}

func isIdentStart(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) }
func isIdentPart(r rune) bool  { return isIdentStart(r) || unicode.IsDigit(r) }
