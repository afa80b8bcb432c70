//go:build windows

package vault

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFileEx takes an exclusive LockFileEx lock on the first byte of f,
// waiting for it.
func lockFileEx(f *os.File) error {
	ol := new(windows.Overlapped)
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol)
}

func unlockFile(f *os.File) {
	ol := new(windows.Overlapped)
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}
