//go:build !unix && !windows

package vault

import "os"

// Platforms without file locks (wasip1, plan9): writers are serialised
// within the process only.
func lockFileEx(f *os.File) error { return nil }

func unlockFile(f *os.File) {}

func tryLockFileEx(f *os.File) (bool, error) { return true, nil }
