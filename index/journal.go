package index

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
)

// The change journal: the paths the index was handed to look at again —
// every vaultd write of every process on the vault (each asks its index,
// or the owner, to Update), and every change the watcher or a rescan
// found (Obsidian, git, an editor) — numbered in order, the latest
// journalKept of them. A reader keeps a ChangeMark and asks for what came
// after it: one call however many paths it cares about, so that a server
// holding thousands of resource subscriptions pays nothing per idle one
// (it used to stat every subscribed file every second: 20,000
// subscriptions cost a quarter of a core).

// journalKept bounds the journal. A reader whose mark is older (a git
// checkout of more files between two of its reads) is told the changes
// are lost and looks at everything it cares about once.
const journalKept = 4096

// ChangeMark is where a reader stands in an index's change journal. The
// zero mark stands nowhere: the first Changes for it reports Lost.
type ChangeMark struct {
	// Epoch names the journal: each opened index has its own, so that a
	// mark of another (the owner of a shared index changed) is not
	// taken for one of this.
	Epoch string
	Seq   uint64
}

// Changes are the paths the index looked at after a mark.
type Changes struct {
	// Paths are the vault paths, each once, in the order they were last
	// looked at; a path may have been looked at without its content
	// changing (readers compare what they know).
	Paths []string
	// Next is the mark to ask from next time.
	Next ChangeMark
	// Lost says the changes since the mark are not all known: the mark is
	// of another journal or older than the journal keeps. The reader must
	// assume that anything may have changed.
	Lost bool
}

type journal struct {
	epoch string

	mu    sync.Mutex
	seq   uint64   // of the newest entry; entries are seq-len(ring)+1 … seq
	ring  []string // the newest journalKept paths, oldest at start
	start int      // ring index of the oldest entry once the ring is full
}

func newJournal() *journal {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &journal{epoch: hex.EncodeToString(b)}
}

// add records paths as looked at.
func (j *journal) add(paths []string) {
	if len(paths) == 0 {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, p := range paths {
		j.seq++
		if len(j.ring) < journalKept {
			j.ring = append(j.ring, p)
			continue
		}
		j.ring[j.start] = p
		j.start = (j.start + 1) % journalKept
	}
}

// since returns the changes after mark m.
func (j *journal) since(m ChangeMark) Changes {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := Changes{Next: ChangeMark{Epoch: j.epoch, Seq: j.seq}}
	oldest := j.seq - uint64(len(j.ring)) // entries after it are kept
	if m.Epoch != j.epoch || m.Seq > j.seq || m.Seq < oldest {
		out.Lost = true
		return out
	}
	n := int(j.seq - m.Seq)
	seen := make(map[string]bool, n)
	ps := make([]string, 0, n)
	// Newest first, so that each path keeps its last place; then reversed.
	for i := len(j.ring) - 1; i >= len(j.ring)-n; i-- {
		p := j.ring[(j.start+i)%len(j.ring)]
		if !seen[p] {
			seen[p] = true
			ps = append(ps, p)
		}
	}
	for a, b := 0, len(ps)-1; a < b; a, b = a+1, b-1 {
		ps[a], ps[b] = ps[b], ps[a]
	}
	out.Paths = ps
	return out
}

// Changes returns the paths the index was handed since mark m (see
// ChangeMark): vaultd's writes in any process on the vault and the
// changes its watcher or rescans found. It costs one lock and the paths
// returned, not a look at any file. The error is always nil (Shared's
// reports an owner it cannot reach).
func (ix *Index) Changes(m ChangeMark) (Changes, error) { return ix.journal.since(m), nil }
