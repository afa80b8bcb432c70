package index

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watchOpts debounce quickly so that tests are short.
var watchOpts = Options{Watch: true, Quiet: 50 * time.Millisecond, MaxDelay: 500 * time.Millisecond}

const watchDeadline = 15 * time.Second

// pathsOf returns the paths of all notes containing word, sorted.
func pathsOf(t *testing.T, ix *Index, word string) string {
	t.Helper()
	r := mustSearch(t, ix, Query{Text: word, Limit: MaxLimit})
	ps := hitPaths(r)
	return strings.Join(sortedCopy(ps), ",")
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return c
}

func waitFor(t *testing.T, ix *Index, word, want string) {
	t.Helper()
	var got string
	eventually(t, watchDeadline, fmt.Sprintf("%q found in exactly [%s] (last: [%s])", word, want, got), func() bool {
		got = pathsOf(t, ix, word)
		return got == want
	})
}

func TestWatch_EditCreateDeleteRename(t *testing.T) {
	v, dir := newVault(t, engineVault)
	ix := openIndex(t, v, watchOpts)
	if !ix.Status().Watching {
		t.Fatalf("not watching: %+v", ix.Status())
	}
	// Edit in place.
	writeFiles(t, dir, map[string]string{"Archiv/Haus.md": "# Haus\n\nJetzt mit Wintergarten.\n"})
	waitFor(t, ix, "Wintergarten", "Archiv/Haus.md")
	// Create.
	writeFiles(t, dir, map[string]string{"Neu/Idee.md": "# Idee\n\nEin Luftschiff.\n"})
	waitFor(t, ix, "Luftschiff", "Neu/Idee.md")
	// Atomic save: temp file, then rename over the note.
	tmp := filepath.Join(dir, "Neu", ".Idee.md.tmp123")
	os.WriteFile(tmp, []byte("# Idee\n\nEin Zeppelin.\n"), 0o644)
	os.Rename(tmp, filepath.Join(dir, "Neu", "Idee.md"))
	waitFor(t, ix, "Zeppelin", "Neu/Idee.md")
	waitFor(t, ix, "Luftschiff", "")
	// Rename a file.
	os.Rename(filepath.Join(dir, "Neu", "Idee.md"), filepath.Join(dir, "Neu", "Plan B.md"))
	waitFor(t, ix, "Zeppelin", "Neu/Plan B.md")
	// Delete.
	os.Remove(filepath.Join(dir, "Neu", "Plan B.md"))
	waitFor(t, ix, "Zeppelin", "")
	// Dot-folders and dot-files are not notes.
	writeFiles(t, dir, map[string]string{".obsidian/x.md": "Geheimwort", ".trash/y.md": "Geheimwort", "Neu/.z.md": "Geheimwort", "Neu/sichtbar.md": "Geheimwort"})
	waitFor(t, ix, "Geheimwort", "Neu/sichtbar.md")
}

func TestWatch_RenameFolderWithChildren(t *testing.T) {
	v, dir := newVault(t, map[string]string{
		"A/top.md":        "alphawort",
		"A/B/mid.md":      "betawort",
		"A/B/C/deep.md":   "gammawort",
		"A/B/C/D/more.md": "deltawort",
		"Z/other.md":      "zetawort",
	})
	ix := openIndex(t, v, watchOpts)
	if err := os.Rename(filepath.Join(dir, "A"), filepath.Join(dir, "A2")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ix, "alphawort", "A2/top.md")
	waitFor(t, ix, "betawort", "A2/B/mid.md")
	waitFor(t, ix, "gammawort", "A2/B/C/deep.md")
	waitFor(t, ix, "deltawort", "A2/B/C/D/more.md")
	// Events below the moved folder must carry the new path (the inotify
	// watch of the old path would still report A/B/C/deep.md).
	writeFiles(t, dir, map[string]string{"A2/B/C/deep.md": "gammawort neuwort"})
	waitFor(t, ix, "neuwort", "A2/B/C/deep.md")
	// Move it into another folder.
	if err := os.Rename(filepath.Join(dir, "A2", "B"), filepath.Join(dir, "Z", "B3")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ix, "betawort", "Z/B3/mid.md")
	waitFor(t, ix, "neuwort", "Z/B3/C/deep.md")
	writeFiles(t, dir, map[string]string{"Z/B3/C/D/more.md": "deltawort zweitwort"})
	waitFor(t, ix, "zweitwort", "Z/B3/C/D/more.md")
	// Out of the vault and back under another name.
	out := t.TempDir()
	if err := os.Rename(filepath.Join(dir, "Z", "B3"), filepath.Join(out, "B")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ix, "betawort", "")
	if err := os.Rename(filepath.Join(out, "B"), filepath.Join(dir, "Back")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ix, "gammawort", "Back/C/deep.md")
	writeFiles(t, dir, map[string]string{"Back/C/deep.md": "drittwort"})
	waitFor(t, ix, "drittwort", "Back/C/deep.md")
	// Deleting a folder removes every note below it.
	os.RemoveAll(filepath.Join(dir, "Back"))
	waitFor(t, ix, "drittwort", "")
	waitFor(t, ix, "deltawort", "")
}

func TestWatch_NewFolderTree(t *testing.T) {
	v, dir := newVault(t, engineVault)
	ix := openIndex(t, v, watchOpts)
	// mkdir -p and a file right away: the file exists before the folder
	// is watched, so only the walk of the new folder can find it.
	writeFiles(t, dir, map[string]string{"x/y/z/tief.md": "Tiefseetaucher", "x/flach.md": "Flachwasser"})
	waitFor(t, ix, "Tiefseetaucher", "x/y/z/tief.md")
	waitFor(t, ix, "Flachwasser", "x/flach.md")
	writeFiles(t, dir, map[string]string{"x/y/z/tief.md": "Tiefseetaucher Perle"})
	waitFor(t, ix, "Perle", "x/y/z/tief.md")
}

func TestWatch_Burst(t *testing.T) {
	v, dir := newVault(t, engineVault)
	ix := openIndex(t, v, watchOpts)
	const n = 2000
	for i := range n {
		p := filepath.Join(dir, "burst", fmt.Sprintf("d%02d", i%20), fmt.Sprintf("n%04d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# N%d\n\nMassenimport eintrag%d\n", i, i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 60*time.Second, "all 2000 notes searchable", func() bool {
		return mustSearch(t, ix, Query{Text: "Massenimport"}).Total == n
	})
	for _, i := range []int{0, 777, 1999} {
		waitFor(t, ix, fmt.Sprintf("eintrag%d", i), fmt.Sprintf("burst/d%02d/n%04d.md", i%20, i))
	}
	flushes := ix.watcher.Load().flushes.Load()
	t.Logf("2000 creates → %d flushes", flushes)
	if flushes > 20 {
		t.Errorf("2000 creates caused %d flushes; debouncing should batch them", flushes)
	}
	// Change them all (a git checkout), then delete them all.
	for i := range n {
		p := filepath.Join(dir, "burst", fmt.Sprintf("d%02d", i%20), fmt.Sprintf("n%04d.md", i))
		os.WriteFile(p, []byte(fmt.Sprintf("# N%d\n\nUmgestellt eintrag%d\n", i, i)), 0o644)
	}
	eventually(t, 60*time.Second, "all 2000 changes searchable", func() bool {
		return mustSearch(t, ix, Query{Text: "Umgestellt"}).Total == n && mustSearch(t, ix, Query{Text: "Massenimport"}).Total == 0
	})
	os.RemoveAll(filepath.Join(dir, "burst"))
	eventually(t, 60*time.Second, "all 2000 notes gone", func() bool {
		return mustSearch(t, ix, Query{Text: "Umgestellt"}).Total == 0
	})
}

// TestWatch_OverflowRescans simulates lost events: watches are dropped, the
// files change unseen, then the kernel reports an overflow.
func TestWatch_OverflowRescans(t *testing.T) {
	v, dir := newVault(t, engineVault)
	ix := openIndex(t, v, watchOpts)
	w := ix.watcher.Load()
	for _, p := range w.w.WatchList() {
		w.w.Remove(p)
	}
	writeFiles(t, dir, map[string]string{"Archiv/Haus.md": "Verlorenwort", "Neu/n.md": "Verlorenwort"})
	os.Remove(filepath.Join(dir, "Archiv", "Tabellen.md"))
	time.Sleep(100 * time.Millisecond)
	if got := pathsOf(t, ix, "Verlorenwort"); got != "" {
		t.Fatalf("changes were seen without watches: %s", got)
	}
	w.w.Errors <- fsnotify.ErrEventOverflow
	waitFor(t, ix, "Verlorenwort", "Archiv/Haus.md,Neu/n.md")
	waitFor(t, ix, "Zahlen", "")
}

// TestWatch_LimitFallsBackToRescans: when no watch can be added (the
// inotify limit), the index says so and rescans periodically.
func TestWatch_LimitFallsBackToRescans(t *testing.T) {
	testHookAddWatch = func(string) error { return fmt.Errorf("add watch: %w", syscall.ENOSPC) }
	defer func() { testHookAddWatch = nil }()
	v, dir := newVault(t, engineVault)
	o := watchOpts
	o.PollInterval = 200 * time.Millisecond
	ix := openIndex(t, v, o)
	st := ix.Status()
	if st.Watching || !strings.Contains(st.Problem, "fs.inotify.max_user_watches") {
		t.Errorf("status = %+v; want not watching and a problem naming fs.inotify.max_user_watches", st)
	}
	writeFiles(t, dir, map[string]string{"Archiv/Haus.md": "Pollwort"})
	waitFor(t, ix, "Pollwort", "Archiv/Haus.md")
}

// TestRescan_FindsChangesWithoutWatcher: Rescan is the forced full
// comparison.
func TestRescan_FindsChangesWithoutWatcher(t *testing.T) {
	v, dir := newVault(t, engineVault)
	ix := openIndex(t, v, Options{})
	writeFiles(t, dir, map[string]string{"Archiv/Haus.md": "Rescanwort", "Neu/a/b.md": "Rescanwort"})
	os.RemoveAll(filepath.Join(dir, "Projekte"))
	if err := ix.Rescan(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := pathsOf(t, ix, "Rescanwort"); got != "Archiv/Haus.md,Neu/a/b.md" {
		t.Errorf("after Rescan: %s", got)
	}
	if r := mustSearch(t, ix, Query{Folder: "Projekte"}); r.Total != 0 {
		t.Errorf("removed folder still indexed: %v", hitPaths(r))
	}
}

// TestWatch_CheckoutIsOneBatch: hundreds of changes in quick succession
// (as from a git checkout: modify, delete, add) are indexed as one batch.
func TestWatch_CheckoutIsOneBatch(t *testing.T) {
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("repo/f%03d.md", i)] = "Altstand"
	}
	v, dir := newVault(t, files)
	ix := openIndex(t, v, Options{Watch: true, Quiet: 500 * time.Millisecond, MaxDelay: 10 * time.Second})
	for i := range 300 {
		p := filepath.Join(dir, "repo", fmt.Sprintf("f%03d.md", i))
		switch {
		case i < 200: // modified: git unlinks and recreates
			os.Remove(p)
			os.WriteFile(p, []byte("Neustand"), 0o644)
		default:
			os.Remove(p)
		}
	}
	for i := range 100 {
		os.WriteFile(filepath.Join(dir, "repo", fmt.Sprintf("g%03d.md", i)), []byte("Neustand"), 0o644)
	}
	eventually(t, watchDeadline, "checkout indexed", func() bool {
		return mustSearch(t, ix, Query{Text: "Neustand"}).Total == 300 && mustSearch(t, ix, Query{Text: "Altstand"}).Total == 0
	})
	if n := ix.watcher.Load().flushes.Load(); n != 1 {
		t.Errorf("checkout of 500 file changes took %d batches, want 1", n)
	}
}

// TestWatch_FindSeesAChangeMadeAMomentAgo: a note another program wrote
// just before the lookup is found, even when the event loop has not read
// the change yet (a loaded machine): a miss waits for the watcher to read
// every event queued before it.
func TestWatch_FindSeesAChangeMadeAMomentAgo(t *testing.T) {
	testHookEvent = func() { time.Sleep(100 * time.Millisecond) }
	defer func() { testHookEvent = nil }()
	v, dir := newVault(t, engineVault)
	ix := openIndex(t, v, watchOpts)
	v.SetNames(ix)
	for i := range 3 {
		title := fmt.Sprintf("Eben geschrieben %d", i)
		path := fmt.Sprintf("Neu/eben%d.md", i)
		writeFiles(t, dir, map[string]string{path: "# " + title + "\n"})
		if got := lookupPath(t, v, title); got != path {
			t.Fatalf("Find(%q) right after the write = %q, want %s", title, got, path)
		}
	}
}

// TestWatch_OwnWriteLeavesNothingPending: a change that Update indexed is
// not waited for again when its file events come (the index is not
// "behind" after a vaultd write), while another program's change made at
// the same time still is, until it is indexed.
func TestWatch_OwnWriteLeavesNothingPending(t *testing.T) {
	v, dir := newVault(t, engineVault)
	o := watchOpts
	o.Quiet, o.MaxDelay = time.Hour, time.Hour // no flush: only absorb can take a mark back
	ix := openIndex(t, v, o)
	w := ix.watcher.Load()
	if w == nil {
		t.Fatal("not watching")
	}
	for i := range 5 {
		p := fmt.Sprintf("Archiv/eigen%d.md", i)
		writeFiles(t, dir, map[string]string{p: fmt.Sprintf("# Eigen %d\n\nVon vaultd geschrieben.\n", i)})
		if err := ix.Update(p); err != nil {
			t.Fatal(err)
		}
		if ix.namesBehind() {
			t.Fatalf("write %d: the index is behind after Update indexed the change", i)
		}
	}
	// Another program's change, then a vaultd write: the first stays
	// pending.
	writeFiles(t, dir, map[string]string{"Archiv/Haus.md": "# Haus\n\nVon Obsidian geändert.\n"})
	writeFiles(t, dir, map[string]string{"Archiv/eigen0.md": "# Eigen 0\n\nNoch einmal.\n"})
	if err := ix.Update("Archiv/eigen0.md"); err != nil {
		t.Fatal(err)
	}
	if !ix.namesBehind() {
		t.Errorf("another program's change is not waited for")
	}
	w.mu.Lock()
	dirty := maps.Clone(w.dirty)
	w.mu.Unlock()
	if !dirty["Archiv/Haus.md"] || dirty["Archiv/eigen0.md"] {
		t.Errorf("dirty = %v, want Archiv/Haus.md only", dirty)
	}
}

// TestWatch_BarrierWithoutEvents: a state dir whose folder reports no
// events makes the barrier give up once, not make every lookup wait.
func TestWatch_BarrierWithoutEvents(t *testing.T) {
	v, _ := newVault(t, engineVault)
	ix := openIndex(t, v, Options{Dir: t.TempDir(), Watch: true, Quiet: 20 * time.Millisecond})
	w := ix.watcher.Load()
	if w == nil || w.barrier == "" {
		t.Fatal("no barrier")
	}
	w.barrier = t.TempDir() // markers written where no watch reports them
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	w.sync(ctx)
	if !w.bbroken.Load() {
		t.Fatal("a barrier with no events was not given up")
	}
	done := make(chan struct{})
	go func() {
		w.sync(context.Background()) // no deadline: returns only if it gave up
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(hangCap):
		t.Fatal("sync waits for markers after giving up")
	}
}
