package keys

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	testResource = "http://127.0.0.1:8765/mcp"
	testRedirect = "http://127.0.0.1:33418/callback"
	testVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk" // RFC 7636 appendix B
)

// oauthFixture is a store with one registered public client.
func oauthFixture(t *testing.T) (*Store, Client) {
	t.Helper()
	s := Open(t.TempDir())
	c, secret, err := s.RegisterClient(ClientMeta{Name: "Claude Code", RedirectURIs: []string{testRedirect}, AuthMethod: "none"}, t0)
	if err != nil || secret != "" || !strings.HasPrefix(c.ID, ClientIDPrefix) {
		t.Fatalf("RegisterClient: %+v %q %v", c, secret, err)
	}
	return s, c
}

func newTestCode(t *testing.T, s *Store, c Client, rights Rights, now time.Time) string {
	t.Helper()
	code, err := s.NewCode(CodeRequest{ClientID: c.ID, RedirectURI: testRedirect, RedirectSent: true, Challenge: S256(testVerifier), Resource: testResource, Name: "laptop", Rights: rights}, now)
	if err != nil || !strings.HasPrefix(code, CodePrefix) {
		t.Fatalf("NewCode: %q %v", code, err)
	}
	return code
}

func TestS256_RFC7636(t *testing.T) {
	if got, want := S256(testVerifier), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"; got != want {
		t.Errorf("S256(%q) = %q, want %q", testVerifier, got, want)
	}
}

func TestOAuth_CodeFlowAndLookup(t *testing.T) {
	s, c := oauthFixture(t)
	code := newTestCode(t, s, c, Rights{Read: true}, t0)
	tok, err := s.ExchangeCode(code, c.ID, testRedirect, testVerifier, testResource, t0.Add(10*time.Second))
	if err != nil {
		t.Fatalf("ExchangeCode: %v", err)
	}
	if !strings.HasPrefix(tok.Access, AccessPrefix) || !strings.HasPrefix(tok.Refresh, RefreshPrefix) || tok.ExpiresIn != AccessTTL {
		t.Fatalf("tokens: %+v", tok)
	}
	g, exp, ok, err := s.LookupAccess(tok.Access)
	if err != nil || !ok || g.Name != "laptop" || g.ClientName != "Claude Code" || g.Rights.String() != "read" || g.Resource != testResource {
		t.Fatalf("LookupAccess: %+v %v %v", g, ok, err)
	}
	if want := t0.Add(10 * time.Second).Add(AccessTTL); !exp.Equal(want) {
		t.Errorf("access token expires %v, want %v", exp, want)
	}
	// Only hashes are stored.
	b, err := os.ReadFile(filepath.Join(s.dir, OAuthName))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{code, tok.Access, tok.Refresh} {
		if strings.Contains(string(b), secret) || strings.Contains(string(b), strings.SplitN(secret, "_", 2)[1]) {
			t.Errorf("the store holds the secret %q:\n%s", secret, b)
		}
	}
	if fi, err := os.Stat(filepath.Join(s.dir, OAuthName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("store file mode: %v %v, want 0600", fi.Mode(), err)
	}
	if ok, err := s.Valid(GrantPrefix + g.ID); !ok || err != nil {
		t.Errorf("Valid(grant): %v %v", ok, err)
	}
	// A key's secret is never an access token, nor the other way round.
	if _, _, ok, _ := s.LookupAccess(tok.Refresh); ok {
		t.Error("a refresh token was accepted as an access token")
	}
	if _, ok, _ := s.Lookup(tok.Access); ok {
		t.Error("an access token was accepted as an access key")
	}
}

// TestOAuth_ExchangeRefusals: each refusal names the wrong part; a wrong
// verifier uses the code up, while a refusal of another client, of a
// request without a verifier, or of the code's own client (which holds
// the verifier) for a wrong redirect_uri or resource leaves it for the
// corrected request. A refusal that changes nothing writes nothing.
func TestOAuth_ExchangeRefusals(t *testing.T) {
	for _, tc := range []struct {
		name                           string
		client, redirect, verifier, rs string
		want                           string
		spent                          bool
	}{
		{"wrong PKCE verifier", "", testRedirect, strings.Repeat("x", 43), testResource, "code_verifier does not match", true},
		{"wrong verifier and redirect", "", "http://127.0.0.1:33418/other", strings.Repeat("x", 43), testResource, "code_verifier does not match", true},
		{"no verifier", "", testRedirect, "", testResource, "code_verifier is missing", false},
		{"redirect mismatch", "", "http://127.0.0.1:33418/other", testVerifier, testResource, `redirect_uri "http://127.0.0.1:33418/other" is not the address the code was sent to`, false},
		{"redirect left out", "", "", testVerifier, testResource, "redirect_uri is missing: the authorization request named " + testRedirect, false},
		{"another client", "vdclient_someoneelse", testRedirect, testVerifier, testResource, "issued to another client", false},
		{"another resource", "", testRedirect, testVerifier, "https://evil.example/mcp", `resource "https://evil.example/mcp" is not the one`, false},
		{"unknown code", "", testRedirect, testVerifier, testResource, "unknown or expired", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c := oauthFixture(t)
			code := newTestCode(t, s, c, Rights{Read: true}, t0)
			client := tc.client
			if client == "" {
				client = c.ID
			}
			sent := code
			if tc.name == "unknown code" {
				sent = CodePrefix + "nothing-like-it"
			}
			before, _ := os.Stat(filepath.Join(s.dir, OAuthName))
			_, err := s.ExchangeCode(sent, client, tc.redirect, tc.verifier, tc.rs, t0)
			var ge *GrantError
			if !errors.As(err, &ge) || !errors.Is(err, ErrInvalidGrant) || !strings.Contains(ge.Msg, tc.want) {
				t.Fatalf("got %v, want a GrantError with %q", err, tc.want)
			}
			after, _ := os.Stat(filepath.Join(s.dir, OAuthName))
			if written := !os.SameFile(before, after) || !before.ModTime().Equal(after.ModTime()); written != tc.spent {
				t.Errorf("the store was written: %v, want %v", written, tc.spent)
			}
			_, err = s.ExchangeCode(code, c.ID, testRedirect, testVerifier, testResource, t0)
			switch {
			case tc.spent && (err == nil || !strings.Contains(err.Error(), "used up by a token request with a wrong code_verifier")):
				t.Errorf("the right request after the refusal: %v, want the code used up", err)
			case !tc.spent && err != nil:
				t.Errorf("the right request after the refusal: %v, want tokens", err)
			}
		})
	}
}

// TestOAuth_RedirectURIAsRFC6749: the token request may leave redirect_uri
// out when the authorization request did (RFC 6749 §4.1.3); when it names
// one, it must be the address the code went to.
func TestOAuth_RedirectURIAsRFC6749(t *testing.T) {
	s, c := oauthFixture(t)
	code := func() string {
		code, err := s.NewCode(CodeRequest{ClientID: c.ID, RedirectURI: testRedirect, RedirectSent: false, Challenge: S256(testVerifier), Resource: testResource, Name: "laptop", Rights: Rights{Read: true}}, t0)
		if err != nil {
			t.Fatal(err)
		}
		return code
	}
	if _, err := s.ExchangeCode(code(), c.ID, "", testVerifier, testResource, t0); err != nil {
		t.Errorf("without redirect_uri in either request: %v", err)
	}
	if _, err := s.ExchangeCode(code(), c.ID, testRedirect, testVerifier, testResource, t0); err != nil {
		t.Errorf("redirect_uri only in the token request, the address the code went to: %v", err)
	}
	if _, err := s.ExchangeCode(code(), c.ID, "http://127.0.0.1:33418/other", testVerifier, testResource, t0); err == nil || !strings.Contains(err.Error(), "not the address the code was sent to") {
		t.Errorf("another redirect_uri only in the token request: %v", err)
	}
}

func TestOAuth_CodeExpiresAndReuseRevokes(t *testing.T) {
	s, c := oauthFixture(t)
	code := newTestCode(t, s, c, Rights{Read: true}, t0)
	if _, err := s.ExchangeCode(code, c.ID, testRedirect, testVerifier, testResource, t0.Add(CodeTTL)); err == nil || !strings.Contains(err.Error(), "unknown or expired") {
		t.Errorf("an expired code: got %v", err)
	}

	code = newTestCode(t, s, c, Rights{Read: true}, t0)
	tok, err := s.ExchangeCode(code, c.ID, testRedirect, testVerifier, testResource, t0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.ExchangeCode(code, c.ID, testRedirect, testVerifier, testResource, t0.Add(time.Second))
	if err == nil || !strings.Contains(err.Error(), "used already; the connection it made is revoked") {
		t.Fatalf("a reused code: got %v", err)
	}
	if _, _, ok, err := s.LookupAccess(tok.Access); ok || err != nil {
		t.Errorf("the tokens of a replayed code still work: %v %v", ok, err)
	}
	if _, err := s.Refresh(tok.Refresh, c.ID, testResource, t0.Add(time.Second)); !errors.Is(err, ErrInvalidGrant) {
		t.Errorf("the refresh token of a replayed code still works: %v", err)
	}
}

func TestOAuth_RefreshRotatesAndReuseRevokes(t *testing.T) {
	s, c := oauthFixture(t)
	tok, err := s.ExchangeCode(newTestCode(t, s, c, Rights{Read: true, Write: true}, t0), c.ID, testRedirect, testVerifier, testResource, t0)
	if err != nil {
		t.Fatal(err)
	}
	t1 := t0.Add(2 * time.Hour)
	tok2, err := s.Refresh(tok.Refresh, c.ID, "", t1)
	if err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	if tok2.Refresh == tok.Refresh || tok2.Access == tok.Access {
		t.Fatalf("refresh did not rotate: %+v → %+v", tok, tok2)
	}
	if g, exp, ok, _ := s.LookupAccess(tok2.Access); !ok || g.Rights.String() != "read,write" || !exp.Equal(t1.Add(AccessTTL)) {
		t.Errorf("the refreshed access token: %+v %v %v", g, exp, ok)
	}
	// The old access token (expired at t1) is dropped at the rotation.
	if _, _, ok, _ := s.LookupAccess(tok.Access); ok {
		t.Error("the expired access token is still stored after a refresh")
	}
	if _, err := s.Refresh(tok2.Refresh, "vdclient_other", testResource, t1); err == nil || !strings.Contains(err.Error(), "another client") {
		t.Errorf("refresh by another client: %v", err)
	}
	if _, err := s.Refresh(tok2.Refresh, c.ID, "https://evil.example/mcp", t1); err == nil || !strings.Contains(err.Error(), "resource") {
		t.Errorf("refresh for another resource: %v", err)
	}
	// The first refresh token, used again: whoever has it is not the
	// client, so the connection ends.
	_, err = s.Refresh(tok.Refresh, c.ID, testResource, t1.Add(time.Minute))
	if err == nil || !strings.Contains(err.Error(), "used already; the connection is revoked") {
		t.Fatalf("refresh token reuse: got %v", err)
	}
	if _, _, ok, _ := s.LookupAccess(tok2.Access); ok {
		t.Error("after a refresh token reuse the connection still works")
	}
	if _, err := s.Refresh(tok2.Refresh, c.ID, testResource, t1.Add(time.Minute)); err == nil || !strings.Contains(err.Error(), "unknown, or its connection was revoked") {
		t.Errorf("the current refresh token after reuse detection: %v", err)
	}
	if gs, _ := s.Grants(); len(gs) != 0 {
		t.Errorf("grants after reuse detection: %+v", gs)
	}
}

func TestOAuth_RevokeAndRights(t *testing.T) {
	s, c := oauthFixture(t)
	tok, err := s.ExchangeCode(newTestCode(t, s, c, Rights{Read: true}, t0), c.ID, testRedirect, testVerifier, testResource, t0)
	if err != nil {
		t.Fatal(err)
	}
	// Another process (its own Store on the same dir) sees the change on
	// its next lookup.
	other := Open(s.dir)
	if _, _, ok, _ := other.LookupAccess(tok.Access); !ok {
		t.Fatal("the other process does not see the grant")
	}
	g, err := s.SetGrantRights(tok.Grant.ID, Rights{Read: true, Write: true, Delete: true}, t0)
	if err != nil || g.Rights.String() != "read,write,delete" {
		t.Fatalf("SetGrantRights: %+v %v", g, err)
	}
	if g, _, _, _ := other.LookupAccess(tok.Access); g.Rights.String() != "read,write,delete" {
		t.Errorf("the other process sees the rights %q", g.Rights)
	}
	if _, err := s.SetGrantRights(tok.Grant.ID, Rights{Read: true, Delete: true}, t0); !errors.Is(err, ErrInvalid) {
		t.Errorf("delete without write: %v", err)
	}
	if _, err := s.RevokeGrant(tok.Grant.ID, t0); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := other.LookupAccess(tok.Access); ok || err != nil {
		t.Errorf("a revoked grant's token: %v %v", ok, err)
	}
	if ok, _ := other.Valid(GrantPrefix + tok.Grant.ID); ok {
		t.Error("Valid(revoked grant) = true")
	}
	if _, err := s.RevokeGrant(tok.Grant.ID, t0); !errors.Is(err, ErrGrantNotFound) {
		t.Errorf("revoking twice: %v", err)
	}
}

// A signed-in connection may be limited to some vaults, each with its
// rights, as a key may: set when the owner approves it (the code carries
// them to the grant) and changed later; every process sees them.
func TestOAuth_GrantVaults(t *testing.T) {
	s, c := oauthFixture(t)
	rw := Rights{Read: true, Write: true}
	code, err := s.NewCode(CodeRequest{ClientID: c.ID, RedirectURI: testRedirect, RedirectSent: true, Challenge: S256(testVerifier),
		Resource: testResource, Name: "laptop", Rights: rw, Vaults: map[string]Rights{"team": {}, "privat": {Read: true}}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.ExchangeCode(code, c.ID, testRedirect, testVerifier, testResource, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := VaultsString(tok.Grant.Vaults); got != "privat=read team=read,write" {
		t.Errorf("the grant's vaults: %q, want privat=read team=read,write (a vault without rights gets the connection's)", got)
	}
	other := Open(s.dir)
	if g, _, ok, err := other.LookupAccess(tok.Access); !ok || err != nil || VaultsString(g.Vaults) != "privat=read team=read,write" {
		t.Errorf("another process looks the token up as %+v %v %v", g, ok, err)
	}
	g, err := s.SetGrantVaults(tok.Grant.ID, map[string]Rights{"team": {Read: true}}, t0)
	if err != nil || VaultsString(g.Vaults) != "team=read" {
		t.Fatalf("SetGrantVaults(team=read): %+v %v", g, err)
	}
	if g, _, _, _ := other.LookupAccess(tok.Access); VaultsString(g.Vaults) != "team=read" {
		t.Errorf("the other process sees the vaults %q", VaultsString(g.Vaults))
	}
	for _, bad := range []map[string]Rights{{"te am": {Read: true}}, {"team": {Read: true, Delete: true}}, {"team": {Read: true}, "TEAM": {Read: true}}} {
		if _, err := s.SetGrantVaults(tok.Grant.ID, bad, t0); !errors.Is(err, ErrInvalidVaults) {
			t.Errorf("SetGrantVaults(%v): %v, want ErrInvalidVaults", bad, err)
		}
	}
	if _, err := s.NewCode(CodeRequest{ClientID: c.ID, RedirectURI: testRedirect, Challenge: S256(testVerifier), Resource: testResource,
		Name: "x", Rights: rw, Vaults: map[string]Rights{"a:b": {}}}, t0); !errors.Is(err, ErrInvalidVaults) {
		t.Errorf("NewCode with the vault a:b: %v, want ErrInvalidVaults", err)
	}
	if g, err := s.SetGrantVaults(tok.Grant.ID, nil, t0); err != nil || g.Vaults != nil {
		t.Errorf("SetGrantVaults(nil): %+v %v, want every vault again", g, err)
	}
	if _, err := s.SetGrantVaults("nope", nil, t0); !errors.Is(err, ErrGrantNotFound) {
		t.Errorf("SetGrantVaults of an unknown grant: %v", err)
	}
}

func TestOAuth_GrantUsedIsFlushed(t *testing.T) {
	s, c := oauthFixture(t)
	tok, err := s.ExchangeCode(newTestCode(t, s, c, Rights{Read: true}, t0), c.ID, testRedirect, testVerifier, testResource, t0)
	if err != nil {
		t.Fatal(err)
	}
	used := t0.Add(5 * time.Minute)
	s.GrantUsed(tok.Grant.ID, used)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	gs, _ := s.Grants()
	if len(gs) != 1 || !gs[0].LastUsed.Equal(used) {
		t.Errorf("last used: %+v, want %v", gs, used)
	}
	if _, err := os.Stat(filepath.Join(s.dir, FileName)); !os.IsNotExist(err) {
		t.Errorf("flushing a grant's use wrote the key file: %v", err)
	}
}

func TestOAuth_ClientSecretAndBound(t *testing.T) {
	s := Open(t.TempDir())
	c, secret, err := s.RegisterClient(ClientMeta{Name: "web", RedirectURIs: []string{"https://claude.ai/api/mcp/auth_callback"}, AuthMethod: "client_secret_post"}, t0)
	if err != nil || !strings.HasPrefix(secret, ClientSecretPrefix) {
		t.Fatalf("RegisterClient: %v %q", err, secret)
	}
	if !c.CheckSecret(secret) || c.CheckSecret(secret+"x") || c.CheckSecret("") {
		t.Error("CheckSecret accepts the wrong secret or refuses the right one")
	}
	// A grant keeps its client; idle clients beyond MaxClients go.
	tok, err := s.ExchangeCode(func() string {
		code, err := s.NewCode(CodeRequest{ClientID: c.ID, RedirectURI: c.RedirectURIs[0], Challenge: S256(testVerifier), Resource: testResource, Name: "web", Rights: Rights{Read: true}}, t0)
		if err != nil {
			t.Fatal(err)
		}
		return code
	}(), c.ID, c.RedirectURIs[0], testVerifier, testResource, t0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < MaxPendingClients+5; i++ {
		if _, _, err := s.RegisterClient(ClientMeta{Name: fmt.Sprint("spam ", i), RedirectURIs: []string{testRedirect}, AuthMethod: "none"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := s.readOAuth()
	if len(f.Clients) != MaxPendingClients+1 || f.Clients[1].Name != "spam 5" {
		t.Errorf("%d clients stored (the first pending %q), want %d pending and the approved one, the oldest pending dropped", len(f.Clients), f.Clients[1].Name, MaxPendingClients)
	}
	if _, ok, _ := s.Client(c.ID); !ok {
		t.Error("the client with a grant was dropped")
	}
	if _, _, ok, _ := s.LookupAccess(tok.Access); !ok {
		t.Error("the grant stopped working")
	}
}

// TestOAuth_PendingClientsExpire: a client the owner never approved is
// dropped once it has waited PendingClientTTL; one with a connection, or
// with a code the owner just approved, stays.
func TestOAuth_PendingClientsExpire(t *testing.T) {
	s, approved := oauthFixture(t)
	if _, err := s.ExchangeCode(newTestCode(t, s, approved, Rights{Read: true}, t0), approved.ID, testRedirect, testVerifier, testResource, t0); err != nil {
		t.Fatal(err)
	}
	pending, _, err := s.RegisterClient(ClientMeta{Name: "never approved", RedirectURIs: []string{testRedirect}, AuthMethod: "none"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	waiting, _, err := s.RegisterClient(ClientMeta{Name: "approved just now", RedirectURIs: []string{testRedirect}, AuthMethod: "none"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	later := t0.Add(PendingClientTTL + time.Minute)
	newTestCode(t, s, waiting, Rights{Read: true}, later) // also the change that prunes
	for _, tc := range []struct {
		c    Client
		want bool
	}{{approved, true}, {pending, false}, {waiting, true}} {
		if _, ok, err := s.Client(tc.c.ID); ok != tc.want || err != nil {
			t.Errorf("%s after %s: registered %v (%v), want %v", tc.c.Name, PendingClientTTL, ok, err, tc.want)
		}
	}
	if ok, _ := s.ClientApproved(approved.ID); !ok {
		t.Error("ClientApproved: false for a client with a grant")
	}
	if ok, _ := s.ClientApproved(waiting.ID); ok {
		t.Error("ClientApproved: true for a client with only a code")
	}
}

// TestOAuth_AccessTokensBounded: refreshing over and over keeps at most
// accessKept live access tokens of a grant, the newest.
func TestOAuth_AccessTokensBounded(t *testing.T) {
	s, c := oauthFixture(t)
	tok, err := s.ExchangeCode(newTestCode(t, s, c, Rights{Read: true}, t0), c.ID, testRedirect, testVerifier, testResource, t0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 * accessKept {
		if tok, err = s.Refresh(tok.Refresh, c.ID, testResource, t0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	gs, _ := s.Grants()
	if len(gs) != 1 || len(gs[0].Access) != accessKept {
		t.Fatalf("after %d refreshes within an hour: %d access tokens kept, want %d", 3*accessKept, len(gs[0].Access), accessKept)
	}
	if _, _, ok, _ := s.LookupAccess(tok.Access); !ok {
		t.Error("the newest access token does not work")
	}
}

// BenchmarkOAuth_TokenRequestsAtCap: what an anonymous token request costs
// the store with the registrations at their bound (MaxPendingClients of
// the largest size): an unknown client, an unknown code of a known client.
// Neither reads the file (0.6 s of CPU each, before, at 10 MB).
func BenchmarkOAuth_TokenRequestsAtCap(b *testing.B) {
	s := Open(b.TempDir())
	uris := make([]string, 4)
	for i := range uris {
		uris[i] = "https://client.example/" + strings.Repeat("x", 1000) + fmt.Sprint(i)
	}
	var last Client
	err := s.changeOAuth(t0, func(f *oauthFile) error {
		for i := range MaxPendingClients {
			last = Client{ID: fmt.Sprintf("%s%022d", ClientIDPrefix, i), Name: strings.Repeat("n", 100), RedirectURIs: uris, AuthMethod: "none", Created: t0}
			f.Clients = append(f.Clients, last)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(s.dir, OAuthName))
	b.Logf("oauth.json: %d KB", fi.Size()>>10)
	b.Run("unknown client", func(b *testing.B) {
		for b.Loop() {
			if _, ok, err := s.Client("vdclient_nobody"); ok || err != nil {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("unknown code", func(b *testing.B) {
		for b.Loop() {
			if _, ok, _ := s.Client(last.ID); !ok {
				b.Fatal("client")
			}
			if _, err := s.ExchangeCode("vdc_nothing", last.ID, "", testVerifier, "", t0); !errors.Is(err, ErrInvalidGrant) {
				b.Fatal(err)
			}
		}
	})
}
