package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// What a teammate's .gitattributes can do to notes. A team's clones share
// .gitattributes through git, and some of its lines change how git stores
// or merges the notes in every clone that pulls them:
//
//   - working-tree-encoding=UTF-16LE-BOM makes git write notes to the work
//     tree as UTF-16: vaultd would then serve text it cannot edit (and a
//     writer that did not check would mix UTF-8 into it);
//   - merge=binary, merge=union, -merge, or another driver switch vaultd's
//     section merge off (binary keeps ours and stops on a conflict, union
//     keeps both sides' lines even where they contradict);
//   - conflict-marker-size=N makes git write markers vaultd does not know
//     as markers, so a note in conflict would be served as a note;
//   - eol, text, filter and ident rewrite notes' bytes on checkout or
//     commit (line endings, Git LFS pointers, $Id$ expansion) without
//     losing words.
//
// vaultd keeps the first three from ever applying in the clone it serves:
// .git/info/attributes, which git reads before any .gitattributes and
// which no commit carries, gets vaultd's lines (keepNoteAttrs) —
// "-working-tree-encoding -conflict-marker-size" for notes always, and
// "merge=vaultd" where this clone registered vaultd's merge driver (vaultd
// git install; unset merge.vaultd.driver to let .gitattributes decide).
// The others it reports but leaves alone: overriding eol or text would make
// this clone commit notes differently from the team's, and overriding an
// LFS filter would show pointer files in place of notes. Every sync round
// (SyncReport.Attributes) and vault_overview, the owner's page and the log
// report what the team's .gitattributes set on notes, the overridden ones
// too, as the team's files say them.

// infoAttrBegin and infoAttrEnd enclose vaultd's lines in
// .git/info/attributes; what is outside them is the owner's.
const (
	infoAttrBegin = "# vaultd: begin — notes stay UTF-8 and are merged by vaultd's driver in this clone, whatever .gitattributes says (vaultd git install, vaultd sync)"
	infoAttrEnd   = "# vaultd: end"
)

// notePattern matches every note, whatever the case of its extension.
const notePattern = "*.[mM][dD]"

// noteAttrLines are vaultd's lines of .git/info/attributes; driver adds
// the merge driver (registered in this clone). prefix is the vault's
// folder in the repository ("" or "Notizen/"): the lines cover its notes
// only, not markdown files elsewhere in a repository that holds a vault.
func noteAttrLines(driver bool, prefix string) []string {
	pat := notePattern
	if prefix != "" {
		pat = attrPattern(prefix+"**/"+notePattern, len(prefix))
	}
	lines := []string{pat + " -working-tree-encoding -conflict-marker-size"}
	if driver {
		lines = append(lines, pat+" merge=vaultd")
	}
	return lines
}

// attrPattern writes pattern p for an attributes file, its first n bytes
// (a folder's name) taken literally: wildcard characters there escaped,
// and the whole quoted as git reads a quoted pattern when it holds a
// space, a tab or a quote.
func attrPattern(p string, n int) string {
	var b strings.Builder
	for _, r := range p[:n] {
		if strings.ContainsRune(`\*?[`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteString(p[n:])
	s := b.String()
	if !strings.ContainsAny(s, " \t\"") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// attrPrefix is the vault's folder in its repository, for noteAttrLines.
func (v *Vault) attrPrefix() string {
	v.repo()
	v.g.mu.Lock()
	defer v.g.mu.Unlock()
	return v.g.prefix
}

// InfoAttrLines are the lines vaultd keeps in .git/info/attributes of a
// clone that registered its merge driver.
func (v *Vault) InfoAttrLines() []string { return noteAttrLines(true, v.attrPrefix()) }

// driverConfigured reports whether this clone registered vaultd's merge
// driver (merge.vaultd.driver in its config).
func (v *Vault) driverConfigured() bool {
	out, err := v.git("config", "--get", "merge.vaultd.driver")
	return err == nil && strings.TrimSpace(out) != ""
}

// infoAttrPath is the host path of the repository's info/attributes (the
// common git dir's, for a linked work tree).
func (v *Vault) infoAttrPath() (string, error) {
	out, err := v.git("rev-parse", "--git-path", "info/attributes")
	if err != nil {
		return "", fmt.Errorf("git rev-parse failed: %s", firstGitLine(out, err))
	}
	p := strings.TrimSpace(out)
	if !filepath.IsAbs(p) {
		p = filepath.Join(v.dir, p)
	}
	return p, nil
}

// infoAttrWant returns the text info/attributes should have (old with
// vaultd's block replaced) and whether it has it.
func infoAttrWant(old []byte, driver bool, prefix string) ([]byte, bool) {
	var keep []string
	in := false
	for _, l := range strings.SplitAfter(string(old), "\n") {
		switch t := strings.TrimRight(l, "\r\n"); {
		case t == infoAttrBegin || strings.HasPrefix(t, "# vaultd: begin"):
			in = true
		case in && t == infoAttrEnd:
			in = false
		case !in && l != "":
			keep = append(keep, l)
		}
	}
	rest := strings.TrimRight(strings.Join(keep, ""), "\n")
	var b strings.Builder
	if rest != "" {
		b.WriteString(rest + "\n")
	}
	b.WriteString(infoAttrBegin + "\n")
	for _, l := range noteAttrLines(driver, prefix) {
		b.WriteString(l + "\n")
	}
	b.WriteString(infoAttrEnd + "\n")
	return []byte(b.String()), b.String() == string(old)
}

// keepNoteAttrs makes sure .git/info/attributes holds vaultd's lines
// (noteAttrLines), and reports whether it changed the file. The owner's
// own lines there stay as they are.
func (v *Vault) keepNoteAttrs(driver bool) (bool, error) {
	name, err := v.infoAttrPath()
	if err != nil {
		return false, err
	}
	old, err := os.ReadFile(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read .git/info/attributes: %s", errText(err))
	}
	want, same := infoAttrWant(old, driver, v.attrPrefix())
	if same {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return false, fmt.Errorf("create .git/info: %s", errText(err))
	}
	tmp := name + ".vaultd-" + randHex(4)
	if err := os.WriteFile(tmp, want, 0o644); err != nil {
		return false, fmt.Errorf("write .git/info/attributes: %s", errText(err))
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return false, fmt.Errorf("write .git/info/attributes: %s", errText(err))
	}
	return true, nil
}

// AttrNotice is one attribute the team's .gitattributes set on notes that
// changes how git stores or merges them (see above).
type AttrNotice struct {
	// Attr is the attribute as .gitattributes spells it with its value:
	// "working-tree-encoding=UTF-16LE-BOM", "merge=binary", "-merge",
	// "text=auto", "-text", "eol=crlf", "filter=lfs", "ident".
	Attr string `json:"attr"`
	// Notes counts the notes it applies to; Examples names a few.
	Notes    int      `json:"notes"`
	Examples []string `json:"examples"`
	// Effect says what git does to those notes because of it.
	Effect string `json:"effect"`
	// Here says what vaultd does about it in this clone.
	Here string `json:"here"`
	// Kept: vaultd's own line in .git/info/attributes wins over it here.
	Kept bool `json:"kept_from_notes"`
}

// Text renders the notice in one line.
func (n AttrNotice) Text() string {
	ex := strings.Join(n.Examples, ", ")
	if n.Notes > len(n.Examples) {
		ex += ", …"
	}
	return fmt.Sprintf("%s on %s (%s): %s; %s", n.Attr, plural(n.Notes, "note"), ex, n.Effect, n.Here)
}

// probedAttrs are the attributes asked of git for every note.
var probedAttrs = []string{"working-tree-encoding", "merge", "conflict-marker-size", "text", "eol", "filter", "ident"}

// attrProbeDir, in the state dir, is an empty bare repository through
// which git evaluates the work tree's .gitattributes alone: without the
// clone's .git/info/attributes, so that what the team's files say shows
// also where vaultd's lines win.
const attrProbeDir = "git-attr-probe"

// NoteAttributes lists what the team's .gitattributes (the work tree's,
// and the user's global attributes file) set on the vault's notes that
// changes how git stores or merges them, most notes first; nil when
// nothing does or the vault is not in a git repository.
func (v *Vault) NoteAttributes() ([]AttrNotice, error) {
	v.g.mu.Lock()
	prefix := v.g.prefix
	v.g.mu.Unlock()
	out, err := v.teamAttrs(v.NotePaths(), probedAttrs...)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	driver := v.driverConfigured()
	byAttr := map[string]*AttrNotice{}
	f := out
	for i := 0; i+2 < len(f); i += 3 {
		p, attr, val := strings.TrimPrefix(f[i], prefix), f[i+1], f[i+2]
		spelled, effect, here, kept := attrMeaning(attr, val, driver)
		if spelled == "" {
			continue
		}
		n := byAttr[spelled]
		if n == nil {
			n = &AttrNotice{Attr: spelled, Effect: effect, Here: here, Kept: kept}
			byAttr[spelled] = n
		}
		n.Notes++
		if len(n.Examples) < 3 {
			n.Examples = append(n.Examples, nfc(p))
		}
	}
	list := make([]AttrNotice, 0, len(byAttr))
	for _, n := range byAttr {
		list = append(list, *n)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].Kept != list[j].Kept {
			return list[i].Kept // what vaultd overrides first: it matters most
		}
		if list[i].Notes != list[j].Notes {
			return list[i].Notes > list[j].Notes
		}
		return list[i].Attr < list[j].Attr
	})
	return list, nil
}

// teamAttrs asks git for attrs of the vault paths ps as the work tree's
// .gitattributes set them (and the user's global attributes file), not
// the clone's .git/info/attributes, through the empty repository
// attrProbeDir. It returns git check-attr -z's fields: path (from the top
// of the work tree), attribute, value, for every path and attribute; nil
// when the vault is not in a git repository or ps is empty.
func (v *Vault) teamAttrs(ps []string, attrs ...string) ([]string, error) {
	_, top := v.repo()
	if top == "" || len(ps) == 0 {
		return nil, nil
	}
	v.g.mu.Lock()
	prefix := v.g.prefix
	v.g.mu.Unlock()
	probe := filepath.Join(v.stateDir, attrProbeDir)
	if _, err := os.Stat(filepath.Join(probe, "HEAD")); err != nil {
		if out, err := exec.Command("git", "init", "--bare", "-q", probe).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("git init failed: %s", firstGitLine(string(out), err))
		}
	}
	var in bytes.Buffer
	for _, p := range ps {
		in.WriteString(prefix + p + "\x00")
	}
	cmd := exec.Command("git", append([]string{"--git-dir=" + probe, "--work-tree=" + top, "check-attr", "--stdin", "-z"}, attrs...)...)
	cmd.Dir = top
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	cmd.Stdin = &in
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git check-attr failed: %s", firstGitLine(stderr.String(), err))
	}
	f := strings.Split(out.String(), "\x00")
	return f[:len(f)-len(f)%3], nil
}

// attrMeaning says what value val of attribute attr does to a note: its
// spelling in .gitattributes, git's effect, and vaultd's answer in this
// clone (driver: vaultd's merge driver is registered); spelled is "" for
// a value that changes nothing (unspecified, or vaultd's own driver).
func attrMeaning(attr, val string, driver bool) (spelled, effect, here string, kept bool) {
	if val == "unspecified" {
		return "", "", "", false
	}
	spelled = attr + "=" + val
	switch val {
	case "set":
		spelled = attr
	case "unset":
		spelled = "-" + attr
	}
	const info = " in this clone (.git/info/attributes)"
	switch attr {
	case "working-tree-encoding":
		if val == "unset" {
			return "", "", "", false
		}
		return spelled, "git would write these notes to the work tree as " + val + " text, which vaultd shows but never edits",
			"vaultd keeps them UTF-8" + info, true
	case "conflict-marker-size":
		if val == "unset" || val == "set" {
			return "", "", "", false
		}
		return spelled, "git would mark their merge conflicts with markers of " + val + " characters, which vaultd would not take for conflicts",
			"vaultd keeps git's 7-character markers" + info, true
	case "merge":
		if val == "vaultd" {
			return "", "", "", false
		}
		effect = map[string]string{
			"set":    "git merges them line by line, not by sections",
			"unset":  "git does not merge them: two-sided changes stop on a conflict that keeps ours",
			"binary": "git does not merge them: two-sided changes stop on a conflict that keeps ours",
			"text":   "git merges them line by line, not by sections",
			"union":  "git's union merge keeps both sides' lines without a conflict, even lines that contradict each other",
		}[val]
		if effect == "" {
			effect = "git merges them with the merge driver " + val + ", not vaultd's"
		}
		if driver {
			return spelled, effect, "vaultd's merge driver merges them" + info, true
		}
		return spelled, effect, "vaultd's merge driver is not registered in this clone (vaultd git install registers it, and then it wins here)", false
	case "text":
		switch val {
		case "set":
			return spelled, "git converts their line endings to LF when committing them", "vaultd keeps each note's line endings as they are; nothing to do", false
		case "unset":
			return spelled, "git converts no line endings in them", "nothing changes for vaultd", false
		case "auto":
			return spelled, "git converts CRLF line endings to LF when committing those it takes for text", "vaultd keeps each note's line endings as they are; nothing to do", false
		}
		return spelled, "git takes them for text when committing (" + val + ")", "nothing to do", false
	case "eol":
		return spelled, "git writes them to the work tree with " + strings.ToUpper(val) + " line endings (and commits them with LF), so a note's bytes and version differ between clones",
			"vaultd keeps the line endings it finds; nothing to do", false
	case "filter":
		if val == "lfs" {
			return spelled, "git stores them in Git LFS: a clone without git-lfs (or without git lfs pull) holds pointer files in their place",
				"vaultd shows a pointer file as such and never edits it", false
		}
		return spelled, "git runs the filter " + val + " on them when checking them out and in, which may change their text",
			"vaultd edits the text the filter leaves in the work tree", false
	case "ident":
		if val == "unset" {
			return "", "", "", false
		}
		return spelled, "git expands $Id$ in them to $Id: <object id> $ on checkout", "vaultd edits the expanded text; nothing to do", false
	}
	return "", "", "", false
}

// restoreEncoded turns back into UTF-8 the notes git wrote to the work
// tree in another encoding (a working-tree-encoding line that was in
// effect before vaultd's own lines): those whose decoded text is exactly
// the text committed at HEAD — so that nothing of anyone's is lost —
// through the write protocol, recorded in history. It returns the notes
// restored, and those left because their text is not HEAD's.
func (v *Vault) restoreEncoded() (restored, left []string) {
	notes, err := v.Notes()
	if err != nil {
		return nil, nil
	}
	v.g.mu.Lock()
	prefix := v.g.prefix
	v.g.mu.Unlock()
	for _, n := range notes {
		if n.NotText == nil || !n.NotText.Decodable() {
			continue
		}
		p := n.Path
		cur, err := v.root.ReadFile(p)
		if err != nil {
			continue
		}
		prob := note.CheckText(cur)
		if prob == nil || !prob.Decodable() {
			continue
		}
		head, err := v.gitStdout("show", "HEAD:"+prefix+p)
		if err != nil {
			continue // not committed: nobody's text but this clone's to compare with
		}
		if shown, _ := note.DisplayText(cur, prob); !bytes.Equal(shown, head) {
			left = append(left, p)
			continue
		}
		o := WriteOpts{Actor: "vaultd", ExpectedVersion: note.Version(cur), whole: true,
			Summary: fmt.Sprintf("back to UTF-8 as committed: git had written the note as %s (a working-tree-encoding line in .gitattributes)", prob.Encoding)}
		if _, err := v.Replace(p, head, o); err != nil {
			left = append(left, p)
			continue
		}
		restored = append(restored, p)
	}
	return restored, left
}
