package vault

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// Other test files of this package may declare the -update flag too;
// package-level variables are initialised before any init runs, so this
// defines it only when nobody else did, and goldenUpdate reads it by name.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata/")
	}
}

func goldenUpdate() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

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
	p := filepath.Join("testdata", "links", name)
	if goldenUpdate() {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./vault -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update to accept):\ngot:\n%s\nwant:\n%s", p, got, want)
	}
}
