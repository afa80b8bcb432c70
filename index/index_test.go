package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

var linkVault = map[string]string{
	"Ziel.md": `---
aliases: [Zielnotiz]
---
# Ziel

## Abschnitt Eins

Text.
`,
	"a/Quelle.md": `# Quelle

Siehe [[Ziel]] für mehr.
Und der Abschnitt: [[Ziel#Abschnitt Eins|dort]].
`,
	"b/Per Alias.md": `# Per Alias

Über den Alias: [[Zielnotiz]].
`,
	"b/Markdown.md": `# Markdown

Ein [normaler Link](../Ziel.md) und ein Bild ![[bild.png]].
`,
	"b/Fehlt.md": `# Fehlt

Noch nicht da: [[Neue Notiz]] und [[Neue Notiz#Kapitel]].
`,
	"bild.png": "PNG",
}

func TestBacklinks(t *testing.T) {
	v, dir := newVault(t, linkVault)
	ix := openIndex(t, v, Options{})
	bl, err := ix.Backlinks(t.Context(), "Ziel.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range bl {
		got = append(got, fmt.Sprintf("%s:%d %s#%s %q", b.Path, b.Line, b.Raw, b.Fragment, b.Context))
	}
	want := []string{
		`a/Quelle.md:3 Ziel# "Siehe [[Ziel]] für mehr."`,
		`a/Quelle.md:4 Ziel#Abschnitt Eins "Und der Abschnitt: [[Ziel#Abschnitt Eins|dort]]."`,
		`b/Markdown.md:3 ../Ziel.md# "Ein [normaler Link](../Ziel.md) und ein Bild ![[bild.png]]."`,
		`b/Per Alias.md:3 Zielnotiz# "Über den Alias: [[Zielnotiz]]."`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("backlinks of Ziel.md:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(bl) > 0 && (bl[0].Title != "Quelle" || bl[0].Version == "" || bl[0].Space != "a") {
		t.Errorf("backlink note fields: %+v", bl[0])
	}

	// Attachments have backlinks too.
	bl, _ = ix.Backlinks(t.Context(), "bild.png")
	if len(bl) != 1 || bl[0].Path != "b/Markdown.md" || !bl[0].Embed {
		t.Errorf("backlinks of bild.png = %+v", bl)
	}

	// A missing note: its unresolved links are listed ...
	bl, _ = ix.Backlinks(t.Context(), "Neue Notiz.md")
	if len(bl) != 2 || !bl[0].Unresolved || bl[0].Path != "b/Fehlt.md" {
		t.Errorf("backlinks of the missing note = %+v", bl)
	}
	// ... and resolve once it is created.
	writeFiles(t, dir, map[string]string{"c/Neue Notiz.md": "# Neue Notiz\n\n## Kapitel\n"})
	if err := ix.Update("c/Neue Notiz.md"); err != nil {
		t.Fatal(err)
	}
	bl, _ = ix.Backlinks(t.Context(), "c/Neue Notiz.md")
	if len(bl) != 2 || bl[0].Unresolved || bl[1].Fragment != "Kapitel" {
		t.Errorf("backlinks after creating the note = %+v", bl)
	}
	// Deleting the target makes the links unresolved again.
	if err := os.Remove(filepath.Join(dir, "c", "Neue Notiz.md")); err != nil {
		t.Fatal(err)
	}
	if err := ix.Update("c/Neue Notiz.md"); err != nil {
		t.Fatal(err)
	}
	if bl, _ = ix.Backlinks(t.Context(), "c/Neue Notiz.md"); len(bl) != 0 {
		// The path is gone; its name is still linked, unresolved.
		for _, b := range bl {
			if !b.Unresolved {
				t.Errorf("after deleting the target, link still resolves: %+v", b)
			}
		}
	}
	// Renaming an alias away unlinks the alias link.
	writeFiles(t, dir, map[string]string{"Ziel.md": "# Ziel\n\n## Abschnitt Eins\n"})
	if err := ix.Update("Ziel.md"); err != nil {
		t.Fatal(err)
	}
	bl, _ = ix.Backlinks(t.Context(), "Ziel.md")
	for _, b := range bl {
		if b.Path == "b/Per Alias.md" {
			t.Errorf("alias link still resolves after the alias was removed: %+v", b)
		}
	}
}

func TestOpen_Busy(t *testing.T) {
	v, _ := newVault(t, engineVault)
	ix := openIndex(t, v, Options{})
	_ = ix
	start := time.Now()
	_, err := Open(v, Options{})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("second Open: err = %v, want ErrBusy", err)
	}
	if d := time.Since(start); d > 20*time.Second { // a hang on the lock would be forever; a loaded machine is only slow
		t.Errorf("second Open took %v; it must not hang on the lock", d)
	}
	want := fmt.Sprintf("in use by another vaultd process (pid %d)", os.Getpid())
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if strings.Contains(err.Error(), v.StateDir()) {
		t.Errorf("error %q shows a host path", err)
	}
	// After Close the index can be opened again.
	ix.Close()
	ix2, err := Open(v, Options{})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	ix2.Close()
}

func TestRestart_OnlyChangesAreIndexed(t *testing.T) {
	v, dir := newVault(t, engineVault)
	ix := openIndex(t, v, Options{})
	if n := ix.Status().Indexed; n != len(engineVault) {
		t.Fatalf("first build indexed %d notes, want %d", n, len(engineVault))
	}
	if u := ix.Status().Updated; u.IsZero() || time.Since(u) > time.Minute {
		t.Errorf("first build: Updated %v, want just now", u)
	}
	ix.Close()

	ix = openIndex(t, v, Options{})
	if n := ix.Status().Indexed; n != 0 {
		t.Errorf("restart on an unchanged vault reindexed %d notes", n)
	}
	if u := ix.Status().Updated; !u.IsZero() {
		t.Errorf("restart on an unchanged vault: Updated %v, want none", u)
	}
	ix.Close()

	// While closed: one note edited, one removed, one added, one touched.
	writeFiles(t, dir, map[string]string{
		"Archiv/Haus.md":    "# Haus\n\nEin Haus mit Teich.\n",
		"Neu/Frisch.md":     "# Frisch\n\nGanz neu: Ruderboot.\n",
		"Wissen/Linking.md": engineVault["Wissen/Linking.md"], // same bytes, new mtime
	})
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, "Wissen", "Linking.md"), future, future)
	os.Remove(filepath.Join(dir, "Archiv", "Tabellen.md"))

	ix = openIndex(t, v, Options{})
	if n := ix.Status().Indexed; n != 2 {
		t.Errorf("after two changes, restart reindexed %d notes, want 2", n)
	}
	if ix.Status().Updated.IsZero() {
		t.Errorf("after two changes, restart: no Updated")
	}
	if r := mustSearch(t, ix, Query{Text: "Teich"}); r.Total != 1 {
		t.Errorf("edited note not found")
	}
	if r := mustSearch(t, ix, Query{Text: "Ruderboot"}); r.Total != 1 {
		t.Errorf("added note not found")
	}
	if r := mustSearch(t, ix, Query{Text: "Zahlen"}); r.Total != 0 {
		t.Errorf("removed note still found: %v", hitPaths(r))
	}
	if st := ix.Status(); st.Building || st.Total != len(engineVault) {
		t.Errorf("status = %+v", st)
	}
}

func TestRestart_RebuildsLostIndex(t *testing.T) {
	v, _ := newVault(t, engineVault)
	ix := openIndex(t, v, Options{})
	ix.Close()
	// The index is gone but the manifest remains (or the other way round):
	// either way the index is rebuilt, not trusted.
	os.RemoveAll(filepath.Join(v.StateDir(), indexDirName))
	ix = openIndex(t, v, Options{})
	if r := mustSearch(t, ix, Query{Text: "Spatenstich"}); r.Total != 1 {
		t.Errorf("after losing the index: total %d, want 1", r.Total)
	}
	ix.Close()
	os.Remove(filepath.Join(v.StateDir(), manifestName))
	ix = openIndex(t, v, Options{})
	if r := mustSearch(t, ix, Query{Text: "Spatenstich"}); r.Total != 1 {
		t.Errorf("after losing the manifest: total %d, want 1", r.Total)
	}
}

func TestUpdate_ReadYourWrites(t *testing.T) {
	v, dir := newVault(t, engineVault)
	ix := openIndex(t, v, Options{})
	for i := range 20 {
		word := fmt.Sprintf("frischwort%dx", i)
		writeFiles(t, dir, map[string]string{"Projekte/Beta.md": "# Beta\n\n" + word + "\n"})
		if err := ix.Update("Projekte/Beta.md"); err != nil {
			t.Fatal(err)
		}
		r := mustSearch(t, ix, Query{Text: word})
		if r.Total != 1 {
			t.Fatalf("write %d not visible right after Update", i)
		}
		b, _ := v.ReadFile("Projekte/Beta.md")
		if r.Hits[0].Version != note.Version(b) {
			t.Fatalf("version after Update = %s, want %s", r.Hits[0].Version, note.Version(b))
		}
	}
	// Deleting and updating a folder.
	os.RemoveAll(filepath.Join(dir, "Projekte"))
	if err := ix.Update("Projekte"); err != nil {
		t.Fatal(err)
	}
	if r := mustSearch(t, ix, Query{Folder: "Projekte"}); r.Total != 0 {
		t.Errorf("notes of a deleted folder still found: %v", hitPaths(r))
	}
}

func TestBuilding_ResultsSayHowFar(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("n/%02d.md", i)] = "# N\n\nBaustelle\n"
	}
	v, _ := newVault(t, files)
	release := make(chan struct{})
	var once sync.Once
	testHookCommit = func() { <-release }
	defer func() { testHookCommit = nil }()
	ix, err := Open(v, Options{BatchDocs: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	defer once.Do(func() { close(release) })

	eventually(t, 10*time.Second, "the walk to count the notes", func() bool { return ix.Status().Total == 30 })
	r := mustSearch(t, ix, Query{Text: "Baustelle"})
	if !r.Status.Building || r.Status.Total != 30 || r.Status.Done != 0 {
		t.Errorf("status while the first batch waits = %+v", r.Status)
	}
	if !strings.HasPrefix(r.Status.Text(), "index building: 0 of 30 notes") {
		t.Errorf("status text = %q", r.Status.Text())
	}
	once.Do(func() { close(release) })
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	if err := ix.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	r = mustSearch(t, ix, Query{Text: "Baustelle"})
	if r.Status.Building || r.Total != 30 || r.Status.Done != 30 {
		t.Errorf("after the build: total %d, status %+v", r.Total, r.Status)
	}
}

// A large catch-up runs the collector at buildGCPercent under its memory
// limit, and gives both back when the last one ends; GOGC or a limit of
// the process's own are left alone.
func TestLimitMemory_GCPercent(t *testing.T) {
	t.Setenv("GOGC", "")
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)

	outer := limitMemory(300 << 20)
	inner := limitMemory(300 << 20)
	if got := debug.SetGCPercent(buildGCPercent); got != buildGCPercent {
		t.Errorf("GC percent during a build = %d, want %d", got, buildGCPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != 300<<20 {
		t.Errorf("memory limit during a build = %d, want %d", got, 300<<20)
	}
	inner()
	if got := debug.SetGCPercent(buildGCPercent); got != buildGCPercent {
		t.Errorf("GC percent while another build runs = %d, want %d", got, buildGCPercent)
	}
	outer()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent after the builds = %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit after the builds = %d, want none", got)
	}

	t.Setenv("GOGC", "100")
	restore := limitMemory(300 << 20)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent during a build with GOGC set = %d, want GOGC's 100", got)
	}
	restore()

	debug.SetMemoryLimit(1 << 40)
	defer debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOGC", "")
	restore = limitMemory(300 << 20)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent during a build under the process's own limit = %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("process's own memory limit = %d, want it kept", got)
	}
	restore()
}

// Catch-ups that overlap (several vaults served by one process) run the
// collector at the highest percent any of them wants, and give the
// process's own back when the last ends, in whatever order they end.
func TestWantGC_Overlapping(t *testing.T) {
	t.Setenv("GOGC", "")
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	percent := func() int {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}
	for _, walkEndsFirst := range []bool{true, false} {
		walk := wantGC(walkGCPercent)
		build := limitMemory(300 << 20)
		if got := percent(); got != walkGCPercent {
			t.Errorf("a walk and a build: %d, want %d", got, walkGCPercent)
		}
		if walkEndsFirst {
			walk()
			if got := percent(); got != buildGCPercent {
				t.Errorf("the build alone: %d, want %d", got, buildGCPercent)
			}
			build()
		} else {
			build()
			if got := percent(); got != walkGCPercent {
				t.Errorf("the walk alone: %d, want %d", got, walkGCPercent)
			}
			walk()
		}
		if got := percent(); got != 100 {
			t.Errorf("after both (walk ends first %v): %d, want 100", walkEndsFirst, got)
		}
	}

	// A server's percent under a catch-up's walk, and back.
	serving := ServingGC()
	if got := percent(); got != servingGCPercent {
		t.Errorf("serving: %d, want %d", got, servingGCPercent)
	}
	walk := wantGC(walkGCPercent)
	if got := percent(); got != walkGCPercent {
		t.Errorf("serving and a walk: %d, want %d", got, walkGCPercent)
	}
	walk()
	if got := percent(); got != servingGCPercent {
		t.Errorf("serving after the walk: %d, want %d", got, servingGCPercent)
	}
	serving()
	if got := percent(); got != 100 {
		t.Errorf("after serving: %d, want 100", got)
	}

	// A process's own percent above every want stays.
	debug.SetGCPercent(500)
	build := limitMemory(300 << 20)
	if got := percent(); got != 500 {
		t.Errorf("a build in a process at 500: %d, want 500", got)
	}
	build()
	if got := percent(); got != 500 {
		t.Errorf("after the build: %d, want 500", got)
	}
}

// TestRestart_TrustedFoldersStillSeeChanges: a restart that takes unchanged
// folders from their listings (vault.FolderListing) still finds every
// change made while vaultd was down: a note edited in place in a folder
// left as it was, a note added to a folder, one removed from another, a
// new folder.
func TestRestart_TrustedFoldersStillSeeChanges(t *testing.T) {
	files := map[string]string{}
	for i := range 12 {
		files[fmt.Sprintf("Gesetze/g%02d/Gesetz %d.md", i, i)] = fmt.Sprintf("# Gesetz %d\n\nParagraph über Fristen %d.\n", i, i)
	}
	v, dir := newVault(t, files)
	// Folders written just now get no listing (vault.settleTime).
	time.Sleep(2100 * time.Millisecond)
	ix := openIndex(t, v, Options{})
	ix.wmu.Lock()
	kept := len(ix.man.Folders)
	ix.wmu.Unlock()
	ix.Close()
	if kept != 12 {
		t.Skipf("%d folders' listings kept, want 12 (a file system whose folder times are not trusted?)", kept)
	}

	writeFiles(t, dir, map[string]string{
		"Gesetze/g01/Gesetz 1.md": "# Gesetz 1\n\nGeändert: Wasserschutz.\n", // in place
		"Gesetze/g02/Anhang.md":   "# Anhang\n\nNeu: Deichverband.\n",
		"Gesetze/neu/Neu.md":      "# Neu\n\nGanz neu: Ruderboot.\n",
	})
	os.Remove(filepath.Join(dir, "Gesetze", "g03", "Gesetz 3.md"))

	ix = openIndex(t, v, Options{})
	for q, want := range map[string]int{"Wasserschutz": 1, "Deichverband": 1, "Ruderboot": 1, "Fristen": 10} {
		if r := mustSearch(t, ix, Query{Text: q}); r.Total != want {
			t.Errorf("%s: %d hits %v, want %d", q, r.Total, hitPaths(r), want)
		}
	}
	if n := ix.Status().Indexed; n != 3 {
		t.Errorf("restart indexed %d notes, want the 3 written", n)
	}
	ix.Close()

	// Changes made after the walk trusted their folders and before
	// their watches were added (watchTrusted) are found too, and
	// CatchUpNames waits for them.
	testHookWatchTrusted = func() {
		writeFiles(t, dir, map[string]string{
			"Gesetze/g04/Gesetz 4.md": "# Gesetz 4\n\nGeändert: Lärmschutz.\n",
			"Gesetze/g05/Anhang.md":   "# Anhang\n\nNeu: Fischereirecht.\n",
		})
		os.Remove(filepath.Join(dir, "Gesetze", "g06", "Gesetz 6.md"))
		// Still under way when the test asks CatchUpNames.
		time.Sleep(200 * time.Millisecond)
	}
	t.Cleanup(func() { testHookWatchTrusted = nil })
	ix = openIndex(t, v, Options{Watch: true})
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	if !ix.CatchUpNames(ctx) {
		t.Fatal("CatchUpNames did not catch up")
	}
	for q, want := range map[string]int{"Lärmschutz": 1, "Fischereirecht": 1, "Fristen": 8} {
		if r := mustSearch(t, ix, Query{Text: q}); r.Total != want {
			t.Errorf("after the watches were added: %s: %d hits %v, want %d", q, r.Total, hitPaths(r), want)
		}
	}
}
