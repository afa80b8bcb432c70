package keys

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)

func TestParseRights(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      bool
	}{
		{"read", "read", false},
		{"read,write", "read,write", false},
		{"write", "read,write", false},
		{" Read , WRITE ,delete", "read,write,delete", false},
		{"read,delete", "", true},
		{"", "", true},
		{"admin", "", true},
	} {
		r, err := ParseRights(tc.in)
		if tc.err {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("ParseRights(%q): got %v, %v; want ErrInvalid", tc.in, r, err)
			}
			continue
		}
		if err != nil || r.String() != tc.want {
			t.Errorf("ParseRights(%q): got %q, %v; want %q", tc.in, r, err, tc.want)
		}
	}
}

func TestValidName(t *testing.T) {
	for _, ok := range []string{"laptop", "ci-bot", "a", "Team.Anna_2"} {
		if err := ValidName(ok); err != nil {
			t.Errorf("ValidName(%q): got %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "-x", "a b", "ä", "a/b", strings.Repeat("x", 41), "key:x"} {
		if err := ValidName(bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("ValidName(%q): got %v, want ErrInvalidName", bad, err)
		}
	}
}

func TestStore_CreateListRevoke(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	if ks, err := s.List(); err != nil || len(ks) != 0 {
		t.Fatalf("empty store: got %v, %v; want no keys", ks, err)
	}
	secret, k, err := s.Create("laptop", Rights{Read: true, Write: true}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, SecretPrefix) || len(secret) != len(SecretPrefix)+43 {
		t.Errorf("secret %q: want %s and 43 base64url characters", secret, SecretPrefix)
	}
	if k.Hash != HashSecret(secret) || !k.Created.Equal(t0) {
		t.Errorf("key %+v: want the secret's hash and created %s", k, t0)
	}
	raw, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), secret) || strings.Contains(string(raw), strings.TrimPrefix(secret, SecretPrefix)) {
		t.Fatalf("the store holds the secret:\n%s", raw)
	}
	if !strings.Contains(string(raw), `"rights": [`) || !strings.Contains(string(raw), k.Hash) {
		t.Errorf("store file:\n%s\nwant rights as a list and the hash", raw)
	}
	if fi, _ := os.Stat(filepath.Join(dir, FileName)); fi.Mode().Perm() != 0o600 {
		t.Errorf("store mode: got %v, want 0600", fi.Mode().Perm())
	}

	if _, _, err := s.Create("LAPTOP", Rights{Read: true}, t0); !errors.Is(err, ErrExists) {
		t.Errorf("Create of an existing name (other case): got %v, want ErrExists", err)
	}
	if _, _, err := s.Create("bad name", Rights{Read: true}, t0); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Create(\"bad name\"): got %v, want ErrInvalidName", err)
	}
	if _, _, err := s.Create("ci", Rights{}, t0); !errors.Is(err, ErrInvalid) {
		t.Errorf("Create without rights: got %v, want ErrInvalid", err)
	}

	got, ok, err := s.Lookup(secret)
	if err != nil || !ok || got.Name != "laptop" || got.Rights.String() != "read,write" {
		t.Fatalf("Lookup: got %+v, %v, %v; want laptop with read,write", got, ok, err)
	}
	for _, wrong := range []string{"", secret + "x", strings.TrimPrefix(secret, SecretPrefix), k.Hash} {
		if _, ok, _ := s.Lookup(wrong); ok {
			t.Errorf("Lookup(%q): got a key, want none", wrong)
		}
	}

	if _, err := s.Revoke("nope"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "the keys are laptop") {
		t.Errorf("Revoke(nope): got %v, want ErrNotFound listing laptop", err)
	}
	if _, err := s.Revoke("Laptop"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Lookup(secret); ok {
		t.Error("Lookup after Revoke: got the key, want none")
	}
	if _, err := s.Revoke("laptop"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no access keys") {
		t.Errorf("Revoke on an empty store: got %v, want ErrNotFound saying there are none", err)
	}
}

// A server's store sees a key revoked through another store (another
// process) on its next lookup.
func TestStore_LookupSeesOtherWriters(t *testing.T) {
	dir := t.TempDir()
	server, cli := Open(dir), Open(dir)
	secret, _, err := cli.Create("anna", Rights{Read: true}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := server.Lookup(secret); !ok {
		t.Fatal("Lookup of a key created by another store: got none")
	}
	secret2, _, err := cli.Create("ben", Rights{Read: true}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := server.Lookup(secret2); !ok {
		t.Fatal("Lookup of a second key created by another store: got none")
	}
	if _, err := cli.Revoke("anna"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := server.Lookup(secret); ok {
		t.Fatal("Lookup of a key revoked by another store: still accepted")
	}
	if _, ok, _ := server.Lookup(secret2); !ok {
		t.Fatal("the other key stopped working")
	}
	// Valid answers by hash, for a key whose secret the server no longer
	// holds (an open event stream).
	if ok, err := server.Valid(HashSecret(secret)); ok || err != nil {
		t.Errorf("Valid of the revoked key: got %v, %v; want false", ok, err)
	}
	if ok, err := server.Valid(HashSecret(secret2)); !ok || err != nil {
		t.Errorf("Valid of the remaining key: got %v, %v; want true", ok, err)
	}
}

func TestStore_UsedAndFlush(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	secret, k, err := s.Create("anna", Rights{Read: true}, t0)
	if err != nil {
		t.Fatal(err)
	}
	_, gone, err := s.Create("ben", Rights{Read: true}, t0)
	if err != nil {
		t.Fatal(err)
	}
	used := t0.Add(time.Hour)
	s.Used(k, used)
	s.Used(gone, used)
	// The first use is written at once (in the background); wait for it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		ks, _ := s.List()
		if len(ks) == 2 && ks[0].LastUsed.Equal(used) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("last used not written: %+v", ks)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := Open(dir).Revoke("ben"); err != nil {
		t.Fatal(err)
	}
	// A later use within the granularity waits for Flush.
	s.Used(k, used.Add(10*time.Second))
	s.Used(gone, used.Add(10*time.Second))
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	ks, _ := s.List()
	if len(ks) != 1 || ks[0].Name != "anna" || !ks[0].LastUsed.Equal(used.Add(10*time.Second)) {
		t.Fatalf("after Flush: got %+v, want anna alone, last used %s (ben stays revoked)", ks, used.Add(10*time.Second))
	}
	if _, ok, _ := s.Lookup(secret); !ok {
		t.Fatal("Lookup after Flush: key gone")
	}
}

func TestStore_DamagedFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(dir)
	if _, ok, err := s.Lookup("vdk_x"); err == nil || ok {
		t.Fatalf("Lookup on a damaged store: got ok=%v err=%v, want an error (refuse, never allow)", ok, err)
	}
	if _, _, err := s.Create("anna", Rights{Read: true}, t0); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("Create on a damaged store: got %v, want it refused as damaged", err)
	}
}

// Many writers at once — goroutines with their own stores, and other
// processes — lose no key.
func TestStore_ConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	const procs, perProc, goroutines = 2, 10, 4
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCreateKeys$")
		cmd.Env = append(os.Environ(), "KEYS_HELPER_DIR="+dir, fmt.Sprintf("KEYS_HELPER_PREFIX=p%d", p), fmt.Sprint("KEYS_HELPER_N=", perProc))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := Open(dir)
			for i := range perProc {
				if _, _, err := s.Create(fmt.Sprintf("g%d-%d", g, i), Rights{Read: true}, t0); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("helper process: %v", err)
		}
	}
	ks, err := Open(dir).List()
	if err != nil {
		t.Fatal(err)
	}
	if want := (procs + goroutines) * perProc; len(ks) != want {
		t.Fatalf("got %d keys, want %d", len(ks), want)
	}
}

// TestHelperCreateKeys is the other process of TestStore_ConcurrentWriters.
func TestHelperCreateKeys(t *testing.T) {
	dir := os.Getenv("KEYS_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	var n int
	fmt.Sscan(os.Getenv("KEYS_HELPER_N"), &n)
	s := Open(dir)
	for i := range n {
		if _, _, err := s.Create(fmt.Sprintf("%s-%d", os.Getenv("KEYS_HELPER_PREFIX"), i), Rights{Read: true}, t0); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStore_Limits(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	secret, k, err := s.CreateWith("bot", Rights{Read: true, Write: true}, Limits{WritesPerMinute: 5}, t0)
	if err != nil || k.Limits != (Limits{WritesPerMinute: 5}) {
		t.Fatalf("CreateWith: %+v, %v", k, err)
	}
	if _, _, err := s.Create("plain", Rights{Read: true}, t0); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Lookup(secret)
	if err != nil || !ok || got.Limits.WritesPerMinute != 5 || got.Limits.DeletesPerMinute != 0 {
		t.Fatalf("Lookup: %+v %v %v; want 5 writes a minute, deletes default", got, ok, err)
	}
	if got.Limits.String() != "5 writes/min, deletes: server default" {
		t.Errorf("String: %q", got.Limits.String())
	}
	// A key without limits stores none: the file stays as it was.
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), `"limits"`) != 1 || !strings.Contains(string(b), `"writes_per_minute": 5`) {
		t.Errorf("store file:\n%s", b)
	}
	k, err = s.SetLimits("BOT", Limits{WritesPerMinute: 30, DeletesPerMinute: 2})
	if err != nil || k.Name != "bot" || k.Limits != (Limits{WritesPerMinute: 30, DeletesPerMinute: 2}) {
		t.Fatalf("SetLimits: %+v %v", k, err)
	}
	if got, _, _ := s.Lookup(secret); got.Limits != (Limits{WritesPerMinute: 30, DeletesPerMinute: 2}) {
		t.Errorf("after SetLimits, Lookup gives %+v", got.Limits)
	}
	if _, err := s.SetLimits("bot", Limits{}); err != nil {
		t.Fatal(err)
	}
	if ks, _ := s.List(); ks[0].Limits != (Limits{}) || ks[0].Limits.String() != "server defaults" {
		t.Errorf("limits back to the defaults: %+v", ks[0].Limits)
	}
	for _, bad := range []Limits{{WritesPerMinute: -1}, {DeletesPerMinute: MaxPerMinute + 1}} {
		if _, err := s.SetLimits("bot", bad); !errors.Is(err, ErrInvalidLimits) {
			t.Errorf("SetLimits(%+v): %v, want ErrInvalidLimits", bad, err)
		}
		if _, _, err := s.CreateWith("other", Rights{Read: true}, bad, t0); !errors.Is(err, ErrInvalidLimits) {
			t.Errorf("CreateWith(%+v): %v, want ErrInvalidLimits", bad, err)
		}
	}
	var ne *NameError
	if _, err := s.SetLimits("nobody", Limits{WritesPerMinute: 1}); !errors.As(err, &ne) || !errors.Is(err, ErrNotFound) {
		t.Errorf("SetLimits of an unknown key: %v", err)
	}
}

// A key's rights per vault are stored, read back by another store, changed
// and cleared; a key without them stores none.
func TestStore_Vaults(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	rw := Rights{Read: true, Write: true}
	secret, k, err := s.CreateWithOptions("team-bot", rw, CreateOptions{
		Limits: Limits{WritesPerMinute: 5},
		Vaults: map[string]Rights{"team": {}, "privat": {Read: true}},
	}, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Rights{"team": rw, "privat": {Read: true}}
	if !maps.Equal(k.Vaults, want) || k.Limits.WritesPerMinute != 5 {
		t.Fatalf("CreateWithOptions: %+v; want team with the key's rights, privat read", k)
	}
	if _, _, err := s.Create("plain", Rights{Read: true}, t0); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(raw), `"vaults"`) != 1 || !strings.Contains(string(raw), `"team": [`) {
		t.Errorf("store file:\n%s\nwant vaults for team-bot only, rights as lists", raw)
	}
	got, ok, err := Open(dir).Lookup(secret)
	if err != nil || !ok || !maps.Equal(got.Vaults, want) || got.Rights != rw {
		t.Fatalf("Lookup through another store: %+v %v %v; want the vaults %v", got, ok, err, want)
	}
	if VaultsString(got.Vaults) != "privat=read team=read,write" {
		t.Errorf("VaultsString: %q", VaultsString(got.Vaults))
	}

	k, err = s.SetVaults("TEAM-BOT", map[string]Rights{"team": {Read: true, Write: true, Delete: true}})
	if err != nil || k.Name != "team-bot" || !maps.Equal(k.Vaults, map[string]Rights{"team": {Read: true, Write: true, Delete: true}}) {
		t.Fatalf("SetVaults: %+v %v", k, err)
	}
	if got, _, _ := s.Lookup(secret); len(got.Vaults) != 1 || !got.Vaults["team"].Delete {
		t.Errorf("after SetVaults, Lookup gives %v", got.Vaults)
	}
	if k, err = s.SetVaults("team-bot", nil); err != nil || k.Vaults != nil {
		t.Fatalf("SetVaults(nil): %+v %v; want every vault again", k, err)
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, FileName)); strings.Contains(string(raw), `"vaults"`) {
		t.Errorf("store file after clearing the vaults:\n%s", raw)
	}
	var ne *NameError
	if _, err := s.SetVaults("nobody", map[string]Rights{"team": {Read: true}}); !errors.As(err, &ne) || !errors.Is(err, ErrNotFound) {
		t.Errorf("SetVaults of an unknown key: %v", err)
	}
}

// Vault names follow vaultd serve's rule, rights per vault ParseRights'
// rules; an error names the vault, and nothing is stored.
func TestStore_VaultsRefused(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	if _, _, err := s.Create("anna", Rights{Read: true}, t0); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		vaults map[string]Rights
		msg    string
	}{
		{map[string]Rights{"bad name": {Read: true}}, `vault name "bad name" has ' ' at position 4`},
		{map[string]Rights{"team:x": {Read: true}}, `vault name "team:x"`},
		{map[string]Rights{"-team": {Read: true}}, `vault name "-team"`},
		{map[string]Rights{strings.Repeat("v", 41): {Read: true}}, "is too long"},
		{map[string]Rights{"": {Read: true}}, `vault name "" is empty`},
		{map[string]Rights{"team": {Read: true}, "Team": {Read: true}}, "is given twice"},
		{map[string]Rights{"team": {Read: true, Delete: true}}, "vault team: rights"},
	} {
		if _, _, err := s.CreateWithOptions("bob", Rights{Read: true}, CreateOptions{Vaults: tc.vaults}, t0); !errors.Is(err, ErrInvalidVaults) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("CreateWithOptions(vaults %v): got %v; want ErrInvalidVaults saying %q", tc.vaults, err, tc.msg)
		}
		if _, err := s.SetVaults("anna", tc.vaults); !errors.Is(err, ErrInvalidVaults) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("SetVaults(%v): got %v; want ErrInvalidVaults saying %q", tc.vaults, err, tc.msg)
		}
	}
	if ks, _ := s.List(); len(ks) != 1 || ks[0].Vaults != nil {
		t.Errorf("after the refusals: %+v; want anna alone, in every vault", ks)
	}
	for _, ok := range []string{"team", "a", "Work_2", "x.y-z", strings.Repeat("v", 40)} {
		if err := ValidVaultName(ok); err != nil {
			t.Errorf("ValidVaultName(%q): %v", ok, err)
		}
	}
}

func TestParseVaults(t *testing.T) {
	rw := Rights{Read: true, Write: true}
	got, err := ParseVaults([]string{"team", "privat=read", " arch = Read , WRITE ,delete"}, rw)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]Rights{"team": rw, "privat": {Read: true}, "arch": {Read: true, Write: true, Delete: true}}; !maps.Equal(got, want) {
		t.Errorf("ParseVaults: got %v, want %v", got, want)
	}
	if got, err := ParseVaults(nil, rw); got != nil || err != nil {
		t.Errorf("ParseVaults(nil): %v, %v; want nil (every vault)", got, err)
	}
	for spec, msg := range map[string]string{
		"privat=admin":  `vault privat: unknown right "admin"`,
		"privat=delete": "vault privat: delete needs write",
		"privat=":       "vault privat: no rights given",
		"a b=read":      `vault name "a b"`,
		"=read":         `vault name "" is empty`,
	} {
		if _, err := ParseVaults([]string{spec}, rw); !errors.Is(err, ErrInvalidVaults) || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseVaults(%q): got %v; want ErrInvalidVaults saying %q", spec, err, msg)
		}
	}
	if _, err := ParseVaults([]string{"team", "TEAM=read"}, rw); !errors.Is(err, ErrInvalidVaults) || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("ParseVaults of a vault named twice: %v", err)
	}
}

// A store written before keys had vaults loads unchanged: every key in
// every vault, and a change keeps the file's other fields.
func TestStore_OldFileWithoutVaults(t *testing.T) {
	dir := t.TempDir()
	secret := NewSecret()
	old := `{
  "version": 1,
  "keys": [
    {
      "name": "laptop",
      "rights": ["read", "write"],
      "created": "2026-01-02T03:04:05Z",
      "hash": "` + HashSecret(secret) + `",
      "limits": {"writes_per_minute": 7}
    }
  ]
}
`
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(dir)
	k, ok, err := s.Lookup(secret)
	if err != nil || !ok || k.Name != "laptop" || k.Rights != (Rights{Read: true, Write: true}) || k.Vaults != nil || k.Limits.WritesPerMinute != 7 {
		t.Fatalf("Lookup in an old store: %+v %v %v; want laptop, read,write in every vault, 7 writes a minute", k, ok, err)
	}
	if _, _, err := s.Create("ci", Rights{Read: true}, t0); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"vaults"`) || !strings.Contains(string(raw), `"writes_per_minute": 7`) {
		t.Errorf("old store after a change:\n%s", raw)
	}
}

// TestStore_UseDuringAWriteIsWritten: a key's first use that comes while
// the background write of another's is under way is written after it,
// not left for the server's shutdown.
func TestStore_UseDuringAWriteIsWritten(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	_, anna, err := s.Create("anna", Rights{Read: true}, t0)
	if err != nil {
		t.Fatal(err)
	}
	_, ben, err := s.Create("ben", Rights{Read: true}, t0)
	if err != nil {
		t.Fatal(err)
	}
	// Another process holds the store: anna's write waits for it, with
	// her use already taken from the pending ones.
	l, err := lock(filepath.Join(dir, LockName), LockTimeout)
	if err != nil {
		t.Fatal(err)
	}
	used := t0.Add(time.Hour)
	s.Used(anna, used)
	for taken := false; !taken; time.Sleep(time.Millisecond) {
		s.usedMu.Lock()
		taken = len(s.pending) == 0
		s.usedMu.Unlock()
	}
	s.Used(ben, used)
	l.unlock()
	deadline := time.Now().Add(time.Minute) // a bound far past any write, not a speed target
	for {
		ks, _ := s.List()
		if len(ks) == 2 && ks[0].LastUsed.Equal(used) && ks[1].LastUsed.Equal(used) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("last used of both keys not written: %+v", ks)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
