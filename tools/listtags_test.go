package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/vault"
)

// list_tags answers from the catalog (the index's name table) what reading
// every note answers: over the example vault and both Obsidian helps, the
// whole list, each tag's subtree and a missing tag read the same from a
// core with the index as from one without, also right after notes were
// changed outside vaultd (a new nested tag, a tag taken away).
func TestListTags_SameAsReadingEveryNote(t *testing.T) {
	eachVaultCopy(t, func(t *testing.T, dir string) {
		indexed, idx := newTestCoreIndex(t, dir)
		v, err := vault.Open(dir, vault.Options{StateDir: filepath.Join(t.TempDir(), "state"), NoSync: true, Actor: "test"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { v.Close() })
		reading, err := NewCore(v, CoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		compare := func(step string) {
			t.Helper()
			all := reading.Invoke(context.Background(), readOnly, "list_tags", ListTagsArgs{Limit: 500})
			if got := indexed.Invoke(context.Background(), readOnly, "list_tags", ListTagsArgs{Limit: 500}); got.Text != all.Text {
				t.Fatalf("%s: list_tags from the catalog:\n%s\nfrom reading every note:\n%s", step, got.Text, all.Text)
			}
			d := all.Data.(ListTagsData)
			asks := []string{"#gibt-es-nicht", "Neu/Unter"}
			for _, e := range d.Tags {
				asks = append(asks, e.Tag)
			}
			for _, tag := range asks {
				want := reading.Invoke(context.Background(), readOnly, "list_tags", ListTagsArgs{Tag: tag, Limit: 500})
				if got := indexed.Invoke(context.Background(), readOnly, "list_tags", ListTagsArgs{Tag: tag, Limit: 500}); got.Text != want.Text {
					t.Errorf("%s: list_tags %q from the catalog:\n%s\nfrom reading every note:\n%s", step, tag, got.Text, want.Text)
				}
			}
			t.Logf("%s: %d tags agree", step, len(d.Tags))
		}
		compare("as copied")
		os.WriteFile(filepath.Join(dir, "Neu mit Tag.md"), []byte("---\ntags: [neu/unter]\n---\n# Neu\n\nText #Neu/Unter/tiefer\n"), 0o644)
		// Every tag taken away from a note that had some.
		for _, n := range mustNotes(t, v) {
			if len(n.Tags) > 0 {
				b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n.Path)))
				s := string(b)
				for _, tag := range n.Tags {
					s = strings.ReplaceAll(s, "#"+tag, tag)
				}
				s = strings.Replace(s, "tags:", "schlagworte:", 1)
				os.WriteFile(filepath.Join(dir, filepath.FromSlash(n.Path)), []byte(s), 0o644)
				break
			}
		}
		// The index follows such changes within a second (its watcher);
		// a rescan is that, without waiting on a clock.
		if err := idx.Rescan(context.Background()); err != nil {
			t.Fatal(err)
		}
		compare("after changes outside vaultd")
	})
}

func mustNotes(t *testing.T, v *vault.Vault) []*vault.Note {
	t.Helper()
	ns, err := v.Notes()
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// eachVaultCopy runs fn as a subtest on a copy of each of the example
// vault and both Obsidian helps (those found: ../shared may be missing).
func eachVaultCopy(t *testing.T, fn func(t *testing.T, dir string)) {
	for _, src := range []string{"../example-vault", "../../shared/corpora/obsidian-help-de", "../../shared/corpora/obsidian-help-en"} {
		if _, err := os.Stat(src); err != nil {
			t.Logf("skipping %s: %v", src, err)
			continue
		}
		t.Run(filepath.Base(src), func(t *testing.T) { fn(t, copyTree(t, src)) })
	}
}
