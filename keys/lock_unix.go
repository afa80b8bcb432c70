//go:build unix

package keys

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// fileLock is an exclusive flock on the store's lock file. The kernel drops
// it when the process dies, so a crash never leaves the store locked.
type fileLock struct{ f *os.File }

// lock takes the lock, polling for at most timeout: changes take
// milliseconds, so a longer wait means a stuck process (ErrBusy).
func lock(name string, timeout time.Duration) (*fileLock, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &fileLock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("%w: another vaultd process has held %s for more than %s", ErrBusy, name, timeout)
			}
			return nil, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (l *fileLock) unlock() {
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	_ = l.f.Close()
}
