package vault

import (
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// MoveCard moves a card of the board note at p to another column, or to
// another place in its own column. The card is found by its text (see
// CardMove): a whole-text match (ignoring case) wins over a partial one;
// several matches are an error listing every candidate as "Column > text".
// Moving into a column marked **Complete** checks the card, moving out of
// one unchecks it, as the plugin does. The card's lines move as they are;
// nothing else changes — the settings block at the end stays byte for byte.
// o.ExpectedVersion is optional; when given it must be the current version.
//
// Errors (*Error, Op "move_card"): ErrInvalid (empty summary, no card
// text, not a board, a malformed version); ErrInvalidPath; ErrNotFound
// (no such note; no such column — Alternatives the columns; no such card
// — Alternatives the closest cards, "Column > text"); ErrAmbiguous
// (Alternatives every matching card); ErrConflict; ErrDenied.
func (v *Vault) MoveCard(p string, m note.CardMove, o WriteOpts) (*Result, *note.CardResult, error) {
	var cr *note.CardResult
	res, err := v.edit("move_card", p, o, func(cur []byte) ([]byte, string, error) {
		if err := checkExpected(cur, o.ExpectedVersion); err != nil {
			return nil, "", err
		}
		next, r, err := note.MoveCardText(cur, m)
		if err != nil {
			return nil, "", err
		}
		cr = r
		return next, cardDetail(r, "moved"), nil
	})
	return res, cr, err
}

// AddCard adds a card with text to a column of the board note at p, at
// position (1-based; 0 = at the end). In a column marked **Complete** it
// is checked. The text is one line.
//
// Errors (*Error, Op "add_card"): ErrInvalid (empty summary or text, text
// of several lines, not a board); ErrInvalidPath; ErrNotFound (no such
// note or column); ErrConflict; ErrDenied.
func (v *Vault) AddCard(p, column, text string, position int, o WriteOpts) (*Result, *note.CardResult, error) {
	var cr *note.CardResult
	res, err := v.edit("add_card", p, o, func(cur []byte) ([]byte, string, error) {
		if err := checkExpected(cur, o.ExpectedVersion); err != nil {
			return nil, "", err
		}
		next, r, err := note.AddCardText(cur, column, text, position)
		if err != nil {
			return nil, "", err
		}
		cr = r
		return next, cardDetail(r, "added"), nil
	})
	return res, cr, err
}

func checkExpected(cur []byte, expected string) error {
	if strings.TrimSpace(expected) == "" {
		return nil
	}
	if ver := note.Version(cur); !note.SameVersion(expected, ver) {
		return conflictError(expected, ver)
	}
	return nil
}

func cardDetail(r *note.CardResult, verb string) string {
	var s string
	if verb == "moved" && r.From != r.To {
		s = fmt.Sprintf("card %q moved from %q to %q (position %d of %d)", r.Card, r.From, r.To, r.Position, r.Count)
	} else if verb == "moved" {
		s = fmt.Sprintf("card %q moved within %q (position %d of %d)", r.Card, r.To, r.Position, r.Count)
	} else {
		s = fmt.Sprintf("card %q added to %q (position %d of %d)", r.Card, r.To, r.Position, r.Count)
	}
	if r.Toggled && r.Checked {
		s += fmt.Sprintf("; checked, since %q is marked **Complete**", r.To)
	} else if r.Toggled {
		s += fmt.Sprintf("; unchecked, since %q is not marked **Complete**", r.To)
	}
	return s
}
