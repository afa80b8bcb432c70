package rules

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// writeVault builds a vault from a txtar archive in a fresh temporary folder
// and returns its folder.
func writeVault(t *testing.T, archive string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range parseTxtar(archive) {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type txtarFile struct{ name, data string }

// parseTxtar reads the txtar format (golang.org/x/tools/txtar): a comment,
// then files, each introduced by a line "-- name --". It is written out
// because go.sum lacks x/tools, which go-internal's txtar wraps.
func parseTxtar(archive string) []txtarFile {
	var files []txtarFile
	for line := range strings.SplitAfterSeq(archive, "\n") {
		trimmed := strings.TrimRight(line, "\r\n")
		if name, ok := strings.CutPrefix(trimmed, "-- "); ok {
			if name, ok := strings.CutSuffix(name, " --"); ok && strings.TrimSpace(name) != "" {
				files = append(files, txtarFile{name: strings.TrimSpace(name)})
				continue
			}
		}
		if len(files) > 0 {
			files[len(files)-1].data += line
		}
	}
	return files
}

// load builds a vault from a txtar archive and loads its rules through an
// os.Root, the way vaultd does.
func load(t *testing.T, archive string) *Rules {
	t.Helper()
	dir := writeVault(t, archive)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	r, err := Load(root.FS())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return r
}

// checkGolden compares got with testdata/name, or rewrites the file with
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
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
		t.Fatalf("%v (run go test ./rules/ -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./rules/ -update to accept):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}
