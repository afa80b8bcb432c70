//go:build unix

package vault

import "syscall"

func wMkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }
