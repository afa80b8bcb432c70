package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/vaultd/vaultd/note"
)

// Options configure a Vault.
type Options struct {
	// StateDir holds everything vaultd keeps besides the notes: history,
	// previous contents, trash records, locks, the search index. Default
	// "<vault>/.vaultd" (with a .gitignore of "*"). Set it when the vault
	// itself is read-only.
	StateDir string
	// Actor is recorded in history when a write names none. Default "cli".
	Actor string
	// NoSync turns off fsync (tmpfs, tests). Durability is on by default.
	NoSync bool
	// Policy, if set, judges every write (package rules implements it).
	Policy Policy
	// Now is the clock of history and trash records (tests pin it).
	// Default time.Now.
	Now func() time.Time
	// GitCommit makes every change made through this Vault a git commit of
	// the files it touched (see git.go). Off by default.
	GitCommit bool
	// Progress, if set, hears how far a long change has come: a move's
	// link updates ("updating links", notes done of total), one call per
	// note and one at the start. Called on the goroutine doing the work,
	// so it must return quickly.
	Progress func(what string, done, total int)
	// ReadNotes, if set, hears when a lookup found no name table (the
	// vault was never indexed) and read the notes themselves: how many it
	// read and how long that took. The command line uses it to say once
	// that an index makes names answer at once.
	ReadNotes func(notes int, took time.Duration)
}

// Vault is a folder of markdown notes opened as an os.Root: every file
// operation goes through the Root, so nothing outside the folder is read
// or written, even through symlinks or under races.
type Vault struct {
	dir      string // host path, for people only; never shown to agents
	root     *files // every path checked: no links into hidden folders or the state dir (files.go)
	stateDir string
	state    *os.Root
	opts     Options

	mu      sync.RWMutex
	policy  Policy
	cache   noteCache  // parsed notes by (path, size, mtime) for Find, Notes, Resolver (find.go)
	names   NameSource // Find's names without a walk (SetNames); nil: walk
	onClose []func()   // OnClose

	w writeState // the write side: note locks, subscribers (write.go)

	foldOnce sync.Once // foldsNames
	folds    bool
	g        gitState  // what git says about the repository (gitconflict.go)
	texts    textCache // which notes are not UTF-8 text (text.go)
}

// StateDirName is the default state dir inside a vault.
const StateDirName = ".vaultd"

// Open opens the vault at dir and its state dir.
func Open(dir string, o Options) (*Vault, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open vault: %s is not a folder", abs)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	v := &Vault{dir: abs, root: &files{r: root, b: openBeneath(abs)}, opts: o, policy: o.Policy}
	if v.opts.Now == nil {
		v.opts.Now = time.Now
	}
	if v.opts.Actor == "" {
		v.opts.Actor = "cli"
	}
	if err := v.openState(); err != nil {
		v.root.b.close()
		root.Close()
		return nil, err
	}
	v.noteFirstOpen()
	return v, nil
}

// firstOpenFile in the state dir holds the time vaultd first opened the
// vault (RFC 3339). The notes that were there then, untouched since, are
// the vault as vaultd found it, not changes made outside vaultd: a fresh
// copy of a vault does not report every note as changed.
const firstOpenFile = "first-open"

// noteFirstOpen writes firstOpenFile when the state dir is new (no
// history yet). A state dir from before it was written has none, and then
// every unrecorded note counts as changed outside vaultd, as before.
func (v *Vault) noteFirstOpen() {
	if _, err := v.state.Lstat(firstOpenFile); err == nil {
		return
	}
	if _, err := v.state.Lstat(historyFile); err == nil {
		return
	}
	_ = v.state.WriteFile(firstOpenFile, []byte(v.opts.Now().UTC().Format(time.RFC3339Nano)+"\n"), 0o644)
}

// firstOpen returns the time of firstOpenFile, or the zero time.
func (v *Vault) firstOpen() time.Time {
	b, err := v.state.ReadFile(firstOpenFile)
	if err != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b)))
	if err != nil {
		return time.Time{}
	}
	return t
}

func (v *Vault) openState() error {
	if v.opts.StateDir == "" {
		// The state dir holds access keys and history: it must be a real
		// folder of this vault, never a link a shared vault could carry
		// (".vaultd → Geteilt/", where agents would reach its files).
		if fi, err := v.root.r.Lstat(StateDirName); err == nil && !fi.IsDir() {
			return fmt.Errorf("the state dir %s inside the vault is not a folder (a link or a file); remove it, or pass --state-dir DIR", StateDirName)
		}
		if err := v.root.r.Mkdir(StateDirName, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create the state dir %s inside the vault: %s (if the vault is read-only, pass --state-dir DIR)", StateDirName, errText(err))
		}
		if _, err := v.root.r.Lstat(StateDirName + "/.gitignore"); errors.Is(err, fs.ErrNotExist) {
			if err := v.root.r.WriteFile(StateDirName+"/.gitignore", []byte("*\n"), 0o644); err != nil {
				return fmt.Errorf("write %s/.gitignore: %s (if the vault is read-only, pass --state-dir DIR)", StateDirName, errText(err))
			}
		}
		st, err := v.root.r.OpenRoot(StateDirName)
		if err != nil {
			return fmt.Errorf("open the state dir %s: %s", StateDirName, errText(err))
		}
		v.state, v.stateDir = st, filepath.Join(v.dir, StateDirName)
		v.root.state = StateDirName
		return nil
	}
	abs, err := filepath.Abs(v.opts.StateDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return fmt.Errorf("create the state dir: %w", err)
	}
	st, err := os.OpenRoot(abs)
	if err != nil {
		return fmt.Errorf("open the state dir: %w", err)
	}
	v.state, v.stateDir = st, abs
	v.root.state = stateInside(v.dir, abs)
	if v.root.state == "." {
		st.Close()
		return fmt.Errorf("the state dir cannot be the vault itself: give --state-dir a folder of its own")
	}
	return nil
}

// stateInside returns the state dir's vault-relative path when it lies
// inside the vault (links resolved), else "".
func stateInside(vaultDir, stateDir string) string {
	vd, err1 := filepath.EvalSymlinks(vaultDir)
	sd, err2 := filepath.EvalSymlinks(stateDir)
	if err1 != nil || err2 != nil {
		vd, sd = vaultDir, stateDir
	}
	rel, err := filepath.Rel(vd, sd)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// Close releases the vault's roots.
func (v *Vault) Close() error {
	v.mu.Lock()
	fns := v.onClose
	v.onClose = nil
	v.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
	v.root.b.close()
	return errors.Join(v.root.r.Close(), v.state.Close())
}

// OnClose has Close call fn first (what a door opened for the vault, such
// as its name source's connection).
func (v *Vault) OnClose(fn func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.onClose = append(v.onClose, fn)
}

// Dir returns the vault's host path (for people; never shown to agents).
func (v *Vault) Dir() string { return v.dir }

// StateDir returns the host path of the state dir.
func (v *Vault) StateDir() string { return v.stateDir }

// StateRoot returns the state dir as an os.Root.
func (v *Vault) StateRoot() *os.Root { return v.state }

// FS returns the vault as an fs.FS confined to the Root.
func (v *Vault) FS() fs.FS { return v.root.FS() }

// SetPolicy installs the rules every later write is checked against.
func (v *Vault) SetPolicy(p Policy) {
	v.mu.Lock()
	v.policy = p
	v.mu.Unlock()
}

// Policy returns the installed policy (may be nil).
func (v *Vault) Policy() Policy {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.policy
}

// skipDir reports whether a folder is not part of the vault's notes.
func skipName(name string) bool {
	return strings.HasPrefix(name, ".")
}

// attachmentExts are the files listed as attachments.
var attachmentExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".bmp": true, ".svg": true, ".webp": true, ".avif": true,
	".pdf": true, ".canvas": true, ".base": true,
	".mp3": true, ".webm": true, ".wav": true, ".m4a": true, ".ogg": true, ".3gp": true, ".flac": true,
	".mp4": true, ".ogv": true, ".mov": true, ".mkv": true,
}

// IsAttachment reports whether a vault path is an attachment by its extension.
func IsAttachment(p string) bool { return attachmentExts[strings.ToLower(path.Ext(p))] }

// IsNote reports whether a vault path is a note (a .md file).
func IsNote(p string) bool { return strings.EqualFold(path.Ext(p), ".md") }

// Walk calls fn for every note and attachment, in lexical order, skipping
// dot-folders (.obsidian, .git, .trash, .vaultd), dot-files and vaultd's
// temp files. Symlinks are followed only when they stay inside the vault.
func (v *Vault) Walk(fn func(Entry) error) error {
	return v.WalkDir("", fn)
}

// ReadFile reads a file of the vault through the Root.
func (v *Vault) ReadFile(p string) ([]byte, error) {
	c, err := v.cleanPath(p)
	if err != nil {
		return nil, err
	}
	return v.root.ReadFile(c)
}

// Read reads and parses a note by its exact vault-relative path.
// Errors: ErrInvalidPath, ErrNotFound (with the closest notes as
// alternatives).
func (v *Vault) Read(p string) (*Note, error) {
	c, err := v.notePath(p)
	if err != nil {
		return nil, err
	}
	return v.read(c)
}

func (v *Vault) read(c string) (*Note, error) { return v.readAt(c, true) }

// readAt reads the note at c (canonical, twins.go); when c does not exist
// and fallback is set, it tries once the name that differs only in case or
// normalisation — when exactly one does: several are ambiguous. Once only:
// a dangling symlink is listed by the folder but does not open, and two of
// them ("A.md", "a.md") must not send the read round in circles.
func (v *Vault) readAt(c string, fallback bool) (*Note, error) {
	return v.readAs(c, c, fallback)
}

// readAs is readAt for the file at raw (its spelling on disk), reported as
// the note at c.
func (v *Vault) readAs(c, raw string, fallback bool) (*Note, error) {
	// Stat before Open: opening a FIFO for reading blocks until a writer
	// appears, so a FIFO named like a note would hang the read.
	if fi, err := v.root.Stat(raw); err == nil && !fi.Mode().IsRegular() {
		return nil, &note.Error{Op: "read", Path: c, Kind: note.ErrInvalidPath, Msg: "is not a regular file"}
	}
	f, err := v.root.Open(raw)
	if err != nil {
		if e, ok := note.AsError(err); ok {
			return nil, withOp(e, "read", c)
		}
		if errors.Is(err, fs.ErrNotExist) {
			if fallback {
				switch m := v.matchFolded(c, false); {
				case len(m) > 1:
					return nil, twinsError("read", c, m)
				case len(m) == 1 && m[0].raw != raw:
					return v.readAs(m[0].canon, m[0].raw, false)
				}
			}
			return nil, v.notFound("read", c)
		}
		return nil, &note.Error{Op: "read", Path: c, Kind: note.ErrInvalidPath, Msg: "cannot be read inside the vault", Err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &note.Error{Op: "read", Path: c, Kind: note.ErrInvalidPath, Msg: "is not a regular file"}
	}
	b := make([]byte, 0, fi.Size()+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			break
		}
	}
	// Note.Path is canonical whatever the disk holds (macOS may store
	// decomposed names): NFC, the same form Walk and CleanPath give, but
	// for a twin's name (twins.go).
	return NewNote(c, b, fi.ModTime(), fi.Size()), nil
}

// NewNote builds a Note from its path and bytes. Bytes parsed before are
// not parsed again (note.ParseCachedVersion): the Note's Doc may be shared with other
// Notes of the same content, so it must not be modified, nor b after the
// call.
func NewNote(p string, b []byte, mod time.Time, size int64) *Note {
	ver := note.Version(b)
	var d *note.Doc
	prob := note.CheckText(b)
	if prob == nil {
		d = note.ParseCachedVersion(b, ver)
	} else {
		// Headings, links and words of the text as a reader sees it: a
		// UTF-16 note's outline, search hits and links work (read-only).
		shown, _ := note.DisplayText(b, prob)
		d = note.ParseCached(shown)
	}
	return &Note{
		Path:    p,
		Title:   note.NoteTitle(p, d),
		Space:   note.SpaceOf(p),
		Version: ver,
		Aliases: d.Aliases,
		Tags:    d.Tags,
		ModTime: mod,
		Size:    size,
		Doc:     d,
		NotText: prob,
	}
}

func nfc(p string) string { return norm.NFC.String(p) }
