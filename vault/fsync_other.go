//go:build !unix

package vault

import "os"

const readFlags = os.O_RDONLY

// syncDir is a no-op: Windows cannot fsync a directory handle, and NTFS
// journals renames itself.
func syncDir(f *os.File) error { return nil }
