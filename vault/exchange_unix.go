//go:build linux || darwin

package vault

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// unchangedIn reports whether the entry name of the folder d is still the
// file fi describes (same inode, size and mtime), by one fstatat: the last
// look before the exchange, as close to it as a system call can be.
func unchangedIn(d *os.File, name string, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true // cannot tell; the exchange's inspection still guards
	}
	var now unix.Stat_t
	if err := unix.Fstatat(int(d.Fd()), name, &now, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return false
	}
	return uint64(now.Dev) == uint64(st.Dev) && uint64(now.Ino) == uint64(st.Ino) &&
		now.Size == st.Size && statMtime(&now) == fi.ModTime().UnixNano()
}
