package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vaultd/vaultd/vault"
)

// One index, many processes. A bleve index can be opened by one process
// only (LIBRARIES.md §0 #7), but one person runs several vaultd processes
// on one vault: Claude Code and Cursor each start `vaultd serve`, and the
// terminal runs `vaultd search`. So the first process to open the index
// owns it and serves it to the others on a unix socket in the state dir,
// as gopls' shared daemon does; the others are its clients. When the owner
// exits, the next call of a client takes the index over: it takes the
// lock, opens the index and serves the socket itself. Permissions, rate
// limits and identity stay in each process (package tools); only
// searching is shared.
//
// Nothing waits unboundedly: attaching (taking the lock or reaching the
// owner) gives up after AttachTimeout, every call has a deadline.

// AttachTimeout bounds how long OpenShared, or a client whose owner went
// away, tries to take the lock or reach the owner's socket. An owner opens
// its socket milliseconds after taking the lock, so this only expires when
// the owner hangs.
var AttachTimeout = 10 * time.Second

// Call timeouts for the calls that take no context.
var (
	statusTimeout = 5 * time.Second
	updateTimeout = 2 * time.Minute
)

const (
	sockName = "index.sock"
	addrName = "index.addr" // the socket's path, written by the owner
	// wireProto changes whenever the messages below change incompatibly.
	//	2: Query.Path and Query.Sections; hits carry their sections
	//	3: similar
	//	4: names (LookupName)
	//	5: changes (the change journal)
	//	6: catchup-names, names-table, catalog
	wireProto = 6
)

// Shared is a handle on a vault's index that other vaultd processes on the
// same vault share: this process either owns the index (and serves it to
// the others) or asks the owner. It has the methods of *Index that a server
// needs and is safe for concurrent use.
type Shared struct {
	v   *vault.Vault
	o   Options
	log *slog.Logger
	dir string

	mu     sync.Mutex
	local  *Index       // set while this process owns the index
	up     *groupUpdate // of local
	srv    *wireServer  // set while this process owns the index
	client *wireClient  // set while another process owns it
	gen    int          // counts changes of local/client
	closed bool
}

// OpenShared opens the index of v shared with other processes: it becomes
// the owner (like Open, and serves the index on a socket in the state dir)
// or, when another process owns the index, a client of that process.
// Errors: *BusyError (ErrBusy) when the owner holds the lock but does not
// answer within AttachTimeout; the errors of Open.
func OpenShared(v *vault.Vault, o Options) (*Shared, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Dir == "" {
		o.Dir = v.StateDir()
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	o.Dir = dir
	s := &Shared{v: v, o: o, log: o.Logger, dir: dir}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.attachLocked(); err != nil {
		return nil, err
	}
	return s, nil
}

// Owner reports whether this process owns the index now.
func (s *Shared) Owner() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.local != nil
}

// OwnerPID is the pid of the process owning the index (this one's when
// Owner), 0 if unknown.
func (s *Shared) OwnerPID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.local != nil {
		return os.Getpid()
	}
	if s.client != nil {
		return s.client.pid
	}
	return 0
}

// attachLocked makes this process the owner, or a client of the owner,
// trying for at most AttachTimeout.
func (s *Shared) attachLocked() error {
	deadline := time.Now().Add(AttachTimeout)
	wait := 5 * time.Millisecond
	var lastErr error
	for {
		ix, err := Open(s.v, s.o)
		if err == nil {
			up := &groupUpdate{ix: ix}
			srv, lerr := listen(s.dir, ix, up, s.log)
			if lerr != nil {
				// Without a socket others cannot share the index, but
				// this process can still use it, and serves it as soon
				// as it can (a full state dir has no room for the
				// socket's address file).
				s.log.Warn("search index: cannot serve it to other vaultd processes yet; retrying", "error", lerr)
				go s.listenLater(ix, up)
			}
			s.local, s.up, s.srv, s.client = ix, up, srv, nil
			s.gen++
			return nil
		}
		var busy *BusyError
		if !errors.As(err, &busy) {
			return err
		}
		c, derr := dial(s.dir)
		if derr == nil {
			s.local, s.up, s.srv, s.client = nil, nil, nil, c
			s.gen++
			return nil
		}
		lastErr = derr
		if errors.Is(derr, errMismatch) || time.Now().After(deadline) {
			return &UnreachableError{PID: busy.PID, Err: lastErr}
		}
		time.Sleep(wait)
		wait = min(wait*2, 200*time.Millisecond)
	}
}

// listenRetry is how often an owner that could not open its socket tries
// again.
var listenRetry = time.Second

// listenLater opens the socket for the local index ix once it can, unless
// this process no longer owns ix by then.
func (s *Shared) listenLater(ix *Index, up *groupUpdate) {
	for {
		time.Sleep(listenRetry)
		s.mu.Lock()
		if s.closed || s.local != ix {
			s.mu.Unlock()
			return
		}
		srv, err := listen(s.dir, ix, up, s.log)
		if err == nil {
			s.srv = srv
			s.mu.Unlock()
			s.log.Info("search index: now shared with other vaultd processes on the vault")
			return
		}
		s.mu.Unlock()
	}
}

// state returns what to call: the local index or the owner's client.
func (s *Shared) state() (*Index, *wireClient, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, 0, ErrClosed
	}
	return s.local, s.client, s.gen, nil
}

// updater returns the group updater of the local index.
func (s *Shared) updater() *groupUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.up
}

// reattach replaces a client whose owner went away: this process takes the
// index over, or connects to whoever did. Several goroutines noticing the
// loss at once reattach once (gen).
func (s *Shared) reattach(gen int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.gen != gen {
		return nil
	}
	if s.client != nil {
		s.client.close()
		s.client = nil
	}
	err := s.attachLocked()
	if err == nil && s.local != nil {
		s.log.Info("search index: took over from the process that owned it", "dir", s.dir)
	}
	return err
}

// do runs a call locally when this process owns the index, else at the
// owner; when the owner is gone it reattaches and tries again.
func (s *Shared) do(local func(*Index) error, remote func(*wireClient) error) error {
	var err error
	for range 3 {
		ix, c, gen, serr := s.state()
		if serr != nil {
			return serr
		}
		if ix != nil {
			return local(ix)
		}
		if c == nil {
			// An earlier reattach failed (the owner did not answer):
			// try again now rather than fail for good.
			if err = s.reattach(gen); err != nil {
				return err
			}
			continue
		}
		err = remote(c)
		if !errors.Is(err, errConnLost) {
			return err
		}
		if rerr := s.reattach(gen); rerr != nil {
			return rerr
		}
	}
	return err
}

// Search runs a query; see (*Index).Search.
func (s *Shared) Search(ctx context.Context, q Query) (*Results, error) {
	var res *Results
	err := s.do(func(ix *Index) (err error) {
		res, err = ix.Search(ctx, q)
		return err
	}, func(c *wireClient) error {
		r, err := c.call(ctx, 0, wireRequest{Method: "search", Query: q})
		if err == nil {
			res = r.Results
			if res == nil {
				res = &Results{}
			}
		}
		return err
	})
	return res, err
}

// Similar returns the notes like a note or section; see (*Index).Similar.
func (s *Shared) Similar(ctx context.Context, q SimilarQuery) (*SimilarResults, error) {
	var res *SimilarResults
	err := s.do(func(ix *Index) (err error) {
		res, err = ix.Similar(ctx, q)
		return err
	}, func(c *wireClient) error {
		r, err := c.call(ctx, 0, wireRequest{Method: "similar", Similar: q})
		if err == nil {
			res = r.Similar
			if res == nil {
				res = &SimilarResults{}
			}
		}
		return err
	})
	return res, err
}

// Backlinks returns the links to a note; see (*Index).Backlinks.
func (s *Shared) Backlinks(ctx context.Context, path string) ([]Backlink, error) {
	var out []Backlink
	err := s.do(func(ix *Index) (err error) {
		out, err = ix.Backlinks(ctx, path)
		return err
	}, func(c *wireClient) error {
		r, err := c.call(ctx, 0, wireRequest{Method: "backlinks", Path: path})
		if err == nil {
			out = r.Backlinks
		}
		return err
	})
	return out, err
}

// Status reports the index's progress and problems. When the owner cannot
// be asked, Status.Problem says so.
func (s *Shared) Status() Status {
	var st Status
	err := s.do(func(ix *Index) error {
		st = ix.Status()
		return nil
	}, func(c *wireClient) error {
		r, err := c.call(context.Background(), statusTimeout, wireRequest{Method: "status"})
		if err == nil && r.Status != nil {
			st = *r.Status
		}
		return err
	})
	if err != nil {
		st.Problem = "the search index cannot be reached: " + err.Error()
	}
	return st
}

// Update reindexes paths now; see (*Index).Update. A client asks the owner,
// which re-reads the files from disk, so a write by this process is
// searchable in every process when Update returns.
func (s *Shared) Update(paths ...string) error {
	return s.do(func(ix *Index) error {
		if up := s.updater(); up != nil && up.ix == ix {
			return up.Update(paths...)
		}
		return ix.Update(paths...)
	}, func(c *wireClient) error {
		_, err := c.call(context.Background(), updateTimeout, wireRequest{Method: "update", Paths: paths})
		return err
	})
}

// Changes returns the paths the index looked at since mark m; see
// (*Index).Changes. A client asks the owner, whose journal has every
// process's writes and what the owner's watcher saw; when the owner
// changed since m, the changes are Lost. Errors: the owner cannot be
// reached.
func (s *Shared) Changes(m ChangeMark) (Changes, error) {
	var out Changes
	err := s.do(func(ix *Index) (err error) {
		out, err = ix.Changes(m)
		return err
	}, func(c *wireClient) error {
		r, err := c.call(context.Background(), statusTimeout, wireRequest{Method: "changes", Mark: m})
		if err == nil && r.Changes != nil {
			out = *r.Changes
		} else if err == nil {
			out = Changes{Lost: true}
		}
		return err
	})
	return out, err
}

// WalkedFiles is (*Index).WalkedFiles in the process that keeps the
// index; elsewhere ok is false (the caller walks the vault itself).
func (s *Shared) WalkedFiles() (files []string, mark ChangeMark, ok bool) {
	_ = s.do(func(ix *Index) error {
		files, mark, ok = ix.WalkedFiles()
		return nil
	}, func(*wireClient) error { return nil })
	return files, mark, ok
}

// WaitReady blocks until the index has compared itself with the files, or
// ctx ends; see (*Index).WaitReady.
func (s *Shared) WaitReady(ctx context.Context) error {
	for {
		ready := false
		err := s.do(func(ix *Index) error {
			ready = true
			return ix.WaitReady(ctx)
		}, func(c *wireClient) error {
			// Ask in slices of a second, so that a lost owner is noticed
			// and taken over while waiting.
			r, err := c.call(ctx, 0, wireRequest{Method: "wait", Timeout: time.Second})
			if err == nil {
				ready = r.Ready
			}
			return err
		})
		if err != nil || ready {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// Close stops sharing: an owner stops serving its socket (its clients take
// over on their next call) and closes the index; a client disconnects.
func (s *Shared) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.srv != nil {
		s.srv.close()
	}
	if s.local != nil {
		err = s.local.Close()
	}
	if s.client != nil {
		s.client.close()
	}
	s.local, s.up, s.srv, s.client = nil, nil, nil, nil
	return err
}

// socketPath is where the owner of the index in dir listens: in the state
// dir when the path fits a unix socket address (108 bytes on Linux, 104 on
// macOS), else in a private folder in the temp dir, named by the state
// dir. The owner writes the path it chose to addrName, so clients never
// have to guess.
func socketPath(dir string) (string, error) {
	p := filepath.Join(dir, sockName)
	if len(p) < 100 {
		return p, nil
	}
	h := sha256.Sum256([]byte(dir))
	private := filepath.Join(os.TempDir(), "vaultd-"+strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(private, 0o700); err != nil {
		return "", err
	}
	if err := os.Chmod(private, 0o700); err != nil {
		return "", err
	}
	return filepath.Join(private, hex.EncodeToString(h[:8])+".sock"), nil
}

// readAddr returns the socket path the owner wrote.
func readAddr(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, addrName))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// writeAddr records the socket path for clients (temp file and rename, so
// a client never reads half a path).
func writeAddr(dir, sock string) error {
	tmp := filepath.Join(dir, "."+addrName+"."+strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(tmp, []byte(sock+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, addrName))
}

// UnreachableError means another process owns the index (it holds the
// lock) but does not answer on its socket within AttachTimeout. It matches
// ErrBusy.
type UnreachableError struct {
	PID int // 0 if unknown
	Err error
}

func (e *UnreachableError) Error() string {
	who := "another vaultd process"
	if e.PID > 0 {
		who = fmt.Sprintf("vaultd process %d", e.PID)
	}
	return fmt.Sprintf("the search index of this vault is owned by %s, which does not answer (%v); if that process hangs, stop it", who, e.Err)
}

func (e *UnreachableError) Unwrap() error { return ErrBusy }
