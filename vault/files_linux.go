//go:build linux

package vault

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// beneath opens vault paths in one system call where the kernel can vouch
// for them: openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS (Linux
// 5.6) resolves the whole path below the vault's folder and fails on any
// link on the way, so a path it opens is reached through no link and
// cannot leave the vault — the guarantee of os.Root and of files.reach,
// without their walk of every folder of the path (os.Root opens each one,
// and reach looked at each prefix through it: 907,392 openat calls for one
// title read on a docs vault of 14,594 folder notes). A path with a link on
// it, or that does not exist, goes the careful way (files.reach), which
// judges the link; so does everything where openat2 is missing.
type beneath struct {
	dir *os.File    // the vault's folder, for openat2's dirfd
	off atomic.Bool // openat2 is not there (an old kernel, a sandbox)
	// Whether walks trust folder times here (foldersTrusted), and the
	// device of the vault's folder.
	trustOnce sync.Once
	trusted   bool
	dev       uint64
}

// openBeneath opens the vault's folder for beneath.
func openBeneath(abs string) *beneath {
	d, err := os.Open(abs)
	if err != nil {
		return &beneath{}
	}
	b := &beneath{dir: d}
	return b
}

func (b *beneath) close() {
	if b != nil && b.dir != nil {
		b.dir.Close()
	}
}

// open opens p (clean, vault-relative) with flags through no link, or
// returns false when that cannot be done in one call (a link on the
// way, a missing file, no openat2): the caller goes the careful way.
func (b *beneath) open(p string, flags int) (*os.File, bool) {

	if b == nil || b.dir == nil || b.off.Load() {
		return nil, false
	}
	how := unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC | unix.O_NOFOLLOW),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for try := 0; try < 3; try++ {
		fd, err := unix.Openat2(int(b.dir.Fd()), p, &how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), p), true
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			// EAGAIN: a rename raced the resolution; the kernel asks
			// to try again.
			continue
		case errors.Is(err, unix.ENOSYS):
			b.off.Store(true) // no openat2 here (an old kernel, a sandbox)
		}
		// ELOOP, EXDEV (a link on the way), ENOENT, ENOTDIR, EACCES, …:
		// the careful way says what it is.
		return nil, false
	}
	return nil, false
}

// openPath is open for a stat: O_PATH, which needs no read right and opens
// FIFOs and devices without touching them.
const openPath = unix.O_PATH
