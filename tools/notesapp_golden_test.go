package tools

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

// appCase is a golden case of the notes-app tools. Like goldenCase, plus a
// setup that changes the copied vault before the core opens it, and a
// check of the files after the call.
type appCase struct {
	name      string
	caller    Caller
	setup     func(t *testing.T, dir string)
	before    []step
	call      step
	versionOf string
	check     func(t *testing.T, dir string)
}

// Test payloads, substituted for $NAME in the arguments; the golden files
// show the placeholder, not the bytes.
var appPayloads = map[string]string{
	// A 1×1 PNG.
	"$PNG": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
	// Plain text, to be refused as an image.
	"$TEXT": base64.StdEncoding.EncodeToString([]byte("Dies ist kein Bild, sondern Text.\n")),
	// 11 MB: over the 10 MB limit.
	"$BIG": base64.StdEncoding.EncodeToString(append([]byte("%PDF-1.7\n"), make([]byte, 11<<20)...)),
}

const board = "1_Projekte/Website-Relaunch/Board.md"

func writeFile(t *testing.T, dir, p, content string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(full, fixedNow, fixedNow); err != nil {
		t.Fatal(err)
	}
}

func removeFile(p string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			t.Fatal(err)
		}
	}
}

// fileContains checks a file of the vault after the call.
func fileContains(p string, want ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: does not contain %q; got:\n%s", p, w, b)
			}
		}
	}
}

// unchanged checks that a file is byte-identical to the example vault's.
func unchanged(p string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		want, _ := os.ReadFile(filepath.Join("..", "example-vault", filepath.FromSlash(p)))
		got, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if !bytes.Equal(got, want) {
			t.Errorf("%s changed; got:\n%s", p, got)
		}
	}
}

var appCases = []appCase{
	// set_properties
	{name: "set_properties/ok", caller: readWrite, call: step{"set_properties", `{"path":"1_Projekte/Website-Relaunch.md","properties":{"status":"abgeschlossen","due":"2026-12-01","prio":2,"done":true,"beteiligte":["Lena","[[Jonas Keller]]"]},"remove":["created"],"change_summary":"Projekt abgeschlossen"}`},
		check: fileContains("1_Projekte/Website-Relaunch.md", "---\ntags: [projekt, projekt/website, kunde/intern]\naliases:\n  - Relaunch\n  - Neue Website\nstatus: abgeschlossen\nbeteiligte:\n  - Lena\n  - \"[[Jonas Keller]]\"\ndone: true\ndue: 2026-12-01\nprio: 2\n---\n")},
	{name: "set_properties/no_frontmatter", caller: readWrite, call: step{"set_properties", `{"path":"0_Inbox/Notiz 2026-11-18.md","properties":{"status":"offen"},"change_summary":"Status gesetzt"}`},
		check: fileContains("0_Inbox/Notiz 2026-11-18.md", "---\nstatus: offen\n---\nTelefonat mit Herrn Petersen")},
	{name: "set_properties/nothing_changed", caller: readWrite, call: step{"set_properties", `{"path":"1_Projekte/Website-Relaunch.md","properties":{"status":"aktiv"},"remove":["gibtsnicht"],"change_summary":"Status"}`},
		check: unchanged("1_Projekte/Website-Relaunch.md")},
	{name: "set_properties/rebased", caller: readWrite, versionOf: "1_Projekte/Website-Relaunch.md",
		before: []step{{"set_properties", `{"path":"1_Projekte/Website-Relaunch.md","properties":{"owner":"Lena"},"change_summary":"parallel"}`}},
		call:   step{"set_properties", `{"path":"1_Projekte/Website-Relaunch.md","properties":{"status":"pausiert"},"change_summary":"pausiert","expected_version":"$VERSION"}`}},
	{name: "set_properties/err_conflict", caller: readWrite, versionOf: "1_Projekte/Website-Relaunch.md",
		before: []step{{"set_properties", `{"path":"1_Projekte/Website-Relaunch.md","properties":{"status":"pausiert"},"change_summary":"parallel"}`}},
		call:   step{"set_properties", `{"path":"1_Projekte/Website-Relaunch.md","properties":{"status":"abgeschlossen"},"change_summary":"fertig","expected_version":"$VERSION"}`}},
	{name: "set_properties/err_invalid_yaml", caller: readWrite, setup: func(t *testing.T, dir string) {
		writeFile(t, dir, "0_Inbox/Kaputt.md", "---\ntags: [idee\nstatus: offen\n---\n# Kaputt\n")
	}, call: step{"set_properties", `{"path":"0_Inbox/Kaputt.md","properties":{"status":"erledigt"},"change_summary":"erledigt"}`},
		check: fileContains("0_Inbox/Kaputt.md", "---\ntags: [idee\nstatus: offen\n---\n")},
	{name: "set_properties/err_bad_value", caller: readWrite, call: step{"set_properties", `{"path":"1_Projekte/Website-Relaunch.md","properties":{"kunde":{"name":"intern"}},"change_summary":"Kunde"}`}},
	{name: "set_properties/err_no_properties", caller: readWrite, call: step{"set_properties", `{"path":"1_Projekte/Website-Relaunch.md","change_summary":"nichts"}`}},
	{name: "set_properties/err_bad_argument", caller: readWrite, call: step{"set_properties", `{"path":"1_Projekte/Website-Relaunch.md","properties":"status=aktiv","change_summary":"x"}`}},
	{name: "set_properties/err_not_found", caller: readWrite, call: step{"set_properties", `{"path":"1_Projekte/Website-Relaunh.md","properties":{"status":"aktiv"},"change_summary":"x"}`}},
	{name: "set_properties/err_protected", caller: readWrite, call: step{"set_properties", `{"path":"4_Archiv/Gartenhaus Bau 2025.md","properties":{"status":"aktiv"},"change_summary":"wieder aktiv"}`}},
	{name: "set_properties/err_permission", caller: readOnly, call: step{"set_properties", `{"path":"1_Projekte/Website-Relaunch.md","properties":{"status":"aktiv"},"change_summary":"x"}`}},

	// add_tags, remove_tags
	{name: "add_tags/inline_list", caller: readWrite, call: step{"add_tags", `{"path":"1_Projekte/Website-Relaunch.md","tags":["#relaunch","Projekt"],"change_summary":"Tag ergänzt"}`},
		check: fileContains("1_Projekte/Website-Relaunch.md", "tags: [projekt, projekt/website, kunde/intern, relaunch]\n")},
	{name: "add_tags/block_list", caller: readWrite, call: step{"add_tags", `{"path":"1_Projekte/Klinikverbund Nord.md","tags":"vlan","change_summary":"Tag ergänzt"}`}},
	{name: "add_tags/comma_string", caller: readWrite, call: step{"add_tags", `{"path":"0_Inbox/Buchtipps.md","tags":["buch"],"change_summary":"Tag ergänzt"}`},
		check: fileContains("0_Inbox/Buchtipps.md", "---\ntags: privat, lesen, buch\ncreated: 2026-11-02\n---\n")},
	{name: "add_tags/no_frontmatter_inline_reported", caller: readWrite, call: step{"add_tags", `{"path":"0_Inbox/Notiz 2026-11-18.md","tags":["todo","telefonat"],"change_summary":"Tags ins Frontmatter"}`},
		check: fileContains("0_Inbox/Notiz 2026-11-18.md", "---\ntags:\n  - todo\n  - telefonat\n---\nTelefonat", "#todo #kunde/klinikverbund")},
	{name: "add_tags/err_bad_tag", caller: readWrite, call: step{"add_tags", `{"path":"0_Inbox/Buchtipps.md","tags":["zwei wörter"],"change_summary":"x"}`}},
	{name: "add_tags/err_not_found", caller: readWrite, call: step{"add_tags", `{"path":"0_Inbox/Buchtip.md","tags":["buch"],"change_summary":"x"}`}},
	{name: "add_tags/err_protected", caller: readWrite, call: step{"add_tags", `{"path":"9_System/Schreibstil.md","tags":["neu"],"change_summary":"x"}`}},
	{name: "add_tags/err_permission", caller: readOnly, call: step{"add_tags", `{"path":"0_Inbox/Buchtipps.md","tags":["buch"],"change_summary":"x"}`}},
	{name: "remove_tags/ok_inline_reported", caller: readWrite, call: step{"remove_tags", `{"path":"1_Projekte/Website-Relaunch.md","tags":["projekt/website","gibtsnicht"],"change_summary":"Tag entfernt"}`},
		check: fileContains("1_Projekte/Website-Relaunch.md", "tags: [projekt, kunde/intern]\n")},
	{name: "remove_tags/last_tag", caller: readWrite, call: step{"remove_tags", `{"path":"1_Projekte/Straßenfest Planung.md","tags":["projekt"],"change_summary":"kein Projekt mehr"}`}},
	{name: "remove_tags/not_present", caller: readWrite, call: step{"remove_tags", `{"path":"0_Inbox/Buchtipps.md","tags":["buch"],"change_summary":"x"}`},
		check: unchanged("0_Inbox/Buchtipps.md")},
	{name: "remove_tags/err_protected", caller: readWrite, call: step{"remove_tags", `{"path":"4_Archiv/Gartenhaus Bau 2025.md","tags":["privat"],"change_summary":"x"}`}},
	{name: "remove_tags/err_not_found", caller: readWrite, call: step{"remove_tags", `{"path":"0_Inbox/Buchtip.md","tags":["buch"],"change_summary":"x"}`}},
	{name: "remove_tags/err_permission", caller: readOnly, call: step{"remove_tags", `{"path":"0_Inbox/Buchtipps.md","tags":["lesen"],"change_summary":"x"}`}},

	// list_tags
	{name: "list_tags/all", caller: readOnly, call: step{"list_tags", `{}`}},
	{name: "list_tags/subtree", caller: readOnly, call: step{"list_tags", `{"tag":"#projekt"}`}},
	{name: "list_tags/paged", caller: readOnly, call: step{"list_tags", `{"limit":5,"offset":5}`}},
	{name: "list_tags/missing", caller: readOnly, call: step{"list_tags", `{"tag":"projektt"}`}},
	{name: "list_tags/err_bad_argument", caller: readOnly, call: step{"list_tags", `{"limit":"viele"}`}},

	// pin_note, unpin_note
	{name: "pin_note/ok", caller: readWrite, call: step{"pin_note", `{"path":"1_Projekte/Hausbau Lindenweg.md","change_summary":"wichtig diese Woche"}`},
		check: fileContains(".obsidian/bookmarks.json", `"path": "1_Projekte/Hausbau Lindenweg.md"`, `"path": "2_Bereiche/Team/Besprechungsprotokoll.md"`)},
	{name: "pin_note/already", caller: readWrite, call: step{"pin_note", `{"path":"1_Projekte/Website-Relaunch.md","change_summary":"x"}`},
		check: unchanged(".obsidian/bookmarks.json")},
	{name: "pin_note/no_bookmarks_file", caller: readWrite, setup: removeFile(".obsidian/bookmarks.json"),
		call:  step{"pin_note", `{"path":"1_Projekte/Hausbau Lindenweg.md","change_summary":"wichtig"}`},
		check: fileContains(".obsidian/bookmarks.json", "{\n  \"items\": [\n    {\n      \"type\": \"file\",\n      \"ctime\": 1795953600000,\n      \"path\": \"1_Projekte/Hausbau Lindenweg.md\",\n      \"title\": \"\"\n    }\n  ]\n}\n")},
	{name: "pin_note/err_not_found", caller: readWrite, call: step{"pin_note", `{"path":"1_Projekte/Hausbau.md","change_summary":"x"}`}},
	{name: "pin_note/err_invalid_bookmarks", caller: readWrite, setup: func(t *testing.T, dir string) {
		writeFile(t, dir, ".obsidian/bookmarks.json", `{"items": [`)
	}, call: step{"pin_note", `{"path":"1_Projekte/Hausbau Lindenweg.md","change_summary":"x"}`},
		check: fileContains(".obsidian/bookmarks.json", `{"items": [`)},
	{name: "pin_note/err_permission", caller: readOnly, call: step{"pin_note", `{"path":"1_Projekte/Hausbau Lindenweg.md","change_summary":"x"}`}},
	{name: "pin_note/err_protected", caller: readWrite, setup: func(t *testing.T, dir string) {
		writeFile(t, dir, "9_System/Lesezeichen.md", "---\nprotected: [\".obsidian/**\"]\n---\nLesezeichen setzen nur Menschen.\n")
	}, call: step{"pin_note", `{"path":"1_Projekte/Hausbau Lindenweg.md","change_summary":"x"}`},
		check: unchanged(".obsidian/bookmarks.json")},
	{name: "unpin_note/err_permission", caller: readOnly, call: step{"unpin_note", `{"path":"1_Projekte/Website-Relaunch.md","change_summary":"x"}`}},
	{name: "unpin_note/ok", caller: readWrite, call: step{"unpin_note", `{"path":"1_Projekte/Website-Relaunch.md","change_summary":"erledigt"}`}},
	{name: "unpin_note/not_pinned", caller: readWrite, call: step{"unpin_note", `{"path":"1_Projekte/Hausbau Lindenweg.md","change_summary":"x"}`}},
	{name: "unpin_note/dangling", caller: readWrite, setup: func(t *testing.T, dir string) {
		writeFile(t, dir, ".obsidian/bookmarks.json", `{"items":[{"type":"group","ctime":1,"title":"Alt","items":[{"type":"file","ctime":2,"path":"0_Inbox/Weg.md"}]}]}`)
	}, call: step{"unpin_note", `{"path":"0_Inbox/Weg.md","change_summary":"Notiz gibt es nicht mehr"}`},
		check: fileContains(".obsidian/bookmarks.json", "{\n  \"items\": [\n    {\n      \"type\": \"group\",\n      \"ctime\": 1,\n      \"title\": \"Alt\",\n      \"items\": []\n    }\n  ]\n}")},
	{name: "unpin_note/err_not_found", caller: readWrite, call: step{"unpin_note", `{"path":"1_Projekte/Hausbau.md","change_summary":"x"}`}},

	// read_board, move_card, add_card
	{name: "read_board/ok", caller: readOnly, call: step{"read_board", `{"path":"1_Projekte/Website-Relaunch/Board.md"}`}},
	{name: "read_board/by_title_column_paged", caller: readOnly, call: step{"read_board", `{"path":"Board","column":"backlog","limit":2}`}},
	{name: "read_board/err_not_board", caller: readOnly, call: step{"read_board", `{"path":"1_Projekte/Website-Relaunch/Projektplan.md"}`}},
	{name: "read_board/err_missing_column", caller: readOnly, call: step{"read_board", `{"path":"1_Projekte/Website-Relaunch/Board.md","column":"Testing"}`}},
	{name: "read_board/err_not_found", caller: readOnly, call: step{"read_board", `{"path":"1_Projekte/Website-Relaunch/Bord.md"}`}},
	{name: "read_board/err_bad_argument", caller: readOnly, call: step{"read_board", `{"path":["Board"]}`}},
	{name: "move_card/ok", caller: readWrite, call: step{"move_card", `{"path":"` + board + `","card":"kontaktformular","to_column":"Review","change_summary":"Formular fertig"}`},
		check: fileContains(board, "## Review\n\n- [ ] Startseite nach Entwurf B umsetzen #design\n- [ ] Kontraste prüfen (WCAG AA)\n- [ ] Kontaktformular an das CRM anbinden #technik\n\n\n## Erledigt", "%% kanban:settings\n```\n{\"kanban-plugin\":\"board\",\"list-collapse\":[false,false,false,false]}\n```\n%%\n")},
	{name: "move_card/to_complete", caller: readWrite, call: step{"move_card", `{"path":"` + board + `","card":"Kontraste prüfen (WCAG AA)","to_column":"Erledigt","position":1,"change_summary":"geprüft"}`},
		check: fileContains(board, "**Complete**\n- [x] Kontraste prüfen (WCAG AA)\n- [x] Hugo-Repository anlegen\n")},
	{name: "move_card/within_column", caller: readWrite, call: step{"move_card", `{"path":"` + board + `","card":"Impressum","position":1,"change_summary":"dringend"}`}},
	{name: "move_card/from_column", caller: readWrite, call: step{"move_card", `{"path":"` + board + `","card":"design","from_column":"Review","to_column":"Erledigt","change_summary":"umgesetzt"}`}},
	{name: "move_card/err_ambiguous", caller: readWrite, call: step{"move_card", `{"path":"` + board + `","card":"design","to_column":"Erledigt","change_summary":"fertig"}`},
		check: unchanged(board)},
	{name: "move_card/err_card_not_found", caller: readWrite, call: step{"move_card", `{"path":"` + board + `","card":"Kontaktfomular CRM","to_column":"Review","change_summary":"x"}`}},
	{name: "move_card/err_column_not_found", caller: readWrite, call: step{"move_card", `{"path":"` + board + `","card":"Kontaktformular","to_column":"Revue","change_summary":"x"}`}},
	{name: "move_card/err_not_board", caller: readWrite, call: step{"move_card", `{"path":"1_Projekte/Website-Relaunch/Projektplan.md","card":"x","to_column":"Review","change_summary":"x"}`}},
	{name: "move_card/err_permission", caller: readOnly, call: step{"move_card", `{"path":"` + board + `","card":"Kontaktformular","to_column":"Review","change_summary":"x"}`}},
	{name: "move_card/err_bad_position", caller: readWrite, call: step{"move_card", `{"path":"` + board + `","card":"Kontaktformular","to_column":"Review","position":-1,"change_summary":"x"}`}},
	{name: "move_card/err_conflict", caller: readWrite, call: step{"move_card", `{"path":"` + board + `","card":"Kontaktformular","to_column":"Review","change_summary":"x","expected_version":"000000000000"}`}},
	{name: "add_card/ok", caller: readWrite, call: step{"add_card", `{"path":"` + board + `","column":"Backlog","text":"Cookie-Banner prüfen @{2026-12-05}","change_summary":"aus dem Call"}`},
		check: fileContains(board, "@{2026-11-27}\n- [ ] Cookie-Banner prüfen @{2026-12-05}\n\n\n## In Arbeit")},
	{name: "add_card/top_of_complete", caller: readWrite, call: step{"add_card", `{"path":"` + board + `","column":"erledigt","text":"Domain umgezogen","position":1,"change_summary":"war schon erledigt"}`}},
	{name: "add_card/err_missing_column", caller: readWrite, call: step{"add_card", `{"path":"` + board + `","column":"Ideen","text":"x","change_summary":"x"}`}},
	{name: "add_card/err_multiline", caller: readWrite, call: step{"add_card", `{"path":"` + board + `","column":"Backlog","text":"zwei\nZeilen","change_summary":"x"}`}},
	{name: "add_card/err_permission", caller: readOnly, call: step{"add_card", `{"path":"` + board + `","column":"Backlog","text":"x","change_summary":"x"}`}},

	// upload_attachment, list_attachments
	{name: "upload_attachment/ok", caller: readWrite, call: step{"upload_attachment", `{"name":"Grundriss.png","content_base64":"$PNG","change_summary":"Grundriss vom Architekten"}`}},
	{name: "upload_attachment/embed_renamed", caller: readWrite,
		before: []step{{"upload_attachment", `{"name":"Grundriss.png","content_base64":"$PNG","change_summary":"erste Fassung"}`}},
		call:   step{"upload_attachment", `{"name":"Grundriss.png","content_base64":"$PNG","note":"1_Projekte/Hausbau Lindenweg.md","heading":"Ziele","change_summary":"zweite Fassung"}`},
		check:  fileContains("1_Projekte/Hausbau Lindenweg.md", "![[Grundriss 1.png]]")},
	{name: "upload_attachment/next_to_note", caller: readWrite, setup: removeFile(".obsidian/app.json"),
		call: step{"upload_attachment", `{"name":"Grundriss.png","content_base64":"$PNG","note":"1_Projekte/Hausbau Lindenweg.md","change_summary":"Grundriss"}`}},
	{name: "upload_attachment/rule_folder", caller: readWrite, setup: func(t *testing.T, dir string) {
		removeFile(".obsidian/app.json")(t, dir)
		writeFile(t, dir, "9_System/Anhänge.md", "---\nattachments: 3_Ressourcen/Dateien\n---\nDateien gehören nach 3_Ressourcen/Dateien.\n")
	}, call: step{"upload_attachment", `{"name":"Grundriss.png","content_base64":"$PNG","change_summary":"Grundriss"}`}},
	{name: "upload_attachment/err_type", caller: readWrite, call: step{"upload_attachment", `{"name":"setup.exe","content_base64":"$TEXT","change_summary":"x"}`}},
	{name: "upload_attachment/err_content", caller: readWrite, call: step{"upload_attachment", `{"name":"Foto.png","content_base64":"$TEXT","change_summary":"x"}`}},
	{name: "upload_attachment/err_size", caller: readWrite, call: step{"upload_attachment", `{"name":"Vertrag.pdf","content_base64":"$BIG","change_summary":"x"}`}},
	{name: "upload_attachment/err_bad_base64", caller: readWrite, call: step{"upload_attachment", `{"name":"Foto.png","content_base64":"kein base64!","change_summary":"x"}`}},
	{name: "upload_attachment/err_folder_in_name", caller: readWrite, call: step{"upload_attachment", `{"name":"Bilder/Foto.png","content_base64":"$PNG","change_summary":"x"}`}},
	{name: "upload_attachment/err_note_not_found", caller: readWrite, call: step{"upload_attachment", `{"name":"Foto.png","content_base64":"$PNG","note":"1_Projekte/Hausbau.md","change_summary":"x"}`}},
	{name: "upload_attachment/err_note_protected", caller: readWrite, call: step{"upload_attachment", `{"name":"Foto.png","content_base64":"$PNG","note":"4_Archiv/Gartenhaus Bau 2025.md","change_summary":"x"}`}},
	{name: "upload_attachment/err_permission", caller: readOnly, call: step{"upload_attachment", `{"name":"Foto.png","content_base64":"$PNG","change_summary":"x"}`}},
	{name: "list_attachments/ok", caller: readOnly, call: step{"list_attachments", `{}`}},
	{name: "list_attachments/unused", caller: readOnly, setup: func(t *testing.T, dir string) {
		png, _ := base64.StdEncoding.DecodeString(appPayloads["$PNG"])
		writeFile(t, dir, "3_Ressourcen/Anhänge/Grundriss.png", string(png))
	}, call: step{"list_attachments", `{"unused":true}`}},
	{name: "list_attachments/empty_folder", caller: readOnly, call: step{"list_attachments", `{"folder":"2_Bereiche"}`}},
	{name: "list_attachments/err_missing_folder", caller: readOnly, call: step{"list_attachments", `{"folder":"3_Resourcen"}`}},
	{name: "list_attachments/err_bad_argument", caller: readOnly, call: step{"list_attachments", `{"unused":"ja"}`}},
}

// withPayloads puts the test payloads into arguments.
func withPayloads(args string) string {
	for k, v := range appPayloads {
		args = strings.ReplaceAll(args, k, v)
	}
	return args
}

// withoutPayloads turns payloads in a shown call back into their names.
func withoutPayloads(s string) string {
	for k, v := range appPayloads {
		s = strings.ReplaceAll(s, v, k)
	}
	return s
}

// TestGoldenNotesApp runs every notes-app tool, success and each error,
// through the same golden and contract checks as TestGolden.
func TestGoldenNotesApp(t *testing.T) {
	for _, tc := range appCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyExampleVault(t)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			c := newTestCore(t, dir)
			var versionBefore []byte
			if tc.versionOf != "" {
				versionBefore, _ = os.ReadFile(filepath.Join(dir, tc.versionOf))
			}
			for _, s := range tc.before {
				s.args = withPayloads(s.args)
				if r, _ := runStep(t, c, everyone, s, dir, tc.versionOf); r.Err != nil {
					t.Fatalf("setup %s failed:\n%s", s.tool, r.Text)
				}
			}
			call := tc.call
			if versionBefore != nil {
				call.args = strings.ReplaceAll(call.args, "$VERSION", note.ShortVersion(note.Version(versionBefore)))
			}
			shownArgs := call.args
			call.args = withPayloads(call.args)
			r, _ := runStep(t, c, tc.caller, call, dir, "")
			got := renderGolden(call.tool+" "+shownArgs, r, dir)
			checkContract(t, tc.caller, step{call.tool, withoutPayloads(call.args)}, r, dir)
			compareGolden(t, filepath.Join("testdata", "golden", tc.name+".golden"), withoutPayloads(got))
			if tc.check != nil {
				tc.check(t, dir)
			}
			followSuggestions(t, c, tc.caller, r)
		})
	}
}
