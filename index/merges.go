package index

import (
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bindex "github.com/blevesearch/bleve_index_api"
)

// A large catch-up (a first build) holds bleve's merger until its last
// batch is in, and then merges every segment in one pass (compact).
//
// Under the serving policy (mergeOptions) the merger took the build's
// segments in as they came, 2 per batch, and merged the merged segments
// again as they grew, before the final merge wrote every document once
// more: 21 s of the 94 s of CPU of a build of the laws. Held, the one
// merge takes 10 s and the build 75 s of CPU (45 s instead of 49 s wall;
// bench -only build against the commit before). The price is mapped
// memory: all the segments stay mapped until the final merge, so the
// build's peak RSS counts ~200 MB more of the kernel's page cache (the
// anonymous peak, the heap, is unchanged at ~385 MB).

// maxHeldSegments: a build whose index reaches this many segments lets the
// merger go on. bleve's persister waits for the merger at 1,000 segment
// files (PersisterNapUnderNumFiles), and the batches would pile up in
// memory meanwhile. A build of the laws makes ~170 segments (2 MB
// batches of 2 parts), of 4× the laws ~670.
var maxHeldSegments uint64 = 800

// mergeCallback names the event callback every index is opened with.
const mergeCallback = "vaultd-merge-hold"

// mergeHolds maps a held index (*scorch.Scorch) to the channel its
// release closes.
var mergeHolds sync.Map

func init() {
	scorch.RegistryEventCallbacks[mergeCallback] = func(e scorch.Event) bool {
		if e.Kind == scorch.EventKindPreMergeCheck {
			if c, ok := mergeHolds.Load(e.Scorch); ok {
				<-c.(chan struct{}) // on the merger's goroutine
			}
		}
		return true
	}
}

// holdMerges keeps the merger of ix's index from merging until release
// runs (also when the index is closed first: see releaseMerges).
func (ix *Index) holdMerges() (release func()) {
	var s *scorch.Scorch
	_ = ix.bi.advanced(false, func(adv bindex.Index) error {
		s, _ = adv.(*scorch.Scorch)
		return nil
	})
	if s == nil {
		return func() {}
	}
	mergeHolds.Store(s, make(chan struct{}))
	return func() { releaseScorch(s) }
}

// mergesHeldTooLong releases the hold on ix's merger (holdMerges) when its
// index has maxHeldSegments segments or more.
func (ix *Index) mergesHeldTooLong() {
	_ = ix.bi.advanced(false, func(adv bindex.Index) error {
		s, ok := adv.(*scorch.Scorch)
		if !ok {
			return nil
		}
		_, held := mergeHolds.Load(s)
		if held {
			if n, _ := s.StatsMap()["CurOnDiskFiles"].(uint64); n >= maxHeldSegments {
				ix.log.Info("search index: merging while building", "files", n)
				releaseScorch(s)
				held = false
			}
		}
		if testHookHeld != nil {
			testHookHeld(held)
		}
		return nil
	})
}

// testHookHeld, if set, is told after each batch of a build whether the
// merger is still held.
var testHookHeld func(held bool)

// releaseMerges lets the merger of bi go on; closing an index waits for a
// merger that is held.
func releaseMerges(bi bleve.Index) {
	if adv, err := bi.Advanced(); err == nil {
		if s, ok := adv.(*scorch.Scorch); ok {
			releaseScorch(s)
		}
	}
}

func releaseScorch(s *scorch.Scorch) {
	if c, ok := mergeHolds.LoadAndDelete(s); ok {
		close(c.(chan struct{}))
	}
}
