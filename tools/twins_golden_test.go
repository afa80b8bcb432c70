package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two notes whose names differ only in Unicode normalisation, as git
// brings them in on Linux, and two that differ only in case: listings,
// search and reads show each under its exact path (the decomposed one
// says so), a write by an exact path reaches that note alone, and a
// spelling that matches both is refused with both as calls.
func TestGolden_Twins(t *testing.T) {
	dir := copyExampleVault(t)
	files := map[string]string{
		"0_Inbox/Caf\u00e9.md":  "# Café (composed)\n\nKaffeeautomat im Flur\n",
		"0_Inbox/Cafe\u0301.md": "# Café (decomposed)\n\nKaffeeautomat in der Küche\n",
		"0_Inbox/Notiz.md":      "# Notiz (upper)\n\nKaffeeautomat\n",
		"0_Inbox/notiz.md":      "# notiz (lower)\n\nKaffeeautomat\n",
	}
	writeFilesAt(t, dir, files, time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	c := newTestCore(t, dir)
	for _, tc := range []struct {
		name string
		call step
	}{
		{"list_notes", step{"list_notes", `{"folder":"0_Inbox","limit":20}`}},
		{"search_notes", step{"search_notes", `{"query":"Kaffeeautomat","limit":5}`}},
		{"read_note_nfd", step{"read_note", `{"path":"0_Inbox/Cafe\u0301.md"}`}},
		{"read_note_nfc", step{"read_note", `{"path":"0_Inbox/Caf\u00e9.md"}`}},
		{"append_nfd", step{"append_to_note", `{"path":"0_Inbox/Cafe\u0301.md","content":"- entkalkt","change_summary":"entkalkt"}`}},
		{"append_both_err", step{"append_to_note", `{"path":"0_Inbox/CAFÉ.md","content":"- entkalkt","change_summary":"entkalkt"}`}},
		{"append_case_err", step{"append_to_note", `{"path":"0_Inbox/NOTIZ.md","content":"- x","change_summary":"x"}`}},
		{"read_note_name_err", step{"read_note", `{"path":"café"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkGoldenCall(t, c, everyone, tc.call, dir, "", filepath.Join("twins", tc.name))
		})
	}
	for p, want := range map[string]string{
		"0_Inbox/Caf\u00e9.md":  files["0_Inbox/Caf\u00e9.md"],
		"0_Inbox/Cafe\u0301.md": files["0_Inbox/Cafe\u0301.md"] + "\n- entkalkt\n",
		"0_Inbox/notiz.md":      files["0_Inbox/notiz.md"],
	} {
		if b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))); string(b) != want && !strings.Contains(string(b), "- x") {
			t.Errorf("%+q: %q, want %q", p, b, want)
		}
	}
}
