package vault

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestParseCache_SameBytesOneParse: notes with the same bytes share one
// Doc; other bytes get their own.
func TestParseCache_SameBytesOneParse(t *testing.T) {
	src := []byte("---\ntags: [a]\n---\n# Titel\n\n## Ziele\ntext [[Link]] #tag\n")
	n1 := NewNote("a.md", src, time.Time{}, int64(len(src)))
	n2 := NewNote("b.md", append([]byte(nil), src...), time.Time{}, int64(len(src)))
	if n1.Doc != n2.Doc {
		t.Errorf("two reads of the same bytes: got two Docs, want one shared")
	}
	if n1.Title != "Titel" || n2.Path != "b.md" || n1.Version != Version(src) {
		t.Errorf("got title %q, path %q, version %q; want Titel, b.md, %s", n1.Title, n2.Path, n1.Version, Version(src))
	}
	other := append(append([]byte(nil), src...), "mehr\n"...)
	if n3 := NewNote("a.md", other, time.Time{}, int64(len(other))); n3.Doc == n1.Doc || string(n3.Doc.Src) != string(other) {
		t.Errorf("other bytes: got the cached Doc of %q, want a Doc of %q", n1.Doc.Src, other)
	}
}

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
