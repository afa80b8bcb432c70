package vault

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// walkEntries is every entry a walk gives, as text (path, size, mtime,
// note), in the walk's order.
func walkEntries(t *testing.T, walk func(func(Entry) error) error) []string {
	t.Helper()
	var got []string
	if err := walk(func(e Entry) error {
		got = append(got, fmt.Sprintf("%s %d %d %v", e.Path, e.Size, e.ModTime.UnixNano(), e.Note))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// trustingVault opens the vault at dir with a settle time short enough
// for tests, skips the test where the file system's folder times are not
// trusted, and returns the vault with the listings of a walk made once
// the folders have settled.
func trustingVault(t *testing.T, dir string) (*Vault, map[string]FolderListing) {
	t.Helper()
	settleTime = 20 * time.Millisecond
	t.Cleanup(func() { settleTime = 2 * time.Second })
	v, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	if !v.root.b.foldersTrusted() {
		t.Skip("the temp dir's file system is not one whose folder times a walk trusts")
	}
	time.Sleep(2 * settleTime)
	known, err := v.WalkListing(WalkOptions{}, func(Entry) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return v, known
}

// TestWalkListing_AsAWalkFindsIt: after every one of a run of changes to a
// vault (notes edited in place, added, removed, renamed within and across
// folders, replaced by links, subfolders added and removed, folders
// swapped for copies, a folder's mtime set back after a change), a walk
// that trusts the listings of the walk before it gives exactly what a walk
// that reads every folder gives, and it trusted the folders that did not
// change.
func TestWalkListing_AsAWalkFindsIt(t *testing.T) {
	dir := t.TempDir()
	write := func(p, text string) {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var folders []string
	for _, top := range []string{"Gesetze", "Projekte"} {
		for i := range 12 {
			f := fmt.Sprintf("%s/f%02d", top, i)
			folders = append(folders, f)
			write(f+"/index.md", "# "+f)
			if i%3 == 0 {
				write(f+"/plan.pdf", "%PDF")
			}
		}
	}
	write("Gesetze/f01/.entwurf.md", "hidden")
	write("top.md", "top")
	v, _ := trustingVault(t, dir)

	var mu sync.Mutex
	trusted := map[string]bool{}
	testHookTrusted = func(rel string) {
		mu.Lock()
		trusted[rel] = true
		mu.Unlock()
	}
	t.Cleanup(func() { testHookTrusted = nil })

	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return folders[rng.IntN(len(folders))] }
	abs := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	n := 0
	changes := []struct {
		name string
		do   func() (changed []string)
	}{
		{"edit in place", func() []string {
			f := pick()
			write(f+"/index.md", fmt.Sprintf("# %s\nedited %d", f, n))
			return nil // the folder's times stay: still trusted
		}},
		{"edit in place, same size", func() []string {
			f := pick()
			b, err := os.ReadFile(abs(f + "/index.md"))
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-1] ^= 1
			fh, err := os.OpenFile(abs(f+"/index.md"), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fh.WriteAt(b[len(b)-1:], int64(len(b)-1))
			fh.Close()
			return nil
		}},
		{"add a note", func() []string {
			f := pick()
			write(fmt.Sprintf("%s/neu%d.md", f, n), "neu")
			return []string{f}
		}},
		{"remove a note", func() []string {
			f := pick()
			if os.Remove(abs(f+"/index.md")) != nil {
				return nil // none there: nothing changed
			}
			return []string{f}
		}},
		{"rename within the folder", func() []string {
			f := pick()
			if os.Rename(abs(f+"/index.md"), abs(f+"/umbenannt.md")) != nil {
				return nil
			}
			os.Rename(abs(f+"/umbenannt.md"), abs(f+"/index.md"))
			return []string{f}
		}},
		{"move to another folder", func() []string {
			f, g := pick(), pick()
			if os.Rename(abs(f+"/index.md"), abs(fmt.Sprintf("%s/von-%d.md", g, n))) != nil {
				return nil
			}
			return []string{f, g}
		}},
		{"add a subfolder", func() []string {
			f := pick()
			write(fmt.Sprintf("%s/Anlagen%d/a.md", f, n), "a")
			return []string{f}
		}},
		{"remove the subfolders", func() []string {
			f := pick()
			es, _ := os.ReadDir(abs(f))
			var changed []string
			for _, e := range es {
				if e.IsDir() {
					os.RemoveAll(abs(f + "/" + e.Name()))
					changed = []string{f}
				}
			}
			return changed
		}},
		{"a note replaced by a link", func() []string {
			f, g := pick(), pick()
			tmp := abs(f + "/link.tmp")
			os.Symlink(abs(g+"/index.md"), tmp)
			os.Rename(tmp, abs(f+"/index.md"))
			return []string{f}
		}},
		{"a new note, the folder's mtime set back", func() []string {
			f := pick()
			fi, err := os.Stat(abs(f))
			if err != nil {
				t.Fatal(err)
			}
			write(fmt.Sprintf("%s/heimlich%d.md", f, n), "heimlich")
			if err := os.Chtimes(abs(f), fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			return []string{f}
		}},
		{"a folder swapped for a copy", func() []string {
			f := pick()
			os.Rename(abs(f), abs(f+"-alt"))
			os.MkdirAll(abs(f), 0o755)
			es, _ := os.ReadDir(abs(f + "-alt"))
			for _, e := range es {
				if !e.IsDir() {
					os.Rename(abs(f+"-alt/"+e.Name()), abs(f+"/"+e.Name()))
				}
			}
			os.RemoveAll(abs(f + "-alt"))
			return []string{f}
		}},
		{"a hidden file and a text file", func() []string {
			f := pick()
			write(fmt.Sprintf("%s/.notiz%d.md", f, n), "hidden")
			write(fmt.Sprintf("%s/liesmich%d.txt", f, n), "text")
			return []string{f}
		}},
	}

	var known map[string]FolderListing
	for step := range 60 {
		n = step
		c := changes[rng.IntN(len(changes))]
		var changed []string
		if step > 0 {
			changed = c.do()
		}
		// Past the settle time, so that the listings kept are trusted
		// next time; the change before was made earlier still.
		time.Sleep(2 * settleTime)
		want := walkEntries(t, v.Walk)
		mu.Lock()
		clear(trusted)
		mu.Unlock()
		var listings map[string]FolderListing
		got := walkEntries(t, func(fn func(Entry) error) error {
			var err error
			listings, err = v.WalkListing(WalkOptions{Known: known}, fn)
			return err
		})
		if !slices.Equal(got, want) {
			t.Fatalf("step %d (%s): a walk trusting the listings gave\n%v\nwant\n%v", step, c.name, got, want)
		}
		mu.Lock()
		for _, f := range changed {
			if trusted[f] {
				t.Errorf("step %d (%s): %s changed and was trusted", step, c.name, f)
			}
		}
		if step > 0 && len(trusted) < len(folders)/2 {
			t.Errorf("step %d (%s): %d folders trusted, want most of the %d", step, c.name, len(trusted), len(folders))
		}
		mu.Unlock()
		if len(listings) < len(folders)/2 {
			t.Errorf("step %d: %d listings kept, want most of the %d folders", step, len(listings), len(folders))
		}
		known = listings
	}
}

// TestWalkListing_KeepsNoUnsettledListing: a folder changed within the
// settle time before the walk gets no listing (a change in the same tick
// of the file system's clock could leave its times as they are).
func TestWalkListing_KeepsNoUnsettledListing(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/x.md", "b/y.md"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644)
	}
	v, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if !v.root.b.foldersTrusted() {
		t.Skip("the temp dir's file system is not one whose folder times a walk trusts")
	}
	listings, err := v.WalkListing(WalkOptions{}, func(Entry) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(listings) != 0 {
		t.Errorf("listings of folders written just now: %v, want none", listings)
	}
	settleTime = 0
	defer func() { settleTime = 2 * time.Second }()
	time.Sleep(20 * time.Millisecond)
	if listings, _ = v.WalkListing(WalkOptions{}, func(Entry) error { return nil }); len(listings) != 2 ||
		!slices.Equal(listings["a"].Files, []string{"x.md"}) {
		t.Errorf("listings = %v, want a and b", listings)
	}
}

// TestRecheck: a folder a walk trusted is still as the walk found it
// until it or one of its files changes in any way: a file edited in place,
// a note added or removed, a file's mode changed (its ctime alone).
func TestRecheck(t *testing.T) {
	dir := t.TempDir()
	for i := range 6 {
		p := filepath.Join(dir, "Gesetze", fmt.Sprintf("f%d", i), "index.md")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("# Gesetz"), 0o644)
	}
	v, known := trustingVault(t, dir)
	var mu sync.Mutex
	var entered []string
	trusted := map[string]TrustedFolder{}
	_, err := v.WalkListing(WalkOptions{Known: known,
		Enter: func(f string) { mu.Lock(); entered = append(entered, f); mu.Unlock() },
		Trusted: func(tf TrustedFolder) {
			mu.Lock()
			trusted[tf.Path] = tf
			mu.Unlock()
		}}, func(Entry) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(trusted) != 6 || slices.ContainsFunc(entered, func(f string) bool { return f != "" && f != "Gesetze" }) {
		t.Fatalf("trusted %d folders, entered %v; want all 6 trusted and none of them entered", len(trusted), entered)
	}
	for p, tf := range trusted {
		if !v.Recheck(tf) {
			t.Errorf("%s: changed right after the walk", p)
		}
	}
	abs := func(f string) string { return filepath.Join(dir, "Gesetze", f, "index.md") }
	fh, _ := os.OpenFile(abs("f0"), os.O_WRONLY, 0)
	fh.WriteAt([]byte("g"), 2) // same size, in place
	fh.Close()
	os.WriteFile(filepath.Join(dir, "Gesetze", "f1", "neu.md"), []byte("neu"), 0o644)
	os.Chmod(abs("f2"), 0o600)
	os.Remove(abs("f3"))
	os.Rename(filepath.Join(dir, "Gesetze", "f4"), filepath.Join(dir, "Gesetze", "f4-alt"))
	os.MkdirAll(filepath.Join(dir, "Gesetze", "f4"), 0o755)
	for p, tf := range trusted {
		if got, want := v.Recheck(tf), p == "Gesetze/f5"; got != want {
			t.Errorf("Recheck(%s) = %v, want %v", p, got, want)
		}
	}
}

// TestWalkListing_Corpora: over every corpus, a walk that trusts the
// listings of the walk before gives exactly what a full walk gives, every
// file with its size and time, and trusts every folder without
// subfolders; so does it after a note of every other such folder was
// edited in place (the folder still trusted, the note's new size seen).
func TestWalkListing_Corpora(t *testing.T) {
	for _, name := range []string{"obsidian-help-de", "obsidian-help-en", "tldr-de", "tldr-en"} {
		t.Run(name, func(t *testing.T) {
			dir := copyTree(t, corpusDir(t, name))
			v, known := trustingVault(t, dir)
			var mu sync.Mutex
			trusted := map[string]bool{}
			testHookTrusted = func(rel string) { mu.Lock(); trusted[rel] = true; mu.Unlock() }
			defer func() { testHookTrusted = nil }()
			var before []string
			for _, step := range []string{"unchanged", "a note of every other folder edited in place"} {
				if step != "unchanged" {
					i := 0
					for f, l := range known {
						if i++; i%2 == 0 && len(l.Files) > 0 {
							p := filepath.Join(dir, filepath.FromSlash(f), l.Files[0])
							fh, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
							if err != nil {
								t.Fatal(err)
							}
							fh.WriteString("\nedited\n")
							fh.Close()
						}
					}
				}
				clear(trusted)
				want := walkEntries(t, v.Walk)
				got := walkEntries(t, func(fn func(Entry) error) error {
					_, err := v.WalkListing(WalkOptions{Known: known}, fn)
					return err
				})
				if !slices.Equal(got, want) {
					t.Fatalf("%s: a walk trusting the listings differs from a full walk: %d entries against %d", step, len(got), len(want))
				}
				if len(trusted) != len(known) || len(known) == 0 {
					t.Errorf("%s: %d of %d folders trusted", step, len(trusted), len(known))
				}
				if before != nil && slices.Equal(got, before) {
					t.Errorf("%s: the walk gave the same entries as before the edits", step)
				}
				before = got
				t.Logf("%s: %d entries, %d folders trusted", step, len(got), len(trusted))
			}
		})
	}
}
