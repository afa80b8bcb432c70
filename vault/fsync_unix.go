//go:build unix

package vault

import (
	"os"
	"syscall"
)

// readFlags opens a note for reading without blocking: if a FIFO was put
// in a note's place between the Lstat and the open, the open must not hang
// while the note's lock is held.
const readFlags = os.O_RDONLY | syscall.O_NONBLOCK

// syncDir makes a rename or link in the directory f durable.
func syncDir(f *os.File) error { return f.Sync() }
