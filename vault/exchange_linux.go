//go:build linux

package vault

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchangeIn swaps the entries a and b of the folder d atomically:
// renameat2(RENAME_EXCHANGE). errNoExchange when the file system cannot
// (some FUSE and network mounts).
func exchangeIn(d *os.File, a, b string) error {
	var err error
	for {
		err = unix.Renameat2(int(d.Fd()), a, int(d.Fd()), b, unix.RENAME_EXCHANGE)
		if err != unix.EINTR {
			break
		}
	}
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
		return errNoExchange
	}
	return err
}

func statMtime(st *unix.Stat_t) int64 { return st.Mtim.Nano() }
