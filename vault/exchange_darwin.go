//go:build darwin

package vault

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchangeIn swaps the entries a and b of the folder d atomically:
// renameatx_np(RENAME_SWAP). errNoExchange when the file system cannot.
func exchangeIn(d *os.File, a, b string) error {
	var err error
	for {
		err = unix.RenameatxNp(int(d.Fd()), a, int(d.Fd()), b, unix.RENAME_SWAP)
		if err != unix.EINTR {
			break
		}
	}
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return errNoExchange
	}
	return err
}

func statMtime(st *unix.Stat_t) int64 { return st.Mtim.Nano() }
