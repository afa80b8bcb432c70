package trial

import (
	"context"
	"flag"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from what the tests produce")

// fixedNow is the clock of every test core, so that answers that show
// dates read the same on every run.
var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// copyExampleVault copies the repository's example-vault into a temp dir
// (the repository's copy is never written) with fixed modification times.
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
			if d.Name() == ".vaultd" || d.Name() == ".trash" {
				return filepath.SkipDir // leftovers of a manual run
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

// newCore opens a core over a fresh copy of example-vault with its index
// built.
func newCore(t testing.TB) *tools.Core {
	t.Helper()
	dir := copyExampleVault(t)
	v, err := vault.Open(dir, vault.Options{StateDir: filepath.Join(t.TempDir(), "state"), NoSync: true, Actor: "test", Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	idx, err := index.Open(v, index.Options{Dir: filepath.Join(t.TempDir(), "index"), Logger: slog.New(slog.DiscardHandler)})
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

// readOnly is the connection a trial runs with by default.
func readOnly() *tools.Connection {
	return tools.NewConnection("trial", tools.Perms{Read: true}, tools.Limits{})
}

// exampleQuestions are the questions of testdata/example-vault.yaml.
func exampleQuestions(t testing.TB) []Question {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "example-vault.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := ParseQuestions(b)
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

// compareGolden compares got with the golden file, or rewrites it with
// -update.
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
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from what the test produced (run go test -update and review the diff):\n%s", file, firstDiff(string(want), got))
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + itoa(i+1) + ":\n got " + g + "\nwant " + w
		}
	}
	return "(lengths differ)"
}

func itoa(n int) string { return groupDigits(n) }
