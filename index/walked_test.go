package index

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vaultd/vaultd/vault"
)

// TestWalkedFiles_AsAWalkFindsThem: the files other than notes that the
// index's walk keeps are exactly those a walk of the vault finds, on the
// example vault and the Obsidian help vault; a file written and one
// removed afterwards are in the journal after the walk's mark.
func TestWalkedFiles_AsAWalkFindsThem(t *testing.T) {
	_, help := copyCorpus(t, "obsidian-help-en")
	for _, dir := range []string{filepath.Join("..", "example-vault"), help} {
		v, err := vault.Open(dir, vault.Options{StateDir: t.TempDir(), NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		if err := v.Walk(func(e vault.Entry) error {
			if !e.Note {
				want = append(want, e.Path)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		ix := openIndex(t, v, Options{})
		got, _, ok := ix.WalkedFiles()
		if !ok || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: the index's walk kept %d files (ok %v), a walk finds %d:\n%v\n%v", dir, len(got), ok, len(want), got, want)
		}
		if len(want) == 0 {
			t.Errorf("%s: no files besides notes to compare", dir)
		}
		ix.Close()
		v.Close()
	}

	_, dir := copyCorpus(t, "obsidian-help-de")
	v, err := vault.Open(dir, vault.Options{StateDir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ix := openIndex(t, v, Options{})
	files, mark, ok := ix.WalkedFiles()
	if !ok || len(files) == 0 {
		t.Fatalf("walked: %v %v", files, ok)
	}
	if err := os.WriteFile(filepath.Join(dir, "Neu.base"), []byte("views:\n  - type: table\n    name: Alle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(files[0]))); err != nil {
		t.Fatal(err)
	}
	if err := ix.Update("Neu.base", files[0]); err != nil {
		t.Fatal(err)
	}
	ch, _ := ix.Changes(mark)
	if ch.Lost || !slices.Contains(ch.Paths, "Neu.base") || !slices.Contains(ch.Paths, files[0]) {
		t.Errorf("changes after the walk's mark: %+v", ch)
	}
	if again, _, _ := ix.WalkedFiles(); fmt.Sprint(again) != fmt.Sprint(files) {
		t.Errorf("the walk's files changed without a walk: %v", again)
	}
}
