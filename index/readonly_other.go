//go:build !unix

package index

import "os"

// readOnly returns the bytes of the file name (see readonly_unix.go).
func readOnly(name string) (b []byte, release func(), err error) {
	b, err = os.ReadFile(name)
	return b, func() {}, err
}
