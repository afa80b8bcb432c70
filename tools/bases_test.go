package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBases_FollowsChanges: a view answers from the vault as it is now —
// after a property set through vaultd, a note created, a note edited by
// another program (the index told), and a note deleted — while the set
// between changes is reused.
func TestBases_FollowsChanges(t *testing.T) {
	dir := copyExampleVault(t)
	c := newTestCore(t, dir)
	ctx := context.Background()
	unread := func() []string {
		t.Helper()
		r := c.Call(ctx, everyone, "query_base", map[string]any{"base": "Leseliste", "view": "Noch nicht gelesen"})
		if r.IsError() {
			t.Fatal(r.Text)
		}
		var out []string
		for _, row := range r.Data.(BaseViewData).Rows {
			out = append(out, strings.TrimPrefix(row.Path, "3_Ressourcen/Bücher/"))
		}
		return out
	}
	check := func(step, want string) {
		t.Helper()
		if got := strings.Join(unread(), " | "); got != want {
			t.Errorf("%s: unread %q, want %q", step, got, want)
		}
	}
	check("at first", "Das Zettelkasten-Prinzip.md | Mittagsstunde.md | Über Menschen.md | Schnelles Denken, langsames Denken.md")
	set1, _ := c.baseSet(false)
	check("again", "Das Zettelkasten-Prinzip.md | Mittagsstunde.md | Über Menschen.md | Schnelles Denken, langsames Denken.md")
	if set2, _ := c.baseSet(false); set2 != set1 {
		t.Errorf("nothing changed, yet the set was built anew")
	}

	r := c.Call(ctx, everyone, "set_properties", map[string]any{"path": "3_Ressourcen/Bücher/Mittagsstunde.md", "properties": map[string]any{"gelesen": "2026-12-01"}, "change_summary": "gelesen"})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	check("after set_properties", "Das Zettelkasten-Prinzip.md | Über Menschen.md | Schnelles Denken, langsames Denken.md")

	r = c.Call(ctx, everyone, "create_note", map[string]any{"path": "3_Ressourcen/Bücher/Momo.md", "content": "---\ntags: [buch]\nautor: Michael Ende\nseiten: 100\n---\n# Momo\n", "change_summary": "neues Buch"})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	check("after create_note", "Das Zettelkasten-Prinzip.md | Momo.md | Über Menschen.md | Schnelles Denken, langsames Denken.md")

	// Another program edits a note; the index hears of it (the watcher
	// would tell it the same way).
	p := filepath.Join(dir, "3_Ressourcen", "Bücher", "Über Menschen.md")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), "seiten: 416", "seiten: 416\ngelesen: 2026-12-02", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.index().Update("3_Ressourcen/Bücher/Über Menschen.md"); err != nil {
		t.Fatal(err)
	}
	check("after an outside edit", "Das Zettelkasten-Prinzip.md | Momo.md | Schnelles Denken, langsames Denken.md")

	r = c.Call(ctx, everyone, "delete_note", map[string]any{"path": "3_Ressourcen/Bücher/Momo.md", "change_summary": "doch nicht", "expected_version": r.Data.(WriteData).Note.Version})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	check("after delete_note", "Das Zettelkasten-Prinzip.md | Schnelles Denken, langsames Denken.md")

	// The base file itself edited: the view's rows are not reused.
	bp := filepath.Join(dir, "3_Ressourcen", "Leseliste.base")
	bb, _ := os.ReadFile(bp)
	if err := os.WriteFile(bp, []byte(strings.Replace(string(bb), "    filters: '!gelesen'", "    filters: '!gelesen && seiten > 300'", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	check("after the base was edited", "Schnelles Denken, langsames Denken.md")
	if err := os.WriteFile(bp, bb, 0o644); err != nil {
		t.Fatal(err)
	}

	// Backlinks follow a link added to a note.
	r = c.Call(ctx, everyone, "query_notes", map[string]any{"filter": `file.name == "Deep Work.md"`, "properties": "file.backlinks"})
	before := r.Text
	if r := c.Call(ctx, everyone, "append_to_note", map[string]any{"path": "2_Bereiche/Jahresplanung.md", "content": "- Lesen: [[Deep Work]]", "change_summary": "Buch"}); r.IsError() {
		t.Fatal(r.Text)
	}
	r = c.Call(ctx, everyone, "query_notes", map[string]any{"filter": `file.name == "Deep Work.md"`, "properties": "file.backlinks"})
	if strings.Contains(before, "[[Jahresplanung]]") || !strings.Contains(r.Text, "[[Jahresplanung]]") {
		t.Errorf("backlinks before the append:\n%s\nafter:\n%s", before, r.Text)
	}
}

// TestBases_List: the vault's bases are its .base files and the notes
// holding ```base blocks; a block written into a note (through vaultd)
// or undone is seen at the next call.
func TestBases_List(t *testing.T) {
	dir := copyExampleVault(t)
	c := newTestCore(t, dir)
	ctx := context.Background()
	list := func() string {
		t.Helper()
		files, notes, err := c.Bases()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(files, ", ") + " | " + strings.Join(notes, ", ")
	}
	if got, want := list(), "1_Projekte/Projekte.base, 3_Ressourcen/Leseliste.base | "; got != want {
		t.Errorf("at first: %q, want %q", got, want)
	}
	const p = "0_Inbox/Buchtipps.md"
	r := c.Call(ctx, everyone, "append_to_note", map[string]any{"path": p, "content": "```base\nviews:\n  - type: table\n    name: Alle\n```", "change_summary": "eine Ansicht"})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	if got, want := list(), "1_Projekte/Projekte.base, 3_Ressourcen/Leseliste.base | "+p; got != want {
		t.Errorf("after a block was added: %q, want %q", got, want)
	}
	r = c.Undo(ctx, everyone, UndoArgs{Change: r.Data.(WriteData).ChangeID})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	if got, want := list(), "1_Projekte/Projekte.base, 3_Ressourcen/Leseliste.base | "; got != want {
		t.Errorf("after the block was undone: %q, want %q", got, want)
	}
}

// TestBases_SearchFindsBasesAddedLater: a search shows the views of the
// bases the query names — those the index's walk found at the start
// (index.WalkedFiles, no walk of its own), one another program writes
// later, and not one it removed.
func TestBases_SearchFindsBasesAddedLater(t *testing.T) {
	dir := copyExampleVault(t)
	c := newTestCore(t, dir)
	ctx := context.Background()
	if w, ok := c.walkedFiles(); !ok || !slices.Contains(w.files, "3_Ressourcen/Leseliste.base") {
		t.Fatalf("the index's walk: %v, %v", w.files, ok)
	}
	views := func(q string) string {
		t.Helper()
		r := c.Call(ctx, everyone, "search_notes", map[string]any{"query": q})
		if r.IsError() {
			t.Fatal(r.Text)
		}
		var out []string
		for _, l := range strings.Split(r.Text, "\n") {
			if strings.HasPrefix(l, "saved view: ") {
				out = append(out, l[len("saved view: "):strings.Index(l, " (")])
			}
		}
		return strings.Join(out, " | ")
	}
	if got, want := views("Leseliste Bücher"), `"Noch nicht gelesen" of 3_Ressourcen/Leseliste.base | "Gelesen" of 3_Ressourcen/Leseliste.base`; got != want {
		t.Errorf("at first: %q, want %q", got, want)
	}
	if got := views("Filmliste Bücher"); got != "" {
		t.Errorf("before the base exists: %q", got)
	}
	p := filepath.Join(dir, "3_Ressourcen", "Filmliste.base")
	base := "filters:\n  and:\n    - file.hasTag(\"buch\")\nviews:\n  - type: table\n    name: Alle Filme\n"
	if err := os.WriteFile(p, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	// The watcher would tell the index the same way.
	if err := c.index().Update("3_Ressourcen/Filmliste.base"); err != nil {
		t.Fatal(err)
	}
	if got, want := views("Filmliste Bücher"), `"Alle Filme" of 3_Ressourcen/Filmliste.base`; got != want {
		t.Errorf("after another program wrote it: %q, want %q", got, want)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := c.index().Update("3_Ressourcen/Filmliste.base"); err != nil {
		t.Fatal(err)
	}
	if got := views("Filmliste Bücher"); got != "" {
		t.Errorf("after it was removed: %q", got)
	}
}
