//go:build !unix

package mcpserver

// openFileLimit is unknown here; the default connection limit applies.
func openFileLimit() int { return -1 }
