package vault

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// TestHistoryHeads_Incremental: the table of each note's last recorded
// version, kept between calls and read on from where it stopped, is what
// reading the whole log gives — after this process's writes, another
// process's, and a log cut back by a failed append and written on.
func TestHistoryHeads_Incremental(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"A.md": "# A\n", "B.md": "# B\n"})
	whole := func() map[string]string {
		t.Helper()
		heads := map[string]string{}
		if err := v.readChanges(func(ch Change) {
			if ch.Path != "" {
				if ch.Op == "move" && ch.OldPath != "" && ch.OldPath != ch.Path {
					heads[ch.OldPath] = ""
				}
				heads[ch.Path] = ch.After
			}
		}); err != nil {
			t.Fatal(err)
		}
		return heads
	}
	check := func(when string) {
		t.Helper()
		got, err := v.historyHeads()
		if err != nil {
			t.Fatal(err)
		}
		if want := whole(); !maps.Equal(got, want) {
			t.Errorf("%s: historyHeads = %v, want %v (the whole log)", when, got, want)
		}
	}
	check("no history yet")
	for i := range 3 {
		if _, err := v.Append("A.md", "", []byte(fmt.Sprintf("- %d\n", i)), wOpts("append")); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("after append %d", i))
	}
	// Another process on the same vault writes.
	other := wOpenDir(t, dir, Options{NoSync: true, Actor: "other"})
	if _, err := other.Append("B.md", "", []byte("- von nebenan\n"), wOpts("nebenan")); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Move("B.md", "C.md", WriteOpts{Summary: "umbenannt", ExpectedVersion: wVersion(t, dir, "B.md")}); err != nil {
		t.Fatal(err)
	}
	check("after another process's append and move")
	// A failed append is cut back (appendJournal), and a later one lands
	// where it was: same file, no shorter than what was read.
	log := filepath.Join(dir, StateDirName, historyFile)
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.historyHeads(); err != nil { // the cache has read all of it
		t.Fatal(err)
	}
	cut := len(b) - 1
	for cut > 0 && b[cut-1] != '\n' {
		cut--
	}
	f, err := os.OpenFile(log, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(int64(cut)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := v.Append("A.md", "", []byte("- danach, und etwas länger als die abgeschnittene Zeile davor\n"), wOpts("danach")); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(log); len(b2) < len(b) {
		t.Fatalf("the log after the cut and an append is shorter (%d) than before (%d): the test does not cover what it should", len(b2), len(b))
	}
	check("after a cut-back log was written on")
}
