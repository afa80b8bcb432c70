package note

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Version returns the version of a note's bytes: hex SHA-256 of the raw
// bytes, the same on every machine.
func Version(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ShortVersionLen is how many hex characters of a version are shown.
const ShortVersionLen = 12

// ShortVersion returns the shown prefix of a version.
func ShortVersion(v string) string {
	if len(v) > ShortVersionLen {
		return v[:ShortVersionLen]
	}
	return v
}

// SameVersion reports whether a version given by a caller (full, or a
// prefix of at least ShortVersionLen hex characters) names full.
func SameVersion(given, full string) bool {
	given = strings.ToLower(strings.TrimSpace(given))
	return len(given) >= ShortVersionLen && strings.HasPrefix(full, given)
}
