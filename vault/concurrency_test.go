package vault

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/vaultd/vaultd/note"
)

// wSectionLines returns the lines of the section heading opens that start
// with prefix, in order.
func wSectionLines(t *testing.T, src, heading, prefix string) []string {
	t.Helper()
	d := note.Parse([]byte(src))
	h, err := d.Section(heading)
	if err != nil {
		t.Fatalf("section %q: %v\nnote:\n%s", heading, err, src)
	}
	var out []string
	for _, l := range strings.Split(string(d.SectionText(h)), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// wCheckSequence checks that lines are prefix000 … prefix(n-1), each once, in order.
func wCheckSequence(t *testing.T, lines []string, prefix string, n int) {
	t.Helper()
	if len(lines) != n {
		t.Errorf("got %d lines %q…, want %d", len(lines), prefix, n)
	}
	for i, l := range lines {
		if want := fmt.Sprintf("%s%03d", prefix, i); l != want {
			t.Errorf("line %d: got %q, want %q (lost, doubled or reordered)", i, l, want)
			return
		}
	}
}

// The concurrency test: two independent vault.Open handles on the
// same folder (as two processes would have): goroutines on both append 200
// lines under different headings of one note while another keeps replacing
// a third section with update_section — every appended line is present
// exactly once, in order per writer, and the replaced section ends with its
// last value.
func TestConcurrency_TwoHandles(t *testing.T) {
	const n = 200
	dir := t.TempDir()
	wFiles(t, dir, map[string]string{"Board.md": "# Board\n\n## A\n\n## B\n\n## C\n\nc-start\n"})
	v1 := wOpenDir(t, dir, Options{NoSync: true, Actor: "one"})
	v2 := wOpenDir(t, dir, Options{NoSync: true, Actor: "two"})

	var wg sync.WaitGroup
	appender := func(v *Vault, heading, prefix string) {
		defer wg.Done()
		for i := range n {
			if _, err := v.Append("Board.md", heading, fmt.Appendf(nil, "%s%03d", prefix, i), wOpts("log")); err != nil {
				t.Errorf("append %s%03d: %v", prefix, i, err)
				return
			}
		}
	}
	wg.Add(2)
	go appender(v1, "A", "a-")
	go appender(v2, "B", "b-")

	done := make(chan struct{})
	last := ""
	updates := 0
	var uwg sync.WaitGroup
	uwg.Add(1)
	go func() {
		defer uwg.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			v := v1
			if i%2 == 1 {
				v = v2
			}
			val := fmt.Sprintf("c-%d", i)
			if _, err := v.UpdateSection("Board.md", "C", []byte(val), wOpts("status")); err != nil {
				t.Errorf("update_section %s: %v", val, err)
				return
			}
			last = val
			updates++
		}
	}()
	wg.Wait()
	close(done)
	uwg.Wait()

	src := wRead(t, dir, "Board.md")
	wCheckSequence(t, wSectionLines(t, src, "A", "a-"), "a-", n)
	wCheckSequence(t, wSectionLines(t, src, "B", "b-"), "b-", n)
	if c := wSectionLines(t, src, "C", "c-"); len(c) != 1 || c[0] != last {
		t.Errorf("section C: got %q, want only its last value %q", c, last)
	}
	if strings.Count(src, "a-") != n || strings.Count(src, "b-") != n {
		t.Errorf("lines outside their sections:\n%s", src)
	}
	h, err := v1.History(HistoryFilter{Path: "Board.md"})
	if err != nil || len(h) != 2*n+updates {
		t.Errorf("history: got %d records (%v), want %d", len(h), err, 2*n+updates)
	}
	// Every record's Before is the After of the one before it: the writes
	// were serialised, none worked on a text another had replaced.
	for i := 0; i+1 < len(h); i++ {
		if h[i].Before != h[i+1].After {
			t.Fatalf("history record %s (%s) starts from %s, but the write before it left %s",
				h[i].ID, h[i].Op, note.ShortVersion(h[i].Before), note.ShortVersion(h[i+1].After))
		}
	}
	t.Logf("%d appends and %d section updates", 2*n, updates)
}

const appendHelperEnv = "VAULTD_TEST_APPEND_HELPER"

// TestConcurrencyHelper is run in a child process by
// TestConcurrency_TwoProcesses: it appends lines p-000… under heading P.
func TestConcurrencyHelper(t *testing.T) {
	dir := os.Getenv(appendHelperEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	v, err := Open(dir, Options{NoSync: true, Actor: "child"})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for i := range 100 {
		if _, err := v.Append("Board.md", "P", fmt.Appendf(nil, "p-%03d", i), wOpts("child")); err != nil {
			t.Fatal(err)
		}
	}
}

// Writers in two real processes: the flock on the note's lock file
// serialises them as the in-process mutex serialises goroutines.
func TestConcurrency_TwoProcesses(t *testing.T) {
	dir := t.TempDir()
	wFiles(t, dir, map[string]string{"Board.md": "## P\n\n## Q\n"})
	v := wOpenDir(t, dir, Options{NoSync: true})
	cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrencyHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), appendHelperEnv+"="+dir)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, err := v.Append("Board.md", "Q", fmt.Appendf(nil, "q-%03d", i), wOpts("parent")); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	src := wRead(t, dir, "Board.md")
	wCheckSequence(t, wSectionLines(t, src, "P", "p-"), "p-", 100)
	wCheckSequence(t, wSectionLines(t, src, "Q", "q-"), "q-", 100)
}
