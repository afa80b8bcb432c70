package main

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// evict empties the page cache for the files below dirs: all caches with
// /proc/sys/vm/drop_caches where that is allowed (root outside a
// container), else each file's pages with posix_fadvise(DONTNEED), which
// any owner of the files may do. It says which it did ("" if neither).
func evict(dirs ...string) string {
	unix.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err == nil {
		return "drop_caches"
	}
	n := 0
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return nil
			}
			defer f.Close()
			if unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED) == nil {
				n++
			}
			return nil
		})
	}
	if n == 0 {
		return ""
	}
	return "fadvise DONTNEED on the vault's and the index's files (drop_caches not allowed here)"
}
