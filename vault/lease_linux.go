//go:build linux

package vault

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// leaseRead takes a read lease on f, a file opened read-only (fcntl
// F_SETLEASE F_RDLCK). The kernel refuses it with EAGAIN while any
// process has the file open for writing; once it is held, another
// process's open of the file for writing, or truncate, waits until it is
// released (or the kernel's lease-break-time, 45 s by default, passes),
// and the lease reads as breaking (leaseBreaking). The kernel tells the
// holder with SIGIO, which Go ignores unless asked for it.
//
// A lease needs the file to be the caller's own (or CAP_LEASE), leases
// enabled (fs.leases-enable) and a file system that keeps them: otherwise
// leaseUnknown.
func leaseRead(f *os.File) leaseState {
	var err error
	if ctl(f, func(fd uintptr) { _, err = unix.FcntlInt(fd, unix.F_SETLEASE, unix.F_RDLCK) }) != nil {
		return leaseUnknown
	}
	switch {
	case err == nil:
		return leaseHeld
	case errors.Is(err, unix.EAGAIN):
		return leaseWriting
	}
	return leaseUnknown
}

// leaseBreaking reports whether another process is waiting to open f's
// file for writing or to truncate it: the read lease held on f is being
// broken (F_GETLEASE reads F_UNLCK, the type it is to become).
func leaseBreaking(f *os.File) bool {
	t := unix.F_RDLCK
	var err error
	if ctl(f, func(fd uintptr) { t, err = unix.FcntlInt(fd, unix.F_GETLEASE, 0) }) != nil || err != nil {
		return false
	}
	return t != unix.F_RDLCK
}

// leaseRelease lets any process waiting on f's lease go on.
func leaseRelease(f *os.File) {
	ctl(f, func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETLEASE, unix.F_UNLCK) })
}

func ctl(f *os.File, fn func(fd uintptr)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(fn)
}
