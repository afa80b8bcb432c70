package index

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
)

// Dates. Notes write one day in several ways — 16.11.2026, 16.11. (the year
// implied), 2026-11-16 — and a question uses whichever its writer is used
// to. The analyzer therefore indexes every date it recognizes under
// spelling-independent tokens, and a date in a query is searched by one of
// them:
//
//	2026-11-16, 16.11.2026   "2026-11-16" (the day) + "11-16" (day and month) + "2026" (the year)
//	16.11., 16.11, 16.11.26  "11-16" + "--11-16" (a day and month of no known year)
//
// A query for 16.11. (searched as "11-16") thus finds 2026-11-16, 16.11.2026
// and 16.11. alike; a query for 2026-11-16 or 16.11.2026 (searched as
// "2026-11-16" or "--11-16") finds those and the 16.11. of no year, but not
// 2025-11-16. A day-month without a trailing dot ("16.11") counts as a date only
// when both parts have two digits, so that decimals such as 3.5 stay numbers.
//
// The tokens cannot clash with words: the tokenizer never puts a '-' into a
// token. An ISO date is three tokens to the tokenizer (2026, 11, 16); they
// become one position, so that phrases with dates work the same in every
// spelling, and the positions after it move up by two. Queries go through
// the same rewrite, so positions agree.
const (
	// tokDate is a date token a query searches: the day when the year is
	// known, else the day-month.
	tokDate analysis.TokenType = 100 + iota
	// tokDateExtra are the other tokens of a date, indexed only.
	tokDateExtra
)

// yearless marks the day-month token of a date written without its year
// (ISO 8601 writes such dates --11-16).
const yearless = "--"

func isDateToken(t *analysis.Token) bool { return t.Type == tokDate || t.Type == tokDateExtra }

// dates rewrites the dates in a lower-cased token stream of input (see
// above). Tokens are reused; positions after a collapsed ISO date shift.
func dates(input []byte, ts analysis.TokenStream) analysis.TokenStream {
	var out analysis.TokenStream // nil until the first date: most text has none
	shift := 0
	begin := func(i int) {
		if out == nil {
			out = append(make(analysis.TokenStream, 0, len(ts)+4), ts[:i]...)
		}
	}
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		t.Position -= shift
		if len(t.Term) == 0 || !isDigit(t.Term[0]) {
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		if y, m, d, ok := isoDate(input, ts, i); ok {
			begin(i)
			out = appendDate(out, t.Position, t.Start, ts[i+2].End, y, m, d, t.Start)
			i += 2
			shift += 2
			continue
		}
		if d, m, y, ok := germanDate(input, t); ok {
			begin(i)
			out = appendDate(out, t.Position, t.Start, t.End, y, m, d, t.End-4)
			continue
		}
		if out != nil {
			out = append(out, t)
		}
	}
	if out == nil {
		return ts
	}
	return out
}

// appendDate appends the tokens of one date at pos, spanning [start,end);
// y is 0 when the year is unknown, else the year's text starts at yearStart.
func appendDate(out analysis.TokenStream, pos, start, end, y, m, d, yearStart int) analysis.TokenStream {
	dm := fmt.Sprintf("%02d-%02d", m, d)
	tok := func(term string, typ analysis.TokenType) *analysis.Token {
		return &analysis.Token{Term: []byte(term), Start: start, End: end, Position: pos, Type: typ}
	}
	if y == 0 {
		return append(out, tok(dm, tokDate), tok(yearless+dm, tokDateExtra))
	}
	year := tok(strconv.Itoa(y), tokDateExtra)
	year.Start, year.End = yearStart, yearStart+4
	return append(out, tok(fmt.Sprintf("%04d-%s", y, dm), tokDate), tok(dm, tokDateExtra), year)
}

// isoDate recognizes ts[i], ts[i+1], ts[i+2] as YYYY-MM-DD (single-digit
// month and day allowed), written without spaces.
func isoDate(input []byte, ts analysis.TokenStream, i int) (y, m, d int, ok bool) {
	if i+2 >= len(ts) {
		return 0, 0, 0, false
	}
	a, b, c := ts[i], ts[i+1], ts[i+2]
	if len(a.Term) != 4 || !digits(a.Term) || !digits(b.Term) || !digits(c.Term) || len(b.Term) > 2 || len(c.Term) > 2 {
		return 0, 0, 0, false
	}
	if b.Start != a.End+1 || c.Start != b.End+1 || input[a.End] != '-' || input[b.End] != '-' {
		return 0, 0, 0, false
	}
	// A fourth number right after ("2026-11-16-3") is something else.
	if c.End < len(input) && input[c.End] == '-' && c.End+1 < len(input) && isDigit(input[c.End+1]) {
		return 0, 0, 0, false
	}
	y, _ = strconv.Atoi(string(a.Term))
	m, _ = strconv.Atoi(string(b.Term))
	d, _ = strconv.Atoi(string(c.Term))
	return y, m, d, validDay(m, d)
}

// germanDate recognizes one token as D.M.YYYY, D.M.YY or D.M (with a
// trailing dot in input, or two digits each). y is 0 unless the year has
// four digits.
func germanDate(input []byte, t *analysis.Token) (d, m, y int, ok bool) {
	if len(t.Term) < 3 || len(t.Term) > 10 || bytes.IndexByte(t.Term, '.') < 0 {
		return 0, 0, 0, false
	}
	parts := strings.Split(string(t.Term), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, 0, 0, false
	}
	for _, p := range parts {
		if p == "" || !digits([]byte(p)) {
			return 0, 0, 0, false
		}
	}
	if len(parts[0]) > 2 || len(parts[1]) > 2 {
		return 0, 0, 0, false
	}
	d, _ = strconv.Atoi(parts[0])
	m, _ = strconv.Atoi(parts[1])
	if !validDay(m, d) {
		return 0, 0, 0, false
	}
	if len(parts) == 3 {
		switch len(parts[2]) {
		case 4:
			y, _ = strconv.Atoi(parts[2])
			return d, m, y, true
		case 2:
			return d, m, 0, true
		}
		return 0, 0, 0, false
	}
	dot := t.End < len(input) && input[t.End] == '.'
	return d, m, 0, dot || (len(parts[0]) == 2 && len(parts[1]) == 2)
}

func validDay(m, d int) bool { return m >= 1 && m <= 12 && d >= 1 && d <= 31 }

func digits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
