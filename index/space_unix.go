//go:build unix

package index

import "syscall"

// freeBytes is the space left to an unprivileged writer on dir's file
// system (ok false when it cannot be told).
func freeBytes(dir string) (free uint64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
