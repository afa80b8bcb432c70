// Package index is vaultd's full-text search and link index. It is the only
// package that imports bleve.
//
// An Index lives in the vault's state dir: a bleve (scorch) index on disk,
// a manifest of the files it reflects (path, size, mtime, version) and a
// lock file naming the process that owns it. Open returns at once; the
// comparison with the files (the first build, or the catch-up after a
// restart) runs in the background while searches are already answered, and
// Status and every Results say how far it is. With Options.Watch the index
// follows changes made by other programs (fsnotify, debounced); vaultd's own
// writes call Update, which reindexes synchronously, so the next search
// sees them.
//
// index imports note and vault (and embed, for search by meaning) and no
// door: not tools, mcpserver, trial or cmd/, not mcp-go, not cobra.
package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
	zapx "github.com/blevesearch/zapx/v17"

	"github.com/vaultd/vaultd/embed"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// ErrBusy means another process owns the vault's search index. The error is
// a *BusyError naming it.
var ErrBusy = errors.New("search index busy")

// ErrClosed is returned by calls on a closed Index.
var ErrClosed = errors.New("search index closed")

// BusyError says which process owns the index.
type BusyError struct {
	PID int // 0 if unknown
}

func (e *BusyError) Error() string {
	who := "another vaultd process"
	if e.PID > 0 {
		who = fmt.Sprintf("another vaultd process (pid %d)", e.PID)
	}
	return "the search index of this vault is in use by " + who +
		"; only one vaultd process can keep the index of a vault. Use that process (connect your client to it), " +
		"stop it, or give this one its own state dir with --state-dir"
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// Options configure an Index. The zero value is usable.
type Options struct {
	// Dir holds the index, its manifest and lock file. Default: the
	// vault's state dir.
	Dir string
	// Watch makes the index follow changes made by other programs.
	Watch bool
	// Logger receives progress and problems (default: slog.Default()).
	Logger *slog.Logger

	// Quiet and MaxDelay debounce file events: a batch is indexed after
	// Quiet without events, at the latest MaxDelay after its first event
	// (defaults 200 ms and 2 s: a git checkout of hundreds of files
	// becomes one batch, LIBRARIES.md §4.4).
	Quiet, MaxDelay time.Duration
	// PollInterval is how often the vault is rescanned when it cannot be
	// watched (watch limit reached). Default 30 s.
	PollInterval time.Duration
	// Workers read and parse notes in parallel (default GOMAXPROCS).
	Workers int
	// BatchDocs and BatchBytes bound one index batch (defaults 200 notes,
	// 2 MB of text): they set the memory of a build more than its speed.
	// (With a document per section, a 4 MB batch of laws is as many
	// documents as an 8 MB batch was before them; 6 and 8 MB batches
	// made the gesetze build slower. Since a build holds its merges
	// (holdMerges), a smaller batch costs no merging but the final one:
	// builds of the laws, in-process, 2 MB against 4 MB: 37 s instead of
	// 39–41 s wall, 58–60 s of CPU instead of 67–70 s.)
	BatchDocs, BatchBytes int
	// Names, when set, is a Names of the same vault and dir (a server
	// answers names with it until the index is open): when its table was
	// read from the manifest the index opens with, the index takes the
	// table over instead of making its own (on 4× the laws each took 120
	// ms of a restart).
	Names *Names
	// BuildMemory is the soft memory limit (runtime/debug.SetMemoryLimit)
	// of the process while a large catch-up runs (a first build): the
	// garbage collector then runs before the heap doubles. Default 384
	// MiB; negative: none. It is not set when the process has a limit of
	// its own (GOMEMLIMIT). Under the limit the collector runs at
	// buildGCPercent instead of GOGC's 100, unless GOGC is set.
	BuildMemory int64

	// Embedder, if set, makes the index search by meaning too: a vector
	// per section, kept in the index dir and embedded in the background
	// (meaning.go). EmbedderError says why the configured embedder could
	// not be loaded: searches are by words and say so.
	Embedder      embed.Embedder
	EmbedderError error
}

// Status is what the index knows about its own state.
type Status struct {
	// Building is true while the index compares itself with the files
	// (first build, catch-up after a start, rescan after lost events).
	// Results may then miss or show stale notes.
	Building bool
	// Done of Total notes of the vault are indexed and up to date (while
	// building); otherwise both are the number of notes.
	Done, Total int
	// Merging is true (with Building) while a large catch-up, every note
	// indexed, merges the index into one segment (compact: ~11 s for the
	// 166 MB of the laws): results are complete, searches slower.
	Merging bool `json:",omitempty"`
	// Watching is true while changes by other programs are followed.
	Watching bool
	// Problem explains, for people, what is degraded ("" if nothing).
	Problem string
	// Unhealthy is true while the index cannot be written (a full state
	// dir): searches are refused until it heals by itself (Problem says
	// why).
	Unhealthy bool `json:",omitempty"`
	// Indexed counts the notes (re)indexed since Open: parsed and written
	// to the index, not just found unchanged.
	Indexed int
	// Updated is when the index last took in a change (zero: none since
	// Open, the index was already up to date).
	Updated time.Time `json:",omitzero"`
	// Meaning is the state of search by meaning (zero when it is off).
	Meaning MeaningStatus
}

// Text renders the status as one line for people and agents, "" when the
// index is complete: "index building: 3,120 of 6,636 notes".
func (s Status) Text() string {
	if s.Unhealthy {
		return "index not up to date: " + s.Problem
	}
	if !s.Building {
		return ""
	}
	if s.Total == 0 {
		return "index building: listing the vault's notes; results may be incomplete"
	}
	if s.Merging {
		return fmt.Sprintf("index building: all %s notes indexed, merging the index; results are complete, searches slower until it is done", thousands(s.Total))
	}
	return fmt.Sprintf("index building: %s of %s notes; results may be incomplete", thousands(s.Done), thousands(s.Total))
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Index is a vault's search and link index. It is safe for concurrent use.
type Index struct {
	v    *vault.Vault
	o    Options
	log  *slog.Logger
	dir  string
	lock *lockFile
	bi   *store // the bleve index, with its health (health.go)

	// wmu serializes every change of the index, the manifest and the path
	// set. Searches never take it.
	wmu       sync.Mutex
	man       *manifest       // guarded by wmu
	paths     map[string]bool // guarded by wmu: every note and attachment, the resolver's input
	secMemo   sectionMemo     // the section documents of notes written lately (sectionmemo.go)
	manDirty  bool            // guarded by wmu
	manSaved  time.Time       // guarded by wmu
	resolver  atomic.Pointer[note.Resolver]
	noteCount atomic.Int64

	// openedWithNames: the manifest Open loaded held notes, whose names
	// answer lookups before the catch-up ends (names.go).
	openedWithNames bool
	names           atomic.Pointer[vault.NameTable] // names.go
	namesGen        atomic.Uint64                   // counts the tables built
	namesDirty      atomic.Bool                     // a commit changed the notes' names
	namesMu         sync.Mutex                      // one rebuild at a time

	indexed     atomic.Int64
	updated     atomic.Int64 // unix nanoseconds of the last batch written; 0: none yet
	building    atomic.Bool
	merging     atomic.Bool // compact is running (Status.Merging)
	done, total atomic.Int64
	watching    atomic.Bool
	walkedAll   atomic.Bool // the last catchUpEntering walked the whole vault
	watchWarned atomic.Bool
	problem     atomic.Pointer[string]

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	ready  chan struct{}
	// watchesSet is closed once the watches of the folders the start's
	// walk trusted are added and the folders rechecked (watchTrusted).
	watchesSet chan struct{}
	closed     atomic.Bool
	rescan     chan struct{} // asks the background loop for a full rescan

	watcher atomic.Pointer[watcher] // nil unless watching (tests look at it)

	journal *journal // the paths handed to process (journal.go)

	// walked is what the last complete catch-up walk found besides
	// notes (WalkedFiles).
	walked struct {
		sync.Mutex
		files []string // sorted
		mark  ChangeMark
		ok    bool
	}

	meaning    *Meaning // nil unless Options.Embedder
	meaningErr string   // why search by meaning is off although configured

	// gen counts the changes of the index's content; what is derived
	// from its term dictionaries is remembered per gen (dictPrefix).
	gen      atomic.Uint64
	prefixes struct {
		sync.Mutex
		gen uint64
		m   map[string][]termCount
		n   map[string]int // terms found, where more than kept
	}
	fields struct { // noteFields
		sync.Mutex
		m map[string]map[string]any
	}
	freqs struct { // docFreq
		sync.Mutex
		gen uint64
		m   map[string]uint64
	}
}

// mergeOptions are the merge policy of the index while it serves: bleve's
// defaults but for the floor, which is 100 notes instead of 2,000.
//
// Every write through vaultd indexes its note as a segment of its own.
// Under bleve's floor a vault of a few thousand notes is allowed about four
// segments, so each write pushed the index over budget and the merger
// rewrote the small segments together again and again: 1.5–2 ms of CPU per
// append in the HTTP load (bench -only http), more than the write itself.
// With the lower floor about ten small segments are allowed besides the
// large ones. Most of them die before a merge: a note written again
// replaces its segment, and a segment without live notes is dropped for
// free. A tiny segment adds little to a search (a dictionary lookup per
// query term); under the HTTP load a search cost the same CPU with the
// merges gone.
//
// A large catch-up (a fresh build) does not merge as it goes: it holds the
// merger (holdMerges) and ends with one merge of all its segments
// (compact).
var mergeOptions = map[string]any{"FloorSegmentSize": 100}

// compactedKey is the internal key compact writes to.
const compactedKey = "vaultd-compacted"

// compactAfterBatches: a catch-up that indexed at least this many batches of
// notes merges the index afterwards (compact).
const compactAfterBatches = 4

func init() {
	// zapx sizes the buffer of a new segment as its average bytes per
	// document so far times (documents + NewSegmentBufferNumResultsBump),
	// the bump defaulting to 100. vaultd's own writes index one note per
	// batch, so each got a buffer 101 notes large: for a 100 KB note, 10 MB
	// allocated and cleared per write, a quarter of the index's CPU in the
	// HTTP load (bench -only http). Without the bump the estimate is the
	// batch's own size; the buffer still grows when it is short.
	zapx.NewSegmentBufferNumResultsBump = 0
}

const (
	indexDirName = "index"
	manifestName = "index.manifest"
	lockName     = "index.lock"
)

// Open opens (or creates) the search index of v and starts bringing it up to
// date in the background; see Status and WaitReady. Errors: *BusyError
// (ErrBusy) when another process owns the index; errors creating the state
// dir. A corrupt index or one built by another version is rebuilt, not an
// error.
func Open(v *vault.Vault, o Options) (*Index, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Dir == "" {
		o.Dir = v.StateDir()
	}
	if o.Quiet <= 0 {
		o.Quiet = 200 * time.Millisecond
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = 2 * time.Second
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 30 * time.Second
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.BatchDocs <= 0 {
		o.BatchDocs = 200
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = 2 << 20
	}
	if o.BuildMemory == 0 {
		o.BuildMemory = 384 << 20
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the index dir: %w", err)
	}
	lock, err := acquireLock(filepath.Join(o.Dir, lockName))
	if err != nil {
		return nil, err
	}
	ix := &Index{v: v, o: o, log: o.Logger, dir: o.Dir, lock: lock, ready: make(chan struct{}), watchesSet: make(chan struct{}), rescan: make(chan struct{}, 1), journal: newJournal()}
	if err := ix.openBleve(); err != nil {
		var busy *BusyError
		if errors.As(err, &busy) {
			lock.release()
			return nil, err
		}
		// The index cannot be made now (a full or read-only state dir):
		// this process owns it anyway, unhealthy, and makes it as soon as
		// it can (heal), so that others on the vault are served then too.
		ix.log.Error("search index: cannot open it; retrying in the background", "err", err)
		ix.bi = &store{onFail: ix.requestRescan, dir: ix.dir}
		ix.bi.fail(err)
		ix.man = newManifest()
	}
	if o.Names != nil && ix.man.file != nil {
		if t := o.Names.tableOf(ix.man.file); t != nil {
			ix.names.Store(t)
			ix.namesGen.Add(1)
		}
	}
	ix.rebuildResolver()
	ix.noteCount.Store(int64(ix.man.notes()))
	ix.openedWithNames = ix.noteCount.Load() > 0
	ix.total.Store(ix.noteCount.Load())
	ix.done.Store(ix.noteCount.Load())
	ix.building.Store(true)
	ix.ctx, ix.cancel = context.WithCancel(context.Background())
	// What stops search by meaning is logged in full; agents read a
	// reason without the host paths the error names.
	if o.EmbedderError != nil {
		ix.log.Warn("meaning search: the embedder cannot be loaded; searching by words", "err", o.EmbedderError)
		ix.meaningErr = "the configured embedder cannot be loaded (the vaultd log says why)"
	} else if o.Embedder != nil {
		m, err := ix.StartMeaning(o.Embedder)
		if err != nil {
			ix.log.Warn("meaning search: cannot open the vectors; searching by words", "err", err)
			ix.meaningErr = "its vectors in the state dir cannot be opened (the vaultd log says why)"
		}
		ix.meaning = m
	}
	ix.wg.Add(1)
	go ix.run()
	if ix.openedWithNames {
		// The first search looks its words up among the notes' names
		// (namedFirst): the table is made from the manifest while the
		// catch-up walks, not after it (on 4× the laws: 290 ms of the
		// first search).
		ix.wg.Add(1)
		go func() {
			defer ix.wg.Done()
			ix.nameTable().PrepareNamed()
		}()
	}
	return ix, nil
}

// openBleve opens the bleve index and the manifest, or starts a new index
// when either is missing, unreadable or from another mapping version.
func (ix *Index) openBleve() error {
	path := filepath.Join(ix.dir, indexDirName)
	cfg := map[string]any{"bolt_timeout": "1s", "scorchMergePlanOptions": mergeOptions, "eventCallbackName": mergeCallback}
	man, merr := loadManifest(filepath.Join(ix.dir, manifestName))
	if _, err := os.Stat(path); err == nil && merr == nil && man.Version == mappingVersion {
		bi, err := bleve.OpenUsing(path, cfg)
		if err == nil {
			ix.setBleve(bi)
			ix.man = man
			ix.manDirty = man.gob // saved in the binary form at the catch-up's end
			return nil
		}
		if isBoltTimeout(err) {
			return &BusyError{PID: readPID(filepath.Join(ix.dir, lockName))}
		}
		if diskTrouble(err) {
			// A full or unwritable state dir, not a damaged index: keep
			// it for when the disk is usable again.
			return fmt.Errorf("open the search index: %w", err)
		}
		ix.log.Warn("search index unreadable; rebuilding it", "err", err)
	} else if err == nil {
		ix.log.Info("search index is from another version or has no manifest; rebuilding it")
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("remove the old search index: %w", err)
	}
	bi, err := bleve.NewUsing(path, newMapping(), scorch.Name, scorch.Name, cfg)
	if err != nil {
		if isBoltTimeout(err) {
			return &BusyError{PID: readPID(filepath.Join(ix.dir, lockName))}
		}
		return fmt.Errorf("create the search index: %w", err)
	}
	ix.setBleve(bi)
	ix.man = newManifest()
	ix.manDirty = true
	return nil
}

// setBleve makes bi the index's bleve index (the first, or the one that
// replaces an unhealthy one).
func (ix *Index) setBleve(bi bleve.Index) {
	if ix.bi == nil {
		ix.bi = newStore(bi)
	} else {
		ix.bi.heal(bi)
	}
	ix.bi.openRO = ix.openReadOnly
	ix.bi.dir = ix.dir
	ix.bi.onFail = ix.requestRescan // wakes the loop, which heals
}

// openReadOnly opens the index as last persisted, for reading only.
func (ix *Index) openReadOnly() (bleve.Index, error) {
	return bleve.OpenUsing(filepath.Join(ix.dir, indexDirName), map[string]any{"read_only": true, "bolt_timeout": "1s"})
}

func isBoltTimeout(err error) bool {
	return err != nil && strings.Contains(err.Error(), "timeout")
}

func readPID(name string) int {
	b, err := os.ReadFile(name)
	if err != nil {
		return 0
	}
	var pid int
	fmt.Sscan(strings.TrimSpace(string(b)), &pid)
	return pid
}

// Status reports progress and problems.
func (ix *Index) Status() Status {
	s := Status{Building: ix.building.Load(), Watching: ix.watching.Load(), Indexed: int(ix.indexed.Load())}
	if u := ix.updated.Load(); u != 0 {
		s.Updated = time.Unix(0, u)
	}
	if p := ix.problem.Load(); p != nil {
		s.Problem = *p
	}
	if err := ix.bi.healthy(); err != nil {
		s.Problem, s.Unhealthy = err.Error(), true
		if ix.bi.stale() {
			s.Problem = staleText(ix.bi.err().(*UnhealthyError).Cause)
		}
	}
	if s.Building {
		s.Done, s.Total = int(ix.done.Load()), int(ix.total.Load())
		s.Done = min(s.Done, s.Total)
		s.Merging = ix.merging.Load()
	} else {
		n := int(ix.noteCount.Load())
		s.Done, s.Total = n, n
	}
	s.Meaning = ix.meaningStatus()
	return s
}

func (ix *Index) setProblem(p string) { ix.problem.Store(&p) }

// WaitReady blocks until the first comparison with the files is done (or ctx
// ends).
func (ix *Index) WaitReady(ctx context.Context) error {
	select {
	case <-ix.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops watching, waits for running work and closes the index. The
// manifest is saved so that the next start does not reindex.
func (ix *Index) Close() error {
	if ix.closed.Swap(true) {
		return nil
	}
	ix.cancel()
	if ix.meaning != nil {
		_ = ix.meaning.Close()
	}
	ix.wg.Wait()
	ix.wmu.Lock()
	err := ix.saveManifest(true)
	err = errors.Join(err, ix.bi.Close())
	ix.wmu.Unlock()
	return errors.Join(err, ix.lock.release())
}

// run is the background loop: watcher (if asked), first catch-up, then
// rescans on request.
func (ix *Index) run() {
	defer ix.wg.Done()
	var w *watcher
	healthy := ix.bi.healthy() == nil
	if ix.o.Watch {
		// The catch-up's walk adds the folders' watches as it reads them
		// (one walk at start, not two); an index that cannot be written
		// now gets them from a walk of their own.
		if healthy {
			w = ix.newWatcher()
		} else {
			w = ix.startWatcher()
		}
		ix.watcher.Store(w)
	}
	var trusted struct {
		sync.Mutex
		folders []vault.TrustedFolder
	}
	if healthy {
		var enter func(string)
		var trust func(vault.TrustedFolder)
		if w != nil {
			enter = w.addFolder
			trust = func(t vault.TrustedFolder) {
				trusted.Lock()
				trusted.folders = append(trusted.folders, t)
				trusted.Unlock()
			}
		}
		err := ix.catchUpEntering(ix.ctx, enter, trust)
		if err != nil && ix.ctx.Err() == nil && ix.bi.healthy() == nil {
			ix.log.Error("search index: comparing with the files failed", "err", err)
			ix.setProblem("comparing the index with the files failed: " + err.Error())
		}
		if w != nil && ix.ctx.Err() == nil {
			w = ix.finishWalked(w, ix.walkedAll.Load())
			ix.watcher.Store(w)
		}
	}
	close(ix.ready)
	if w != nil {
		w = ix.watchTrusted(w, trusted.folders)
		ix.watcher.Store(w)
	}
	trusted.folders = nil
	close(ix.watchesSet)
	var poll <-chan time.Time
	if ix.o.Watch {
		// Rescans replace the watcher where it failed (watch limit).
		t := time.NewTicker(ix.o.PollInterval)
		defer t.Stop()
		poll = t.C
	}
	// While the index cannot be written, the loop tries to heal it,
	// first after healFirst, then ever less often (up to healMax).
	healWait := healFirst
	var healTimer *time.Timer
	for {
		var heal <-chan time.Time
		if ix.bi.healthy() != nil {
			if healTimer == nil {
				healTimer = time.NewTimer(healWait)
			}
			heal = healTimer.C
		} else {
			healWait = healFirst
		}
		select {
		case <-ix.ctx.Done():
			if w != nil {
				w.close()
			}
			return
		case <-ix.rescan:
		case <-poll:
			if ix.watching.Load() {
				continue
			}
		case <-heal:
			healTimer = nil
			if !ix.heal() {
				healWait = min(2*healWait, healMax)
				continue
			}
		}
		if ix.bi.healthy() != nil {
			continue // a rescan would be refused; the heal timer runs
		}
		if err := ix.catchUp(ix.ctx); err != nil && ix.ctx.Err() == nil {
			if ix.bi.healthy() != nil {
				ix.log.Warn("search index: still cannot be written", "err", err)
				healWait = min(2*healWait, healMax)
				continue
			}
			ix.log.Error("search index: rescan failed", "err", err)
		}
	}
}

// How soon and how often an unhealthy index tries to heal.
const (
	healFirst = 250 * time.Millisecond
	healMax   = 4 * time.Second
)

// heal reopens an unhealthy index from what bleve last persisted (or makes
// a new one) with the manifest that matches it; the catch-up that follows
// reindexes what changed meanwhile, the notes of the failed write
// included. It reports whether the index is usable again (the next write
// may still fail while the disk is full; then it is unhealthy again).
func (ix *Index) heal() bool {
	if err := ix.bi.waitClosed(ix.ctx); err != nil {
		return false
	}
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if ix.bi.healthy() == nil {
		return true
	}
	if !ix.bi.roomToHeal() {
		return false
	}
	cause := ix.bi.err()
	defer ix.bi.startHealing()()
	ix.bi.closeRO()
	// openBleve loads the manifest saved with the last persisted batches,
	// which describes what the reopened index holds (a batch is persisted
	// before the manifest records it); a rebuilt index starts from an
	// empty one.
	if err := ix.openBleve(); err != nil {
		ix.log.Debug("search index: cannot reopen it yet", "err", err)
		ix.bi.reopenRO()
		return false
	}
	ix.paths = nil
	ix.rebuildResolverLocked()
	ix.noteCount.Store(int64(ix.man.notes()))
	ix.problem.Store(nil)
	ix.gen.Add(1)
	ix.forgetFields(nil)
	ix.log.Info("search index: writable again; catching up", "was", cause)
	ix.requestRescan()
	return true
}

// requestRescan asks the background loop for a full rescan (coalesced).
func (ix *Index) requestRescan() {
	select {
	case ix.rescan <- struct{}{}:
	default:
	}
}

// Rescan compares the whole vault with the index now and waits for it.
func (ix *Index) Rescan(ctx context.Context) error {
	if ix.closed.Load() {
		return ErrClosed
	}
	return ix.catchUp(ctx)
}

// catchUp walks the vault, compares it with the manifest and indexes what
// changed: new and modified notes (by size and mtime, then by content hash),
// removed notes, and notes whose links change meaning because files
// appeared or disappeared.
func (ix *Index) catchUp(ctx context.Context) error { return ix.catchUpEntering(ctx, nil, nil) }

// catchUpEntering is catchUp whose walk calls enter for every folder
// before reading it, and trusted for every folder it takes from its
// listing instead (vault.WalkOptions); walkedAll says afterwards whether
// that walk went through the whole vault.
func (ix *Index) catchUpEntering(ctx context.Context, enter func(string), trusted func(vault.TrustedFolder)) error {
	start := time.Now()
	// Open sets building until the first catch-up ends; later rescans set
	// it only when they find work, so a periodic rescan of an unchanged
	// vault never makes results say "building".
	defer ix.building.Store(false)

	// Every change after this mark is in the journal: the watcher's
	// events on a folder come after its watch was added, before it was
	// read, and the catch-up's own work below is added to it.
	mark := ix.journal.since(ChangeMark{}).Next
	walkGC := sync.OnceFunc(wantGC(walkGCPercent))
	defer walkGC()
	var entries []vault.Entry
	collect := func(e vault.Entry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		entries = append(entries, e)
		return nil
	}
	if enter != nil {
		ix.walkedAll.Store(false)
	}
	// The folders' listings are the manifest's, replaced after each
	// complete walk. Two catch-ups at once may leave either walk's: each
	// listing holds the times it was read with, and is trusted only while
	// its folder still has them.
	ix.wmu.Lock()
	known := ix.man.Folders
	ix.wmu.Unlock()
	listings, err := ix.v.WalkListing(vault.WalkOptions{Enter: enter, Known: known, Trusted: trusted}, collect)
	if err != nil {
		return err
	}
	if enter != nil {
		ix.walkedAll.Store(true)
	}
	ix.keepWalked(entries, mark)
	seen := make(map[string]bool, len(entries))
	var todo []string
	notes := 0
	ix.wmu.Lock()
	if !maps.EqualFunc(listings, ix.man.Folders, vault.FolderListing.Equal) {
		ix.man.Folders = listings
		ix.manDirty = true
	}
	for _, e := range entries {
		seen[e.Path] = true
		if e.Note {
			notes++
		}
		old, ok := ix.man.Files[e.Path]
		if ok && old.Size == e.Size && old.MTime == e.ModTime.UnixNano() && old.Note == e.Note {
			continue
		}
		todo = append(todo, e.Path)
	}
	for p := range ix.man.Files {
		if !seen[p] {
			todo = append(todo, p)
		}
	}
	ix.wmu.Unlock()
	pending := 0
	for _, p := range todo {
		if seen[p] && vault.IsNote(p) {
			pending++
		}
	}
	walkGC()
	ix.total.Store(int64(notes))
	ix.done.Store(int64(notes - pending))
	if pending > 0 {
		ix.building.Store(true)
	}
	if pending >= compactAfterBatches*ix.o.BatchDocs && ix.o.BuildMemory > 0 {
		defer limitMemory(ix.o.BuildMemory)()
	}
	release := func() {}
	if pending >= compactAfterBatches*ix.o.BatchDocs {
		release = ix.holdMerges()
	}
	defer release()

	orphans, err := ix.checkOrphans(seen)
	if err != nil {
		return err
	}
	todo = append(todo, orphans...)
	if len(todo) > 0 {
		ix.log.Info("search index: updating", "notes", notes, "changed", len(todo))
	}
	before := ix.indexed.Load()
	if err := ix.process(ctx, todo, nil, true); err != nil {
		return err
	}
	release()
	if ix.indexed.Load()-before >= int64(compactAfterBatches*ix.o.BatchDocs) {
		ix.compact(ctx)
	}
	ix.wmu.Lock()
	err = ix.saveManifest(true)
	ix.wmu.Unlock()
	if len(todo) > 0 {
		ix.log.Info("search index: up to date", "notes", notes, "indexed", len(todo), "took", time.Since(start).Round(time.Millisecond))
	}
	return err
}

// keepWalked keeps the files other than notes of a complete walk that
// began at mark (WalkedFiles).
func (ix *Index) keepWalked(entries []vault.Entry, mark ChangeMark) {
	var files []string
	for _, e := range entries {
		if !e.Note {
			files = append(files, e.Path)
		}
	}
	slices.Sort(files)
	ix.walked.Lock()
	ix.walked.files, ix.walked.mark, ix.walked.ok = files, mark, true
	ix.walked.Unlock()
}

// WalkedFiles returns the vault's files other than notes (attachments,
// .base and .canvas files; vault.Walk's entries), sorted, as the index's
// last complete walk of the vault found them, and the change-journal mark
// from before that walk: every file added, removed or changed since is in
// Changes(mark). ok is false until the index has walked the vault. A
// caller that lists such files (the bases catalog) so skips a walk of its
// own: on 4× the laws (26,544 folders), the first search after a start
// walked the vault again for it.
func (ix *Index) WalkedFiles() (files []string, mark ChangeMark, ok bool) {
	ix.walked.Lock()
	defer ix.walked.Unlock()
	return slices.Clone(ix.walked.files), ix.walked.mark, ix.walked.ok
}

// compact merges the index's segments into one (see mergeOptions): a
// fresh build of the 6,636 laws ends in ~170 segments (two per batch, the
// merger held), in one after compacting. Failure only costs search
// speed, so it is logged, not returned.
func (ix *Index) compact(ctx context.Context) {
	start := time.Now()
	ix.merging.Store(true)
	defer ix.merging.Store(false)
	if testHookCompact != nil {
		testHookCompact(ix)
	}
	err := ix.bi.advanced(true, func(adv bindex.Index) error {
		s, ok := adv.(*scorch.Scorch)
		if !ok {
			return nil
		}
		// Into one segment: with a document per section the laws are
		// 145,000 documents, which bleve's default policy leaves in 16
		// segments, and every term of a query is then looked up 16 times
		// (searches measured 3× slower).
		o := mergeplan.SingleSegmentMergePlanOptions
		// In one pass: bleve's 10 segments per merge would write most
		// documents twice or more.
		o.SegmentsPerMergeTask = math.MaxInt32
		return s.ForceMerge(ctx, &o)
	})
	if err != nil {
		if ctx.Err() == nil {
			ix.log.Warn("search index: merging segments failed", "err", err)
		}
		return
	}
	// The merged-away segment files stay on disk while the snapshot
	// before the merge is kept for rollback, until a later snapshot is
	// persisted; without writes that is the next start, and the index
	// would take twice its size meanwhile (the build bench measured 527 MB
	// instead of 256). An internal write persists a snapshot, after which
	// the persister removes the files; the second write returns only once
	// the persister is past that removal.
	for i := range 2 {
		if err := ix.bi.SetInternal([]byte(compactedKey), []byte{byte(i)}); err != nil {
			break
		}
	}
	ix.settleMerge(ctx)
	ix.gen.Add(1)
	ix.log.Info("search index: merged segments", "took", time.Since(start).Round(time.Millisecond))
}

// testHookCompact, if set, is called as compact starts.
var testHookCompact func(ix *Index)

// settleMerge waits, up to mergeSettle, until the files a compaction
// merged away are gone from disk, persisting a snapshot again while they
// are not. The persister removes a file only once no snapshot in use
// holds it: after the two writes of compact that was so at 1× the laws,
// but at 4× the index took 2,600 MB instead of 1,256 MB after its build,
// and the next start spent 1.3 s removing the rest.
func (ix *Index) settleMerge(ctx context.Context) {
	deadline := time.Now().Add(mergeSettle)
	for i := 0; ; i++ {
		var files, segments uint64
		_ = ix.bi.advanced(false, func(adv bindex.Index) error {
			if s, ok := adv.(*scorch.Scorch); ok {
				m := s.StatsMap()
				files, _ = m["CurOnDiskFiles"].(uint64)
				segments, _ = m["num_root_filesegments"].(uint64)
			}
			return nil
		})
		// The files beside the index's own segments: the bolt file, and
		// the merged-away segments while they last. (Compared by size
		// before, which a small index's bolt file outweighed: every
		// large catch-up of a small vault waited the whole mergeSettle.)
		if files <= segments+1 || ctx.Err() != nil || time.Now().After(deadline) {
			return
		}
		time.Sleep(50 * time.Millisecond)
		if err := ix.bi.SetInternal([]byte(compactedKey), []byte{byte(2 + i%2)}); err != nil {
			return
		}
	}
}

// mergeSettle bounds settleMerge.
const mergeSettle = 10 * time.Second

// checkOrphans makes index and manifest agree after a crash: documents the
// manifest does not know are deleted, and notes the manifest lists but the
// index lacks are returned for reindexing.
func (ix *Index) checkOrphans(onDisk map[string]bool) ([]string, error) {
	n, err := ix.bi.DocCount()
	if err != nil {
		return nil, err
	}
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if int(n) == ix.man.docs() {
		return nil, nil
	}
	ids, err := ix.allIDs(int(n))
	if err != nil {
		return nil, err
	}
	inIndex := make(map[string]bool, len(ids))
	b := ix.bi.NewBatch()
	for _, id := range ids {
		p, k, isSection := splitSectionID(id)
		e, ok := ix.man.Files[p]
		if isSection {
			if !ok || !e.Note || k >= e.Sections {
				// A section of a note the manifest does not know (one
				// on disk is reindexed, getting its sections anew) or
				// beyond its last heading.
				b.Delete(id)
			}
			continue
		}
		inIndex[id] = true
		if (!ok || !e.Note) && !onDisk[id] {
			// Unknown to the manifest and gone from disk. (Notes still
			// on disk are reindexed by the caller, replacing them.)
			b.Delete(id)
			deleteSections(b, id, 0, e.Sections)
		}
	}
	if b.Size() > 0 {
		err := ix.bi.Batch(b, 0)
		ix.gen.Add(1)
		ix.forgetFields(nil)
		if err != nil {
			return nil, err
		}
	}
	var again []string
	for p, e := range ix.man.Files {
		if e.Note && !inIndex[p] {
			delete(ix.man.Files, p)
			ix.manDirty = true
			ix.namesDirty.Store(true)
			if onDisk[p] {
				again = append(again, p)
			}
		}
	}
	ix.noteCount.Store(int64(ix.man.notes()))
	return again, nil
}

func (ix *Index) allIDs(n int) ([]string, error) {
	if n == 0 {
		return nil, nil
	}
	req := bleve.NewSearchRequestOptions(query.NewMatchAllQuery(), n, 0, false)
	res, err := ix.bi.Search(req)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(res.Hits))
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids, nil
}

// Update re-reads the given vault paths and reindexes them now,
// synchronously: when it returns, searches and backlinks reflect the files.
// Paths may name notes, attachments or folders (everything below is
// updated), existing or removed. The write path of vaultd calls it after
// every write, so that its own writes are visible without waiting for the
// watcher. Files whose content did not change are not reindexed.
func (ix *Index) Update(paths ...string) error {
	if ix.closed.Load() {
		return ErrClosed
	}
	expanded, err := ix.expandPaths(paths)
	if err != nil {
		return err
	}
	if err := ix.process(ix.ctx, expanded, nil, false); err != nil {
		return err
	}
	if w := ix.watcher.Load(); w != nil {
		// The files' events are the change just indexed (see absorb).
		was := make(map[string]fileEntry, len(expanded))
		ix.wmu.Lock()
		for _, p := range expanded {
			e, ok := ix.man.Files[p]
			if !ok {
				e = fileEntry{Size: -1}
			}
			was[p] = e
		}
		ix.wmu.Unlock()
		ctx, cancel := context.WithTimeout(ix.ctx, absorbWait)
		w.absorb(ctx, was)
		cancel()
	}
	return nil
}

// absorbWait bounds how long Update waits for the watcher to read the
// events of the change it indexed (absorb): past it the events are
// indexed by the next flush, as any other.
const absorbWait = time.Second

// expandPaths turns folder paths into the files below them (on disk and in the
// manifest); file paths stay as they are.
func (ix *Index) expandPaths(paths []string) ([]string, error) {
	var out []string
	fsys := ix.v.FS()
	for _, p := range paths {
		p = strings.Trim(filepath.ToSlash(p), "/")
		if p == "" || p == "." {
			p = ""
		} else if c, err := note.CleanPath(p); err == nil {
			p = c
		}
		if p != "" && hiddenPath(p) {
			continue
		}
		fi, err := fs.Stat(fsys, orDot(p))
		switch {
		case err == nil && fi.IsDir():
			if err := ix.v.WalkDir(p, func(e vault.Entry) error {
				out = append(out, e.Path)
				return nil
			}); err != nil && !errors.Is(err, note.ErrNotFound) {
				return nil, err
			}
		case err == nil:
			out = append(out, p)
			continue
		default:
			if p != "" {
				out = append(out, p)
			}
		}
		// Whatever the manifest has below a folder (or a vanished path)
		// is checked too: moved or deleted files are removed.
		prefix := p + "/"
		ix.wmu.Lock()
		for q := range ix.man.Files {
			if p == "" || strings.HasPrefix(q, prefix) {
				out = append(out, q)
			}
		}
		ix.wmu.Unlock()
	}
	sort.Strings(out)
	return compactStrings(out), nil
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func compactStrings(s []string) []string {
	if len(s) < 2 {
		return s
	}
	j := 1
	for i := 1; i < len(s); i++ {
		if s[i] != s[j-1] {
			s[j] = s[i]
			j++
		}
	}
	return s[:j]
}

// hiddenPath reports whether a vault path lies in a dot-folder or is a
// dot-file (.obsidian, .git, .trash, .vaultd, swap and temp files).
func hiddenPath(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// buildLimit counts the large catch-ups running in this process that set
// the soft memory limit (limitMemory); the last one to end lifts it.
var buildLimit struct {
	sync.Mutex
	n int
}

// buildGCPercent is the collector's percent while a large catch-up runs
// under the soft memory limit. With GOGC's 100 a build collected each time
// its heap doubled, far below the limit: 12 of a gesetze build's 100 CPU
// seconds went to the collector. At 200 it collects half as often, and the
// limit still bounds the heap (peak RSS 555 MB instead of 520; bleve's
// segments, mapped from their files, are most of the rest). Builds of the
// laws, interleaved: median wall time 48.7 s instead of 56.1 s (eight
// each), CPU 1 min 15 s instead of 1 min 28 s (three each).
const buildGCPercent = 200

// walkGCPercent is the collector's percent while a catch-up walks the
// vault and compares what it found with the manifest: a restart's heap
// only grows then (the listing, the manifest, the name table), and at
// GOGC's 100 the collector took ~40 ms of a serve restart of 4× the laws
// (medians of 5, twice: 0.458 → 0.414 s at 400, peak RSS 192 → 227 MB).
const walkGCPercent = 400

// servingGCPercent is the collector's percent while a process serves
// (ServingGC). A search allocates its postings, matches and hits anew
// (bleve pools few of them), and at GOGC's 100 the collector took a tenth
// of a server's CPU under a load of searches of the laws.
const servingGCPercent = 200

// ServingGC runs the collector at servingGCPercent (or the higher percent
// a catch-up wants meanwhile) until restore is called; a server calls it
// for as long as it serves. Not at all when GOGC sets the percent.
func ServingGC() (restore func()) { return wantGC(servingGCPercent) }

// gcWants are the collector percents that the catch-ups running in this
// process asked for (wantGC), by how many ask for each: the collector runs
// at the highest of them, and at the percent it had before once none is
// left. Not at all when GOGC sets the percent.
var gcWants struct {
	sync.Mutex
	n    map[int]int
	base int
}

// wantGC runs the collector at percent (or a higher one another catch-up
// wants) until restore is called.
func wantGC(percent int) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	gcWants.Lock()
	defer gcWants.Unlock()
	if len(gcWants.n) == 0 {
		gcWants.n = map[int]int{}
		gcWants.base = debug.SetGCPercent(percent)
	}
	gcWants.n[percent]++
	debug.SetGCPercent(maxWanted())
	return func() {
		gcWants.Lock()
		defer gcWants.Unlock()
		if gcWants.n[percent]--; gcWants.n[percent] == 0 {
			delete(gcWants.n, percent)
		}
		if len(gcWants.n) == 0 {
			debug.SetGCPercent(gcWants.base)
			return
		}
		debug.SetGCPercent(maxWanted())
	}
}

// maxWanted is the highest percent in gcWants, or the process's own when
// that is higher (gcWants held).
func maxWanted() int {
	m := gcWants.base
	for p := range gcWants.n {
		m = max(m, p)
	}
	return m
}

// limitMemory sets the process's soft memory limit to n bytes for a large
// catch-up, unless the process has a limit of its own, and returns the
// function that lifts it again. The collector runs at buildGCPercent
// meanwhile, unless GOGC sets its percent.
func limitMemory(n int64) (restore func()) {
	buildLimit.Lock()
	defer buildLimit.Unlock()
	if buildLimit.n == 0 && debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return func() {} // GOMEMLIMIT or the embedding program's own
	}
	if buildLimit.n == 0 {
		debug.SetMemoryLimit(n)
	}
	buildLimit.n++
	gc := wantGC(buildGCPercent)
	return func() {
		gc()
		buildLimit.Lock()
		defer buildLimit.Unlock()
		if buildLimit.n--; buildLimit.n == 0 {
			debug.SetMemoryLimit(math.MaxInt64)
		}
	}
}
