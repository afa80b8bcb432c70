package vault

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

const (
	driverHelperEnv = "VAULTD_TEST_MERGE_DRIVER"
	driverLogEnv    = "VAULTD_TEST_MERGE_DRIVER_LOG"
)

// TestMergeDriverHelper is vaultd's merge driver when git runs this test
// binary as one (driverCommand): it merges with MergeFiles and appends to
// the log when it merged ("computed", with start and end) or found the
// merge done ("cached").
func TestMergeDriverHelper(t *testing.T) {
	if os.Getenv(driverHelperEnv) != "1" {
		t.Skip("run by git as a merge driver")
	}
	var args []string
	for i, a := range os.Args {
		if a == "--" {
			args = os.Args[i+1:]
		}
	}
	size, _ := strconv.Atoi(args[3])
	start := time.Now()
	res, cached, err := MergeFiles(args[0], args[1], args[2], size, args[4])
	end := time.Now()
	kind := "computed"
	if cached {
		kind = "cached"
	}
	if f, lerr := os.OpenFile(os.Getenv(driverLogEnv), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); lerr == nil {
		fmt.Fprintf(f, "%s %d %d %s\n", kind, start.UnixNano(), end.UnixNano(), args[4])
		f.Close()
	}
	code := 0
	if err != nil || res.Conflicts > 0 {
		code = 1
	}
	os.Exit(code)
}

// driverCommand is merge.vaultd.driver running this test binary.
func driverCommand(log string) string {
	return fmt.Sprintf("%s=1 %s=%s %s -test.run=^TestMergeDriverHelper$ -test.count=1 -- %%O %%A %%B %%L %%P",
		driverHelperEnv, driverLogEnv, shellWord(log), shellWord(os.Args[0]))
}

// bigNote is a note of about mb megabytes in sections of forty lines.
func bigNote(mb int) string {
	var b strings.Builder
	b.WriteString("# Big\n")
	for i := 0; b.Len() < mb<<20; i++ {
		fmt.Fprintf(&b, "\n## Abschnitt %d\n\n", i)
		for l := range 40 {
			fmt.Fprintf(&b, "Zeile %d von Abschnitt %d mit ein paar Wörtern mehr, damit sie lang wird\n", l, i)
		}
	}
	return b.String()
}

// A long note changed on both sides: the sync computes its merge before it
// takes any lock, so that a write to the note never waits for merging.
// Clean, the merge commit is made from the tree computed and the driver
// does not run under the locks at all; with a conflict, git merges under
// the locks and the driver finds the note's merge done. A write committed
// while the merge is computed makes the round compute it again (and the
// result keeps all three changes). VAULTD_BIG_MERGE_MB sets the note's
// size (default 3 MB; 20 for the figure in the commit); the test logs how
// long the locks were held and how long the driver merged.
func TestSync_BigMergeOutsideLocks(t *testing.T) {
	mb := 3
	if s := os.Getenv("VAULTD_BIG_MERGE_MB"); s != "" {
		mb, _ = strconv.Atoi(s)
	}
	big := bigNote(mb)
	for _, tc := range []struct {
		name            string
		ben, anna       string // the line each adds to, or changes in, the note
		computed, under int    // driver runs outside the locks, and under them (all cached)
		conflict        bool
	}{
		{"clean", "## Abschnitt 10\n\n", "## Abschnitt 500\n\n", 2, 0, false},
		{"conflict", "Zeile 3 von Abschnitt 700 ", "Zeile 3 von Abschnitt 700 ", 2, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, a, b := gitClones(t, map[string]string{"Big.md": big, "Log.md": "# Log\n"})
			log := filepath.Join(t.TempDir(), "driver.log")
			gitRun(t, a, "config", "merge.vaultd.driver", driverCommand(log))
			pushAs(t, b, map[string]string{"Big.md": strings.Replace(big, tc.ben, tc.ben+"von Ben\n", 1)}, "Ben")
			commitAsVaultd(t, a, map[string]string{"Big.md": strings.Replace(big, tc.anna, tc.anna+"von Anna\n", 1)})
			va := gitOpen(t, a)

			var mu sync.Mutex
			var locked []time.Time // start, end pairs
			wrote := false
			va.w.hook = func(step, _ string) error {
				mu.Lock()
				defer mu.Unlock()
				switch step {
				case "sync-locked", "sync-unlocked":
					locked = append(locked, time.Now())
				case "sync-computed":
					if !wrote { // an agent writes the note while the merge is computed
						wrote = true
						mu.Unlock()
						_, err := va.Append("Big.md", "Abschnitt 3", []byte("von einem Agenten"), wOpts("Agent"))
						mu.Lock()
						if err != nil {
							t.Error(err)
						}
					}
				}
				return nil
			}
			r := va.Sync(context.Background())
			va.w.hook = nil
			if tc.conflict {
				if !r.OK() || len(r.Conflicts) != 1 {
					t.Fatalf("round: %+v", r)
				}
			} else if !r.OK() || r.Merged != "1 commit from origin/main (merged)" {
				t.Fatalf("round: %+v", r)
			}
			got := wRead(t, a, "Big.md")
			for _, s := range []string{"von Ben\n", "von Anna\n", "von einem Agenten"} {
				if !strings.Contains(got, s) {
					t.Errorf("the merged note lacks %q", s)
				}
			}
			if !tc.conflict && gitRun(t, a, "log", "-1", "--format=%s|%an") != "Merge remote-tracking branch 'origin/main'|vaultd" {
				t.Errorf("merge commit: %s", gitRun(t, a, "log", "-1", "--format=%s|%an"))
			}
			if len(locked) != 4 {
				t.Fatalf("lock windows %v: want one given up (the write came between), one for the merge", locked)
			}
			b2, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			var computed, under int
			var merging time.Duration
			for _, l := range strings.Split(strings.TrimSpace(string(b2)), "\n") {
				var kind, p string
				var s, e int64
				fmt.Sscanf(l, "%s %d %d %s", &kind, &s, &e, &p)
				start, end := time.Unix(0, s), time.Unix(0, e)
				in := false
				for i := 0; i+1 < len(locked); i += 2 {
					in = in || start.Before(locked[i+1]) && end.After(locked[i])
				}
				switch {
				case in && kind == "computed":
					t.Errorf("the driver merged %s from %v to %v, while the locks were held", p, start, end)
				case in:
					under++
				case kind == "computed":
					computed++
					merging += end.Sub(start)
				}
			}
			if computed != tc.computed || under != tc.under {
				t.Errorf("driver runs: %d merging outside the locks, %d under them; want %d and %d\n%s", computed, under, tc.computed, tc.under, b2)
			}
			t.Logf("%d MB note, %s: the driver merged %v outside the locks (twice: once again after the write); the locks were held %v for the merge", mb, tc.name, merging, locked[3].Sub(locked[2]))
		})
	}
}

// A merge kept by the driver comes back as it was computed, conflicts,
// sections (with tabs and newlines) and the reason a side is not text.
func TestMergeCache_RoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := note.MergeResult{Text: []byte("a\n<<<<<<< HEAD\nb\n"), Conflicts: 2, Sections: []string{"A > B", "C\td\ne"}, NotText: "theirs is UTF-16 LE text"}
	storeMerge(dir, "k", want)
	got, ok := cachedMerge(dir, "k")
	if !ok || string(got.Text) != string(want.Text) || got.Conflicts != 2 || strings.Join(got.Sections, "|") != "A > B|C\td\ne" || got.NotText != want.NotText {
		t.Errorf("got %+v, %v", got, ok)
	}
	if _, ok := cachedMerge(dir, "other"); ok {
		t.Error("a merge never kept was found")
	}
	if _, ok := cachedMerge("", "k"); ok {
		t.Error("found without a cache")
	}
}
