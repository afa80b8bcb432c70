//go:build !unix

package index

import (
	"io"
	"os"
)

// readOnly returns the bytes of the file name (see readonly_unix.go).
func readOnly(name string) (b []byte, release func(), fi os.FileInfo, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, nil, nil, err
	}
	b, err = io.ReadAll(f)
	return b, func() {}, fi, err
}
