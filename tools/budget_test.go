package tools

import (
	"testing"
	"time"
)

// TestBucket: refill, refund up to the burst, and the wait.
func TestBucket(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := newBucket(60, 2)
	for i := range 2 {
		if ok, _ := b.take(t0); !ok {
			t.Fatalf("take %d within the burst failed", i)
		}
	}
	if ok, wait := b.take(t0); ok || wait != time.Second {
		t.Errorf("take over the burst: got %v, wait %s; want refused, 1s", ok, wait)
	}
	b.give(t0)
	if got := b.left(t0); got != 1 {
		t.Errorf("after a refund: %d left, want 1", got)
	}
	if got := b.left(t0.Add(time.Hour)); got != 2 {
		t.Errorf("after an hour: %d left, want the burst 2", got)
	}
	b.give(t0.Add(time.Hour))
	if got := b.left(t0.Add(time.Hour)); got != 2 {
		t.Errorf("a refund beyond the burst: %d left, want 2", got)
	}
}
