package vault

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// One note per name. Paths are NFC (note.CleanPath): a name macOS stores
// decomposed is the same name as its composed spelling, and "Café.md" is
// one note however it is typed. But git on Linux can bring in two files
// whose names differ only in Unicode normalisation — "Team/Café.md" once
// composed (NFC) and once decomposed (NFD, "e" + U+0301) — and keeps both.
// They are two notes, and neither may be written through the other's name.
//
// So a vault path is canonical: every name NFC, except a name not in NFC
// that has a twin in its folder (another entry whose name differs only in
// case or normalisation), which keeps its bytes (canon). Walk, the history and every answer name a twin by its
// exact bytes; given those bytes, a read or write reaches that file and no
// other (notePath). A spelling that matches no name exactly but several
// when case and normalisation are folded ("team/café.md") is ambiguous:
// refused with every candidate listed (matchFolded), as for case twins.
//
// Compatibility characters are not folded: "ﬁ" (U+FB01) and "fi", "²" and
// "2", full-width "Ａ" and "A" are different names, as on every file
// system; each is reached by its own spelling, and only case folding (which
// turns "ﬁ" into "fi") can make a spelling match both — then it is
// ambiguous too.

// notePath is note.NotePath for a path given to the vault: NFC, except
// for names spelled in another normal form that name a twin exactly
// (canon), so that the twin it names is the one reached.
func (v *Vault) notePath(p string) (string, error) {
	c, err := note.NotePath(p)
	if err != nil {
		return "", err
	}
	x, xerr := note.NotePathExact(p)
	return v.exactTwin(c, x, xerr), nil
}

// cleanPath is notePath for any file or folder (note.CleanPath).
func (v *Vault) cleanPath(p string) (string, error) {
	c, err := note.CleanPath(p)
	if err != nil {
		return "", err
	}
	x, xerr := note.CleanPathExact(p)
	return v.exactTwin(c, x, xerr), nil
}

// exactTwin returns the canonical path of x, the path as given, when it
// is not c, its NFC form; else c.
func (v *Vault) exactTwin(c string, x string, err error) string {
	if err != nil || x == c {
		return c
	}
	return v.canon(x)
}

// CanonicalPath returns the vault path under which Walk and every answer
// name the file (or the file just removed) at p, spelled as the disk
// spells it: NFC, but for a twin's name. The index names a changed file
// by it.
func (v *Vault) CanonicalPath(p string) string { return v.canonAs(p, true) }

// canon returns the canonical vault path of p (see above): each name NFC,
// except a name that exists under exactly these bytes beside another
// whose NFC form is the same, which keeps its bytes. A name already in NFC
// costs nothing; another costs a listing of its folder.
func (v *Vault) canon(p string) string { return v.canonAs(p, false) }

// canonAs is canon; gone says p may name what is no longer there (a
// history record of a delete or move): a name not in NFC that is not there
// keeps its bytes too while a twin of it is, since its NFC form names the
// twin.
func (v *Vault) canonAs(p string, gone bool) string {
	if p == nfc(p) {
		return p
	}
	parts := strings.Split(p, "/")
	for i, name := range parts {
		n := nfc(name)
		if n == name {
			continue
		}
		dir := "."
		if i > 0 {
			dir = strings.Join(parts[:i], "/")
		}
		if !hasTwin(v.root.FS(), dir, name, gone) {
			parts[i] = n
		}
	}
	return strings.Join(parts, "/")
}

// hasTwin reports whether folder dir holds name under exactly these bytes
// (or, with gone, may have held it) beside another entry whose name
// differs from it only in case or Unicode normalisation (note.HeadingKey).
func hasTwin(fsys fs.FS, dir, name string, gone bool) bool {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return false
	}
	self, other := false, false
	k := note.HeadingKey(name)
	for _, e := range entries {
		switch {
		case e.Name() == name:
			self = true
		case note.HeadingKey(e.Name()) == k:
			other = true
		}
	}
	return (self || gone) && other
}

// twinNames returns, of a folder's entry names, those not in NFC that have
// a twin in it — another name that differs only in case or normalisation:
// such a name is shown as it is, since its NFC form would reach the other
// or neither.
func twinNames(names []string) map[string]bool {
	// Nearly every folder has its names in NFC: then none is a twin to
	// show as it is, and no name needs folding (a walk of 4× the laws
	// spent 37 ms folding them).
	if !slices.ContainsFunc(names, func(n string) bool { return n != nfc(n) }) {
		return nil
	}
	count := make(map[string]int, len(names))
	for _, n := range names {
		count[note.HeadingKey(n)]++
	}
	var out map[string]bool
	for _, n := range names {
		if n != nfc(n) && count[note.HeadingKey(n)] > 1 {
			if out == nil {
				out = map[string]bool{}
			}
			out[n] = true
		}
	}
	return out
}

// folded is a file or folder whose path matches a spelling with case and
// Unicode normalisation folded: its canonical path and its path on disk.
type folded struct {
	canon, raw string
}

// matchFolded finds every existing entry whose path equals c with case
// and normalisation folded (note.HeadingKey per name), folders included at
// every level; files only when dirs is false. At most a few are expected.
func (v *Vault) matchFolded(c string, dirs bool) []folded {
	parts := strings.Split(c, "/")
	cur := []folded{{canon: "", raw: "."}}
	for i, want := range parts {
		last := i == len(parts)-1
		key := note.HeadingKey(want)
		var next []folded
		for _, d := range cur {
			entries, err := fs.ReadDir(v.root.FS(), d.raw)
			if err != nil {
				continue
			}
			names := make([]string, len(entries))
			for j, e := range entries {
				names[j] = e.Name()
			}
			twins := twinNames(names)
			for _, e := range entries {
				if skipName(e.Name()) || note.HeadingKey(e.Name()) != key {
					continue
				}
				if !last && !e.IsDir() {
					continue
				}
				if last && !dirs && e.IsDir() {
					continue
				}
				shown := nfc(e.Name())
				if twins[e.Name()] {
					shown = e.Name()
				}
				next = append(next, folded{canon: join(d.canon, shown), raw: join(strings.TrimPrefix(d.raw, "."), e.Name())})
			}
		}
		cur = next
		if len(cur) == 0 {
			return nil
		}
	}
	for i := range cur {
		cur[i].raw = strings.TrimPrefix(cur[i].raw, "/")
	}
	sort.Slice(cur, func(i, j int) bool { return cur[i].canon < cur[j].canon })
	return cur
}

// twinsError refuses a spelling that matches several notes (or files)
// with case and normalisation folded, listing each by its exact path.
func twinsError(op, c string, m []folded) error {
	alts := make([]string, len(m))
	for i, f := range m {
		alts[i] = f.canon
	}
	return &note.Error{Op: op, Path: c, Kind: note.ErrAmbiguous, AltKind: "notes", Alternatives: alts,
		Msg: fmt.Sprintf("%q is the name of %d notes whose names differ only in case or Unicode normalisation (git brought them in side by side); nothing was changed: name one by its exact path, as listed", c, len(m))}
}

// TwinNote says how a twin's name differs from its twins', for a listing
// that shows both ("stored decomposed (NFD)"); "" when p names no twin
// spelled in another form than NFC.
func TwinNote(p string) string {
	if p == nfc(p) {
		return ""
	}
	var forms []string
	for _, name := range strings.Split(p, "/") {
		if name == nfc(name) {
			continue
		}
		var marks []string
		for _, r := range name {
			if r >= 0x300 && r <= 0x36F || r >= 0x1AB0 && r <= 0x1AFF || r >= 0x1DC0 && r <= 0x1DFF || r >= 0x20D0 && r <= 0x20FF || r >= 0xFE20 && r <= 0xFE2F {
				marks = append(marks, fmt.Sprintf("U+%04X", r))
			}
		}
		what := fmt.Sprintf("%q is stored decomposed", path.Base(name))
		if len(marks) > 0 {
			what += " (with the combining " + strings.Join(marks, ", ") + ")"
		}
		forms = append(forms, what)
	}
	return strings.Join(forms, "; ") + ": another note's name differs from it only in Unicode normalisation; copy this path exactly to name this one"
}
