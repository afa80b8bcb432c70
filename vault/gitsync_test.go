package vault

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitClones makes a bare repository holding files and two clones of it.
func gitClones(t *testing.T, files map[string]string) (bare, a, b string) {
	t.Helper()
	seed := gitRepo(t, files)
	bare = filepath.Join(t.TempDir(), "remote.git")
	gitRun(t, seed, "init", "-q", "--bare", "-b", "main", bare)
	gitRun(t, seed, "push", "-q", bare, "main")
	a, b = filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	gitRun(t, seed, "clone", "-q", bare, a)
	gitRun(t, seed, "clone", "-q", bare, b)
	return bare, a, b
}

func TestSync_PushesAndMerges(t *testing.T) {
	_, a, b := gitClones(t, map[string]string{"Log.md": "# Log\n\n- start\n", "Ziele.md": "# Ziele\n"})
	va, vb := gitOpen(t, a), gitOpen(t, b)
	if _, err := va.Append("Log.md", "", []byte("- von A"), WriteOpts{Summary: "A"}); err != nil {
		t.Fatal(err)
	}
	if _, err := vb.Append("Ziele.md", "", []byte("- von B"), WriteOpts{Summary: "B"}); err != nil {
		t.Fatal(err)
	}
	ra := va.Sync(context.Background())
	if !ra.OK() || ra.Pushed != "1 commit to origin/main" || ra.Merged != "" {
		t.Fatalf("A's round: %+v", ra)
	}
	rb := vb.Sync(context.Background())
	if !rb.OK() || rb.Merged != "1 commit from origin/main (merged)" || rb.Pushed != "2 commits to origin/main" {
		t.Fatalf("B's round: %+v", rb)
	}
	ra = va.Sync(context.Background())
	if !ra.OK() || ra.Merged != "2 commits from origin/main (fast-forward)" || ra.Pushed != "" {
		t.Fatalf("A's second round: %+v", ra)
	}
	if ha, hb := gitRun(t, a, "rev-parse", "HEAD"), gitRun(t, b, "rev-parse", "HEAD"); ha != hb {
		t.Errorf("the clones differ: %s, %s", ha, hb)
	}
	if got := wRead(t, a, "Ziele.md"); got != "# Ziele\n\n- von B\n" {
		t.Errorf("A's Ziele.md: %q", got)
	}
	if last, ok := va.LastSync(); !ok || last.Text() != "merged 2 commits from origin/main (fast-forward)" {
		t.Errorf("LastSync: %+v", last)
	}
	if again := va.Sync(context.Background()); again.Text() != "up to date with origin/main" {
		t.Errorf("a round with nothing to do: %q", again.Text())
	}
}

// The user's uncommitted work in a file the remote changed: the round
// waits, touching nothing; their work elsewhere does not stop it.
func TestSync_WaitsForTheUsersWork(t *testing.T) {
	_, a, b := gitClones(t, map[string]string{"Log.md": "# Log\n", "Mine.md": "m\n"})
	va, vb := gitOpen(t, a), gitOpen(t, b)
	if _, err := va.Append("Log.md", "", []byte("- von A"), WriteOpts{Summary: "A"}); err != nil {
		t.Fatal(err)
	}
	va.Sync(context.Background())
	os.WriteFile(filepath.Join(b, "Log.md"), []byte("# Log\n\nmeins, nicht committed\n"), 0o644)
	head := gitRun(t, b, "rev-parse", "HEAD")
	r := vb.Sync(context.Background())
	if !r.OK() || !strings.Contains(r.Waiting, "your uncommitted changes in Log.md touch files they change") {
		t.Fatalf("round: %+v", r)
	}
	if gitRun(t, b, "rev-parse", "HEAD") != head || wRead(t, b, "Log.md") != "# Log\n\nmeins, nicht committed\n" {
		t.Fatal("the round changed something")
	}
	os.WriteFile(filepath.Join(b, "Log.md"), []byte("# Log\n"), 0o644)
	os.WriteFile(filepath.Join(b, "Mine.md"), []byte("meins, anderswo\n"), 0o644)
	if r := vb.Sync(context.Background()); !r.OK() || r.Merged == "" {
		t.Fatalf("round: %+v", r)
	}
	if got := gitRun(t, b, "status", "--porcelain"); got != "M Mine.md" {
		t.Errorf("the user's work after the merge: %q", got)
	}
}

// A push the remote rejects because it moved meanwhile is retried: the next
// round fetches, merges and pushes.
func TestSync_PushRejectedThenRetried(t *testing.T) {
	bare, a, b := gitClones(t, map[string]string{"Log.md": "# Log\n\n- start\n", "B.md": "# B\n"})
	va := gitOpen(t, a)
	vb := gitOpen(t, b)
	if _, err := va.Append("Log.md", "", []byte("- von A"), WriteOpts{Summary: "A"}); err != nil {
		t.Fatal(err)
	}
	moved := false
	va.w.hook = func(step, _ string) error {
		if step == "sync-push" && !moved {
			moved = true // B pushes between A's fetch and A's push
			if _, err := vb.Append("B.md", "", []byte("- von B, dazwischen"), WriteOpts{Summary: "B"}); err != nil {
				t.Error(err)
			}
			if r := vb.Sync(context.Background()); r.Pushed == "" {
				t.Errorf("B's round: %+v", r)
			}
		}
		return nil
	}
	r := va.Sync(context.Background())
	if r.OK() || !r.Rejected || !strings.Contains(r.Error, "push rejected: origin/main has commits this clone does not have yet") || r.Failures != 1 {
		t.Fatalf("first round: %+v", r)
	}
	r = va.Sync(context.Background())
	if !r.OK() || r.Merged != "1 commit from origin/main (merged)" || r.Pushed != "2 commits to origin/main" || r.Failures != 0 {
		t.Fatalf("second round: %+v", r)
	}
	if gitRun(t, bare, "rev-parse", "main") != gitRun(t, a, "rev-parse", "HEAD") {
		t.Error("the remote is not at A's merge")
	}
}

// A merge that stops on conflicts stays in progress, marked as vaultd's:
// the notes are in conflict, edits keeping the markers are refused, the
// last resolution commits the merge, and the next round pushes it along
// with what vaultd wrote meanwhile (which git could not take then).
func TestSync_ConflictResolvedThenPushed(t *testing.T) {
	bare, a, b := gitClones(t, map[string]string{"Plan.md": "# Plan\n\n## Ziele\n\n- offen\n", "Log.md": "# Log\n"})
	va, vb := gitOpen(t, a), gitOpen(t, b)
	if _, err := va.UpdateSection("Plan.md", "Ziele", []byte("- schnell"), WriteOpts{Summary: "A"}); err != nil {
		t.Fatal(err)
	}
	if _, err := vb.UpdateSection("Plan.md", "Ziele", []byte("- billig"), WriteOpts{Summary: "B"}); err != nil {
		t.Fatal(err)
	}
	va.Sync(context.Background())
	r := vb.Sync(context.Background())
	if !r.OK() || len(r.Conflicts) != 1 || r.Conflicts[0] != "Plan.md" || !strings.Contains(r.Waiting, "stopped on conflicts in 1 file") {
		t.Fatalf("B's round: %+v", r)
	}
	c := vb.ConflictAt("Plan.md")
	if c == nil || !c.Unmerged || len(c.Regions) != 1 || c.Sections()[0] != "Plan > Ziele" || c.Ours == nil || c.Theirs == nil || c.Theirs.Author != "mcp:claude" {
		t.Fatalf("conflict: %+v", c)
	}
	_, err := vb.Append("Plan.md", "Ziele", []byte("- noch was"), WriteOpts{Summary: "x"})
	wErr(t, err, ErrMergeConflict, "append", "Plan.md")
	// A write elsewhere while the merge is in progress: not committed yet.
	res, err := vb.Append("Log.md", "", []byte("- während des Merges"), WriteOpts{Summary: "Log"})
	if err != nil || !strings.Contains(res.Detail, "not committed to git") {
		t.Fatalf("write during the merge: %v %+v", err, res)
	}
	if r := vb.Sync(context.Background()); !strings.Contains(r.Waiting, "git is in the middle of the merge vaultd started") {
		t.Fatalf("round during the merge: %+v", r)
	}
	res, err = vb.ResolveConflict("Plan.md", ConflictResolution{Take: TakeBoth}, WriteOpts{Summary: "beide Ziele"})
	if err != nil || !strings.Contains(res.Detail, "vaultd committed the merge as") {
		t.Fatalf("resolve: %v %+v", err, res)
	}
	r = vb.Sync(context.Background())
	if !r.OK() || r.Committed != 1 || r.Pushed != "3 commits to origin/main" {
		t.Fatalf("round after the resolution: %+v", r)
	}
	if got := gitRun(t, bare, "show", "main:Plan.md"); got != "# Plan\n\n## Ziele\n\n- billig\n- schnell" {
		t.Errorf("the remote's Plan.md: %q", got)
	}
	if got := gitRun(t, bare, "show", "main:Log.md"); !strings.Contains(got, "- während des Merges") {
		t.Errorf("the write made during the merge was not pushed: %q", got)
	}
	if got := gitRun(t, b, "status", "--porcelain"); got != "" {
		t.Errorf("B's status: %q", got)
	}
}

// A rejected push is contention: retried within two intervals, never
// backed off further; other failures back off.
func TestSyncEvery_Backoff(t *testing.T) {
	_, a, _ := gitClones(t, map[string]string{"A.md": "a\n"})
	va := gitOpen(t, a)
	gitRun(t, a, "remote", "set-url", "origin", filepath.Join(t.TempDir(), "gone.git"))
	ctx, cancel := context.WithCancel(context.Background())
	var waits []time.Duration
	va.SyncEvery(ctx, time.Millisecond, func(r *SyncReport, next time.Duration) {
		if r.OK() || r.Rejected {
			t.Errorf("round: %+v", r)
		}
		waits = append(waits, next)
		if len(waits) == 4 {
			cancel()
		}
	})
	for i, w := range waits {
		lo := time.Duration(float64(time.Millisecond<<(i+1)) * 0.9)
		if w < lo || w > 2*lo {
			t.Errorf("wait %d after %d failures: %v, want about %v", i, i+1, w, time.Millisecond<<(i+1))
		}
	}
}
