//go:build unix

package vault

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFileEx takes an exclusive flock(2) on f, waiting for it.
func lockFileEx(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }
