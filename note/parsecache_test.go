package note

import (
	"fmt"
	"sync"
	"testing"
)

// TestParseCache_Bounded: the cache stays within its bound, drops the least
// recently used first, and does not keep a note larger than a quarter of it.
func TestParseCache_Bounded(t *testing.T) {
	c := newParseCache(20 << 10)
	note := func(i, size int) []byte {
		b := fmt.Appendf(nil, "# Note %d\n", i)
		for len(b) < size {
			b = append(b, "Text text text.\n"...)
		}
		return b
	}
	var srcs [][]byte
	for i := range 40 {
		b := note(i, 1000)
		srcs = append(srcs, b)
		c.parse(Version(b), b)
		c.parse(Version(srcs[0]), srcs[0]) // keep note 0 recently used
		if got := c.bytes(); got > 20<<10 {
			t.Fatalf("after %d notes: %d bytes cached, want at most %d", i+1, got, 20<<10)
		}
	}
	if c.get(Version(srcs[0])) == nil {
		t.Errorf("the most recently used note was evicted")
	}
	if c.get(Version(srcs[1])) != nil {
		t.Errorf("an old, unused note is still cached")
	}
	big := note(99, 6<<10)
	if d := c.parse(Version(big), big); d == nil || c.get(Version(big)) != nil {
		t.Errorf("a note over a quarter of the bound: got cached %v, want parsed but not cached", c.get(Version(big)) != nil)
	}
}

// TestParseCache_Concurrent reads the same and different notes from many
// goroutines (run with -race).
func TestParseCache_Concurrent(t *testing.T) {
	c := newParseCache(1 << 20)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				b := fmt.Appendf(nil, "# N %d\n\n## S\nx\n", (i+g)%50)
				if d := c.parse(Version(b), b); string(d.Src) != string(b) || len(d.Headings) != 2 {
					t.Errorf("got a Doc of %q with %d headings, want one of %q with 2", d.Src, len(d.Headings), b)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := c.len(); n != 50 {
		t.Errorf("got %d cached notes, want 50", n)
	}
}
