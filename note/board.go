package note

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Boards are notes in the format of the Obsidian Kanban plugin:
//
//	---
//	kanban-plugin: board
//	---
//
//	## Backlog
//
//	- [ ] a card
//	- [ ] another card #tag @{2026-11-27}
//
//
//	## Erledigt
//
//	**Complete**
//	- [x] a finished card
//
//	***
//
//	## Archive
//
//	- [x] an archived card
//
//	%% kanban:settings
//	```
//	{"kanban-plugin":"board", …}
//	```
//	%%
//
// A "##" heading opens a column, "- [ ]" / "- [x]" lines are its cards
// (indented lines below a card belong to it), a "**Complete**" line marks
// a column whose cards count as done. A "***" line ends the columns; what
// follows is the archive. The settings block at the end belongs to the
// plugin: edits never touch a byte of it.

// BoardColumn is one column of a board.
type BoardColumn struct {
	Name     string
	Line     int  // 1-based line of its heading
	Complete bool // marked **Complete**: its cards are done
	Cards    []Card

	bodyStart   int // after the heading line
	completeEnd int // after the **Complete** line; -1 without
}

// Card is one card of a board.
type Card struct {
	Text    string // the first line after "- [ ] ", trimmed
	Checked bool
	Line    int // 1-based
	start   int // line start of the card
	end     int // after its last line (continuation lines included)
}

// Board is a parsed Kanban board.
type Board struct {
	Columns  []BoardColumn
	Archived int // cards in the archive, below "***"
	settings int // offset of the settings block (len(src) without one)
}

var cardRe = regexp.MustCompile(`^- \[([^\]])\](?:[ \t]+(.*?))?[ \t]*\r?$`)

// IsBoard reports whether a note is a Kanban board: its frontmatter has the
// kanban-plugin property.
func (d *Doc) IsBoard() bool {
	_, ok := d.Frontmatter["kanban-plugin"]
	return ok
}

// ParseBoard reads a note as a Kanban board.
//
// Errors: ErrInvalid when the note is not a board (no kanban-plugin
// property in its frontmatter).
func ParseBoard(d *Doc) (*Board, error) {
	if !d.IsBoard() {
		return nil, &Error{Kind: ErrInvalid, Msg: "is not a Kanban board: its frontmatter has no kanban-plugin property (boards are made with the Obsidian Kanban plugin)"}
	}
	src := d.Src
	b := &Board{settings: len(src)}
	if i := bytes.LastIndex(src, []byte("%% kanban:settings")); i >= 0 && (i == 0 || src[i-1] == '\n') {
		b.settings = i
	}
	archive := b.settings
	var cols []Heading
	for _, h := range d.Headings {
		if h.Level == 2 && h.Start >= d.BodyStart && h.Start < b.settings {
			cols = append(cols, h)
		}
	}
	// "***" on a line of its own before the last heading starts the archive.
	for off := d.BodyStart; off < b.settings; {
		end := lineEnd(src, off)
		if string(bytes.TrimSpace(src[off:end])) == "***" && len(cols) > 0 && off > cols[0].Start {
			archive = off
			break
		}
		off = end
	}
	for i, h := range cols {
		end := b.settings
		if i+1 < len(cols) {
			end = cols[i+1].Start
		}
		if h.Start >= archive {
			b.Archived += len(parseCards(src, h.BodyStart, min(end, b.settings)))
			continue
		}
		col := BoardColumn{Name: h.Text, Line: h.Line, bodyStart: h.BodyStart, completeEnd: -1}
		end = min(end, archive)
		for off := h.BodyStart; off < end; off = lineEnd(src, off) {
			if string(bytes.TrimSpace(src[off:lineEnd(src, off)])) == "**Complete**" {
				col.Complete, col.completeEnd = true, lineEnd(src, off)
				break
			}
			if cardRe.Match(bytes.TrimRight(src[off:lineEnd(src, off)], "\n")) {
				break
			}
		}
		col.Cards = parseCards(src, h.BodyStart, end)
		b.Columns = append(b.Columns, col)
	}
	return b, nil
}

// parseCards reads the cards of src[from:to].
func parseCards(src []byte, from, to int) []Card {
	var cards []Card
	line := bytes.Count(src[:from], []byte("\n")) + 1
	for off := from; off < to; {
		end := min(lineEnd(src, off), to)
		m := cardRe.FindSubmatch(bytes.TrimRight(src[off:end], "\n"))
		if m == nil {
			off, line = end, line+1
			continue
		}
		c := Card{Text: NormSpace(string(m[2])), Checked: string(m[1]) != " ", Line: line, start: off}
		off, line = end, line+1
		// Indented lines right below belong to the card.
		for off < to {
			e := min(lineEnd(src, off), to)
			l := src[off:e]
			if len(bytes.TrimSpace(l)) == 0 || (l[0] != ' ' && l[0] != '\t') {
				break
			}
			off, line = e, line+1
		}
		c.end = off
		cards = append(cards, c)
	}
	return cards
}

// column finds a column by name, ignoring case and white space.
func (b *Board) column(name string) (int, error) {
	k := HeadingKey(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), "##")))
	for i, c := range b.Columns {
		if HeadingKey(c.Name) == k {
			return i, nil
		}
	}
	return -1, &Error{Kind: ErrNotFound, Msg: fmt.Sprintf("the board has no column %q", strings.TrimSpace(name)),
		Alternatives: b.columnNames(), AltKind: "columns"}
}

func (b *Board) columnNames() []string {
	out := make([]string, len(b.Columns))
	for i, c := range b.Columns {
		out[i] = c.Name
	}
	return out
}

// CardRef names a card as "Column > text".
func CardRef(column, text string) string { return column + HeadingSep + text }

// findCard finds one card by its text: a card whose whole text matches
// (ignoring case and white space) wins over cards that merely contain it.
// from, when not "", limits the search to that column.
func (b *Board) findCard(query, from string) (col, card int, err error) {
	q := NameKey(query)
	if q == "" {
		return -1, -1, &Error{Kind: ErrInvalid, Msg: "the card text is empty; give the card's text or a part of it"}
	}
	cols := make([]int, 0, len(b.Columns))
	if strings.TrimSpace(from) != "" {
		i, err := b.column(from)
		if err != nil {
			return -1, -1, err
		}
		cols = append(cols, i)
	} else {
		for i := range b.Columns {
			cols = append(cols, i)
		}
	}
	type hit struct{ col, card int }
	var exact, part []hit
	for _, ci := range cols {
		for k, c := range b.Columns[ci].Cards {
			t := NameKey(c.Text)
			switch {
			case t == q:
				exact = append(exact, hit{ci, k})
			case strings.Contains(t, q):
				part = append(part, hit{ci, k})
			}
		}
	}
	hits := exact
	if len(hits) == 0 {
		hits = part
	}
	switch len(hits) {
	case 1:
		return hits[0].col, hits[0].card, nil
	case 0:
		return -1, -1, &Error{Kind: ErrNotFound, Msg: fmt.Sprintf("no card contains %q%s", strings.TrimSpace(query), inColumn(b, from)),
			Alternatives: b.closestCards(q, cols), AltKind: "cards"}
	}
	var alts []string
	for _, h := range hits {
		alts = append(alts, CardRef(b.Columns[h.col].Name, b.Columns[h.col].Cards[h.card].Text))
	}
	return -1, -1, &Error{Kind: ErrAmbiguous, Alternatives: alts, AltKind: "cards",
		Msg: fmt.Sprintf("%d cards match %q; name one by more of its text, or give from_column", len(hits), strings.TrimSpace(query))}
}

func inColumn(b *Board, from string) string {
	if strings.TrimSpace(from) == "" {
		return ""
	}
	return fmt.Sprintf(" in column %q", strings.TrimSpace(from))
}

// closestCards ranks cards by how close their text is to q, at most 5.
func (b *Board) closestCards(q string, cols []int) []string {
	type scored struct {
		ref string
		s   int
	}
	var list []scored
	words := strings.Fields(q)
	for _, ci := range cols {
		for _, c := range b.Columns[ci].Cards {
			t := NameKey(c.Text)
			s := Distance(q, t)
			shared := false
			for _, w := range words {
				if len([]rune(w)) > 2 && strings.Contains(t, w) {
					s -= 10 * len(w)
					shared = true
				}
			}
			// Only cards that share a word, or read almost the same, help.
			if !shared && s > len([]rune(q))/3 {
				continue
			}
			list = append(list, scored{CardRef(b.Columns[ci].Name, c.Text), s})
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].s < list[j].s })
	var out []string
	for i := 0; i < len(list) && i < 5; i++ {
		out = append(out, list[i].ref)
	}
	return out
}

// CardMove says which card goes where.
type CardMove struct {
	Card       string // the card's text, or a part of it
	FromColumn string // optional: look for the card only in this column
	ToColumn   string // the column to move it to; "" keeps it in its column
	Position   int    // 1-based place in the target column; 0 = at the end
}

// CardResult reports what MoveCardText or AddCardText did (and so
// vault.Vault.MoveCard and AddCard).
type CardResult struct {
	Card     string // the card's text
	From     string // the column it came from ("" for AddCardText)
	To       string // the column it is in now
	Position int    // its 1-based place there
	Count    int    // cards in that column now
	Checked  bool   // its checkbox now
	Toggled  bool   // the checkbox changed because of a **Complete** column
}

// MoveCardText moves a card in a board's bytes (see vault.Vault.MoveCard). It is pure.
func MoveCardText(src []byte, m CardMove) ([]byte, *CardResult, error) {
	d := Parse(src)
	b, err := ParseBoard(d)
	if err != nil {
		return nil, nil, err
	}
	ci, ki, err := b.findCard(m.Card, m.FromColumn)
	if err != nil {
		return nil, nil, err
	}
	ti := ci
	if strings.TrimSpace(m.ToColumn) != "" {
		if ti, err = b.column(m.ToColumn); err != nil {
			return nil, nil, err
		}
	}
	from, to := b.Columns[ci], b.Columns[ti]
	card := from.Cards[ki]
	block := append([]byte{}, src[card.start:card.end]...)
	r := &CardResult{Card: card.Text, From: from.Name, To: to.Name, Checked: card.Checked}
	if ci != ti && from.Complete != to.Complete && card.Checked != to.Complete {
		block[3] = map[bool]byte{true: 'x', false: ' '}[to.Complete]
		r.Checked, r.Toggled = to.Complete, true
	}
	without := append(append([]byte{}, src[:card.start]...), src[card.end:]...)
	next, pos, count, err := insertCard(without, ti, block, m.Position, EOL(d))
	if err != nil {
		return nil, nil, err
	}
	r.Position, r.Count = pos, count
	if err := checkBoardEdit(src, next, b, ti, ci, ki, pos, r); err != nil {
		return nil, nil, err
	}
	return next, r, nil
}

// AddCardText adds a card to a board's bytes (see vault.Vault.AddCard). It is pure.
func AddCardText(src []byte, column, text string, position int) ([]byte, *CardResult, error) {
	text = strings.TrimSpace(text)
	if m := cardRe.FindStringSubmatch(text); m != nil {
		text = strings.TrimSpace(m[2]) // "- [ ] x" given whole
	}
	switch {
	case text == "":
		return nil, nil, &Error{Kind: ErrInvalid, Msg: "the card text is empty"}
	case strings.ContainsAny(text, "\n\r"):
		return nil, nil, &Error{Kind: ErrInvalid, Msg: "a card is one line of text; put more in a note and link it from the card with [[Note]]"}
	}
	d := Parse(src)
	b, err := ParseBoard(d)
	if err != nil {
		return nil, nil, err
	}
	ti, err := b.column(column)
	if err != nil {
		return nil, nil, err
	}
	to := b.Columns[ti]
	box := " "
	if to.Complete {
		box = "x"
	}
	eol := EOL(d)
	block := []byte("- [" + box + "] " + text + eol)
	next, pos, count, err := insertCard(src, ti, block, position, eol)
	if err != nil {
		return nil, nil, err
	}
	r := &CardResult{Card: NormSpace(text), To: to.Name, Position: pos, Count: count, Checked: to.Complete}
	if err := checkBoardEdit(src, next, b, ti, -1, -1, pos, r); err != nil {
		return nil, nil, err
	}
	return next, r, nil
}

// insertCard inserts a card's lines into column ti of the board src at
// position (1-based; 0 or past the end = last) and returns the new bytes,
// the card's position and the column's card count.
func insertCard(src []byte, ti int, block []byte, position int, eol string) ([]byte, int, int, error) {
	b, err := ParseBoard(Parse(src))
	if err != nil || ti >= len(b.Columns) {
		return nil, 0, 0, &Error{Kind: ErrInvalid, Msg: "the board could not be read again after taking the card out"}
	}
	col := b.Columns[ti]
	n := len(col.Cards)
	if position <= 0 || position > n {
		position = n + 1
	}
	var at int
	switch {
	case position <= n:
		at = col.Cards[position-1].start
	case n > 0:
		at = col.Cards[n-1].end
	case col.completeEnd >= 0:
		at = col.completeEnd
	default:
		at = col.bodyStart
		if e := lineEnd(src, at); at < len(src) && len(bytes.TrimSpace(src[at:e])) == 0 && e <= b.settings {
			at = e // keep the blank line under the heading
		}
	}
	if !bytes.HasSuffix(block, []byte("\n")) {
		block = append(block, eol...)
	}
	var out []byte
	out = append(out, src[:at]...)
	if at > 0 && src[at-1] != '\n' {
		out = append(out, eol...) // the last line had no line ending
	}
	out = append(out, block...)
	out = append(out, src[at:]...)
	return out, position, n + 1, nil
}

// checkBoardEdit re-reads the edited board: the card must sit where it was
// put, every other column must hold the same cards, and the settings block
// must be byte-identical. ci, ki name the moved card (-1 when added).
func checkBoardEdit(src, next []byte, before *Board, ti, ci, ki, pos int, r *CardResult) error {
	fail := &Error{Kind: ErrInvalid, Msg: "vaultd cannot change this board without disturbing other cards (an unusual layout); change it in Obsidian"}
	after, err := ParseBoard(Parse(next))
	if err != nil || len(after.Columns) != len(before.Columns) {
		return fail
	}
	if !bytes.Equal(src[before.settings:], next[after.settings:]) {
		return fail
	}
	for i := range before.Columns {
		var want []string
		for k, c := range before.Columns[i].Cards {
			if i == ci && k == ki {
				continue
			}
			want = append(want, c.Text)
		}
		if i == ti {
			want = append(want[:pos-1], append([]string{r.Card}, want[pos-1:]...)...)
		}
		var got []string
		for _, c := range after.Columns[i].Cards {
			got = append(got, c.Text)
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			return fail
		}
	}
	if after.Columns[ti].Cards[pos-1].Checked != r.Checked {
		return fail
	}
	return nil
}
