package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vaultd/vaultd/note"
)

// What git knows about a note in conflict: whether its index lists the
// note as unmerged (`git ls-files -u`: a merge stopped on it, also when
// its markers are gone but nobody ran `git add`), which operation is in
// progress, and the commits the two sides come from. Every query runs git
// without optional locks and is cached by the state of .git/index, so that
// a search answer with ten hits asks git once, if at all.

// NoteConflict is a note with unresolved merge conflicts.
type NoteConflict struct {
	Path    string
	Regions []note.Conflict // the regions between conflict markers in its text
	// Unmerged: git's index lists the note as unmerged. A note can be
	// unmerged without markers (they were removed by hand, or one side
	// deleted the note) and hold markers without being unmerged (they
	// were committed).
	Unmerged bool
	// Operation is what git is in the middle of: "merge", "rebase",
	// "cherry-pick", "revert"; "" when none.
	Operation string
	// Ours and Theirs are the last commits that changed the note on each
	// side, when git is in the middle of an operation; nil otherwise.
	Ours, Theirs *Commit
	// OursDeleted, TheirsDeleted: git's index holds no version of the note
	// on that side (that side deleted it).
	OursDeleted, TheirsDeleted bool
}

// Sections lists where the note's regions are, once each, in order.
func (n *NoteConflict) Sections() []string { return note.ConflictSections(n.Regions) }

// Commit is a commit as a conflict shows it: who wrote a side, and when.
type Commit struct {
	Ref     string // "HEAD", "MERGE_HEAD", "REBASE_HEAD", …
	Hash    string // short
	Author  string
	Time    time.Time
	Subject string
}

// gitState caches what git says about the repository the vault is in.
type gitState struct {
	mu      sync.Mutex
	probed  time.Time
	gitDir  string // absolute; "" when the vault is not in a git repository
	top     string // the work tree's top folder
	prefix  string // the vault folder within it: "" or "Notizen/"
	sig     string // the index's and the operation's state when unmerged was read
	merging map[string]unmergedEntry
	sides   map[string][2]*Commit // by note path, for sig

	noMarkers map[string]markerKey // notes read without markers, by size and mtime (ConflictAt)
}

type unmergedEntry struct{ stages [4]bool }

// gitReprobe is how long "not a git repository" is believed before git is
// asked again (the owner may run git init while vaultd serves).
const gitReprobe = 30 * time.Second

// repo returns the vault's git dir and top folder, or "" when the vault is
// not inside a git repository (or git is not installed).
func (v *Vault) repo() (gitDir, top string) {
	g := &v.g
	g.mu.Lock()
	defer g.mu.Unlock()
	return v.repoLocked()
}

func (v *Vault) repoLocked() (string, string) {
	g := &v.g
	if g.gitDir != "" || (!g.probed.IsZero() && time.Since(g.probed) < gitReprobe) {
		return g.gitDir, g.top
	}
	g.probed = time.Now()
	if !gitAbove(v.dir) {
		// No .git in the vault's folder or above it (and no GIT_DIR):
		// not a repository, and no git process is started to learn so
		// (a few milliseconds of every command on a vault without git).
		return "", ""
	}
	out, err := v.git1("rev-parse", "--absolute-git-dir", "--show-toplevel", "--show-prefix")
	if err != nil {
		return "", ""
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 2 {
		return "", "" // a bare repository: no work tree, no notes in conflict
	}
	g.gitDir, g.top = strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1])
	if len(lines) > 2 {
		g.prefix = strings.TrimSpace(lines[2])
	}
	return g.gitDir, g.top
}

// gitAbove reports whether git could find a repository for dir: a .git
// (folder or file) in it or a folder above it, or GIT_DIR set.
func gitAbove(dir string) bool {
	if os.Getenv("GIT_DIR") != "" {
		return true
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// operation says what git is in the middle of, and the ref of the other
// side: ("merge", "MERGE_HEAD"), ("rebase", "REBASE_HEAD"), …; "" when none.
func operation(gitDir string) (op, ref string) {
	for _, s := range []struct{ file, op, ref string }{
		{"MERGE_HEAD", "merge", "MERGE_HEAD"},
		{"rebase-merge", "rebase", "REBASE_HEAD"},
		{"rebase-apply", "rebase", "REBASE_HEAD"},
		{"CHERRY_PICK_HEAD", "cherry-pick", "CHERRY_PICK_HEAD"},
		{"REVERT_HEAD", "revert", "REVERT_HEAD"},
	} {
		if _, err := os.Lstat(filepath.Join(gitDir, s.file)); err == nil {
			return s.op, s.ref
		}
	}
	return "", ""
}

// gitSignature fingerprints what the unmerged list depends on: the index
// file and the operation in progress (its other head).
func gitSignature(gitDir string) string {
	var b strings.Builder
	if fi, err := os.Stat(filepath.Join(gitDir, "index")); err == nil {
		fmt.Fprintf(&b, "%d|%d", fi.Size(), fi.ModTime().UnixNano())
	}
	op, ref := operation(gitDir)
	b.WriteString("|" + op)
	if head, err := os.ReadFile(filepath.Join(gitDir, ref)); err == nil {
		b.WriteString("|" + strings.TrimSpace(string(head)))
	}
	if head, err := os.ReadFile(filepath.Join(gitDir, "HEAD")); err == nil {
		b.WriteString("|" + strings.TrimSpace(string(head)))
	}
	return b.String()
}

// unmerged returns the notes git's index lists as unmerged, by vault path,
// and the operation in progress. Cached until the index changes.
func (v *Vault) unmerged() (map[string]unmergedEntry, string) {
	g := &v.g
	g.mu.Lock()
	defer g.mu.Unlock()
	gitDir, _ := v.repoLocked()
	if gitDir == "" {
		return nil, ""
	}
	op, _ := operation(gitDir)
	sig := gitSignature(gitDir)
	if g.merging != nil && sig == g.sig {
		return g.merging, op
	}
	out, err := v.git1("ls-files", "-u", "-z", "--", ".")
	m := map[string]unmergedEntry{}
	if err == nil {
		for _, rec := range splitZ(out) {
			// "<mode> <object> <stage>\t<path>"
			meta, p, ok := strings.Cut(rec, "\t")
			if !ok {
				continue
			}
			f := strings.Fields(meta)
			if len(f) != 3 {
				continue
			}
			stage, _ := strconv.Atoi(f[2])
			p = v.CanonicalPath(p) // a twin's name as it is (twins.go)
			e := m[p]
			if stage >= 1 && stage <= 3 {
				e.stages[stage] = true
			}
			m[p] = e
		}
	}
	g.merging, g.sig, g.sides = m, sig, nil
	return m, op
}

// UnmergedPaths lists the vault paths git's index lists as unmerged
// (notes and any other file), sorted.
func (v *Vault) UnmergedPaths() []string {
	m, _ := v.unmerged()
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// ConflictIn describes the conflicts of note p whose parsed text is d (as
// read: Read, Notes). It is nil when the note has no conflict markers and
// git does not list it as unmerged.
func (v *Vault) ConflictIn(p string, d *note.Doc) *NoteConflict {
	m, op := v.unmerged()
	u, unmerged := m[p]
	if len(d.Conflicts) == 0 && !unmerged {
		return nil
	}
	n := &NoteConflict{Path: p, Regions: d.Conflicts, Unmerged: unmerged, Operation: op}
	if unmerged {
		n.OursDeleted, n.TheirsDeleted = !u.stages[2], !u.stages[3]
	}
	if op != "" {
		n.Ours, n.Theirs = v.sides(p)
	}
	return n
}

// ConflictAt is ConflictIn for the note at p as it is on disk now; nil
// also when p cannot be read. A note known to hold no markers is not read
// again while its size and mtime stay (a search asks for every hit, and
// hits may be megabyte-long laws).
func (v *Vault) ConflictAt(p string) *NoteConflict {
	m, _ := v.unmerged()
	_, unmerged := m[p]
	fi, err := v.root.Stat(p)
	if err != nil {
		return nil
	}
	key := markerKey{size: fi.Size(), mod: fi.ModTime().UnixNano()}
	if !unmerged && v.g.clean(p, key) {
		return nil
	}
	b, err := v.root.ReadFile(p)
	if err != nil {
		return nil
	}
	return v.conflictOf(p, key, unmerged, b)
}

// conflictOf is ConflictAt's answer for the note at p read as b, its stat
// key: a text without markers is remembered as clean when b is all of it.
func (v *Vault) conflictOf(p string, key markerKey, unmerged bool, b []byte) *NoteConflict {
	if !note.HasConflicts(b) {
		if int64(len(b)) == key.size {
			v.g.markClean(p, key)
		}
		if !unmerged {
			return nil
		}
	}
	return v.ConflictIn(p, note.ParseCached(b))
}

// markerKey is what a note's "no markers" is remembered by.
type markerKey struct {
	size int64
	mod  int64
}

// maxCleanNotes bounds the notes remembered as holding no markers.
const maxCleanNotes = 1 << 14

func (g *gitState) clean(p string, k markerKey) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	got, ok := g.noMarkers[p]
	return ok && got == k
}

func (g *gitState) markClean(p string, k markerKey) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.noMarkers == nil || len(g.noMarkers) >= maxCleanNotes {
		g.noMarkers = map[string]markerKey{}
	}
	g.noMarkers[p] = k
}

// Conflicts lists every note in conflict, by path: those the catalog
// (entries, from Catalog or CatalogWithin) knows to hold conflict markers
// and those git has unmerged, each read to be sure; no other note is read.
// The caller's catalog, so that vault_overview right after a start lists
// the conflicts of the table it answers from instead of waiting for the
// index to compare it with every file (250–350 ms on the laws).
func (v *Vault) Conflicts(entries []NameEntry) []*NoteConflict {
	m, _ := v.unmerged()
	var candidates []string
	for _, e := range entries {
		if _, u := m[e.Path]; !e.Attachment && (e.Conflicts || u) {
			candidates = append(candidates, e.Path)
		}
	}
	var out []*NoteConflict
	seen := map[string]bool{}
	for _, p := range candidates {
		n, err := v.Read(p)
		if err != nil {
			continue
		}
		if _, u := m[p]; len(n.Doc.Conflicts) == 0 && !u {
			continue // resolved since the table read it
		}
		seen[p] = true
		if c := v.ConflictIn(p, n.Doc); c != nil {
			out = append(out, c)
		}
	}
	// An unmerged note that is not on disk (deleted on our side) is in
	// conflict too; only notes are listed.
	for p, e := range m {
		if !seen[p] && IsNote(p) {
			if _, err := v.root.Lstat(p); errors.Is(err, fs.ErrNotExist) {
				op := v.operationNow()
				out = append(out, &NoteConflict{Path: p, Unmerged: true, Operation: op, OursDeleted: !e.stages[2], TheirsDeleted: !e.stages[3]})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// vaultPath turns a path as git's porcelain output names it (from the top
// of the work tree) into a vault path; ok is false outside the vault.
func (v *Vault) vaultPath(repoPath string) (string, bool) {
	v.g.mu.Lock()
	prefix := v.g.prefix
	v.g.mu.Unlock()
	p, ok := strings.CutPrefix(repoPath, prefix)
	if !ok || p == "" {
		return "", false
	}
	return v.CanonicalPath(p), true
}

func (v *Vault) operationNow() string {
	gitDir, _ := v.repo()
	if gitDir == "" {
		return ""
	}
	op, _ := operation(gitDir)
	return op
}

// sides returns the last commits that changed note p on our side (HEAD)
// and on the other (MERGE_HEAD, REBASE_HEAD, …).
func (v *Vault) sides(p string) (ours, theirs *Commit) {
	g := &v.g
	g.mu.Lock()
	defer g.mu.Unlock()
	gitDir, _ := v.repoLocked()
	if gitDir == "" {
		return nil, nil
	}
	if s, ok := g.sides[p]; ok {
		return s[0], s[1]
	}
	_, ref := operation(gitDir)
	ours, theirs = v.lastCommit("HEAD", p), v.lastCommit(ref, p)
	if g.sides == nil {
		g.sides = map[string][2]*Commit{}
	}
	g.sides[p] = [2]*Commit{ours, theirs}
	return ours, theirs
}

// lastCommit is the last commit reachable from ref that changed p.
func (v *Vault) lastCommit(ref, p string) *Commit {
	if ref == "" {
		return nil
	}
	out, err := v.git1("log", "-1", "--format=%h%x00%an%x00%at%x00%s", ref, "--", p)
	if err != nil {
		return nil
	}
	f := strings.Split(strings.TrimRight(out, "\n"), "\x00")
	if len(f) != 4 {
		return nil
	}
	sec, _ := strconv.ParseInt(f[2], 10, 64)
	return &Commit{Ref: ref, Hash: f[0], Author: f[1], Time: time.Unix(sec, 0).UTC(), Subject: f[3]}
}

// gitStage returns the text git's index holds for note p at stage n (2:
// ours, 3: theirs) of a merge.
func (v *Vault) gitStage(p string, n int) ([]byte, error) {
	return v.gitStdout("show", fmt.Sprintf(":%d:./%s", n, p))
}

// forgetGit drops the cached unmerged list (after vaultd's own git add).
func (v *Vault) forgetGit() {
	v.g.mu.Lock()
	v.g.merging, v.g.sig, v.g.sides = nil, "", nil
	v.g.mu.Unlock()
}
