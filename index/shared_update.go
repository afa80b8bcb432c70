package index

import "sync"

// groupUpdate coalesces concurrent Updates into one: while one runs, the
// paths of the calls that arrive meanwhile are gathered and indexed
// together next, and each call returns when its paths are in. An idle
// index updates at once, as before; under a load of concurrent writes (many
// clients of one server, or the clients of other processes) the index gets
// one batch for several writes instead of one each. Every batch is a new
// bleve segment that its merger must fold in again, and in the HTTP load
// (bench -only http) those merges took about half of the CPU.
type groupUpdate struct {
	ix *Index

	mu      sync.Mutex
	paths   []string
	waiters []chan error
	running bool
}

// Update indexes paths, together with the concurrent callers' paths; it
// returns the error of the batch its paths were in.
func (g *groupUpdate) Update(paths ...string) error {
	done := make(chan error, 1)
	g.mu.Lock()
	g.paths = append(g.paths, paths...)
	g.waiters = append(g.waiters, done)
	if !g.running {
		g.running = true
		go g.run()
	}
	g.mu.Unlock()
	return <-done
}

// run indexes batches until no caller waits.
func (g *groupUpdate) run() {
	for {
		g.mu.Lock()
		if len(g.waiters) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		paths, waiters := g.paths, g.waiters
		g.paths, g.waiters = nil, nil
		g.mu.Unlock()
		err := g.ix.Update(paths...)
		for _, w := range waiters {
			w <- err
		}
	}
}
