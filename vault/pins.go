package vault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// Pins are Obsidian's bookmarks: .obsidian/bookmarks.json, which Obsidian
// reads and writes itself, so a pin made by an agent shows in Obsidian and
// one made in Obsidian shows to agents. The file's format:
//
//	{"items": [
//	  {"type": "file", "ctime": 1764000000000, "path": "1_Projekte/X.md", "title": ""},
//	  {"type": "group", "ctime": …, "title": "Kunden", "items": [ …nested items… ]},
//	  {"type": "search", "ctime": …, "query": "tag:#projekt"},
//	  {"type": "folder" | "heading" | "block" | "graph" | "url", …}
//	]}
//
// vaultd adds and removes "file" items only. Everything else — other item
// types, groups, fields it does not know, their order — is kept: items are
// carried as raw JSON and only the lists that change are rebuilt. The file
// is written the way Obsidian writes it (JSON.stringify with two-space
// indentation), so a file Obsidian wrote comes back byte-identical after a
// pin and an unpin.

// BookmarksPath is where Obsidian keeps bookmarks, relative to the vault.
const BookmarksPath = ".obsidian/bookmarks.json"

// Pin is one bookmarked file.
type Pin struct {
	Path  string // vault path of the file
	Title string // the bookmark's own title; "" when it has none
	Group string // the groups it is in, "Kunden > Aktiv"; "" at the top level
}

// PinResult reports what Pin or Unpin did.
type PinResult struct {
	Path     string // the note's vault path
	Note     *Note  // the note as read; nil when it does not exist (unpinning a dangling bookmark)
	Changed  bool   // false when it was already pinned (Pin) or not pinned (Unpin)
	Detail   string // what happened, one line
	Groups   []string
	ChangeID string
	Pins     []Pin // all pins after the call
}

// Pins lists the file bookmarks of the vault, depth first in the order
// Obsidian shows them. A vault without bookmarks.json has none.
//
// Errors: ErrInvalid when bookmarks.json is not valid JSON or has no item
// list (Obsidian would not read it either).
func (v *Vault) Pins() ([]Pin, error) {
	b, err := v.root.ReadFile(BookmarksPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &note.Error{Op: "pins", Path: BookmarksPath, Msg: "could not read the bookmarks: " + errText(err), Err: err}
	}
	bm, err := parseBookmarks(b)
	if err != nil {
		return nil, withOp(err, "pins", BookmarksPath)
	}
	return bm.pins(), nil
}

// Pin bookmarks the note at p in Obsidian (a "file" item at the end of the
// top-level list of .obsidian/bookmarks.json, created when missing). A note
// bookmarked already, also inside a group, is left alone (Changed false).
// The file is written atomically with a temp file in .obsidian/; the change
// is checked with Policy.CheckWrite (Op "pin", Path BookmarksPath) and
// recorded in history as op "pin" with the note's path and its unchanged
// version (pins are not notes: the note's text does not change).
//
// Errors (*Error, Op "pin"): ErrInvalid (empty summary; bookmarks.json is
// not valid JSON — it is left as it is); ErrInvalidPath; ErrNotFound (no
// such note; Alternatives the closest); ErrConflict (bookmarks.json keeps
// being changed by another program); ErrDenied.
func (v *Vault) Pin(p string, o WriteOpts) (*PinResult, error) {
	const op = "pin"
	c, err := note.NotePath(p)
	if err != nil {
		return nil, withOp(err, op, "")
	}
	c, _, err = v.existing(op, c)
	if err != nil {
		return nil, err
	}
	n, err := v.read(c)
	if err != nil {
		return nil, withOp(err, op, c)
	}
	return v.editPins(op, c, n, o, func(bm *bookmarks) (string, bool) {
		if groups := bm.find(c); len(groups) > 0 {
			return "already pinned" + groupText(groups), false
		}
		bm.add(c, v.opts.Now().UnixMilli())
		return "pinned: added to the bookmarks in " + BookmarksPath, true
	})
}

// Unpin removes every bookmark of the note at p, at the top level and in
// groups (groups stay, even when empty, as in Obsidian). The note need not
// exist any more: a dangling bookmark can be removed too. A note that is
// not pinned is left alone (Changed false). Recorded as op "unpin".
//
// Errors (*Error, Op "unpin"): as Pin, but a missing note is no error when
// it is bookmarked.
func (v *Vault) Unpin(p string, o WriteOpts) (*PinResult, error) {
	const op = "unpin"
	c, err := note.NotePath(p)
	if err != nil {
		return nil, withOp(err, op, "")
	}
	var n *Note
	if cc, _, err := v.existing(op, c); err == nil {
		c = cc
		if n, err = v.read(c); err != nil {
			return nil, withOp(err, op, c)
		}
	} else if pins, perr := v.Pins(); perr != nil || !pinned(pins, c) {
		return nil, err
	}
	return v.editPins(op, c, n, o, func(bm *bookmarks) (string, bool) {
		groups := bm.find(c)
		if len(groups) == 0 {
			return "not pinned", false
		}
		bm.remove(c)
		return "unpinned: removed from the bookmarks in " + BookmarksPath + groupText(groups), true
	})
}

func pinned(pins []Pin, c string) bool {
	for _, p := range pins {
		if samePinPath(p.Path, c) {
			return true
		}
	}
	return false
}

func groupText(groups []string) string {
	var named []string
	for _, g := range groups {
		if g != "" {
			named = append(named, fmt.Sprintf("%q", g))
		}
	}
	if len(named) == 0 {
		return ""
	}
	return " (in group " + strings.Join(named, ", ") + ")"
}

// editPins runs the write protocol on bookmarks.json: lock, read, compute,
// check, temp file, re-check (recompute when it changed), publish, fsync,
// record, notify.
func (v *Vault) editPins(op, c string, n *Note, o WriteOpts, fn func(*bookmarks) (string, bool)) (*PinResult, error) {
	o, err := v.writeOpts(op, c, o)
	if err != nil {
		return nil, err
	}
	unlock, err := v.lock(noteKey(BookmarksPath))
	if err != nil {
		return nil, ioErr(op, c, "could not lock the bookmarks", err)
	}
	res, err := v.editPinsLocked(op, c, n, o, fn)
	unlock()
	if res != nil && res.Changed {
		v.notify(BookmarksPath)
	}
	return res, err
}

func (v *Vault) editPinsLocked(op, c string, n *Note, o WriteOpts, fn func(*bookmarks) (string, bool)) (*PinResult, error) {
	res := &PinResult{Path: c, Note: n}
	for attempt := 0; ; attempt++ {
		cur, exists, err := v.readBookmarks(op, c)
		if err != nil {
			return nil, err
		}
		bm, err := parseBookmarks(cur)
		if err != nil {
			return nil, withOp(err, op, c)
		}
		res.Groups = bm.find(c)
		detail, changed := fn(bm)
		res.Detail, res.Changed = detail, changed
		if !changed {
			res.Pins = bm.pins()
			return res, nil
		}
		next := bm.marshal(cur)
		if pol := v.Policy(); pol != nil {
			if err := pol.CheckWrite(WriteCheck{Op: op, Path: BookmarksPath, Content: next, New: !exists, Actor: o.Actor}); err != nil {
				return nil, withOp(err, op, c)
			}
		}
		if err := v.root.MkdirAll(path.Dir(BookmarksPath), 0o755); err != nil {
			return nil, ioErr(op, c, "could not create the folder .obsidian", err)
		}
		perm, exact := fs.FileMode(0o644), false
		if fi, err := v.root.Lstat(BookmarksPath); err == nil {
			perm, exact = fi.Mode().Perm(), true
		}
		tmp, err := v.writeTemp(BookmarksPath, next, perm, exact)
		if err != nil {
			return nil, ioErr(op, c, "could not write the bookmarks", err)
		}
		if err := v.step("recheck", BookmarksPath); err != nil {
			v.root.Remove(tmp)
			return nil, ioErr(op, c, "could not check the bookmarks again", err)
		}
		now, nowExists, err := v.readBookmarks(op, c)
		if err != nil || nowExists != exists || !bytes.Equal(now, cur) {
			v.root.Remove(tmp)
			if err != nil {
				return nil, err
			}
			if attempt+1 >= maxRecompute {
				return nil, &note.Error{Op: op, Path: c, Kind: note.ErrConflict,
					Msg: BookmarksPath + " keeps being changed by another program (Obsidian?) while vaultd writes it; try again later"}
			}
			continue
		}
		if exists {
			err = v.step("rename", BookmarksPath)
			if err == nil {
				err = v.root.Rename(tmp, BookmarksPath)
			}
		} else {
			err = v.publishNew(tmp, BookmarksPath)
			if errors.Is(err, fs.ErrExist) && attempt+1 < maxRecompute {
				v.root.Remove(tmp)
				continue // Obsidian created it meanwhile: start over on its text
			}
		}
		if err != nil {
			v.root.Remove(tmp)
			return nil, ioErr(op, c, "could not publish the bookmarks", err)
		}
		if err := v.syncDirOf(BookmarksPath); err != nil {
			return nil, ioErr(op, c, "the bookmarks were written but could not be made durable", err)
		}
		if after, _, err := v.readBookmarks(op, c); err == nil {
			if abm, err := parseBookmarks(after); err == nil {
				res.Pins = abm.pins()
			}
		}
		// The note's text does not change: the record carries its version
		// as before and after, so that history explains the call without
		// claiming a change of the note (and Recover sees no external edit).
		ch := Change{Op: op, Path: c, Summary: o.Summary, Actor: o.Actor}
		var text []byte
		if n != nil {
			ch.Before, ch.After, text = n.Version, n.Version, n.Doc.Src
		}
		ch, err = v.record(ch, text)
		res.ChangeID = ch.ID
		if err != nil {
			return res, &note.Error{Op: op, Path: c, Err: err,
				Msg: "the bookmarks were written but the history record could not be saved: " + errText(err)}
		}
		return res, nil
	}
}

// readBookmarks reads bookmarks.json; a missing file is empty. Anything but
// a regular file (a symlink, a folder) is refused: vaultd would have to
// replace it.
func (v *Vault) readBookmarks(op, c string) ([]byte, bool, error) {
	fi, err := v.root.Lstat(BookmarksPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err == nil && !fi.Mode().IsRegular() {
		return nil, false, &note.Error{Op: op, Path: c, Kind: note.ErrInvalidPath,
			Msg: BookmarksPath + " is not a regular file (a link or folder); vaultd leaves it alone"}
	}
	b, err := v.root.ReadFile(BookmarksPath)
	if err != nil {
		return nil, false, ioErr(op, c, "could not read the bookmarks", err)
	}
	return b, true, nil
}

// bookmarks is bookmarks.json with its top-level keys in order and every
// value raw; only "items" is opened.
type bookmarks struct {
	top     *jsonObject
	items   []bmItem
	changed bool
}

type bmItem struct {
	raw   json.RawMessage
	obj   *jsonObject // nil when the item is not an object
	kind  string      // its "type"
	path  string      // for files
	title string
	items []bmItem // for groups
	dirty bool     // items changed: the group must be rebuilt
}

// parseBookmarks reads bookmarks.json; empty input is an empty list.
func parseBookmarks(b []byte) (*bookmarks, error) {
	bm := &bookmarks{top: &jsonObject{}}
	if len(bytes.TrimSpace(b)) == 0 {
		return bm, nil
	}
	invalid := func(why string) error {
		return &note.Error{Kind: note.ErrInvalid, Msg: BookmarksPath + " " + why + "; vaultd leaves it as it is — fix or remove it in Obsidian (Settings → Core plugins → Bookmarks)"}
	}
	top, err := parseJSONObject(b)
	if err != nil {
		return nil, invalid("is not valid JSON (" + err.Error() + ")")
	}
	bm.top = top
	raw, ok := top.get("items")
	if !ok {
		return bm, nil
	}
	items, err := parseItems(raw)
	if err != nil {
		return nil, invalid("has an \"items\" entry that is not a list of bookmarks")
	}
	bm.items = items
	return bm, nil
}

func parseItems(raw json.RawMessage) ([]bmItem, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	out := make([]bmItem, 0, len(list))
	for _, r := range list {
		it := bmItem{raw: r}
		if obj, err := parseJSONObject(r); err == nil {
			it.obj = obj
			it.kind = obj.str("type")
			it.path = obj.str("path")
			it.title = obj.str("title")
			if it.kind == "group" {
				if sub, ok := obj.get("items"); ok {
					if it.items, err = parseItems(sub); err != nil {
						return nil, err
					}
				}
			}
		}
		out = append(out, it)
	}
	return out, nil
}

// pins lists the file items, depth first.
func (bm *bookmarks) pins() []Pin {
	var out []Pin
	var walk func(items []bmItem, group string)
	walk = func(items []bmItem, group string) {
		for _, it := range items {
			switch it.kind {
			case "file":
				out = append(out, Pin{Path: it.path, Title: it.title, Group: group})
			case "group":
				g := it.title
				if group != "" {
					g = group + " > " + it.title
				}
				walk(it.items, g)
			}
		}
	}
	walk(bm.items, "")
	return out
}

// find returns the groups ("" for the top level) holding a file item for c.
func (bm *bookmarks) find(c string) []string {
	var groups []string
	for _, p := range bm.pins() {
		if samePinPath(p.Path, c) {
			groups = append(groups, p.Group)
		}
	}
	return groups
}

// samePinPath compares a bookmark's path with a note path as Obsidian's
// lookups do: ignoring case and Unicode normalisation.
func samePinPath(a, b string) bool { return note.LinkKey(a) == note.LinkKey(b) }

// add appends a file item at the top level.
func (bm *bookmarks) add(c string, ctime int64) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		Type  string `json:"type"`
		Ctime int64  `json:"ctime"`
		Path  string `json:"path"`
		Title string `json:"title"`
	}{"file", ctime, c, ""})
	bm.items = append(bm.items, bmItem{raw: bytes.TrimSpace(buf.Bytes()), kind: "file", path: c})
	bm.changed = true
}

// remove drops every file item for c, in groups too.
func (bm *bookmarks) remove(c string) {
	var drop func(items []bmItem) ([]bmItem, bool)
	drop = func(items []bmItem) ([]bmItem, bool) {
		out := items[:0:0]
		changed := false
		for _, it := range items {
			if it.kind == "file" && samePinPath(it.path, c) {
				changed = true
				continue
			}
			if it.kind == "group" && it.obj != nil {
				var sub bool
				it.items, sub = drop(it.items)
				if sub {
					it.dirty, changed = true, true
				}
			}
			out = append(out, it)
		}
		return out, changed
	}
	var ch bool
	bm.items, ch = drop(bm.items)
	bm.changed = bm.changed || ch
}

// marshal writes the bookmarks as Obsidian does: two-space indentation,
// the original's trailing line break kept.
func (bm *bookmarks) marshal(orig []byte) []byte {
	bm.top.set("items", itemsJSON(bm.items))
	var compact, out bytes.Buffer
	_ = json.Compact(&compact, bm.top.marshal())
	_ = json.Indent(&out, compact.Bytes(), "", "  ")
	if bytes.HasSuffix(orig, []byte("\n")) || len(orig) == 0 {
		out.WriteByte('\n')
	}
	return out.Bytes()
}

func itemsJSON(items []bmItem) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		if it.dirty {
			it.obj.set("items", itemsJSON(it.items))
			b.Write(it.obj.marshal())
			continue
		}
		b.Write(it.raw)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// jsonObject is a JSON object with its keys in order and raw values, so
// that fields vaultd does not know survive a rewrite unchanged.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseJSONObject(b []byte) (*jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not an object")
	}
	o := &jsonObject{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = raw
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one value")
	}
	return o, nil
}

// jsonString encodes s as a JSON string without escaping <, > and &, as
// JavaScript's JSON.stringify writes them.
func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

func (o *jsonObject) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *jsonObject) str(k string) string {
	var s string
	if raw, ok := o.vals[k]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

func (o *jsonObject) set(k string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *jsonObject) marshal() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}
