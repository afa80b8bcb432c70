// Package keys keeps the access keys of a vault's HTTP server: who may
// connect, with which rights. The store is one JSON file in the vault's
// state dir (never inside the notes) that holds, per key, its name, rights
// (in every vault, or per vault where one server serves several), creation
// time, the time it was last used and the SHA-256 hash of its secret —
// never the secret itself, which is shown once when the key is created.
//
// Several processes use one store at once: a running `vaultd serve --http`
// reads it (and records when a key was used) while `vaultd keys create` or
// `vaultd keys revoke` change it. Every change is a read-modify-write under
// an exclusive lock file, and the file is replaced atomically (temp file,
// fsync, rename, fsync of the folder), so a reader sees the old or the new
// store, never half of one. A reader notices a change by the file's
// identity (a rename gives it a new inode), so a revoked key is refused on
// its very next request.
//
// keys also keeps the signed-in connections of package oauth (oauth.go:
// clients, codes, grants and tokens, as hashes) and the owner's sign-in
// links (owner.go), under the same lock. keys imports no other package of
// vaultd: the doors that check keys (mcpserver, oauth, web, cmd/vaultd)
// import it.
package keys

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// FileName is the store's file in the state dir; LockName is the lock file
// taken while the store changes.
const (
	FileName = "keys.json"
	LockName = "keys.lock"
)

// SecretPrefix starts every secret, so that a leaked one is recognisable
// (secret scanners, a glance at a config file).
const SecretPrefix = "vdk_"

// UsedGranularity is how often, at most, the time a key was last used is
// written to the store: a busy client must not turn every request into a
// file write. `keys list` is therefore accurate to about a minute.
const UsedGranularity = time.Minute

// Errors. Every error about a name is a *NameError matching one of these.
var (
	ErrExists      = errors.New("access key exists")
	ErrNotFound    = errors.New("no such access key")
	ErrInvalidName = errors.New("invalid access key name")
	ErrInvalid     = errors.New("invalid rights")
	// ErrBusy means another process held the store's lock for longer
	// than LockTimeout.
	ErrBusy = errors.New("access key store busy")
)

// LockTimeout bounds how long a change waits for another process's change.
// Changes take milliseconds; a longer wait means a stuck process, and
// failing is better than hanging.
var LockTimeout = 5 * time.Second

// NameError says what is wrong with a name, and which names exist.
type NameError struct {
	Name     string
	Kind     error    // ErrExists, ErrNotFound or ErrInvalidName
	Msg      string   // one sentence
	Existing []string // the names in the store, sorted
}

func (e *NameError) Error() string { return e.Msg }
func (e *NameError) Unwrap() error { return e.Kind }

// Rights are what a key may do. Delete implies Write implies Read.
type Rights struct {
	Read, Write, Delete bool
}

// ParseRights reads "read", "read,write" or "read,write,delete". Write
// implies read; delete needs write. Errors match ErrInvalid.
func ParseRights(s string) (Rights, error) {
	var r Rights
	for _, p := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(p)) {
		case "read":
			r.Read = true
		case "write":
			r.Write = true
		case "delete":
			r.Delete = true
		case "":
		default:
			return Rights{}, fmt.Errorf("%w: unknown right %q; the rights are read, write and delete", ErrInvalid, strings.TrimSpace(p))
		}
	}
	if r.Delete && !r.Write {
		return Rights{}, fmt.Errorf("%w: delete needs write: read,write,delete", ErrInvalid)
	}
	if r.Write {
		r.Read = true // writing means reading what you change
	}
	if !r.Read {
		return Rights{}, fmt.Errorf("%w: no rights given; name at least read", ErrInvalid)
	}
	return r, nil
}

// String renders the rights as ParseRights reads them: "read,write".
func (r Rights) String() string {
	var s []string
	if r.Read {
		s = append(s, "read")
	}
	if r.Write {
		s = append(s, "write")
	}
	if r.Delete {
		s = append(s, "delete")
	}
	return strings.Join(s, ",")
}

// MarshalJSON stores rights as their list, ["read","write"].
func (r Rights) MarshalJSON() ([]byte, error) {
	list := strings.Split(r.String(), ",")
	if r.String() == "" {
		list = []string{}
	}
	return json.Marshal(list)
}

// UnmarshalJSON reads the list MarshalJSON writes.
func (r *Rights) UnmarshalJSON(b []byte) error {
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	p, err := ParseRights(strings.Join(list, ","))
	if err != nil {
		return err
	}
	*r = p
	return nil
}

// Key is one access key as stored: everything but the secret.
type Key struct {
	Name     string    `json:"name"`
	Rights   Rights    `json:"rights"`
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used,omitzero"`
	// Hash is "sha256:" and the hex SHA-256 of the secret.
	Hash string `json:"hash"`
	// Limits override the server's rate limits for this key; zero fields
	// keep the server's (vaultd serve --writes-per-minute,
	// --deletes-per-minute).
	Limits Limits `json:"limits,omitzero"`
	// Vaults are the key's rights per vault, by vault name, where one
	// server serves several (vaultd serve --vault work=… --vault
	// privat=…): the key sees only these vaults, each with its rights.
	// Nil or empty: Rights in every vault. Names are compared without
	// case; the server matches them to the vaults it serves.
	Vaults map[string]Rights `json:"vaults,omitempty"`
}

// Limits are a key's own rate limits: writes and deletes a minute. Zero
// means the server's default.
type Limits struct {
	WritesPerMinute  int `json:"writes_per_minute,omitempty"`
	DeletesPerMinute int `json:"deletes_per_minute,omitempty"`
}

// MaxPerMinute bounds a key's own limit: more than one write a second on
// average is beyond what any agent needs, and a typo (6000 for 60) should
// be refused, not obeyed.
const MaxPerMinute = 3600

// ErrInvalidLimits is the kind of an error about a key's limits.
var ErrInvalidLimits = errors.New("invalid rate limits")

// Check returns an error matching ErrInvalidLimits for a negative limit
// or one above MaxPerMinute.
func (l Limits) Check() error {
	for _, x := range []struct {
		name string
		n    int
	}{{"writes per minute", l.WritesPerMinute}, {"deletes per minute", l.DeletesPerMinute}} {
		if x.n < 0 || x.n > MaxPerMinute {
			return fmt.Errorf("%w: %s must be between 1 and %d, or 0 for the server's default; got %d", ErrInvalidLimits, x.name, MaxPerMinute, x.n)
		}
	}
	return nil
}

// String renders the limits for people: "20 writes/min, deletes: server
// default"; "server defaults" when neither is set.
func (l Limits) String() string {
	if l == (Limits{}) {
		return "server defaults"
	}
	part := func(n int, what string) string {
		if n == 0 {
			return what + ": server default"
		}
		return fmt.Sprintf("%d %s/min", n, what)
	}
	return part(l.WritesPerMinute, "writes") + ", " + part(l.DeletesPerMinute, "deletes")
}

// ErrInvalidVaults is the kind of an error about a key's vaults: a name
// that cannot be a vault's, a vault given twice, rights a key may not
// have there.
var ErrInvalidVaults = errors.New("invalid vault rights")

// ValidVaultName checks a vault's name as a key names it: 1–40 letters,
// digits, '-', '_' or '.', starting with a letter or digit — the rule of
// vaultd serve's vault names (tools.ValidVaultName, which keys does not
// import). Errors match ErrInvalidVaults and name the vault.
func ValidVaultName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: vault name %q %s; use 1–40 letters, digits, '-', '_' or '.', starting with a letter or digit, e.g. team", ErrInvalidVaults, name, why)
	}
	return plainName(name, bad)
}

// plainName checks a name of 1–40 letters, digits, '.', '_' or '-',
// starting with a letter or digit (a key's, a vault's); bad says why not.
func plainName(name string, bad func(why string) error) error {
	if name == "" {
		return bad("is empty")
	}
	if len(name) > 40 {
		return bad("is too long")
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || (i > 0 && strings.ContainsRune("._-", r))
		if !ok {
			return bad(fmt.Sprintf("has %q at position %d", r, i+1))
		}
	}
	return nil
}

// CheckVaults checks a key's rights per vault: valid names
// (ValidVaultName), none given twice (without regard to case), and in
// each vault the rights ParseRights gives — read, and delete only with
// write. Errors match ErrInvalidVaults and name the vault.
func CheckVaults(v map[string]Rights) error {
	seen := map[string]string{}
	for _, n := range vaultNames(v) {
		if err := ValidVaultName(n); err != nil {
			return err
		}
		if other, ok := seen[strings.ToLower(n)]; ok {
			return fmt.Errorf("%w: vault %s is given twice (as %s and %s); name each vault once", ErrInvalidVaults, n, other, n)
		}
		seen[strings.ToLower(n)] = n
		if r := v[n]; !r.Read || r.Delete && !r.Write {
			return fmt.Errorf("%w: vault %s: rights %q; a key needs read there, and delete needs write: read,write,delete", ErrInvalidVaults, n, r.String())
		}
	}
	return nil
}

// ParseVault reads one vault of a key as `vaultd keys create --only`
// takes it: "VAULT" (the rights def) or "VAULT=RIGHTS" (ParseRights'
// rules). Errors match ErrInvalidVaults and name the vault.
func ParseVault(spec string, def Rights) (name string, r Rights, err error) {
	name, rights, hasRights := strings.Cut(spec, "=")
	name = strings.TrimSpace(name)
	if err := ValidVaultName(name); err != nil {
		return "", Rights{}, err
	}
	if !hasRights {
		return name, def, nil
	}
	r, err = ParseRights(rights)
	if err != nil {
		return "", Rights{}, fmt.Errorf("%w: vault %s: %s", ErrInvalidVaults, name, strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
	}
	return name, r, nil
}

// ParseVaults reads the vaults of a key, one ParseVault spec each, into
// the map Key.Vaults holds; none gives nil (every vault). A vault named
// twice is an error (CheckVaults).
func ParseVaults(specs []string, def Rights) (map[string]Rights, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := make(map[string]Rights, len(specs))
	for _, spec := range specs {
		n, r, err := ParseVault(spec, def)
		if err != nil {
			return nil, err
		}
		for old := range out {
			if strings.EqualFold(old, n) {
				return nil, fmt.Errorf("%w: vault %s is given twice; name each vault once", ErrInvalidVaults, n)
			}
		}
		out[n] = r
	}
	return out, nil
}

// VaultsString renders a key's rights per vault as ParseVault reads them,
// sorted by name and separated by spaces: "privat=read team=read,write";
// "" for none (every vault).
func VaultsString(v map[string]Rights) string {
	var parts []string
	for _, n := range vaultNames(v) {
		parts = append(parts, n+"="+v[n].String())
	}
	return strings.Join(parts, " ")
}

// vaultNames returns the names of v, sorted.
func vaultNames(v map[string]Rights) []string {
	out := make([]string, 0, len(v))
	for n := range v {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// withVaults returns the rights per vault a key with rights r stores: a
// copy of v in which zero Rights are r, nil for none; or an error
// (CheckVaults).
func withVaults(v map[string]Rights, r Rights) (map[string]Rights, error) {
	if len(v) == 0 {
		return nil, nil
	}
	out := make(map[string]Rights, len(v))
	for n, vr := range v {
		if vr == (Rights{}) {
			vr = r
		}
		out[n] = vr
	}
	if err := CheckVaults(out); err != nil {
		return nil, err
	}
	return out, nil
}

// ID is a short, stable identifier of this key (of its secret, so a key
// revoked and created again under the same name gets a new one). It is not
// secret: it is derived from the hash.
func (k Key) ID() string {
	h := strings.TrimPrefix(k.Hash, "sha256:")
	return h[:min(12, len(h))]
}

// file is the store's JSON.
type file struct {
	Version int   `json:"version"`
	Keys    []Key `json:"keys"`
}

const fileVersion = 1

// Store is the access keys of one state dir. It is safe for concurrent use,
// and other processes may use the same store at the same time.
type Store struct {
	dir string

	mu     sync.Mutex
	fi     os.FileInfo    // of the file last loaded; nil: none yet or missing
	byHash map[string]Key // of the file last loaded
	loaded bool

	// The OAuth file as last loaded, with its lookups (oauth.go), under
	// mu; nil until loaded.
	otab *oauthTable

	usedMu    sync.Mutex
	pending   map[string]time.Time // hash → last use not yet written
	persisted map[string]time.Time // hash → when its last use was written
	flushing  bool
	// flushMu is held by a Flush from taking the pending uses to writing
	// them: a Flush (at shutdown, say) that finds them taken by one in the
	// background returns only once that one has written them.
	flushMu sync.Mutex
}

// Open returns the store in the state dir dir. Nothing is created until a
// key is.
func Open(dir string) *Store {
	return &Store{dir: dir, pending: map[string]time.Time{}, persisted: map[string]time.Time{}}
}

// Path returns the host path of the store's file.
func (s *Store) Path() string { return filepath.Join(s.dir, FileName) }

// NewSecret returns a fresh random secret: SecretPrefix and 32 random bytes
// in unpadded base64url (256 bits, so guessing is hopeless and a plain hash
// needs no salt or stretching).
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("keys: no randomness: " + err.Error()) // crypto/rand does not fail on supported systems
	}
	return SecretPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// HashSecret returns the stored form of a secret.
func HashSecret(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return "sha256:" + hex.EncodeToString(h[:])
}

// ValidName checks a key name: 1–40 letters, digits, '.', '_' or '-',
// starting with a letter or digit. Names appear in the history as
// "key:NAME", so they stay plain.
func ValidName(name string) error {
	bad := func(why string) error {
		return &NameError{Name: name, Kind: ErrInvalidName, Msg: fmt.Sprintf("access key name %q %s; use 1–40 letters, digits, '.', '_' or '-', e.g. laptop or ci-bot", name, why)}
	}
	return plainName(name, bad)
}

// Create adds a key and returns its secret, which is not stored and cannot
// be shown again. Errors: *NameError (ErrInvalidName, ErrExists — names are
// compared without case), ErrBusy, I/O errors.
func (s *Store) Create(name string, r Rights, now time.Time) (secret string, k Key, err error) {
	return s.CreateWith(name, r, Limits{}, now)
}

// CreateWith is Create with the key's own rate limits. Errors as Create's,
// and ErrInvalidLimits (Limits.Check).
func (s *Store) CreateWith(name string, r Rights, l Limits, now time.Time) (secret string, k Key, err error) {
	return s.CreateWithOptions(name, r, CreateOptions{Limits: l}, now)
}

// CreateOptions are what a new key may have besides its name and rights.
type CreateOptions struct {
	// Limits are the key's own rate limits (Key.Limits); zero: the
	// server's.
	Limits Limits
	// Vaults are the key's rights per vault (Key.Vaults); nil: its rights
	// in every vault. A vault given zero Rights gets the key's.
	Vaults map[string]Rights
}

// CreateWithOptions is Create with the key's own rate limits and rights
// per vault. Errors as Create's, ErrInvalidLimits (Limits.Check) and
// ErrInvalidVaults (CheckVaults).
func (s *Store) CreateWithOptions(name string, r Rights, o CreateOptions, now time.Time) (secret string, k Key, err error) {
	if err := ValidName(name); err != nil {
		return "", Key{}, err
	}
	if !r.Read {
		return "", Key{}, fmt.Errorf("%w: a key needs at least the read right", ErrInvalid)
	}
	if err := o.Limits.Check(); err != nil {
		return "", Key{}, err
	}
	vaults, err := withVaults(o.Vaults, r)
	if err != nil {
		return "", Key{}, err
	}
	secret = NewSecret()
	k = Key{Name: name, Rights: r, Created: now.UTC().Truncate(time.Second), Hash: HashSecret(secret), Limits: o.Limits, Vaults: vaults}
	err = s.change(func(f *file) error {
		for _, old := range f.Keys {
			if strings.EqualFold(old.Name, name) {
				return &NameError{Name: name, Kind: ErrExists, Existing: names(f.Keys),
					Msg: fmt.Sprintf("an access key named %q exists (created %s)", old.Name, old.Created.Format(time.DateOnly))}
			}
		}
		f.Keys = append(f.Keys, k)
		return nil
	})
	if err != nil {
		return "", Key{}, err
	}
	return secret, k, nil
}

// Revoke removes the key named name (without regard to case); requests with
// its secret are refused from then on, by every process using the store.
// Errors: *NameError (ErrNotFound, listing the names), ErrBusy, I/O errors.
func (s *Store) Revoke(name string) (Key, error) {
	var gone Key
	err := s.change(func(f *file) error {
		for i, k := range f.Keys {
			if strings.EqualFold(k.Name, name) {
				gone = k
				f.Keys = append(f.Keys[:i], f.Keys[i+1:]...)
				return nil
			}
		}
		return notFound(name, f.Keys)
	})
	return gone, err
}

func notFound(name string, ks []Key) *NameError {
	msg := fmt.Sprintf("there is no access key named %q", name)
	if len(ks) == 0 {
		msg += "; this vault has no access keys"
	} else {
		msg += "; the keys are " + strings.Join(names(ks), ", ")
	}
	return &NameError{Name: name, Kind: ErrNotFound, Existing: names(ks), Msg: msg}
}

// List returns the keys, sorted by name. A store without a file has none.
func (s *Store) List() ([]Key, error) {
	f, _, err := s.read()
	if err != nil {
		return nil, err
	}
	sort.Slice(f.Keys, func(i, j int) bool { return f.Keys[i].Name < f.Keys[j].Name })
	return f.Keys, nil
}

// Len returns the number of keys.
func (s *Store) Len() (int, error) {
	ks, err := s.List()
	return len(ks), err
}

// Lookup returns the key whose secret this is. It re-reads the store when
// the file changed since the last call (one stat per call), so a key
// created or revoked by another process counts from its next request.
// ok is false for an unknown (or revoked) secret; err reports a store that
// cannot be read — callers must then refuse, not allow.
func (s *Store) Lookup(secret string) (k Key, ok bool, err error) {
	if secret == "" {
		return Key{}, false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refreshLocked(); err != nil {
		return Key{}, false, err
	}
	// A map lookup by hash leaks no timing about the secret: the attacker
	// would have to choose inputs by their SHA-256.
	k, ok = s.byHash[HashSecret(secret)]
	return k, ok, nil
}

// Valid reports whether the key with this hash (Key.Hash) is still in the
// store, re-reading it when the file changed (one stat). A server asks it
// for the keys of its open event streams, so that a stream of a revoked
// key ends promptly, not only at its next request. err reports a store
// that cannot be read.
//
// A hash of GrantPrefix and a grant's id asks the same of a signed-in
// connection.
func (s *Store) Valid(hash string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := strings.CutPrefix(hash, GrantPrefix); ok {
		return s.validGrantLocked(id)
	}
	if err := s.refreshLocked(); err != nil {
		return false, err
	}
	_, ok := s.byHash[hash]
	return ok, nil
}

// refreshLocked reloads the file when its identity, size or mtime changed.
func (s *Store) refreshLocked() error {
	fi, err := os.Stat(s.Path())
	if errors.Is(err, fs.ErrNotExist) {
		s.fi, s.byHash, s.loaded = nil, map[string]Key{}, true
		return nil
	}
	if err != nil {
		return err
	}
	if s.loaded && s.fi != nil && os.SameFile(s.fi, fi) && s.fi.ModTime().Equal(fi.ModTime()) && s.fi.Size() == fi.Size() {
		return nil
	}
	f, fi2, err := s.read()
	if err != nil {
		return err
	}
	by := make(map[string]Key, len(f.Keys))
	for _, k := range f.Keys {
		by[k.Hash] = k
	}
	s.byHash, s.fi, s.loaded = by, fi2, true
	return nil
}

// Used records that the key was used at now. The store is written at most
// once per UsedGranularity per key, in the background; Flush writes what
// is left (call it when the server stops).
func (s *Store) Used(k Key, now time.Time) {
	s.usedMu.Lock()
	s.pending[k.Hash] = now
	due := s.dueLocked(k.Hash, now) && !s.flushing
	if due {
		s.flushing = true
	}
	s.usedMu.Unlock()
	if due {
		go s.flushDue()
	}
}

// dueLocked reports whether a use at t of the key or grant with hash h is
// to be written now (usedMu held).
func (s *Store) dueLocked(h string, t time.Time) bool {
	return t.Sub(s.persisted[h]) >= UsedGranularity
}

// flushDue writes the pending uses, again as long as uses that came in
// during a write are due: Used starts no write while one runs, and a first
// use of a key made then waited for the server's shutdown — the HTTP test
// of two keys saw neither recorded. After a failed write the next use
// tries again (the error is reported by the Flush at shutdown).
func (s *Store) flushDue() {
	for {
		err := s.Flush()
		s.usedMu.Lock()
		again := false
		for h, t := range s.pending {
			if err == nil && s.dueLocked(h, t) {
				again = true
				break
			}
		}
		if !again {
			s.flushing = false
		}
		s.usedMu.Unlock()
		if !again {
			return
		}
	}
}

// Flush writes the pending last-used times. Keys revoked meanwhile are not
// brought back.
func (s *Store) Flush() error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.usedMu.Lock()
	pending := s.pending
	s.pending = map[string]time.Time{}
	s.usedMu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	var err error
	if hasKeyUses(pending) {
		err = s.change(func(f *file) error {
			for i, k := range f.Keys {
				if t, ok := pending[k.Hash]; ok && t.After(k.LastUsed) {
					f.Keys[i].LastUsed = t.UTC().Truncate(time.Second)
				}
			}
			return nil
		})
	}
	err = errors.Join(err, s.flushGrants(pending))
	s.usedMu.Lock()
	defer s.usedMu.Unlock()
	if err != nil {
		// Keep them for the next try, unless newer uses came in.
		for h, t := range pending {
			if _, ok := s.pending[h]; !ok {
				s.pending[h] = t
			}
		}
		return err
	}
	now := time.Now()
	for h := range pending {
		s.persisted[h] = now
	}
	return nil
}

// hasKeyUses reports whether pending holds a key's use (not only grants').
func hasKeyUses(pending map[string]time.Time) bool {
	for h := range pending {
		if !strings.HasPrefix(h, GrantPrefix) {
			return true
		}
	}
	return false
}

// read loads the file; a missing file is an empty store.
func (s *Store) read() (file, os.FileInfo, error) {
	f, err := os.Open(s.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return file{Version: fileVersion}, nil, nil
	}
	if err != nil {
		return file{}, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return file{}, nil, err
	}
	var st file
	if err := json.NewDecoder(f).Decode(&st); err != nil {
		return file{}, nil, fmt.Errorf("the access key store %s is damaged (%v); move it away and create the keys again", s.Path(), err)
	}
	if st.Version > fileVersion {
		return file{}, nil, fmt.Errorf("the access key store %s was written by a newer vaultd (format %d); use that version", s.Path(), st.Version)
	}
	return st, fi, nil
}

// change runs fn on the current store under the lock and writes the result
// atomically. fn returning an error leaves the store unchanged.
func (s *Store) change(fn func(*file) error) error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	l, err := lock(filepath.Join(s.dir, LockName), LockTimeout)
	if err != nil {
		return err
	}
	defer l.unlock()
	f, _, err := s.read()
	if err != nil {
		return err
	}
	if err := fn(&f); err != nil {
		return err
	}
	f.Version = fileVersion
	sort.Slice(f.Keys, func(i, j int) bool { return f.Keys[i].Name < f.Keys[j].Name })
	if f.Keys == nil {
		f.Keys = []Key{}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(s.Path(), append(b, '\n'))
}

// writeAtomic replaces name with data: a temp file in the same folder,
// fsync, rename, fsync of the folder. The file is readable by its owner
// only: the hashes are not secrets, but the names and rights are nobody
// else's business.
func writeAtomic(name string, data []byte) error {
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, ".keys-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func names(ks []Key) []string {
	out := make([]string, 0, len(ks))
	for _, k := range ks {
		out = append(out, k.Name)
	}
	sort.Strings(out)
	return out
}

// SetRights changes the rights of the key named name (without regard to
// case); servers apply them from its next request on. Errors: *NameError
// (ErrNotFound), ErrInvalid (no read right), ErrBusy, I/O errors.
func (s *Store) SetRights(name string, r Rights) (Key, error) {
	if !r.Read || r.Delete && !r.Write {
		return Key{}, fmt.Errorf("%w: %q; a key needs read, and delete needs write", ErrInvalid, r.String())
	}
	var changed Key
	err := s.change(func(f *file) error {
		for i, k := range f.Keys {
			if strings.EqualFold(k.Name, name) {
				f.Keys[i].Rights = r
				changed = f.Keys[i]
				return nil
			}
		}
		return notFound(name, f.Keys)
	})
	return changed, err
}

// SetLimits changes the rate limits of the key named name (without regard
// to case); zero fields go back to the server's default. Servers apply
// them from the key's next request on. Errors: *NameError (ErrNotFound),
// ErrInvalidLimits, ErrBusy, I/O errors.
func (s *Store) SetLimits(name string, l Limits) (Key, error) {
	if err := l.Check(); err != nil {
		return Key{}, err
	}
	var changed Key
	err := s.change(func(f *file) error {
		for i, k := range f.Keys {
			if strings.EqualFold(k.Name, name) {
				f.Keys[i].Limits = l
				changed = f.Keys[i]
				return nil
			}
		}
		return notFound(name, f.Keys)
	})
	return changed, err
}

// SetVaults changes the rights per vault of the key named name (without
// regard to case): v replaces them all; nil or empty gives the key its
// rights in every vault again. A vault given zero Rights gets the key's
// (Key.Rights). Servers apply them from the key's next request on.
// Errors: *NameError (ErrNotFound), ErrInvalidVaults (CheckVaults),
// ErrBusy, I/O errors.
func (s *Store) SetVaults(name string, v map[string]Rights) (Key, error) {
	if _, err := withVaults(v, Rights{Read: true}); err != nil {
		return Key{}, err // the names, before the lock
	}
	var changed Key
	err := s.change(func(f *file) error {
		for i, k := range f.Keys {
			if strings.EqualFold(k.Name, name) {
				vaults, err := withVaults(v, k.Rights)
				if err != nil {
					return err
				}
				f.Keys[i].Vaults = vaults
				changed = f.Keys[i]
				return nil
			}
		}
		return notFound(name, f.Keys)
	})
	return changed, err
}
