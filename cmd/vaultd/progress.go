package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/vaultd/vaultd/index"
)

// progress reports one long operation on stderr — building the index,
// embedding, a move's link updates, a git sync — the same way for all:
// its first line names the vault it works on; then, on a terminal, a bar
// redrawn in place, and elsewhere (a log, a pipe, CI) a line every few
// seconds. Both give what is done of how much, the rate, the time
// elapsed and the time left (issue 32: the index build showed a bare bar,
// and outside a terminal repeated the same line every 2 s). A plain line
// is never the same as the one before it.
//
// update may be called at any rate from any goroutine; it draws at most
// 5 times a second on a terminal and once per plainEvery elsewhere.
type progress struct {
	w      io.Writer
	tty    bool
	header string // the first line: what, on which vault
	what   string // "indexing"
	unit   string // "notes"
	delay  time.Duration

	mu        sync.Mutex
	start     time.Time
	shown     bool
	lastDraw  time.Time
	lastPlain string
	window    []progressSample // recent (time, done), for the rate
	now       func() time.Time
	phase     string // what happens after the count ("merging the index"); "" none
}

type progressSample struct {
	t    time.Time
	done int
}

const (
	// plainEvery is how often a line is printed outside a terminal: often
	// enough to show it moves, rarely enough for a log to stay readable.
	plainEvery = 5 * time.Second
	// rateWindow is how far back the rate looks: long enough to smooth
	// one slow note, short enough to follow a change of pace.
	rateWindow = 10 * time.Second
)

// changeProgress reports a long change of the vault (vault.Options.Progress:
// a move's link updates) on stderr, once it has taken a second.
func (a *app) changeProgress(what string, done, total int) {
	if a.changes == nil || done == 0 {
		a.changes = newProgress(a.err, fmt.Sprintf("%s in %s: %s notes", what, a.vaultNamed, thousands(total)), what, "notes", time.Second)
	}
	a.changes.update(done, total)
	if done >= total {
		a.changes.finish()
	}
}

// whileReporting runs work, a long operation whose progress cannot be
// counted (a git sync: the remote decides), reporting the time it takes
// once it has taken a second; header names the operation and the vault.
func whileReporting[T any](a *app, header, what string, work func() T) T {
	p := newProgress(a.err, header, what, "", time.Second)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				p.update(0, 0)
			}
		}
	}()
	r := work()
	close(stop)
	<-done
	p.finish()
	return r
}

// logLines is a writer that logs each line it is given at info level: a
// progress report in a server's log (serve: the index build and the
// embedding at start).
type logLines struct{ l *slog.Logger }

func (w logLines) Write(p []byte) (int, error) {
	for _, line := range strings.Split(string(p), "\n") {
		if line = strings.TrimSpace(strings.TrimPrefix(line, "vaultd: ")); line != "" {
			w.l.Info(line)
		}
	}
	return len(p), nil
}

// logIndexProgress reports, in a server's log, the build of the index and
// then the embedding of its sections, as the command line does (a line
// every 5 s once one has taken a second), until both are done or ctx ends.
func logIndexProgress(ctx context.Context, idx *index.Shared, logger *slog.Logger, vault string) {
	w := logLines{logger}
	if waitWithProgress(ctx, idx, w, false, vault) != nil {
		return
	}
	waitForMeaning(ctx, idx, w, false, 0, vault)
}

// newProgress starts a report on w. Nothing shows until delay has passed
// (0: at the first update), so that a quick operation prints nothing.
func newProgress(w io.Writer, header, what, unit string, delay time.Duration) *progress {
	return &progress{w: w, tty: isTTY(w), header: header, what: what, unit: unit, delay: delay, start: time.Now(), now: time.Now}
}

// setPhase names what the operation does once its count is complete
// ("merging the index": the count stands still meanwhile); "" clears it.
// The next update shows it.
func (p *progress) setPhase(phase string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase = phase
}

// update reports done of total (total 0: not known, only the time shows).
func (p *progress) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.window = append(p.window, progressSample{now, done})
	for len(p.window) > 2 && now.Sub(p.window[1].t) > rateWindow {
		p.window = p.window[1:]
	}
	if now.Sub(p.start) < p.delay {
		return
	}
	if !p.shown {
		p.shown = true
		fmt.Fprintf(p.w, "vaultd: %s\n", p.header)
	}
	if p.tty {
		if now.Sub(p.lastDraw) < 200*time.Millisecond {
			return
		}
		p.lastDraw = now
		fmt.Fprintf(p.w, "\r\033[K%s", p.line(now, done, total, true))
		return
	}
	if !p.lastDraw.IsZero() && now.Sub(p.lastDraw) < plainEvery {
		return
	}
	line := p.line(now, done, total, false)
	if line == p.lastPlain {
		return
	}
	p.lastDraw, p.lastPlain = now, line
	fmt.Fprintln(p.w, line)
}

// finish ends the report: the bar is cleared from the terminal (the
// command prints its own summary).
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown && p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// line renders one report: bar or words, count, rate, elapsed, left.
func (p *progress) line(now time.Time, done, total int, bar bool) string {
	elapsed := now.Sub(p.start)
	var b strings.Builder
	b.WriteString(p.what)
	switch {
	case total > 0 && bar:
		const width = 24
		n := min(width, width*done/total)
		fmt.Fprintf(&b, " [%s%s] %s/%s %s", strings.Repeat("█", n), strings.Repeat("·", width-n), thousands(done), thousands(total), p.unit)
	case total > 0:
		fmt.Fprintf(&b, ": %s of %s %s (%d %%)", thousands(done), thousands(total), p.unit, done*100/total)
	case done > 0:
		fmt.Fprintf(&b, ": %s %s", thousands(done), p.unit)
	}
	rate := p.rate()
	switch {
	case p.phase != "":
		// The count stands still: a rate would only fall.
		b.WriteString(" · " + p.phase)
	case rate > 0 && done > 0:
		fmt.Fprintf(&b, " · %s %s/s", rateText(rate), p.unit)
	}
	fmt.Fprintf(&b, " · %s elapsed", clock(elapsed))
	if total > 0 && done < total {
		if rate > 0 {
			fmt.Fprintf(&b, " · about %s left", clock(time.Duration(float64(total-done)/rate*float64(time.Second))))
		} else if done > 0 {
			b.WriteString(" · time left not known yet")
		}
	}
	return b.String()
}

// rate is units a second over the window (0 until it can tell).
func (p *progress) rate() float64 {
	if len(p.window) < 2 {
		return 0
	}
	first, last := p.window[0], p.window[len(p.window)-1]
	d := last.t.Sub(first.t).Seconds()
	if d < 0.5 || last.done <= first.done {
		return 0
	}
	return float64(last.done-first.done) / d
}

// clock renders a duration as people read a timer: 42 s, 3:07, 1:02:09.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return fmt.Sprintf("%d:%02d", s/60, s%60)
	default:
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
}

func rateText(r float64) string {
	if r < 10 {
		return fmt.Sprintf("%.1f", r)
	}
	return thousands(int(r + 0.5))
}

// thousands writes n with a comma every three digits: 70,128.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
