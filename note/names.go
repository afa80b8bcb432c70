package note

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// windowsReserved are device names Windows cannot store as a file or
// folder name, with or without an extension.
// Microsoft's list (learn.microsoft.com, "Naming Files, Paths, and
// Namespaces") includes COM0/LPT0 and the console names CONIN$/CONOUT$.
var windowsReserved = map[string]bool{
	"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true,
	"COM0": true, "LPT0": true,
	"COM1": true, "COM2": true, "COM3": true, "COM4": true, "COM5": true, "COM6": true, "COM7": true, "COM8": true, "COM9": true,
	"LPT1": true, "LPT2": true, "LPT3": true, "LPT4": true, "LPT5": true, "LPT6": true, "LPT7": true, "LPT8": true, "LPT9": true,
	"COM¹": true, "COM²": true, "COM³": true, "LPT¹": true, "LPT²": true, "LPT³": true,
}

// MaxPathLen bounds a vault-relative path in bytes. Linux refuses paths of
// 4096 bytes and more, Windows (where a vault may be cloned with git) counts
// 260 characters including the vault's own folder unless long paths are
// enabled; 1024 leaves room for any vault location while refusing nonsense.
const MaxPathLen = 1024

// CleanPath validates a vault-relative path and returns it in canonical
// form: slash-separated, NFC-normalised, without "./" parts or empty parts.
// It refuses paths that leave the vault (absolute, "..", drive letters, home
// folders, URLs), control and invisible formatting characters, hidden (dot)
// parts, names that Windows or macOS cannot store — vaults travel through
// git — and paths longer than MaxPathLen. Errors are *Error of kind
// ErrInvalidPath whose message says what to give instead; an absolute path
// is not repeated in the error (it would show a host path).
func CleanPath(p string) (string, error) { return cleanPath(p, true) }

// CleanPathExact is CleanPath without the NFC normalisation: the names
// keep the bytes given. Where git brought in two files whose names differ
// only in Unicode normalisation (Linux keeps both), the bytes are what
// tells them apart; package vault keeps them only for such twins.
func CleanPathExact(p string) (string, error) { return cleanPath(p, false) }

// NotePathExact is NotePath without the NFC normalisation (CleanPathExact).
func NotePathExact(p string) (string, error) { return notePath(p, false) }

func cleanPath(p string, normalize bool) (string, error) {
	shown := p
	bad := func(why string) (string, error) {
		if !utf8.ValidString(shown) || strings.ContainsFunc(shown, func(r rune) bool {
			return unicode.IsControl(r) || invisible(r) || r == '"'
		}) {
			shown = strings.Trim(fmt.Sprintf("%+q", shown), `"`)
		}
		return "", &Error{Op: "check path", Path: shown, Kind: ErrInvalidPath, Msg: why}
	}
	if strings.TrimSpace(p) == "" {
		return bad("the path is empty; give a vault-relative path such as 1_Projekte/Notiz.md")
	}
	if !utf8.ValidString(p) {
		return bad("the path is not valid UTF-8")
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		shown = ""
		return bad("absolute paths are not allowed; give a path relative to the vault, such as 1_Projekte/Notiz.md")
	}
	if len(p) >= 2 && p[1] == ':' && p[0] < utf8.RuneSelf && unicode.IsLetter(rune(p[0])) {
		shown = ""
		return bad("drive letters are not allowed; give a path relative to the vault, such as 1_Projekte/Notiz.md")
	}
	if i := strings.Index(p, "://"); i > 0 || strings.HasPrefix(strings.ToLower(p), "file:") {
		shown = ""
		return bad("a URL is not a vault path; give a path relative to the vault, such as 1_Projekte/Notiz.md")
	}
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		shown = ""
		return bad(`"~" (a home folder) is not allowed; give a path relative to the vault, such as 1_Projekte/Notiz.md`)
	}
	if strings.ContainsFunc(p, unicode.IsControl) {
		return bad("the path contains control characters (such as NUL, tab or newline)")
	}
	if strings.ContainsFunc(p, invisible) {
		return bad("the path contains invisible formatting characters (such as a right-to-left override or zero-width space) that make names look like others")
	}
	if strings.Contains(p, `\`) {
		return bad(`use "/" to separate folders, not "\"`)
	}
	if len(p) > MaxPathLen {
		shown = truncate(p, 60) + "…"
		return bad(fmt.Sprintf("the path is longer than %d bytes", MaxPathLen))
	}
	if normalize {
		p = norm.NFC.String(p)
	}
	var parts []string
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return bad(`".." is not allowed: paths stay inside the vault`)
		}
		if err := checkName(norm.NFC.String(seg)); err != "" {
			return bad(err)
		}
		parts = append(parts, seg)
	}
	if len(parts) == 0 {
		return bad("the path names no file; give a vault-relative path such as 1_Projekte/Notiz.md")
	}
	return path.Join(parts...), nil
}

// invisible reports format characters (Unicode category Cf) that change
// how a name looks without being seen: bidirectional overrides
// ("\u202Egpj.md" shows as "dm.jpg"), zero-width spaces, soft hyphens, the
// BOM. The zero-width joiner and non-joiner are kept (emoji sequences and
// Persian or Indic names need them), and so are the tag characters of
// subdivision flag emoji.
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d' && !(r >= 0xE0020 && r <= 0xE007F)
}

// truncate cuts s to at most n bytes without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// checkName returns why a single file or folder name is not portable, or "".
func checkName(seg string) string {
	if strings.HasPrefix(seg, ".") {
		return fmt.Sprintf("%q is hidden (starts with a dot); hidden files and folders are not part of the vault's notes", seg)
	}
	// Look-alikes of dots ("‥", "．．", "…", "﹒") read as ".." or a hidden
	// name to people and to some tools (NFKC folds them to dots).
	if k := norm.NFKC.String(seg); strings.HasPrefix(k, ".") {
		return fmt.Sprintf("%q looks like %q (it starts with a character that reads as a dot); names may not look hidden or like \"..\"", seg, k)
	}
	if i := strings.IndexAny(seg, `<>:"|?*`); i >= 0 {
		return fmt.Sprintf("%q contains '%s', which Windows cannot store in a name", seg, seg[i:i+1])
	}
	if strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ") {
		return fmt.Sprintf("%q ends with a dot or space, which Windows cannot store", seg)
	}
	if strings.HasPrefix(seg, " ") {
		return fmt.Sprintf("%q starts with a space", seg)
	}
	base, _, _ := strings.Cut(seg, ".")
	if windowsReserved[strings.ToUpper(strings.TrimSpace(base))] {
		return fmt.Sprintf("%q is a device name Windows reserves", seg)
	}
	if len(seg) > 255 {
		return fmt.Sprintf("the name %q… is longer than 255 bytes", truncate(seg, 40))
	}
	return ""
}

// NotePath is CleanPath for notes: it adds ".md" when the name has no
// extension and refuses other extensions.
func NotePath(p string) (string, error) { return notePath(p, true) }

func notePath(p string, normalize bool) (string, error) {
	c, err := cleanPath(p, normalize)
	if err != nil {
		return "", err
	}
	ext := path.Ext(c)
	switch {
	case strings.EqualFold(ext, ".md"):
		return c, nil
	case ext == "" || !IsFileExt(ext):
		return c + ".md", nil
	default:
		return "", &Error{Op: "check path", Path: c, Kind: ErrInvalidPath,
			Msg: fmt.Sprintf("notes are .md files, not %s; use %s", ext, strings.TrimSuffix(c, ext)+".md")}
	}
}

// IsFileExt tells a real file extension (".png") from a dot inside a
// note name ("Version 2.0 Planung").
func IsFileExt(ext string) bool {
	if len(ext) < 2 || len(ext) > 6 {
		return false
	}
	for _, r := range ext[1:] {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return !strings.ContainsFunc(ext[1:], unicode.IsDigit) || strings.ContainsFunc(ext[1:], unicode.IsLetter)
}

// SpaceOf returns the space of a vault-relative path: its first folder,
// or "" for a file at the vault root.
func SpaceOf(p string) string {
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// FolderOf returns the folder of a vault-relative path ("" at the root).
func FolderOf(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}

// NoteTitle returns the note's title: frontmatter title, else first H1,
// else its name (NoteName: the folder's name for a folder note such as
// x/BGB/index.md, else the file name without ".md").
func NoteTitle(p string, d *Doc) string {
	if d != nil && d.Title != "" {
		return d.Title
	}
	if f := FolderNoteFolder(p); f != "" {
		return path.Base(f)
	}
	return strings.TrimSuffix(path.Base(p), path.Ext(p))
}

// FolderNoteFolder returns the folder whose note the note at p is — "x/Name"
// for x/Name/index.md, x/Name/_index.md (Hugo), x/Name/README.md and
// x/Name/Name.md (file names compared ignoring case) — or "" when p is no folder note. A note at the
// vault root is no folder note: the vault has no folder name.
func FolderNoteFolder(p string) string {
	dir := FolderOf(p)
	k := LinkKey(path.Base(p))
	if dir == "" || !strings.HasSuffix(k, ".md") {
		return ""
	}
	switch strings.TrimSuffix(k, ".md") {
	case "index", "_index", "readme", LinkKey(path.Base(dir)):
		return dir
	}
	return ""
}

// NoteName is the name a path gives its note: the folder's name for a
// folder note, else the file name without ".md".
func NoteName(p string) string {
	if f := FolderNoteFolder(p); f != "" {
		return path.Base(f)
	}
	return strings.TrimSuffix(path.Base(p), ".md")
}

// TitleNames returns the titles a note is known by: its frontmatter title
// (any case of the key) and its first H1, each once.
func TitleNames(d *Doc) []string {
	var out []string
	if d == nil {
		return nil
	}
	if d.Title != "" {
		out = append(out, d.Title)
	}
	for _, h := range d.Headings {
		if h.Level == 1 {
			if t := NormSpace(h.Text); t != "" && NameKey(t) != NameKey(d.Title) {
				out = append(out, t)
			}
			break
		}
	}
	return out
}

// NameKey compares titles and aliases: NFC, white space collapsed, lower case.
// It is strings.ToLower(NormSpace(s)) in one pass (the name table keys
// every title and alias of a vault with it: half of building the table
// for the 6,636 laws went to the three passes).
func NameKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space, ascii := false, true
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if asciiSpace[c] {
				space = b.Len() > 0
				continue
			}
			if space {
				b.WriteByte(' ')
				space = false
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		ascii = false
		b.WriteRune(r)
	}
	t := b.String()
	if ascii {
		return t
	}
	if !norm.NFC.IsNormalString(t) {
		t = norm.NFC.String(t)
	}
	return strings.ToLower(t)
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
