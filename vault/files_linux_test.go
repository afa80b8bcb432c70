//go:build linux

package vault

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBeneath_LinksGoTheCarefulWay: a path with no link on it is opened
// in one call below the vault's folder; a path through a link is not (the
// careful way, files.reach, judges the link: inside the vault it is read,
// into .git it is refused), and neither is the state dir.
func TestBeneath_LinksGoTheCarefulWay(t *testing.T) {
	dir := t.TempDir()
	for p, text := range map[string]string{
		"real/x.md":   "# X\n",
		".git/config": "[remote]\n\ttoken = secret\n",
	} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git", filepath.Join(dir, "g")); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.root.b == nil || v.root.b.off.Load() {
		t.Skip("openat2 is not available here")
	}
	if f, ok := v.root.b.open("real/x.md", os.O_RDONLY); !ok {
		t.Errorf("real/x.md: not opened in one call")
	} else {
		f.Close()
	}
	for _, p := range []string{"link/x.md", "g/config", "../x", ".vaultd/first-open"} {
		if _, err := v.root.Stat(p); p == "link/x.md" && err != nil {
			t.Errorf("Stat(%s): %v, want the note through the link inside the vault", p, err)
		}
	}
	for _, p := range []string{"link/x.md", "g/config"} {
		if f, ok := v.root.b.open(p, os.O_RDONLY); ok {
			f.Close()
			t.Errorf("%s: opened in one call through a link", p)
		}
	}
	if _, err := v.root.ReadFile("g/config"); err == nil {
		t.Errorf("g/config (a link into .git) was read")
	}
	if _, err := v.root.ReadFile(StateDirName + "/first-open"); err == nil {
		t.Errorf("the state dir was read")
	}
	if b, err := v.root.ReadFile("link/x.md"); err != nil || string(b) != "# X\n" {
		t.Errorf("link/x.md = %q, %v", b, err)
	}
}
