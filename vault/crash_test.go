package vault

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

const crashHelperEnv = "VAULTD_TEST_CRASH_HELPER"

// crashNotes are the notes the crash helper keeps replacing.
var crashNotes = []string{"C/Eins.md", "C/Zwei.md", "Drei.md"}

// crashContent is generation k of note i: sizes vary from a few hundred
// bytes to tens of kilobytes, so that a kill lands in writes of all sizes.
func crashContent(i, k int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# note %d generation %d\n\n", i, k)
	for j := range 10 + (k*37+i*11)%600 {
		fmt.Fprintf(&b, "- line %d of generation %d of note %d\n", j, k, i)
	}
	return b.String()
}

// crashGeneration returns the generation of note i's content, or -1 if the
// content is not exactly some generation (torn, empty, mixed).
func crashGeneration(i int, content string) int {
	var ni, k int
	if _, err := fmt.Sscanf(content, "# note %d generation %d\n", &ni, &k); err != nil || ni != i {
		return -1
	}
	if content != crashContent(i, k) {
		return -1
	}
	return k
}

// TestCrashHelper runs in the child processes of TestCrash_KilledWriter:
// it says "ready", then replaces the notes with their next generation,
// one after the other, forever.
func TestCrashHelper(t *testing.T) {
	dir := os.Getenv(crashHelperEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	v, err := Open(dir, Options{Actor: "crash-helper"}) // durability on: the real write path
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	fmt.Println("ready")
	// Start at a random note, so that the kills land in writes of every note.
	for n := rand.IntN(len(crashNotes)); ; n++ {
		i := n % len(crashNotes)
		p := crashNotes[i]
		b, err := os.ReadFile(dir + "/" + p)
		if err != nil {
			fmt.Println("read:", err)
			os.Exit(2)
		}
		k := crashGeneration(i, string(b))
		if _, err := v.Replace(p, []byte(crashContent(i, k+1)), WriteOpts{Summary: "next generation", ExpectedVersion: note.Version(b)}); err != nil {
			fmt.Println("replace:", err)
			os.Exit(2)
		}
		fmt.Println("wrote")
	}
}

// The crash test: a child process doing replaces is killed with
// SIGKILL 100 times; afterwards no note is torn or empty and each is either
// its old or its new content.
func TestCrash_KilledWriter(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is a Unix signal")
	}
	dir := t.TempDir()
	files := map[string]string{}
	for i, p := range crashNotes {
		files[p] = crashContent(i, 0)
	}
	wFiles(t, dir, files)
	gens := make([]int, len(crashNotes))

	kills := 100
	if testing.Short() {
		kills = 20
	}
	if stressScale() > 1 {
		kills = 300
	}
	start := time.Now()
	for round := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashHelperEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		out := bufio.NewReader(stdout)
		line, _ := out.ReadString('\n')
		if strings.TrimSpace(line) != "ready" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: helper said %q, want ready", round, line)
		}
		// Every tenth round lets one write finish first, so that the kills
		// also land late in a run even on a loaded machine, where a child
		// may otherwise never get past its first write.
		if round%10 == 9 {
			if l, _ := out.ReadString('\n'); strings.TrimSpace(l) != "wrote" {
				t.Fatalf("round %d: helper said %q, want wrote", round, l)
			}
		}
		// Kill at a random moment within the first few writes.
		time.Sleep(time.Duration(rand.IntN(8000)) * time.Microsecond)
		cmd.Process.Kill() // SIGKILL on Unix
		cmd.Wait()

		for i, p := range crashNotes {
			content := wRead(t, dir, p)
			k := crashGeneration(i, content)
			switch {
			case k < 0:
				t.Fatalf("round %d: %s is torn or empty (%d bytes): %.80q…", round, p, len(content), content)
			case k < gens[i]:
				t.Fatalf("round %d: %s went back from generation %d to %d", round, p, gens[i], k)
			}
			gens[i] = k
		}
	}
	t.Logf("%d kills in %v; generations reached %v", kills, time.Since(start).Round(time.Millisecond), gens)

	// Afterwards: stale temp files are cleaned up, history reads, locks
	// died with their processes, and the notes are writable.
	v := wOpenDir(t, dir, Options{NoSync: true})
	rep, err := v.recover(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d temp files left by killed writes removed; %d writes killed before their record completed from their intent", len(rep.RemovedTemps), len(rep.Completed))
	// Every text on disk is explained by a record of the helper's writes,
	// never by "changed outside vaultd".
	if len(rep.External) != 0 {
		t.Errorf("after the kills, %d notes are taken for changes outside vaultd: %+v", len(rep.External), rep.External)
	}
	if temps := wTemps(t, dir); len(temps) != 0 {
		t.Errorf("temp files left after Recover: %q", temps)
	}
	h, err := v.History(HistoryFilter{Limit: 1})
	if err != nil || len(h) != 1 {
		t.Errorf("history after the kills: %v, %v", h, err)
	}
	b, _ := os.ReadFile(dir + "/" + crashNotes[0])
	if _, err := v.Replace(crashNotes[0], []byte("after\n"), WriteOpts{Summary: "s", ExpectedVersion: note.Version(b)}); err != nil {
		t.Errorf("replace after the kills: %v", err)
	}
}

const intentHelperEnv = "VAULTD_TEST_INTENT_HELPER"

// TestIntentHelper appends to a note and is killed by SIGKILL between the
// publish and the history record (at the second journal write: the first
// is the intent).
func TestIntentHelper(t *testing.T) {
	dir := os.Getenv(intentHelperEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	v, err := Open(dir, Options{Actor: "mcp:claude-code"})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	journals := 0
	v.w.hook = func(step, name string) error {
		if step == "journal" && name == historyFile {
			if journals++; journals == 2 {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {}
			}
		}
		return nil
	}
	_, err = v.Append("Notiz.md", "", []byte("- vom Agenten"), WriteOpts{Summary: "Entscheidung notiert"})
	fmt.Println("not killed:", err)
	os.Exit(2)
}

// A write killed after its publish, before its history record, is
// recorded at the next start with the actor and summary it was made with,
// not as a change outside vaultd.
func TestCrash_KilledBeforeRecord(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is a Unix signal")
	}
	dir := t.TempDir()
	wFiles(t, dir, map[string]string{"Notiz.md": "# Notiz\n"})
	cmd := exec.Command(os.Args[0], "-test.run=^TestIntentHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), intentHelperEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if got := wRead(t, dir, "Notiz.md"); got != "# Notiz\n\n- vom Agenten\n" {
		t.Fatalf("the note after the kill: %q", got)
	}
	v := wOpenDir(t, dir, Options{NoSync: true})
	rep, err := v.Recover()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.External) != 0 || len(rep.Completed) != 1 {
		t.Fatalf("Recover: external %+v, completed %+v; want the one write completed", rep.External, rep.Completed)
	}
	h, err := v.History(HistoryFilter{Path: "Notiz.md"})
	if err != nil || len(h) != 1 {
		t.Fatalf("history: %+v, %v", h, err)
	}
	if ch := h[0]; ch.Op != "append" || ch.Actor != "mcp:claude-code" || !strings.HasPrefix(ch.Summary, "Entscheidung notiert") || ch.After != wVersion(t, dir, "Notiz.md") {
		t.Errorf("recorded %+v; want the agent's append with its summary", ch)
	}
	if rep, _ := v.Recover(); len(rep.Completed)+len(rep.External) != 0 {
		t.Errorf("a second Recover recorded again: %+v", rep)
	}
}
