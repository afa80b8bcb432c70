package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// ReadBoardArgs are the arguments of read_board.
type ReadBoardArgs struct {
	Path   string `json:"path" jsonschema:"path, title or [[link]]"`
	Column string `json:"column,omitempty" jsonschema:"only this column" help:"only this column"`
	Offset int    `json:"offset,omitempty" help:"cards to skip in each column, for the next page"`
	Limit  int    `json:"limit,omitempty" jsonschema:"cards per column, default 50" default:"50" help:"cards per column (at most 200)"`
}

// BoardCardData is one card.
type BoardCardData struct {
	Text    string `json:"text"`
	Checked bool   `json:"checked"`
}

// BoardColumnData is one column with (a page of) its cards.
type BoardColumnData struct {
	Name     string          `json:"name"`
	Complete bool            `json:"complete,omitempty"`
	Total    int             `json:"total_cards"`
	Offset   int             `json:"offset,omitempty"`
	Cards    []BoardCardData `json:"cards"`
}

// BoardData is read_board's structured answer.
type BoardData struct {
	Note     NoteRef           `json:"note"`
	Columns  []BoardColumnData `json:"columns"`
	Cards    int               `json:"total_cards"`
	Archived int               `json:"archived_cards,omitempty"`
}

// ReadBoard shows a Kanban board: its columns with their cards.
func (c *Core) ReadBoard(ctx context.Context, caller Caller, a ReadBoardArgs) *Result {
	const tool = "read_board"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}}}
	if a.Column != "" {
		f.args = append(f.args, arg{"column", a.Column})
	}
	if strings.TrimSpace(a.Path) == "" {
		return c.fail(caller, f, &note.Error{Op: "read_board", Kind: note.ErrInvalid, Msg: "path is empty: give the board note's path, e.g. 1_Projekte/Website-Relaunch/Board.md"})
	}
	n, _, err := c.v.Find(a.Path)
	if err != nil {
		if ve, ok := note.AsError(err); ok {
			ve.Op = "read_board"
		}
		return c.fail(caller, f, err)
	}
	b, err := note.ParseBoard(n.Doc)
	if err != nil {
		return c.failApp(caller, f, n.Path, withOpPath(err, "read_board", n.Path))
	}
	lim := a.Limit
	if lim <= 0 {
		lim = 50
	}
	lim = min(lim, 200)
	off := max(a.Offset, 0)
	cols := b.Columns
	if a.Column != "" {
		i := -1
		for k, col := range b.Columns {
			if strings.EqualFold(strings.TrimSpace(col.Name), strings.TrimSpace(a.Column)) {
				i = k
			}
		}
		if i < 0 {
			f.args[0].value = n.Path
			return c.failBoard(caller, f, n.Path, &note.Error{Op: "read_board", Path: n.Path, Kind: note.ErrNotFound,
				Msg: fmt.Sprintf("the board has no column %q", a.Column), Alternatives: columnNames(b), AltKind: "columns"})
		}
		cols = b.Columns[i : i+1]
	}
	data := BoardData{Note: refOf(n), Archived: b.Archived}
	var t strings.Builder
	fmt.Fprintf(&t, "# %s\n", n.Title)
	writeRef(&t, data.Note, "")
	total := 0
	for _, col := range b.Columns {
		total += len(col.Cards)
	}
	data.Cards = total
	fmt.Fprintf(&t, "board: %s, %s", plural(len(b.Columns), "column", "columns"), plural(total, "card", "cards"))
	if b.Archived > 0 {
		fmt.Fprintf(&t, " (+%d archived)", b.Archived)
	}
	t.WriteString("\n")
	var more []call
	for _, col := range cols {
		cd := BoardColumnData{Name: col.Name, Complete: col.Complete, Total: len(col.Cards), Offset: off, Cards: []BoardCardData{}}
		mark := ""
		if col.Complete {
			mark = ", marked **Complete**"
		}
		fmt.Fprintf(&t, "\n## %s (%s%s)\n", col.Name, plural(len(col.Cards), "card", "cards"), mark)
		page := col.Cards[min(off, len(col.Cards)):]
		if len(page) > lim {
			page = page[:lim]
		}
		if off > 0 || len(page) < len(col.Cards) {
			if len(page) == 0 {
				fmt.Fprintf(&t, "(no cards at offset %d)\n", off)
			} else {
				fmt.Fprintf(&t, "showing cards %d–%d of %d:\n", off+1, off+len(page), len(col.Cards))
			}
		}
		for _, card := range page {
			cd.Cards = append(cd.Cards, BoardCardData{Text: card.Text, Checked: card.Checked})
			box := " "
			if card.Checked {
				box = "x"
			}
			fmt.Fprintf(&t, "- [%s] %s\n", box, card.Text)
		}
		if next := off + len(page); next < len(col.Cards) {
			more = append(more, call{"read_board", []arg{{"path", n.Path}, {"column", col.Name}, {"offset", next}}})
		}
		data.Columns = append(data.Columns, cd)
	}
	t.WriteString("\n")
	if len(more) > 0 {
		t.WriteString("more: " + more[0].render(caller.Door) + "\n")
	}
	if len(b.Columns) > 1 {
		// The first card shown, to the column after its own.
		var first, to note.BoardColumn
		for i, col := range b.Columns {
			shown := false
			for _, c := range cols {
				shown = shown || c.Name == col.Name
			}
			if shown && len(col.Cards) > off {
				first, to = col, b.Columns[(i+1)%len(b.Columns)]
				first.Cards = first.Cards[off:]
				break
			}
		}
		if len(first.Cards) > 0 {
			fmt.Fprintf(&t, "To move a card: move_card with this path, the card's text as card (e.g. %q) and a column as to_column (e.g. %q).\n", first.Cards[0].Text, to.Name)
		}
	}
	return &Result{Text: strings.TrimRight(t.String(), "\n"), Data: data}
}

func columnNames(b *note.Board) []string {
	out := make([]string, len(b.Columns))
	for i, c := range b.Columns {
		out[i] = c.Name
	}
	return out
}

// withOpPath sets Op and Path on a domain error.
func withOpPath(err error, op, p string) error {
	if ve, ok := note.AsError(err); ok {
		cp := *ve
		cp.Op, cp.Path = op, p
		return &cp
	}
	return err
}

// MoveCardArgs are the arguments of move_card.
type MoveCardArgs struct {
	Path            string `json:"path"`
	Card            string `json:"card" jsonschema:"its text, or a distinctive part" help:"the card's text, or a distinctive part of it (required)"`
	ToColumn        string `json:"to_column,omitempty" jsonschema:"empty: same column (give position)" help:"the column to move it to (default: its own)"`
	FromColumn      string `json:"from_column,omitempty" jsonschema:"only look in this column" help:"look for the card only in this column"`
	Position        int    `json:"position,omitempty" jsonschema:"1 = top; default: end" help:"1-based place in the target column (default: at the end)"`
	ChangeSummary   string `json:"change_summary"`
	ExpectedVersion string `json:"expected_version,omitempty" jsonschema:"optional: the version you read" help:"VERSION: optional: fail if the board is no longer at this version"`
}

// AddCardArgs are the arguments of add_card.
type AddCardArgs struct {
	Path          string `json:"path"`
	Column        string `json:"column" help:"the column (required)"`
	Text          string `json:"text" jsonschema:"one line; [[links]], #tags, @{2026-12-01} ok" help:"the card's text, one line (required)"`
	Position      int    `json:"position,omitempty" jsonschema:"1 = top; default: end" help:"1-based place in the column (default: at the end)"`
	ChangeSummary string `json:"change_summary"`
}

// CardWriteData is the structured answer of move_card and add_card.
type CardWriteData struct {
	WriteData
	Card     string   `json:"card"`
	From     string   `json:"from_column,omitempty"`
	To       string   `json:"to_column"`
	Position int      `json:"position"`
	Count    int      `json:"cards_in_column"`
	Checked  bool     `json:"checked"`
	Column   []string `json:"column_now"`
}

// MoveCard moves a card to another column or place.
func (c *Core) MoveCard(ctx context.Context, caller Caller, a MoveCardArgs) *Result {
	const tool = "move_card"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}, {"card", a.Card}}}
	ref := a.Path
	np, _, nr := c.notePath(caller, f, a.Path)
	if nr != nil {
		return nr
	}
	a.Path = np
	if a.FromColumn != "" {
		f.args = append(f.args, arg{"from_column", a.FromColumn})
	}
	if a.ToColumn != "" {
		f.args = append(f.args, arg{"to_column", a.ToColumn})
	}
	if a.Position != 0 {
		f.args = append(f.args, arg{"position", a.Position})
	}
	f.args = append(f.args, arg{"change_summary", a.ChangeSummary})
	if a.Position < 0 {
		return c.failApp(caller, f, a.Path, &note.Error{Op: tool, Kind: note.ErrInvalid, Msg: "position counts from 1 (the top of the column); leave it out to put the card at the end"})
	}
	res, cr, err := c.v.MoveCard(a.Path, note.CardMove{Card: a.Card, FromColumn: a.FromColumn, ToColumn: a.ToColumn, Position: a.Position},
		c.opts(caller, a.ChangeSummary, a.ExpectedVersion))
	if err != nil {
		return changedBy(c.failApp(caller, f, a.Path, err), res)
	}
	return withNamed(ref, a.Path, c.cardWritten(caller, tool, a.ChangeSummary, res, cr))
}

// AddCard adds a card to a column of a board.
func (c *Core) AddCard(ctx context.Context, caller Caller, a AddCardArgs) *Result {
	const tool = "add_card"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}, {"column", a.Column}, {"text", a.Text}, {"change_summary", a.ChangeSummary}}}
	ref := a.Path
	np, _, nr := c.notePath(caller, f, a.Path)
	if nr != nil {
		return nr
	}
	a.Path = np
	if a.Position < 0 {
		return c.failApp(caller, f, a.Path, &note.Error{Op: tool, Kind: note.ErrInvalid, Msg: "position counts from 1 (the top of the column); leave it out to put the card at the end"})
	}
	res, cr, err := c.v.AddCard(a.Path, a.Column, a.Text, a.Position, c.opts(caller, a.ChangeSummary, ""))
	if err != nil {
		return changedBy(c.failApp(caller, f, a.Path, err), res)
	}
	return withNamed(ref, a.Path, c.cardWritten(caller, tool, a.ChangeSummary, res, cr))
}

func (c *Core) cardWritten(caller Caller, tool, summary string, res *vault.Result, cr *note.CardResult) *Result {
	wd, head, tail := appWrite(caller, tool, summary, res, call{"read_board", []arg{{"path", res.Note.Path}}})
	data := CardWriteData{WriteData: wd, Column: []string{}}
	var b strings.Builder
	b.WriteString(head)
	if cr != nil {
		data.Card, data.From, data.To, data.Position, data.Count, data.Checked = cr.Card, cr.From, cr.To, cr.Position, cr.Count, cr.Checked
		if board, err := note.ParseBoard(res.Note.Doc); err == nil {
			for _, col := range board.Columns {
				if col.Name != cr.To {
					continue
				}
				fmt.Fprintf(&b, "column %q now (%s):\n", col.Name, plural(len(col.Cards), "card", "cards"))
				for i, card := range col.Cards {
					box := " "
					if card.Checked {
						box = "x"
					}
					if i >= 30 {
						fmt.Fprintf(&b, "(%d more)\n", len(col.Cards)-30)
						break
					}
					data.Column = append(data.Column, card.Text)
					fmt.Fprintf(&b, "%d. [%s] %s\n", i+1, box, card.Text)
				}
				break
			}
		}
	}
	b.WriteString(tail)
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data, Changed: res.Before != res.After}
}

// failBoard renders a board error: a card or column that is missing or
// ambiguous. It lists the candidates as "Column > card" (every one for an
// ambiguity, AGENT-CONTRACT rule 11) or the columns, and suggests the
// failed call with the first candidate filled in.
func (c *Core) failBoard(caller Caller, f failure, notePath string, ve *note.Error) *Result {
	if ve.Path == "" {
		cp := *ve
		cp.Path = notePath
		ve = &cp
	}
	var b strings.Builder
	data := map[string]any{"error": kindName(ve)}
	fmt.Fprintf(&b, "error: %s\nerror code: %s\n", ve.Error(), kindName(ve))
	var next *call
	switch {
	case ve.AltKind == "cards" && errKind(ve) == note.ErrAmbiguous:
		data["candidates"] = ve.Alternatives
		b.WriteString("candidates (column > card):\n")
		for _, a := range ve.Alternatives {
			b.WriteString("- " + a + "\n")
		}
		if len(ve.Alternatives) > 0 {
			n := cardRetry(f, ve.Alternatives[0])
			next = &n
		}
	case ve.AltKind == "cards":
		if len(ve.Alternatives) > 0 {
			data["closest"] = ve.Alternatives
			b.WriteString("closest cards (column > card):\n")
			for _, a := range ve.Alternatives {
				b.WriteString("- " + a + "\n")
			}
			n := cardRetry(f, ve.Alternatives[0])
			next = &n
		} else {
			b.WriteString("The board has no cards there.\n")
			n := call{"read_board", []arg{{"path", notePath}}}
			next = &n
		}
	case ve.AltKind == "columns":
		data["columns"] = ve.Alternatives
		b.WriteString("columns on this board: " + strings.Join(ve.Alternatives, ", ") + "\n")
		if name, ok := missingColumnArg(f, ve); ok && len(ve.Alternatives) > 0 {
			if col, near := closestColumn(argValue(f, name), ve.Alternatives); near {
				n := retryWith(f, name, col)
				next = &n
			}
		}
		if next == nil {
			n := call{"read_board", []arg{{"path", notePath}}}
			next = &n
		}
	}
	if n, err := c.v.Read(notePath); err == nil {
		b.WriteString("note:\n")
		writeRef(&b, refOf(n), "  ")
	}
	if next != nil {
		for i := range next.args {
			if next.args[i].name == "path" {
				next.args[i].value = notePath
			}
		}
		if !sameCall(*next, f) {
			for _, l := range suggest(caller.Door, f, *next) {
				b.WriteString(l + "\n")
			}
		}
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data, Err: ve}
}

// cardRetry is the failed call naming the card "Column > text" exactly:
// its whole text and its column.
func cardRetry(f failure, ref string) call {
	col, text, _ := strings.Cut(ref, note.HeadingSep)
	n := retryWith(f, "card", text)
	if f.tool == "move_card" {
		n = retryWith(failure{tool: n.tool, args: n.args}, "from_column", col)
	}
	return n
}

// missingColumnArg finds which argument named the missing column.
func missingColumnArg(f failure, ve *note.Error) (string, bool) {
	for _, name := range []string{"to_column", "from_column", "column"} {
		v := argValue(f, name)
		if v != "" && strings.Contains(strings.ToLower(ve.Msg), strings.ToLower(fmt.Sprintf("%q", strings.TrimSpace(v)))) {
			return name, true
		}
	}
	return "", false
}

func argValue(f failure, name string) string {
	for _, a := range f.args {
		if a.name == name {
			return fmt.Sprint(a.value)
		}
	}
	return ""
}

// closestColumn picks the column name nearest to what was given; near is
// false when even that one is too far off to be what was meant.
func closestColumn(given string, cols []string) (col string, near bool) {
	g := strings.ToLower(strings.TrimSpace(given))
	best := append([]string{}, cols...)
	sort.SliceStable(best, func(i, j int) bool {
		return note.Distance(g, strings.ToLower(best[i])) < note.Distance(g, strings.ToLower(best[j]))
	})
	b := strings.ToLower(best[0])
	return best[0], note.Distance(g, b) <= max(2, len([]rune(g))/3) || strings.Contains(b, g) || strings.Contains(g, b)
}
