package index

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/vaultd/vaultd/vault"
)

// watcher follows changes made by other programs. fsnotify does not watch
// recursively on Linux, so every folder gets its own watch: added by walking
// at start and whenever a folder appears, removed (with everything below)
// when a folder is moved or deleted — otherwise inotify keeps reporting the
// old path for events in a moved folder (LIBRARIES.md §4.3).
//
// Events only mark paths dirty; a flush (after Options.Quiet without events,
// at most Options.MaxDelay after the first) stats each dirty path and hands
// the lot to process in one go, which hashes and reindexes only what really
// changed. A git checkout of hundreds of files thus becomes one batch.
type watcher struct {
	ix   *Index
	w    *fsnotify.Watcher
	root string // host path of the vault

	mu       sync.Mutex
	dirty    map[string]bool // vault paths
	flushing bool            // the flusher took a dirty set and indexes it
	kick     chan struct{}   // the event loop tells the flusher there is work
	closing  chan struct{}
	done     sync.WaitGroup
	flushes  atomic.Int64 // batches handed to process (tests check debouncing)
	// marked counts paths marked dirty; indexed is marked as it was when
	// the last flush took the dirty set, stored once that flush is done.
	// They differ while events wait to be indexed (pending).
	marked, indexed atomic.Int64
	overflowed      atomic.Bool           // an overflow was logged (later ones are not repeated)
	addErr          atomic.Pointer[error] // the first failed addFolder

	// The barrier (see sync): a watched folder in the state dir ("" when
	// it could not be set up), the last marker written to it and the
	// last seen, and a channel closed whenever seen moves.
	barrier      string
	bmu          sync.Mutex
	bsent, bseen int64
	bmoved       chan struct{}
	// bbroken is set when a marker's event did not come within a second
	// (a file system whose folder sends none): sync returns at once then.
	bbroken atomic.Bool
}

// barrierFolder is the state dir's folder the watcher's barrier writes
// its markers to.
const barrierFolder = "watch-barrier"

// testHookEvent, if set, runs before the event loop takes in an event of
// the vault (tests make a slow event loop with it).
var testHookEvent func()

// testHookWatchTrusted, if set, runs before watchTrusted adds the
// watches of the folders the walk trusted (tests change them there).
var testHookWatchTrusted func()

// testHookAddWatch, if set, replaces adding a watch (tests simulate the
// watch limit with it).
var testHookAddWatch func(name string) error

// startWatcher starts watching, or returns nil (and falls back to polling)
// if that is impossible.
func (ix *Index) startWatcher() *watcher {
	w := ix.newWatcher()
	if w == nil {
		return nil
	}
	if err := w.addTree(w.root); err != nil {
		w.close()
		ix.watchFailed(err)
		return nil
	}
	ix.watching.Store(true)
	return w
}

// newWatcher follows events with no folder watched yet (addTree, or
// addFolder during the catch-up's walk); nil, with watching off, if
// inotify cannot be used.
func (ix *Index) newWatcher() *watcher {
	fw, err := fsnotify.NewBufferedWatcher(4096)
	if err != nil {
		ix.watchFailed(err)
		return nil
	}
	w := &watcher{ix: ix, w: fw, root: ix.v.Dir(), dirty: map[string]bool{}, kick: make(chan struct{}, 1),
		closing: make(chan struct{}), bmoved: make(chan struct{})}
	w.setBarrier()
	w.done.Add(2)
	go w.events()
	go w.flusher()
	return w
}

// addFolder watches the folder at vault path rel; the catch-up's walk calls
// it (from any goroutine) before reading each folder. After the first
// failure it adds nothing more; finishWalked reports it.
func (w *watcher) addFolder(rel string) {
	if w.addErr.Load() != nil {
		return
	}
	add := w.w.Add
	if testHookAddWatch != nil {
		add = testHookAddWatch
	}
	if err := add(filepath.Join(w.root, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.addErr.CompareAndSwap(nil, &err)
	}
}

// finishWalked ends watching set up by a walk with addFolder: on when every
// folder was added (walked tells whether the walk went through the whole
// vault; if not, the rest is added now), off with the reason otherwise.
// It returns the watcher, or nil when watching is off.
func (ix *Index) finishWalked(w *watcher, walked bool) *watcher {
	if e := w.addErr.Load(); e == nil && !walked {
		if err := w.addTree(w.root); err != nil {
			w.addErr.CompareAndSwap(nil, &err)
		}
	}
	if e := w.addErr.Load(); e != nil {
		w.close()
		ix.watchFailed(*e)
		return nil
	}
	ix.watching.Store(true)
	return w
}

// watchFailed logs once why watching is off and what to do about it.
// watchTrusted adds the watches of the folders the catch-up's walk took
// from their listings (vault.WalkOptions.Trusted), after the index is
// ready, and then rechecks each: a folder changed before its watch was
// added is marked changed, as its event would have been, and indexed by
// the flusher. It returns the watcher, or nil when a watch cannot be
// added (then the vault is rescanned, as finishWalked does).
//
// On 4x the laws the walk added 26,544 watches before the index was
// ready, a third of a restart; now a search is answered meanwhile. Until
// this ends, CatchUpNames waits for it (ix.watchesSet): a name not found
// may be a note added in one of these folders a moment ago.
func (ix *Index) watchTrusted(w *watcher, folders []vault.TrustedFolder) *watcher {
	if testHookWatchTrusted != nil {
		testHookWatchTrusted()
	}
	changed := 0
	for _, t := range folders {
		if ix.ctx.Err() != nil {
			return w
		}
		w.addFolder(t.Path)
		if !ix.v.Recheck(t) {
			w.mark(ix.v.CanonicalPath(t.Path))
			changed++
		}
	}
	if e := w.addErr.Load(); e != nil {
		w.close()
		ix.watchFailed(*e)
		ix.requestRescan()
		return nil
	}
	if changed > 0 {
		ix.log.Debug("search index: folders changed while their watches were added", "folders", changed)
		w.kickFlush()
	}
	return w
}

// mark records the vault path p as changed, as an event of it does.
func (w *watcher) mark(p string) {
	w.mu.Lock()
	w.dirty[p] = true
	w.marked.Add(1)
	w.mu.Unlock()
}

// kickFlush has the flusher index the paths marked so far now.
func (w *watcher) kickFlush() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (ix *Index) watchFailed(err error) {
	var msg string
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
		msg = "cannot watch the vault for changes: the system limit of inotify watches is reached. " +
			"Raise fs.inotify.max_user_watches (for example: sudo sysctl fs.inotify.max_user_watches=524288, " +
			"and add it to /etc/sysctl.conf) and restart vaultd. Until then the vault is rescanned every " +
			ix.o.PollInterval.String()
	} else {
		msg = "cannot watch the vault for changes (" + err.Error() + "); it is rescanned every " + ix.o.PollInterval.String()
	}
	ix.watching.Store(false)
	ix.setProblem(msg)
	if !ix.watchWarned.Swap(true) {
		ix.log.Warn("search index: " + msg)
	}
}

// setBarrier watches a folder of the state dir for sync's markers;
// without it sync returns at once.
func (w *watcher) setBarrier() {
	if w.ix.o.Dir == "" {
		return
	}
	dir := filepath.Join(w.ix.o.Dir, barrierFolder)
	_ = os.RemoveAll(dir) // markers a killed process left
	if err := os.Mkdir(dir, 0o700); err != nil {
		return
	}
	if err := w.w.Add(dir); err != nil {
		return
	}
	w.barrier = dir
}

// sync returns once every file event the kernel queued before it was
// called has been read and marked (so pending tells of it), or when ctx
// ends. The kernel queues a process's events in the order the changes
// were made, on one queue for all its watches: sync writes a marker into
// the watched barrier folder and waits for the marker's own event.
// Without a barrier folder it returns at once.
func (w *watcher) sync(ctx context.Context) {
	if w.barrier == "" || w.bbroken.Load() {
		return
	}
	start := time.Now()
	w.bmu.Lock()
	w.bsent++
	seq := w.bsent
	w.bmu.Unlock()
	name := filepath.Join(w.barrier, strconv.FormatInt(seq, 10))
	f, err := os.Create(name)
	if err != nil {
		return
	}
	f.Close()
	_ = os.Remove(name)
	for {
		w.bmu.Lock()
		seen, moved := w.bseen, w.bmoved
		w.bmu.Unlock()
		if seen >= seq {
			return
		}
		select {
		case <-moved:
		case <-ctx.Done():
			if time.Since(start) >= time.Second && !w.bbroken.Swap(true) {
				w.ix.log.Warn("search index: the watcher's markers in the state dir are not reported; a lookup made right after another program's change may miss it for a moment")
			}
			return
		case <-w.closing:
			return
		}
	}
}

// barrierEvent takes in an event of the barrier folder: a marker's
// creation moves bseen. It reports whether ev was one.
func (w *watcher) barrierEvent(ev fsnotify.Event) bool {
	if w.barrier == "" || filepath.Dir(ev.Name) != w.barrier {
		return false
	}
	if seq, err := strconv.ParseInt(filepath.Base(ev.Name), 10, 64); err == nil && ev.Has(fsnotify.Create) {
		w.bmu.Lock()
		if seq > w.bseen {
			w.bseen = seq
			close(w.bmoved)
			w.bmoved = make(chan struct{})
		}
		w.bmu.Unlock()
	}
	return true
}

func (w *watcher) close() {
	close(w.closing)
	w.w.Close()
	w.done.Wait()
	w.ix.watching.Store(false)
}

// rel turns a host path into a vault path ("" for the root; ok false
// outside the vault).
func (w *watcher) rel(name string) (string, bool) {
	r, err := filepath.Rel(w.root, name)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	if r == "." {
		return "", true
	}
	// NFC as the vault names notes, but a twin's name as it is (one
	// that differs from another only in normalisation, vault/twins.go).
	return w.ix.v.CanonicalPath(filepath.ToSlash(r)), true
}

// addTree watches dir and every folder below it, skipping dot-folders.
func (w *watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != w.root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		add := w.w.Add
		if testHookAddWatch != nil {
			add = testHookAddWatch
		}
		if err := add(p); err != nil {
			if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
				return err
			}
			if errors.Is(err, fs.ErrNotExist) {
				return nil // vanished meanwhile
			}
			return err
		}
		return nil
	})
}

// dropTree removes the watches of a moved or deleted folder and of all
// folders below it.
func (w *watcher) dropTree(name string) {
	pre := name + string(filepath.Separator)
	for _, wp := range w.w.WatchList() {
		if wp == name || strings.HasPrefix(wp, pre) {
			_ = w.w.Remove(wp)
		}
	}
}

func (w *watcher) events() {
	defer w.done.Done()
	var quiet, deadline *time.Timer
	var quietC, deadlineC <-chan time.Time
	fire := func() {
		if quiet != nil {
			quiet.Stop()
		}
		if deadline != nil {
			deadline.Stop()
		}
		quietC, deadlineC = nil, nil
		w.kickFlush()
	}
	for {
		select {
		case <-w.closing:
			return
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			if w.barrierEvent(ev) {
				continue
			}
			if testHookEvent != nil {
				testHookEvent()
			}
			if !w.handle(ev) {
				continue
			}
			if quiet == nil {
				quiet = time.NewTimer(w.ix.o.Quiet)
			} else {
				quiet.Reset(w.ix.o.Quiet)
			}
			quietC = quiet.C
			if deadlineC == nil {
				if deadline == nil {
					deadline = time.NewTimer(w.ix.o.MaxDelay)
				} else {
					deadline.Reset(w.ix.o.MaxDelay)
				}
				deadlineC = deadline.C
			}
		case <-quietC:
			fire()
		case <-deadlineC:
			fire()
		case err, ok := <-w.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				msg := "search index: too many file changes at once, some events were lost; rescanning the vault. " +
					"If this happens often, raise fs.inotify.max_queued_events (sudo sysctl fs.inotify.max_queued_events=65536)"
				if w.overflowed.Swap(true) {
					w.ix.log.Debug(msg)
				} else {
					w.ix.log.Warn(msg)
				}
				w.ix.requestRescan()
				continue
			}
			w.ix.log.Warn("search index: file watcher error", "err", err)
		}
	}
}

// handle records one event; it reports whether a path became dirty.
func (w *watcher) handle(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	p, ok := w.rel(ev.Name)
	if !ok || p == "" || hiddenPath(p) {
		return false
	}
	if ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove) {
		w.dropTree(ev.Name)
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			// Watch the new folder before listing it: files created
			// in it before the watch existed produced no event, and
			// the flush walks the folder to find them.
			if err := w.addTree(ev.Name); err != nil {
				if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
					w.ix.watchFailed(err)
					w.ix.requestRescan()
				}
			}
		}
	}
	w.mark(p)
	return true
}

// flusher indexes the dirty paths whenever the event loop says so. It runs
// apart from the event loop so that events keep being read (and the kernel
// queue does not overflow) while a batch is indexed.
func (w *watcher) flusher() {
	defer w.done.Done()
	for {
		select {
		case <-w.closing:
			return
		case <-w.kick:
		}
		w.mu.Lock()
		dirty := w.dirty
		w.dirty = map[string]bool{}
		marked := w.marked.Load()
		w.flushing = len(dirty) > 0
		w.mu.Unlock()
		if len(dirty) == 0 {
			w.indexed.Store(marked)
			continue
		}
		w.flushes.Add(1)
		paths := make([]string, 0, len(dirty))
		for p := range dirty {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		expanded, err := w.ix.expandPaths(paths)
		if err == nil {
			err = w.ix.process(w.ix.ctx, expanded, nil, false)
		}
		if err != nil && w.ix.ctx.Err() == nil {
			w.ix.log.Warn("search index: updating changed files failed; rescanning", "err", err)
			w.ix.requestRescan()
		}
		w.mu.Lock()
		w.flushing = false
		w.indexed.Store(marked)
		w.mu.Unlock()
	}
}

// absorb takes back the marks of the files at paths whose change the index
// has taken in already: a vaultd write is indexed by Update at once, and
// its file events, read a moment later, would otherwise keep the index
// "behind" until the next flush (Options.Quiet) — every lookup that
// waits for a current name table waited for it: searches of the HTTP load
// on the laws, with a write every 80 ms, took 69 ms at the median and
// 470 ms at p95. was holds what the index has of each path (ok false:
// none); a path whose file is not what it has stays marked. It reads the
// events queued so far first (sync).
func (w *watcher) absorb(ctx context.Context, was map[string]fileEntry) {
	w.sync(ctx)
	root := w.ix.v.FS()
	w.mu.Lock()
	defer w.mu.Unlock()
	// Under mu, so that an event of a change after the stat is marked
	// after the mark is taken back.
	for p, e := range was {
		if !w.dirty[p] {
			continue
		}
		fi, err := fs.Stat(root, p)
		switch {
		case err == nil && e.Size >= 0 && fi.Mode().IsRegular() && fi.Size() == e.Size && fi.ModTime().UnixNano() == e.MTime:
		case errors.Is(err, fs.ErrNotExist) && e.Size < 0:
		default:
			continue
		}
		delete(w.dirty, p)
	}
	if len(w.dirty) == 0 && !w.flushing {
		w.indexed.Store(w.marked.Load())
	}
}

// pending reports whether file events wait to be indexed.
func (w *watcher) pending() bool { return w.marked.Load() != w.indexed.Load() }
