package web

import (
	"context"
	"html"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/mcpserver"
	"github.com/vaultd/vaultd/oauth"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// fixture is the MCP HTTP server with the owner's page over a copy of the
// example vault, on a real loopback listener.
type fixture struct {
	t      *testing.T
	base   string
	dir    string
	core   *tools.Core
	keys   *keys.Store
	cookie string // the session cookie once signed in
	csrf   string
	oauth  *oauth.Server
	next   string // the NextCookie the page set, sent back like a browser
}

func copyVault(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "example-vault")
	dst := filepath.Join(t.TempDir(), "vault")
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
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func newFixture(t *testing.T) *fixture { t.Helper(); return newFixtureWith(t, false) }

// newFixtureWith is newFixture, with the search index when withIndex.
func newFixtureWith(t *testing.T, withIndex bool) *fixture {
	t.Helper()
	dir := copyVault(t)
	// A note with a sub-note beside it (X.md and X/), as Obsidian's folder
	// notes make them.
	must(t, os.MkdirAll(filepath.Join(dir, "1_Projekte", "Garten"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "1_Projekte", "Garten.md"), []byte("# Garten\n\nBeete und Wege.\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "1_Projekte", "Garten", "Beet.md"), []byte("# Beet\n\nTomaten, Bohnen.\n"), 0o644))
	v, err := vault.Open(dir, vault.Options{StateDir: filepath.Join(t.TempDir(), "state"), NoSync: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	var co tools.CoreOptions
	if withIndex {
		idx, err := index.Open(v, index.Options{Dir: filepath.Join(t.TempDir(), "index"), Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { idx.Close() })
		if err := idx.WaitReady(context.Background()); err != nil {
			t.Fatal(err)
		}
		co.Index = idx
	}
	c, err := tools.NewCore(v, co)
	if err != nil {
		t.Fatal(err)
	}
	store := keys.Open(v.StateDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	// Wired as vaultd serve --http wires it: the page with sign-in for
	// MCP clients (OAuth) on the same address.
	as := oauth.New(oauth.Options{Store: store, Issuer: base, Resource: base + mcpserver.HTTPPath})
	var srv *mcpserver.HTTPServer
	page, err := New(c, Options{Keys: store, OAuth: as, Revoked: func() { srv.CloseRevoked() }})
	if err != nil {
		t.Fatal(err)
	}
	srv = mcpserver.NewHTTPServer(c, mcpserver.HTTPOptions{Keys: store, Loopback: true, Page: page,
		Resource: as.Resource(), ResourceMetadata: as.ResourceMetadataURL(), CORS: oauth.CORS})
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return &fixture{t: t, base: base, dir: dir, core: c, keys: store, oauth: as}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// do sends a request as a browser on this page would (Origin of the page
// on POST), with the session cookie once signed in; it returns the status,
// the Location and the body.
func (f *fixture) do(method, path string, form url.Values, hdr map[string]string) (int, string, string) {
	f.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, f.base+path, body)
	if err != nil {
		f.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", f.base)
	}
	if f.cookie != "" {
		req.AddCookie(&http.Cookie{Name: CookieName, Value: f.cookie})
	}
	if f.next != "" {
		req.AddCookie(&http.Cookie{Name: NextCookie, Value: f.next})
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, c := range resp.Cookies() {
		if c.Name == CookieName && c.Value != "" {
			f.cookie = c.Value
		}
		if c.Name == NextCookie {
			f.next = c.Value
		}
	}
	return resp.StatusCode, resp.Header.Get("Location"), html.UnescapeString(string(b))
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signIn signs in with a fresh one-time link, as the owner would.
func (f *fixture) signIn() {
	f.t.Helper()
	secret, _, err := f.keys.NewLink(time.Now())
	must(f.t, err)
	st, _, body := f.do("GET", "/signin?token="+secret, nil, nil)
	if st != 200 || !strings.Contains(body, `value="`+secret+`"`) {
		f.t.Fatalf("GET /signin?token: %d\n%s", st, body)
	}
	st, loc, body := f.do("POST", "/signin", url.Values{"token": {secret}}, nil)
	if st != http.StatusSeeOther || loc != "/" || f.cookie == "" {
		f.t.Fatalf("POST /signin: %d %q cookie %q\n%s", st, loc, f.cookie, body)
	}
	_, _, body = f.do("GET", "/", nil, nil)
	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		f.t.Fatalf("signed in, but the page has no CSRF token:\n%s", body)
	}
	f.csrf = m[1]
}

// post sends a form of the page with the CSRF token and follows the
// redirect to the page it names, returning that page.
func (f *fixture) post(path string, form url.Values) string {
	f.t.Helper()
	form.Set(CSRFField, f.csrf)
	st, loc, body := f.do("POST", path, form, nil)
	if st != http.StatusSeeOther {
		f.t.Fatalf("POST %s: %d, want 303\n%s", path, st, body)
	}
	st, _, body = f.do("GET", loc, nil, nil)
	if st != 200 {
		f.t.Fatalf("GET %s after POST %s: %d\n%s", loc, path, st, body)
	}
	return body
}

func (f *fixture) read(p string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(p)))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

var agent = tools.Caller{Actor: "key:bot", Perms: tools.AllPerms}

func TestSignIn_RequiredEverywhere(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"/", "/trash", "/connections", "/note?path=0_Inbox/Buchtipps.md", "/trash/empty?days=0", "/activity/latest"} {
		st, loc, _ := f.do("GET", p, nil, nil)
		if st != http.StatusSeeOther || loc != "/signin" {
			t.Errorf("GET %s without sign-in: %d %q, want 303 to /signin", p, st, loc)
		}
	}
	for _, p := range []string{"/undo", "/trash/restore", "/trash/empty", "/note/restore", "/connections/create", "/connections/revoke"} {
		st, _, body := f.do("POST", p, url.Values{"change": {"x"}}, nil)
		if st != http.StatusForbidden || !strings.Contains(body, "not signed in") {
			t.Errorf("POST %s without sign-in: %d, want 403 saying so\n%s", p, st, body)
		}
	}
	// An access key never opens the page, not even with every right.
	secret, _, err := f.keys.Create("admin", keys.Rights{Read: true, Write: true, Delete: true}, time.Now())
	must(t, err)
	st, loc, _ := f.do("GET", "/", nil, map[string]string{"Authorization": "Bearer " + secret})
	if st != http.StatusSeeOther || loc != "/signin" {
		t.Errorf("GET / with an access key: %d %q, want 303 to /signin", st, loc)
	}
	// Nor signs in as a link would.
	st, _, body := f.do("POST", "/signin", url.Values{"token": {secret}}, nil)
	if st != http.StatusUnauthorized || f.cookie != "" || !strings.Contains(body, "vaultd owner link") {
		t.Errorf("POST /signin with an access key: %d cookie %q, want 401 naming vaultd owner link\n%s", st, f.cookie, body)
	}
	// The sign-in page without a link says how to get one.
	_, _, body = f.do("GET", "/signin", nil, nil)
	if !strings.Contains(body, "vaultd owner link") {
		t.Errorf("GET /signin does not say how to get a link:\n%s", body)
	}
}

func TestSignIn_LinkOnceCookieFlags(t *testing.T) {
	f := newFixture(t)
	secret, _, err := f.keys.NewLink(time.Now())
	must(t, err)
	// A GET (a link preview) does not spend the link.
	f.do("GET", "/signin?token="+secret, nil, nil)
	f.do("GET", "/signin?token="+secret, nil, nil)
	req, _ := http.NewRequest("POST", f.base+"/signin", strings.NewReader(url.Values{"token": {secret}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-Proto", "https") // behind a TLS proxy
	req.Header.Set("Origin", strings.Replace(f.base, "http://", "https://", 1))
	resp, err := noRedirect.Do(req)
	must(t, err)
	resp.Body.Close()
	var c *http.Cookie
	for _, rc := range resp.Cookies() {
		if rc.Name == CookieName {
			c = rc
		}
	}
	if resp.StatusCode != http.StatusSeeOther || c == nil {
		t.Fatalf("POST /signin: %d, cookie %v", resp.StatusCode, c)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || !c.Secure || c.Path != "/" {
		t.Errorf("session cookie %+v: want HttpOnly, SameSite=Strict, Secure behind TLS, Path=/", c)
	}
	// The link works once.
	st, _, body := f.do("POST", "/signin", url.Values{"token": {secret}}, nil)
	if st != http.StatusUnauthorized || f.cookie != "" || !strings.Contains(body, "used already or has expired") {
		t.Errorf("second use of a link: %d cookie %q\n%s", st, f.cookie, body)
	}
	// An expired link is refused.
	old, _, err := f.keys.NewLink(time.Now().Add(-keys.LinkTTL - time.Second))
	must(t, err)
	if st, _, _ := f.do("POST", "/signin", url.Values{"token": {old}}, nil); st != http.StatusUnauthorized || f.cookie != "" {
		t.Errorf("expired link: %d cookie %q, want 401 and no session", st, f.cookie)
	}
	// Over plain HTTP the cookie is not Secure (a loopback page).
	f.signIn()
	// Only the link's hash is in the state dir.
	b, err := os.ReadFile(filepath.Join(f.core.Vault().StateDir(), keys.LinksName))
	must(t, err)
	if strings.Contains(string(b), secret) || strings.Contains(string(b), old) {
		t.Errorf("%s holds a sign-in secret:\n%s", keys.LinksName, b)
	}
	// Signing out ends the session.
	f.post("/signout", url.Values{})
	if st, loc, _ := f.do("GET", "/", nil, nil); st != http.StatusSeeOther || loc != "/signin" {
		t.Errorf("GET / after signing out: %d %q", st, loc)
	}
}

func TestCSRF_ForgedPostsRefused(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	before := f.read("0_Inbox/Buchtipps.md")
	r := f.core.AppendToNote(context.Background(), agent, tools.AppendArgs{Path: "0_Inbox/Buchtipps.md", Content: "- Neu", ChangeSummary: "a book"})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	id := r.Data.(tools.WriteData).ChangeID
	after := f.read("0_Inbox/Buchtipps.md")
	cases := []struct {
		name string
		form url.Values
		hdr  map[string]string
	}{
		{"no token", url.Values{"change": {id}}, nil},
		{"wrong token", url.Values{"change": {id}, CSRFField: {"x" + f.csrf}}, nil},
		{"other site's origin", url.Values{"change": {id}, CSRFField: {f.csrf}}, map[string]string{"Origin": "http://127.0.0.1:1"}},
		{"cross-site fetch", url.Values{"change": {id}, CSRFField: {f.csrf}}, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": ""}},
		{"foreign referer", url.Values{"change": {id}, CSRFField: {f.csrf}}, map[string]string{"Origin": "", "Referer": "http://evil.example/x"}},
	}
	for _, c := range cases {
		st, _, body := f.do("POST", "/undo", c.form, c.hdr)
		if st != http.StatusForbidden || !strings.Contains(body, "did not come from this page") {
			t.Errorf("%s: %d, want 403 saying the request did not come from the page\n%s", c.name, st, body)
		}
	}
	if got := f.read("0_Inbox/Buchtipps.md"); got != after || got == before {
		t.Errorf("a refused POST changed the note")
	}
	// A foreign Host (DNS rebinding) does not reach the page at all.
	st, _, _ := f.do("GET", "/", nil, map[string]string{"Host": "evil.example"})
	if st != http.StatusForbidden {
		t.Errorf("GET / with Host evil.example: %d, want 403", st)
	}
}

func TestActivity_UndoAsVaultdUndo(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	ctx := context.Background()
	orig := f.read("0_Inbox/Buchtipps.md")
	r := f.core.AppendToNote(ctx, agent, tools.AppendArgs{Path: "0_Inbox/Buchtipps.md", Content: "- Der Zauberberg", ChangeSummary: "added a book"})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	id := r.Data.(tools.WriteData).ChangeID
	body := f.page("/")
	for _, want := range []string{`key ‘<span translate="no">bot</span>’`, "0_Inbox/Buchtipps.md", "added a book", `<ins><span class="sr">added: </span>- Der Zauberberg</ins>`, `value="` + id + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("activity lacks %q", want)
		}
	}
	// Filters: by who and by space.
	if b := f.page("/?actor=key:bot"); !strings.Contains(b, "added a book") {
		t.Errorf("filter actor=key:bot lost the change")
	}
	if b := f.page("/?space=4_Archiv"); strings.Contains(b, "added a book") {
		t.Errorf("filter space=4_Archiv shows a change in 0_Inbox")
	}
	if b := f.page("/?space=Nope"); !strings.Contains(b, `There is no space “Nope” in this vault`) {
		t.Errorf("an unknown space is not explained:\n%s", b)
	}

	// A second change on the same note: undoing the first is refused,
	// exactly as vaultd undo refuses it, and nothing changes.
	r2 := f.core.AppendToNote(ctx, agent, tools.AppendArgs{Path: "0_Inbox/Buchtipps.md", Content: "- Effi Briest", ChangeSummary: "another book"})
	if r2.IsError() {
		t.Fatal(r2.Text)
	}
	now := f.read("0_Inbox/Buchtipps.md")
	cli := f.core.Undo(ctx, tools.Caller{Actor: "cli", Perms: tools.AllPerms, Door: tools.DoorCLI}, tools.UndoArgs{Change: id})
	if !cli.IsError() {
		t.Fatal("the core undid a change the note moved on from")
	}
	// The page says why in the owner's words and offers the way forward:
	// undo the newer change first (a button), or open the history.
	id2 := r2.Data.(tools.WriteData).ChangeID
	body = f.post("/undo", url.Values{"change": {id}, "back": {"/"}})
	flash := regexp.MustCompile(`(?s)<div class="flash err" role="status">.*?</div>\s*</div>`).FindString(body)
	for _, want := range []string{"Not undone", "The note was changed again after this change (1 later changes)",
		`<input type="hidden" name="change" value="` + id2 + `">`, "Undo the newer change first: added to, by key ‘bot’ <q translate=\"no\">another book</q>",
		`href="/note?path=0_Inbox%2FBuchtipps.md">Open the note's history</a>`, firstLine(cli.Text)} {
		if !strings.Contains(flash, want) {
			t.Errorf("undo of a change the note moved on from: the message lacks %q\n%s", want, flash)
		}
	}
	// In German: the same, with no English of the core's.
	de := f.postLang("/undo", url.Values{"change": {id}, "back": {"/"}}, "de")
	flash = regexp.MustCompile(`(?s)<div class="flash err" role="status">.*?</div>\s*</div>`).FindString(de)
	for _, want := range []string{"Nicht rückgängig gemacht", "Die Notiz wurde nach dieser Änderung noch einmal geändert (1 spätere Änderungen)",
		"Zuerst die neuere Änderung rückgängig machen: ergänzt, von Schlüssel ‚bot‘ <q translate=\"no\">another book</q>", "Verlauf der Notiz öffnen"} {
		if !strings.Contains(flash, want) {
			t.Errorf("German refusal lacks %q\n%s", want, flash)
		}
	}
	if strings.Contains(flash, "cannot undo") || strings.Contains(flash, id) {
		t.Errorf("the German refusal shows the core's English or the change id\n%s", flash)
	}
	if f.read("0_Inbox/Buchtipps.md") != now {
		t.Fatal("a refused undo changed the note")
	}
	// Newest first, one by one: back to the original text on disk.
	body = f.post("/undo", url.Values{"change": {r2.Data.(tools.WriteData).ChangeID}, "back": {"/"}})
	if !strings.Contains(body, "Undone") {
		t.Errorf("undo: no confirmation\n%s", body)
	}
	form := url.Values{"change": {id}, "back": {"/\\evil.example/"}, CSRFField: {f.csrf}}
	if st, loc, _ := f.do("POST", "/undo", form, nil); st != http.StatusSeeOther || loc != "/" {
		t.Errorf("undo with back=/\\evil.example/: %d to %q, want 303 to / (never to another site)", st, loc)
	}
	if got := f.read("0_Inbox/Buchtipps.md"); got != orig {
		t.Errorf("after undoing both appends the note is\n%s\nwant\n%s", got, orig)
	}
	// The undo is recorded as the owner's change.
	if b := f.page("/?actor=owner"); !strings.Contains(b, `undone: <span translate="no">another book</span>`) || !strings.Contains(b, "you (on this page)") {
		t.Errorf("the owner's undo is not in the activity, in words\n%s", b)
	}
	// The live refresh sees the newest change.
	_, _, latest := f.do("GET", "/activity/latest", nil, nil)
	if !strings.Contains(latest, " ") {
		t.Errorf("/activity/latest: %q", latest)
	}
}

// postLang is post with the browser's language.
func (f *fixture) postLang(p string, form url.Values, lang string) string {
	f.t.Helper()
	form.Set(CSRFField, f.csrf)
	st, loc, body := f.do("POST", p, form, map[string]string{"Accept-Language": lang})
	if st != http.StatusSeeOther {
		f.t.Fatalf("POST %s: %d\n%s", p, st, body)
	}
	_, _, body = f.do("GET", loc, nil, map[string]string{"Accept-Language": lang})
	return body
}

// page GETs a page of the signed-in owner.
func (f *fixture) page(p string) string {
	f.t.Helper()
	st, loc, body := f.do("GET", p, nil, nil)
	if st != 200 {
		f.t.Fatalf("GET %s: %d %q\n%s", p, st, loc, body)
	}
	return body
}

func TestTrash_RestoreWithSubNotesAndTakenName(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	ctx := context.Background()
	n := f.core.ReadNote(ctx, agent, tools.ReadNoteArgs{Path: "1_Projekte/Garten.md"})
	ver := n.Data.(tools.ReadNoteData).Note.Version
	r := f.core.DeleteNote(ctx, agent, tools.DeleteArgs{Path: "1_Projekte/Garten.md", ChangeSummary: "old garden", ExpectedVersion: ver})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	tp := r.Data.(tools.WriteData).TrashPath
	if _, err := os.Stat(filepath.Join(f.dir, "1_Projekte", "Garten", "Beet.md")); err == nil {
		t.Fatal("the sub-note did not go along to the trash")
	}
	body := f.page("/trash")
	for _, want := range []string{"1_Projekte/Garten.md", `key ‘<span translate="no">bot</span>’`, "old garden", `value="` + tp + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("trash lacks %q\n%s", want, body)
		}
	}
	body = f.post("/trash/restore", url.Values{"trash_path": {tp}, "back": {"/trash"}})
	if !strings.Contains(body, "Restored: 1_Projekte/Garten.md") {
		t.Errorf("restore: no confirmation\n%s", body)
	}
	if f.read("1_Projekte/Garten.md") != "# Garten\n\nBeete und Wege.\n" || f.read("1_Projekte/Garten/Beet.md") != "# Beet\n\nTomaten, Bohnen.\n" {
		t.Error("restore did not bring the note and its sub-note back")
	}
	// The Activity says it in words: restored, from the trash, by you.
	if b := f.page("/"); !strings.Contains(b, "restored from the trash on this page") || !strings.Contains(b, "from the trash</span>") || strings.Contains(b, ".trash/") {
		t.Errorf("the restore in the activity:\n%s", b)
	}

	// A name taken meanwhile: refused, with a free name offered.
	n = f.core.ReadNote(ctx, agent, tools.ReadNoteArgs{Path: "0_Inbox/Anruf Stadtwerke.md"})
	r = f.core.DeleteNote(ctx, agent, tools.DeleteArgs{Path: "0_Inbox/Anruf Stadtwerke.md", ChangeSummary: "done", ExpectedVersion: n.Data.(tools.ReadNoteData).Note.Version})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	tp = r.Data.(tools.WriteData).TrashPath
	must(t, os.WriteFile(filepath.Join(f.dir, "0_Inbox", "Anruf Stadtwerke.md"), []byte("# Anruf Stadtwerke\n\nneu\n"), 0o644))
	body = f.post("/trash/restore", url.Values{"trash_path": {tp}, "back": {"/trash"}})
	if !strings.Contains(body, "Not restored") || !strings.Contains(body, "A note already exists at 0_Inbox/Anruf Stadtwerke.md") {
		t.Fatalf("restore onto a taken name: not refused, or not said why\n%s", body)
	}
	m := regexp.MustCompile(`name="to" value="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("restore onto a taken name offers no free name\n%s", body)
	}
	body = f.post("/trash/restore", url.Values{"trash_path": {tp}, "to": {m[1]}})
	if !strings.Contains(body, "Restored: "+m[1]) {
		t.Errorf("restore under the free name %s: no confirmation\n%s", m[1], body)
	}
	if f.read("0_Inbox/Anruf Stadtwerke.md") != "# Anruf Stadtwerke\n\nneu\n" {
		t.Error("the restore overwrote the note that took the name")
	}
	f.read(m[1])
}

func TestTrash_EmptyAfterConfirmingTheCount(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	ctx := context.Background()
	for _, p := range []string{"0_Inbox/Buchtipps.md", "0_Inbox/Notiz 2026-11-18.md"} {
		n := f.core.ReadNote(ctx, agent, tools.ReadNoteArgs{Path: p})
		if r := f.core.DeleteNote(ctx, agent, tools.DeleteArgs{Path: p, ChangeSummary: "x", ExpectedVersion: n.Data.(tools.ReadNoteData).Note.Version}); r.IsError() {
			t.Fatal(r.Text)
		}
	}
	if b := f.page("/trash/empty?days=30"); !strings.Contains(b, "No note in the trash is older than that") {
		t.Errorf("empty older than 30 days of notes deleted now:\n%s", b)
	}
	b := f.page("/trash/empty?days=0")
	if !strings.Contains(b, "This deletes 2 notes for good") || !strings.Contains(b, "Delete 2 notes for good") {
		t.Fatalf("confirmation does not name the count:\n%s", b)
	}
	// A count that no longer holds is confirmed again, nothing deleted.
	b = f.post("/trash/empty", url.Values{"days": {"0"}, "count": {"1"}})
	if !strings.Contains(b, "now 2 notes would go") {
		t.Errorf("stale count: not asked again\n%s", b)
	}
	if items, _ := f.core.Vault().Trash(); len(items) != 2 {
		t.Fatalf("a stale confirmation emptied the trash: %d left", len(items))
	}
	b = f.post("/trash/empty", url.Values{"days": {"0"}, "count": {"2"}})
	if !strings.Contains(b, "Emptied: 2 notes deleted for good") || !strings.Contains(b, "The trash is empty") {
		t.Errorf("empty: %s", b)
	}
}

func TestNoteHistory_RestoreThisVersion(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	ctx := context.Background()
	orig := f.read("0_Inbox/Buchtipps.md")
	r := f.core.AppendToNote(ctx, agent, tools.AppendArgs{Path: "0_Inbox/Buchtipps.md", Content: "- Eins", ChangeSummary: "one"})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	v1 := f.read("0_Inbox/Buchtipps.md")
	if r := f.core.AppendToNote(ctx, agent, tools.AppendArgs{Path: "0_Inbox/Buchtipps.md", Content: "- Zwei", ChangeSummary: "two"}); r.IsError() {
		t.Fatal(r.Text)
	}
	body := f.page("/note?path=" + url.QueryEscape("0_Inbox/Buchtipps.md"))
	if !strings.Contains(body, `History of <span translate="no">0_Inbox/Buchtipps.md</span>`) || !strings.Contains(body, `<ins><span class="sr">added: </span>- Zwei</ins>`) || !strings.Contains(body, "(current)") {
		t.Fatalf("history page:\n%s", body)
	}
	// Each change offers the text as it was before it and after it, where
	// that is not the text now: "two" only before (its after is now),
	// "one" before and after.
	m := regexp.MustCompile(`name="version" value="([^"]+)"><input type="hidden" name="side" value="(before|after)"><input type="hidden" name="current" value="([^"]+)"`).FindAllStringSubmatch(body, -1)
	if len(m) != 3 || m[0][2] != "before" || m[1][2] != "before" || m[2][2] != "after" || m[0][1] != m[2][1] {
		t.Fatalf("want: two before, one before, one after (= two before), got %v\n%s", m, body)
	}
	for _, label := range []string{"Restore the text as it was before this change", "Restore the text as it was after this change"} {
		if !strings.Contains(body, label) {
			t.Errorf("the history lacks the button %q", label)
		}
	}
	after := m[2]
	// A stale "current" (the note changed after the page was shown) is
	// refused, as replace_note refuses it, and says what to do.
	body = f.post("/note/restore", url.Values{"path": {"0_Inbox/Buchtipps.md"}, "version": {after[1]}, "side": {"after"}, "current": {"0123456789ab"}})
	if !strings.Contains(body, "Not restored") || !strings.Contains(body, "The note changed since you opened this page") {
		t.Errorf("restore with a stale version: not refused, or not said why\n%s", body)
	}
	body = f.post("/note/restore", url.Values{"path": {"0_Inbox/Buchtipps.md"}, "version": {after[1]}, "side": {"after"}, "current": {after[3]}})
	if !strings.Contains(body, "Restored the text as it was after the change") {
		t.Errorf("restore the text after a change: no confirmation\n%s", body)
	}
	if got := f.read("0_Inbox/Buchtipps.md"); got != v1 || got == orig {
		t.Errorf("after restoring the text after the first append the note is\n%s\nwant\n%s", got, v1)
	}
	if !strings.Contains(body, "the text as it was after a change, restored on this page") {
		t.Errorf("the restore is not in the history as a new change with a summary\n%s", body)
	}
}

func TestConnections_CreateRevokeRights(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	f.csrfForm()
	form := url.Values{"name": {"laptop"}, "write": {"1"}, CSRFField: {f.csrf}}
	st, _, body := f.do("POST", "/connections/create", form, nil)
	if st != 200 {
		t.Fatalf("create key: %d\n%s", st, body)
	}
	secret := regexp.MustCompile(`<pre id="secret" translate="no">(vdk_[A-Za-z0-9_-]+)</pre>`).FindStringSubmatch(body)
	if secret == nil {
		t.Fatalf("the secret is not shown:\n%s", body)
	}
	for _, want := range []string{"claude mcp add --transport http notes " + f.base + "/mcp", "codex mcp add", "gemini mcp add", "mcpServers"} {
		if !strings.Contains(body, want) {
			t.Errorf("copy-ready lines lack %q", want)
		}
	}
	k, ok, err := f.keys.Lookup(secret[1])
	if err != nil || !ok || k.Rights.String() != "read,write" {
		t.Fatalf("the created key: %+v %v %v", k, ok, err)
	}
	// Shown once: the list never shows it again.
	if b := f.page("/connections"); strings.Contains(b, secret[1]) || !strings.Contains(b, "laptop") {
		t.Error("the list shows the secret again, or not the key")
	}
	// A bad name is explained.
	form = url.Values{"name": {"bad name"}, CSRFField: {f.csrf}}
	if st, _, body := f.do("POST", "/connections/create", form, nil); st != http.StatusUnprocessableEntity || !strings.Contains(body, "letters, digits") {
		t.Errorf("bad name: %d\n%s", st, body)
	}
	// Rights change: delete needs write, and the server applies it.
	b := f.post("/connections/rights", url.Values{"name": {"laptop"}, "delete": {"1"}})
	if !strings.Contains(b, "laptop now has the rights read, write, delete") {
		t.Errorf("change rights: %s", b)
	}
	b = f.post("/connections/revoke", url.Values{"name": {"laptop"}})
	if !strings.Contains(b, "Revoked laptop") {
		t.Errorf("revoke: %s", b)
	}
	if _, ok, _ := f.keys.Lookup(secret[1]); ok {
		t.Error("the revoked key still works")
	}
	// The revoked key's next MCP request is refused.
	req, _ := http.NewRequest("POST", f.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Authorization", "Bearer "+secret[1])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("MCP request with the revoked key: %d, want 401", resp.StatusCode)
	}
}

// csrfForm refreshes the CSRF token from the Connections page.
func (f *fixture) csrfForm() {
	m := csrfRE.FindStringSubmatch(f.page("/connections"))
	if m == nil {
		f.t.Fatal("no CSRF token on the Connections page")
	}
	f.csrf = m[1]
}

func TestLanguage_GermanByAcceptLanguage(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	_, _, body := f.do("GET", "/", nil, map[string]string{"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"})
	if !strings.Contains(body, `<html lang="de">`) || !strings.Contains(body, "Aktivität") || !strings.Contains(body, "Papierkorb") {
		t.Errorf("German page:\n%s", body)
	}
	_, _, body = f.do("GET", "/", nil, map[string]string{"Accept-Language": "fr-FR"})
	if !strings.Contains(body, `<html lang="en">`) || !strings.Contains(body, "Activity") {
		t.Errorf("a language the page lacks falls back to English:\n%s", body)
	}
	// Every German text exists in English and the other way round.
	for k := range de.msgs {
		if _, ok := en.msgs[k]; !ok {
			t.Errorf("German text %q has no English one", k)
		}
	}
	for k := range en.msgs {
		if _, ok := de.msgs[k]; !ok {
			t.Errorf("English text %q has no German one", k)
		}
	}
}

// An MCP client looking for OAuth sign-in finds the metadata; other
// unknown paths get the page's 404.
func TestNotFound_OAuthDiscoveryFindsSignIn(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"} {
		st, _, body := f.do("GET", p, nil, map[string]string{"Origin": "https://inspector.example"})
		if st != http.StatusOK || !strings.Contains(body, `"`+f.base+`"`) {
			t.Errorf("GET %s: %d\n%s", p, st, body)
		}
	}
	f.signIn()
	if st, _, body := f.do("GET", "/nope", nil, nil); st != http.StatusNotFound || !strings.Contains(body, "no such page") {
		t.Errorf("GET /nope: %d\n%s", st, body)
	}
}

// firstLine is an answer's first line, without its "error: " prefix.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimPrefix(s, "error: ")
}
