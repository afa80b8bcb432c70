package vault

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// SetProperties changes the frontmatter properties of the note at p: each
// key of e.Set is changed in place (its lines replaced) or, when new,
// added at the end of the frontmatter; each key of e.Remove (or set to nil)
// is deleted with its lines. Every other byte of the note stays as it was.
// A note without frontmatter gets one; removing its last property removes
// the frontmatter fences too, so setting a new key and removing it again
// leaves the note byte-identical (except for a note that had an empty
// "---/---" block, which goes). Keys match exactly, else ignoring case when
// that names exactly one key. Values are written as Obsidian writes them:
// lists as block lists ("key:" then "  - item"), dates unquoted, strings
// quoted (double quotes) only when YAML needs it.
//
// o.ExpectedVersion is optional. When given and the note has changed
// since, the edit still applies if every key it touches has the same text
// now as at that version (other keys or the body may have changed), and is
// a conflict otherwise; an unknown version is a conflict too.
//
// It returns the write's Result and what happened to each key, in the
// order: e.Set keys sorted, then e.Remove in the order given.
//
// Errors (*Error, Op "set_properties"): ErrInvalid (empty summary, no
// changes given, a key that is empty or a value that is not text, number,
// checkbox, date or list of those; frontmatter whose YAML is invalid —
// the message names its line — or that is not a list of properties; a
// layout vaultd cannot edit without touching other keys); ErrInvalidPath;
// ErrNotFound; ErrConflict (Expected, Current set); ErrDenied.
func (v *Vault) SetProperties(p string, e note.PropertyEdit, o WriteOpts) (*Result, []note.PropertyChange, error) {
	const op = "set_properties"
	if len(e.Set) == 0 && len(e.Remove) == 0 {
		c, _ := note.NotePath(p)
		return nil, nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalid,
			Msg: "no properties given: name at least one property to set or remove"}
	}
	var changes []note.PropertyChange
	var base []byte
	var baseErr error
	haveBase := false
	res, err := v.edit(op, p, o, func(cur []byte) ([]byte, string, error) {
		if !haveBase && strings.TrimSpace(o.ExpectedVersion) != "" && !note.SameVersion(o.ExpectedVersion, note.Version(cur)) {
			haveBase = true
			base, baseErr = v.Content(o.ExpectedVersion)
		}
		if haveBase {
			if err := sameKeysSince(base, baseErr, cur, e, o.ExpectedVersion); err != nil {
				return nil, "", err
			}
		}
		next, ch, err := note.EditProperties(cur, e)
		if err != nil {
			return nil, "", err
		}
		changes = ch
		detail := propertyDetail(ch)
		if haveBase && !bytes.Equal(next, cur) {
			detail += fmt.Sprintf("; other parts of the note had changed since version %s and were kept", note.ShortVersion(strings.TrimSpace(o.ExpectedVersion)))
		}
		return next, detail, nil
	})
	return res, changes, err
}

// sameKeysSince checks that the keys an edit touches read the same in base
// (the version the caller read) as in cur.
func sameKeysSince(base []byte, baseErr error, cur []byte, e note.PropertyEdit, expected string) error {
	given := strings.TrimSpace(expected)
	now := note.ShortVersion(note.Version(cur))
	conflict := &note.Error{Kind: note.ErrConflict, Expected: given, Current: now}
	if baseErr != nil {
		conflict.Msg = fmt.Sprintf("the note changed since version %s, and the text of that version is not known, so it cannot be told whether the properties you change were changed; it is now at version %s",
			note.ShortVersion(given), now)
		return conflict
	}
	k, err := note.ChangedProperty(base, cur, e)
	if err != nil {
		conflict.Msg = fmt.Sprintf("the note's frontmatter changed since version %s; it is now at version %s", note.ShortVersion(given), now)
		return conflict
	}
	if k != "" {
		conflict.Msg = fmt.Sprintf("property %q changed since version %s; it is now at version %s", k, note.ShortVersion(given), now)
		return conflict
	}
	return nil
}

// propertyDetail sums up changes for Result.Detail.
func propertyDetail(ch []note.PropertyChange) string {
	var set, removed, same []string
	for _, c := range ch {
		switch c.Action {
		case "added", "changed":
			set = append(set, c.Key)
		case "removed":
			removed = append(removed, c.Key)
		default:
			same = append(same, c.Key)
		}
	}
	props := func(n int) string {
		if n == 1 {
			return "1 property"
		}
		return fmt.Sprintf("%d properties", n)
	}
	var parts []string
	if len(set) > 0 {
		parts = append(parts, fmt.Sprintf("%s set (%s)", props(len(set)), strings.Join(set, ", ")))
	}
	if len(removed) > 0 {
		parts = append(parts, fmt.Sprintf("%s removed (%s)", props(len(removed)), strings.Join(removed, ", ")))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("the properties already were as asked (%s)", strings.Join(same, ", "))
	}
	return strings.Join(parts, ", ")
}
