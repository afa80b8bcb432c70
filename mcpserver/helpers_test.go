package mcpserver

// The fixtures the adapter's tests share with the core's (tools/golden_test.go):
// the example vault in a temp dir at a fixed clock, a core with a real
// index over it, and golden files.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixedNow is the clock of every golden test.
var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// copyExampleVault copies the repository's example-vault into a temp dir
// and pins every file's mtime (to a time derived from its path, so that
// "recently changed" is stable).
func copyExampleVault(t testing.TB) string {
	t.Helper()
	src := filepath.Join("..", "example-vault")
	dst := filepath.Join(t.TempDir(), "vault")
	var files []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".vaultd" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, rel)
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for i, rel := range files {
		mt := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * 37 * time.Minute)
		if err := os.Chtimes(filepath.Join(dst, rel), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func newTestCore(t testing.TB, dir string) *tools.Core {
	t.Helper()
	return newTestCoreWith(t, dir, index.Options{})
}

// newTestCoreWith is newTestCore with these index options (Watch: changes
// made outside vaultd reach the index's change journal).
func newTestCoreWith(t testing.TB, dir string, io index.Options) *tools.Core {
	t.Helper()
	v, err := vault.Open(dir, vault.Options{StateDir: filepath.Join(t.TempDir(), "state"), NoSync: true, Actor: "test", Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	io.Dir, io.Logger = filepath.Join(t.TempDir(), "index"), slog.New(slog.DiscardHandler)
	idx, err := index.Open(v, io)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	if err := idx.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	c, err := tools.NewCore(v, tools.CoreOptions{Now: func() time.Time { return fixedNow }, Index: idx})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newCoreWithoutIndex is a core over dir with no search index.
func newCoreWithoutIndex(t testing.TB, dir string) *tools.Core {
	t.Helper()
	v, err := vault.Open(dir, vault.Options{StateDir: filepath.Join(t.TempDir(), "state"), NoSync: true, Actor: "test", Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	c, err := tools.NewCore(v, tools.CoreOptions{Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	readOnly  = tools.Caller{Actor: "agent", Perms: tools.Perms{Read: true}}
	readWrite = tools.Caller{Actor: "agent", Perms: tools.Perms{Read: true, Write: true}}
	everyone  = tools.Caller{Actor: "agent", Perms: tools.AllPerms}
)

// renderGolden shows text and structured content side by side.
func renderGolden(call string, r *tools.Result, dir string) string {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(r.Data)
	data := strings.TrimSuffix(buf.String(), "\n")
	s := fmt.Sprintf("call: %s\nisError: %v\n--- text ---\n%s\n--- structured ---\n%s\n", call, r.IsError(), r.Text, data)
	s = strings.ReplaceAll(s, dir, "$VAULT")
	return changeID.ReplaceAllString(s, "$$CHANGE_ID")
}

// changeID matches history ids, which carry the wall clock.
var changeID = regexp.MustCompile(`\d{8}T\d{6}\.\d+Z-[0-9a-f]+`)

func compareGolden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("missing golden file (run go test ./mcpserver -run %s -update): %v", t.Name(), err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file; got:\n%s", file, got)
	}
}
