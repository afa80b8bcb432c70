//go:build unix

package index

import (
	"io"
	"os"
	"syscall"
)

// readOnly returns the bytes of the file name for strings that point into
// them (the manifest's, eachManifestEntry). On unix they are the file
// mapped into memory, never unmapped: the pages are the page cache's own,
// where reading the laws' 4.7 MB manifest into fresh memory costs a
// process that just started ~18 ms before its first name lookup. The
// index replaces the file by renaming a new one over it, never by
// writing into it, so a mapping keeps the bytes it was made with. A file
// that cannot be mapped is read. Call release when nothing points into
// the bytes (they were refused, or copied).
func readOnly(name string) (b []byte, release func(), fi os.FileInfo, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return nil, nil, nil, err
	}
	if n := fi.Size(); fi.Mode().IsRegular() && n > 0 && n < 1<<40 {
		if b, err := syscall.Mmap(int(f.Fd()), 0, int(n), syscall.PROT_READ, syscall.MAP_PRIVATE); err == nil {
			return b, func() { _ = syscall.Munmap(b) }, fi, nil
		}
	}
	b, err = io.ReadAll(f)
	return b, func() {}, fi, err
}
