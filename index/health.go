package index

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/vaultd/vaultd/vault"
)

// store is the bleve index as the rest of the package uses it, with its
// health. A failed write leaves bleve in a state it does not survive: on a
// full disk the segment it could not persist stays in memory, and the next
// search or write panics inside bleve (a closed segment's nil cache map).
// So the first failed write makes the store unhealthy: every later call is
// refused with ErrUnhealthy at once, the bleve index is closed as soon as
// the calls in flight are done, and the Index's background loop reopens it
// from what was last persisted once writes are possible again (heal), then
// catches up with the files. Reading notes never depends on the index.
//
// Calls count themselves in (users) before they look at the health, and the
// closer marks the store unhealthy before it waits for users to drain, so a
// call either sees the store unhealthy or is waited for (sequentially
// consistent atomics). Calls may nest (a search inside a dictionary scan).
type store struct {
	inner atomic.Pointer[bleve.Index] // nil while closed
	// ro is the index as last persisted, opened read-only while the store
	// is unhealthy: searches go on from it (without what came since).
	ro     atomic.Pointer[bleve.Index]
	openRO func() (bleve.Index, error) // opens ro; nil: none
	onFail func()                      // called once the store turned unhealthy
	dir    string                      // the index's dir, for its free space

	// While space is low, batches and reads take turns (excl): a batch
	// that fails to persist can break the snapshot a read in flight uses.
	excl     sync.RWMutex
	lowSpace atomic.Bool
	// need is the free space the batch that was refused for lack of it
	// asked for: the index heals only once that much is free.
	need atomic.Uint64
	// healing is set while heal swaps the read-only index for a writable
	// one; reads wait for it.
	healing atomic.Pointer[chan struct{}]

	noPreflight bool        // tests: write batches without checking the space first
	mapper      bleve.Index // the last inner index, for NewBatch (which only allocates)
	sick        atomic.Bool
	cause       atomic.Pointer[error]
	users       atomic.Int64
	closed      chan struct{} // closed once the unhealthy index is closed (nil while healthy)
	mu          sync.Mutex    // serializes fail and heal
}

// ErrUnhealthy is the kind of the error calls get while the index cannot
// be written (see store); errors.Is(err, vault.ErrStateDir) holds too.
var ErrUnhealthy = errors.New("search index unhealthy")

// UnhealthyError says why the index is unusable now.
type UnhealthyError struct{ Cause error }

func (e *UnhealthyError) Error() string {
	return "the search index could not be written (" + causeText(e.Cause) + "); search and backlinks are unavailable until it can be written again — reading and editing notes still work, and the index catches up by itself once the vault owner frees space"
}

// staleText is the status while reads are served from the read-only index.
func staleText(cause error) string {
	return "the search index could not be written (" + causeText(cause) + "): results show the vault as it was then, changes since are not searchable yet; the index catches up by itself once the vault owner frees space"
}

// Is makes the error both ErrUnhealthy and vault.ErrStateDir.
func (e *UnhealthyError) Is(target error) bool {
	return target == ErrUnhealthy || target == vault.ErrStateDir
}

func (e *UnhealthyError) Unwrap() error { return e.Cause }

// causeText names the cause in words: the full disk, or bleve's text.
func causeText(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "no space left in the state dir"
	case errors.Is(err, syscall.EDQUOT):
		return "the state dir's disk quota is used up"
	case errors.Is(err, syscall.EROFS):
		return "the state dir is on a read-only file system"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return "the state dir is not writable"
	case errors.Is(err, syscall.EIO):
		return "an I/O error in the state dir"
	case err == nil:
		return "unknown error"
	}
	// bleve flattens the errors of its persister into text.
	for _, m := range []struct{ text, say string }{
		{"no space left on device", "no space left in the state dir"},
		{"disk quota exceeded", "the state dir's disk quota is used up"},
		{"read-only file system", "the state dir is on a read-only file system"},
		{"permission denied", "the state dir is not writable"},
		{"input/output error", "an I/O error in the state dir"},
	} {
		if strings.Contains(err.Error(), m.text) {
			return m.say
		}
	}
	return err.Error()
}

// diskTrouble reports whether err is the state dir's disk failing (full,
// read-only, not writable, I/O error) rather than the index's content.
func diskTrouble(err error) bool {
	return err != nil && causeText(err) != err.Error()
}

func newStore(bi bleve.Index) *store {
	s := &store{mapper: bi}
	s.inner.Store(&bi)
	return s
}

// enter counts a call in and returns the index to use, or the error that
// says why there is none. Every successful enter is matched by leave.
func (s *store) enter() (bleve.Index, error) {
	s.users.Add(1)
	if s.sick.Load() {
		s.users.Add(-1)
		return nil, s.err()
	}
	p := s.inner.Load()
	if p == nil {
		s.users.Add(-1)
		return nil, s.err()
	}
	return *p, nil
}

// enterRead is enter for a call that only reads: while the store is
// unhealthy it gets the read-only index, if there is one.
func (s *store) enterRead() (bleve.Index, error) {
	bi, err := s.enter()
	if err == nil {
		return bi, nil
	}
	if p := s.readOnly(); p != nil {
		return *p, nil
	}
	return nil, err
}

// readOnly counts a call in on the read-only index and returns it (nil,
// not counted, when there is none). Right after a failure it waits a
// moment for the read-only index to open.
func (s *store) readOnly() *bleve.Index {
	s.mu.Lock()
	done := s.closed
	s.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
	}
	if h := s.healing.Load(); h != nil {
		select {
		case <-*h:
		case <-time.After(2 * time.Second):
		}
		if bi, err := s.enter(); err == nil {
			return &bi
		}
	}
	s.users.Add(1)
	if p := s.ro.Load(); p != nil && s.sick.Load() {
		return p
	}
	s.users.Add(-1)
	return nil
}

// stale reports whether reads are served by the read-only index.
func (s *store) stale() bool { return s.sick.Load() && s.ro.Load() != nil }

func (s *store) leave() { s.users.Add(-1) }

func (s *store) err() error {
	var cause error
	if c := s.cause.Load(); c != nil {
		cause = *c
	}
	return &UnhealthyError{Cause: cause}
}

// healthy is nil, or the error calls get now.
func (s *store) healthy() error {
	if s.sick.Load() || s.inner.Load() == nil {
		return s.err()
	}
	return nil
}

// fail makes the store unhealthy after a failed write (err) and closes the
// bleve index in the background once the calls in flight are done. Only
// the first failure counts.
func (s *store) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sick.Load() {
		return
	}
	s.cause.Store(&err)
	s.sick.Store(true)
	done := make(chan struct{})
	s.closed = done
	p := s.inner.Load()
	go func() {
		defer close(done)
		// Calls in flight finish on the index they started with; new
		// ones are refused. A call that hangs must not keep the index
		// open for ever: after a minute it is closed anyway.
		for deadline := time.Now().Add(time.Minute); s.users.Load() > 0 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		s.inner.Store(nil)
		if p != nil {
			closeQuietly(*p)
		}
		if s.openRO != nil {
			if ro, err := s.openRO(); err == nil {
				s.ro.Store(&ro)
			}
		}
		if s.onFail != nil {
			s.onFail()
		}
	}()
}

// reopenRO opens the read-only index again after a heal that failed.
func (s *store) reopenRO() {
	if s.openRO == nil || s.ro.Load() != nil || !s.sick.Load() {
		return
	}
	if ro, err := s.openRO(); err == nil {
		s.ro.Store(&ro)
	}
}

// closeRO closes the read-only index (before the index is opened for
// writing again), waiting for the calls in flight on it.
func (s *store) closeRO() {
	p := s.ro.Swap(nil)
	if p == nil {
		return
	}
	for deadline := time.Now().Add(time.Minute); s.users.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	releaseMerges(*p)
	closeQuietly(*p)
}

// closeQuietly closes a bleve index that failed: errors and panics in its
// teardown are expected and of no further use.
func closeQuietly(bi bleve.Index) {
	defer func() {
		if r := recover(); r != nil {
			_ = debug.Stack()
		}
	}()
	_ = bi.Close()
}

// waitClosed waits until an unhealthy store's index is closed.
func (s *store) waitClosed(ctx context.Context) error {
	s.mu.Lock()
	done := s.closed
	s.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// roomToHeal reports whether there may be room to write again: the space
// the refused batch needed is free (true when that cannot be told).
func (s *store) roomToHeal() bool {
	free, ok := freeBytes(s.dir)
	return !ok || free >= max(s.need.Load(), spaceReserve)
}

// startHealing makes reads wait while the read-only index is swapped for
// a writable one; the returned func ends the wait.
func (s *store) startHealing() func() {
	ch := make(chan struct{})
	s.healing.Store(&ch)
	return func() {
		s.healing.Store(nil)
		close(ch)
	}
}

// heal replaces the closed index with bi and makes the store healthy.
func (s *store) heal(bi bleve.Index) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mapper = bi
	s.inner.Store(&bi)
	s.closed = nil
	s.cause.Store(nil)
	s.need.Store(0)
	s.sick.Store(false)
}

// Close closes the index (if it is open).
func (s *store) Close() error {
	s.mu.Lock()
	done := s.closed
	s.mu.Unlock()
	if done != nil {
		<-done
		s.closeRO()
		return nil
	}
	p := s.inner.Swap(nil)
	if p == nil {
		return nil
	}
	releaseMerges(*p)
	return (*p).Close()
}

// recovered turns a panic inside bleve into an error (in *err) and makes
// the store unhealthy: a search that started just before a write failed
// half-way may meet a segment bleve closed under it. (Panics in the
// goroutines bleve starts itself cannot be caught here; the turns taken
// while space is low keep reads away from failing writes.)
func (s *store) recovered(err *error) {
	r := recover()
	if r == nil {
		return
	}
	e := fmt.Errorf("bleve failed: %v", r)
	s.fail(e)
	*err = s.err()
}

// The calls of bleve.Index the package makes, counted and health-checked;
// the writes make the store unhealthy when they fail.

func (s *store) SearchInContext(ctx context.Context, req *bleve.SearchRequest) (_ *bleve.SearchResult, err error) {
	// The turn first: a read that waited for a batch that failed must see
	// the store unhealthy, not the index the batch broke.
	defer s.turn()()
	bi, err := s.enterRead()
	if err != nil {
		return nil, err
	}
	defer s.leave()
	defer s.recovered(&err)
	return bi.SearchInContext(ctx, req)
}

func (s *store) Search(req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	return s.SearchInContext(context.Background(), req)
}

func (s *store) DocCount() (_ uint64, err error) {
	defer s.turn()()
	bi, err := s.enterRead()
	if err != nil {
		return 0, err
	}
	defer s.leave()
	defer s.recovered(&err)
	return bi.DocCount()
}

// NewBatch allocates a batch; Batch refuses it while unhealthy.
func (s *store) NewBatch() *bleve.Batch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mapper.NewBatch()
}

// Space the index keeps in reserve: a batch is not written when less than
// spaceReserve plus twice its text is free (the laws' index takes 1.5
// times their text on disk), and below lowSpace batches and reads take
// turns.
const (
	spaceReserve = 1 << 20
	lowSpace     = 64 << 20
)

// Batch writes b, which indexes about text bytes of notes. A batch that
// would not fit in the space left is not tried: bleve does not survive a
// write that fails half-way (see store), so the store turns unhealthy
// without it.
func (s *store) Batch(b *bleve.Batch, text int) error {
	bi, err := s.enter()
	if err != nil {
		return err
	}
	defer s.leave()
	if free, ok := freeBytes(s.dir); ok {
		if need := uint64(spaceReserve + 2*text); free < need && !s.noPreflight {
			s.need.Store(need)
			s.fail(fmt.Errorf("%d bytes free, %d needed: %w", free, need, syscall.ENOSPC))
			return fmt.Errorf("index a batch: %w", s.err())
		}
		s.lowSpace.Store(free < lowSpace)
	}
	if s.lowSpace.Load() {
		s.excl.Lock()
		defer s.excl.Unlock()
	}
	if err := bi.Batch(b); err != nil {
		s.fail(err)
		return fmt.Errorf("index a batch: %w", s.err())
	}
	return nil
}

// turn waits while a batch is written on a disk low on space; the
// returned func ends the read's turn.
func (s *store) turn() func() {
	if !s.lowSpace.Load() {
		return func() {}
	}
	s.excl.RLock()
	return s.excl.RUnlock
}

func (s *store) SetInternal(key, val []byte) error {
	bi, err := s.enter()
	if err != nil {
		return err
	}
	defer s.leave()
	if err := bi.SetInternal(key, val); err != nil {
		s.fail(err)
		return s.err()
	}
	return nil
}

// advanced runs f with the underlying index (scorch), counted in. An error
// f returns for a write (merge) that failed makes the store unhealthy when
// write is set.
func (s *store) advanced(write bool, f func(bindex.Index) error) error {
	enter := s.enterRead
	if write {
		enter = s.enter
	} else {
		defer s.turn()()
	}
	bi, err := enter()
	if err != nil {
		return err
	}
	defer s.leave()
	adv, err := bi.Advanced()
	if err != nil {
		return err
	}
	if err := f(adv); err != nil {
		if write && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			s.fail(err)
		}
		return err
	}
	return nil
}

func (s *store) FieldDictRange(field string, start, end []byte) (_ bindex.FieldDict, err error) {
	// The turn is held until the dictionary is closed: its segments
	// are read as it is walked.
	done := s.turn()
	bi, err := s.enterRead()
	if err != nil {
		done()
		return nil, err
	}
	defer func() {
		if err != nil {
			s.leave()
			done()
		}
	}()
	defer s.recovered(&err)
	d, err := bi.FieldDictRange(field, start, end)
	if err != nil {
		return nil, err
	}
	return &countedDict{FieldDict: d, s: s, end: done}, nil
}

func (s *store) FieldDictPrefix(field string, prefix []byte) (_ bindex.FieldDict, err error) {
	// The turn is held until the dictionary is closed: its segments
	// are read as it is walked.
	done := s.turn()
	bi, err := s.enterRead()
	if err != nil {
		done()
		return nil, err
	}
	defer func() {
		if err != nil {
			s.leave()
			done()
		}
	}()
	defer s.recovered(&err)
	d, err := bi.FieldDictPrefix(field, prefix)
	if err != nil {
		return nil, err
	}
	return &countedDict{FieldDict: d, s: s, end: done}, nil
}

// countedDict keeps its store's call counted in, and its turn (see
// turn), until it is closed.
type countedDict struct {
	bindex.FieldDict
	s    *store
	end  func() // ends the turn
	once sync.Once
}

func (d *countedDict) Close() error {
	err := d.FieldDict.Close()
	d.once.Do(func() {
		d.s.leave()
		d.end()
	})
	return err
}
