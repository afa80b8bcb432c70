package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// TestTypeScriptSDK_MoveFolder: an agent on the official TypeScript SDK
// moves a folder with children on a copy of the German Obsidian help vault;
// afterwards the vault has exactly as many unresolved links as before
// (issue: reorganising must not break links).
func TestTypeScriptSDK_MoveFolder(t *testing.T) {
	t.Parallel()
	corpus := filepath.Join(repoRoot, "..", "shared", "corpora", "obsidian-help-de")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("corpus %s not found: %v", corpus, err)
	}
	dir := filepath.Join(t.TempDir(), "vault")
	if err := os.CopyFS(dir, os.DirFS(corpus)); err != nil {
		t.Fatal(err)
	}
	before := unresolvedLinks(t, dir)

	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found on PATH (%v): the TypeScript SDK tests need Node ≥ 20 and npm", err)
	}
	tsdir := filepath.Join(repoRoot, "e2e", "ts")
	npmCI(t, tsdir)
	cmd := exec.Command(node, "move-session.mjs", "--bin", vaultdBin, "--vault", dir, "--state", t.TempDir(),
		"--from", "Erweiterungen", "--to", "Obsidian erweitern/Erweiterungen")
	cmd.Dir = tsdir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "ts-sdk move: 3 passed, 0 failed") {
		t.Fatalf("node move-session.mjs: %v\n%s", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "Erweiterungen")); !os.IsNotExist(err) {
		t.Errorf("the folder Erweiterungen is still there after the move (%v)", err)
	}
	if after := unresolvedLinks(t, dir); after != before {
		t.Errorf("unresolved links: %d before the move, %d after", before, after)
	}
}

// unresolvedLinks counts the links of the vault that resolve to no file,
// the way Obsidian resolves them.
func unresolvedLinks(t *testing.T, dir string) int {
	t.Helper()
	v, err := vault.Open(dir, vault.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	notes, err := v.Notes()
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.Resolver()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, nt := range notes {
		for _, l := range nt.Doc.Links {
			if r.Resolve(nt.Path, l).Status == note.Unresolved {
				n++
			}
		}
	}
	return n
}
