package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

// Rate limits count what happened (issue 11 item 8): a call reserves its
// write (and delete) before it runs, so that two concurrent calls never
// both pass a budget of one, and the reservation is given back when the
// call changed nothing — refused by a rule, stale version, missing summary,
// not found, any error. Only changes that were made use the budget up.
//
// golang.org/x/time/rate cannot do this: its Reservation.Cancel restores
// only the part of a token that no later reservation has "used", so with
// concurrent calls a refused call would still cost part of a write.

// bucket is a token bucket: up to burst tokens, refilled at rate per
// second. Safe for concurrent use.
type bucket struct {
	mu     sync.Mutex
	rate   float64 // tokens per second
	burst  float64
	tokens float64
	last   time.Time
}

func newBucket(perMinute, burst int) *bucket {
	return &bucket{rate: float64(perMinute) / 60, burst: float64(burst), tokens: float64(burst)}
}

// refill adds what accrued since the last call. b.mu is held.
func (b *bucket) refill(now time.Time) {
	if !b.last.IsZero() && now.After(b.last) {
		b.tokens = math.Min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	if b.last.IsZero() || now.After(b.last) {
		b.last = now
	}
}

// take takes one token, or says how long until one is there.
func (b *bucket) take(now time.Time) (ok bool, wait time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / b.rate * float64(time.Second))
}

// give returns one token taken by a call that changed nothing.
func (b *bucket) give(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(now)
	b.tokens = math.Min(b.burst, b.tokens+1)
}

// left is how many whole tokens there are now.
func (b *bucket) left(now time.Time) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(now)
	return int(b.tokens)
}

// charge is what one call has reserved from its connection's buckets. It
// is nil for callers without limits (the CLI). Safe for concurrent use.
type charge struct {
	cn *Connection

	mu             sync.Mutex
	writes, delete int
}

// refund gives back everything the call reserved.
func (ch *charge) refund(now time.Time) {
	if ch == nil {
		return
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	for ; ch.writes > 0; ch.writes-- {
		ch.cn.writes.give(now)
	}
	for ; ch.delete > 0; ch.delete-- {
		ch.cn.dels.give(now)
	}
}

// takeDelete reserves one delete more for this call (a replace that
// removes most of a note counts as one). On an empty bucket it returns how
// long until one is there.
func (ch *charge) takeDelete(now time.Time) (bool, time.Duration) {
	if ch == nil {
		return true, 0
	}
	ok, wait := ch.cn.dels.take(now)
	if ok {
		ch.mu.Lock()
		ch.delete++
		ch.mu.Unlock()
	}
	return ok, wait
}

// giveDelete gives back one delete taken with takeDelete.
func (ch *charge) giveDelete(now time.Time) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.delete > 0 {
		ch.delete--
		ch.cn.dels.give(now)
	}
}

// budgetLine says what is left of the connection's budget, for every
// answer of a write tool: "budget: 9 writes, 3 deletes left now (60 writes
// and 10 deletes a minute)".
func (cn *Connection) budgetLine(now time.Time) (string, map[string]any) {
	w := cn.writes.left(now)
	data := map[string]any{"writes_left": w, "writes_per_minute": cn.limits.WritesPerMinute}
	if !cn.Perms.Delete {
		return fmt.Sprintf("budget: %s left now (%d a minute)", plural(w, "write", "writes"), cn.limits.WritesPerMinute), data
	}
	d := cn.dels.left(now)
	data["deletes_left"], data["deletes_per_minute"] = d, cn.limits.DeletesPerMinute
	return fmt.Sprintf("budget: %s, %s left now (%d writes and %d deletes a minute)",
		plural(w, "write", "writes"), plural(d, "delete", "deletes"), cn.limits.WritesPerMinute, cn.limits.DeletesPerMinute), data
}

// rateLimited is the answer to a call over the connection's limit.
func (cn *Connection) rateLimited(what string, wait time.Duration, why string) *Result {
	per := cn.limits.WritesPerMinute
	if what == "deletes" {
		per = cn.limits.DeletesPerMinute
	}
	secs := int(wait.Seconds() + 0.999)
	if secs < 1 {
		secs = 1
	}
	text := fmt.Sprintf("error: rate limited: %sthis connection may make %d %s per minute and has used them up.\nerror code: rate_limited\nretry after: %d seconds\nNothing was changed. Wait %d seconds, then send the same call again; other connections are not affected.",
		why, per, what, secs, secs)
	return &Result{Text: text, Data: map[string]any{"error": "rate_limited", "retry_after_seconds": secs}, Err: errRateLimited}
}

// withBudget adds the budget line to the answer of a write tool, to the
// text and, as "budget", to the structured content.
func withBudget(r *Result, cn *Connection, now time.Time) *Result {
	line, data := cn.budgetLine(now)
	out := *r
	out.Text = strings.TrimRight(r.Text, "\n") + "\n" + line
	m := map[string]any{}
	if b, err := json.Marshal(r.Data); err == nil && json.Unmarshal(b, &m) == nil {
		m["budget"] = data
		out.Data = m
	}
	return &out
}
