package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTypeScriptSDK runs ts/session.mjs: the official MCP TypeScript SDK
// (pinned in ts/package.json, locked in ts/package-lock.json) drives the
// built binary through the same session as the Go tests. It installs the
// SDK with `npm ci` when ts/node_modules is missing or older than the lock
// file. Node and npm are required: CI has them, and a skipped client test
// would pass silently.
func TestTypeScriptSDK(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found on PATH (%v): the TypeScript SDK test needs Node ≥ 20 and npm", err)
	}
	dir := filepath.Join(repoRoot, "e2e", "ts")
	npmCI(t, dir) // shared with the other TypeScript tests: one install at a time

	cmd := exec.Command(node, "session.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"VAULTD_BIN="+vaultdBin,
		"VAULTD_READ_TOOLS="+strings.Join(readTools, ","),
		"VAULTD_WRITE_TOOLS="+strings.Join(writeTools, ","),
		"VAULTD_EXAMPLE_VAULT="+filepath.Join(repoRoot, "example-vault"),
		"TMPDIR="+t.TempDir(), // the script's vault copies land in the test's temp dir
	)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err = cmd.Run()
	if err != nil {
		t.Fatalf("node session.mjs: %v\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if m := regexp.MustCompile(`^ts-sdk session: ([1-9][0-9]*) passed, 0 failed$`).FindStringSubmatch(last); m == nil {
		t.Fatalf("node session.mjs: last line %q, want \"ts-sdk session: N passed, 0 failed\"\n%s", last, out.String())
	}
	t.Log(last)
}

// nodeModulesStale reports whether npm ci must run: node_modules is
// missing, or npm's record of the last install (node_modules/.package-lock.json)
// is older than package-lock.json.
func nodeModulesStale(dir string) (bool, string) {
	lock, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return true, "no package-lock.json"
	}
	installed, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err != nil {
		return true, "node_modules missing"
	}
	if installed.ModTime().Before(lock.ModTime()) {
		return true, "node_modules older than package-lock.json"
	}
	return false, ""
}
