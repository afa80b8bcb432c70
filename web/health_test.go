package web

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/mcpserver"
	"github.com/vaultd/vaultd/tools"
)

func TestHealth_RulesRefusalsIndex(t *testing.T) {
	f := newFixtureWith(t, true)
	f.signIn()
	ctx := context.Background()
	notes, _ := f.core.Vault().Notes()
	body := f.page("/health")
	rl, err := f.core.Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Rules and health", `<a href="/health" aria-current="page">Rules &amp; health</a>`,
		"Healthy: up to date",
		`<dd id="notes-indexed">` + strconv.Itoa(len(notes)) + `</dd>`,
		`<dd id="vault-notes">` + strconv.Itoa(len(notes)) + ` (`,
		"9_System/Regeln für Agenten.md",
		// The same texts the core gives agents.
		`<pre class="agent-text" id="instructions" lang="en" translate="no">` + f.core.InstructionsFor(tools.Perms{Read: true, Write: true}) + `</pre>`,
		`<pre class="agent-text" id="rules-summary" lang="en" translate="no">` + strings.TrimSpace(rl.Summary()) + `</pre>`,
		"No agent's call was refused since vaultd started.",
		`<dd id="index-updated"><time datetime="20`, // the fixture's index was just built
		"not followed", // the fixture's index does not watch the files
	} {
		if !strings.Contains(strings.ReplaceAll(body, "&amp;", "&"), strings.ReplaceAll(want, "&amp;", "&")) {
			t.Errorf("/health lacks %q\n%s", want, body)
		}
	}

	// An agent bumps into a rule and into its rate limit.
	_, k, err := f.keys.CreateWith("bot", keys.Rights{Read: true, Write: true}, keys.Limits{WritesPerMinute: 1}, time.Now())
	must(t, err)
	cn := tools.NewConnection("key:"+k.Name, tools.Perms{Read: true, Write: true}, mcpserver.KeyLimits(tools.Limits{}, k.Limits))
	call := func(tool string, args map[string]any) *tools.Result {
		return f.core.CallOn(ctx, cn, tools.Caller{Actor: cn.Actor, Perms: cn.Perms}, tool, args)
	}
	call("append_to_note", map[string]any{"path": "4_Archiv/Sommerfest 2026.md", "content": "- neu", "change_summary": "x"})
	if r := call("append_to_note", map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "- eins", "change_summary": "x"}); r.IsError() {
		t.Fatal(r.Text)
	}
	call("append_to_note", map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "- zwei", "change_summary": "x"})

	body = f.page("/health")
	for _, want := range []string{
		"The latest 2; 2 refused since vaultd started.",
		`<tr class="refusal" data-kind="rate_limit">`, `<tr class="refusal" data-kind="rule">`,
		`<a href="/?actor=key%3abot">key ‘<span translate="no">bot</span>’</a>`, "append_to_note", "4_Archiv/Sommerfest 2026.md",
		"a rule</strong> · rule 4_Archiv/** (<span translate=\"no\">9_System/Regeln für Agenten.md</span>)", "4_Archiv/Sommerfest 2026.md is protected",
		"the rate limit</strong>", "this connection may make 1 writes per minute",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/health after two refusals lacks %q\n%s", want, body)
		}
	}
	m := regexp.MustCompile(`<dd id="index-updated"><time datetime="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("/health shows no last update of the index")
	}
	if u, err := time.Parse(time.RFC3339, m[1]); err != nil || time.Since(u) > time.Minute || time.Since(u) < -time.Second {
		t.Errorf("the index's last update %q, want just now (it took in the append)", m[1])
	}
	// The rate limit's refusals count on the key's row in Connections.
	if b := f.page("/connections"); !strings.Contains(b, "1 calls refused by the rate limit in the last hour") || !strings.Contains(b, "1 writes a minute (its own)") {
		t.Errorf("Connections does not count the key's refusals:\n%s", b)
	}
	_, _, de := f.do("GET", "/health", nil, map[string]string{"Accept-Language": "de-DE"})
	for _, want := range []string{"Regeln und Zustand", "In Ordnung: aktuell", "das Ratenlimit", "Verweigerte Aufrufe"} {
		if !strings.Contains(de, want) {
			t.Errorf("German /health lacks %q", want)
		}
	}
}

func TestHealth_WithoutIndex(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	if b := f.page("/health"); !strings.Contains(b, "No search index in this process") || strings.Contains(b, "notes-indexed") {
		t.Errorf("/health without an index:\n%s", b)
	}
}

// Every view and action added to the page needs the owner's session.
func TestSignIn_RequiredOnNewViews(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"/health", "/note/diff?path=" + url.QueryEscape("0_Inbox/Buchtipps.md"), "/?note=" + url.QueryEscape("0_Inbox/Buchtipps.md")} {
		st, loc, _ := f.do("GET", p, nil, nil)
		if st != http.StatusSeeOther || loc != "/signin" {
			t.Errorf("GET %s without sign-in: %d %q, want 303 to /signin", p, st, loc)
		}
	}
	if _, _, err := f.keys.Create("bot", keys.Rights{Read: true}, time.Now()); err != nil {
		t.Fatal(err)
	}
	st, _, body := f.do("POST", "/connections/limits", url.Values{"name": {"bot"}, "writes_per_minute": {"1"}}, nil)
	if st != http.StatusForbidden || !strings.Contains(body, "not signed in") {
		t.Errorf("POST /connections/limits without sign-in: %d\n%s", st, body)
	}
	// Signed in, but without the CSRF token: refused, nothing changed.
	f.signIn()
	st, _, _ = f.do("POST", "/connections/limits", url.Values{"name": {"bot"}, "writes_per_minute": {"1"}}, nil)
	if ks, _ := f.keys.List(); st != http.StatusForbidden || ks[0].Limits != (keys.Limits{}) {
		t.Errorf("POST /connections/limits without the CSRF token: %d, limits %+v", st, ks[0].Limits)
	}
}

// The last git sync round, and what the team's .gitattributes do to
// notes, on the Rules & health view: a teammate committed a line that
// would turn notes into UTF-16 and one that switches merging off.
func TestHealth_GitSyncAttributes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_SYSTEM", "/dev/null")
	f := newFixture(t)
	f.signIn()
	if strings.Contains(f.page("/health"), `id="h-sync"`) {
		t.Fatal("a vault that never synced shows a sync section")
	}
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.org"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	root := t.TempDir()
	git(f.dir, "init", "-q", "-b", "main")
	git(f.dir, "add", "-A")
	git(f.dir, "commit", "-qm", "start")
	git(root, "init", "-q", "--bare", "-b", "main", "remote.git")
	git(f.dir, "remote", "add", "origin", filepath.Join(root, "remote.git"))
	git(f.dir, "push", "-q", "-u", "origin", "main")
	git(root, "clone", "-q", "remote.git", "ben")
	must(t, os.WriteFile(filepath.Join(root, "ben", ".gitattributes"), []byte("*.md working-tree-encoding=UTF-16LE-BOM\n4_Archiv/** merge=binary\n"), 0o644))
	git(filepath.Join(root, "ben"), "add", ".gitattributes")
	git(filepath.Join(root, "ben"), "commit", "-qm", "attributes")
	git(filepath.Join(root, "ben"), "push", "-q")
	if r := f.core.Vault().Sync(context.Background()); !r.OK() || len(r.Attributes) != 2 {
		t.Fatalf("sync: %+v", r)
	}
	body := f.page("/health")
	for _, want := range []string{
		`<h2 id="h-sync">git sync</h2>`, "Last round <time datetime=", "merged 1 commit from origin/main (fast-forward)",
		`<code translate="no">working-tree-encoding=UTF-16LE-BOM</code>`, "git would write these notes to the work tree as UTF-16LE-BOM text", "vaultd keeps them UTF-8 in this clone (.git/info/attributes)",
		`<code translate="no">merge=binary</code>`, "git does not merge them: two-sided changes stop on a conflict that keeps ours", "vaultd's merge driver is not registered in this clone",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/health lacks %q\n%s", want, body)
		}
	}
}
