package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotice_ListsEveryModule checks that NOTICE names every module the
// vaultd binary is built from, at the version go.mod selects, so that a
// new or upgraded dependency gets its license checked and listed.
func TestNotice_ListsEveryModule(t *testing.T) {
	notice, err := os.ReadFile(filepath.Join(repoRoot, "NOTICE"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repoRoot, "LICENSE")); err != nil {
		t.Fatalf("no LICENSE at the repository root: %v", err)
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}{{end}}{{end}}", "./cmd/vaultd")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, m := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		if !strings.Contains(string(notice), "  "+m+"\n") {
			t.Errorf("NOTICE does not list the module %s (check its license in the module cache and add it)", m)
		}
	}
	if len(seen) < 10 {
		t.Fatalf("go list named only %d modules: %s", len(seen), out)
	}
}
