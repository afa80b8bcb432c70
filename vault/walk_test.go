package vault

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

// walkPaths returns what WalkDir(dir) lists.
func walkPaths(t *testing.T, v *Vault, dir string) []string {
	t.Helper()
	var got []string
	if err := v.WalkDir(dir, func(e Entry) error {
		got = append(got, e.Path)
		return nil
	}); err != nil {
		t.Fatalf("WalkDir(%q): %v", dir, err)
	}
	return got
}

// TestWalk_ManyFoldersInOrder: folders read ahead in chunks (more than
// chunkFolders·chunksAhead siblings, nested) are listed exactly once each,
// in lexical order, with their sizes; hidden names and the state dir are
// left out.
func TestWalk_ManyFoldersInOrder(t *testing.T) {
	dir := t.TempDir()
	var want []string
	write := func(p, text string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, top := range []string{"a", "b"} {
		for i := range 3*chunkFolders*chunksAhead + 5 {
			p := fmt.Sprintf("%s/law%03d/index.md", top, i)
			write(p, p)
			want = append(want, p)
			if i%7 == 0 {
				q := fmt.Sprintf("%s/law%03d/Anlagen/plan.pdf", top, i)
				write(q, q)
				want = append(want, q)
			}
		}
	}
	write("a/.obsidian/x.md", "hidden")
	write("a/law001/.draft.md", "hidden")
	write("top.md", "top")
	want = append(want, "top.md")
	slices.Sort(want)

	state := filepath.Join(dir, "b", "law002", "state")
	v, err := Open(dir, Options{StateDir: state, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	write("b/law002/state/inside.md", "the state dir")

	var got []string
	var sizes int
	if err := v.Walk(func(e Entry) error {
		got = append(got, e.Path)
		if e.Size != int64(len(e.Path)) && e.Path != "top.md" {
			t.Errorf("%s: size %d, want %d", e.Path, e.Size, len(e.Path))
		}
		sizes++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Walk listed %d entries, want %d; first difference:\n got %v\nwant %v", len(got), len(want), firstDiff(got, want), firstDiff(want, got))
	}
	if sub := walkPaths(t, v, "a/law007"); !slices.Equal(sub, []string{"a/law007/Anlagen/plan.pdf", "a/law007/index.md"}) {
		t.Errorf("WalkDir(a/law007) = %v", sub)
	}
	if one := walkPaths(t, v, "a/law007/index.md"); !slices.Equal(one, []string{"a/law007/index.md"}) {
		t.Errorf("WalkDir on a note = %v, want the note itself", one)
	}
	err = v.WalkDir("nowhere", func(Entry) error { return nil })
	if e, ok := note.AsError(err); !ok || e.Kind != note.ErrNotFound {
		t.Errorf("WalkDir(nowhere) = %v, want not found", err)
	}
}

func firstDiff(a, b []string) []string {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return a[i:min(len(a), i+3)]
		}
	}
	return nil
}

// TestWalk_Skip: fs.SkipDir from fn skips the rest of the note's folder,
// fs.SkipAll ends the walk without an error, another error is returned.
func TestWalk_Skip(t *testing.T) {
	v := writeLinkVault(t, `
-- a/1.md --
-- a/2.md --
-- a/3.md --
-- b/1.md --
`)
	var got []string
	if err := v.Walk(func(e Entry) error {
		got = append(got, e.Path)
		if e.Path == "a/1.md" {
			return fs.SkipDir
		}
		return nil
	}); err != nil || !slices.Equal(got, []string{"a/1.md", "b/1.md"}) {
		t.Errorf("SkipDir: %v, %v", got, err)
	}
	got = nil
	if err := v.Walk(func(e Entry) error {
		got = append(got, e.Path)
		return fs.SkipAll
	}); err != nil || !slices.Equal(got, []string{"a/1.md"}) {
		t.Errorf("SkipAll: %v, %v", got, err)
	}
	stop := fmt.Errorf("stop")
	if err := v.Walk(func(e Entry) error { return stop }); err != stop {
		t.Errorf("an error from fn: got %v", err)
	}
}

// TestWalk_FolderSwappedForLink: a folder replaced by a link into a hidden
// folder between its parent's listing and its own read is skipped, not
// followed (the link stays inside the parent, where a Root would follow
// it).
func TestWalk_FolderSwappedForLink(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"A/x/n.md", "A/.hidden/secret.md", "A/y.md"} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("text"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v := openLinkVault(t, dir)
	testHookWalkListed = func(rel string) {
		if rel != "A" {
			return
		}
		if err := os.RemoveAll(filepath.Join(dir, "A", "x")); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(".hidden", filepath.Join(dir, "A", "x")); err != nil {
			t.Error(err)
		}
	}
	defer func() { testHookWalkListed = nil }()
	got := walkPaths(t, v, "")
	for _, p := range got {
		if strings.Contains(p, "secret") || strings.HasPrefix(p, "A/x/") {
			t.Errorf("Walk followed the swapped link: listed %s", p)
		}
	}
	if !slices.Contains(got, "A/y.md") {
		t.Errorf("Walk = %v, want A/y.md still listed", got)
	}
}
