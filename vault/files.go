package vault

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/vaultd/vaultd/note"
)

// files is the vault's folder as vaultd touches it: an os.Root (nothing
// outside the vault is ever reached) that also refuses to be led by a
// symbolic link into a hidden folder (.git, .obsidian, .trash, .vaultd) or
// into the state dir.
//
// Why: a shared git vault can carry committed links such as
// "Geteilt/Einstellungen.md → ../.git/config" or a folder link "→ ../.git".
// os.Root follows links that stay inside the root, so without this check a
// read-only key would read the remote's token, and a write key could set
// core.fsmonitor (the owner's next `git status` runs a command), forge
// access keys or history in the state dir, or move notes into .git where
// they vanish without the trash.
//
// The rule: every path is resolved component by component (Lstat, and
// Readlink for links, at most maxLinkHops); a component reached through a
// link must not be hidden, and no component may be the state dir. Hidden
// names written out in the path itself are allowed — only vaultd's own code
// names them (.trash/…, .obsidian/bookmarks.json, temp files), since every
// path an agent gives goes through CleanPath, which refuses hidden names.
// The operation then runs on the resolved path, so a link swapped after the
// check has no component left to follow but the last.
//
// Reads open files with O_NONBLOCK and refuse anything but regular files: a
// FIFO named like a note must never hang a read.
type files struct {
	r *os.Root
	// b opens a path in one system call where the kernel vouches that no
	// link is on it (files_linux.go); every other path goes through reach.
	b *beneath
	// state is the state dir's vault-relative path when it lies inside the
	// vault ("" when it lies elsewhere).
	state string
}

// maxLinkHops bounds link resolution (the kernel's own limit is 40).
const maxLinkHops = 40

// follow says whether the last component of a path is resolved when it is
// a link (Open, Stat) or taken as it is (Lstat, Remove, Rename, Link).
type follow bool

const (
	followLast follow = true
	keepLast   follow = false
)

// reach resolves p (vault-relative, slash-separated, clean; "." for the
// root) and returns the resolved path to operate on. Errors: *Error with
// ErrInvalidPath when a link leads into a hidden folder, into the state
// dir, outside the vault or in circles; a path that does not exist (yet)
// resolves as far as it exists and keeps the rest as given.
func (f *files) reach(p string, fl follow) (string, error) {
	p = filepath.ToSlash(p)
	if p == "." || p == "" {
		return ".", nil
	}
	if path.IsAbs(p) {
		return "", f.refuse(p, "leads outside the vault")
	}
	if f.noLinks(p, fl) {
		return p, nil
	}
	hops := 0
	stack, err := f.walk(p, nil, strings.Split(p, "/"), fl, false, &hops)
	if err != nil {
		return "", err
	}
	if len(stack) == 0 {
		return ".", nil
	}
	return strings.Join(stack, "/"), nil
}

// walk resolves parts one by one on top of stack, the components of a
// folder already resolved (no links in it), the way the kernel does: ".."
// goes up from where a link led, not from the link's name. fromLink says
// the parts come from a link's target, whose names may not be hidden.
func (f *files) walk(given string, stack, parts []string, fl follow, fromLink bool, hops *int) ([]string, error) {
	for i, name := range parts {
		last := i == len(parts)-1
		switch name {
		case "", ".":
			continue
		case "..":
			if len(stack) == 0 {
				return nil, f.refuse(given, "is a symbolic link that leaves the vault")
			}
			stack = stack[:len(stack)-1]
			continue
		}
		if fromLink && strings.HasPrefix(name, ".") {
			return nil, f.refuse(given, fmt.Sprintf("is a symbolic link into the hidden folder %q; vaultd never reaches hidden folders (.git, .obsidian, .trash) or its state dir, by name or through a link", name))
		}
		next := join(strings.Join(stack, "/"), name)
		if f.inState(next) {
			return nil, f.refuse(given, "is inside vaultd's state dir, which holds vaultd's own files, never notes")
		}
		if last && fl == keepLast {
			return append(stack, name), nil
		}
		fi, err := f.r.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				// The rest does not exist (yet): creating it is fine, under
				// the names given (none hidden, if they come from a link).
				for _, rest := range parts[i+1:] {
					if fromLink && strings.HasPrefix(rest, ".") && rest != "." {
						return nil, f.refuse(given, "is a symbolic link into a hidden folder or out of the vault")
					}
				}
				return append(append(stack, name), parts[i+1:]...), nil
			}
			return nil, &note.Error{Path: given, Kind: note.ErrInvalidPath, Msg: "cannot be reached inside the vault", Err: err}
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			stack = append(stack, name)
			continue
		}
		if *hops++; *hops > maxLinkHops {
			return nil, f.refuse(given, "is a symbolic link that loops")
		}
		target, err := f.r.Readlink(next)
		if err != nil {
			return nil, &note.Error{Path: given, Kind: note.ErrInvalidPath, Msg: "is a symbolic link that cannot be read", Err: err}
		}
		target = filepath.ToSlash(target)
		if path.IsAbs(target) || filepath.IsAbs(target) {
			return nil, f.refuse(given, "is a symbolic link that leaves the vault")
		}
		stack, err = f.walk(given, append([]string(nil), stack...), strings.Split(target, "/"), followLast, true, hops)
		if err != nil {
			return nil, err
		}
	}
	return stack, nil
}

// noLinks reports whether the kernel vouches in one call that p is reached
// through no link (its last component too, when fl follows it) and is not
// in the state dir: reach's answer is then p itself.
func (f *files) noLinks(p string, fl follow) bool {
	if f.b == nil || f.inState(p) || p != path.Clean(p) || strings.HasPrefix(p, "../") || p == ".." {
		return false
	}
	at := p
	if fl == keepLast {
		if at = path.Dir(p); at == "." {
			return true
		}
	}
	fh, ok := f.b.open(at, openPath)
	if !ok {
		return false
	}
	defer fh.Close()
	fi, err := fh.Stat()
	return err == nil && fi.Mode()&fs.ModeSymlink == 0
}

func (f *files) refuse(p, msg string) error {
	return &note.Error{Path: p, Kind: note.ErrInvalidPath, Msg: msg, Err: fs.ErrPermission}
}

// inState reports whether the vault path p is the state dir or inside it.
func (f *files) inState(p string) bool {
	return f.state != "" && (p == f.state || strings.HasPrefix(p, f.state+"/"))
}

func join(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	if name == "" {
		return dir
	}
	return dir + "/" + name
}

// reachErr attaches the path an operation was asked for to a refusal.
func reachErr(op, p string, err error) error {
	if e, ok := note.AsError(err); ok {
		cp := *e
		cp.Path = p
		return &fs.PathError{Op: op, Path: p, Err: &cp}
	}
	return err
}

// Lstat is os.Root.Lstat on the resolved path (the last component is not
// followed).
func (f *files) Lstat(p string) (fs.FileInfo, error) {
	if fi, ok := f.statBeneath(p, false); ok {
		return fi, nil
	}
	rp, err := f.reach(p, keepLast)
	if err != nil {
		return nil, reachErr("lstat", p, err)
	}
	return f.r.Lstat(rp)
}

// Stat is os.Root.Stat on the resolved path.
func (f *files) Stat(p string) (fs.FileInfo, error) {
	if fi, ok := f.statBeneath(p, true); ok {
		return fi, nil
	}
	rp, err := f.reach(p, followLast)
	if err != nil {
		return nil, reachErr("stat", p, err)
	}
	return f.r.Stat(rp)
}

// statBeneath stats p in one call where no link is on its way (beneath);
// ok false sends the caller the careful way. follow: a link as the last
// component is followed (then it is the careful way's to judge).
func (f *files) statBeneath(p string, follow bool) (fs.FileInfo, bool) {
	if f.b == nil || f.inState(p) || p != path.Clean(p) || strings.HasPrefix(p, "..") || path.IsAbs(p) {
		return nil, false
	}
	fh, ok := f.b.open(p, openPath)
	if !ok {
		return nil, false
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil || follow && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, false
	}
	return fi, true // named by its base name, as os.Root's stat is
}

// Readlink reads the link at p itself.
func (f *files) Readlink(p string) (string, error) {
	rp, err := f.reach(p, keepLast)
	if err != nil {
		return "", reachErr("readlink", p, err)
	}
	return f.r.Readlink(rp)
}

// Open opens p for reading without blocking; folders open as folders,
// anything else that is not a regular file is refused.
func (f *files) Open(p string) (*os.File, error) { return f.OpenFile(p, os.O_RDONLY, 0) }

// OpenFile is os.Root.OpenFile on the resolved path. A read-only open does
// not block (O_NONBLOCK) and refuses FIFOs, sockets and devices.
func (f *files) OpenFile(p string, flag int, perm fs.FileMode) (*os.File, error) {
	readOnly := flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC) == 0
	if readOnly {
		flag |= readFlags
	}
	var fh *os.File
	if readOnly && f.b != nil && !f.inState(p) && p == path.Clean(p) && !strings.HasPrefix(p, "..") && !path.IsAbs(p) {
		fh, _ = f.b.open(p, flag)
	}
	if fh == nil {
		rp, err := f.reach(p, followLast)
		if err != nil {
			return nil, reachErr("open", p, err)
		}
		if fh, err = f.r.OpenFile(rp, flag, perm); err != nil {
			return nil, err
		}
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		fh.Close()
		return nil, &fs.PathError{Op: "open", Path: p, Err: &note.Error{Path: p, Kind: note.ErrInvalidPath,
			Msg: "is not a regular file (a pipe, socket or device); vaultd only reads and writes regular files", Err: fs.ErrPermission}}
	}
	return fh, nil
}

// ReadFile reads the regular file at p.
func (f *files) ReadFile(p string) ([]byte, error) {
	fh, err := f.Open(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: errors.New("is a folder")}
	}
	return readAll(fh, fi.Size())
}

// readAll reads r to its end; size is what a stat said (a file may grow
// meanwhile).
func readAll(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// WriteFile is os.Root.WriteFile on the resolved path.
func (f *files) WriteFile(p string, data []byte, perm fs.FileMode) error {
	rp, err := f.reach(p, followLast)
	if err != nil {
		return reachErr("write", p, err)
	}
	return f.r.WriteFile(rp, data, perm)
}

// Remove removes p itself (a link, not its target).
func (f *files) Remove(p string) error {
	rp, err := f.reach(p, keepLast)
	if err != nil {
		return reachErr("remove", p, err)
	}
	return f.r.Remove(rp)
}

// Rename renames old to new (links themselves, not their targets).
func (f *files) Rename(old, new string) error {
	ro, err := f.reach(old, keepLast)
	if err != nil {
		return reachErr("rename", old, err)
	}
	rn, err := f.reach(new, keepLast)
	if err != nil {
		return reachErr("rename", new, err)
	}
	return f.r.Rename(ro, rn)
}

// Link makes new a hard link of old.
func (f *files) Link(old, new string) error {
	ro, err := f.reach(old, keepLast)
	if err != nil {
		return reachErr("link", old, err)
	}
	rn, err := f.reach(new, keepLast)
	if err != nil {
		return reachErr("link", new, err)
	}
	return f.r.Link(ro, rn)
}

// Mkdir creates the folder p.
func (f *files) Mkdir(p string, perm fs.FileMode) error {
	rp, err := f.reach(p, keepLast)
	if err != nil {
		return reachErr("mkdir", p, err)
	}
	return f.r.Mkdir(rp, perm)
}

// MkdirAll creates p and the folders above it.
func (f *files) MkdirAll(p string, perm fs.FileMode) error {
	rp, err := f.reach(p, followLast)
	if err != nil {
		return reachErr("mkdir", p, err)
	}
	return f.r.MkdirAll(rp, perm)
}

// Chtimes is os.Root.Chtimes on the resolved path.
func (f *files) Chtimes(p string, atime, mtime time.Time) error {
	rp, err := f.reach(p, followLast)
	if err != nil {
		return reachErr("chtimes", p, err)
	}
	return f.r.Chtimes(rp, atime, mtime)
}

// FS returns the vault as an fs.FS under the same rules: a path reached
// through a link into a hidden folder or the state dir does not open, and
// reads never block.
func (f *files) FS() fs.FS { return guardFS{f} }

type guardFS struct{ f *files }

var (
	_ fs.ReadDirFS  = guardFS{}
	_ fs.ReadFileFS = guardFS{}
	_ fs.StatFS     = guardFS{}
)

func (g guardFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	fh, err := g.f.Open(name)
	if err != nil {
		return nil, err
	}
	return fh, nil
}

func (g guardFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	return g.f.ReadFile(name)
}

func (g guardFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	return g.f.Stat(name)
}

// ReadDir lists a folder, without the state dir when it lies inside the
// vault under a name that is not hidden.
func (g guardFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	rp, err := g.f.reach(name, followLast)
	if err != nil {
		return nil, reachErr("readdir", name, err)
	}
	entries, err := fs.ReadDir(g.f.r.FS(), rp)
	if g.f.state == "" {
		return entries, err
	}
	kept := entries[:0]
	for _, e := range entries {
		if !g.f.inState(join(rp, e.Name())) {
			kept = append(kept, e)
		}
	}
	return kept, err
}
