package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/keys"
)

func TestConnections_RateLimits(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	f.csrfForm()
	form := url.Values{"name": {"night"}, "write": {"1"}, "writes_per_minute": {"2"}, "deletes_per_minute": {""}, CSRFField: {f.csrf}}
	st, _, body := f.do("POST", "/connections/create", form, nil)
	if st != 200 {
		t.Fatalf("create a key with its own limit: %d\n%s", st, body)
	}
	secret := regexp.MustCompile(`<pre id="secret" translate="no">(vdk_[A-Za-z0-9_-]+)</pre>`).FindStringSubmatch(body)
	if secret == nil {
		t.Fatalf("no secret shown\n%s", body)
	}
	k, ok, err := f.keys.Lookup(secret[1])
	if err != nil || !ok || k.Limits != (keys.Limits{WritesPerMinute: 2}) {
		t.Fatalf("the created key: %+v %v %v; want 2 writes a minute of its own", k, ok, err)
	}
	if _, _, err := f.keys.Create("plain", keys.Rights{Read: true}, time.Now()); err != nil {
		t.Fatal(err)
	}
	b := f.page("/connections")
	for _, want := range []string{"2 writes a minute (its own), 10 deletes a minute (the server's)",
		"60 writes a minute (the server's), 10 deletes a minute (the server's)",
		`name="writes_per_minute" type="number" min="0" max="3600" inputmode="numeric" value="2" placeholder="60"`,
		"Rate limits left empty are the server's: 60 writes and 10 deletes a minute"} {
		if !strings.Contains(b, want) {
			t.Errorf("Connections lacks %q\n%s", want, b)
		}
	}
	b = f.post("/connections/limits", url.Values{"name": {"night"}, "writes_per_minute": {"30"}, "deletes_per_minute": {"1"}})
	if !strings.Contains(b, "night now has the rate limits: 30 writes a minute (its own), 1 deletes a minute (its own)") {
		t.Errorf("set limits: %s", b)
	}
	if k, _, _ := f.keys.Lookup(secret[1]); k.Limits != (keys.Limits{WritesPerMinute: 30, DeletesPerMinute: 1}) {
		t.Errorf("after setting them on the page the key has %+v", k.Limits)
	}
	b = f.post("/connections/limits", url.Values{"name": {"night"}, "writes_per_minute": {""}, "deletes_per_minute": {"0"}})
	if !strings.Contains(b, "night now has the rate limits: 60 writes a minute (the server's)") {
		t.Errorf("limits back to the server's: %s", b)
	}
	for _, c := range []struct{ w, want string }{
		{"-1", "writes per minute must be between 1 and 3600, or 0 for the server's default; got -1"},
		{"viele", `writes per minute "viele" is not a number`},
	} {
		b := f.post("/connections/limits", url.Values{"name": {"night"}, "writes_per_minute": {c.w}})
		if !strings.Contains(b, "Not done</strong>\n  <p class=\"f-text\">Give rate limits as whole numbers from 1 to 3600 a minute, or leave them empty for the server's.</p>") || !strings.Contains(b, c.want) {
			t.Errorf("limit %q: want %q\n%s", c.w, c.want, b)
		}
	}
	if b := f.post("/connections/limits", url.Values{"name": {"nobody"}, "writes_per_minute": {"5"}}); !strings.Contains(b, `There is no key named “nobody” (revoked already?).`) {
		t.Errorf("limits of an unknown key: %s", b)
	}
	form = url.Values{"name": {"fast"}, "writes_per_minute": {"99999"}, CSRFField: {f.csrf}}
	if st, _, body := f.do("POST", "/connections/create", form, nil); st != http.StatusUnprocessableEntity || !strings.Contains(body, "between 1 and 3600") {
		t.Errorf("create with a limit too high: %d\n%s", st, body)
	}
	if ks, _ := f.keys.List(); len(ks) != 2 {
		t.Errorf("a refused create made a key: %v", ks)
	}
	// German.
	_, _, b = f.do("GET", "/connections", nil, map[string]string{"Accept-Language": "de"})
	if !strings.Contains(b, "60 Schreibvorgänge pro Minute (das des Servers)") {
		t.Errorf("German limits:\n%s", b)
	}
}
