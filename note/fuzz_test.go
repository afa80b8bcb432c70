package note

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Seeds shared by FuzzParse and FuzzSections. The golden notes of
// testdata/sections are in testdata/fuzz/* too (written by
// TestSections_Golden -update), so plain `go test` runs all of them.
var fuzzSeeds = []string{
	"",
	"# G\n## § 9\nDer Betriebsrat besteht in Betrieben mit in der Regel 5 bis 20 wahlberechtigten Arbeitnehmern aus einer Person, 21 bis 50 aus 3 Mitgliedern.\n-----\n\nx\n\nDer Betriebsrat besteht in Betrieben mit in der Regel 5 bis 20 wahlberechtigten Arbeitnehmern aus einer Person, und mehr.\n---\n# Der Betriebsrat besteht in Betrieben mit …\n",
	"\xef\xbb\xbf",
	"# A\n## B\ntext\n# C\n",
	"# A",
	"#",
	"# A #\n##   B   ##   \n### C \\#\n",
	"Title\n=====\nSub\n---\nbody\n",
	"para\n\n---\n\n# H\n",
	"#tag text\n---\nbody\n",
	"[ref]: /url\nText\n===\n",
	"---\ntitle: T\ntags: [a, b]\n---\n# H\n",
	"---\ntitle: T\n# not closed\n",
	"---\n---\n",
	"---",
	"\xef\xbb\xbf---\r\ntags: x\r\n---\r\n# H\r\n",
	"\xef\xbb\xbf # H\n",
	"# A\r# B\rtext\r",
	"# A\r\n## B\n### C\r\ntext",
	"```\n# not\n```\n# yes\n",
	"~~~~\n# not\n~~~\n# still not\n~~~~\n# yes\n",
	"```\n# unclosed fence",
	"<div>\n# not\n</div>\n\n# yes\n",
	"<!--\n# not\n-->\n# yes\n",
	"> # quoted\n- # listed\n# real\n",
	"# [[Link|label]] and `code` and #tag 🚀\n",
	"## Heading {#id .cls}\n",
	"# Projekte\n## Ziele\n# Archiv\n## Ziele\n",
	"# Ziele\n# Projekte\n## Ziele\n",
	"# A > B\n## C\n# A\n## B\n### C\n",
	"## # x\n# x\n",
	"# x (line 3)\n# x\n# x\n",
	"    # indented code\n   # three spaces\n\t# tab\n",
	"Foo\nbar\n---\n",
	"- a\nFoo\n---\n",
	"> a\nFoo\n---\n",
	"| a |\n| - |\n# H\n",
	"[a](Note.md) ![i](x.png) [[W#H|l]] ![[E]] [r][ref]\n\n[ref]: Other.md\n",
	"foo#bar #baz #123 #a/b (#p) `#code`\n",
	"para\n| a |\n|---|\n---\nk: v\n",
	"# " + strings.Repeat("a>", 20) + "\n## x\n## x\n### y\n# " + strings.Repeat(">", 40) + "\n## x\n",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		orig := bytes.Clone(src)
		d := Parse(src)
		if !bytes.Equal(src, orig) {
			t.Fatalf("Parse modified its input %q", orig)
		}
		checkDoc(t, src, d)
		checkRoundTrip(t, src, d)
		if len(d.Headings) <= 64 {
			checkAddresses(t, src, d)
		}
		again := Parse(src)
		if !reflect.DeepEqual(d.Headings, again.Headings) || !reflect.DeepEqual(d.Links, again.Links) || !reflect.DeepEqual(d.Tags, again.Tags) {
			t.Fatalf("input %q: two parses differ", src)
		}
	})
}

// FuzzSections: splitting a note into sections and joining them gives back
// the exact bytes; replacing one section's body leaves every other byte
// unchanged, and the note still parses into the same other sections.
func FuzzSections(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), uint(i), []byte("new text\nwith #tag and [[Link]]\n"))
	}
	f.Fuzz(func(t *testing.T, src []byte, pick uint, body []byte) {
		d := Parse(src)
		checkRoundTrip(t, src, d)
		if len(d.Headings) == 0 {
			return
		}
		i := int(pick % uint(len(d.Headings)))
		checkBriefNames(t, src, d, i)
		checkReplace(t, src, d, i, fuzzBody(body))
	})
}

// checkBriefNames asserts that the brief names of heading i (its first
// words for a long heading, a path with cut parts) read that heading.
func checkBriefNames(t *testing.T, src []byte, d *Doc, i int) {
	t.Helper()
	h := d.Headings[i]
	for _, name := range []string{d.BriefName(i, h.Text), d.BriefPath(i)} {
		if name == h.Text || name == h.PathString() {
			continue
		}
		got, err := d.Section(name)
		if err != nil || got.Start != h.Start {
			t.Fatalf("input %q: heading %d's brief name %q reads %q (%v)", src, i, name, got.PathString(), err)
		}
	}
}

// fuzzBody turns arbitrary bytes into a section body that is one closed
// block whatever it holds: every line indented as code (so it can open no
// fence, HTML block or heading), ending with a blank line. UpdateSection has
// to make the same guarantee about the block structure of what it writes.
func fuzzBody(b []byte) []byte {
	var out []byte
	for _, l := range bytes.FieldsFunc(b, func(r rune) bool { return r == '\n' || r == '\r' }) {
		out = append(out, "    "...)
		out = append(out, l...)
		out = append(out, '\n')
	}
	return append(out, '\n')
}

// checkDoc asserts what every Doc must satisfy, whatever the input.
func checkDoc(t testing.TB, src []byte, d *Doc) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("input %q: %s", src, fmt.Sprintf(format, args...))
	}
	if !bytes.Equal(d.Src, src) {
		fail("Doc.Src is not the input")
	}
	if msg := frontmatterOnlyDiffers(src, d); msg != "" {
		fail("ParseFrontmatter differs from Parse: %s", msg)
	}
	n := len(src)
	bodyFloor := 0
	if d.BOM {
		bodyFloor = 3
	}
	if d.HasFrontmatter {
		if d.FrontmatterStart != bodyFloor || d.BodyStart <= d.FrontmatterStart || d.BodyStart > n {
			fail("frontmatter range %d..%d", d.FrontmatterStart, d.BodyStart)
		}
		if !bytes.HasPrefix(src[d.FrontmatterStart:], []byte("---")) {
			fail("frontmatter does not start with ---")
		}
		if !bytes.Contains(src[d.FrontmatterStart:d.BodyStart], d.FrontmatterRaw) {
			fail("FrontmatterRaw %q is not inside the frontmatter", d.FrontmatterRaw)
		}
		bodyFloor = d.BodyStart
	} else if d.BodyStart != 0 || d.FrontmatterRaw != nil {
		fail("no frontmatter but BodyStart %d, raw %q", d.BodyStart, d.FrontmatterRaw)
	}
	lines := lineCounter(src, d.BOM)
	for i, h := range d.Headings {
		if h.Level < 1 || h.Level > 6 {
			fail("heading %d: level %d", i, h.Level)
		}
		if !(bodyFloor <= h.Start && h.Start <= h.BodyStart && h.BodyStart <= h.OwnEnd && h.OwnEnd <= h.End && h.End <= n) {
			fail("heading %d %q: offsets not ordered: floor %d Start %d BodyStart %d OwnEnd %d End %d len %d",
				i, h.Text, bodyFloor, h.Start, h.BodyStart, h.OwnEnd, h.End, n)
		}
		if h.BodyStart == h.Start {
			fail("heading %d %q: empty heading line at %d", i, h.Text, h.Start)
		}
		if !atLineStart(src, h.Start, d.BOM) {
			fail("heading %d %q: Start %d is not at a line start", i, h.Text, h.Start)
		}
		if h.BodyStart < n && !atLineStart(src, h.BodyStart, d.BOM) {
			fail("heading %d %q: BodyStart %d is not at a line start", i, h.Text, h.BodyStart)
		}
		if want := lines(h.Start); h.Line != want {
			fail("heading %d %q: Line %d, want %d", i, h.Text, h.Line, want)
		}
		if i > 0 && h.Start <= d.Headings[i-1].Start {
			fail("heading %d: Start %d not after the previous heading's %d", i, h.Start, d.Headings[i-1].Start)
		}
		if i > 0 && h.Start < d.Headings[i-1].BodyStart {
			fail("heading %d starts at %d inside the previous heading's line (body at %d)", i, h.Start, d.Headings[i-1].BodyStart)
		}
		wantOwn, wantEnd := n, n
		if i+1 < len(d.Headings) {
			wantOwn = d.Headings[i+1].Start
		}
		for _, g := range d.Headings[i+1:] {
			if g.Level <= h.Level {
				wantEnd = g.Start
				break
			}
		}
		if h.OwnEnd != wantOwn || h.End != wantEnd {
			fail("heading %d %q: OwnEnd %d End %d, want %d %d", i, h.Text, h.OwnEnd, h.End, wantOwn, wantEnd)
		}
		// Sections nest: a later section lies inside this one or after it.
		for j, g := range d.Headings[i+1:] {
			if g.Start < h.End && g.End > h.End {
				fail("sections %d [%d,%d) and %d [%d,%d) overlap", i, h.Start, h.End, i+1+j, g.Start, g.End)
			}
		}
		// The path is the parent's path plus the text.
		if len(h.Path) == 0 || h.Path[len(h.Path)-1] != h.Text {
			fail("heading %d: path %q does not end with its text %q", i, h.Path, h.Text)
		}
		var parent []string
		for j := i - 1; j >= 0; j-- {
			if d.Headings[j].Level < h.Level {
				parent = d.Headings[j].Path
				break
			}
		}
		if !slices.Equal(h.Path[:len(h.Path)-1], parent) {
			fail("heading %d: path %q, parent path %q", i, h.Path, parent)
		}
		if strings.TrimSpace(h.Text) != h.Text || strings.ContainsAny(h.Text, "\r\n") {
			fail("heading %d: text %q has outer space or a line break", i, h.Text)
		}
		if utf8.ValidString(h.Text) && !norm.NFC.IsNormalString(h.Text) {
			fail("heading %d: text %q is not NFC", i, h.Text)
		}
	}
	for i, l := range d.Links {
		if !(bodyFloor <= l.Start && l.Start < l.End && l.End <= n) {
			fail("link %d %+v: range outside [%d,%d]", i, l, bodyFloor, n)
		}
		if i > 0 && l.Start < d.Links[i-1].Start {
			fail("link %d starts at %d before link %d at %d", i, l.Start, i-1, d.Links[i-1].Start)
		}
		if want := lines(l.Start); l.Line != want {
			fail("link %d %+v: Line %d, want %d", i, l, l.Line, want)
		}
	}
	for i, tag := range d.Tags {
		if tag == "" || strings.HasPrefix(tag, "#") || strings.ContainsFunc(tag, func(r rune) bool { return r == ' ' || r == '\n' }) {
			fail("bad tag %q", tag)
		}
		for _, u := range d.Tags[:i] {
			if strings.EqualFold(u, tag) {
				fail("tag %q twice (as %q)", tag, u)
			}
		}
	}
}

// lineCounter returns the 1-based line of an offset, counting LF, CRLF and
// a bare CR as one line ending each (CommonMark), and not counting a BOM.
// It is written independently of the parser's own line table.
func lineCounter(src []byte, hasBOM bool) func(int) int {
	var ends []int // offsets just past each line ending
	i := 0
	if hasBOM {
		i = 3
	}
	for ; i < len(src); i++ {
		switch src[i] {
		case '\n':
			ends = append(ends, i+1)
		case '\r':
			if i+1 >= len(src) || src[i+1] != '\n' {
				ends = append(ends, i+1)
			}
		}
	}
	return func(off int) int {
		n, _ := slices.BinarySearch(ends, off+1) // line endings that end at or before off
		return n + 1
	}
}

func atLineStart(src []byte, i int, hasBOM bool) bool {
	return i == 0 || (hasBOM && i == 3) || src[i-1] == '\n' || (src[i-1] == '\r' && (i >= len(src) || src[i] != '\n'))
}

// checkRoundTrip: Chunks, and the outermost sections with the preamble,
// join back to the exact bytes.
func checkRoundTrip(t testing.TB, src []byte, d *Doc) {
	t.Helper()
	if got := bytes.Join(d.Chunks(), nil); !bytes.Equal(got, src) {
		t.Fatalf("input %q: chunks join to %q", src, got)
	}
	var parts [][]byte
	end := 0
	for _, h := range d.Headings {
		if h.Start < end {
			continue // nested in the previous outermost section
		}
		parts = append(parts, src[end:h.Start], d.SectionText(h))
		end = h.End
	}
	parts = append(parts, src[end:])
	if got := bytes.Join(parts, nil); !bytes.Equal(got, src) {
		t.Fatalf("input %q: outermost sections join to %q", src, got)
	}
}

// checkAddresses: every address HeadingPaths offers names its heading alone.
func checkAddresses(t testing.TB, src []byte, d *Doc) {
	t.Helper()
	for i, a := range d.HeadingPaths() {
		h, err := d.Section(a)
		if err != nil {
			t.Fatalf("input %q: heading %d %q: its address %q does not resolve: %v", src, i, d.Headings[i].Text, a, err)
		}
		if h.Start != d.Headings[i].Start {
			t.Fatalf("input %q: address %q of heading %d resolves to the heading at line %d", src, a, i, h.Line)
		}
	}
}

func checkReplaceEach(t testing.TB, src []byte, d *Doc, body []byte) {
	t.Helper()
	for i := range d.Headings {
		checkReplace(t, src, d, i, body)
	}
}

// spliceBody replaces the body of heading h (its text and sub-sections,
// BodyStart..End) with body, the way a section edit must: the heading line
// gets a line ending if it had none (a heading at the end of the file),
// and a section that is followed by another heading ends with a blank
// line, so that its last paragraph cannot turn the next heading's text
// into a continuation. It returns the new bytes, where the new body starts
// and where the new section ends.
func spliceBody(src []byte, h Heading, body []byte) (out []byte, bodyStart, end int) {
	out = append(out, src[:h.BodyStart]...)
	if h.BodyStart == len(src) && !bytes.HasSuffix(out, []byte("\n")) && !bytes.HasSuffix(out, []byte("\r")) {
		out = append(out, '\n')
	}
	bodyStart = len(out)
	nl := []byte("\n")
	if bytes.HasSuffix(out, []byte("\r")) {
		// The heading line ends with a bare CR (old Mac style): write the
		// body in that style too. A body starting with "\n" would otherwise
		// merge with that CR into one CRLF line ending and move the body
		// (found by FuzzSections: "# \r # \r\r# 0").
		body = bytes.ReplaceAll(body, []byte("\n"), []byte("\r"))
		nl = []byte("\r")
	}
	out = append(out, body...)
	if h.End < len(src) && !bytes.HasSuffix(body, append(slices.Clone(nl), nl...)) {
		if !bytes.HasSuffix(body, nl) {
			out = append(out, nl...)
		}
		out = append(out, nl...)
	}
	end = len(out)
	return append(out, src[h.End:]...), bodyStart, end
}

func checkReplace(t testing.TB, src []byte, d *Doc, i int, body []byte) {
	t.Helper()
	h := d.Headings[i]
	out, newBody, newEnd := spliceBody(src, h, body)
	delta := newEnd - h.End
	if !bytes.Equal(out[:h.BodyStart], src[:h.BodyStart]) || !bytes.Equal(out[newEnd:], src[h.End:]) {
		t.Fatalf("input %q: replacing section %d changed bytes outside it", src, i)
	}
	nd := Parse(out)
	checkDoc(t, out, nd)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("input %q, section %d %q replaced by %q → %q: %s", src, i, h.Text, body, out, fmt.Sprintf(format, args...))
	}
	// What the new note must hold: headings before i unchanged (their
	// sections end delta later when they contain i); i itself with its new
	// body and no sub-sections; headings after i's section shifted by delta.
	var want []Heading
	for j, g := range d.Headings {
		switch {
		case j < i:
			if g.End > h.Start { // an ancestor of i
				g.End += delta
			}
			want = append(want, g)
		case j == i:
			g.BodyStart, g.OwnEnd, g.End = newBody, newEnd, newEnd
			want = append(want, g)
		case g.Start >= h.End:
			g.Start += delta
			g.BodyStart += delta
			g.OwnEnd += delta
			g.End += delta
			want = append(want, g)
		}
	}
	if len(nd.Headings) != len(want) {
		fail("got %d headings %q, want %d %q", len(nd.Headings), headingTexts(nd.Headings), len(want), headingTexts(want))
	}
	for j := range want {
		g, w := nd.Headings[j], want[j]
		w.Line = g.Line // checkDoc has checked the line
		if !reflect.DeepEqual(g, w) {
			fail("heading %d: got %+v, want %+v", j, g, w)
		}
		if w.Start != h.Start && (w.End <= h.Start || w.Start >= newEnd) {
			// A section that does not contain the replaced one keeps its exact text.
			if old := oldSection(src, w, h, delta); !bytes.Equal(nd.SectionText(g), old) {
				fail("section %q changed: %q, was %q", g.Text, nd.SectionText(g), old)
			}
		}
	}
	if got := nd.SectionText(nd.Headings[i]); !bytes.Equal(got, out[h.Start:newEnd]) {
		fail("the replaced section reads %q", got)
	}
}

func oldSection(src []byte, w, replaced Heading, delta int) []byte {
	if w.Start >= replaced.Start {
		return src[w.Start-delta : w.End-delta]
	}
	return src[w.Start:w.End]
}

func headingTexts(hs []Heading) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = fmt.Sprintf("H%d %s", h.Level, h.Text)
	}
	return out
}

// benchNote builds a realistic note of about size bytes: frontmatter,
// nested sections, paragraphs with links and tags, lists, a table and
// fenced code.
func benchNote(size int) []byte {
	var b bytes.Buffer
	b.WriteString("---\ntitle: Benchmark\ntags: [bench, perf/parse]\naliases: [Bench]\n---\n\n# Benchmark\n\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "## Abschnitt %d\n\nText mit [[Notiz %d]], [[Andere#Überschrift|Alias]] und #tag%d. Noch ein Satz über Häuser, Straßen und `code`.\n\n", i, i, i%7)
		fmt.Fprintf(&b, "### Unterpunkt %d.1\n\n- Punkt eins mit [Link](Ordner/Datei%%20%d.md)\n- Punkt zwei ![[bild%d.png]]\n  - verschachtelt\n\n", i, i, i)
		if i%3 == 0 {
			fmt.Fprintf(&b, "```go\n# kein Heading %d\nfunc f() {}\n```\n\n| a | b |\n|---|---|\n| %d | x |\n\n", i, i)
		}
		fmt.Fprintf(&b, "Setext %d\n---\n\n> Zitat mit #zitat und [[Quelle]]\n\n", i)
	}
	return b.Bytes()
}

func BenchmarkParse(b *testing.B) {
	src := benchNote(50 << 10)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(src)
	}
}

// trapFragments are the parser traps of DESIGN-NOTES.md as building
// blocks; TestSections_TrapCombinations strings them together.
var trapFragments = []string{
	"# A\n", "## B ##\n", "### C   \n", "#### D #\n", "Setext\n===\n", "Under\n---\n", "para\n", "\n", "---\n", "***\n",
	"```\n# in fence\n```\n", "```\n", "~~~\n# tilde\n~~~\n", "<div>\n# in html\n</div>\n", "<!--\n# c\n-->\n",
	"> ## quoted\n", "- ## listed\n", "    # code\n", "#tag text\n", "[r]: /url\n", "# Win\r\n", "Text\r\n---\r\n",
	"# bare\r", "---\nk: v\n---\n", "# [[L|x]] `c` #t 🚀\n", "#\n", "# A", "| a |\n|---|\n", "## Same\n", "\xef\xbb\xbf",
	"## Input > Output\n", "## # Hash\n", "### x (line 3)\n", "# " + strings.Repeat("a>", 20) + "\n",
}

// TestSections_TrapCombinations runs the FuzzParse and FuzzSections
// properties on every pair of trap fragments and on a fixed sample of
// triples, so that plain `go test` covers their interactions (a setext
// underline after a fence, a BOM before frontmatter, a bare CR before a
// heading, ...) without a fuzzing run.
func TestSections_TrapCombinations(t *testing.T) {
	docs, headings := 0, 0
	check := func(src []byte) {
		d := Parse(src)
		docs++
		headings += len(d.Headings)
		checkDoc(t, src, d)
		checkRoundTrip(t, src, d)
		checkAddresses(t, src, d)
		checkReplaceEach(t, src, d, []byte("new body\n"))
		checkReplaceEach(t, src, d, []byte(""))
	}
	n := len(trapFragments)
	for _, a := range trapFragments {
		for _, b := range trapFragments {
			check([]byte(a + b))
		}
	}
	// A fixed pseudo-random sample of triples (a linear congruential
	// sequence keeps it reproducible without math/rand).
	x := uint32(1)
	next := func() int { x = x*1664525 + 1013904223; return int(x>>8) % n }
	count := 12000
	if testing.Short() {
		count = 500
	}
	for range count {
		check([]byte(trapFragments[next()] + trapFragments[next()] + trapFragments[next()]))
	}
	t.Logf("%d notes, %d sections replaced twice each", docs, headings)
}

// FuzzReplaceBody drives the edit behind update_section (ReplaceBody) with
// any note, any of its sections and any new body: when it succeeds, every
// byte before the section's body and after the section is what it was
// (the heading line gains a line ending only when it ended the file), the
// other headings are still there at their shifted offsets, the section
// keeps its heading, and writing the same body again changes nothing.
func FuzzReplaceBody(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), uint(i), []byte("new text\nwith #tag and [[Link]]\n"))
	}
	f.Add([]byte("# A\n## B\nb\n# C\n"), uint(1), []byte("## B\nnew\n"))
	f.Add([]byte("# A\r\nold\r\n# B\r\n"), uint(0), []byte("\n\nx\ny  \n\n"))
	f.Add([]byte("# A"), uint(0), []byte("```\nopen"))
	f.Fuzz(func(t *testing.T, src []byte, pick uint, body []byte) {
		d := Parse(src)
		if len(d.Headings) == 0 {
			return
		}
		i := int(pick % uint(len(d.Headings)))
		h := d.Headings[i]
		orig := bytes.Clone(src)
		out, err := ReplaceBody(src, h, body)
		if !bytes.Equal(src, orig) {
			t.Fatalf("ReplaceBody modified its input %q", orig)
		}
		if err != nil {
			// Refusals are the caller's to fix: an *Error of kind ErrInvalid
			// with a message. (The message quotes the body's headings, which
			// may hold anything, so checkAgentText is for the unit tests.)
			e, ok := AsError(err)
			if !ok || !errors.Is(err, ErrInvalid) || e.Msg == "" {
				t.Fatalf("input %q, section %q, body %q: got error %v, want an *Error of kind ErrInvalid", src, h.Text, body, err)
			}
			return
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("input %q, section %d %q, body %q → %q: %s", src, i, h.Text, body, out, fmt.Sprintf(format, args...))
		}
		if !bytes.HasPrefix(out, src[:h.BodyStart]) {
			fail("bytes before the section's body changed")
		}
		if !bytes.HasSuffix(out, src[h.End:]) {
			fail("bytes after the section changed")
		}
		delta := len(out) - len(src)
		nd := Parse(out)
		checkDoc(t, out, nd)
		at := map[[2]int]string{}
		for _, g := range nd.Headings {
			at[[2]int{g.Start, g.Level}] = g.Text
		}
		for j, g := range d.Headings {
			start := g.Start
			switch {
			case j == i || g.Start < h.Start:
			case g.Start >= h.End:
				start += delta
			default:
				continue // a sub-section of the replaced one
			}
			if txt, ok := at[[2]int{start, g.Level}]; !ok || txt != g.Text {
				fail("heading %d %q is no longer at offset %d", j, g.Text, start)
			}
		}
		var nh *Heading
		for k := range nd.Headings {
			if nd.Headings[k].Start == h.Start {
				nh = &nd.Headings[k]
			}
		}
		again, err := ReplaceBody(out, *nh, body)
		if err != nil {
			fail("writing the same body again fails: %v", err)
		}
		if !bytes.Equal(again, out) {
			fail("writing the same body again gives %q", again)
		}
	})
}

// frontmatterOnlyDiffers says how ParseFrontmatter(src) differs from d,
// Parse's answer, in what it gives ("" when it does not).
func frontmatterOnlyDiffers(src []byte, d *Doc) string {
	f := ParseFrontmatter(src)
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	switch {
	case !bytes.Equal(f.FrontmatterRaw, d.FrontmatterRaw) || f.HasFrontmatter != d.HasFrontmatter:
		return fmt.Sprintf("frontmatter %q, Parse %q", f.FrontmatterRaw, d.FrontmatterRaw)
	case f.FrontmatterStart != d.FrontmatterStart || f.BodyStart != d.BodyStart || f.BOM != d.BOM:
		return fmt.Sprintf("offsets %d/%d, Parse %d/%d", f.FrontmatterStart, f.BodyStart, d.FrontmatterStart, d.BodyStart)
	case !reflect.DeepEqual(f.Frontmatter, d.Frontmatter):
		return fmt.Sprintf("properties %v, Parse %v", f.Frontmatter, d.Frontmatter)
	case errText(f.FrontmatterErr) != errText(d.FrontmatterErr):
		return fmt.Sprintf("error %q, Parse %q", errText(f.FrontmatterErr), errText(d.FrontmatterErr))
	case !slices.Equal(f.Aliases, d.Aliases):
		return fmt.Sprintf("aliases %q, Parse %q", f.Aliases, d.Aliases)
	case !slices.Equal(f.Tags, d.Tags[:d.FrontmatterTagCount]) || f.FrontmatterTagCount != d.FrontmatterTagCount:
		return fmt.Sprintf("tags %q, Parse's frontmatter tags %q", f.Tags, d.Tags[:d.FrontmatterTagCount])
	case f.Title != "" && f.Title != d.Title:
		return fmt.Sprintf("title %q, Parse %q", f.Title, d.Title)
	}
	return ""
}
