package tools

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// textVault is the example vault with notes that are not UTF-8 text, as
// a teammate's git, an old editor or git-lfs leave them.
func textVault(t *testing.T) string {
	t.Helper()
	dir := copyExampleVault(t)
	le := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune("---\ntags: [team]\n---\n# Teamtreffen\n\n## Zeitleiste\n\n- 2026-11-01 Start über Budget\n\n## Offen\n\n- Budget\n")) {
		le = binary.LittleEndian.AppendUint16(le, u)
	}
	files := map[string]string{
		"0_Inbox/Treffen UTF-16.md": string(le),
		"0_Inbox/Alt Latin-1.md":    "# Alte Notiz\n\nBudget f\xfcr M\xfcller\n",
		"0_Inbox/Mit NUL.md":        "# Kaputt\n\nBudget\x00\x00\n",
		"0_Inbox/Im LFS.md":         "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n",
	}
	mt := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(full, mt, mt)
	}
	return dir
}

// Notes that are not UTF-8 text: read_note shows them decoded with their
// encoding named, search finds their words, and every edit is refused
// with what is wrong, that nothing changed and what a person can do.
func TestGolden_NotText(t *testing.T) {
	dir := textVault(t)
	c := newTestCore(t, dir)
	for _, tc := range []struct {
		name      string
		call      step
		versionOf string
	}{
		{"read_note/utf16", step{"read_note", `{"path":"0_Inbox/Treffen UTF-16.md"}`}, ""},
		{"read_note/utf16_section", step{"read_note", `{"path":"0_Inbox/Treffen UTF-16.md","heading":"Offen"}`}, ""},
		{"read_note/latin1", step{"read_note", `{"path":"0_Inbox/Alt Latin-1.md"}`}, ""},
		{"read_note/nul", step{"read_note", `{"path":"0_Inbox/Mit NUL.md"}`}, ""},
		{"read_note/lfs", step{"read_note", `{"path":"0_Inbox/Im LFS.md"}`}, ""},
		{"search_notes", step{"search_notes", `{"query":"Budget","limit":5}`}, ""},
		{"append_to_note/utf16", step{"append_to_note", `{"path":"0_Inbox/Treffen UTF-16.md","heading":"Offen","content":"- Raum buchen","change_summary":"Punkt ergänzt"}`}, ""},
		{"append_to_note/latin1", step{"append_to_note", `{"path":"0_Inbox/Alt Latin-1.md","content":"- mehr","change_summary":"ergänzt"}`}, ""},
		{"append_to_note/nul_content", step{"append_to_note", `{"path":"0_Inbox/Idee Wissensdatenbank.md","content":"a\u0000b","change_summary":"ergänzt"}`}, ""},
		{"update_section/nul", step{"update_section", `{"path":"0_Inbox/Mit NUL.md","heading":"Kaputt","content":"neu","change_summary":"neu"}`}, ""},
		{"replace_note/utf16", step{"replace_note", `{"path":"0_Inbox/Treffen UTF-16.md","content":"# Teamtreffen\n","expected_version":"$VERSION","change_summary":"als UTF-8"}`}, "0_Inbox/Treffen UTF-16.md"},
		{"set_properties/lfs", step{"set_properties", `{"path":"0_Inbox/Im LFS.md","properties":{"status":"aktiv"},"change_summary":"Status"}`}, ""},
		{"add_tags/utf16", step{"add_tags", `{"path":"0_Inbox/Treffen UTF-16.md","tags":["neu"],"change_summary":"Tag"}`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkGoldenCall(t, c, everyone, tc.call, dir, tc.versionOf, filepath.Join("not_text", strings.ReplaceAll(tc.name, "/", "_")))
		})
	}
	cli := Caller{Actor: "cli", Perms: AllPerms, Door: DoorCLI}
	for _, tc := range []struct{ name, tool, shown string }{
		{"read_cli", "read_note", "vaultd read '0_Inbox/Treffen UTF-16.md'"},
		{"append_cli", "append_to_note", "vaultd append '0_Inbox/Treffen UTF-16.md' --content x"},
	} {
		args := map[string]any{"path": "0_Inbox/Treffen UTF-16.md"}
		if tc.tool == "append_to_note" {
			args["content"], args["change_summary"] = "x", "x"
		}
		r := c.Call(context.Background(), cli, tc.tool, args)
		compareGolden(t, filepath.Join("testdata", "golden", "not_text", tc.name+".golden"), renderGolden(tc.shown, r, dir))
	}
	for p, want := range map[string]string{"0_Inbox/Alt Latin-1.md": "# Alte Notiz\n\nBudget f\xfcr M\xfcller\n", "0_Inbox/Mit NUL.md": "# Kaputt\n\nBudget\x00\x00\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))); string(b) != want {
			t.Errorf("%s changed: %q", p, b)
		}
	}
}
