package keys

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// The vault owner signs in to the owner's page with a one-time link that
// `vaultd owner link` (or `vaultd app`) prints. Like an access key's, the
// link's secret is kept only as its SHA-256 hash, in the state dir, next to
// the keys; a link is good for one sign-in within LinkTTL. Access keys and
// sign-in links are separate: a key's secret never signs anyone in, and a
// link's secret is never an access key.

// LinksName is the file of pending sign-in links in the state dir.
const LinksName = "owner-links.json"

// LinkPrefix starts every sign-in secret.
const LinkPrefix = "vdo_"

// LinkTTL is how long a sign-in link is good for.
const LinkTTL = 15 * time.Minute

// ErrLinkInvalid means a sign-in secret is unknown, used or expired.
var ErrLinkInvalid = errors.New("sign-in link unknown, used or expired")

// link is one pending sign-in link as stored.
type link struct {
	Hash    string    `json:"hash"`
	Expires time.Time `json:"expires"`
}

type linksFile struct {
	Version int    `json:"version"`
	Links   []link `json:"links"`
}

// NewLink makes a one-time sign-in secret good until now+LinkTTL and
// returns it (it is not stored; only its hash is). Expired links are
// dropped on the way.
func (s *Store) NewLink(now time.Time) (secret string, expires time.Time, err error) {
	secret = LinkPrefix + NewSecret()[len(SecretPrefix):]
	expires = now.Add(LinkTTL).UTC()
	err = s.changeLinks(func(f *linksFile) error {
		f.Links = append(live(f.Links, now), link{Hash: HashSecret(secret), Expires: expires})
		return nil
	})
	return secret, expires, err
}

// UseLink spends a sign-in secret: it succeeds once, before the link
// expires. Errors: ErrLinkInvalid, ErrBusy, I/O errors.
//
// Anyone who reaches the page can send a secret, so an unknown one is
// refused from a read of the links file (replaced atomically: a reader
// sees the old or the new one), without the store's lock: a flood of
// made-up secrets must not keep token exchanges and key changes waiting
// for it until they give up (ErrBusy).
func (s *Store) UseLink(secret string, now time.Time) error {
	h := HashSecret(secret)
	f, err := s.readLinks()
	if err != nil {
		return err
	}
	pending := false
	for _, l := range live(f.Links, now) {
		pending = pending || l.Hash == h
	}
	if !pending {
		return ErrLinkInvalid
	}
	return s.changeLinks(func(f *linksFile) error {
		ls := live(f.Links, now)
		for i, l := range ls {
			if l.Hash == h {
				f.Links = append(ls[:i], ls[i+1:]...)
				return nil
			}
		}
		return ErrLinkInvalid
	})
}

func live(ls []link, now time.Time) []link {
	out := ls[:0:0]
	for _, l := range ls {
		if now.Before(l.Expires) {
			out = append(out, l)
		}
	}
	return out
}

// readLinks loads the links file; a missing or damaged one has no links.
func (s *Store) readLinks() (linksFile, error) {
	var f linksFile
	b, err := os.ReadFile(filepath.Join(s.dir, LinksName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return f, err
	default:
		if err := json.Unmarshal(b, &f); err != nil {
			// Pending links are worth nothing once lost: a damaged file
			// starts over (the owner asks for a new link).
			f = linksFile{}
		}
	}
	return f, nil
}

// changeLinks is change for the links file, under the store's lock.
func (s *Store) changeLinks(fn func(*linksFile) error) error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	l, err := lock(filepath.Join(s.dir, LockName), LockTimeout)
	if err != nil {
		return err
	}
	defer l.unlock()
	name := filepath.Join(s.dir, LinksName)
	f, err := s.readLinks()
	if err != nil {
		return err
	}
	if err := fn(&f); err != nil {
		return err
	}
	f.Version = 1
	if f.Links == nil {
		f.Links = []link{}
	}
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("sign-in links: %w", err)
	}
	return writeAtomic(name, append(out, '\n'))
}
