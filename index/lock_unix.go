//go:build unix

package index

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockFile is an exclusive advisory lock (flock) on a file holding the
// owner's pid. The kernel drops the lock when the process dies, so a stale
// file never blocks anyone.
type lockFile struct{ f *os.File }

// acquireLock takes the lock without waiting. If another process holds it,
// it returns a *BusyError naming that process.
func acquireLock(name string) (*lockFile, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(name)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			return nil, &BusyError{PID: pid}
		}
		return nil, err
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &lockFile{f: f}, nil
}

func (l *lockFile) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	err := l.f.Close()
	l.f = nil
	return err
}
