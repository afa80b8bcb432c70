package note

import (
	"bytes"
	"fmt"
	"strings"
)

// This file holds the pure text operations behind the writes: they take a
// note's bytes and return the new bytes, touch nothing on disk and change no
// byte outside the place they edit (frontmatter, BOM and other sections stay
// byte-for-byte). The writes of package vault run them again on the current text
// whenever the note changed under them.

// EOL returns the line ending a note uses: "\r\n" for notes written
// mostly with CRLF (Windows), "\n" otherwise. Inserted text follows it, so a
// CRLF note never ends up with mixed line endings.
func EOL(d *Doc) string {
	if d.CRLF {
		return "\r\n"
	}
	return "\n"
}

// normalizeBlock prepares text to be inserted as one block: line endings
// converted to eol, blank lines at its start and end and trailing white
// space dropped, and one line ending at the end. It returns nil when the
// text holds nothing but white space. n is the number of lines.
func normalizeBlock(text []byte, eol string) (block []byte, n int) {
	s := strings.ReplaceAll(string(text), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			break
		}
		s = rest
	}
	// Leading spaces of the first line are kept: they may make an
	// indented code block or a nested list item.
	s = strings.TrimRight(s, " \t\n")
	if strings.TrimSpace(s) == "" {
		return nil, 0
	}
	n = strings.Count(s, "\n") + 1
	return []byte(strings.ReplaceAll(s, "\n", eol) + eol), n
}

// TrimBlankTail returns the length of b without the blank (white-space
// only) lines at its end; it never cuts below floor (the BOM).
func TrimBlankTail(b []byte, floor int) int {
	end := len(b)
	for end > floor {
		lineEnd := end
		if b[end-1] == '\n' {
			lineEnd = end - 1
		}
		ls := floor + bytes.LastIndexByte(b[floor:lineEnd], '\n') + 1
		if len(bytes.Trim(b[ls:lineEnd], " \t\r")) != 0 {
			break
		}
		end = ls
	}
	return end
}

// insertBlock inserts block (already normalised, ending in eol) at offset
// at, which is a line start or len(src). The blank lines that separated
// what comes before from what follows are replaced by exactly one blank
// line on each side of the block; a last line without a line ending gets
// one. Nothing else changes.
func insertBlock(src []byte, at int, block []byte, eol string) []byte {
	floor := 0
	if bytes.HasPrefix(src, bom) {
		floor = len(bom)
	}
	before, after := src[:at], src[at:]
	cut := TrimBlankTail(before, floor)
	out := make([]byte, 0, len(src)+len(block)+2*len(eol))
	out = append(out, before[:cut]...)
	if cut > floor {
		if out[len(out)-1] != '\n' {
			out = append(out, eol...)
		}
		out = append(out, eol...) // the one blank line before the block
	}
	out = append(out, block...)
	if len(after) > 0 {
		out = append(out, eol...) // the one blank line after it
		out = append(out, after...)
	}
	return out
}

// ensureFinalEOL adds a line ending to a non-empty note whose last line has none.
func ensureFinalEOL(src []byte, eol string) []byte {
	if len(src) == 0 || src[len(src)-1] == '\n' || bytes.Equal(src, bom) {
		return src
	}
	return append(src, eol...)
}

// AppendText appends text to a note: at its end when heading is "", else at
// the end of the section the heading opens — after its sub-sections, so that
// the text lands where a reader scrolling down that section finishes (the
// section ends at the next heading of the same or higher level). The note
// keeps its line endings and ends with one; exactly one blank line
// separates the new block from what is before and after it.
//
// Errors (*Error without Op and Path; the caller adds them): ErrInvalid when
// the text is empty or when it would swallow the headings that follow (an
// unclosed code fence); the errors of Doc.Section for a missing or
// ambiguous heading.
func AppendText(src []byte, heading string, text []byte) (next []byte, detail string, err error) {
	// Cached parses: src is what the last write or read of the note parsed,
	// mid is what the write's re-read and the index parse next.
	d := ParseCached(src)
	eol := EOL(d)
	block, n := normalizeBlock(text, eol)
	if block == nil {
		return nil, "", &Error{Kind: ErrInvalid, Msg: "the text to append is empty"}
	}
	at := len(src)
	where := "at the end of the note"
	var h *Heading
	if strings.TrimSpace(heading) != "" {
		sh, err := d.Section(heading)
		if err != nil {
			return nil, "", err
		}
		h = &sh
		at = h.End
		where = fmt.Sprintf("to section %q", h.PathString())
	}
	mid := insertBlock(src, at, block, eol)
	md := ParseCached(mid)
	if err := keepsStructure(d, md, at, at, len(mid)-len(src)); err != nil {
		return nil, "", err
	}
	if h != nil {
		// Text appended to a section stays in it: a heading of the
		// section's level or higher, as the note shows it in place (a
		// "text" + "---" pair is a setext heading there), would end the
		// section and start another one.
		end := at + (len(mid) - len(src))
		for _, g := range md.Headings {
			if g.Start >= at && g.Start < end && g.Level <= h.Level {
				line := bytes.TrimLeft(mid[g.Start:lineEnd(mid, g.Start)], " ")
				return nil, "", appendHeadingError(g, *h, !bytes.HasPrefix(line, []byte("#")))
			}
		}
	}
	next = ensureFinalEOL(mid, eol)
	return next, fmt.Sprintf("%s appended %s", plural(n, "line"), where), nil
}

// ReplaceBody replaces the body of the section h (from after its heading
// line to its end, sub-sections included) with body, keeping the heading
// line. The gap between heading and body stays as it was (none, or one
// blank line); one blank line separates the body from the next heading.
// An empty body leaves the heading alone in its section. If the body starts
// with the section's own heading (a common slip when the caller copies the
// section it read), that line is dropped rather than doubled.
//
// Errors: ErrInvalid when the body holds a heading of the section's level or
// higher (it would end the section and start another) or would swallow the
// headings that follow.
func ReplaceBody(src []byte, h Heading, body []byte) ([]byte, error) {
	d := Parse(src)
	eol := EOL(d)
	block, _ := normalizeBlock(body, eol)
	if block != nil {
		bd := Parse(block)
		if len(bd.Headings) > 0 && bd.Headings[0].Start == bd.BodyStart && bd.Headings[0].Level == h.Level &&
			HeadingKey(bd.Headings[0].Text) == HeadingKey(h.Text) {
			block, _ = normalizeBlock(block[bd.Headings[0].BodyStart:], eol)
			bd = Parse(block)
		}
		for _, sub := range bd.Headings {
			if sub.Level <= h.Level {
				return nil, bodyHeadingError(sub, h)
			}
		}
	}

	before, after := src[:h.BodyStart], src[h.End:]
	out := make([]byte, 0, len(before)+len(block)+len(after)+3*len(eol))
	out = append(out, before...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, eol...) // a heading on the note's last line, without line ending
	}
	old := src[h.BodyStart:h.End]
	if block != nil {
		// Keep a blank line after the heading if the section had one (or
		// had no text at all); keep none if its text started right away.
		if TrimBlankTail(old, 0) == 0 || startsWithBlankLine(old) {
			out = append(out, eol...)
		}
		out = append(out, block...)
	}
	if len(after) > 0 {
		// Always one blank line before the next heading: text directly
		// above a setext heading would otherwise become part of it.
		out = append(out, eol...)
		out = append(out, after...)
	}
	nd := Parse(out)
	if err := keepsStructure(d, nd, h.BodyStart, h.End, len(out)-len(src)); err != nil {
		return nil, err
	}
	// The body parsed on its own (above) can hide a heading that the note
	// shows: a body starting with "---" reads as frontmatter there, while
	// in the note its "text" + "---" lines are a setext heading (found by
	// FuzzReplaceBody). So look at the new body in place too.
	bodyEnd := len(out) - len(after)
	for _, g := range nd.Headings {
		if g.Start > h.Start && g.Start < bodyEnd && g.Level <= h.Level {
			return nil, bodyHeadingError(g, h)
		}
	}
	return out, nil
}

// bodyHeadingError refuses a new body for section h that holds sub, a
// heading of h's level or higher.
func bodyHeadingError(sub, h Heading) error {
	return &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(
		"the new body contains %s of level %d, which would end this level-%d section and start another; a section body may only hold deeper headings (%s or more #)",
		headingName(sub), sub.Level, h.Level, strings.Repeat("#", h.Level+1))}
}

// appendHeadingError refuses text to append to section h that holds sub,
// a heading of h's level or higher; setext says sub is a line of text
// over a "---" or "===" line, which the caller may not have meant as one.
func appendHeadingError(sub, h Heading, setext bool) error {
	hint := ""
	if setext {
		hint = ` (a line of text directly above a "---" or "===" line is a heading in Markdown: put a blank line between them, or use "***" for a rule)`
	}
	return &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(
		"the text to append contains %s of level %d%s, which would end this level-%d section and start another; text appended to a section may only hold deeper headings (%s or more #), or append it to the note without a heading",
		headingName(sub), sub.Level, hint, h.Level, strings.Repeat("#", h.Level+1))}
}

// headingName names a heading in an error.
func headingName(h Heading) string {
	if h.Text == "" {
		return "an empty heading" // a lone "#": no empty quotes (AGENT-CONTRACT 10)
	}
	return fmt.Sprintf("the heading %q", h.Text)
}

// startsWithBlankLine reports whether the first line of b holds only white space.
func startsWithBlankLine(b []byte) bool {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return len(bytes.Trim(line, " \t\r")) == 0
}

// keepsStructure checks that an edit of src[from:to] left the headings
// outside that range alone: every heading before from is still there at the
// same offset, every heading from to on is there shifted by delta. An
// unclosed code fence or HTML block in the new text would otherwise turn the
// rest of the note into code, and its sections would silently disappear.
func keepsStructure(old, next *Doc, from, to, delta int) error {
	type key struct {
		start, level int
		text         string
	}
	have := make(map[key]bool, len(next.Headings))
	for _, h := range next.Headings {
		have[key{h.Start, h.Level, h.Text}] = true
	}
	for _, h := range old.Headings {
		var want key
		switch {
		case h.Start < from:
			want = key{h.Start, h.Level, h.Text}
		case h.Start >= to:
			want = key{h.Start + delta, h.Level, h.Text}
		default:
			continue // inside the edited range
		}
		if !have[want] {
			return &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(
				"the new text would change the rest of the note: heading %q would no longer be a heading (is a code fence ``` or an HTML block left open?)",
				h.PathString())}
		}
	}
	return nil
}

// plural renders "1 line", "3 lines".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
