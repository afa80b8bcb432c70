package vault

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/vaultd/vaultd/note"
)

// locksDir is the folder of the state dir that holds the lock files.
const locksDir = "locks"

// noteLocks serialises writers of one note. A lock is two locks in one:
//
//   - an in-process mutex per key, because flock(2) locks belong to an open
//     file description, and goroutines of one Vault would otherwise each
//     have to open the lock file and park an OS thread in flock;
//   - an exclusive flock on a lock file in the state dir, because two vaultd
//     processes on one vault are normal (Claude Code and Cursor each start
//     one) and must not interleave their read-modify-write cycles.
//
// The kernel drops a flock when its process dies, so a killed writer never
// leaves a note locked. Lock files are never removed: removing a lock file
// while another process waits on it would let two writers hold "the" lock at
// once. There is one small file per note ever written.
//
// Two processes only exclude each other when they use the same state dir.
type noteLocks struct {
	mu sync.Mutex
	m  map[string]*lockEntry
}

type lockEntry struct {
	mu   sync.Mutex
	refs int
}

// lock takes the lock named key (a folded note path, or "\x00journal" for
// the history and trash logs) and returns the function that releases it.
func (v *Vault) lock(key string) (unlock func(), err error) {
	l := &v.w.locks
	l.mu.Lock()
	if l.m == nil {
		l.m = make(map[string]*lockEntry)
	}
	e := l.m[key]
	if e == nil {
		e = &lockEntry{}
		l.m[key] = e
	}
	e.refs++
	l.mu.Unlock()

	release := func() {
		l.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(l.m, key)
		}
		l.mu.Unlock()
	}
	e.mu.Lock()
	f, err := v.lockFile(key)
	if err != nil {
		e.mu.Unlock()
		release()
		return nil, err
	}
	return func() {
		unlockFile(f) // closing drops the lock too; unlock first to hand over promptly
		f.Close()
		e.mu.Unlock()
		release()
	}, nil
}

// tryLock takes the lock named key if it comes free within wait, and
// returns its release; ok is false when it did not. A caller that holds
// other locks and cannot order them with everyone else's (git sync, which
// locks the notes a merge changes) uses it, so that it never waits on a
// lock while holding one another writer waits for.
func (v *Vault) tryLock(key string, wait time.Duration) (unlock func(), ok bool, err error) {
	deadline := time.Now().Add(wait)
	l := &v.w.locks
	l.mu.Lock()
	if l.m == nil {
		l.m = make(map[string]*lockEntry)
	}
	e := l.m[key]
	if e == nil {
		e = &lockEntry{}
		l.m[key] = e
	}
	e.refs++
	l.mu.Unlock()
	release := func() {
		l.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(l.m, key)
		}
		l.mu.Unlock()
	}
	for !e.mu.TryLock() {
		if time.Now().After(deadline) {
			release()
			return nil, false, nil
		}
		time.Sleep(lockPoll)
	}
	f, err := v.openLockFile(key)
	if err != nil {
		e.mu.Unlock()
		release()
		return nil, false, err
	}
	for {
		got, err := tryLockFileEx(f)
		if err != nil || !got && time.Now().After(deadline) {
			f.Close()
			e.mu.Unlock()
			release()
			return nil, false, err
		}
		if got {
			break
		}
		time.Sleep(lockPoll)
	}
	return func() {
		unlockFile(f)
		f.Close()
		e.mu.Unlock()
		release()
	}, true, nil
}

// lockPoll is how often tryLock looks again.
const lockPoll = 5 * time.Millisecond

// lockFile opens the lock file of key and locks it exclusively, waiting
// for other processes to release it.
func (v *Vault) lockFile(key string) (*os.File, error) {
	f, err := v.openLockFile(key)
	if err != nil {
		return nil, err
	}
	if err := lockFileEx(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock a note: %w", err)
	}
	return f, nil
}

// openLockFile opens (creating) the lock file of key.
func (v *Vault) openLockFile(key string) (*os.File, error) {
	sum := sha256.Sum256([]byte(key))
	name := locksDir + "/" + hex.EncodeToString(sum[:8]) + ".lock"
	f, err := v.state.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if os.IsNotExist(err) {
		if err := v.state.MkdirAll(locksDir, 0o755); err != nil {
			return nil, fmt.Errorf("create the lock folder in the state dir: %w", err)
		}
		f, err = v.state.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	}
	if err != nil {
		return nil, fmt.Errorf("open a lock file in the state dir: %w", err)
	}
	return f, nil
}

// noteKey is the lock key of a note: its path case-folded, so that two
// writers creating "Plan.md" and "plan.md" at once exclude each other
// (the second create must see the first and refuse the case twin).
func noteKey(p string) string { return note.HeadingKey(p) }

// journalKey locks the history and trash logs and the external-change scan.
const journalKey = "\x00journal"
