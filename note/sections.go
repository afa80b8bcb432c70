package note

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
)

// HeadingSep separates the parts of a heading path: "Projekte > Ziele".
const HeadingSep = " > "

// JoinHeadingPath renders a heading path: ["Projekte", "Ziele"] → "Projekte > Ziele".
func JoinHeadingPath(p []string) string { return strings.Join(p, HeadingSep) }

var fold = cases.Fold()

// HeadingKey is how heading texts are compared when the exact text does
// not match: white space collapsed, NFC, case folded.
func HeadingKey(s string) string { return fold.String(NormSpace(s)) }

// A heading query names a heading by its text ("Ziele"), by level and text
// ("## Ziele") or by a path through its ancestors ("Projekte > Ziele",
// "# Projekte > Ziele"; levels may be skipped). Every '>' may separate two
// parts, but a heading's own text may hold '>' too ("Input > Output"), so
// the query is matched against each heading by trying every way to group its
// parts (queryGroup), not by splitting once.

// maxQuerySeps bounds the '>' a query may hold to be read part by part
// (the grouping costs grow with their square). Headings nest at most six
// deep, so real paths have few; a query with more is matched whole, against
// each heading's text and its full path as HeadingPaths writes it.
const maxQuerySeps = 16

// queryGroup is the text between two '>' of a query (or its ends), read
// both as plain heading text and as "## text".
type queryGroup struct {
	text  string // white space collapsed, NFC
	level int    // >0 when text starts with 1–6 '#' and a space: "## Ziele"
	rest  string // the text after the level marker
	// case-folded forms, for the loose pass
	textKey, restKey string
	// tokens of text and rest, for the prefix pass
	textToks, restToks []string
}

// Match passes, tried in this order until one finds a heading.
const (
	passExact  = iota // the text as written
	passLoose         // case and white space ignored
	passPrefix        // the query's tokens begin the heading's: "§ 626" → "§ 626 Fristlose Kündigung …"
)

type headingQuery struct {
	seps   []int          // offsets of the '>' that may separate parts; -1 and len(q) at the ends
	groups [][]queryGroup // groups[a][b]: the text between seps[a] and seps[b], a < b
	whole  bool           // too many '>': match the whole query as a text or a full path
}

func newHeadingQuery(q string) *headingQuery {
	hq := &headingQuery{seps: []int{-1}, whole: strings.Count(q, ">") > maxQuerySeps}
	if !hq.whole {
		for i := 0; i < len(q); i++ {
			if q[i] == '>' {
				hq.seps = append(hq.seps, i)
			}
		}
	}
	hq.seps = append(hq.seps, len(q))
	n := len(hq.seps)
	hq.groups = make([][]queryGroup, n)
	for a := 0; a < n; a++ {
		hq.groups[a] = make([]queryGroup, n)
		for b := a + 1; b < n; b++ {
			g := queryGroup{text: NormSpace(q[hq.seps[a]+1 : hq.seps[b]])}
			if lvl := levelMarker(g.text); lvl > 0 {
				g.level, g.rest = lvl, strings.TrimSpace(g.text[lvl:])
			}
			g.textKey, g.restKey = fold.String(g.text), fold.String(g.rest)
			g.textToks, g.restToks = trimEllipsis(nameTokens(g.text)), trimEllipsis(nameTokens(g.rest))
			hq.groups[a][b] = g
		}
	}
	return hq
}

// levelMarker returns n when s starts with n (1–6) '#' followed by a space
// or the end of s, else 0.
func levelMarker(s string) int {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ') {
		return 0
	}
	return n
}

// matchKeys are what the loose and prefix passes compare: each heading's
// case-folded text, made when a pass first looks at the heading (a lookup
// among a few candidates folds only theirs), and its tokens.
type matchKeys struct {
	d    *Doc
	keys []string
	made []bool
	toks [][]string
}

func (mk *matchKeys) key(i int) string {
	if mk.keys == nil {
		mk.keys, mk.made = make([]string, len(mk.d.Headings)), make([]bool, len(mk.d.Headings))
	}
	if !mk.made[i] {
		mk.keys[i], mk.made[i] = HeadingKey(mk.d.Headings[i].Text), true
	}
	return mk.keys[i]
}

func (g *queryGroup) matches(h *Heading, i int, mk *matchKeys, pass int) bool {
	switch pass {
	case passLoose:
		key := mk.key(i)
		return key == g.textKey || (g.level > 0 && h.Level == g.level && key == g.restKey)
	case passPrefix:
		toks := mk.toks[i]
		return tokensPrefix(g.textToks, toks) || (g.level > 0 && h.Level == g.level && tokensPrefix(g.restToks, toks))
	}
	return h.Text == g.text || (g.level > 0 && h.Level == g.level && h.Text == g.rest)
}

// nameTokens splits a heading text or a query into case-folded tokens:
// runs of letters and digits, and every other visible character on its
// own. "§ 626 Fristlose Kündigung" gives §, 626, fristlose, kündigung;
// "§626" gives §, 626.
func nameTokens(s string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, fold.String(s[start:end]))
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if start < 0 {
				start = i
			}
		case unicode.IsSpace(r):
			flush(i)
		default:
			flush(i)
			out = append(out, string(r))
		}
	}
	flush(len(s))
	return out
}

// trimEllipsis drops a trailing "…" (or "...") from a query's tokens: a
// heading shown cut ("Der Betriebsrat besteht in Betrieben mit …") names
// the heading it begins.
func trimEllipsis(toks []string) []string {
	n := len(toks)
	switch {
	case n > 1 && toks[n-1] == "…":
		return toks[:n-1]
	case n > 3 && toks[n-1] == "." && toks[n-2] == "." && toks[n-3] == ".":
		return toks[:n-3]
	}
	return toks
}

// tokensPrefix reports whether q (at least one token) begins h as whole
// tokens.
func tokensPrefix(q, h []string) bool {
	if len(q) == 0 || len(q) > len(h) {
		return false
	}
	for i := range q {
		if q[i] != h[i] {
			return false
		}
	}
	return true
}

// matchHeading reports whether the whole query names heading i: its last
// group names i, and the groups before it name ancestors of i, outermost
// first (ancestors may be skipped).
func (hq *headingQuery) matchHeading(d *Doc, i int, mk *matchKeys, pass int) bool {
	last := len(hq.seps) - 1
	if last == 1 { // no '>' (or matched whole): one part, no ancestors to check
		g := &hq.groups[0][1]
		if g.matches(&d.Headings[i], i, mk, pass) {
			return true
		}
		if !hq.whole || pass == passPrefix {
			return false
		}
		h := &d.Headings[i]
		if pass == passLoose {
			return strings.HasSuffix(g.textKey, mk.key(i)) && g.textKey == HeadingKey(d.plainPath(i))
		}
		return strings.HasSuffix(g.text, h.Text) && g.text == d.plainPath(i)
	}
	// Cheap test first: some tail of the query must name heading i itself.
	tail := false
	for a := last - 1; a >= 0 && !tail; a-- {
		tail = hq.groups[a][last].matches(&d.Headings[i], i, mk, pass)
	}
	if !tail {
		return false
	}
	anc := d.ancestors(i)
	// can(b, k): the query up to seps[b] is named by a subsequence of anc[:k].
	type state struct{ b, k int }
	memo := map[state]bool{}
	var can func(b, k int) bool
	can = func(b, k int) bool {
		if b == 0 {
			return true
		}
		st := state{b, k}
		if v, ok := memo[st]; ok {
			return v
		}
		ok := false
		for a := b - 1; a >= 0 && !ok; a-- {
			g := &hq.groups[a][b]
			for j := k - 1; j >= 0 && !ok; j-- {
				if g.matches(&d.Headings[anc[j]], anc[j], mk, pass) && can(a, j) {
					ok = true
				}
			}
		}
		memo[st] = ok
		return ok
	}
	for a := last - 1; a >= 0; a-- {
		if hq.groups[a][last].matches(&d.Headings[i], i, mk, pass) && can(a, len(anc)) {
			return true
		}
	}
	return false
}

// cutLineSuffix splits off the " (line 40)" that tells apart two sections
// with the same path: "Notizen (line 40)" → "Notizen", 40, true.
func cutLineSuffix(q string) (base string, line int, ok bool) {
	rest, found := strings.CutSuffix(q, ")")
	if !found {
		return q, 0, false
	}
	i := strings.LastIndex(rest, "(line ")
	if i < 0 {
		return q, 0, false
	}
	digits := rest[i+len("(line "):]
	if len(digits) == 0 || len(digits) > 9 || strings.Trim(digits, "0123456789") != "" {
		return q, 0, false
	}
	line, _ = strconv.Atoi(digits)
	return strings.TrimRightFunc(rest[:i], unicode.IsSpace), line, true
}

// resolve returns the indexes of the headings the query names: exact
// matches if there are any, else matches ignoring case. A trailing
// "(line N)" first picks, among the matches of the rest, the heading on
// line N; only when none is there is the query read as plain text (a
// heading may itself end in "(line 3)"). only, if not nil, limits the
// search to those headings.
func (d *Doc) resolve(query string, only []int) []int {
	q := strings.TrimSpace(query)
	if base, line, ok := cutLineSuffix(q); ok {
		var out []int
		for _, i := range d.match(newHeadingQuery(base), only) {
			if d.Headings[i].Line == line {
				out = append(out, i)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return d.match(newHeadingQuery(q), only)
}

func (d *Doc) match(hq *headingQuery, only []int) []int {
	var out []int
	each := func(f func(i int)) {
		if only != nil {
			for _, i := range only {
				f(i)
			}
			return
		}
		for i := range d.Headings {
			f(i)
		}
	}
	mk := &matchKeys{d: d}
	for pass := passExact; pass <= passPrefix; pass++ {
		switch pass {
		case passPrefix:
			mk.toks = d.headingTokens()
		}
		each(func(i int) {
			if hq.matchHeading(d, i, mk, pass) {
				out = append(out, i)
			}
		})
		if len(out) > 0 {
			return out
		}
	}
	return out
}

// headingTokens returns the tokens of every heading text (nameTokens),
// made once per Doc: a law's outline is looked up again and again.
func (d *Doc) headingTokens() [][]string {
	d.toksOnce.Do(func() {
		d.toks = make([][]string, len(d.Headings))
		for i, h := range d.Headings {
			d.toks[i] = nameTokens(h.Text)
		}
	})
	return d.toks
}

// Section finds the heading addressed by query: "Zeitleiste" (any level),
// "## Zeitleiste" (that level only) or "Projekte > Ziele" (a path through
// ancestors; levels may be skipped; each part may carry its level). Texts
// match exactly, else ignoring case and white space. A trailing "(line N)",
// as HeadingPaths writes it for two sections with the same path, picks the
// section on line N.
//
// Errors: *Error of kind ErrInvalid (empty query; Alternatives lists the
// note's headings), ErrNotFound (no match; Alternatives lists every heading
// of the note as a path, nearest first) or ErrAmbiguous (Alternatives lists
// every candidate as a full path that names it alone).
func (d *Doc) Section(query string) (Heading, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return Heading{}, &Error{Op: "find section", Kind: ErrInvalid,
			Msg: "the heading is empty; name one of the note's headings", Alternatives: d.HeadingPaths(), AltKind: "headings"}
	}
	matches := d.resolve(q, nil)
	switch len(matches) {
	case 1:
		return d.Headings[matches[0]], nil
	case 0:
		if strings.Trim(q, "#> \t") == "" {
			return Heading{}, &Error{Op: "find section", Kind: ErrInvalid,
				Msg: fmt.Sprintf("%q names no heading text; name one of the note's headings", q), Alternatives: d.HeadingPaths(), AltKind: "headings"}
		}
		return Heading{}, d.sectionNotFound(q)
	default:
		a := d.addresser()
		cands := make([]string, len(matches))
		for i, m := range matches {
			cands[i] = a.address(m)
		}
		return Heading{}, &Error{Op: "find section", Kind: ErrAmbiguous,
			Msg:          fmt.Sprintf("heading %q matches %d sections; name one by its full path", q, len(matches)),
			Alternatives: cands, AltKind: "candidates"}
	}
}

func (d *Doc) sectionNotFound(q string) error {
	e := &Error{Op: "find section", Kind: ErrNotFound, AltKind: "headings"}
	if len(d.Headings) == 0 {
		e.Msg = fmt.Sprintf("no heading %q: the note has no headings", q)
		return e
	}
	e.Msg = fmt.Sprintf("no heading %q in this note", q)
	e.Alternatives = d.closestHeadings(q)
	// The text exists, but at another level or under other headings: say
	// where, so that the next call can name it.
	base := q
	if b, _, ok := cutLineSuffix(q); ok && b != "" {
		base = b
	}
	hq := newHeadingQuery(base)
	last := hq.groups[len(hq.seps)-2][len(hq.seps)-1]
	name := last.text
	if last.level > 0 {
		name = last.rest
	}
	if name != "" && name != q {
		if found := d.resolve(name, nil); len(found) > 0 {
			a := d.addresser()
			var where []string
			for _, f := range found[:min(len(found), 5)] {
				where = append(where, strconv.Quote(a.address(f)))
			}
			if len(found) > 5 {
				where = append(where, fmt.Sprintf("and %d more", len(found)-5))
			}
			e.Msg += fmt.Sprintf("; %q is at %s", name, strings.Join(where, ", "))
		}
	}
	return e
}

// ancestors returns the indexes of the headings enclosing heading i, outermost first.
func (d *Doc) ancestors(i int) []int {
	var out []int
	level := d.Headings[i].Level
	for j := i - 1; j >= 0 && level > 1; j-- {
		if d.Headings[j].Level < level {
			out = append(out, j)
			level = d.Headings[j].Level
		}
	}
	slices.Reverse(out)
	return out
}

// HeadingPaths lists every heading of the note as the shortest way to name
// it alone, in order: its path ("Projekte > Ziele"); with level markers
// when a path is also a shorter path of another heading ("# Ziele" beside
// "Projekte > Ziele"); with " (line N)" when two sections share the path.
// Section resolves each entry to its heading.
func (d *Doc) HeadingPaths() []string {
	out := make([]string, len(d.Headings))
	a := d.addresser()
	for i := range d.Headings {
		out[i] = a.address(i)
	}
	return out
}

// candidatePath is HeadingPaths for one heading.
func (d *Doc) candidatePath(i int) string { return d.addresser().address(i) }

type addresser struct {
	d      *Doc
	simple bool             // no heading text holds '>', starts with '#', ends with "(line N)" or is empty
	byKey  map[string][]int // headings by case-folded text
	twin   []bool           // another heading has the same texts and levels all the way up
}

func (d *Doc) addresser() *addresser {
	a := &addresser{d: d, simple: true, byKey: make(map[string][]int, len(d.Headings)), twin: make([]bool, len(d.Headings))}
	sigs := make([]string, len(d.Headings))
	count := make(map[string]int, len(d.Headings))
	var stack []int
	for i, h := range d.Headings {
		if h.Text == "" || strings.ContainsRune(h.Text, '>') || h.Text[0] == '#' || hasLineSuffix(h.Text) {
			a.simple = false
		}
		k := HeadingKey(h.Text)
		a.byKey[k] = append(a.byKey[k], i)
		for len(stack) > 0 && d.Headings[stack[len(stack)-1]].Level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		parent := ""
		if len(stack) > 0 {
			parent = sigs[stack[len(stack)-1]]
		}
		sigs[i] = parent + strconv.Itoa(h.Level) + ":" + h.Text + "\x00"
		count[sigs[i]]++
		stack = append(stack, i)
	}
	for i := range sigs {
		a.twin[i] = count[sigs[i]] > 1
	}
	return a
}

// address renders the first of these that names heading i alone: the
// path, the path with the level of the last part, the path with every
// level, and each of those with " (line N)".
func (a *addresser) address(i int) string {
	d := a.d
	h := d.Headings[i]
	var only []int
	if a.simple {
		// No text holds a separator or a level marker, so the last part
		// of a path can only name a heading with the same text.
		only = a.byKey[HeadingKey(h.Text)]
		if len(only) == 1 {
			return h.PathString()
		}
	}
	anc := d.ancestors(i)
	plain := d.plainParts(anc, i)
	withLevels := make([]string, 0, len(anc)+1)
	for _, j := range append(anc, i) {
		withLevels = append(withLevels, levelPrefix(d.Headings[j]))
	}
	lastLevel := slices.Clone(plain)
	lastLevel[len(lastLevel)-1] = levelPrefix(h)
	tries := []string{JoinHeadingPath(plain), JoinHeadingPath(lastLevel), JoinHeadingPath(withLevels)}
	if a.twin[i] {
		// Another heading has the same path with the same levels: only the
		// line tells them apart. The path names i (and its twins) exactly,
		// and no other heading starts on i's line, so this names i alone.
		// (Skipping the search matters in law texts: 1,900 "Fußnote"s.)
		return fmt.Sprintf("%s (line %d)", tries[0], h.Line)
	}
	for _, t := range tries {
		if strings.TrimSpace(t) == "" {
			continue // an empty query is refused; "#" names an empty H1
		}
		if r := d.resolve(t, only); len(r) == 1 && r[0] == i {
			return t
		}
	}
	for _, t := range tries {
		t = fmt.Sprintf("%s (line %d)", t, h.Line)
		if r := d.resolve(t, only); len(r) == 1 && r[0] == i {
			return t
		}
	}
	return fmt.Sprintf("%s (line %d)", tries[2], h.Line)
}

// plainParts are the texts of heading i's path; an empty heading text ("#"
// alone) is named by its level marker.
func (d *Doc) plainParts(anc []int, i int) []string {
	out := make([]string, 0, len(anc)+1)
	for _, j := range append(slices.Clip(anc), i) {
		if g := d.Headings[j]; g.Text == "" {
			out = append(out, levelPrefix(g))
		} else {
			out = append(out, g.Text)
		}
	}
	return out
}

// plainPath is heading i's path as HeadingPaths first tries to write it.
func (d *Doc) plainPath(i int) string { return JoinHeadingPath(d.plainParts(d.ancestors(i), i)) }

func hasLineSuffix(s string) bool {
	_, _, ok := cutLineSuffix(s)
	return ok
}

func levelPrefix(h Heading) string {
	if h.Text == "" {
		return strings.Repeat("#", h.Level)
	}
	return strings.Repeat("#", h.Level) + " " + h.Text
}

// closestHeadings returns every heading of the note as HeadingPaths names
// it, nearest to query first (document order among equals). Nearness is
// how people name sections, not spelling: the heading whose text begins
// with the query's tokens first, then the headings sharing the most of
// its tokens — rare tokens weigh more than one every heading has ("§") —
// with near word forms counted ("fristlos" in "Fristlose"), then, for a
// query holding a number, the nearest number ("§ 627" before "§ 610" for
// "§ 626"); plain edit distance only breaks ties.
func (d *Doc) closestHeadings(query string) []string {
	paths := d.HeadingPaths()
	hq := newHeadingQuery(strings.TrimSpace(query))
	last := hq.groups[len(hq.seps)-2][len(hq.seps)-1]
	qt, want := last.textToks, last.textKey
	if last.level > 0 {
		qt, want = last.restToks, last.restKey
	}
	toks := d.headingTokens()
	df := map[string]int{}
	for _, ht := range toks {
		seen := map[string]bool{}
		for _, t := range ht {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	qnum, hasNum := firstNumber(qt)
	type scored struct {
		i               int
		p               string
		prefix          int
		shared          float64
		numDist, edited int
	}
	list := make([]scored, len(paths))
	for i, p := range paths {
		sc := scored{i: i, p: p, numDist: math.MaxInt, edited: Distance(want, HeadingKey(d.Headings[i].Text))}
		for sc.prefix < len(qt) && sc.prefix < len(toks[i]) && qt[sc.prefix] == toks[i][sc.prefix] {
			sc.prefix++
		}
		for _, q := range qt {
			for _, t := range toks[i] {
				if nearToken(q, t) {
					sc.shared += 1 / (1 + math.Log(float64(df[t])))
					break
				}
			}
		}
		if hasNum {
			for _, t := range toks[i] {
				if n, err := strconv.Atoi(t); err == nil {
					sc.numDist = min(sc.numDist, abs(n-qnum))
				}
			}
		}
		list[i] = sc
	}
	slices.SortStableFunc(list, func(a, b scored) int {
		switch {
		case a.prefix != b.prefix:
			return b.prefix - a.prefix
		case a.shared != b.shared:
			if a.shared > b.shared {
				return -1
			}
			return 1
		case a.numDist != b.numDist:
			if a.numDist < b.numDist {
				return -1
			}
			return 1
		}
		return a.edited - b.edited
	})
	// Headings that share nothing with the query are no help when some do.
	if related := slices.IndexFunc(list, func(s scored) bool { return s.prefix == 0 && s.shared == 0 }); related > 0 {
		list = list[:related]
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.p
		if i < closestShort {
			// The nearest are named as briefly as names them alone: a
			// law's paragraph by its own text, not its five ancestors.
			if t := d.Headings[s.i].Text; t != "" && !strings.ContainsRune(t, '>') && t[0] != '#' && !hasLineSuffix(t) {
				if r := d.resolve(t, nil); len(r) == 1 && r[0] == s.i {
					out[i] = t
				}
			}
		}
	}
	return out
}

// closestShort is how many of the nearest headings closestHeadings names by
// their own text when that names them alone.
const closestShort = 12

// nearToken reports whether two tokens name the same word: equal, or one a
// word form of the other (a shared start of at least 5 letters that is most
// of the shorter one: "fristlos", "fristlose").
func nearToken(a, b string) bool {
	if a == b {
		return true
	}
	ra, rb := []rune(a), []rune(b)
	short := min(len(ra), len(rb))
	if short < 5 {
		return false
	}
	n := 0
	for n < short && ra[n] == rb[n] {
		n++
	}
	return n >= 5 && n*5 >= short*4
}

// firstNumber returns the first token that is a number.
func firstNumber(toks []string) (int, bool) {
	for _, t := range toks {
		if n, err := strconv.Atoi(t); err == nil {
			return n, true
		}
	}
	return 0, false
}

// SectionText returns the section's bytes: heading line, body and sub-sections.
func (d *Doc) SectionText(h Heading) []byte { return d.Src[h.Start:h.End] }

// Chunks splits the note into consecutive pieces: the part before the first
// heading (frontmatter and preamble), then each heading with its own text up
// to the next heading of any level. Joining them gives back the exact bytes.
func (d *Doc) Chunks() [][]byte {
	var out [][]byte
	prev := 0
	for _, h := range d.Headings {
		out = append(out, d.Src[prev:h.Start])
		prev = h.Start
	}
	return append(out, d.Src[prev:])
}

// HeadingIndex returns the index in Headings of the heading that starts at
// h.Start, or -1.
func (d *Doc) HeadingIndex(h Heading) int {
	i, ok := slices.BinarySearchFunc(d.Headings, h.Start, func(x Heading, start int) int { return x.Start - start })
	if !ok {
		return -1
	}
	return i
}

// ShortAddresses names each of the headings idx as briefly as names it
// alone: its own text when Section finds it by that text alone, else its
// address as HeadingPaths writes it ("Projekte > Ziele", "Notizen (line 8)").
func (d *Doc) ShortAddresses(idx []int) []string {
	out := make([]string, len(idx))
	var a *addresser
	for k, i := range idx {
		if t := d.Headings[i].Text; t != "" && !strings.ContainsRune(t, '>') && t[0] != '#' && !hasLineSuffix(t) {
			if r := d.resolve(t, nil); len(r) == 1 && r[0] == i {
				out[k] = d.BriefName(i, t)
				continue
			}
		}
		if a == nil {
			a = d.addresser()
		}
		out[k] = a.address(i)
	}
	return out
}

// A heading text longer than maxNameRunes is named by its first words (at
// least minPrefixRunes of them) where they name it alone: a paragraph
// above a line of dashes is a heading to Markdown (a law's "Der
// Betriebsrat besteht in Betrieben mit …", 1,400 characters), and every
// outline line, search hit and next-section call would repeat it whole.
const (
	maxNameRunes   = 100
	minPrefixRunes = 40
)

// LongHeading reports whether a heading text is longer than a heading
// is named by: a paragraph more than a title, which BriefName names by
// its first words and whose words a search snippet shows.
func LongHeading(text string) bool { return utf8.RuneCountInString(text) > maxNameRunes }

// BriefName returns name, a name that resolves to heading i alone (its
// text, say), or, when that is longer than maxNameRunes, the shortest run
// of the heading's first words that Section resolves to i by its
// whole-word prefix match, of minPrefixRunes to maxNameRunes.
func (d *Doc) BriefName(i int, name string) string {
	if !LongHeading(name) {
		return name
	}
	var only []int // the headings a run of i's first words may name
	for _, p := range firstWordRuns(d.Headings[i].Text) {
		if p[0] == '#' || strings.ContainsRune(p, '>') || hasLineSuffix(p) {
			break
		}
		if only == nil {
			// A heading this run or a longer one names (exactly,
			// loosely or as a prefix) begins with this run's tokens:
			// the lookups run among those.
			first := nameTokens(p)
			for j, t := range d.headingTokens() {
				if tokensPrefix(first, t) {
					only = append(only, j)
				}
			}
		}
		if r := d.resolve(p, only); len(r) == 1 && r[0] == i {
			return p
		}
	}
	return name
}

// firstWordRuns returns the runs of text's first words, shortest first,
// of minPrefixRunes to maxNameRunes and short of the whole text, each
// without a trailing comma, colon or dash.
func firstWordRuns(text string) []string {
	words := strings.Fields(text)
	var out []string
	n := 0
	for k, w := range words[:max(len(words)-1, 0)] {
		n += utf8.RuneCountInString(w) + min(k, 1)
		if n > maxNameRunes {
			break
		}
		if n < minPrefixRunes {
			continue
		}
		if p := strings.TrimRight(strings.Join(words[:k+1], " "), ",;:-– "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// BriefPath is heading i's path for people and models to read: each part
// longer than maxNameRunes cut to its first words and " …" (the path
// still names the heading: the prefix pass drops the ellipsis). The full
// path where the cut one would name another heading.
func (d *Doc) BriefPath(i int) string {
	h := d.Headings[i]
	cut := false
	parts := slices.Clone(h.Path)
	for k, p := range parts {
		if !LongHeading(p) {
			continue
		}
		if runs := firstWordRuns(p); len(runs) > 0 {
			parts[k] = runs[0] + " …"
			cut = true
		}
	}
	if !cut {
		return h.PathString()
	}
	brief := JoinHeadingPath(parts)
	if r := d.resolve(brief, nil); len(r) != 1 || r[0] != i {
		return h.PathString()
	}
	return brief
}

// NearHeading reports whether some heading of the note is close to query
// (the last part of a heading path): it shares a word or a word form with
// it (words under four letters that hold no digit do not count), or its
// text is a few edits away. When none is, the heading list
// ranked by closeness is no help, and a caller does better to search the
// note's sections for the query's words.
func (d *Doc) NearHeading(query string) bool {
	q := strings.TrimSpace(query)
	if b, _, ok := cutLineSuffix(q); ok && b != "" {
		q = b
	}
	if i := strings.LastIndex(q, ">"); i >= 0 {
		q = q[i+1:]
	}
	q = strings.TrimSpace(strings.TrimLeft(q, "# "))
	want := HeadingKey(q)
	qt := nameTokens(q)
	for i, ht := range d.headingTokens() {
		if d := Distance(want, HeadingKey(d.Headings[i].Text)); d <= max(2, len([]rune(want))/4) {
			return true
		}
		for _, a := range qt {
			if len([]rune(a)) < 4 && !strings.ContainsFunc(a, unicode.IsDigit) {
				continue // "der", "und", "of": shared by headings that are no nearer
			}
			for _, b := range ht {
				if nearToken(a, b) {
					return true
				}
			}
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
