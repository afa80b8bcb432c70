package vault

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps_ImportDirection keeps the architecture the folders show:
// imports point one way, cmd/vaultd → trial, web (the owner's page) → mcpserver (the MCP door) →
// tools (the core every door calls) → index, rules → vault (the folder on disk) → note (one
// note's bytes). note imports nothing of vaultd and does no I/O; vault
// knows nothing of MCP, bleve or cobra; tools knows nothing of MCP or
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
		"note":  {mod, mcp, bleve, cobra},
		"base":  {mod + "vault", mod + "index", mod + "tools", mod + "rules", mod + "keys", mod + "embed", mod + "oauth", mod + "mcpserver", mod + "web", mod + "trial", mod + "cmd/", mcp, bleve, cobra}, // note only: the moment.js formats are one
		"vault": {mcp, bleve, cobra, mod + "rules", mod + "index", mod + "tools", mod + "mcpserver", mod + "keys", mod + "trial", mod + "web", mod + "cmd/"},
		"tools": {mcp, cobra, mod + "mcpserver", mod + "keys", mod + "trial", mod + "cmd/"},
	} {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps: %v\n%s", err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if dep != mod+pkg && strings.HasPrefix(dep, f) {
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
		mod + "mcpserver":  {"cmd/vaultd", "trial", "web"},                       // trial hands a model the tools as tools/list shows them
		mod + "tools":      {"mcpserver", "cmd/vaultd", "trial", "web", "bench"}, // the doors, trial driving a model over them, bench measuring names through them
		mod + "trial":      {"cmd/vaultd", "bench"},                              // bench measures the names of every note (trial.CheckNames)
		mod + "index":      {"tools", "mcpserver", "cmd/vaultd", "bench"},
		mod + "vault":      {"index", "rules", "tools", "mcpserver", "web", "cmd/vaultd", "bench"},
		mod + "note":       {"base", "vault", "index", "rules", "tools", "mcpserver", "web", "trial", "cmd/vaultd", "bench"},
		mod + "embed":      {"embed", "index", "cmd/vaultd", "bench"}, // embed/embedtest builds on embed
		mod + "base":       {"tools", "cmd/vaultd", "bench"},          // Bases: parsed and run by the core; the CLI writes a view's rows as CSV
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

// TestDeps_NoteDoesNoIO keeps packages note and base pure: they take
// bytes (and, for base, the files as values) and return bytes or
// structure, so they import nothing that reaches files, processes or the
// network (fmt and the others they use may, underneath; they do not call
// them).
func TestDeps_NoteDoesNoIO(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not on PATH")
	}
	for _, pkg := range []string{"note", "base"} {
		out, err := exec.Command("go", "list", "-f", "{{join .Imports \"\\n\"}}", "github.com/vaultd/vaultd/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		forbidden := map[string]bool{"os": true, "os/exec": true, "os/signal": true, "io": true, "io/fs": true, "io/ioutil": true,
			"path/filepath": true, "syscall": true, "net": true, "net/http": true, "runtime": true, "unsafe": true}
		imports := strings.Fields(string(out))
		if len(imports) == 0 {
			t.Fatalf("go list printed no imports for %s", pkg)
		}
		for _, imp := range imports {
			if forbidden[imp] || strings.HasPrefix(imp, "golang.org/x/sys") {
				t.Errorf("package %s imports %s: %s does no I/O; do it in vault (or tools) and hand %s the bytes", pkg, imp, pkg, pkg)
			}
		}
	}
}

// TestDeps_Layers checks the one-way order as ranks: a package imports only
// packages of a lower rank (tests may reach further; they are not listed
// here). A new package must be given its rank here.
func TestDeps_Layers(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not on PATH")
	}
	const mod = "github.com/vaultd/vaultd/"
	rank := map[string]int{
		"note": 0, "media": 0, "media/mediatest": 0, "base": 1,
		"vault": 1, "keys": 1, "embed": 1,
		"rules": 2, "index": 2, "embed/embedtest": 2, "oauth": 2,
		"tools":     3,
		"mcpserver": 4,
		"web":       5, "trial": 5,
		"cmd/vaultd": 6, "bench": 6, "e2e": 6,
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", mod+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(f[0], mod)
		r, ok := rank[pkg]
		if !ok {
			t.Errorf("package %s has no rank in TestDeps_Layers: say where it sits", pkg)
			continue
		}
		seen++
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			dep := strings.TrimPrefix(imp, mod)
			if rd, ok := rank[dep]; !ok || rd >= r {
				t.Errorf("%s (rank %d) imports %s (rank %d): imports must point down", pkg, r, dep, rd)
			}
		}
	}
	if seen != len(rank) {
		t.Errorf("go list showed %d of the %d ranked packages", seen, len(rank))
	}
}
