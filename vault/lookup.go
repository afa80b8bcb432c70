package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// findCaseInsensitive finds an existing note whose path equals c ignoring
// case and Unicode normalisation (Obsidian links are case-insensitive, and
// macOS may store decomposed names).
func (v *Vault) findCaseInsensitive(c string) (string, bool) {
	dir := path.Dir(c)
	entries, err := fs.ReadDir(v.root.FS(), dir)
	if err != nil {
		// The folder itself may differ in case.
		if dir == "." {
			return "", false
		}
		realDir, ok := v.findCaseInsensitiveDir(dir)
		if !ok {
			return "", false
		}
		return v.findCaseInsensitive(path.Join(realDir, path.Base(c)))
	}
	want := note.HeadingKey(path.Base(c))
	for _, e := range entries {
		if !e.IsDir() && note.HeadingKey(e.Name()) == want {
			return path.Join(dir, e.Name()), true
		}
	}
	return "", false
}

func (v *Vault) findCaseInsensitiveDir(dir string) (string, bool) {
	parent := path.Dir(dir)
	if parent != "." {
		if _, err := fs.Stat(v.root.FS(), parent); err != nil {
			p, ok := v.findCaseInsensitiveDir(parent)
			if !ok {
				return "", false
			}
			parent = p
		}
	}
	entries, err := fs.ReadDir(v.root.FS(), parent)
	if err != nil {
		return "", false
	}
	want := note.HeadingKey(path.Base(dir))
	for _, e := range entries {
		if e.IsDir() && note.HeadingKey(e.Name()) == want {
			return path.Join(parent, e.Name()), true
		}
	}
	return "", false
}

// Exists reports whether a note or folder exists at the vault path.
func (v *Vault) Exists(p string) bool {
	c, err := note.CleanPath(p)
	if err != nil {
		return false
	}
	_, err = v.root.Stat(c)
	return err == nil
}

// Spaces lists the vault's top-level folders (its spaces), sorted,
// without hidden folders.
func (v *Vault) Spaces() []string {
	entries, err := fs.ReadDir(v.root.FS(), ".")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !skipName(e.Name()) {
			out = append(out, nfc(e.Name()))
		}
	}
	return out
}

// NotePaths lists every note of the vault.
func (v *Vault) NotePaths() []string {
	var out []string
	_ = v.Walk(func(e Entry) error {
		if e.Note {
			out = append(out, e.Path)
		}
		return nil
	})
	return out
}

// notFound builds the "note not found" error for path c: what the folder
// holds instead, the closest notes elsewhere, and the spaces. The closest
// notes come from the name table (Names), ranked as Find ranks them.
func (v *Vault) notFound(op, c string) error {
	t, behind, err := v.Names()
	if err != nil {
		return v.notFoundWith(op, c, ClosestNotes(v.NotePaths(), c, 5))
	}
	m := t.miss(c)
	e := v.notFoundWith(op, c, m.Closest)
	e.AltWhy, e.AltClose = m.Why, m.Close
	if behind {
		e.Msg += " (vaultd is still reading the vault's notes: a note added or renamed in the last moments may not be known yet)"
	}
	return e
}

// notFoundWith is notFound with the closest notes already known.
func (v *Vault) notFoundWith(op, c string, closest []string) *note.Error {
	dir := note.FolderOf(c)
	name := strings.TrimSuffix(path.Base(c), ".md")
	e := &note.Error{Op: op, Path: c, Kind: note.ErrNotFound, AltKind: "notes"}
	e.Alternatives = closest
	if dir != "" {
		if _, err := fs.Stat(v.root.FS(), dir); errors.Is(err, fs.ErrNotExist) {
			e.Msg = fmt.Sprintf("no such note: folder %q does not exist", dir)
			return e
		}
		e.Msg = fmt.Sprintf("no such note: folder %q has no note %q", dir, name)
		return e
	}
	e.Msg = fmt.Sprintf("no such note: the vault root has no note %q", name)
	return e
}

// ClosestNotes ranks note paths by how close they are to the wanted path:
// same name elsewhere first, then same folder, then by edit distance of
// the names. A folder note's name is its folder's (NoteName): among notes
// all called index.md, x/BGB/index.md is the one near "y/bgb/index.md".
// It returns at most n.
func ClosestNotes(paths []string, want string, n int) []string {
	wantName := note.HeadingKey(note.NoteName(want))
	wantDir := note.FolderOf(want)
	type scored struct {
		p string
		s int
	}
	var list []scored
	for _, p := range paths {
		if p == want {
			continue
		}
		name := note.HeadingKey(note.NoteName(p))
		s := note.Distance(wantName, name) * 10
		switch {
		case name == wantName:
			s = 0
		case strings.Contains(name, wantName) || strings.Contains(wantName, name):
			s = min(s, 15+abs(len(name)-len(wantName)))
		}
		if note.FolderOf(p) == wantDir {
			s -= 5
		}
		// Far-off names are no help.
		if s > 10*max(3, len([]rune(wantName))/2) {
			continue
		}
		list = append(list, scored{p, s})
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].s != list[j].s {
			return list[i].s < list[j].s
		}
		return list[i].p < list[j].p
	})
	var out []string
	for i := 0; i < len(list) && i < n; i++ {
		out = append(out, list[i].p)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
