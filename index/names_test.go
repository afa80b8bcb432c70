package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vaultd/vaultd/vault"
)

// lookupPath finds ref through the vault with the index as its name
// source and returns the path found ("" on an error).
func lookupPath(t *testing.T, v *vault.Vault, ref string) string {
	t.Helper()
	n, _, err := v.Find(ref)
	if err != nil {
		return ""
	}
	return n.Path
}

// waitName waits until the index's own table answers ref with want (""
// for a miss) — the table, not Find's walk behind it.
func waitName(t *testing.T, ix *Index, ref, want string) {
	t.Helper()
	deadline := time.Now().Add(hangCap)
	var m vault.NameMatch
	var ok bool
	for time.Now().Before(deadline) {
		m, ok = ix.LookupName(ref, false)
		got := ""
		if ok && len(m.Paths) == 1 {
			got = m.Paths[0]
		}
		if ok && got == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("LookupName(%q) = %+v (ready %v), want %q", ref, m, ok, want)
}

func TestNames_FolderNotesTitlesAliases(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"b/bgb/index.md":        "---\nTitle: Bürgerliches Gesetzbuch\njurabk: BGB\n---\n\n# Bürgerliches Gesetzbuch (BGB)\n\n## § 1 Beginn der Rechtsfähigkeit\n",
		"Projekt/Projekt.md":    "# Projektübersicht\n",
		"docs/README.md":        "Kein Titel.\n",
		"notes/Alpha.md":        "---\naliases: [Erster]\n---\n# Alpha Plan\n",
		"common/git-commit.md":  "# git commit\n",
		"linux/cd.md":           "# cd\n",
		"common/cd.md":          "# cd\n",
		"attachments/image.png": "png",
	})
	ix := openIndex(t, v, Options{Watch: true})
	v.SetNames(ix)
	for ref, want := range map[string]string{
		"bgb":                            "b/bgb/index.md", // the folder's name
		"b/bgb":                          "b/bgb/index.md", // the folder's path
		"BGB":                            "b/bgb/index.md",
		"bürgerliches gesetzbuch":        "b/bgb/index.md", // frontmatter Title
		"Bürgerliches Gesetzbuch (BGB)":  "b/bgb/index.md", // the H1 beside it
		"[[bgb#§ 1]]":                    "b/bgb/index.md",
		"Projekt":                        "Projekt/Projekt.md",
		"Projektübersicht":               "Projekt/Projekt.md",
		"docs":                           "docs/README.md",
		"Erster":                         "notes/Alpha.md",
		"alpha plan":                     "notes/Alpha.md",
		"git commit":                     "common/git-commit.md",
		"common/git-commit.md":           "common/git-commit.md",
		"COMMON/Git-Commit":              "common/git-commit.md", // the stored spelling
		"cd":                             "",                     // two notes: ambiguous
		"nirgends":                       "",
		"attachments/image.png":          "", // an attachment is no note
		"notes/Erster":                   "", // a path is taken at its word
		"Bürgerliches Gesetzbuch (BGB)x": "",
	} {
		if got := lookupPath(t, v, ref); got != want {
			t.Errorf("Find(%q) = %q, want %q", ref, got, want)
		}
	}
	m, ok := ix.LookupName("cd", false)
	if !ok || m.What != "file name" || len(m.Paths) != 2 {
		t.Errorf("LookupName(cd) = %+v, %v; want both cd notes by file name", m, ok)
	}
	m, _ = ix.LookupName("x/bgbb/index.md", false)
	if len(m.Closest) == 0 || m.Closest[0] != "b/bgb/index.md" {
		t.Errorf("closest to x/bgbb/index.md = %q, want b/bgb/index.md first (folder names, not the alphabet)", m.Closest)
	}
}

func TestNames_ExternalRenameAndCheckout(t *testing.T) {
	defer func(w time.Duration) { vault.NameCatchUpWait = w }(vault.NameCatchUpWait)
	vault.NameCatchUpWait = time.Minute // a loaded machine is slow to catch up, not wrong
	v, dir := newVault(t, map[string]string{
		"a/Alpha.md":       "# Alpha\n",
		"g/kschg/index.md": "---\ntitle: Kündigungsschutzgesetz\n---\n# Kündigungsschutzgesetz\n",
	})
	ix := openIndex(t, v, Options{Watch: true, Quiet: 20 * time.Millisecond})
	v.SetNames(ix)
	waitName(t, ix, "Kündigungsschutzgesetz", "g/kschg/index.md")

	// An external rename of the folder (as git mv or a file manager does).
	if err := os.Rename(filepath.Join(dir, "g", "kschg"), filepath.Join(dir, "g", "ksg")); err != nil {
		t.Fatal(err)
	}
	// Find is right at once: the table's answer is checked against the disk.
	if got := lookupPath(t, v, "Kündigungsschutzgesetz"); got != "g/ksg/index.md" {
		t.Errorf("right after the rename: Find = %q, want g/ksg/index.md", got)
	}
	waitName(t, ix, "Kündigungsschutzgesetz", "g/ksg/index.md")
	waitName(t, ix, "ksg", "g/ksg/index.md")
	waitName(t, ix, "kschg", "")

	// A checkout that rewrites a title and adds notes in one go.
	writeFiles(t, dir, map[string]string{
		"a/Alpha.md": "---\ntitle: Alpha Neu\n---\n# Alpha\n",
		"b/Beta.md":  "# Beta Titel\n",
	})
	waitName(t, ix, "Alpha Neu", "a/Alpha.md")
	waitName(t, ix, "Beta Titel", "b/Beta.md")
	// The H1 is still a name of the note beside its new title.
	waitName(t, ix, "Alpha", "a/Alpha.md")
}

func TestNames_NotReadyWalks(t *testing.T) {
	v, _ := newVault(t, map[string]string{"a/Alpha.md": "---\ntitle: Erster Plan\n---\n"})
	// An index that never finished its first comparison vouches for nothing.
	hold := make(chan struct{})
	testHookCommit = func() { <-hold }
	defer func() { testHookCommit = nil }()
	ix, err := Open(v, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { close(hold); ix.Close() }()
	if _, ok := ix.LookupName("Erster Plan", false); ok {
		t.Fatal("LookupName answered before the index was ready")
	}
	v.SetNames(ix)
	if got := lookupPath(t, v, "Erster Plan"); got != "a/Alpha.md" {
		t.Errorf("Find before the index is ready = %q, want a/Alpha.md (from the walk)", got)
	}
}

func TestNames_SharedClientAsksOwner(t *testing.T) {
	v, _ := newVault(t, map[string]string{"b/bgb/index.md": "---\nTitle: Bürgerliches Gesetzbuch\n---\n"})
	state := t.TempDir()
	owner, err := OpenShared(v, Options{Dir: state, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	client, err := OpenShared(v, Options{Dir: state, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if client.Owner() {
		t.Fatal("the second handle owns the index")
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	if err := client.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	m, ok := client.LookupName("Bürgerliches Gesetzbuch", false)
	if !ok || m.What != "title" || len(m.Paths) != 1 || m.Paths[0] != "b/bgb/index.md" {
		t.Errorf("client LookupName = %+v, %v; want b/bgb/index.md by title", m, ok)
	}
}

// TestNames_RestartAnswersFromSavedTable: after a restart the saved table
// answers at once, before the comparison with the files ends: a note that
// still bears the name is found without waiting, and a name the saved
// table does not know waits for the comparison instead of failing or
// walking the vault.
func TestNames_RestartAnswersFromSavedTable(t *testing.T) {
	defer func(w time.Duration) { vault.NameCatchUpWait = w }(vault.NameCatchUpWait)
	vault.NameCatchUpWait = time.Minute // a loaded machine is slow to catch up, not wrong
	v, dir := newVault(t, map[string]string{
		"a/Alpha.md": "---\ntitle: Projekt Alpha\n---\n# Alpha\n",
		"b/Beta.md":  "---\ntitle: Alter Titel\n---\n",
	})
	state := t.TempDir()
	ix := openIndex(t, v, Options{Dir: state})
	ix.Close()
	// Changed while no vaultd ran.
	writeFiles(t, dir, map[string]string{
		"c/Neu.md":  "---\ntitle: Neuer Plan\n---\n",
		"b/Beta.md": "---\ntitle: Neuer Titel\n---\n",
	})
	hold := make(chan struct{})
	testHookCommit = func() { <-hold }
	defer func() { testHookCommit = nil }()
	ix, err := Open(v, Options{Dir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	released := false
	defer func() {
		if !released {
			close(hold)
		}
	}()
	m, ok := ix.LookupName("Projekt Alpha", false)
	if !ok || !m.Behind || len(m.Paths) != 1 || m.Paths[0] != "a/Alpha.md" {
		t.Fatalf("LookupName before the catch-up = %+v, %v; want a/Alpha.md from the saved table, behind", m, ok)
	}
	v.SetNames(ix)
	if got := lookupPath(t, v, "Projekt Alpha"); got != "a/Alpha.md" {
		t.Errorf("Find before the catch-up = %q, want a/Alpha.md", got)
	}
	// The new note is found once the catch-up ends, which Find waits for.
	time.AfterFunc(100*time.Millisecond, func() { close(hold) })
	released = true
	if got := lookupPath(t, v, "Neuer Plan"); got != "c/Neu.md" {
		t.Errorf("Find of a note added while no vaultd ran = %q, want c/Neu.md", got)
	}
	if got := lookupPath(t, v, "Alter Titel"); got != "" {
		t.Errorf("Find of a title changed while no vaultd ran = %q, want none", got)
	}
	if got := lookupPath(t, v, "Neuer Titel"); got != "b/Beta.md" {
		t.Errorf("Find(Neuer Titel) = %q, want b/Beta.md", got)
	}
}

// TestOpenNames_SavedTableThenCatchUp: a process without the index (vaultd
// read on the command line) looks names up in the manifest the index saved:
// a note that still bears the name is read without a walk; a name the saved
// table lacks makes it compare the files once, reading only what changed.
func TestOpenNames_SavedTableThenCatchUp(t *testing.T) {
	v, dir := newVault(t, map[string]string{
		"a/Alpha.md":       "---\ntitle: Projekt Alpha\ntags: [projekt]\n---\n# Alpha\n",
		"b/Beta.md":        "---\ntitle: Alter Titel\n---\n",
		"x/bild.png":       "png",
		"k/kschg/index.md": "---\ntitle: Kündigungsschutzgesetz\n---\n",
	})
	state := t.TempDir()
	ix := openIndex(t, v, Options{Dir: state})
	ix.Close()
	writeFiles(t, dir, map[string]string{
		"c/Neu.md":  "---\ntitle: Neuer Plan\n---\n",
		"b/Beta.md": "---\ntitle: Neuer Titel\n---\n",
	})
	names := OpenNames(v, Options{Dir: state})
	defer names.Close()
	v.SetNames(names)
	if got := lookupPath(t, v, "Projekt Alpha"); got != "a/Alpha.md" {
		t.Errorf("Find(Projekt Alpha) = %q, want a/Alpha.md", got)
	}
	if got := lookupPath(t, v, "kschg"); got != "k/kschg/index.md" {
		t.Errorf("Find(kschg) = %q, want the folder note", got)
	}
	if names.current {
		t.Errorf("a name the saved table holds made Names compare the files")
	}
	if got := lookupPath(t, v, "Neuer Plan"); got != "c/Neu.md" {
		t.Errorf("Find(Neuer Plan) = %q, want c/Neu.md after the comparison", got)
	}
	if !names.current {
		t.Errorf("a miss did not make Names compare the files")
	}
	if got := lookupPath(t, v, "Alter Titel"); got != "" {
		t.Errorf("Find(Alter Titel) = %q, want none", got)
	}
	entries, behind := names.Catalog()
	byPath := map[string]vault.NameEntry{}
	for _, e := range entries {
		byPath[e.Path] = e
	}
	if behind || byPath["c/Neu.md"].Title != "Neuer Plan" || !byPath["x/bild.png"].Attachment ||
		len(byPath["a/Alpha.md"].Tags) != 1 || byPath["a/Alpha.md"].Version == "" {
		t.Errorf("Catalog = %+v (behind %v)", entries, behind)
	}
	// Nothing was written to the state dir by Names.
	if fi, err := os.Stat(filepath.Join(state, manifestName)); err != nil || fi.ModTime().After(time.Now()) {
		t.Fatal(err)
	}
}

// TestOpenNames_AsksTheOwner: while a vaultd process keeps the index,
// Names asks it, and its answers are current.
func TestOpenNames_AsksTheOwner(t *testing.T) {
	defer func(w time.Duration) { vault.NameCatchUpWait = w }(vault.NameCatchUpWait)
	vault.NameCatchUpWait = time.Minute // a loaded machine is slow to catch up, not wrong
	v, dir := newVault(t, map[string]string{"b/bgb/index.md": "---\nTitle: Bürgerliches Gesetzbuch\n---\n"})
	state := t.TempDir()
	owner, err := OpenShared(v, Options{Dir: state, Watch: true, Quiet: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	if err := owner.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	names := OpenNames(v, Options{Dir: state})
	defer names.Close()
	m, ok := names.LookupName("Bürgerliches Gesetzbuch", false)
	if !ok || len(m.Paths) != 1 || m.Paths[0] != "b/bgb/index.md" || names.client == nil {
		t.Fatalf("LookupName = %+v, %v (asked the owner: %v)", m, ok, names.client != nil)
	}
	writeFiles(t, dir, map[string]string{"n/neu.md": "# Ganz neu\n"})
	v.SetNames(names)
	if got := lookupPath(t, v, "Ganz neu"); got != "n/neu.md" {
		t.Errorf("Find of a note the owner's watcher takes in = %q, want n/neu.md", got)
	}
	tab, _ := names.Names()
	if tab == nil || tab.Len() != 2 {
		t.Errorf("Names from the owner = %v", tab)
	}
}

// TestOpen_TakesOverTheSavedTable: an index opening with the manifest a
// Names read takes that table over; when the files changed meanwhile, the
// catch-up's changes are in the table it answers from.
func TestOpen_TakesOverTheSavedTable(t *testing.T) {
	v, dir := newVault(t, map[string]string{
		"a/Alpha.md":       "---\ntitle: Projekt Alpha\n---\n",
		"k/kschg/index.md": "---\ntitle: Kündigungsschutzgesetz\n---\n",
	})
	state := t.TempDir()
	openIndex(t, v, Options{Dir: state}).Close()

	names := OpenNames(v, Options{Dir: state})
	defer names.Close()
	names.Prepare()
	saved, _ := names.Names()
	ix := openIndex(t, v, Options{Dir: state, Names: names})
	if got := ix.nameTable(); got != saved {
		t.Errorf("the index made a table of its own from the manifest Names read")
	}
	if m, ok := ix.LookupName("Projekt Alpha", false); !ok || len(m.Paths) != 1 || m.Paths[0] != "a/Alpha.md" {
		t.Errorf("LookupName(Projekt Alpha) = %+v, %v", m, ok)
	}
	ix.Close()

	// A change while no index is open: the next index finds it and
	// answers from a table that holds it.
	names2 := OpenNames(v, Options{Dir: state})
	defer names2.Close()
	names2.Prepare()
	writeFiles(t, dir, map[string]string{"a/Alpha.md": "---\ntitle: Projekt Beta\n---\n"})
	ix = openIndex(t, v, Options{Dir: state, Names: names2})
	if m, ok := ix.LookupName("Projekt Beta", false); !ok || len(m.Paths) != 1 || m.Paths[0] != "a/Alpha.md" {
		t.Errorf("after a change: LookupName(Projekt Beta) = %+v, %v", m, ok)
	}
	if m, _ := ix.LookupName("Projekt Alpha", false); len(m.Paths) != 0 {
		t.Errorf("after a change: the old title still names %v", m.Paths)
	}

	// A Names that read another manifest file is not taken over.
	ix.Close()
	ix = openIndex(t, v, Options{Dir: state, Names: names})
	if ix.nameTable() == saved {
		t.Errorf("the index took over a table read from an older manifest")
	}
}
