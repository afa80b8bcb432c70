package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// threeVaults serves the example vault as "work", a private vault and a
// team vault; "Steuer 2026" is only in privat, "Zugangsdaten" in privat
// and team, and "Garten" is a word in work and privat.
func threeVaults(t *testing.T) *Vaults {
	t.Helper()
	privat := writeNotes(t, map[string]string{
		"Finanzen/Steuer 2026.md":  "# Steuer 2026\n\n## Belege\n\nQuittungen für den Garten und das Gewächshaus sammeln.\n",
		"Zugangsdaten.md":          "# Zugangsdaten\n\nNichts Geheimes hier.\n",
		"Reisen/Sommer Ostsee.md":  "# Sommer Ostsee\n\nFerienwohnung in Zingst.\n",
		"9_System/Regeln.md":       "# Regeln\n\nAgenten dürfen lesen.\n",
		"Garten/Beete.md":          "# Beete\n\nGartenplanung für Tomaten.\n",
		"Finanzen/Versicherung.md": "# Versicherung\n\nHausrat und Haftpflicht.\n",
	})
	team := writeNotes(t, map[string]string{
		"Zugangsdaten.md":             "# Zugangsdaten\n\nWiki-Zugang des Teams.\n",
		"Onboarding/Erste Woche.md":   "# Erste Woche\n\n## Ablauf\n\nLaptop abholen, Konten anlegen.\n",
		"Onboarding/Checkliste.md":    "# Checkliste\n\n- [ ] Schlüssel\n",
		"Protokolle/2026-12-01.md":    "# Protokoll 2026-12-01\n\nRelaunch der Website besprochen.\n",
		"Protokolle/2026-11-24.md":    "# Protokoll 2026-11-24\n\nBudget geklärt.\n",
		"Projekte/Kundenportal.md":    "# Kundenportal\n\nLogin für Kunden.\n",
		"Projekte/Serverumzug.md":     "# Serverumzug\n\nRechenzentrum wechseln.\n",
		"Projekte/Datenschutz FAQ.md": "# Datenschutz FAQ\n\nDSGVO-Fragen der Kunden.\n",
	})
	// Fixed modification times, as the example vault's copy has them.
	for i, dir := range []string{privat, team} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			mt := fixedNow.Add(-time.Duration(i*10+len(rel)%7) * time.Hour)
			return os.Chtimes(p, mt, mt)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	vs, err := NewVaults([]string{"work", "privat", "team"},
		[]*Core{newTestCore(t, copyExampleVault(t)), newTestCore(t, privat), newTestCore(t, team)})
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

var anyCall = regexp.MustCompile(`(?m)(?:^|: |- )([a-z_]+) (\{.*\})$`)

// followAll follows every call r suggests, as printed, through vs: each
// parses, names a vault the caller may see (or none), and does not fail
// with r's own error again.
func followAll(t *testing.T, vs *Vaults, caller Caller, r *Result) {
	t.Helper()
	firstLine := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	for _, m := range anyCall.FindAllStringSubmatch(r.Text, -1) {
		if strings.Contains(m[2], "…") || toolPerm(m[1]) != "read" {
			continue
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
			t.Errorf("suggested call %s has invalid JSON: %v", m[0], err)
			continue
		}
		got := vs.Call(context.Background(), caller, m[1], args)
		if got.IsError() && firstLine(got.Text) == firstLine(r.Text) {
			t.Errorf("following %q gives the same error again:\n%s", m[0], got.Text)
		}
		if got.IsError() && !r.IsError() {
			t.Errorf("following %q after a success fails:\n%s", m[0], got.Text)
		}
	}
}

func call0(t *testing.T, vs *Vaults, caller Caller, tool, args string) *Result {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	return vs.Call(context.Background(), caller, tool, m)
}

func TestVaults_OneVaultIsUnchanged(t *testing.T) {
	c := newTestCore(t, copyExampleVault(t))
	vs := SingleVault(c)
	for _, s := range []step{{"vault_overview", `{}`}, {"search_notes", `{"query": "Zeitleiste"}`}, {"read_note", `{"path": "Website-Relaunch"}`}, {"read_note", `{"path": "Webseite"}`}} {
		var m map[string]any
		_ = json.Unmarshal([]byte(s.args), &m)
		want := c.Call(context.Background(), everyone, s.tool, m)
		got := vs.Call(context.Background(), everyone, s.tool, m)
		if got.Text != want.Text {
			t.Errorf("%s %s through one vault's Vaults:\n%s\nwant the core's own answer:\n%s", s.tool, s.args, got.Text, want.Text)
		}
	}
	if r := call0(t, vs, everyone, "read_note", `{"vault": "work", "path": "Website-Relaunch"}`); !r.IsError() || !strings.Contains(r.Text, `no argument "vault"`) {
		t.Errorf("one vault takes no vault argument:\n%s", r.Text)
	}
}

func TestVaults_Addressing(t *testing.T) {
	vs := threeVaults(t)
	for _, tc := range []struct{ tool, args, want string }{
		{"read_note", `{"vault": "privat", "path": "Finanzen/Steuer 2026.md"}`, "vault: privat\n"},
		{"read_note", `{"path": "privat:Finanzen/Steuer 2026.md"}`, "vault: privat\n"},
		{"read_note", `{"path": "PRIVAT:Steuer 2026"}`, "vault: privat\n"},
		{"read_note", `{"path": "Steuer 2026"}`, "vault: privat\n"}, // only privat has it
		{"read_note", `{"path": "Website-Relaunch"}`, "vault: work\n"},
		{"list_notes", `{"folder": "Onboarding"}`, "vault: team\n"},
		{"get_backlinks", `{"path": "work:1_Projekte/Website-Relaunch.md"}`, "vault: work\n"},
		{"read_note", `{"path": "[[team:Onboarding/Erste Woche#Ablauf]]"}`, "vault: team\n"},
		{"read_note", `{"path": "obsidian://open?vault=team&file=Onboarding%2FErste%20Woche"}`, "vault: team\n"},
	} {
		r := call0(t, vs, everyone, tc.tool, tc.args)
		if r.IsError() || !strings.HasPrefix(r.Text, tc.want) {
			t.Errorf("%s %s:\n%s\nwant it to start with %q", tc.tool, tc.args, r.Text, tc.want)
			continue
		}
		// Every call the answer suggests names the vault.
		for _, m := range anyCall.FindAllStringSubmatch(r.Text, -1) {
			if !strings.Contains(m[2], `"vault": "`+strings.TrimSuffix(strings.TrimPrefix(tc.want, "vault: "), "\n")+`"`) {
				t.Errorf("%s %s suggests a call without its vault: %s", tc.tool, tc.args, m[0])
			}
		}
		followAll(t, vs, everyone, r)
	}
}

// An Obsidian link to another vault names it by its folder's name, as
// Obsidian names vaults.
func TestVaults_ObsidianLinkByFolderName(t *testing.T) {
	vs := threeVaults(t)
	folder := filepath.Base(vs.Core("privat").v.Dir())
	link := "obsidian://open?vault=" + url.QueryEscape(folder) + "&file=" + url.QueryEscape("Finanzen/Steuer 2026")
	r := vs.Call(context.Background(), everyone, "read_note", map[string]any{"path": link})
	if r.IsError() || !strings.HasPrefix(r.Text, "vault: privat\n") {
		t.Errorf("read_note %s:\n%s", link, r.Text)
	}
}

func TestVaults_ErrorsNameBothLevels(t *testing.T) {
	vs := threeVaults(t)
	for _, tc := range []struct {
		name, tool, args string
		want             []string
	}{
		{"wrong vault", "read_note", `{"vault": "privatt", "path": "Steuer 2026"}`,
			[]string{`error: vault "privatt": there is no such vault`, "vaults: work, privat, team", `read_note {"vault": "privat", "path": "Steuer 2026"}`}},
		{"note in another vault", "read_note", `{"vault": "work", "path": "Steuer 2026"}`,
			[]string{"vault: work\n", "error code: not_found", `vault privat has "Steuer 2026": read_note {"vault": "privat", "path": "Steuer 2026"}`}},
		{"a name in two vaults", "read_note", `{"path": "Zugangsdaten"}`,
			[]string{`"Zugangsdaten" is in 2 vaults (privat, team)`, `read_note {"vault": "privat", "path": "Zugangsdaten"}`, `read_note {"vault": "team", "path": "Zugangsdaten"}`}},
		{"a name in no vault", "read_note", `{"path": "Onbording/Erste Wohce"}`,
			[]string{"is in none of the 3 vaults (work, privat, team)", `- team: read_note {"vault": "team", "path": "Onboarding/Erste Woche.md"}`}},
		{"a path naming no vault", "read_note", `{"path": "tem:Onboarding/Erste Woche.md"}`,
			[]string{`error: vault "tem": there is no such vault`, `read_note {"vault": "team", "path": "Onboarding/Erste Woche.md"}`}},
		{"a daily note needs its vault", "open_daily_note", `{}`,
			[]string{"open_daily_note needs a vault", `open_daily_note {"vault": "team"}`}},
		{"a move between vaults", "move_note", `{"path": "privat:Zugangsdaten.md", "to": "team:Alt/", "change_summary": "x"}`,
			[]string{"move_note moves within one vault"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call0(t, vs, everyone, tc.tool, tc.args)
			if !r.IsError() {
				t.Fatalf("%s %s succeeded:\n%s", tc.tool, tc.args, r.Text)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("%s %s:\n%s\nwant %q", tc.tool, tc.args, r.Text, w)
				}
			}
			followAll(t, vs, everyone, r)
		})
	}
}

func TestVaults_SearchAcrossVaults(t *testing.T) {
	vs := threeVaults(t)
	r := call0(t, vs, readOnly, "search_notes", `{"query": "Garten"}`)
	if r.IsError() {
		t.Fatal(r.Text)
	}
	d := r.Data.(SearchData)
	in := map[string]bool{}
	for _, h := range d.Hits {
		if h.Vault == "" {
			t.Errorf("hit %s names no vault", h.Path)
		}
		in[h.Vault] = true
	}
	if !in["work"] || !in["privat"] || in["team"] {
		t.Errorf("search for Garten found hits in %v, want work and privat:\n%s", in, r.Text)
	}
	if !strings.HasPrefix(r.Text, "searched 3 vaults: work, privat, team\n") {
		t.Errorf("the answer does not say what it searched:\n%s", r.Text)
	}
	for _, m := range anyCall.FindAllStringSubmatch(r.Text, -1) {
		if m[1] == "read_note" && !strings.Contains(m[2], `"vault": "`) {
			t.Errorf("a hit's call names no vault: %s", m[0])
		}
	}
	followAll(t, vs, readOnly, r)

	// Pages of the merged ranking neither repeat nor skip a hit.
	all := call0(t, vs, readOnly, "search_notes", `{"query": "Garten", "limit": 50}`).Data.(SearchData).Hits
	var paged []string
	for off := 0; off < len(all); off += 3 {
		p := call0(t, vs, readOnly, "search_notes", `{"query": "Garten", "limit": 3, "offset": `+itoa(off)+`}`).Data.(SearchData)
		for _, h := range p.Hits {
			paged = append(paged, h.Vault+":"+h.Path)
		}
	}
	var whole []string
	for _, h := range all {
		whole = append(whole, h.Vault+":"+h.Path)
	}
	if strings.Join(paged, "|") != strings.Join(whole, "|") {
		t.Errorf("pages of 3:\n%v\nthe one page of 50:\n%v", paged, whole)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestVaults_RightsPerVault(t *testing.T) {
	vs := threeVaults(t)
	teamOnly := Caller{Actor: "key:anna", Perms: Perms{Read: true, Write: true}, Vaults: map[string]Perms{"team": {Read: true, Write: true}}}
	readPrivat := Caller{Actor: "key:ben", Perms: Perms{Read: true, Write: true},
		Vaults: map[string]Perms{"privat": {Read: true}, "team": {Read: true, Write: true}}}
	// What the key may not see shows nowhere but where the call itself
	// named it.
	hidden := func(r *Result, asked string, names ...string) {
		t.Helper()
		for _, n := range names {
			if strings.Contains(r.Text, n) && !strings.Contains(asked, n) {
				t.Errorf("the answer shows %q, which the key may not see:\n%s", n, r.Text)
			}
		}
	}
	for _, s := range []step{
		{"vault_overview", `{}`},
		{"search_notes", `{"query": "Zugangsdaten"}`},
		{"search_notes", `{"query": "Garten"}`},
		{"read_note", `{"path": "Zugangsdaten"}`},
		{"read_note", `{"vault": "privat", "path": "Steuer 2026"}`},
		{"read_note", `{"path": "privat:Steuer 2026"}`},
		{"read_note", `{"path": "Steuer 2026"}`},
		{"recent_changes", `{}`},
		{"list_tags", `{}`},
	} {
		r := call0(t, vs, teamOnly, s.tool, s.args)
		hidden(r, s.args, "privat", "work", "Steuer", "Website-Relaunch", "Garten")
	}
	if r := call0(t, vs, teamOnly, "read_note", `{"path": "Zugangsdaten"}`); r.IsError() || !strings.Contains(r.Text, "Wiki-Zugang") {
		t.Errorf("the team key reads the team's Zugangsdaten:\n%s", r.Text)
	}
	// Read-only in privat: its writes are refused, the team's go through.
	r := call0(t, vs, readPrivat, "append_to_note", `{"path": "privat:Zugangsdaten.md", "content": "x", "change_summary": "x"}`)
	if !r.IsError() || !strings.Contains(r.Text, "permission") {
		t.Errorf("a write to the read-only vault:\n%s", r.Text)
	}
	r = call0(t, vs, readPrivat, "append_to_note", `{"path": "team:Zugangsdaten.md", "content": "x", "change_summary": "x"}`)
	if r.IsError() {
		t.Errorf("a write to the writable vault:\n%s", r.Text)
	}
}

// TestGolden_Vaults holds the texts an agent reads from a server of
// several vaults: the vaults' overview, a search across them, a read in
// one, and each error that names both levels (a wrong vault, a note in
// another vault, a name in two, a name in none, a call that needs a
// vault, a move between vaults), and what a key limited to one vault
// sees of them.
func TestGolden_Vaults(t *testing.T) {
	vs := threeVaults(t)
	teamOnly := Caller{Actor: "key:anna", Perms: Perms{Read: true}, Vaults: map[string]Perms{"team": {Read: true}}}
	cases := []struct {
		name   string
		caller Caller
		call   step
	}{
		{"overview", everyone, step{"vault_overview", `{}`}},
		{"search_across", everyone, step{"search_notes", `{"query": "Zugangsdaten Wiki"}`}},
		{"read_prefixed", everyone, step{"read_note", `{"path": "team:Onboarding/Erste Woche.md"}`}},
		{"wrong_vault", everyone, step{"read_note", `{"vault": "tem", "path": "Erste Woche"}`}},
		{"note_in_other_vault", everyone, step{"read_note", `{"vault": "work", "path": "Steuer 2026"}`}},
		{"name_in_two", everyone, step{"read_note", `{"path": "Zugangsdaten"}`}},
		{"name_in_none", everyone, step{"read_note", `{"path": "Onbording/Erste Wohce"}`}},
		{"needs_vault", everyone, step{"create_note", `{"path": "Idee.md", "content": "# Idee\n", "change_summary": "notiert"}`}},
		{"move_between", everyone, step{"move_note", `{"path": "privat:Zugangsdaten.md", "to": "team:Alt/", "change_summary": "umgezogen"}`}},
		{"key_overview", teamOnly, step{"vault_overview", `{}`}},
		{"key_other_vault", teamOnly, step{"read_note", `{"vault": "privat", "path": "Steuer 2026"}`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := call0(t, vs, tc.caller, tc.call.tool, tc.call.args)
			got := renderGolden(tc.call.tool+" "+tc.call.args, r, "/no-host-dir")
			compareGolden(t, filepath.Join("testdata", "golden", "vaults_"+tc.name+".golden"), got)
			followAll(t, vs, tc.caller, r)
		})
	}
}

// TestVaults_RankingComparable splits the example vault into three vaults
// by its spaces and asks every section heading (225 of them) of every
// note, once of the whole vault and once across the three: the merged
// ranking must put a heading's note first as often as the whole vault
// does, and the same note on top for nine questions in ten (each index
// weighs words by its own vault, so a few ties fall the other way).
func TestVaults_RankingComparable(t *testing.T) {
	whole := copyExampleVault(t)
	parts := map[string][]string{"work": {"0_Inbox", "1_Projekte"}, "privat": {"2_Bereiche"}, "team": {"3_Ressourcen", "4_Archiv", "9_System"}}
	var names []string
	var cores []*Core
	for _, n := range []string{"work", "privat", "team"} {
		dir := t.TempDir()
		for _, sp := range parts[n] {
			if err := os.CopyFS(filepath.Join(dir, sp), os.DirFS(filepath.Join(whole, sp))); err != nil {
				t.Fatal(err)
			}
		}
		names, cores = append(names, n), append(cores, newTestCore(t, dir))
	}
	vs, err := NewVaults(names, cores)
	if err != nil {
		t.Fatal(err)
	}
	one := newTestCore(t, whole)
	notes, _ := one.v.Notes()
	same, firstOne, firstMerged, n := 0, 0, 0, 0
	var qs []string
	for _, nt := range notes {
		for _, h := range nt.Doc.Headings {
			if h.Level > 1 && len(strings.Fields(h.Text)) >= 1 {
				qs = append(qs, nt.Path+"\x00"+h.Text)
			}
		}
	}
	for _, q := range qs {
		path, text, _ := strings.Cut(q, "\x00")
		nt := struct{ Path, Title string }{path, text}
		n++
		r1 := one.Call(context.Background(), everyone, "search_notes", map[string]any{"query": nt.Title})
		r3 := vs.Call(context.Background(), everyone, "search_notes", map[string]any{"query": nt.Title})
		d1, ok1 := r1.Data.(SearchData)
		d3, ok3 := r3.Data.(SearchData)
		top1, top3 := "", ""
		if ok1 && len(d1.Hits) > 0 {
			top1 = d1.Hits[0].Path
		}
		if ok3 && len(d3.Hits) > 0 {
			top3 = d3.Hits[0].Path
		}
		if top1 == nt.Path {
			firstOne++
		}
		if top3 == nt.Path {
			firstMerged++
		}
		if top1 == top3 {
			same++
		}
	}
	t.Logf("%d headings: their note first in the whole vault %d times, across the 3 vaults %d; the same note on top %d", n, firstOne, firstMerged, same)
	if n < 100 || firstMerged < firstOne || same*10 < n*9 {
		t.Errorf("%d headings: their note first in the whole vault %d times, across the 3 vaults %d; the same note on top %d (want at least as often, and 90%%)", n, firstOne, firstMerged, same)
	}
}

// TestVaults_WrongVaultTwoCalls: for every note of the three vaults, by
// path and by title, asked of each other vault, the answer's "next:" call
// — what a cheap agent copies — reads that very note: two calls at most
// (issue 35's target).
func TestVaults_WrongVaultTwoCalls(t *testing.T) {
	vs := threeVaults(t)
	names := vs.Names()
	next := regexp.MustCompile(`(?m)^next: read_note (\{.*\})$`)
	checked, byNext := 0, 0
	for _, home := range names {
		notes, err := vs.Core(home).v.Notes()
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range notes {
			for _, ref := range []string{n.Path, n.Title} {
				for _, wrong := range names {
					if wrong == home {
						continue
					}
					if _, _, err := vs.Core(wrong).v.Find(ref); err == nil {
						continue // the other vault has a note of that name too: its own answer is right
					}
					r := vs.Call(context.Background(), everyone, "read_note", map[string]any{"vault": wrong, "path": ref})
					if !r.IsError() {
						t.Errorf("read_note %q in %s (it is in %s) succeeded:\n%s", ref, wrong, home, r.Text)
						continue
					}
					// Its next call; where several vaults have the name
					// (or the vault asked has a folder of that name), the
					// call the answer lists for the note's own vault.
					calls := next.FindAllStringSubmatch(r.Text, -1)
					for _, m := range anyCall.FindAllStringSubmatch(r.Text, -1) {
						if m[1] == "read_note" && strings.Contains(m[2], `"vault": "`+home+`"`) {
							calls = append(calls, []string{m[0], m[2]})
						}
					}
					reached := false
					for i, m := range calls {
						var args map[string]any
						if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
							t.Fatal(err)
						}
						second := vs.Call(context.Background(), everyone, "read_note", args)
						if !second.IsError() && strings.HasPrefix(second.Text, "vault: "+home+"\npath: "+n.Path+"\n") {
							reached = true
							if i == 0 && strings.HasPrefix(m[0], "next: ") {
								byNext++
							}
							break
						}
					}
					if !reached {
						t.Errorf("read_note %q in %s: no call of the answer reads %s in %s:\n%s", ref, wrong, n.Path, home, r.Text)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d wrong-vault reads, each reaching its note with its second call: %d by the answer's next call, the others by the call it lists for the note's vault", checked, byNext)
}
