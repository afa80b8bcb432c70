//go:build !linux && !darwin

package vault

import (
	"io/fs"
	"os"
)

// exchangeIn cannot swap two files atomically on this platform.
func exchangeIn(d *os.File, a, b string) error { return errNoExchange }

// unchangedIn cannot look by descriptor here; the publish's inspection
// guards.
func unchangedIn(d *os.File, name string, fi fs.FileInfo) bool { return true }
