package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// vault_overview after a sync round that merged a teammate's
// .gitattributes with lines that would turn notes into UTF-16 and switch
// merging off: the owner learns what they do and what vaultd does here.
func TestGolden_OverviewGitAttributes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_SYSTEM", "/dev/null")
	dir := copyExampleVault(t)
	root := t.TempDir()
	ben := filepath.Join(root, "ben")
	gitT(t, dir, "", "init", "-q", "-b", "main")
	gitT(t, dir, "Lena Hoffmann|2026-11-20T09:00:00Z", "add", "-A")
	gitT(t, dir, "Lena Hoffmann|2026-11-20T09:00:00Z", "commit", "-q", "-m", "Vault angelegt")
	gitT(t, root, "", "init", "-q", "--bare", "-b", "main", "remote.git")
	gitT(t, dir, "", "remote", "add", "origin", filepath.Join(root, "remote.git"))
	gitT(t, dir, "", "push", "-q", "-u", "origin", "main")
	gitT(t, root, "", "clone", "-q", "remote.git", "ben")
	if err := os.WriteFile(filepath.Join(ben, ".gitattributes"), []byte("*.md working-tree-encoding=UTF-16LE-BOM eol=crlf\n1_Projekte/** merge=union\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, ben, "Ben|2026-11-27T16:30:00Z", "add", ".gitattributes")
	gitT(t, ben, "Ben|2026-11-27T16:30:00Z", "commit", "-q", "-m", "Attribute")
	gitT(t, ben, "", "push", "-q")
	c := newTestCore(t, dir)
	if r := c.v.Sync(context.Background()); !r.OK() {
		t.Fatalf("sync: %+v", r)
	}
	checkGoldenCall(t, c, readWrite, step{"vault_overview", `{}`}, dir, "", "overview_git_attributes")
}
