package keys

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Signed-in connections: an MCP client that speaks OAuth 2.1 (claude.ai
// and ChatGPT connectors, Claude Code without a key) registers itself,
// sends the owner to a consent step on the owner's page, and gets tokens
// for /mcp. This file is their store: the registered clients, the pending
// authorization codes and the grants (one per approved connection, with
// its rights and its current tokens). Like access keys, every secret —
// client secret, code, access and refresh token — is kept only as its
// SHA-256 hash, in OAuthName in the state dir, changed under the store's
// lock (LockName) and replaced atomically.

// OAuthName is the file of OAuth clients, codes and grants in the state dir.
const OAuthName = "oauth.json"

// Prefixes of the OAuth secrets, so that each kind is recognisable and an
// access key is never mistaken for a token.
const (
	AccessPrefix       = "vda_"
	RefreshPrefix      = "vdr_"
	CodePrefix         = "vdc_"
	ClientSecretPrefix = "vds_"
	ClientIDPrefix     = "vdclient_"
)

// Lifetimes. An access token is short-lived: a revoked connection is
// refused at once anyway (the store is read on every request), but a
// leaked token is worth an hour at most. A code lives a minute: the
// client exchanges it right after the browser returns. A refresh token
// unused for RefreshTTL ends its grant.
const (
	AccessTTL  = time.Hour
	CodeTTL    = time.Minute
	RefreshTTL = 30 * 24 * time.Hour
)

// Registration is open to anyone who reaches the server, so what it can
// make the store hold is bounded: at most MaxPendingClients clients
// without a connection the owner approved (and at most MaxClients in
// all), the oldest of them dropped beyond it, and each dropped once it
// has waited PendingClientTTL (a client registers right before the
// owner's consent; it registers again when it is told its id is unknown).
// With the size of one registration bounded too (package oauth: at most
// 4 KB of redirect addresses), the file stays below a megabyte, and
// nothing an anonymous caller sends makes the server read it: lookups use
// the table in memory, reloaded only when the file changed. (Before,
// 500 clients of 20 KB each made a 10 MB file that every anonymous
// token request parsed: 0.6 s of CPU and 212-265 MB each.)
const (
	MaxClients        = 500
	MaxPendingClients = 200
	PendingClientTTL  = 24 * time.Hour
)

// accessKept bounds the live access tokens of a grant: each refresh adds
// one for an hour, and a client uses the newest.
const accessKept = 8

// retiredKept is how many used refresh tokens a grant remembers, to
// recognise a replayed one (a stolen token used after its rotation).
const retiredKept = 20

// Errors of the OAuth store.
var (
	// ErrInvalidGrant: a code or refresh token that is unknown, expired,
	// used, for another client or redirect address, or whose PKCE
	// verifier does not match (OAuth's invalid_grant).
	ErrInvalidGrant = errors.New("invalid grant")
	// ErrInvalidClient: an unknown client, or a wrong client secret.
	ErrInvalidClient = errors.New("invalid client")
	// ErrGrantNotFound: no signed-in connection with this id.
	ErrGrantNotFound = errors.New("no such signed-in connection")
)

// Client is a registered OAuth client (RFC 7591).
type Client struct {
	ID           string    `json:"client_id"`
	Name         string    `json:"client_name"`
	RedirectURIs []string  `json:"redirect_uris"`
	AuthMethod   string    `json:"token_endpoint_auth_method"` // none, client_secret_post or client_secret_basic
	SecretHash   string    `json:"secret_hash,omitempty"`
	Created      time.Time `json:"created"`
}

// HasRedirect reports whether uri is one of the client's redirect
// addresses, compared exactly (OAuth 2.1: no partial matches).
func (c Client) HasRedirect(uri string) bool {
	for _, u := range c.RedirectURIs {
		if u == uri {
			return true
		}
	}
	return false
}

// CheckSecret reports whether secret authenticates the client; a client
// registered without a secret ("none") needs none.
func (c Client) CheckSecret(secret string) bool {
	if c.SecretHash == "" {
		return true
	}
	return subtle.ConstantTimeCompare([]byte(HashSecret(secret)), []byte(c.SecretHash)) == 1
}

// tokenHash is one issued token: its hash and when it ends.
type tokenHash struct {
	Hash    string    `json:"hash"`
	Expires time.Time `json:"expires"`
}

// Grant is one signed-in connection: a client the owner approved, under
// the name and with the rights the owner chose, bound to one resource
// (this server's /mcp URL).
type Grant struct {
	ID         string    `json:"id"`
	ClientID   string    `json:"client_id"`
	ClientName string    `json:"client_name"`
	Name       string    `json:"name"`
	Rights     Rights    `json:"rights"`
	Resource   string    `json:"resource"`
	Created    time.Time `json:"created"`
	LastUsed   time.Time `json:"last_used,omitzero"`

	// Vaults are the connection's rights per vault, as Key.Vaults are a
	// key's: where one server serves several vaults, it sees only these,
	// each with its rights. Nil: Rights in every vault.
	Vaults map[string]Rights `json:"vaults,omitempty"`

	Access  []tokenHash `json:"access"`
	Refresh tokenHash   `json:"refresh"`
	Retired []string    `json:"retired,omitempty"` // hashes of rotated refresh tokens
}

// code is a pending authorization code.
type code struct {
	Hash        string    `json:"hash"`
	ClientID    string    `json:"client_id"`
	RedirectURI string    `json:"redirect_uri"`
	Challenge   string    `json:"code_challenge"`
	Resource    string    `json:"resource"`
	Name        string    `json:"name"`
	Rights      Rights    `json:"rights"`
	Expires     time.Time `json:"expires"`
	// Vaults are the connection's rights per vault (Grant.Vaults).
	Vaults map[string]Rights `json:"vaults,omitempty"`
	// RedirectSent says the authorization request carried redirect_uri
	// (else RedirectURI is the client's only one): then the token
	// request must carry the same (RFC 6749 §4.1.3).
	RedirectSent bool `json:"redirect_uri_sent,omitempty"`
	// GrantID is set once the code was exchanged: a second exchange
	// revokes that grant (OAuth 2.1 §4.1.3). Spent is set when an
	// exchange with a wrong code_verifier used the code up.
	GrantID string `json:"grant_id,omitempty"`
	Spent   bool   `json:"spent,omitempty"`
}

type oauthFile struct {
	Version int      `json:"version"`
	Clients []Client `json:"clients"`
	Grants  []Grant  `json:"grants"`
	Codes   []code   `json:"codes"`
}

// ClientMeta is what a client asks to be registered with.
type ClientMeta struct {
	Name         string
	RedirectURIs []string
	AuthMethod   string
}

// RegisterClient stores a new client and returns it with its secret (""
// for AuthMethod "none"); the secret is kept only as its hash. The caller
// validates the metadata. Errors: ErrBusy, I/O errors.
func (s *Store) RegisterClient(m ClientMeta, now time.Time) (Client, string, error) {
	c := Client{ID: ClientIDPrefix + NewSecret()[len(SecretPrefix):][:22], Name: m.Name, RedirectURIs: m.RedirectURIs,
		AuthMethod: m.AuthMethod, Created: now.UTC().Truncate(time.Second)}
	secret := ""
	if m.AuthMethod != "none" {
		secret = ClientSecretPrefix + NewSecret()[len(SecretPrefix):]
		c.SecretHash = HashSecret(secret)
	}
	err := s.changeOAuth(now, func(f *oauthFile) error {
		f.Clients = append(f.Clients, c)
		pending := 0
		for _, x := range f.Clients {
			if !f.approved(x.ID) {
				pending++
			}
		}
		if n := max(len(f.Clients)-MaxClients, pending-MaxPendingClients); n > 0 {
			f.Clients = dropPendingClients(f, n)
		}
		return nil
	})
	if err != nil {
		return Client{}, "", err
	}
	return c, secret, nil
}

// approved reports whether the client has a connection the owner approved
// or a code for one.
func (f *oauthFile) approved(clientID string) bool {
	for _, g := range f.Grants {
		if g.ClientID == clientID {
			return true
		}
	}
	for _, c := range f.Codes {
		if c.ClientID == clientID {
			return true
		}
	}
	return false
}

// dropPendingClients removes the n oldest clients the owner has not
// approved (approved).
func dropPendingClients(f *oauthFile, n int) []Client {
	out := f.Clients[:0:0]
	for _, c := range f.Clients { // registration order is oldest first
		if n > 0 && !f.approved(c.ID) {
			n--
			continue
		}
		out = append(out, c)
	}
	return out
}

// Client returns the registered client with this id, from the table in
// memory (the file is read again only when it changed).
func (s *Store) Client(id string) (Client, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.oauthLocked()
	if err != nil {
		return Client{}, false, err
	}
	c, ok := t.clients[id]
	return c, ok, nil
}

// ClientApproved reports whether the owner approved a connection of the
// client that still lasts (a grant): its redirect addresses are ones the
// owner has seen and accepted.
func (s *Store) ClientApproved(id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.oauthLocked()
	if err != nil {
		return false, err
	}
	return t.approved[id], nil
}

// CodeRequest is an approved authorization request, to be turned into a
// code.
type CodeRequest struct {
	ClientID, RedirectURI string
	// RedirectSent says the authorization request named RedirectURI
	// (rather than leaving it to the client's only one).
	RedirectSent bool
	Challenge    string // the S256 PKCE challenge
	Resource     string
	Name         string // the connection's name, as the owner chose it
	Rights       Rights
	// Vaults are the connection's rights per vault (Grant.Vaults); nil:
	// Rights in every vault. A vault given zero Rights gets Rights.
	Vaults map[string]Rights
}

// NewCode stores an authorization code for an approved request and
// returns it; it is good for one exchange within CodeTTL. Errors:
// ErrInvalidVaults (CheckVaults), ErrBusy, I/O errors.
func (s *Store) NewCode(r CodeRequest, now time.Time) (string, error) {
	vaults, err := withVaults(r.Vaults, r.Rights)
	if err != nil {
		return "", err
	}
	secret := CodePrefix + NewSecret()[len(SecretPrefix):]
	c := code{Hash: HashSecret(secret), ClientID: r.ClientID, RedirectURI: r.RedirectURI, RedirectSent: r.RedirectSent, Challenge: r.Challenge,
		Resource: r.Resource, Name: r.Name, Rights: r.Rights, Vaults: vaults, Expires: now.Add(CodeTTL).UTC()}
	err = s.changeOAuth(now, func(f *oauthFile) error {
		f.Codes = append(f.Codes, c)
		return nil
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}

// Tokens are what a token request gets.
type Tokens struct {
	Access, Refresh string
	ExpiresIn       time.Duration
	Grant           Grant
}

// GrantError says why a code or refresh token was refused; it matches
// ErrInvalidGrant.
type GrantError struct{ Msg string }

func (e *GrantError) Error() string { return e.Msg }
func (e *GrantError) Unwrap() error { return ErrInvalidGrant }

func grantErr(format string, a ...any) error { return &GrantError{Msg: fmt.Sprintf(format, a...)} }

// S256 is the PKCE S256 challenge of a verifier (RFC 7636 §4.2).
func S256(verifier string) string {
	h := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// ExchangeCode spends an authorization code: the client and the resource
// must be those of the request, redirect_uri too when the request named
// one (RFC 6749 §4.1.3: it may be left out when the request left it out;
// when sent, it must be the address the code went to), and the PKCE
// verifier must match the challenge. It makes the grant and its first
// tokens. Errors: *GrantError (ErrInvalidGrant), ErrBusy, I/O errors.
//
// A code issues tokens once; a code presented again after that revokes
// the grant it made (RFC 6749 §4.1.2). A refused exchange:
//   - by another client, or without a code_verifier, changes nothing:
//     whoever saw a code cannot use it up for its client;
//   - with a wrong code_verifier uses the code up (it is then refused as
//     used): the verifier is the proof of holding the request, and nobody
//     gets a second guess at it;
//   - with the right verifier but a wrong redirect_uri or resource leaves
//     the code for a corrected request within its minute: only the client
//     that made the request holds the verifier, and those values are no
//     secret that trying could find.
//
// An unknown code, or one of another client, is refused from the table in
// memory, without the store's lock or a write.
func (s *Store) ExchangeCode(secret, clientID, redirectURI, verifier, resource string, now time.Time) (Tokens, error) {
	h := HashSecret(secret)
	unknown := grantErr("the authorization code is unknown or expired (a code is good for %s); start the sign-in again", durationWords(CodeTTL))
	s.mu.Lock()
	t, err := s.oauthLocked()
	var c code
	var known bool
	if err == nil {
		c, known = t.codes[h]
	}
	s.mu.Unlock()
	switch {
	case err != nil:
		return Tokens{}, err
	case !known || !now.Before(c.Expires):
		return Tokens{}, unknown
	case c.ClientID != clientID:
		return Tokens{}, grantErr("the authorization code was issued to another client")
	}
	var out Tokens
	var refused error
	err = s.changeOAuth(now, func(f *oauthFile) error {
		i := -1
		for j, c := range f.Codes {
			if c.Hash == h {
				i = j
			}
		}
		if i < 0 {
			refused = unknown
			return nil
		}
		c := f.Codes[i]
		switch {
		case c.GrantID != "":
			// Replayed: whoever holds the code may hold the tokens too.
			f.Grants = removeGrant(f.Grants, c.GrantID)
			refused = grantErr("the authorization code was used already; the connection it made is revoked, sign in again")
			return nil
		case c.Spent:
			refused = grantErr("the authorization code was used up by a token request with a wrong code_verifier; start the sign-in again")
			return nil
		case c.ClientID != clientID:
			refused = grantErr("the authorization code was issued to another client")
			return nil
		case verifier == "":
			refused = grantErr("code_verifier is missing (PKCE S256 is required): send the verifier whose S256 challenge the authorization request carried")
			return nil
		case subtle.ConstantTimeCompare([]byte(S256(verifier)), []byte(c.Challenge)) != 1:
			f.Codes[i].Spent = true
			refused = grantErr("code_verifier does not match the code_challenge of the authorization request; the code is used up, start the sign-in again")
			return nil
		case c.RedirectSent && redirectURI == "":
			refused = grantErr("redirect_uri is missing: the authorization request named %s, so the token request must name it too (RFC 6749 §4.1.3)", cut(c.RedirectURI, 200))
			return nil
		case redirectURI != "" && redirectURI != c.RedirectURI:
			refused = grantErr("redirect_uri %q is not the address the code was sent to (%s); send that one, or none if the authorization request named none", cut(redirectURI, 200), cut(c.RedirectURI, 200))
			return nil
		case resource != "" && resource != c.Resource:
			refused = grantErr("resource %q is not the one of the authorization request (%s)", cut(resource, 200), c.Resource)
			return nil
		}
		var cl Client
		for _, x := range f.Clients {
			if x.ID == c.ClientID {
				cl = x
			}
		}
		g := Grant{ID: NewSecret()[len(SecretPrefix):][:16], ClientID: c.ClientID, ClientName: cl.Name, Name: c.Name,
			Rights: c.Rights, Vaults: c.Vaults, Resource: c.Resource, Created: now.UTC().Truncate(time.Second)}
		out = issue(&g, now)
		f.Grants = append(f.Grants, g)
		f.Codes[i].GrantID = g.ID
		return nil
	})
	if err != nil {
		return Tokens{}, err
	}
	return out, refused
}

// issue gives a grant a new access and refresh token, retiring the
// current refresh token.
func issue(g *Grant, now time.Time) Tokens {
	access := AccessPrefix + NewSecret()[len(SecretPrefix):]
	refresh := RefreshPrefix + NewSecret()[len(SecretPrefix):]
	live := g.Access[:0:0]
	for _, a := range g.Access {
		if now.Before(a.Expires) {
			live = append(live, a)
		}
	}
	g.Access = append(live, tokenHash{Hash: HashSecret(access), Expires: now.Add(AccessTTL).UTC()})
	if len(g.Access) > accessKept {
		g.Access = g.Access[len(g.Access)-accessKept:]
	}
	if g.Refresh.Hash != "" {
		g.Retired = append(g.Retired, g.Refresh.Hash)
		if len(g.Retired) > retiredKept {
			g.Retired = g.Retired[len(g.Retired)-retiredKept:]
		}
	}
	g.Refresh = tokenHash{Hash: HashSecret(refresh), Expires: now.Add(RefreshTTL).UTC()}
	return Tokens{Access: access, Refresh: refresh, ExpiresIn: AccessTTL, Grant: *g}
}

// Refresh spends a refresh token for new tokens (the refresh token
// rotates). A refresh token used after it was rotated revokes the grant:
// one of the two holders is not the client. Errors: *GrantError
// (ErrInvalidGrant), ErrBusy, I/O errors.
func (s *Store) Refresh(secret, clientID, resource string, now time.Time) (Tokens, error) {
	h := HashSecret(secret)
	unknown := grantErr("the refresh token is unknown, or its connection was revoked; sign in again")
	s.mu.Lock()
	t, err := s.oauthLocked()
	var gid string
	var current, retired bool
	if err == nil {
		gid, current = t.byRefresh[h]
		_, retired = t.retired[h]
	}
	s.mu.Unlock()
	switch {
	case err != nil:
		return Tokens{}, err
	case !current && !retired:
		return Tokens{}, unknown // nothing to change: no lock, no write
	case current && t.grants[gid].ClientID != clientID:
		return Tokens{}, grantErr("the refresh token was issued to another client")
	}
	var out Tokens
	var refused error
	err = s.changeOAuth(now, func(f *oauthFile) error {
		for i := range f.Grants {
			g := &f.Grants[i]
			for _, old := range g.Retired {
				if old == h {
					f.Grants = removeGrant(f.Grants, g.ID)
					refused = grantErr("the refresh token was used already; the connection is revoked, sign in again")
					return nil
				}
			}
			if g.Refresh.Hash != h {
				continue
			}
			switch {
			case g.ClientID != clientID:
				refused = grantErr("the refresh token was issued to another client")
			case !now.Before(g.Refresh.Expires):
				refused = grantErr("the refresh token expired (unused for %s); sign in again", durationWords(RefreshTTL))
			case resource != "" && resource != g.Resource:
				refused = grantErr("resource %q is not the one this connection was granted for (%s)", cut(resource, 200), g.Resource)
			}
			if refused != nil {
				return nil
			}
			out = issue(g, now)
			return nil
		}
		refused = unknown
		return nil
	})
	if err != nil {
		return Tokens{}, err
	}
	return out, refused
}

func removeGrant(gs []Grant, id string) []Grant {
	out := gs[:0]
	for _, g := range gs {
		if g.ID != id {
			out = append(out, g)
		}
	}
	return out
}

// LookupAccess returns the grant an access token belongs to and when the
// token expires (the caller compares with its clock). It re-reads the
// file when it changed (one stat), so a revoked grant is refused on its
// next request. ok is false for an unknown token or a revoked grant; err
// reports a store that cannot be read — callers must then refuse.
func (s *Store) LookupAccess(token string) (g Grant, expires time.Time, ok bool, err error) {
	if !strings.HasPrefix(token, AccessPrefix) {
		return Grant{}, time.Time{}, false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.oauthLocked()
	if err != nil {
		return Grant{}, time.Time{}, false, err
	}
	a, found := t.byAccess[HashSecret(token)]
	if !found {
		return Grant{}, time.Time{}, false, nil
	}
	return t.grants[a.grant], a.expires, true, nil
}

// GrantPrefix marks a grant's id where a key's hash is expected (Valid).
const GrantPrefix = "grant:"

type accessEntry struct {
	grant   string
	expires time.Time
}

// oauthTable is the OAuth file as last loaded, with its lookups: what the
// token endpoint and /mcp ask on every request, answered without reading
// the file.
type oauthTable struct {
	fi        os.FileInfo            // of the file loaded; nil: there was none
	clients   map[string]Client      // id → client
	approved  map[string]bool        // client id → it has a grant
	codes     map[string]code        // hash → code
	grants    map[string]Grant       // id → grant
	byAccess  map[string]accessEntry // access token hash → its grant
	byRefresh map[string]string      // current refresh token hash → its grant
	retired   map[string]string      // rotated refresh token hash → its grant
}

// oauthLocked returns the table of the OAuth file, loading it again when
// the file changed (one stat: its identity, size and mtime). s.mu is held.
func (s *Store) oauthLocked() (*oauthTable, error) {
	name := filepath.Join(s.dir, OAuthName)
	fi, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if s.otab == nil || s.otab.fi != nil {
			s.otab = newOAuthTable(oauthFile{}, nil)
		}
		return s.otab, nil
	case err != nil:
		return nil, err
	}
	if t := s.otab; t != nil && t.fi != nil && os.SameFile(t.fi, fi) && t.fi.ModTime().Equal(fi.ModTime()) && t.fi.Size() == fi.Size() {
		return t, nil
	}
	f, fi, _, err := s.loadOAuth()
	if err != nil {
		return nil, err
	}
	s.otab = newOAuthTable(f, fi)
	return s.otab, nil
}

func newOAuthTable(f oauthFile, fi os.FileInfo) *oauthTable {
	t := &oauthTable{fi: fi, clients: make(map[string]Client, len(f.Clients)), approved: map[string]bool{},
		codes: make(map[string]code, len(f.Codes)), grants: make(map[string]Grant, len(f.Grants)),
		byAccess: map[string]accessEntry{}, byRefresh: make(map[string]string, len(f.Grants)), retired: map[string]string{}}
	for _, c := range f.Clients {
		t.clients[c.ID] = c
	}
	for _, c := range f.Codes {
		t.codes[c.Hash] = c
	}
	for _, g := range f.Grants {
		t.grants[g.ID] = g
		t.approved[g.ClientID] = true
		for _, a := range g.Access {
			t.byAccess[a.Hash] = accessEntry{grant: g.ID, expires: a.Expires}
		}
		t.byRefresh[g.Refresh.Hash] = g.ID
		for _, r := range g.Retired {
			t.retired[r] = g.ID
		}
	}
	return t
}

// validGrant reports whether the grant still exists.
func (s *Store) validGrantLocked(id string) (bool, error) {
	t, err := s.oauthLocked()
	if err != nil {
		return false, err
	}
	_, ok := t.grants[id]
	return ok, nil
}

// Grants returns the signed-in connections, oldest first.
func (s *Store) Grants() ([]Grant, error) {
	f, err := s.readOAuth()
	if err != nil {
		return nil, err
	}
	sort.SliceStable(f.Grants, func(i, j int) bool { return f.Grants[i].Created.Before(f.Grants[j].Created) })
	return f.Grants, nil
}

// RevokeGrant ends a signed-in connection: its tokens are refused from
// the next request on, by every process using the store. Errors:
// ErrGrantNotFound, ErrBusy, I/O errors.
func (s *Store) RevokeGrant(id string, now time.Time) (Grant, error) {
	var gone Grant
	err := s.changeOAuth(now, func(f *oauthFile) error {
		for _, g := range f.Grants {
			if g.ID == id {
				gone = g
				f.Grants = removeGrant(f.Grants, id)
				return nil
			}
		}
		return fmt.Errorf("%w: %q (revoked already?)", ErrGrantNotFound, cut(id, 40))
	})
	return gone, err
}

// SetGrantRights changes a signed-in connection's rights, from its next
// request on. Errors: ErrGrantNotFound, ErrInvalid, ErrBusy, I/O errors.
func (s *Store) SetGrantRights(id string, r Rights, now time.Time) (Grant, error) {
	if !r.Read || r.Delete && !r.Write {
		return Grant{}, fmt.Errorf("%w: %q; a connection needs read, and delete needs write", ErrInvalid, r.String())
	}
	var changed Grant
	err := s.changeOAuth(now, func(f *oauthFile) error {
		for i, g := range f.Grants {
			if g.ID == id {
				f.Grants[i].Rights = r
				changed = f.Grants[i]
				return nil
			}
		}
		return fmt.Errorf("%w: %q (revoked already?)", ErrGrantNotFound, cut(id, 40))
	})
	return changed, err
}

// SetGrantVaults changes a signed-in connection's rights per vault, from
// its next request on, as SetVaults does a key's: v replaces them all; nil
// or empty gives it its rights in every vault again; a vault given zero
// Rights gets the connection's (Grant.Rights). Errors: ErrGrantNotFound,
// ErrInvalidVaults (CheckVaults), ErrBusy, I/O errors.
func (s *Store) SetGrantVaults(id string, v map[string]Rights, now time.Time) (Grant, error) {
	if _, err := withVaults(v, Rights{Read: true}); err != nil {
		return Grant{}, err // the names, before the lock
	}
	var changed Grant
	err := s.changeOAuth(now, func(f *oauthFile) error {
		for i, g := range f.Grants {
			if g.ID == id {
				vaults, err := withVaults(v, g.Rights)
				if err != nil {
					return err
				}
				f.Grants[i].Vaults = vaults
				changed = f.Grants[i]
				return nil
			}
		}
		return fmt.Errorf("%w: %q (revoked already?)", ErrGrantNotFound, cut(id, 40))
	})
	return changed, err
}

// GrantUsed records that a grant's token was used at now, like Used for
// keys: written at most once per UsedGranularity, in the background.
func (s *Store) GrantUsed(id string, now time.Time) {
	s.Used(Key{Hash: GrantPrefix + id}, now)
}

// flushGrants writes the grants' pending last-used times.
func (s *Store) flushGrants(pending map[string]time.Time) error {
	// The newest use is the store's clock here, as the callers' now is
	// everywhere else: expired grants and codes are pruned against it.
	var now time.Time
	for h, t := range pending {
		if strings.HasPrefix(h, GrantPrefix) && t.After(now) {
			now = t
		}
	}
	if now.IsZero() {
		return nil
	}
	return s.changeOAuth(now, func(f *oauthFile) error {
		for i, g := range f.Grants {
			if t, ok := pending[GrantPrefix+g.ID]; ok && t.After(g.LastUsed) {
				f.Grants[i].LastUsed = t.UTC().Truncate(time.Second)
			}
		}
		return nil
	})
}

// readOAuth loads the OAuth file; a missing file is an empty store.
func (s *Store) readOAuth() (oauthFile, error) {
	f, _, _, err := s.loadOAuth()
	return f, err
}

// loadOAuth reads the OAuth file and returns it, the identity of what was
// read (nil: no file) and its bytes.
func (s *Store) loadOAuth() (oauthFile, os.FileInfo, []byte, error) {
	name := filepath.Join(s.dir, OAuthName)
	fh, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return oauthFile{Version: 1}, nil, nil, nil
	}
	if err != nil {
		return oauthFile{}, nil, nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return oauthFile{}, nil, nil, err
	}
	b, err := io.ReadAll(fh)
	if err != nil {
		return oauthFile{}, nil, nil, err
	}
	var f oauthFile
	if err := json.Unmarshal(b, &f); err != nil {
		return oauthFile{}, nil, nil, fmt.Errorf("the sign-in store %s is damaged (%v); move it away and sign the connections in again", name, err)
	}
	if f.Version > 1 {
		return oauthFile{}, nil, nil, fmt.Errorf("the sign-in store %s was written by a newer vaultd (format %d); use that version", name, f.Version)
	}
	return f, fi, b, nil
}

// changeOAuth runs fn on the OAuth file under the store's lock and writes
// the result atomically, dropping expired codes and grants whose refresh
// token expired on the way. fn returning an error leaves it unchanged.
func (s *Store) changeOAuth(now time.Time, fn func(*oauthFile) error) error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	l, err := lock(filepath.Join(s.dir, LockName), LockTimeout)
	if err != nil {
		return err
	}
	defer l.unlock()
	f, _, old, err := s.loadOAuth()
	if err != nil {
		return err
	}
	codes := f.Codes[:0]
	for _, c := range f.Codes {
		// A used code is remembered for its lifetime, to recognise a
		// replay.
		if now.Before(c.Expires) {
			codes = append(codes, c)
		}
	}
	f.Codes = codes
	grants := f.Grants[:0]
	for _, g := range f.Grants {
		if now.Before(g.Refresh.Expires) {
			grants = append(grants, g)
		}
	}
	f.Grants = grants
	if err := fn(&f); err != nil {
		return err
	}
	// A client the owner has not approved waits PendingClientTTL (after
	// fn: a code it just made counts).
	clients := f.Clients[:0]
	for _, c := range f.Clients {
		if now.Sub(c.Created) < PendingClientTTL || f.approved(c.ID) {
			clients = append(clients, c)
		}
	}
	f.Clients = clients
	f.Version = 1
	if f.Clients == nil {
		f.Clients = []Client{}
	}
	if f.Grants == nil {
		f.Grants = []Grant{}
	}
	if f.Codes == nil {
		f.Codes = []code{}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if bytes.Equal(b, old) {
		return nil // a refusal, or nothing to prune: no write
	}
	return writeAtomic(filepath.Join(s.dir, OAuthName), b)
}

// cut shortens s to at most n runes for a message.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// durationWords renders a lifetime for a message: "1 minute", "30 days".
func durationWords(d time.Duration) string {
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	case d == time.Hour:
		return "1 hour"
	case d == time.Minute:
		return "1 minute"
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}
