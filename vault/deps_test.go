package vault

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps_ImportDirection keeps the architecture the folders show:
// imports point one way, cmd/vaultd → trial, web → mcpserver → index,
// rules → vault.
// vault knows nothing of MCP, bleve or cobra; index is the only importer
// of bleve and mcpserver the only importer of mcp-go.
func TestDeps_ImportDirection(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not on PATH")
	}
	const mod = "github.com/vaultd/vaultd/"
	forbidden := []string{"github.com/mark3labs/mcp-go", "github.com/blevesearch/", "github.com/spf13/cobra"}

	// vault, including everything it pulls in (go list -deps).
	out, err := exec.Command("go", "list", "-deps", mod+"vault").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) {
				t.Errorf("package vault depends on %s", dep)
			}
		}
		for _, own := range []string{"rules", "index", "mcpserver", "keys", "trial", "web", "cmd/"} {
			if strings.HasPrefix(dep, mod+own) {
				t.Errorf("package vault depends on %s: imports must point to vault, not from it", dep)
			}
		}
	}

	// Direct imports of every package of the module.
	out, err = exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", mod+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	// who may import what, among the module's own packages and the big
	// libraries.
	allowed := map[string][]string{
		"mark3labs/mcp-go": {"mcpserver", "bench"}, // bench drives vaultd as a real MCP client
		"blevesearch/":     {"index"},
		"spf13/cobra":      {"cmd/vaultd"},
		mod + "mcpserver":  {"cmd/vaultd", "bench", "trial", "web"}, // trial drives a model over the core's tools; web is the owner's page
		mod + "trial":      {"cmd/vaultd"},
		mod + "index":      {"mcpserver", "cmd/vaultd", "bench"},
		mod + "rules":      {"mcpserver", "cmd/vaultd"},
		mod + "keys":       {"mcpserver", "cmd/vaultd", "web"},
		mod + "web":        {"cmd/vaultd"},
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(f[0], mod)
		for _, imp := range f[1:] {
			for lib, who := range allowed {
				if !strings.Contains(imp, lib) {
					continue
				}
				ok := false
				for _, w := range who {
					ok = ok || pkg == w || strings.HasPrefix(pkg, w+"/")
				}
				if !ok {
					t.Errorf("%s imports %s; only %v may", pkg, imp, who)
				}
			}
		}
	}
}
