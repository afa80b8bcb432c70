package web

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/mcpserver"
	"github.com/vaultd/vaultd/oauth"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// vaultsFixture is the MCP HTTP server with the owner's page over two
// vaults, work and team, wired as vaultd serve --vault work=… --vault
// team=… --http wires them: the keys live with the first vault.
type vaultsFixture struct {
	*fixture
	work, team       *tools.Core
	workDir, teamDir string
}

// idea is a note both vaults have, at the same path.
const idea = "0_Inbox/Idee.md"

// newSmallVault makes a vault from files (path → text) in a temp dir and
// its core.
func newSmallVault(t *testing.T, files map[string]string) (*tools.Core, string) {
	t.Helper()
	dir := t.TempDir()
	for p, text := range files {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, filepath.FromSlash(p))), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(text), 0o644))
	}
	v, err := vault.Open(dir, vault.Options{StateDir: filepath.Join(t.TempDir(), "state"), NoSync: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	c, err := tools.NewCore(v, tools.CoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c, dir
}

func newVaultsFixture(t *testing.T) *vaultsFixture {
	t.Helper()
	work, workDir := newSmallVault(t, map[string]string{
		idea:                       "# Idee\n\nEin Werkzeugschuppen.\n",
		"1_Projekte/Angebot.md":    "# Angebot\n\nFür die Stadtwerke.\n",
		"1_Projekte/Projekte.base": "views:\n  - type: table\n    name: Alle\n",
	})
	team, teamDir := newSmallVault(t, map[string]string{
		idea:                          "# Idee\n\nEin Teamausflug.\n",
		"2_Onboarding/Erste Woche.md": "# Erste Woche\n\nSchlüssel abholen.\n",
	})
	vs, err := tools.NewVaults([]string{"work", "team"}, []*tools.Core{work, team})
	if err != nil {
		t.Fatal(err)
	}
	store := keys.Open(work.Vault().StateDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	as := oauth.New(oauth.Options{Store: store, Issuer: base, Resource: base + mcpserver.HTTPPath})
	var srv *mcpserver.HTTPServer
	page, err := New(work, Options{Keys: store, OAuth: as, Revoked: func() { srv.CloseRevoked() }, Vaults: vs})
	if err != nil {
		t.Fatal(err)
	}
	srv = mcpserver.NewHTTPServer(work, mcpserver.HTTPOptions{Keys: store, Loopback: true, Page: page, Vaults: vs,
		Resource: as.Resource(), ResourceMetadata: as.ResourceMetadataURL(), CORS: oauth.CORS})
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	f := &fixture{t: t, base: base, dir: workDir, core: work, keys: store, oauth: as}
	return &vaultsFixture{fixture: f, work: work, team: team, workDir: workDir, teamDir: teamDir}
}

// readIn reads a file of the vault in dir.
func readIn(t *testing.T, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// appendIn appends to a note as an agent and returns the change's id.
func appendIn(t *testing.T, c *tools.Core, p, text, summary string) string {
	t.Helper()
	r := c.AppendToNote(context.Background(), agent, tools.AppendArgs{Path: p, Content: text, ChangeSummary: summary})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	return r.Data.(tools.WriteData).ChangeID
}

var switcherRE = regexp.MustCompile(`(?s)<nav class="vaults".*?</nav>`)

// The header names every vault, the one shown marked; each view works on
// the vault its address names (any case), and every link and form of the
// page carries it, so the owner stays in the vault.
func TestVaults_SwitchBetweenVaults(t *testing.T) {
	f := newVaultsFixture(t)
	f.signIn()
	appendIn(t, f.work, idea, "- mit Werkbank", "a workbench for the shed")
	appendIn(t, f.team, idea, "- im Mai", "the outing is in May")

	body := f.page("/")
	sw := switcherRE.FindString(body)
	for _, want := range []string{`href="/?vault=work" aria-current="true" translate="no">work</a>`, `href="/?vault=team" translate="no">team</a>`, `href="/?vault=%2A">All vaults</a>`} {
		if !strings.Contains(sw, want) {
			t.Errorf("the switcher on / lacks %q:\n%s", want, sw)
		}
	}
	// Without a vault the page shows the first one.
	if !strings.Contains(body, "a workbench for the shed") || strings.Contains(body, "the outing is in May") {
		t.Errorf("/ does not show the first vault's changes alone:\n%s", body)
	}
	body = f.page("/?vault=TEAM")
	if !strings.Contains(body, "the outing is in May") || strings.Contains(body, "a workbench for the shed") {
		t.Errorf("/?vault=TEAM does not show team's changes alone:\n%s", body)
	}
	sw = switcherRE.FindString(body)
	if !strings.Contains(sw, `href="/?vault=team" aria-current="true"`) || strings.Contains(sw, `href="/?vault=work" aria-current`) {
		t.Errorf("the switcher on team's page marks another vault:\n%s", sw)
	}
	// Every link and form of team's page stays in team.
	for _, want := range []string{
		`<a class="c-note" href="/note?path=0_Inbox%2fIdee.md&vault=team"`,
		`<input type="hidden" name="vault" value="team">`, // the filter form, and Undo
		`<a href="/trash?vault=team"`, `<a href="/bases?vault=team"`, `<a href="/health?vault=team"`, `<a href="/connections?vault=team"`,
		`<input type="hidden" name="back" value="/?vault=team">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("team's Activity lacks %q", want)
		}
	}
	if n := strings.Count(body, `name="vault" value="team"`); n < 2 {
		t.Errorf("team's Activity carries its vault in %d forms, want the filter and each Undo", n)
	}
	// A note's history, a diff, the trash, the bases and health: each of
	// the vault named.
	if b := f.page("/note?vault=team&path=" + url.QueryEscape(idea)); !strings.Contains(b, "the outing is in May") || strings.Contains(b, "workbench") ||
		!strings.Contains(b, `href="/?note=0_Inbox%2fIdee.md&vault=team"`) || !strings.Contains(b, `<input type="hidden" name="vault" value="team">`) {
		t.Errorf("team's note history:\n%s", b)
	}
	if b := f.page("/note/diff?vault=team&path=" + url.QueryEscape(idea)); !strings.Contains(b, "im Mai") || strings.Contains(b, "Werkbank") {
		t.Errorf("team's diff:\n%s", b)
	}
	// A note of work asked for in team: not there, and where it is.
	if b := f.page("/note?vault=team&path=" + url.QueryEscape("1_Projekte/Angebot.md")); !strings.Contains(b, "There is no note “1_Projekte/Angebot.md”") ||
		!strings.Contains(b, `<span>In another vault:</span><a class="btn" href="/note?path=1_Projekte%2FAngebot.md&vault=work" translate="no">work</a>`) {
		t.Errorf("a note of work asked for in team:\n%s", b)
	}
	if b := f.page("/bases?vault=work"); !strings.Contains(b, "1_Projekte/Projekte.base") || !strings.Contains(b, `&vault=work"`) {
		t.Errorf("work's bases:\n%s", b)
	}
	if b := f.page("/bases?vault=team"); strings.Contains(b, "Projekte.base") {
		t.Errorf("team's bases list work's base:\n%s", b)
	}
	if b := f.page("/health?vault=team"); !strings.Contains(b, `<dd id="vault-notes">2 (`) {
		t.Errorf("team's health does not count team's 2 notes:\n%s", b)
	}
	// The switcher keeps the view: from team's trash to work's.
	if sw := switcherRE.FindString(f.page("/trash?vault=team")); !strings.Contains(sw, `href="/trash?vault=work"`) {
		t.Errorf("the switcher on the trash does not lead to work's trash:\n%s", sw)
	}
	// "All vaults" is the Activity's; elsewhere it is the first vault.
	if b := f.page("/trash?vault=*"); !strings.Contains(b, `<a href="/trash?vault=work" aria-current="page"`) {
		t.Errorf("/trash?vault=* is not work's trash:\n%.2000s", b)
	}
}

// Undo and restore act in the vault they were posted for: the same path
// in the other vault stays as it is.
func TestVaults_UndoAndRestoreInTheirVault(t *testing.T) {
	f := newVaultsFixture(t)
	f.signIn()
	ctx := context.Background()
	workBefore, teamBefore := readIn(t, f.workDir, idea), readIn(t, f.teamDir, idea)
	appendIn(t, f.work, idea, "- mit Werkbank", "a workbench for the shed")
	id := appendIn(t, f.team, idea, "- im Mai", "the outing is in May")
	workNow := readIn(t, f.workDir, idea)

	// Posted for work, team's change is unknown there: nothing changes,
	// and the way forward stays in work.
	body := f.post("/undo", url.Values{"change": {id}, "back": {"/?vault=work"}, "vault": {"work"}})
	if !strings.Contains(body, "Not undone") || readIn(t, f.teamDir, idea) == teamBefore || readIn(t, f.workDir, idea) != workNow {
		t.Errorf("undo of team's change posted for work:\n%s", body)
	}
	body = f.post("/undo", url.Values{"change": {id}, "back": {"/?vault=team"}, "vault": {"team"}})
	if !strings.Contains(body, "Undone") {
		t.Errorf("undo in team: no confirmation\n%s", body)
	}
	if got := readIn(t, f.teamDir, idea); got != teamBefore {
		t.Errorf("team's note after the undo:\n%s\nwant\n%s", got, teamBefore)
	}
	if got := readIn(t, f.workDir, idea); got != workNow || got == workBefore {
		t.Errorf("work's note changed by team's undo:\n%s", got)
	}
	// The flash's "undo the undo" stays in team.
	if !regexp.MustCompile(`(?s)<form method="post" action="/undo" class="inline">.*?<input type="hidden" name="vault" value="team"><button type="submit" class="primary">`).MatchString(body) {
		t.Errorf("the confirmation's Undo does not carry team:\n%s", body)
	}

	// Delete in team, restore from team's trash: team's note is back,
	// work's is untouched.
	rd := f.team.ReadNote(ctx, agent, tools.ReadNoteArgs{Path: idea})
	if rd.IsError() {
		t.Fatal(rd.Text)
	}
	del := f.team.DeleteNote(ctx, agent, tools.DeleteArgs{Path: idea, ChangeSummary: "no outing", ExpectedVersion: rd.Data.(tools.ReadNoteData).Note.Version})
	if del.IsError() {
		t.Fatal(del.Text)
	}
	if _, err := os.Stat(filepath.Join(f.teamDir, idea)); !os.IsNotExist(err) {
		t.Fatalf("the delete left team's note: %v", err)
	}
	trash := f.page("/trash?vault=team")
	m := regexp.MustCompile(`name="trash_path" value="([^"]+)"><input type="hidden" name="vault" value="team">`).FindStringSubmatch(trash)
	if m == nil {
		t.Fatalf("team's trash has no restore form for the note in team:\n%s", trash)
	}
	if w := f.page("/trash?vault=work"); strings.Contains(w, m[1]) {
		t.Errorf("work's trash lists team's deleted note")
	}
	st, loc, _ := f.do("POST", "/trash/restore", url.Values{"trash_path": {m[1]}, "back": {"/trash?vault=team"}, "vault": {"team"}, CSRFField: {f.csrf}}, nil)
	if st != http.StatusSeeOther || loc != "/trash?vault=team" {
		t.Fatalf("restore in team: %d to %q", st, loc)
	}
	if got := readIn(t, f.teamDir, idea); got != teamBefore {
		t.Errorf("team's restored note:\n%s\nwant\n%s", got, teamBefore)
	}
	if got := readIn(t, f.workDir, idea); got != workNow {
		t.Errorf("work's note changed by team's restore:\n%s", got)
	}
}

// The Activity of every vault: their changes merged, newest first, each
// row naming its vault, its note link and Undo going there.
func TestVaults_AllVaultsActivity(t *testing.T) {
	f := newVaultsFixture(t)
	f.signIn()
	appendIn(t, f.team, idea, "- im Mai", "the outing is in May")
	appendIn(t, f.work, idea, "- mit Werkbank", "a workbench for the shed")
	teamID := appendIn(t, f.team, "2_Onboarding/Erste Woche.md", "- Laptop", "a laptop for the first week")

	body := f.page("/?vault=*")
	first, second, third := strings.Index(body, "a laptop for the first week"), strings.Index(body, "a workbench for the shed"), strings.Index(body, "the outing is in May")
	if first < 0 || second < 0 || third < 0 || !(first < second && second < third) {
		t.Fatalf("All vaults: want team's laptop, work's workbench, team's outing, newest first; at %d %d %d\n%s", first, second, third, body)
	}
	for _, want := range []string{
		`Every change to every vault, newest first, each with its vault`,
		`<span class="chip c-vault"><span class="sr">in the vault </span><span translate="no">team</span></span>`,
		`<span class="chip c-vault"><span class="sr">in the vault </span><span translate="no">work</span></span>`,
		`href="/note?path=2_Onboarding%2fErste%20Woche.md&vault=team"`,
		`href="/note?path=0_Inbox%2fIdee.md&vault=work"`,
		`<input type="hidden" name="vault" value="*">`, // the filter form stays on every vault
		`href="/?vault=%2A" aria-current="true">All vaults</a>`,
		`Showing 1–3 of 3 changes`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("All vaults lacks %q", want)
		}
	}
	row := regexp.MustCompile(`(?s)<li class="change" data-change="` + regexp.QuoteMeta(teamID) + `".*?</li>`).FindString(body)
	if !strings.Contains(row, `<input type="hidden" name="vault" value="team">`) {
		t.Errorf("the Undo of team's change does not post to team:\n%s", row)
	}
	// Filters apply in each vault: a space only team has.
	if b := f.page("/?vault=*&space=2_Onboarding"); !strings.Contains(b, "a laptop for the first week") || strings.Contains(b, "workbench") {
		t.Errorf("All vaults, space 2_Onboarding:\n%s", b)
	}
	// Undo from the list of every vault goes back to it.
	st, loc, _ := f.do("POST", "/undo", url.Values{"change": {teamID}, "back": {"/?vault=%2A"}, "vault": {"team"}, CSRFField: {f.csrf}}, nil)
	if st != http.StatusSeeOther || loc != "/?vault=%2A" {
		t.Fatalf("undo from All vaults: %d to %q", st, loc)
	}
	if got := readIn(t, f.teamDir, "2_Onboarding/Erste Woche.md"); strings.Contains(got, "Laptop") {
		t.Errorf("team's note after the undo:\n%s", got)
	}
	// The note filter goes to the vault that has the note.
	if st, loc, _ := f.do("GET", "/?vault=*&note="+url.QueryEscape("Erste Woche"), nil, nil); st != http.StatusSeeOther || !strings.Contains(loc, "vault=team") {
		t.Errorf("a note filter on every vault: %d to %q, want team's Activity", st, loc)
	}
	if b := f.page("/?vault=*&note=Nirgends"); !strings.Contains(b, `No vault has a note “<span translate="no">Nirgends</span>”`) {
		t.Errorf("a note no vault has, on every vault:\n%s", b)
	}
	// The live refresh sees each vault's newest change.
	_, _, latest := f.do("GET", "/activity/latest?vault=*", nil, nil)
	if !strings.HasPrefix(latest, "work ") || !strings.Contains(latest, "; team ") {
		t.Errorf("/activity/latest?vault=*: %q", latest)
	}
	// In German too.
	_, _, de := f.do("GET", "/?vault=*", nil, map[string]string{"Accept-Language": "de"})
	if !strings.Contains(de, ">Alle Vaults</a>") || !strings.Contains(de, "Jede Änderung an jedem Vault") {
		t.Errorf("the German Activity of every vault:\n%s", de)
	}
}

// A vault that is not served is refused, naming the vaults there are, and
// nothing is done.
func TestVaults_UnknownVaultRefused(t *testing.T) {
	f := newVaultsFixture(t)
	f.signIn()
	st, _, body := f.do("GET", "/?vault=privat", nil, nil)
	if st != http.StatusNotFound || !strings.Contains(body, `There is no vault “<span translate="no">privat</span>” here (or it is no longer served); nothing was done. The vaults here: <span translate="no">work, team</span>.`) ||
		!strings.Contains(body, `<a class="btn" href="/?vault=team" translate="no">team</a>`) {
		t.Errorf("GET /?vault=privat: %d\n%s", st, body)
	}
	_, _, de := f.do("GET", "/trash?vault=privat", nil, map[string]string{"Accept-Language": "de"})
	if !strings.Contains(de, `Einen Vault „<span translate="no">privat</span>“ gibt es hier nicht`) {
		t.Errorf("the German refusal:\n%s", de)
	}
	id := appendIn(t, f.team, idea, "- im Mai", "the outing is in May")
	now := readIn(t, f.teamDir, idea)
	st, _, body = f.do("POST", "/undo", url.Values{"change": {id}, "vault": {"privat"}, CSRFField: {f.csrf}}, nil)
	if st != http.StatusNotFound || !strings.Contains(body, `The vaults here: <span translate="no">work, team</span>.`) || readIn(t, f.teamDir, idea) != now {
		t.Errorf("POST /undo for privat: %d\n%s", st, body)
	}
}

// Creating a key may limit it to vaults, each with its rights; the list
// names each key's vaults, and they can be changed there.
func TestVaults_KeyWithVaults(t *testing.T) {
	f := newVaultsFixture(t)
	f.signIn()
	body := f.page("/connections?vault=team")
	for _, want := range []string{`<legend>Vaults</legend>`, `<input type="hidden" name="vaults_listed" value="work">`,
		`<input type="checkbox" name="vaults" value="team" checked>`, `<label class="rights-in"><span class="sr">Rights in the vault </span><span class="sr" translate="no">team</span>
  <select name="rights_in_team">`} {
		if !strings.Contains(body, want) {
			t.Errorf("the create form lacks %q", want)
		}
	}
	// Every vault ticked with the general rights: every vault.
	form := url.Values{"name": {"laptop"}, "write": {"1"}, "vaults_listed": {"work", "team"}, "vaults": {"work", "team"}, "vault": {"team"}, CSRFField: {f.csrf}}
	st, _, body := f.do("POST", "/connections/create", form, nil)
	if st != 200 || !strings.Contains(body, `id="secret"`) {
		t.Fatalf("create laptop: %d\n%s", st, body)
	}
	// Team alone, read there.
	form = url.Values{"name": {"anna"}, "write": {"1"}, "vaults_listed": {"work", "team"}, "vaults": {"team"}, "rights_in_team": {"read"}, "vault": {"team"}, CSRFField: {f.csrf}}
	if st, _, body = f.do("POST", "/connections/create", form, nil); st != 200 || !strings.Contains(body, `id="secret"`) {
		t.Fatalf("create anna: %d\n%s", st, body)
	}
	secret := regexp.MustCompile(`<pre id="secret" translate="no">([^<]+)</pre>`).FindStringSubmatch(body)
	ks, _ := f.keys.List()
	byName := map[string]keys.Key{}
	for _, k := range ks {
		byName[k.Name] = k
	}
	if k := byName["laptop"]; k.Vaults != nil || k.Rights.String() != "read,write" {
		t.Errorf("laptop: %+v, want every vault", k)
	}
	if k := byName["anna"]; keys.VaultsString(k.Vaults) != "team=read" {
		t.Errorf("anna's vaults: %q, want team=read", keys.VaultsString(k.Vaults))
	}
	// Her connection sees team alone.
	if secret == nil {
		t.Fatal("no secret shown")
	}
	if text := f.mcpCall(secret[1], "vault_overview", map[string]any{}); !strings.Contains(text, "vault: team") || strings.Contains(text, "work") {
		t.Errorf("anna's vault_overview:\n%s", text)
	}
	body = f.page("/connections?vault=team")
	anna := regexp.MustCompile(`(?s)<tr data-key="anna">.*?</tr>`).FindString(body)
	laptop := regexp.MustCompile(`(?s)<tr data-key="laptop">.*?</tr>`).FindString(body)
	if !strings.Contains(anna, `<div class="in-vault"><span translate="no">team</span>: read</div>`) || strings.Contains(anna, `translate="no">work</span>:`) {
		t.Errorf("anna's row does not name team alone:\n%s", anna)
	}
	if !strings.Contains(laptop, `<div class="in-vault">every vault</div>`) {
		t.Errorf("laptop's row does not say every vault:\n%s", laptop)
	}
	// Change anna's vaults: work read,write, team as it is.
	body = f.post("/connections/vaults", url.Values{"name": {"anna"}, "vaults_listed": {"work", "team"}, "vaults": {"work", "team"},
		"rights_in_work": {"read,write"}, "rights_in_team": {"read"}, "vault": {"team"}})
	if !strings.Contains(body, "anna now reaches: team: read; work: read, write.") {
		t.Errorf("change anna's vaults:\n%s", body)
	}
	if k, _, _ := f.keys.Lookup(secret[1]); keys.VaultsString(k.Vaults) != "team=read work=read,write" {
		t.Errorf("anna's vaults after the change: %q", keys.VaultsString(k.Vaults))
	}
	// Her general rights change; the page says her rights per vault stay.
	if body := f.post("/connections/rights", url.Values{"name": {"anna"}, "vault": {"team"}}); !strings.Contains(body, "Its rights per vault stay as set under Vaults: team: read; work: read, write.") {
		t.Errorf("change anna's rights:\n%s", body)
	}
	// No vault ticked is refused, and the form keeps what was typed.
	form = url.Values{"name": {"nobody"}, "vaults_listed": {"work", "team"}, CSRFField: {f.csrf}}
	if st, _, body := f.do("POST", "/connections/create", form, nil); st != http.StatusUnprocessableEntity || !strings.Contains(body, "Tick at least one vault") ||
		!strings.Contains(body, `<input type="checkbox" name="vaults" value="work">`) {
		t.Errorf("a key in no vault: %d\n%s", st, body)
	}
	if _, _, err := f.keys.Lookup("x"); err != nil {
		t.Fatal(err)
	}
	if ks, _ := f.keys.List(); len(ks) != 2 {
		t.Errorf("keys after the refused create: %d, want 2", len(ks))
	}
}

// A signed-in connection gets its vaults on the consent, with its rights
// in each; the Connections view names them and changes them, and the
// connection's MCP calls see those vaults alone.
func TestVaults_GrantVaults(t *testing.T) {
	f := newVaultsFixture(t)
	f.signIn()
	path, c := f.authorizeURL("Claude Code", nil)
	_, _, body := f.do("GET", path, nil, nil)
	if !strings.Contains(body, "Vaults the client may use") || !strings.Contains(body, `<input type="checkbox" name="vaults" value="team" checked>`) {
		t.Fatalf("the consent does not offer the vaults:\n%s", body)
	}
	form := consentForm(t, body)
	f.csrf = form.Get(CSRFField)
	form.Set("decision", "approve")
	form.Set("name", "phone")
	form.Set("write", "1")
	form["vaults_listed"] = []string{"work", "team"}
	// No vault ticked: the consent again, saying so.
	if st, _, body := f.do("POST", "/authorize", form, nil); st != http.StatusUnprocessableEntity || !strings.Contains(body, "Tick at least one vault") {
		t.Errorf("a connection in no vault: %d\n%s", st, body)
	}
	form["vaults"] = []string{"work"}
	st, loc, _ := f.do("POST", "/authorize", form, nil)
	u, _ := url.Parse(loc)
	if st != http.StatusSeeOther || u.Query().Get("code") == "" {
		t.Fatalf("approve: %d to %q", st, loc)
	}
	st, tok := f.token(c.ID, u.Query().Get("code"))
	if st != 200 {
		t.Fatalf("token: %d %v", st, tok)
	}
	gs, _ := f.keys.Grants()
	if len(gs) != 1 || keys.VaultsString(gs[0].Vaults) != "work=read,write" {
		t.Fatalf("grants: %+v, want phone in work with read,write", gs)
	}
	access := tok["access_token"].(string)
	if text := f.mcpCall(access, "vault_overview", map[string]any{}); !strings.Contains(text, "vault: work") || strings.Contains(text, "team") {
		t.Errorf("the connection's vault_overview:\n%s", text)
	}
	body = f.page("/connections?vault=work")
	row := regexp.MustCompile(`(?s)<tr data-grant="phone">.*?</tr>`).FindString(body)
	if !strings.Contains(row, `<span translate="no">work</span>: read, write</div>`) || !strings.Contains(row, `action="/connections/grant/vaults"`) {
		t.Errorf("the connection's row:\n%s", row)
	}
	body = f.post("/connections/grant/vaults", url.Values{"grant": {gs[0].ID}, "vaults_listed": {"work", "team"}, "vaults": {"team"}, "rights_in_team": {"read"}, "vault": {"work"}})
	if !strings.Contains(body, "phone now reaches: team: read.") {
		t.Errorf("change the connection's vaults:\n%s", body)
	}
	if text := f.mcpCall(access, "vault_overview", map[string]any{}); !strings.Contains(text, "vault: team") || strings.Contains(text, "vault: work") {
		t.Errorf("the connection's vault_overview after the change:\n%s", text)
	}
}

// With one vault, nothing of the vaults shows.
func TestVaults_LoneVaultUnchanged(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	for _, p := range []string{"/", "/trash", "/connections", "/bases", "/health", "/note?path=" + url.QueryEscape("0_Inbox/Buchtipps.md")} {
		b := f.page(p)
		for _, no := range []string{`class="vaults"`, `name="vault"`, "vault=", "vaults_listed", "All vaults"} {
			if strings.Contains(b, no) {
				t.Errorf("GET %s with one vault shows %q", p, no)
			}
		}
	}
	// A vault named in the address is ignored, as any unknown parameter.
	if st, _, _ := f.do("GET", "/?vault=nope", nil, nil); st != 200 {
		t.Errorf("GET /?vault=nope with one vault: %d, want 200", st)
	}
}

// mcpCall calls a tool over /mcp with a bearer token (key or sign-in) and
// returns its answer's text.
func (f *fixture) mcpCall(token, tool string, args map[string]any) string {
	f.t.Helper()
	send := func(session string, msg any) (*http.Response, string) {
		b, _ := json.Marshal(msg)
		req, _ := http.NewRequest("POST", f.base+"/mcp", strings.NewReader(string(b)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		must(f.t, err)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	resp, body := send("", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
	if resp.StatusCode != 200 {
		f.t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	session := resp.Header.Get("Mcp-Session-Id")
	send(session, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	resp, body = send(session, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	if resp.StatusCode != 200 {
		f.t.Fatalf("tools/call %s: %d %s", tool, resp.StatusCode, body)
	}
	// A JSON answer, or the same as the data of an event.
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, "data: "); ok {
			body = rest
		}
	}
	var m struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		f.t.Fatalf("tools/call %s: %v\n%s", tool, err, body)
	}
	var out []string
	for _, c := range m.Result.Content {
		out = append(out, c.Text)
	}
	return strings.Join(out, "\n")
}
