package vault

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// goldenUpdate reports whether -update (declared in sections_test.go) asks
// for the golden files to be rewritten.
func goldenUpdate() bool { return *update }

// writeLinkVault builds a vault from a txtar archive in a fresh temporary
// folder and opens it (state dir outside the vault, no fsync).
func writeLinkVault(t *testing.T, archive string) *Vault {
	t.Helper()
	dir := t.TempDir()
	for _, f := range txtar.Parse([]byte(archive)).Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return openLinkVault(t, dir)
}

func openLinkVault(t *testing.T, dir string) *Vault {
	t.Helper()
	v, err := Open(dir, Options{StateDir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

// checkLinksGolden compares got with testdata/links/name, or rewrites the
// file with -update.
func checkLinksGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	checkGolden(t, filepath.Join("testdata", "links", name), got)
}
