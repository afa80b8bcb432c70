package index

import (
	"context"
	"runtime"
)

// Searches take turns for the cores: at most one core fewer than the
// process has runs a search at a time (one on two cores), so that
// read_note, list_notes and the other short calls always find a core free.
// A search is CPU work from its first to its last step; more of them at
// once only slow each other and everything else down.
//
// Measured with 8 HTTP clients (70 % read_note, 20 % search_notes, 10 %
// append_to_note) on gesetze, 2 cores, two runs each: read_note p50
// 5.3–6.1 → 2.7–3.0 ms and p99 43–60 → 32–39 ms, append_to_note p50
// 53–58 → 39–40 ms, search_notes p99 248–333 → 155–169 ms; a search
// waits its turn, so its p50 rose from 42 to 73–79 ms. Calls per second
// stayed where the cores put them (310–338 before, 314–334 after).
var searchTurns = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))

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
