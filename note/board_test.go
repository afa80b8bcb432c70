package note

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "notesapp", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// boardText renders a board as "Column[*]: [ ]card | [x]card" lines.
func boardText(t *testing.T, src []byte) string {
	t.Helper()
	b, err := ParseBoard(Parse(src))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range b.Columns {
		var cards []string
		for _, k := range c.Cards {
			box := " "
			if k.Checked {
				box = "x"
			}
			cards = append(cards, "["+box+"]"+k.Text)
		}
		mark := ""
		if c.Complete {
			mark = "*"
		}
		lines = append(lines, c.Name+mark+": "+strings.Join(cards, " | "))
	}
	if b.Archived > 0 {
		lines = append(lines, fmt.Sprintf("archived: %d", b.Archived))
	}
	return strings.Join(lines, "\n")
}

func TestBoard_Parse(t *testing.T) {
	got := boardText(t, readFixture(t, "board.md"))
	want := `Backlog: [ ]Englische Leistungsseiten übersetzen #content | [ ]Blogartikel 2019–2022 sichten und ausmisten | [ ]Open-Graph-Bilder für alle Seiten #design | [ ]Impressum und Datenschutzerklärung aktualisieren @{2026-11-27}
In Arbeit: [ ]Texte Leistungsseite Netzwerke (Anna) | [ ]Weiterleitungen der alten URLs pflegen, siehe [[Technik#Weiterleitungen]] | [ ]Kontaktformular an das CRM anbinden #technik
Review: [ ]Startseite nach Entwurf B umsetzen #design | [ ]Kontraste prüfen (WCAG AA)
Erledigt*: [x]Hugo-Repository anlegen | [x]Projektplan erstellen [[Projektplan]] | [x]Designentwurf B freigeben #design | [x]Kickoff durchführen [[2026-10-14 Kickoff]]`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = boardText(t, readFixture(t, "board-archive.md"))
	want = "Todo: [ ]Karte mit Unterpunkten | [ ]zweite Karte\nLeer: \nFertig*: \narchived: 2"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := ParseBoard(Parse([]byte("# kein Board\n"))); !errors.Is(err, ErrInvalid) {
		t.Errorf("not a board: got %v", err)
	}
}

// settingsOf returns the settings block: it must never change.
func settingsOf(src []byte) []byte {
	i := bytes.LastIndex(src, []byte("%% kanban:settings"))
	if i < 0 {
		return nil
	}
	return src[i:]
}

func TestBoard_Move(t *testing.T) {
	for _, tc := range []struct {
		name, fixture string
		m             CardMove
		want          string // the board after, as boardText
		wantFile      string // a piece of the file after, if given
	}{
		{"between columns", "board.md", CardMove{Card: "kontaktformular", ToColumn: "review"},
			"Review: [ ]Startseite nach Entwurf B umsetzen #design | [ ]Kontraste prüfen (WCAG AA) | [ ]Kontaktformular an das CRM anbinden #technik",
			"- [ ] Kontraste prüfen (WCAG AA)\n- [ ] Kontaktformular an das CRM anbinden #technik\n\n\n## Erledigt"},
		{"into a Complete column checks it", "board.md", CardMove{Card: "Kontraste", ToColumn: "Erledigt", Position: 2},
			"Erledigt*: [x]Hugo-Repository anlegen | [x]Kontraste prüfen (WCAG AA) | [x]Projektplan erstellen [[Projektplan]] | [x]Designentwurf B freigeben #design | [x]Kickoff durchführen [[2026-10-14 Kickoff]]", ""},
		{"out of a Complete column unchecks it", "board.md", CardMove{Card: "Hugo", ToColumn: "Backlog", Position: 1},
			"Backlog: [ ]Hugo-Repository anlegen | [ ]Englische Leistungsseiten übersetzen #content | [ ]Blogartikel 2019–2022 sichten und ausmisten | [ ]Open-Graph-Bilder für alle Seiten #design | [ ]Impressum und Datenschutzerklärung aktualisieren @{2026-11-27}", ""},
		{"within a column", "board.md", CardMove{Card: "Impressum", Position: 1},
			"Backlog: [ ]Impressum und Datenschutzerklärung aktualisieren @{2026-11-27} | [ ]Englische Leistungsseiten übersetzen #content | [ ]Blogartikel 2019–2022 sichten und ausmisten | [ ]Open-Graph-Bilder für alle Seiten #design", ""},
		{"the last card of the last column", "board.md", CardMove{Card: "Kickoff", ToColumn: "Review", Position: 1},
			"Review: [ ]Kickoff durchführen [[2026-10-14 Kickoff]] | [ ]Startseite nach Entwurf B umsetzen #design | [ ]Kontraste prüfen (WCAG AA)", ""},
		{"a card with sub-items moves whole into an empty column", "board-archive.md", CardMove{Card: "Unterpunkten", ToColumn: "Leer"},
			"Leer: [ ]Karte mit Unterpunkten",
			"## Leer\n\n- [ ] Karte mit Unterpunkten\n    - erster Unterpunkt\n    - zweiter Unterpunkt\n\n\n## Fertig"},
		{"into an empty Complete column goes after the marker", "board-archive.md", CardMove{Card: "zweite", ToColumn: "Fertig"},
			"Fertig*: [x]zweite Karte", "**Complete**\n- [x] zweite Karte\n\n\n***"},
		{"whole-text match wins over partial ones", "board-archive.md", CardMove{Card: "Zweite  Karte", ToColumn: "Leer"},
			"Leer: [ ]zweite Karte", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := readFixture(t, tc.fixture)
			got, r, err := MoveCardText(src, tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(boardText(t, got), tc.want) {
				t.Errorf("move %+v: got board\n%s\nwant a line\n%s", tc.m, boardText(t, got), tc.want)
			}
			if tc.wantFile != "" && !strings.Contains(string(got), tc.wantFile) {
				t.Errorf("move %+v: file does not contain %q:\n%s", tc.m, tc.wantFile, got)
			}
			if !bytes.Equal(settingsOf(src), settingsOf(got)) {
				t.Errorf("settings block changed:\n%s", settingsOf(got))
			}
			if len(got) != len(src)+bytes.Count(got, []byte("\n"))-bytes.Count(src, []byte("\n")) && !r.Toggled {
				t.Errorf("bytes appeared or vanished: %d → %d", len(src), len(got))
			}
		})
	}
}

// TestBoard_MoveThereAndBack: moving a card away and back to its place
// restores the file byte for byte.
func TestBoard_MoveThereAndBack(t *testing.T) {
	src := readFixture(t, "board.md")
	mid, _, err := MoveCardText(src, CardMove{Card: "Blogartikel", ToColumn: "Review", Position: 1})
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := MoveCardText(mid, CardMove{Card: "Blogartikel", ToColumn: "Backlog", Position: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, src) {
		t.Errorf("there and back:\n%s", back)
	}
	crlf := bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))
	got, _, err := MoveCardText(crlf, CardMove{Card: "Blogartikel", ToColumn: "Review"})
	if err != nil || bytes.Count(got, []byte("\n")) != bytes.Count(got, []byte("\r\n")) {
		t.Errorf("CRLF board: %v\n%q", err, got)
	}
}

func TestBoard_Errors(t *testing.T) {
	src := readFixture(t, "board.md")
	_, _, err := MoveCardText(src, CardMove{Card: "design", ToColumn: "Erledigt"})
	e, _ := AsError(err)
	if !errors.Is(err, ErrAmbiguous) || e.AltKind != "cards" || strings.Join(e.Alternatives, "|") !=
		"Backlog > Open-Graph-Bilder für alle Seiten #design|Review > Startseite nach Entwurf B umsetzen #design|Erledigt > Designentwurf B freigeben #design" {
		t.Errorf("ambiguous: got %v %+v", err, e)
	}
	if _, _, err := MoveCardText(src, CardMove{Card: "design", FromColumn: "Review", ToColumn: "Erledigt"}); err != nil {
		t.Errorf("from_column narrows: %v", err)
	}
	_, _, err = MoveCardText(src, CardMove{Card: "Kontaktformular", ToColumn: "Testing"})
	if e, _ := AsError(err); !errors.Is(err, ErrNotFound) || e.AltKind != "columns" || len(e.Alternatives) != 4 {
		t.Errorf("missing column: got %v", err)
	}
	_, _, err = MoveCardText(src, CardMove{Card: "Raumschiff", ToColumn: "Review"})
	if e, _ := AsError(err); !errors.Is(err, ErrNotFound) || e.AltKind != "cards" || len(e.Alternatives) != 0 {
		t.Errorf("missing card: got %v", err)
	}
	if _, _, err := MoveCardText(src, CardMove{Card: " ", ToColumn: "Review"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty card: got %v", err)
	}
	if _, _, err := AddCardText(src, "Backlog", "a\nb", 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("multi-line card: got %v", err)
	}
}

func TestBoard_Add(t *testing.T) {
	src := readFixture(t, "board-archive.md")
	got, r, err := AddCardText(src, "leer", "- [ ] neue Karte [[Link]]", 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Position != 1 || r.Count != 1 || !strings.Contains(string(got), "## Leer\n\n- [ ] neue Karte [[Link]]\n\n\n## Fertig") {
		t.Errorf("add to an empty column: %+v\n%s", r, got)
	}
	got, r, err = AddCardText(got, "Todo", "ganz oben", 1)
	if err != nil || r.Position != 1 || !strings.Contains(string(got), "## Todo\n\n- [ ] ganz oben\n- [ ] Karte mit Unterpunkten") {
		t.Errorf("add at the top: %+v %v\n%s", r, err, got)
	}
	if !bytes.Equal(settingsOf(src), settingsOf(got)) {
		t.Error("settings block changed")
	}
	// A board whose last line has no line ending.
	got, _, err = AddCardText([]byte("---\nkanban-plugin: board\n---\n\n## A\n\n- [ ] x"), "A", "y", 0)
	if err != nil || string(got) != "---\nkanban-plugin: board\n---\n\n## A\n\n- [ ] x\n- [ ] y\n" {
		t.Errorf("no final line ending: %v %q", err, got)
	}
}
