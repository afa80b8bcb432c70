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

// tryLockFileEx takes an exclusive flock(2) on f if it is free.
func tryLockFileEx(f *os.File) (bool, error) {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch err {
		case nil:
			return true, nil
		case unix.EWOULDBLOCK:
			return false, nil
		case unix.EINTR:
			continue
		}
		return false, err
	}
}
