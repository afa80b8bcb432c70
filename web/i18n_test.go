package web

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/vault"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// texts.json is the list of every text the page can show, in both
// languages: the golden of the page's owner-facing words (reviewed like
// code), and the dictionary the browser test checks every view against
// (e2e/browser/page.mjs).
func TestTexts_Golden(t *testing.T) {
	b, err := json.MarshalIndent(map[string]map[string]string{"en": en.msgs, "de": de.msgs}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	golden := filepath.Join("testdata", "texts.json")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./web -run TestTexts_Golden -update)", err)
	}
	if string(want) != string(b) {
		t.Errorf("the page's texts differ from %s; review the change and run go test ./web -run TestTexts_Golden -update", golden)
	}
}

var verbRE = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// Both languages have every text, with the same verbs in the same order.
func TestTexts_BothLanguages(t *testing.T) {
	for k, e := range en.msgs {
		d, ok := de.msgs[k]
		if !ok {
			t.Errorf("%s has no German text (English: %q)", k, e)
			continue
		}
		if ve, vd := verbRE.FindAllString(e, -1), verbRE.FindAllString(d, -1); !slices.Equal(ve, vd) {
			t.Errorf("%s: the English text has the verbs %v, the German %v", k, ve, vd)
		}
		if strings.TrimSpace(d) == "" || strings.TrimSpace(e) == "" {
			t.Errorf("%s is empty in a language", k)
		}
	}
	for k, d := range de.msgs {
		if _, ok := en.msgs[k]; !ok {
			t.Errorf("%s has no English text (German: %q)", k, d)
		}
	}
}

// words are the words that mark a text as English or German
// (testdata/words.json, shared with the browser test).
func words(t *testing.T) (enWords, deWords map[string]bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "words.json"))
	if err != nil {
		t.Fatal(err)
	}
	var w map[string]json.RawMessage
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	set := func(raw json.RawMessage) map[string]bool {
		var l []string
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for _, x := range l {
			m[x] = true
		}
		return m
	}
	return set(w["en"]), set(w["de"])
}

// tokenRE finds the words of a text; wordish skips what is not prose:
// identifiers (append_to_note, 9_System, claude.ai), flags and verbs.
var tokenRE = regexp.MustCompile(`[\p{L}\p{N}_./:%@-]+`)

func proseWords(s string) []string {
	var out []string
	for _, w := range tokenRE.FindAllString(s, -1) {
		w = strings.Trim(w, ".:-/")
		if w == "" || strings.ContainsAny(w, "_/%@:0123456789") || strings.Contains(w, ".") || strings.HasPrefix(w, "-") {
			continue
		}
		out = append(out, strings.ToLower(w))
	}
	return out
}

// No text holds a word of the other language.
func TestTexts_NoWordOfTheOtherLanguage(t *testing.T) {
	enWords, deWords := words(t)
	for k, s := range de.msgs {
		for _, w := range proseWords(s) {
			if enWords[w] {
				t.Errorf("%s: the German text has the English word %q: %q", k, w, s)
			}
		}
	}
	for k, s := range en.msgs {
		for _, w := range proseWords(s) {
			if deWords[w] {
				t.Errorf("%s: the English text has the German word %q: %q", k, w, s)
			}
		}
	}
}

// keyRE finds the texts the templates and the code ask for by name.
var keyRE = regexp.MustCompile(`(?:L\.T|\.T\(|l\.html\() ?"([a-z_.0-9]+)"`)

// Every text the page asks for by name exists, and so does every text it
// composes: an operation's words, a state, a refusal's reason.
func TestTexts_EveryKeyExists(t *testing.T) {
	files, _ := filepath.Glob("templates/*.html")
	gos, _ := filepath.Glob("*.go")
	for _, f := range append(files, gos...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range keyRE.FindAllStringSubmatch(string(b), -1) {
			k := m[1]
			if strings.HasSuffix(k, ".") || strings.HasSuffix(k, "_") {
				continue // a prefix, composed below
			}
			if _, ok := en.msgs[k]; !ok {
				t.Errorf("%s asks for %q, which has no text", f, k)
			}
		}
	}
	var composed []string
	for _, op := range ops {
		composed = append(composed, "op."+op)
	}
	for _, s := range []string{"healthy", "building", "merging", "degraded", "unhealthy", "none"} {
		composed = append(composed, "health.state."+s)
	}
	for _, s := range []string{"rule", "permission", "rate_limit"} {
		composed = append(composed, "health.kind."+s)
	}
	for _, s := range []string{"not_signed_in", "cross_site", "bad_form", "not_found"} {
		composed = append(composed, "refused."+s)
	}
	for _, s := range []string{"replace", "delete", "restore", "create", "move", "other"} {
		composed = append(composed, "undo.done_"+s)
	}
	for _, s := range []string{"before", "after"} {
		composed = append(composed, "note.restored_"+s, "sum.restored_text_"+s)
	}
	for _, p := range periods[1:] {
		composed = append(composed, "period."+p)
	}
	for _, r := range summaryRules {
		if !strings.HasSuffix(r.key, "~") && !strings.HasSuffix(r.key, "_") {
			composed = append(composed, r.key)
		}
	}
	for _, k := range append(composed, "error.link_invalid", "sum.undo", "who.owner", "who.cli", "who.trial", "who.outside", "who.stdio", "who.key", "who.oauth", "who.via") {
		for _, l := range []*lang{en, de} {
			if _, ok := l.msgs[k]; !ok {
				t.Errorf("%s has no %s text", k, l.Code)
			}
		}
	}
}

// The history's actors, operations and vaultd's own summaries, said for
// people in both languages.
func TestWords_WhoOpSummary(t *testing.T) {
	for _, c := range []struct{ actor, en, de string }{
		{"key:laptop", "key ‘laptop’", "Schlüssel ‚laptop‘"},
		{"key:laptop:claude-code", "Claude Code via key ‘laptop’", "Claude Code über Schlüssel ‚laptop‘"},
		{"oauth:phone:cursor-vscode", "Cursor via connection ‘phone’", "Cursor über Verbindung ‚phone‘"},
		{"mcp:claude-code", "Claude Code", "Claude Code"},
		{"mcp:codex-mcp-client", "Codex", "Codex"},
		{"mcp:my-own-bot", "my-own-bot", "my-own-bot"},
		{"mcp", "an agent (started by its client)", "ein Agent (von seinem Client gestartet)"},
		{"cli", "you (command line)", "du (Kommandozeile)"},
		{"owner", "you (on this page)", "du (auf dieser Seite)"},
		{vault.OutsideActor, "outside vaultd (Obsidian, git, an editor)", "außerhalb von vaultd (Obsidian, git, ein Editor)"},
		{"external", "outside vaultd (Obsidian, git, an editor)", "außerhalb von vaultd (Obsidian, git, ein Editor)"},
		{"test", "test", "test"},
	} {
		if got := en.WhoText(c.actor); got != c.en {
			t.Errorf("en: Who(%q) = %q, want %q", c.actor, got, c.en)
		}
		if got := de.WhoText(c.actor); got != c.de {
			t.Errorf("de: Who(%q) = %q, want %q", c.actor, got, c.de)
		}
	}
	// Names the owner gave are marked as not to be translated, and escaped.
	if got := string(en.Who("key:<b>")); got != `key ‘<span translate="no">&lt;b&gt;</span>’` {
		t.Errorf("Who(key:<b>) = %q", got)
	}
	if en.Op("update_section") != "section edited" || de.Op("update_section") != "Abschnitt geändert" || de.Op("frobnicate") != "geändert" {
		t.Errorf("Op: %q %q %q", en.Op("update_section"), de.Op("update_section"), de.Op("frobnicate"))
	}
	for _, c := range []struct {
		in, en, de string
		ours       bool
	}{
		{"undo of change 20261205T081000-ab12: added a book", "undone: added a book", "rückgängig gemacht: added a book", false},
		{"undo of change 1: undo of change 2: restored from the trash on the owner's page", "undone: undone: restored from the trash on this page", "rückgängig gemacht: rückgängig gemacht: auf dieser Seite aus dem Papierkorb wiederhergestellt", true},
		{"restored version 0123456789ab on the owner's page", "an earlier text restored on this page", "auf dieser Seite einen früheren Text wiederhergestellt", true},
		{"restored the text as it was before a change on the owner's page", "the text as it was before a change, restored on this page", "auf dieser Seite den Text von vor einer Änderung wiederhergestellt", true},
		{"part of the move of 1_Projekte/Alt (change 20261205T0810-x)", "part of a larger change (moved: 1_Projekte/Alt)", "Teil einer größeren Änderung (verschoben: 1_Projekte/Alt)", true},
		{"changed outside vaultd since its last recorded change", "found changed outside vaultd", "außerhalb von vaultd geändert vorgefunden", true},
	} {
		if got, ours := en.Summary(c.in); ours != c.ours || got != c.en {
			t.Errorf("en: Summary(%q) = %q %v, want %q %v", c.in, got, ours, c.en, c.ours)
		}
		if got, ours := de.Summary(c.in); ours != c.ours || got != c.de {
			t.Errorf("de: Summary(%q) = %q %v, want %q %v", c.in, got, ours, c.de, c.ours)
		}
	}
	// What someone wrote inside vaultd's summary stays marked as theirs.
	if got := string(de.SummaryHTML("undo of change 1: added a book")); got != `rückgängig gemacht: <span translate="no">added a book</span>` {
		t.Errorf("de: SummaryHTML of an undo = %q", got)
	}
	if got := theirsOf("undo of change 1: undo of change 2: added a book"); got != "added a book" {
		t.Errorf("theirsOf = %q", got)
	}
	// Someone's own summary is theirs: not translated, marked so.
	if got, ok := de.Summary("added a book for the winter"); ok || got != "added a book for the winter" {
		t.Errorf("de: an agent's summary came back as %q %v", got, ok)
	}
	if got := string(de.SummaryHTML("added a book")); got != `<span translate="no">added a book</span>` {
		t.Errorf("SummaryHTML = %q", got)
	}
	// An unknown detail of the core is not shown in German.
	if got := de.Detail("something the core wrote"); got != "" {
		t.Errorf("de: Detail of an unknown text = %q, want none", got)
	}
	// Days and times.
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		t      time.Time
		en, de string
	}{
		{now.Add(-time.Hour), "Today", "Heute"},
		{now.Add(-11 * time.Hour), "Yesterday", "Gestern"},
		{now.Add(-72 * time.Hour), "2 December 2026", "2. Dezember 2026"},
	} {
		if got := en.Day(c.t, now); got != c.en {
			t.Errorf("en: Day(%v) = %q, want %q", c.t, got, c.en)
		}
		if got := de.Day(c.t, now); got != c.de {
			t.Errorf("de: Day(%v) = %q, want %q", c.t, got, c.de)
		}
	}
	if got := string(de.Time(now)); got != `<time datetime="2026-12-05T10:00:00Z" title="5. Dezember 2026, 10:00:00 UTC">10:00 UTC</time>` {
		t.Errorf("de: Time = %s", got)
	}
}

// parseSince reads what the core lists as the changes made since.
func TestParseSince(t *testing.T) {
	c, ok := parseSince("20261205T081000-ab12 2026-12-05 08:10 by key:laptop:claude-code: append 0_Inbox/Buchtipps.md — another book")
	if !ok || c != (sinceChange{ID: "20261205T081000-ab12", Actor: "key:laptop:claude-code", Op: "append", Path: "0_Inbox/Buchtipps.md", Summary: "another book"}) {
		t.Errorf("parseSince: %+v %v", c, ok)
	}
	if _, ok := parseSince("nonsense"); ok {
		t.Error("parseSince took nonsense")
	}
}

// The footer's switch keeps the owner's language over the browser's, and
// goes back to the page it was on (this page only).
func TestLanguage_Switch(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	get := func(path string, cookies []*http.Cookie, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest("GET", f.base+path, nil)
		req.AddCookie(&http.Cookie{Name: CookieName, Value: f.cookie})
		for _, c := range cookies {
			req.AddCookie(c)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := get("/lang?to=de", nil, map[string]string{"Referer": f.base + "/trash?offset=0"})
	resp.Body.Close()
	var lc *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == LangCookie {
			lc = c
		}
	}
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/trash?offset=0" || lc == nil || lc.Value != "de" || !lc.HttpOnly {
		t.Fatalf("GET /lang?to=de: %d to %q, cookie %+v; want 303 back to /trash?offset=0 with %s=de", resp.StatusCode, resp.Header.Get("Location"), lc, LangCookie)
	}
	resp = get("/trash", []*http.Cookie{lc}, map[string]string{"Accept-Language": "en-US,en"})
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `<html lang="de">`) || !strings.Contains(string(b), "<h1>Papierkorb</h1>") {
		t.Errorf("the picked German loses to the browser's English:\n%.600s", b)
	}
	// Another site's address is never where the switch sends the browser.
	resp = get("/lang?to=en", nil, map[string]string{"Referer": "https://evil.example/x"})
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); loc != "/" {
		t.Errorf("GET /lang with a foreign Referer goes to %q, want /", loc)
	}
}
