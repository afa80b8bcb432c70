package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A name that is also a top-level folder's: read_note and the writes take
// it for the note(s) of that name, as they would without the folder (a
// name shared by several notes lists them, and offers the folder as one
// more choice); move_note takes it for the folder, which it moves; a name
// no note has is the folder, which no write takes.
func TestGolden_NameOfAFolder(t *testing.T) {
	dir := copyExampleVault(t)
	files := map[string]string{
		"Vorlagen/Protokoll.md":    "# Protokoll\n\nVorlage für Protokolle\n",
		"3_Ressourcen/Vorlagen.md": "# Vorlagen\n\nWo die Vorlagen liegen\n",
		"9_System/Vorlagen.md":     "# Vorlagen für Agenten\n\nWelche Vorlage wofür\n",
		"Meetings/2026-11-02.md":   "# Jour fixe\n\nProtokoll vom Montag\n",
		"2_Bereiche/Meetings.md":   "# Meetings\n\nWann wir uns treffen\n",
		"Leer/Notiz.md":            "# Notiz\n\nnichts\n",
	}
	writeFilesAt(t, dir, files, time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	c := newTestCore(t, dir)
	for _, tc := range []struct {
		name string
		call step
	}{
		{"read_note_ambiguous", step{"read_note", `{"path":"Vorlagen"}`}},
		{"read_note_one", step{"read_note", `{"path":"Meetings"}`}},
		{"append_one", step{"append_to_note", `{"path":"Meetings","content":"- dienstags","change_summary":"Termin"}`}},
		{"append_ambiguous_err", step{"append_to_note", `{"path":"Vorlagen","content":"- x","change_summary":"x"}`}},
		{"append_folder_err", step{"append_to_note", `{"path":"Leer","content":"- x","change_summary":"x"}`}},
		{"move_folder", step{"move_note", `{"path":"Meetings","to":"3_Ressourcen/Meetings","change_summary":"archiviert"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkGoldenCall(t, c, everyone, tc.call, dir, "", filepath.Join("foldername", tc.name))
		})
	}
	for p, want := range map[string]string{
		"2_Bereiche/Meetings.md":              files["2_Bereiche/Meetings.md"] + "\n- dienstags\n",
		"3_Ressourcen/Meetings/2026-11-02.md": files["Meetings/2026-11-02.md"],
		"3_Ressourcen/Vorlagen.md":            files["3_Ressourcen/Vorlagen.md"],
		"9_System/Vorlagen.md":                files["9_System/Vorlagen.md"],
		"Leer/Notiz.md":                       files["Leer/Notiz.md"],
	} {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || strings.TrimSpace(string(b)) != strings.TrimSpace(want) {
			t.Errorf("%s: %q (%v), want %q", p, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "Meetings")); !os.IsNotExist(err) {
		t.Errorf("the folder Meetings is still there after its move (%v)", err)
	}
}
