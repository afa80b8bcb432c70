package e2e

import (
	"context"
	"testing"
	"time"
)

// waitCap is how long a test waits for one thing a correct vaultd does
// (an answer, a line on stderr, an exit). It decides nothing about speed:
// a cold or loaded machine is slow, not wrong (issue 32: make test was
// killed on a busy machine, where the answers came in tens of seconds).
// So it is 5 minutes — a hang, not a slow start — and never more than
// the time left before go test's -timeout less a minute, so that a hang
// fails with what was seen instead of a killed test binary.
func waitCap(t testing.TB) time.Duration {
	const hang = 5 * time.Minute
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := d.Deadline(); ok {
			left := time.Until(end) - time.Minute
			if left < 10*time.Second {
				left = 10 * time.Second
			}
			return min(left, hang)
		}
	}
	return hang
}

// waitCtx is a context that ends after waitCap.
func waitCtx(t testing.TB) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), waitCap(t))
}
