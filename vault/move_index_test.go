package vault_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// The test, the way a move breaks in real life: A > B > C (each a
// note with its folder of sub-notes), move B under D, then ask for C's
// path, space, backlinks and search hits, and for D's children — through a
// real search index that follows the vault's writes as the server wires it.
// Then move B again (a note moved before), and try to move a folder into
// its own sub-folder.
func TestMove_DescendantsFollowInIndex(t *testing.T) {
	dir := t.TempDir()
	for p, data := range map[string]string{
		"A.md":     "# A\n\n[[B]]\n",
		"A/B.md":   "# B\n\n[[C]]\n",
		"A/B/C.md": "# C\n\nQuokkafutter im Gehege.\n",
		"D.md":     "# D\n",
		"D/Alt.md": "# Alt\n",
		"Links.md": "# Links\n\n[[C]] und [[A/B/C]] und [C](A/B/C.md)\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644)
	}
	v, err := vault.Open(dir, vault.Options{StateDir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	idx, err := index.Open(v, index.Options{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	ctx := context.Background()
	if err := idx.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	// As mcpserver.NewCore wires it: every write updates the index before
	// it returns.
	v.OnChange(func(paths ...string) {
		if err := idx.Update(paths...); err != nil {
			t.Errorf("index update: %v", err)
		}
	})

	move := func(from, to string) *vault.MoveResult {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, from))
		if err != nil {
			t.Fatal(err)
		}
		res, err := v.Move(from, to, vault.WriteOpts{Summary: "umgeräumt", ExpectedVersion: note.Version(b)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	check := func(cPath, space string, children []string) {
		t.Helper()
		n, _, err := v.Find("C")
		if err != nil || n.Path != cPath || n.Space != space || n.Title != "C" {
			t.Errorf("Find(C): got %+v, %v; want path %s, space %s", n, err, cPath, space)
		}
		res, err := idx.Search(ctx, index.Query{Text: "Quokkafutter"})
		if err != nil || len(res.Hits) != 1 || res.Hits[0].Path != cPath || res.Hits[0].Space != space {
			t.Errorf("search: got %+v, %v; want one hit at %s in %s", res, err, cPath, space)
		}
		bl, err := idx.Backlinks(ctx, cPath)
		var from []string
		for _, b := range bl {
			from = append(from, b.Path+" "+b.Raw)
		}
		// B's own [[C]] counts too, under B's path as it is now.
		bPath := filepath.Dir(cPath) + ".md"
		want := bPath + " C; Links.md C; Links.md " + strings.TrimSuffix(cPath, ".md") + "; Links.md " + cPath
		if got := strings.Join(from, "; "); err != nil || got != want {
			t.Errorf("backlinks of %s:\n got %s\nwant %s (%v)", cPath, got, want, err)
		}
		if old, _ := idx.Backlinks(ctx, "A/B/C.md"); cPath != "A/B/C.md" {
			for _, b := range old {
				if !b.Unresolved {
					t.Errorf("a resolved backlink to the old path A/B/C.md is left: %+v", b)
				}
			}
		}
		var got []string
		if err := v.WalkDir(filepath.Dir(filepath.Dir(cPath)), func(e vault.Entry) error {
			got = append(got, e.Path)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		sort.Strings(got)
		if strings.Join(got, ", ") != strings.Join(children, ", ") {
			t.Errorf("children: got %q, want %q", got, children)
		}
	}

	// B has never moved.
	res := move("A/B.md", "D")
	if res.To != "D/B.md" || res.SubNotes != 1 || res.SubFolder != "D/B" {
		t.Fatalf("move: %+v", res)
	}
	check("D/B/C.md", "D", []string{"D/Alt.md", "D/B.md", "D/B/C.md"})
	if b, _ := os.ReadFile(filepath.Join(dir, "Links.md")); string(b) != "# Links\n\n[[C]] und [[D/B/C]] und [C](D/B/C.md)\n" {
		t.Errorf("Links.md: %q", b)
	}
	if hits, _ := idx.Search(ctx, index.Query{Text: "Quokkafutter", Space: "A"}); len(hits.Hits) != 0 {
		t.Errorf("the old space still finds C: %+v", hits.Hits)
	}

	// B has moved before: again, to a new space.
	move("D/B.md", "E/B.md")
	check("E/B/C.md", "E", []string{"E/B.md", "E/B/C.md"})

	// A folder into its own sub-folder: refused, nothing changed.
	_, err = v.Move("E", "E/B/", vault.WriteOpts{Summary: "falsch"})
	if !errors.Is(err, note.ErrInvalid) || !strings.Contains(err.Error(), "cannot move into itself") {
		t.Errorf("folder into its own sub-folder: got %v", err)
	}
	check("E/B/C.md", "E", []string{"E/B.md", "E/B/C.md"})

	// C's history follows it through both moves.
	h, err := v.NoteHistory("E/B/C.md", vault.HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var moves []string
	for _, e := range h.Entries {
		if e.Op == "move" {
			moves = append(moves, e.OldPath+" → "+e.Path)
		}
	}
	if got := strings.Join(moves, "; "); got != "D/B/C.md → E/B/C.md; A/B/C.md → D/B/C.md" {
		t.Errorf("C's moves: %s", got)
	}
}
