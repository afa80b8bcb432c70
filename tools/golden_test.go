package tools

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixedNow is the clock of every golden test.
var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// copyExampleVault copies the repository's example-vault into a temp dir
// and pins every file's mtime (to a time derived from its path, so that
// "recently changed" is stable).
func copyExampleVault(t testing.TB) string {
	t.Helper()
	src := filepath.Join("..", "example-vault")
	dst := filepath.Join(t.TempDir(), "vault")
	var files []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".vaultd" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, rel)
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for i, rel := range files {
		mt := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * 37 * time.Minute)
		if err := os.Chtimes(filepath.Join(dst, rel), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func newTestCore(t testing.TB, dir string) *Core {
	t.Helper()
	c, _ := newTestCoreIndex(t, dir)
	return c
}

// newTestCoreIndex is newTestCore with its index, for a test that makes
// the index take in a change at once (Rescan).
func newTestCoreIndex(t testing.TB, dir string) (*Core, *index.Index) {
	t.Helper()
	v, err := vault.Open(dir, vault.Options{StateDir: filepath.Join(t.TempDir(), "state"), NoSync: true, Actor: "test", Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	idx, err := index.Open(v, index.Options{Dir: filepath.Join(t.TempDir(), "index"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	if err := idx.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	c, err := NewCore(v, CoreOptions{Now: func() time.Time { return fixedNow }, Index: idx})
	if err != nil {
		t.Fatal(err)
	}
	return c, idx
}

var (
	readOnly  = Caller{Actor: "agent", Perms: Perms{Read: true}}
	readWrite = Caller{Actor: "agent", Perms: Perms{Read: true, Write: true}}
	everyone  = Caller{Actor: "agent", Perms: AllPerms}
)

type step struct {
	tool string
	args string // JSON object
}

type goldenCase struct {
	name   string
	caller Caller
	before []step // run first, results not recorded
	call   step
	// versionOf fills "$VERSION" in args with the current version of this note.
	versionOf string
	// outside are notes another program (Obsidian, git) writes after
	// vaultd opened the vault, before the steps: path → text.
	outside map[string]string
}

// goldenCases is every tool, success and each error. Reviewers read the
// golden files in testdata/golden exactly as an agent reads them.
var goldenCases = []goldenCase{
	{name: "overview", caller: readOnly, call: step{"vault_overview", `{}`}},
	{name: "search_notes/inflected", caller: readOnly, call: step{"search_notes", `{"query":"Krankenhäuser","limit":3}`}},
	{name: "search_notes/compound", caller: readOnly, call: step{"search_notes", `{"query":"häuser","limit":5}`}},
	{name: "search_notes/filter_space", caller: readOnly, call: step{"search_notes", `{"query":"Zeitleiste","space":"4_Archiv","limit":2}`}},
	{name: "search_notes/phrase_exclude", caller: readOnly, call: step{"search_notes", `{"query":"\"Wartungsfenster\" -Glossar","limit":3}`}},
	{name: "search_notes/english", caller: readOnly, call: step{"search_notes", `{"query":"linking","limit":3}`}},
	{name: "search_notes/property_filter", caller: readOnly, call: step{"search_notes", `{"query":"status=geplant","limit":3}`}},
	{name: "search_notes/empty", caller: readOnly, call: step{"search_notes", `{"query":"Raumschiff","space":"1_Projekte"}`}},
	{name: "search_notes/err_bad_query", caller: readOnly, call: step{"search_notes", `{"query":"\"offen"}`}},
	{name: "search_notes/in_note", caller: readOnly, call: step{"search_notes", `{"query":"Krankenhäuser","path":"1_Projekte/Klinikverbund Nord.md","limit":2}`}},
	{name: "search_notes/in_note_last_page", caller: readOnly, call: step{"search_notes", `{"query":"Krankenhäuser","path":"1_Projekte/Klinikverbund Nord.md","limit":2,"offset":4}`}},
	{name: "search_notes/in_note_no_match", caller: readOnly, call: step{"search_notes", `{"query":"Gewächshaus","path":"1_Projekte/Klinikverbund Nord.md"}`}},
	{name: "search_notes/err_path_missing", caller: readOnly, call: step{"search_notes", `{"query":"Budget","path":"1_Projekte/Klinikverbund.md"}`}},
	{name: "search_notes/did_you_mean", caller: readOnly, call: step{"search_notes", `{"query":"Gewächshuas"}`}},
	{name: "search_notes/did_you_mean_relaxed", caller: readOnly, call: step{"search_notes", `{"query":"Zeitleiste Kanzlei Brant","limit":2}`}},
	// One note has every word: the page goes on with notes that have
	// some of them, said once before the first; the next page has those
	// alone.
	{name: "search_notes/some_words", caller: readOnly, call: step{"search_notes", `{"query":"Backup Nextcloud Kunde","limit":3}`}},
	{name: "search_notes/some_words_next_page", caller: readOnly, call: step{"search_notes", `{"query":"Backup Nextcloud Kunde","limit":2,"offset":2}`}},
	{name: "search_notes/homograph", caller: readOnly, call: step{"search_notes", `{"query":"IT Kundenzugänge","limit":2}`}},
	// A command's option ranks but is not required: "-m" need not occur.
	{name: "search_notes/option", caller: readOnly, call: step{"search_notes", `{"query":"git commit -m","limit":2}`}},
	// A #tag no note has, among other words (a pasted title): a word that
	// ranks, not a filter that finds nothing.
	{name: "search_notes/tag_as_word", caller: readOnly, call: step{"search_notes", `{"query":"Backup Nextcloud #1234","limit":2}`}},
	// A filter naming no tag, space or folder of the vault: which, the
	// nearest, the search with it and without the filter.
	{name: "search_notes/err_unknown_tag", caller: readOnly, call: step{"search_notes", `{"query":"Backup","tag":"kundee"}`}},
	{name: "search_notes/err_unknown_space_typed", caller: readOnly, call: step{"search_notes", `{"query":"Zeitleiste space:Archiv","limit":2}`}},
	{name: "search_notes/question", caller: readOnly, call: step{"search_notes", `{"query":"Wie viele Häuser gibt es im Lindenweg?","limit":2}`}},
	{name: "search_notes/after_write", caller: readWrite,
		before: []step{{"append_to_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","content":"Quokka-Besuch im Zoo geplant.","change_summary":"Notiz"}`}},
		call:   step{"search_notes", `{"query":"Quokka"}`}},
	// A note's embeds are named with kind and size, and the call that
	// shows one (a wikilink embed and a relative markdown embed).
	{name: "read_note/with_attachments", caller: readOnly, call: step{"read_note", `{"path":"1_Projekte/Website-Relaunch/Technik.md","heading":"Technik"}`}},
	{name: "search_notes/with_attachments", caller: readOnly, call: step{"search_notes", `{"query":"Angebot CDN Frankfurt","limit":1}`}},
	{name: "get_backlinks/ok", caller: readOnly, call: step{"get_backlinks", `{"path":"Jonas Keller"}`}},
	{name: "get_backlinks/err_missing", caller: readOnly, call: step{"get_backlinks", `{"path":"2_Bereiche/Team/Jonas.md"}`}},
	{name: "list_trash/empty", caller: readOnly, call: step{"list_trash", `{}`}},
	{name: "list_trash/after_delete", caller: everyone, versionOf: "0_Inbox/Notiz 2026-11-18.md",
		before: []step{{"delete_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","change_summary":"erledigt","expected_version":"$VERSION"}`}},
		call:   step{"list_trash", `{}`}},
	{name: "restore_note/ok", caller: readWrite, versionOf: "0_Inbox/Notiz 2026-11-18.md",
		before: []step{{"delete_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","change_summary":"erledigt","expected_version":"$VERSION"}`}},
		call:   step{"restore_note", `{"trash_path":".trash/0_Inbox/Notiz 2026-11-18.md","change_summary":"doch noch gebraucht"}`}},
	{name: "restore_note/err_missing", caller: readWrite, call: step{"restore_note", `{"trash_path":".trash/0_Inbox/Gibtsnicht.md","change_summary":"zurück"}`}},
	{name: "read_note/by_path", caller: readOnly, call: step{"read_note", `{"path":"1_Projekte/Website-Relaunch.md"}`}},
	{name: "read_note/by_title", caller: readOnly, call: step{"read_note", `{"path":"Begriffe und Abkürzungen"}`}},
	{name: "read_note/by_alias", caller: readOnly, call: step{"read_note", `{"path":"KVN"}`}},
	{name: "read_note/by_wikilink_heading", caller: readOnly, call: step{"read_note", `{"path":"[[Website-Relaunch#Zeitleiste]]"}`}},
	{name: "read_note/section", caller: readOnly, call: step{"read_note", `{"path":"2_Bereiche/Jahresplanung.md","heading":"Projekte > Ziele"}`}},
	{name: "read_note/section_level", caller: readOnly, call: step{"read_note", `{"path":"2_Bereiche/Team/Besprechungsprotokoll.md","heading":"## Zeitleiste"}`}},
	{name: "read_note/long_outline", caller: readOnly, call: step{"read_note", `{"path":"3_Ressourcen/IT-Handbuch.md"}`}},
	{name: "read_note/err_missing_note", caller: readOnly, call: step{"read_note", `{"path":"1_Projekte/Website-Relaunch/Plan.md"}`}},
	{name: "read_note/err_missing_folder", caller: readOnly, call: step{"read_note", `{"path":"1_Projekt/Website-Relaunch.md"}`}},
	{name: "read_note/err_ambiguous_heading", caller: readOnly, call: step{"read_note", `{"path":"2_Bereiche/Jahresplanung.md","heading":"Ziele"}`}},
	{name: "read_note/err_missing_heading", caller: readOnly, call: step{"read_note", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Zeitleist"}`}},
	{name: "read_note/err_empty_path", caller: readOnly, call: step{"read_note", `{"path":""}`}},
	{name: "read_note/err_bad_argument", caller: readOnly, call: step{"read_note", `{"path":42}`}},
	{name: "read_note/err_traversal", caller: readOnly, call: step{"read_note", `{"path":"../secret.md"}`}},
	{name: "read_note/err_ambiguous_name", caller: readOnly,
		before: []step{{"create_note", `{"path":"3_Ressourcen/Ziele.md","content":"---\ntags: [ziele]\n---\n# Ziele\n","change_summary":"zweite Ziele-Notiz"}`}},
		call:   step{"read_note", `{"path":"Ziele"}`}},
	{name: "read_note/err_folder", caller: readOnly, call: step{"read_note", `{"path":"1_Projekte/"}`}},
	{name: "read_note/err_unknown_argument", caller: readOnly, call: step{"read_note", `{"note":"1_Projekte/Website-Relaunch.md"}`}},
	{name: "read_note/err_offset_past_end", caller: readOnly, call: step{"read_note", `{"path":"1_Projekte/Website-Relaunch.md","offset":50000}`}},
	{name: "read_note/section_neighbours", caller: readOnly, call: step{"read_note", `{"path":"3_Ressourcen/IT-Handbuch.md","heading":"Netzwerk im Büro > WLAN"}`}},
	{name: "read_note/heading_prefix", caller: readOnly, call: step{"read_note", `{"path":"3_Ressourcen/IT-Handbuch.md","heading":"Monitore"}`}},
	{name: "append_to_note/by_title", caller: readWrite, call: step{"append_to_note", `{"path":"Begriffe und Abkürzungen","content":"- **SLA**: Service Level Agreement","change_summary":"Begriff ergänzt"}`}},
	{name: "append_to_note/err_ambiguous_name", caller: readWrite,
		before: []step{{"create_note", `{"path":"3_Ressourcen/Ziele.md","content":"---\ntags: [ziele]\n---\n# Ziele\n","change_summary":"zweite Ziele-Notiz"}`}},
		call:   step{"append_to_note", `{"path":"Ziele","content":"- mehr","change_summary":"Ziel ergänzt"}`}},
	{name: "append_to_note/err_unknown_argument", caller: readWrite, call: step{"append_to_note", `{"note":"0_Inbox/Notiz 2026-11-18.md","text":"Noch ein Gedanke.","change_summary":"Gedanke"}`}},
	{name: "list_notes/root", caller: readOnly, call: step{"list_notes", `{}`}},
	{name: "list_notes/folder", caller: readOnly, call: step{"list_notes", `{"folder":"1_Projekte"}`}},
	{name: "list_notes/changed_paged", caller: readOnly, call: step{"list_notes", `{"sort":"changed","limit":3}`}},
	{name: "list_notes/err_missing_folder", caller: readOnly, call: step{"list_notes", `{"folder":"1_Projekt"}`}},
	{name: "list_notes/err_bad_sort", caller: readOnly, call: step{"list_notes", `{"folder":"1_Projekte","sort":"size"}`}},
	{name: "create_note/ok", caller: readWrite, call: step{"create_note", `{"path":"0_Inbox/Neue Idee.md","content":"---\ntags: [idee]\n---\n# Neue Idee\n\nText.\n","change_summary":"Idee festgehalten"}`}},
	{name: "create_note/inbox_rule", caller: readWrite, call: step{"create_note", `{"path":"Schnellnotiz","content":"---\ntags: [inbox]\n---\nKurz notiert.\n","change_summary":"Schnellnotiz"}`}},
	{name: "create_note/err_exists", caller: readWrite, call: step{"create_note", `{"path":"1_Projekte/Website-Relaunch.md","content":"x","change_summary":"neu"}`}},
	{name: "create_note/err_rule_required", caller: readWrite, call: step{"create_note", `{"path":"0_Inbox/Ohne Tags.md","content":"# Ohne Tags\n","change_summary":"neu"}`}},
	{name: "create_note/err_rule_protected", caller: readWrite, call: step{"create_note", `{"path":"4_Archiv/Neu.md","content":"---\ntags: [x]\n---\n","change_summary":"neu"}`}},
	{name: "create_note/err_no_summary", caller: readWrite, call: step{"create_note", `{"path":"0_Inbox/X.md","content":"---\ntags: [x]\n---\n"}`}},
	{name: "create_note/template", caller: readWrite, call: step{"create_note", `{"path":"1_Projekte/Gartenteich.md","template":"Projektvorlage","change_summary":"neues Projekt aus der Vorlage"}`}},
	{name: "create_note/template_and_content", caller: readWrite, call: step{"create_note", `{"path":"1_Projekte/Carport.md","template":"projektvorlage","content":"---\nstatus: aktiv\nkunde: privat\n---\nAngebot von Holzbau Meier liegt vor.\n","change_summary":"Carport als Projekt"}`}},
	{name: "create_note/err_template_unknown", caller: readWrite, call: step{"create_note", `{"path":"1_Projekte/Carport.md","template":"Projekt","change_summary":"Carport als Projekt"}`}},
	{name: "create_note/err_template_hidden", caller: readWrite, call: step{"create_note", `{"path":"0_Inbox/X.md","template":".obsidian/app.json","change_summary":"neu"}`}},
	{name: "create_note/err_no_content", caller: readWrite, call: step{"create_note", `{"path":"0_Inbox/X.md","change_summary":"neu"}`}},
	{name: "open_daily_note/today_created", caller: readWrite, call: step{"open_daily_note", `{}`}},
	{name: "open_daily_note/exists", caller: readWrite, call: step{"open_daily_note", `{"date":"2026-11-27"}`}},
	{name: "open_daily_note/yesterday_again", caller: readWrite, before: []step{{"open_daily_note", `{"date":"yesterday"}`}}, call: step{"open_daily_note", `{"date":"gestern"}`}},
	{name: "open_daily_note/err_week", caller: readWrite, call: step{"open_daily_note", `{"period":"week"}`}},
	{name: "open_daily_note/err_date", caller: readWrite, call: step{"open_daily_note", `{"date":"nächsten Montag"}`}},
	{name: "open_daily_note/err_period", caller: readWrite, call: step{"open_daily_note", `{"period":"decade"}`}},
	{name: "open_daily_note/err_permission", caller: readOnly, call: step{"open_daily_note", `{}`}},
	{name: "create_note/err_permission", caller: readOnly, call: step{"create_note", `{"path":"0_Inbox/X.md","content":"x","change_summary":"neu"}`}},
	{name: "append_to_note/end", caller: readWrite, call: step{"append_to_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","content":"Noch ein Gedanke.","change_summary":"Gedanke ergänzt"}`}},
	{name: "append_to_note/heading", caller: readWrite, call: step{"append_to_note", `{"path":"2_Bereiche/Team/Besprechungsprotokoll.md","heading":"Zeitleiste","content":"- 2026-11-29: Retro vereinbart","change_summary":"Retro-Termin ergänzt"}`}},
	{name: "append_to_note/err_heading_in_text", caller: readWrite, call: step{"append_to_note", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Ziele","content":"Neues Ziel\n---","change_summary":"Ziel ergänzt"}`}},
	{name: "append_to_note/err_ambiguous", caller: readWrite, call: step{"append_to_note", `{"path":"2_Bereiche/Jahresplanung.md","heading":"Ziele","content":"- mehr","change_summary":"Ziel ergänzt"}`}},
	{name: "append_to_note/err_protected", caller: readWrite, call: step{"append_to_note", `{"path":"9_System/Schreibstil.md","content":"- mehr","change_summary":"Regel ergänzt"}`}},
	{name: "update_section/ok", caller: readWrite, versionOf: "1_Projekte/Website-Relaunch.md", call: step{"update_section", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Ziele","content":"- Neue Website bis Dezember\n- Ladezeit unter 2 s","change_summary":"Ziele gestrafft","expected_version":"$VERSION"}`}},
	{name: "update_section/err_missing_heading", caller: readWrite, call: step{"update_section", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Budgetplanung","content":"x","change_summary":"x"}`}},
	{name: "update_section/err_conflict", caller: readWrite, versionOf: "1_Projekte/Website-Relaunch.md",
		before: []step{{"update_section", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Ziele","content":"- von jemand anderem","change_summary":"parallel geändert"}`}},
		call:   step{"update_section", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Ziele","content":"- meins","change_summary":"Ziele","expected_version":"$VERSION"}`}},
	{name: "replace_note/ok", caller: readWrite, versionOf: "0_Inbox/Notiz 2026-11-18.md", call: step{"replace_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","content":"# Telefonat Petersen (Klinikverbund), 18.11., 14:30\n\n- Lieferung der neuen Switches verschiebt sich auf KW 49\n- Wartungsfenster im Krankenhaus Wiesental nur sonntags 6–10 Uhr\n- Raumliste für Haus C kommt bis Freitag\n- Rechnungsadresse ab Januar: Bahnhofstrasse 40\n\n#todo #kunde/klinikverbund\n","change_summary":"neu gefasst","expected_version":"$VERSION"}`}},
	// Removing most of a note counts as a delete (issue 10 item 7): refused
	// without the delete right, counted with it.
	{name: "replace_note/err_removes_most", caller: readWrite, versionOf: "0_Inbox/Notiz 2026-11-18.md", call: step{"replace_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","content":"# Notiz\n\nNeu gefasst.\n","change_summary":"neu gefasst","expected_version":"$VERSION"}`}},
	{name: "replace_note/removes_most", caller: everyone, versionOf: "0_Inbox/Notiz 2026-11-18.md", call: step{"replace_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","content":"","change_summary":"geleert","expected_version":"$VERSION"}`}},
	{name: "update_section/err_removes_most", caller: readWrite, versionOf: "2_Bereiche/Team/Besprechungsprotokoll.md", call: step{"update_section", `{"path":"2_Bereiche/Team/Besprechungsprotokoll.md","heading":"Besprechungsprotokoll Team Nordlicht","content":"kurz","change_summary":"gekürzt","expected_version":"$VERSION"}`}},
	{name: "replace_note/err_conflict", caller: readWrite, call: step{"replace_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","content":"x","change_summary":"neu","expected_version":"000000000000"}`}},
	{name: "replace_note/err_no_version", caller: readWrite, call: step{"replace_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","content":"x","change_summary":"neu"}`}},
	{name: "delete_note/ok", caller: everyone, versionOf: "0_Inbox/Notiz 2026-11-18.md", call: step{"delete_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","change_summary":"erledigt","expected_version":"$VERSION"}`}},
	{name: "delete_note/err_permission", caller: readWrite, call: step{"delete_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","change_summary":"erledigt","expected_version":"000000000000"}`}},
	{name: "delete_note/err_protected", caller: everyone, versionOf: "4_Archiv/Gartenhaus Bau 2025.md", call: step{"delete_note", `{"path":"4_Archiv/Gartenhaus Bau 2025.md","change_summary":"alt","expected_version":"$VERSION"}`}},
}

func runStep(t *testing.T, c *Core, caller Caller, s step, dir, versionOf string) (*Result, string) {
	t.Helper()
	args := s.args
	if versionOf != "" {
		b, err := os.ReadFile(filepath.Join(dir, versionOf))
		if err != nil {
			t.Fatal(err)
		}
		args = strings.ReplaceAll(args, "$VERSION", note.ShortVersion(note.Version(b)))
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatalf("bad args %s: %v", args, err)
	}
	return c.Call(context.Background(), caller, s.tool, m), s.tool + " " + args
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyExampleVault(t)
			c := newTestCore(t, dir)
			var versionBefore []byte
			if tc.versionOf != "" {
				versionBefore, _ = os.ReadFile(filepath.Join(dir, tc.versionOf))
			}
			for _, s := range tc.before {
				if r, _ := runStep(t, c, everyone, s, dir, tc.versionOf); r.Err != nil {
					t.Fatalf("setup %s failed:\n%s", s.tool, r.Text)
				}
			}
			call := tc.call
			if versionBefore != nil {
				call.args = strings.ReplaceAll(call.args, "$VERSION", note.ShortVersion(note.Version(versionBefore)))
			}
			checkGoldenCall(t, c, tc.caller, call, dir, "", tc.name)
		})
	}
}

// renderGolden shows text and structured content side by side.
func renderGolden(call string, r *Result, dir string) string {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(r.Data)
	data := strings.TrimSuffix(buf.String(), "\n")
	s := fmt.Sprintf("call: %s\nisError: %v\n--- text ---\n%s\n--- structured ---\n%s\n", call, r.IsError(), r.Text, data)
	s = strings.ReplaceAll(s, dir, "$VAULT")
	return changeID.ReplaceAllString(s, "$$CHANGE_ID")
}

// changeID matches history ids, which carry the wall clock.
var changeID = regexp.MustCompile(`\d{8}T\d{6}\.\d+Z-[0-9a-f]+`)

// checkGoldenCall runs one call and checks its answer: against the
// golden file testdata/golden/name.golden, the agent contract, and every
// call it suggests, followed as printed.
func checkGoldenCall(t *testing.T, c *Core, caller Caller, call step, dir, versionOf, name string) {
	t.Helper()
	r, shown := runStep(t, c, caller, call, dir, versionOf)
	got := renderGolden(shown, r, dir)
	checkContract(t, caller, call, r, dir)
	followSuggestions(t, c, caller, r)
	compareGolden(t, filepath.Join("testdata", "golden", name+".golden"), got)
}

func compareGolden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("missing golden file (run go test ./tools -run %s -update): %v", t.Name(), err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file; got:\n%s", file, got)
	}
}

var (
	// Unfilled templates and Go internals must never reach an agent.
	forbidden = []string{"%s", "%!", "<nil>", "{{", `""`, "%v", "%d", "*vault.", "*note.", "*errors.", "goroutine "}
	nextCall  = regexp.MustCompile(`(?m)^(?:next|more|next page|read it back|undo|restore one|or read one section|open a sub-folder|open a section|more outline|previous section|next section|parent section|more sections|did you mean|try|resolve|resolve all): ([a-z_]+) (\{.*\})$`)
)

// checkContract checks AGENT-CONTRACT rules mechanically on one result.
func checkContract(t *testing.T, caller Caller, failed step, r *Result, dir string) {
	t.Helper()
	text := r.Text
	outside := stripFences(text)
	// Rule 10: no unfilled templates, no host paths.
	for _, f := range forbidden {
		if strings.Contains(outside, f) {
			t.Errorf("text contains %q:\n%s", f, text)
		}
	}
	if dir != "" && strings.Contains(text, dir) {
		t.Errorf("text contains the host path %s", dir)
	}
	// Rule 8: failures are isError results that say so.
	if r.IsError() && !strings.HasPrefix(text, "error: ") {
		t.Errorf("error text does not start with \"error: \":\n%s", text)
	}
	// Rule 1: every structured value appears in the text.
	for _, v := range leaves(r.Data) {
		if !strings.Contains(text, v) && !strings.Contains(text, groupedNumber(v)) && !strings.Contains(text, jsonEscaped(v)) {
			t.Errorf("structured value %q does not appear in the text:\n%s", v, text)
		}
	}
	// Rule 2: every note mentioned carries path, title, version and space,
	// in the structured content and in the text.
	checkNoteRefs(t, r, outside)
	// Rule 10: an error never suggests the call that failed.
	if r.IsError() {
		var failedArgs map[string]any
		_ = json.Unmarshal([]byte(failed.args), &failedArgs)
		for _, m := range nextCall.FindAllStringSubmatch(outside, -1) {
			var args map[string]any
			if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
				t.Errorf("suggested call %s has invalid JSON: %v", m[0], err)
				continue
			}
			if m[1] == failed.tool && fmt.Sprint(args) == fmt.Sprint(failedArgs) {
				t.Errorf("error suggests the same call that failed: %s", m[0])
			}
		}
	}
	// Suggested calls name tools that exist.
	for _, m := range nextCall.FindAllStringSubmatch(outside, -1) {
		known := false
		for _, n := range AllToolNames() {
			known = known || n == m[1]
		}
		if !known && !futureTools[m[1]] {
			t.Errorf("suggested call names unknown tool %q", m[1])
		}
	}
}

// jsonEscaped is v as it appears inside a JSON string: a suggested call's
// arguments ("§ 9 Zahl \\*)" for the heading "§ 9 Zahl \*)").
func jsonEscaped(v string) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(v)
	return strings.Trim(strings.TrimSpace(b.String()), `"`)
}

// pathExceptions are the keys of structured content whose values may name
// a note path (ending in .md) without being a full note reference — each with the
// reason. Every other .md value must be the "path" of an object that also
// has "title", "version" and "space" (AGENT-CONTRACT rule 2).
var pathExceptions = map[string]string{
	// Paths where no note is (any more, or yet).
	"from":          "a moved note's or file's origin: no note is there any more",
	"previous_path": "where a note was before a move or restore: no note is there now",
	"path_then":     "where a note was when a change was made, before it moved",
	"original_path": "where a note now in the trash was; it is not in the vault",
	"trash_path":    "a file in the trash, not a note of the vault; restore_note takes it",
	"template":      "the template a note was made from, named for the record; the note made is under \"note\"",
	"free_name":     "a suggested name that no note has yet",
	"to":            "a move's target as the call named it; the moved note's block is under \"note\"",
	// Choices an error or a move offers, by path only (rules 9 and 11).
	"closest":     "an error's candidates (rule 9): at most 5 paths, nearest first, to choose from",
	"candidates":  "ambiguity candidates (rule 11): every one, listed in full, to choose from",
	"rule_source": "the rules note a denial cites; the error's next call reads it",
	"pending":     "files a failed move left as they were, for the owner to check by hand",
	"sub_notes":   "a refused delete's sub-notes (at most 10), by path; its next call lists them in full",
	// A Bases view answers a compact table, one row per file with its path
	// (issue 34: 50 rows must fit one answer); read_note on a row's path
	// gives the note's block.
	"rows": "a Bases view's rows: a table of paths and cells; the text's \"read a row\" call reads one",
	"base": "the base a view comes from, as query_base takes it: a .base file, or the note holding ```base blocks",
	// Prose and the vault's own text: sentences that may end in a path.
	"detail": "prose: what a change did", "note_detail": "prose: what a change did",
	"summary": "prose: the caller's change summary", "change_summary": "prose: the caller's change summary",
	"context": "the vault's text: the line of a link", "snippet": "the vault's text", "content": "the vault's text",
	"text": "the vault's text: a card", "card": "the vault's text: a card", "column_now": "the vault's text: cards",
	"link": "the vault's text: a link as written", "reason": "prose: why a link was left", "message": "prose",
	"value": "the vault's text: a property", "old": "the vault's text: a property", "new": "the vault's text: a property",
	"query": "the caller's search words", "rules": "the vault's rules, summarised",
	"folder_from": "prose: where the attachment folder setting comes from",
}

// textPathKeys are the "… path:" lines of a text that name a path where
// no note is, for the reasons of the matching pathExceptions.
var textPathKeys = map[string]bool{"previous path": true, "path then": true, "original path": true, "trash path": true}

// noteKeys are the "key: value" lines that would name notes in passing.
var noteKeys = map[string]bool{"note": true, "notes": true, "file": true, "files": true}

var (
	// keyLine is a "key: value" line (after its indent and list marker).
	keyLine = regexp.MustCompile(`^([a-z][a-z ]*): (.*)$`)
	// barePath is a list item that starts with a note path.
	barePath = regexp.MustCompile(`^([^:{}"()*]*?\.md)(?:$|[ :,→])`)
	mdPath   = regexp.MustCompile(`\.md(?:$|[ :,)→])`)
)

// checkNoteRefs checks AGENT-CONTRACT rule 2 on one result:
//   - in the structured content, every object whose "path" names a note has
//     "title", "version" and "space", and every other string naming a note
//     sits under a key of pathExceptions;
//   - in the text, each such note's four lines appear together, one per
//     line; every "path:" line is followed by title, version and space; no
//     "note:" line names a note without its block; and, outside errors
//     (rule 9 lists candidates by path), no list item is a bare note path.
func checkNoteRefs(t *testing.T, r *Result, outside string) {
	t.Helper()
	for _, p := range noteRefProblems(r, outside) {
		t.Errorf("%s\n%s", p, r.Text)
	}
}

// noteRefProblems lists the violations of rule 2 that checkNoteRefs reports.
func noteRefProblems(r *Result, outside string) []string {
	var problems []string
	errorf := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	b, _ := json.Marshal(r.Data)
	var x any
	_ = json.Unmarshal(b, &x)
	var refs []map[string]any
	var walk func(key string, x any)
	walk = func(key string, x any) {
		switch v := x.(type) {
		case map[string]any:
			if p, ok := v["path"].(string); ok && isNotePath(p) && pathExceptions[key] == "" {
				missing := []string{}
				for _, k := range []string{"title", "version", "space"} {
					if _, ok := v[k]; !ok {
						missing = append(missing, k)
					}
				}
				if len(missing) > 0 {
					errorf("structured note %q (under %q) has no %s", p, key, strings.Join(missing, ", "))
				} else {
					refs = append(refs, v)
				}
			}
			for _, k := range sortedKeys(v) {
				if k == "path" {
					continue
				}
				walk(k, v[k])
			}
		case []any:
			for _, e := range v {
				walk(key, e)
			}
		case string:
			if isNotePath(v) && pathExceptions[key] == "" {
				errorf("structured value %q under %q names a note without its path, title, version and space (or add the key to pathExceptions, with the reason)", v, key)
			}
		}
	}
	walk("", x)

	// The text: one "key: value" per line, list markers and indents aside.
	var lines []string
	for _, l := range strings.Split(outside, "\n") {
		lines = append(lines, strings.TrimPrefix(strings.TrimSpace(l), "- "))
	}
	norm := "\n" + strings.Join(lines, "\n") + "\n"
	for _, ref := range refs {
		space, _ := ref["space"].(string)
		if space == "" {
			space = spaceText("")
		}
		block := fmt.Sprintf("\npath: %v\ntitle: %v\nversion: %v\nspace: %v\n", ref["path"], ref["title"], ref["version"], space)
		if !strings.Contains(norm, block) {
			errorf("the text lacks the block of structured note %q:%s", ref["path"], block)
		}
	}
	raw := strings.Split(outside, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "path: ") {
			if i+3 >= len(lines) || !strings.HasPrefix(lines[i+1], "title: ") ||
				!strings.HasPrefix(lines[i+2], "version: ") || !strings.HasPrefix(lines[i+3], "space: ") {
				errorf("note %q is not followed by title, version and space lines", l)
			}
			continue
		}
		if m := keyLine.FindStringSubmatch(l); m != nil {
			if (noteKeys[m[1]] || strings.HasSuffix(m[1], "path") && !textPathKeys[m[1]]) && mdPath.MatchString(m[2]) {
				errorf("line %q names a note without its block (path, title, version, space lines)", l)
			}
			continue
		}
		if !r.IsError() && strings.HasPrefix(strings.TrimSpace(raw[i]), "- ") && barePath.MatchString(l) {
			errorf("list item %q is a bare note path; give each note its block", l)
		}
	}
	return problems
}

// isNotePath reports whether a structured value names a note.
func isNotePath(s string) bool {
	return strings.HasSuffix(strings.ToLower(s), ".md") && !strings.Contains(s, "\n")
}

// futureTools are tools suggested by the text that other issues add.
var futureTools = map[string]bool{"note_history": true}

// stripFences removes fenced note content: it is the vault's text, not ours.
func stripFences(s string) string {
	var b strings.Builder
	in := ""
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if in == "" && strings.HasPrefix(t, "```") {
			in = strings.TrimRight(t[:strings.LastIndex(t, "`")+1], "m")
			in = t[:len(t)-len(strings.TrimLeft(t, "`"))]
			continue
		}
		if in != "" {
			if t == in {
				in = ""
			}
			continue
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// leaves lists every string and number in structured content.
func leaves(v any) []string {
	b, _ := json.Marshal(v)
	var x any
	_ = json.Unmarshal(b, &x)
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for _, k := range sortedKeys(t) {
				walk(t[k])
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		case string:
			if t != "" {
				out = append(out, t)
			}
		case float64:
			out = append(out, fmt.Sprint(t))
		}
	}
	walk(x)
	return out
}

func groupedNumber(s string) string {
	var n int
	if _, err := fmt.Sscan(s, &n); err == nil && fmt.Sprint(n) == s {
		return groupDigits(n)
	}
	return s
}

// TestContract_NoteRefs checks the rule-2 checker itself: each defect it
// must catch, and the exceptions it must let pass.
func TestContract_NoteRefs(t *testing.T) {
	ref := NoteRef{Path: "1_Projekte/A.md", Title: "A", Version: "0123456789ab", Space: "1_Projekte"}
	block := "path: 1_Projekte/A.md\ntitle: A\nversion: 0123456789ab\nspace: 1_Projekte\n"
	for _, tc := range []struct {
		name string
		r    Result
		want string // part of a problem expected; "" for none
	}{
		{"block", Result{Text: block, Data: map[string]any{"note": ref}}, ""},
		{"listed block", Result{Text: "moved:\n- " + strings.ReplaceAll(block, "\n", "\n  "), Data: map[string]any{"moved": []any{ref}}}, ""},
		{"structured path without title", Result{Text: "path: 1_Projekte/A.md\n", Data: map[string]any{"path": "1_Projekte/A.md", "version": "x"}}, "has no title, space"},
		{"structured bare note", Result{Text: "note: 1_Projekte/A.md", Data: map[string]any{"note": "1_Projekte/A.md"}}, `under "note"`},
		{"structured exception", Result{Text: "previous path: 1_Projekte/A.md", Data: map[string]any{"previous_path": "1_Projekte/A.md"}}, ""},
		{"text lacks the block", Result{Text: "path: 1_Projekte/A.md\ntitle: A\nversion: 0123456789ab\nspace: 2_Bereiche\n", Data: map[string]any{"note": ref}}, "lacks the block"},
		{"path line without block", Result{Text: "path: 1_Projekte/A.md\nversion: 1\n"}, "not followed by title"},
		{"note line", Result{Text: "note: 1_Projekte/A.md (gone)\n"}, "names a note without its block"},
		{"files line", Result{Text: "files: 1_Projekte/A.md, 1_Projekte/B.md\n"}, "names a note without its block"},
		{"bare list item", Result{Text: "links updated in 1 note:\n- 1_Projekte/A.md: 1 link\n"}, "bare note path"},
		{"error candidates", Result{Text: "error: no such note\nclosest notes:\n- 1_Projekte/A.md\n", Err: note.ErrNotFound}, ""},
		{"prose bullet", Result{Text: "rules:\n- Keine Tabellen (read 9_System/Regeln.md for the rest)\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := noteRefProblems(&tc.r, stripFences(tc.r.Text))
			found := false
			for _, p := range got {
				found = found || strings.Contains(p, tc.want)
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("text %q, data %v: got problems %q, want none", tc.r.Text, tc.r.Data, got)
			case tc.want != "" && !found:
				t.Errorf("text %q, data %v: got problems %q, want one with %q", tc.r.Text, tc.r.Data, got, tc.want)
			}
		})
	}
}

// TestGolden_StateDirUnavailable: a write that cannot keep the note's texts
// (the state dir is full or broken) changes nothing and says so.
func TestGolden_StateDirUnavailable(t *testing.T) {
	dir := copyExampleVault(t)
	c := newTestCore(t, dir)
	objects := filepath.Join(c.v.StateDir(), "objects")
	if err := os.RemoveAll(objects); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(objects, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "0_Inbox/Notiz 2026-11-18.md"))
	call := step{"append_to_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","content":"Noch ein Gedanke.","change_summary":"Gedanke ergänzt"}`}
	r, shown := runStep(t, c, readWrite, call, dir, "")
	if !r.IsError() {
		t.Fatalf("the write succeeded:\n%s", r.Text)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "0_Inbox/Notiz 2026-11-18.md")); string(after) != string(before) {
		t.Errorf("the refused write changed the note")
	}
	checkContract(t, readWrite, call, r, dir)
	compareGolden(t, filepath.Join("testdata", "golden", "errors", "state_dir_unavailable.golden"), renderGolden(shown, r, dir))
}

// TestGolden_Busy: the answer to a write refused because another program is
// saving the note.
func TestGolden_Busy(t *testing.T) {
	dir := copyExampleVault(t)
	c := newTestCore(t, dir)
	p := "0_Inbox/Notiz 2026-11-18.md"
	err := &note.Error{Op: "append", Path: p, Kind: vault.ErrBusy,
		Msg: "the note is being saved by another program right now (it kept changing for 3 seconds); nothing was changed. Retry in a few seconds"}
	r := c.fail(readWrite, failure{tool: "append_to_note", path: p, args: []arg{{"path", p}}}, err)
	call := step{"append_to_note", `{"path":"0_Inbox/Notiz 2026-11-18.md","content":"x","change_summary":"x"}`}
	checkContract(t, readWrite, call, r, dir)
	compareGolden(t, filepath.Join("testdata", "golden", "errors", "busy.golden"), renderGolden("append_to_note (while an editor saves)", r, dir))
}

// TestGolden_OverviewInterruptedMove: a move whose process was killed after
// its plan (the note not yet moved, no link updated) is finished at the
// next start, and vault_overview says so for a week.
func TestGolden_OverviewInterruptedMove(t *testing.T) {
	dir := copyExampleVault(t)
	c := newTestCore(t, dir)
	from, to := "2_Bereiche/Team/Jonas Keller.md", "2_Bereiche/Personen/Jonas Keller.md"
	plan := map[string]any{"event": "plan", "id": "20261129T110000.000000Z-abcdef", "time": fixedNow.Add(-time.Hour),
		"op": "move", "actor": "mcp:claude-code", "summary": "Personen gesammelt", "from": from, "to": to,
		"steps": []map[string]any{{"op": "rename", "from": from, "to": to}}}
	line, _ := json.Marshal(plan)
	if err := os.WriteFile(filepath.Join(c.v.StateDir(), "groups.jsonl"), append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := c.v.Recover()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Interrupted) != 1 || len(rep.Interrupted[0].Pending) != 0 {
		t.Fatalf("Recover: %+v", rep.Interrupted)
	}
	if _, err := os.Stat(filepath.Join(dir, to)); err != nil {
		t.Fatalf("the move was not finished: %v", err)
	}
	call := step{"vault_overview", `{}`}
	r, shown := runStep(t, c, readOnly, call, dir, "")
	checkContract(t, readOnly, call, r, dir)
	got := renderGolden(shown, r, dir)
	if !strings.Contains(r.Text, "interrupted by a crash") {
		t.Errorf("the overview does not say a move was interrupted:\n%s", r.Text)
	}
	compareGolden(t, filepath.Join("testdata", "golden", "overview_interrupted.golden"), got)
}

// followSuggestions follows every call r suggests, exactly as printed
// (AGENT-CONTRACT rule 18): each names a tool the caller may use, carries
// no placeholder, and either succeeds or fails with another error than r's
// — it never loops back. Reads are followed first; a write suggested after
// a success (undo, restore) last.
func followSuggestions(t *testing.T, c *Core, caller Caller, r *Result) {
	t.Helper()
	var reads, writes [][]string
	for _, m := range nextCall.FindAllStringSubmatch(stripFences(r.Text), -1) {
		if toolPerm(m[1]) == "read" {
			reads = append(reads, m)
		} else {
			writes = append(writes, m)
		}
	}
	firstLine := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	for _, m := range append(reads, writes...) {
		if strings.Contains(m[2], "…") {
			t.Errorf("suggested call carries placeholder content: %s", m[0])
			continue
		}
		perm := toolPerm(m[1])
		if perm == "" {
			continue // checkContract reports unknown tools
		}
		if !allowed(caller.Perms, perm) {
			t.Errorf("suggested call needs the %s right, which the caller lacks: %s", perm, m[0])
			continue
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
			t.Errorf("suggested call %s has invalid JSON: %v", m[0], err)
			continue
		}
		got := c.Call(context.Background(), caller, m[1], args)
		if got.IsError() && r.IsError() && firstLine(got.Text) == firstLine(r.Text) {
			t.Errorf("following %q gives the same error again:\n%s", m[0], got.Text)
		} else if got.IsError() && !r.IsError() {
			t.Errorf("following %q after a success fails:\n%s", m[0], got.Text)
		}
	}
}
