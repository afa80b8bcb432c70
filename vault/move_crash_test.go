package vault

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

const moveCrashEnv = "VAULTD_TEST_MOVE_CRASH_HELPER"

// The crash fixture: Projekt/Alpha.md with ten sub-notes, and sixty notes
// elsewhere linking into them by path. Moving Alpha to Archiv/2026/ moves
// eleven notes and rewrites the links of seventy-one: the sixty (their
// paths name the old folder) and the sub-notes themselves (their relative
// links climb one folder more) — and Alpha.
const (
	crashFrom = "Projekt/Alpha.md"
	crashTo   = "Archiv/2026/Alpha.md"
)

func crashMoveFiles() map[string]string {
	files := map[string]string{
		crashFrom: "# Alpha\n\n[[Projekt/Alpha/N01]] [Außen](../Außen/X01.md)\n",
	}
	for i := 1; i <= 10; i++ {
		files[fmt.Sprintf("Projekt/Alpha/N%02d.md", i)] = fmt.Sprintf("# N%02d\n\n[zurück](../Alpha.md) [x](../../Außen/X%02d.md)\n", i, i)
	}
	for i := 1; i <= 60; i++ {
		files[fmt.Sprintf("Außen/X%02d.md", i)] = fmt.Sprintf("# X%02d\n\n[[Projekt/Alpha/N%02d]] und [Alpha](../Projekt/Alpha.md#Alpha)\n", i, i%10+1)
	}
	return files
}

// TestMoveCrashHelper runs in the child processes of
// TestMove_CrashKilledMover: it opens the vault, says "ready", and moves.
func TestMoveCrashHelper(t *testing.T) {
	dir := os.Getenv(moveCrashEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	// NoSync: a SIGKILL loses no data the kernel has (fsync guards against
	// power loss, not against a killed process), and the protocol's
	// atomicity — rename over temp files, the plan before any change — is
	// what this test checks; with fsync on ext4 each round takes a second.
	v, err := Open(dir, Options{Actor: "crash-helper", NoSync: true})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	b, err := os.ReadFile(filepath.Join(dir, crashFrom))
	if err != nil {
		fmt.Println("read:", err)
		os.Exit(2)
	}
	fmt.Println("ready")
	if _, err := v.Move(crashFrom, crashTo, WriteOpts{Summary: "archiviert", ExpectedVersion: note.Version(b)}); err != nil {
		fmt.Println("move:", err)
		os.Exit(2)
	}
	fmt.Println("done")
	os.Exit(0)
}

// The crash test: a move that rewrites 71 files is killed with
// SIGKILL at a random moment, 50 times, each on a fresh copy of the vault.
// Afterwards every file is either as it was or as the finished move leaves
// it (at its old place with its old text, or at its new place with its
// old or new text — never both places, never neither, never torn), and
// every link that no longer resolves is in a file Recover reports as
// pending.
func TestMove_CrashKilledMover(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is a Unix signal")
	}
	orig := crashMoveFiles()
	moved := func(p string) string {
		switch {
		case p == crashFrom:
			return crashTo
		case strings.HasPrefix(p, "Projekt/Alpha/"):
			return "Archiv/2026/Alpha/" + strings.TrimPrefix(p, "Projekt/Alpha/")
		}
		return p
	}

	// The finished move, in process: what every file becomes, and how long
	// it takes.
	ref := t.TempDir()
	wFiles(t, ref, orig)
	rv := wOpenDir(t, ref, Options{NoSync: true})
	origUnresolved := map[string]int{}
	for _, u := range mUnresolved(t, rv) {
		origUnresolved[strings.SplitN(u, ": ", 2)[0]]++
	}
	start := time.Now()
	res, err := rv.Move(crashFrom, crashTo, WriteOpts{Summary: "archiviert", ExpectedVersion: note.Version([]byte(orig[crashFrom]))})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if len(res.Relinked) < 50 {
		t.Fatalf("the move rewrites %d files, want ≥ 50", len(res.Relinked))
	}
	final := map[string]string{}
	for p := range orig {
		final[moved(p)] = wRead(t, ref, moved(p))
	}
	if u := mUnresolved(t, rv); len(u) != 0 {
		t.Fatalf("unresolved links after the finished move: %q", u)
	}

	rounds := 50
	if testing.Short() {
		rounds = 10
	}
	window := took + 5*time.Millisecond
	interrupted, untouched, finished := 0, 0, 0
	for round := range rounds {
		dir := t.TempDir()
		wFiles(t, dir, orig)
		cmd := exec.Command(os.Args[0], "-test.run=^TestMoveCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), moveCrashEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		if strings.TrimSpace(line) != "ready" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: helper said %q, want ready", round, line)
		}
		time.Sleep(time.Duration(rand.Int64N(int64(window))))
		cmd.Process.Kill()
		cmd.Wait()

		// Every file old or new.
		for p, old := range orig {
			np := moved(p)
			a, errA := os.ReadFile(filepath.Join(dir, p))
			b, errB := os.ReadFile(filepath.Join(dir, np))
			switch {
			case p == np:
				if errA != nil || string(a) != old && string(a) != final[np] {
					t.Fatalf("round %d: %s is neither old nor new: %q (%v)", round, p, a, errA)
				}
			case errA == nil && errB == nil:
				t.Fatalf("round %d: %s is at both %s and %s", round, p, p, np)
			case errA != nil && errB != nil:
				t.Fatalf("round %d: %s is at neither %s nor %s", round, p, p, np)
			case errA == nil && string(a) != old:
				t.Fatalf("round %d: %s at its old place is not its old text: %q", round, p, a)
			case errB == nil && string(b) != old && string(b) != final[np]:
				t.Fatalf("round %d: %s at its new place is neither old nor new: %q", round, np, b)
			}
		}

		// Recover: what it reports pending explains every broken link.
		v := wOpenDir(t, dir, Options{NoSync: true})
		rep, err := v.recover(0)
		if err != nil {
			t.Fatalf("round %d: Recover: %v", round, err)
		}
		pending := map[string]bool{}
		for _, in := range rep.Interrupted {
			for _, p := range in.Pending {
				pending[p] = true
			}
		}
		if temps := wTemps(t, dir); len(temps) != 0 {
			t.Fatalf("round %d: temp files left after Recover: %q", round, temps)
		}
		broken := map[string]int{}
		for _, u := range mUnresolved(t, v) {
			broken[strings.SplitN(u, ": ", 2)[0]]++
		}
		// Recover finishes the move: no link is left broken, nothing pending.
		var unexplained []string
		for p, n := range broken {
			if n > origUnresolved[p] {
				unexplained = append(unexplained, p)
			}
		}
		sort.Strings(unexplained)
		if len(unexplained) > 0 || len(pending) > 0 {
			t.Fatalf("round %d: after Recover, notes with broken links %q, pending %v (report: %+v)", round, unexplained, pending, rep.Interrupted)
		}
		if len(rep.Interrupted) > 0 {
			for p := range orig {
				if np := moved(p); np != p && !wExists(dir, np) {
					t.Fatalf("round %d: after Recover finished the move, %s is not at %s", round, p, np)
				}
			}
		}
		switch {
		case len(rep.Interrupted) > 0:
			interrupted++
		case wExists(dir, crashFrom):
			untouched++
		default:
			finished++
		}
		// Recover reports a group once.
		if rep2, _ := v.recover(0); len(rep2.Interrupted) != 0 {
			t.Fatalf("round %d: an interrupted move reported twice", round)
		}
		v.Close()
	}
	t.Logf("%d kills (move takes %v in process): %d interrupted mid-move, %d before it started, %d after it finished",
		rounds, took.Round(time.Millisecond), interrupted, untouched, finished)
	if interrupted == 0 {
		t.Errorf("no kill landed in the middle of a move; the test proves nothing")
	}
}

func wExists(dir, p string) bool {
	_, err := os.Stat(filepath.Join(dir, p))
	return err == nil
}
