package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

func TestMoveCard_Protocol(t *testing.T) {
	v, _ := wOpen(t, map[string]string{"Board.md": string(readFixture(t, "board.md"))})
	res, r, err := v.MoveCard("Board", note.CardMove{Card: "Kontraste", ToColumn: "Erledigt"}, WriteOpts{Summary: "fertig"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Checked || !r.Toggled || !strings.Contains(res.Detail, `checked, since "Erledigt" is marked **Complete**`) {
		t.Errorf("got %+v, %q", r, res.Detail)
	}
	if h, _ := v.History(HistoryFilter{Path: "Board.md"}); len(h) != 1 || h[0].Op != "move_card" {
		t.Errorf("history: %+v", h)
	}
	_, _, err = v.MoveCard("Board", note.CardMove{Card: "Hugo", ToColumn: "Review"}, WriteOpts{Summary: "x", ExpectedVersion: res.Before})
	if !errors.Is(err, note.ErrConflict) {
		t.Errorf("stale version: got %v", err)
	}
	if _, _, err := v.AddCard("Board", "Review", "neu", 0, WriteOpts{Summary: "x"}); err != nil {
		t.Errorf("add: %v", err)
	}
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "notesapp", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
