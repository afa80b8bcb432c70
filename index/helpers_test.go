package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// writeFiles writes files (vault path → content) below dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newVault creates a vault with files in a temp dir; its state dir is a
// separate temp dir.
func newVault(t testing.TB, files map[string]string) (*vault.Vault, string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	v, err := vault.Open(dir, vault.Options{StateDir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, dir
}

// openIndex opens an index on v and waits until it is up to date.
func openIndex(t testing.TB, v *vault.Vault, o Options) *Index {
	t.Helper()
	ix, err := Open(v, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	if err := ix.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return ix
}

func mustSearch(t testing.TB, ix *Index, q Query) *Results {
	t.Helper()
	res, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return res
}

func hitPaths(r *Results) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.Path)
	}
	return out
}

func hitIndex(r *Results, p string) int {
	for i, h := range r.Hits {
		if h.Path == p {
			return i
		}
	}
	return -1
}

// hangCap is how long a test waits for something a correct index does
// before it calls it a hang. Speed is not decided here: a cold or loaded
// machine is slow, not wrong (issue 32), so a wait past what is expected
// only logs how long it took.
const hangCap = 2 * time.Minute

// eventually polls cond until it holds. d is how long it should take: a
// wait past it is logged; only one past hangCap (or d, if longer) fails.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	limit := max(d, hangCap)
	for {
		if cond() {
			if took := time.Since(start); took > d {
				t.Logf("slow machine: %s took %s (expected within %s)", what, took.Round(time.Millisecond), d)
			}
			return
		}
		if time.Since(start) > limit {
			t.Fatalf("gave up after %v waiting for: %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func describe(r *Results) string {
	var b strings.Builder
	for i, h := range r.Hits {
		b.WriteString("\n  ")
		b.WriteString(string(rune('1' + i)))
		b.WriteString(". ")
		b.WriteString(h.Path)
		b.WriteString(" [")
		b.WriteString(h.Heading)
		b.WriteString("] ")
		b.WriteString(h.Snippet)
	}
	return b.String()
}

func vaultVersion(b []byte) string { return note.Version(b) }
