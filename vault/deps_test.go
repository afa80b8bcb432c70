package vault

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps_ImportDirection keeps the architecture the folders show:
// imports point one way, cmd/vaultd → trial, web (the owner's page) → mcpserver (the MCP door) →
// tools (the core every door calls) → index, rules → vault.
// vault knows nothing of MCP, bleve or cobra; tools knows nothing of MCP or
// cobra, nor of any door; index is the only importer of bleve and
// mcpserver the only importer of mcp-go.
func TestDeps_ImportDirection(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not on PATH")
	}
	const mod = "github.com/vaultd/vaultd/"
	mcp, bleve, cobra := "github.com/mark3labs/mcp-go", "github.com/blevesearch/", "github.com/spf13/cobra"

	// What a package must not pull in, directly or not (go list -deps).
	for pkg, forbidden := range map[string][]string{
		"vault": {mcp, bleve, cobra, mod + "rules", mod + "index", mod + "tools", mod + "mcpserver", mod + "keys", mod + "trial", mod + "cmd/"},
		"tools": {mcp, cobra, mod + "mcpserver", mod + "keys", mod + "trial", mod + "cmd/"},
	} {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps: %v\n%s", err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if strings.HasPrefix(dep, f) {
					t.Errorf("package %s depends on %s: imports must point to %s, not from it", pkg, dep, pkg)
				}
			}
		}
	}

	// Direct imports of every package of the module.
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", mod+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	// who may import what, among the module's own packages and the big
	// libraries.
	allowed := map[string][]string{
		"mark3labs/mcp-go": {"mcpserver", "bench"}, // bench drives vaultd as a real MCP client
		"blevesearch/":     {"index"},
		"spf13/cobra":      {"cmd/vaultd"},
		mod + "mcpserver":  {"cmd/vaultd", "trial", "web"},              // trial hands a model the tools as tools/list shows them
		mod + "tools":      {"mcpserver", "cmd/vaultd", "trial", "web"}, // the doors, and trial driving a model over them
		mod + "trial":      {"cmd/vaultd"},
		mod + "index":      {"tools", "mcpserver", "cmd/vaultd", "bench"},
		mod + "rules":      {"tools", "cmd/vaultd"},
		mod + "keys":       {"mcpserver", "cmd/vaultd", "web", "oauth"},
		mod + "oauth":      {"cmd/vaultd", "web"}, // the authorization server; the page holds its consent step
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
