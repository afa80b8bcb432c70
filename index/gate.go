package index

import (
	"context"
	"runtime"
)

// Searches take turns for the cores: at most as many run at a time as the
// process has cores, so that a burst of searches cannot take every
// thread from read_note, list_notes and the other short calls. A search
// is CPU work from its first to its last step; more of them at once only
// slow each other and everything else down.
//
// It was one fewer than the cores (one on two). Measured with 8 HTTP
// clients (70 % read_note, 20 % search_notes, 10 % append_to_note) on
// gesetze, 2 cores, the commit with one turn as the baseline of the same
// run, twice: calls/s 589 → 661 and 563 → 661, search_notes p50 37–41 →
// 21 ms, read_note p99 19–20 → 21 ms (its target is 50 ms). With one turn
// a search waited behind another while a core ran reads, and the clients,
// which wait for each answer, waited for the searches.
var searchTurns = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))

// testHookSearching, if set, runs while a search holds its turn.
var testHookSearching func()

// searchTurn waits for a search's turn (or for ctx) and returns the func
// that ends it.
func searchTurn(ctx context.Context) (func(), error) {
	select {
	case searchTurns <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if testHookSearching != nil {
		testHookSearching()
	}
	return func() { <-searchTurns }, nil
}
