package index

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Searches take turns: no more than cap(searchTurns) run at once, the next
// one waits, and a waiting one gives up when its context ends. Not
// parallel: the hook holds every search of the package.
func TestSearch_TakesTurns(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"Projekte/Plan.md": "# Plan\n\nDie Ziele des Relaunchs.\n",
		"Projekte/Team.md": "# Team\n\nAnna plant den Relaunch.\n",
		"Archiv/Altes.md":  "# Altes\n\nNichts mehr.\n",
	})
	ix := openIndex(t, v, Options{})
	n := cap(searchTurns)
	entered := make(chan struct{}, n+1)
	release := make(chan struct{})
	testHookSearching = func() {
		entered <- struct{}{}
		<-release
	}
	defer func() { testHookSearching = nil }()

	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := ix.Search(context.Background(), Query{Text: "Relaunch"})
			errs <- err
		}()
	}
	for i := range n {
		select {
		case <-entered:
		case <-time.After(hangCap):
			t.Fatalf("only %d of %d searches started", i, n)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan error, 1)
	go func() {
		_, err := ix.Search(ctx, Query{Text: "Relaunch"})
		waited <- err
	}()
	select {
	case <-entered:
		t.Fatalf("search %d ran while the %d turns were held", n+1, n)
	case err := <-waited:
		t.Fatalf("search %d returned while waiting: %v", n+1, err)
	case <-time.After(300 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-waited:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the waiting search, its context cancelled: %v, want context.Canceled", err)
		}
	case <-time.After(hangCap):
		t.Fatal("the waiting search did not give up when its context ended")
	}
	close(release)
	for range n {
		if err := <-errs; err != nil {
			t.Fatalf("a search that had its turn: %v", err)
		}
	}
	testHookSearching = nil
	if r := mustSearch(t, ix, Query{Text: "Relaunch"}); r.Total != 2 {
		t.Fatalf("after the turns: %d notes, want 2:\n%s", r.Total, describe(r))
	}
}
