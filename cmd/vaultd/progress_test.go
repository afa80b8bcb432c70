package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgress_PlainLines: outside a terminal the first line names the
// vault, then a line every 5 s with count, rate, elapsed and time left —
// never the same line twice, nothing before the delay.
func TestProgress_PlainLines(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, "indexing /home/anna/Notizen (from --vault): 70,128 notes", "indexing", "notes", time.Second)
	t0 := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	now := t0
	p.start, p.now = t0, func() time.Time { return now }
	// 300 notes a second for 20 s, updated every 200 ms, then stuck.
	for ms := 0; ms <= 30000; ms += 200 {
		now = t0.Add(time.Duration(ms) * time.Millisecond)
		done := min(ms, 20000) * 300 / 1000
		p.update(done, 70128)
	}
	now = t0.Add(45 * time.Second)
	p.update(6000, 70128)
	p.finish()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		"vaultd: indexing /home/anna/Notizen (from --vault): 70,128 notes",
		"indexing: 300 of 70,128 notes (0 %) · 300 notes/s · 1 s elapsed · about 3:53 left",
		"indexing: 1,800 of 70,128 notes (2 %) · 300 notes/s · 6 s elapsed · about 3:48 left",
		"indexing: 3,300 of 70,128 notes (4 %) · 300 notes/s · 11 s elapsed · about 3:43 left",
		"indexing: 4,800 of 70,128 notes (6 %) · 300 notes/s · 16 s elapsed · about 3:38 left",
		// Stuck from 20 s on: the rate over the last 10 s falls, the time
		// left grows, until nothing moved within the window.
		"indexing: 6,000 of 70,128 notes (8 %) · 271 notes/s · 21 s elapsed · about 3:57 left",
		"indexing: 6,000 of 70,128 notes (8 %) · 124 notes/s · 26 s elapsed · about 8:39 left",
		"indexing: 6,000 of 70,128 notes (8 %) · 45 s elapsed · time left not known yet",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	for i := 1; i < len(lines); i++ {
		if lines[i] == lines[i-1] {
			t.Errorf("line %d repeats the one before: %q", i+1, lines[i])
		}
	}
}

// TestProgress_Quick: an operation done within the delay prints nothing.
func TestProgress_Quick(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, "indexing x", "indexing", "notes", time.Second)
	p.update(5, 10)
	p.update(10, 10)
	p.finish()
	if out.Len() != 0 {
		t.Errorf("got %q, want nothing", out.String())
	}
}

func TestClock(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0 s", 42 * time.Second: "42 s", 187 * time.Second: "3:07", 3729 * time.Second: "1:02:09",
	} {
		if got := clock(d); got != want {
			t.Errorf("clock(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestReadNotesTip: a lookup that read every note of a vault never indexed
// for a second or more is told once how to stop that, with a command that
// names the vault and state dir; quicker ones pass in silence.
func TestReadNotesTip(t *testing.T) {
	var errw bytes.Buffer
	a := &app{err: &errw, stateDir: "/tmp/my state"}
	tip := a.readNotesTip("/home/anna/notes")
	tip(12, 300*time.Millisecond)
	if errw.Len() != 0 {
		t.Fatalf("a quick lookup printed %q", errw.String())
	}
	tip(6636, 5600*time.Millisecond)
	tip(6636, 5600*time.Millisecond)
	want := "vaultd: this vault has no index yet, so names were looked up by reading all 6,636 notes (5.6 s); run  vaultd index --vault /home/anna/notes --state-dir '/tmp/my state'  once (or keep vaultd serve running) and they answer at once\n"
	if errw.String() != want {
		t.Errorf("tip:\n got %q\nwant %q", errw.String(), want)
	}
}

// TestProgress_Phase: once every note is in, the line says what the
// operation does while the count stands still (the index's merge), and
// a terminal's bar shows it too.
func TestProgress_Phase(t *testing.T) {
	for _, tty := range []bool{false, true} {
		var out bytes.Buffer
		p := newProgress(&out, "indexing x: 6,636 notes", "indexing", "notes", 0)
		p.tty = tty
		t0 := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
		now := t0
		p.start, p.now = t0, func() time.Time { return now }
		for ms := 0; ms <= 5200; ms += 200 { // 1,300 notes a second, then all in
			now = t0.Add(time.Duration(ms) * time.Millisecond)
			p.update(min(6636, ms*1300/1000), 6636)
		}
		now = t0.Add(11 * time.Second)
		p.setPhase("merging the index into one segment")
		p.update(6636, 6636)
		got := out.String()
		// No rate: the count stands still, a rate would only fall.
		want := "6,636 of 6,636 notes (100 %) · merging the index into one segment · 11 s elapsed"
		if tty {
			want = "6,636/6,636 notes · merging the index into one segment · 11 s elapsed"
		}
		if !strings.Contains(got, want) {
			t.Errorf("tty %v: got %q, want %q", tty, got, want)
		}
		if n := strings.Count(got, "merging"); n != 1 {
			t.Errorf("tty %v: the phase shown %d times, want once: %q", tty, n, got)
		}
	}
}
