package keys

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLinks_OnceAndShortLived(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	now := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	a, exp, err := s.NewLink(now)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a, LinkPrefix) || !exp.Equal(now.Add(LinkTTL)) {
		t.Fatalf("link %q expires %v", a, exp)
	}
	b, _, err := s.NewLink(now)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, LinksName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), a) || strings.Contains(string(raw), b) || !strings.Contains(string(raw), HashSecret(a)) {
		t.Fatalf("the links file must hold hashes only:\n%s", raw)
	}
	if err := s.UseLink(a, now.Add(time.Minute)); err != nil {
		t.Fatalf("first use: %v", err)
	}
	if err := s.UseLink(a, now.Add(time.Minute)); !errors.Is(err, ErrLinkInvalid) {
		t.Fatalf("second use: %v, want ErrLinkInvalid", err)
	}
	if err := s.UseLink(b, now.Add(LinkTTL)); !errors.Is(err, ErrLinkInvalid) {
		t.Fatalf("use at expiry: %v, want ErrLinkInvalid", err)
	}
	if err := s.UseLink("vdo_unknown", now); !errors.Is(err, ErrLinkInvalid) {
		t.Fatalf("unknown: %v", err)
	}
	// A link is not an access key, and a key is not a link.
	if _, ok, _ := s.Lookup(a); ok {
		t.Fatal("a sign-in link was accepted as an access key")
	}
	secret, _, err := s.Create("bot", Rights{Read: true}, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.UseLink(secret, now); !errors.Is(err, ErrLinkInvalid) {
		t.Fatalf("an access key as a sign-in link: %v", err)
	}
}

func TestSetRights(t *testing.T) {
	s := Open(t.TempDir())
	now := time.Now()
	secret, _, err := s.Create("laptop", Rights{Read: true}, now)
	if err != nil {
		t.Fatal(err)
	}
	k, err := s.SetRights("LAPTOP", Rights{Read: true, Write: true, Delete: true})
	if err != nil || k.Rights.String() != "read,write,delete" {
		t.Fatalf("SetRights: %+v %v", k, err)
	}
	got, ok, err := s.Lookup(secret)
	if err != nil || !ok || got.Rights.String() != "read,write,delete" {
		t.Fatalf("after SetRights, Lookup: %+v %v %v", got, ok, err)
	}
	if _, err := s.SetRights("laptop", Rights{Read: true, Delete: true}); !errors.Is(err, ErrInvalid) {
		t.Errorf("delete without write: %v", err)
	}
	if _, err := s.SetRights("desk", Rights{Read: true}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "laptop") {
		t.Errorf("unknown name: %v", err)
	}
}

// TestAnonymousRefusalsTakeNoLock: what anyone can send — a made-up
// sign-in link, authorization code or refresh token — is refused without
// the store's lock, so a flood of them cannot keep real changes waiting
// until they give up (ErrBusy); a real one still waits its turn.
func TestAnonymousRefusalsTakeNoLock(t *testing.T) {
	s, c := oauthFixture(t)
	link, _, err := s.NewLink(t0)
	if err != nil {
		t.Fatal(err)
	}
	old := LockTimeout
	LockTimeout = 100 * time.Millisecond
	defer func() { LockTimeout = old }()
	held, err := lock(filepath.Join(s.dir, LockName), time.Second) // another process changing the store
	if err != nil {
		t.Fatal(err)
	}
	if err := s.UseLink(LinkPrefix+"made-up", t0); !errors.Is(err, ErrLinkInvalid) {
		t.Errorf("a made-up sign-in link while the store is locked: %v, want ErrLinkInvalid", err)
	}
	if _, err := s.ExchangeCode(CodePrefix+"made-up", c.ID, testRedirect, testVerifier, testResource, t0); !errors.Is(err, ErrInvalidGrant) {
		t.Errorf("a made-up code while the store is locked: %v, want ErrInvalidGrant", err)
	}
	if _, err := s.Refresh(RefreshPrefix+"made-up", c.ID, testResource, t0); !errors.Is(err, ErrInvalidGrant) {
		t.Errorf("a made-up refresh token while the store is locked: %v, want ErrInvalidGrant", err)
	}
	if err := s.UseLink(link, t0); !errors.Is(err, ErrBusy) {
		t.Errorf("the real link while the store is locked: %v, want ErrBusy", err)
	}
	held.unlock()
	if err := s.UseLink(link, t0); err != nil {
		t.Errorf("the real link once the store is free: %v", err)
	}
}
