package index

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/vaultd/vaultd/vault"
)

// The wire between the owner of an index and its clients: gob-encoded
// requests and responses on a unix socket, several in flight per
// connection (matched by ID), answered in any order. The owner first sends
// a hello naming its protocol, pid and index dir.

type wireHello struct {
	Proto int
	PID   int
	Dir   string
}

type wireRequest struct {
	ID      uint64
	Method  string // search, similar, backlinks, status, update, wait, names, changes, catchup-names, names-table, catalog
	Query   Query
	Similar SimilarQuery
	Path    string
	Link    bool // names: the reference was a [[link]]
	Paths   []string
	Timeout time.Duration // the caller's remaining time; 0: none
	Mark    ChangeMark    // changes: since when
	Gen     uint64        // names-table: the generation of the table the caller has
}

type wireResponse struct {
	ID        uint64
	Results   *Results
	Similar   *SimilarResults
	Backlinks []Backlink
	Status    *Status
	Ready     bool
	Names     *vault.NameMatch
	Changes   *Changes
	NamesGen  uint64            // names-table: the generation of the owner's table
	Catalog   []vault.NameEntry // catalog; names-table when the caller's table is old
	ErrKind   string            // "", query, closed, canceled, deadline, other
	Err       string
	QueryErr  *QueryError
}

// errMismatch means the owner speaks another protocol version: waiting
// does not help.
var errMismatch = errors.New("the index owner cannot be used")

// errConnLost means the owner went away (or is closing its index): the
// caller reattaches and tries again.
var errConnLost = errors.New("the process owning the search index went away")

// wireServer serves an owned index to other processes.
type wireServer struct {
	ln     net.Listener
	ix     *Index
	up     *groupUpdate // the owner's, shared with its own writes
	log    *slog.Logger
	dir    string
	sock   string
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed bool
}

// listen starts serving ix on the socket of dir. The caller holds the
// index lock, so a socket file left there belongs to a dead owner and is
// removed.
func listen(dir string, ix *Index, up *groupUpdate, log *slog.Logger) (*wireServer, error) {
	sock, err := socketPath(dir)
	if err != nil {
		return nil, err
	}
	_ = os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, err
	}
	// Only this user may search the notes through the socket.
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	if err := writeAddr(dir, sock); err != nil {
		ln.Close()
		return nil, err
	}
	w := &wireServer{ln: ln, ix: ix, up: up, log: log, dir: dir, sock: sock, conns: map[net.Conn]bool{}}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	w.wg.Add(1)
	go w.accept()
	return w, nil
}

func (w *wireServer) accept() {
	defer w.wg.Done()
	for {
		c, err := w.ln.Accept()
		if err != nil {
			return // closed
		}
		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
			c.Close()
			return
		}
		w.conns[c] = true
		w.wg.Add(1)
		w.mu.Unlock()
		go w.serveConn(c)
	}
}

func (w *wireServer) serveConn(c net.Conn) {
	defer w.wg.Done()
	defer func() {
		w.mu.Lock()
		delete(w.conns, c)
		w.mu.Unlock()
		c.Close()
	}()
	enc, dec := gob.NewEncoder(c), gob.NewDecoder(c)
	var wmu sync.Mutex
	if err := enc.Encode(wireHello{Proto: wireProto, PID: os.Getpid(), Dir: w.dir}); err != nil {
		return
	}
	var calls sync.WaitGroup
	defer calls.Wait()
	for {
		var req wireRequest
		if err := dec.Decode(&req); err != nil {
			return
		}
		calls.Add(1)
		go func() {
			defer calls.Done()
			resp := w.handle(req)
			wmu.Lock()
			defer wmu.Unlock()
			_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
			_ = enc.Encode(resp)
		}()
	}
}

func (w *wireServer) handle(req wireRequest) (resp wireResponse) {
	resp.ID = req.ID
	ctx := w.ctx
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	var err error
	switch req.Method {
	case "search":
		resp.Results, err = w.ix.Search(ctx, req.Query)
	case "similar":
		resp.Similar, err = w.ix.Similar(ctx, req.Similar)
	case "backlinks":
		resp.Backlinks, err = w.ix.Backlinks(ctx, req.Path)
	case "status":
		st := w.ix.Status()
		resp.Status = &st
	case "update":
		err = w.up.Update(req.Paths...)
	case "names":
		m, ok := w.ix.LookupName(req.Path, req.Link)
		resp.Names, resp.Ready = &m, ok
	case "changes":
		var ch Changes
		ch, err = w.ix.Changes(req.Mark)
		resp.Changes = &ch
	case "catchup-names":
		resp.Ready = w.ix.CatchUpNames(ctx)
	case "names-table":
		// The generation is read first: a table built meanwhile goes out
		// under the older number, and the caller fetches it once more.
		resp.NamesGen = w.ix.namesGen.Load()
		t, behind := w.ix.Names()
		resp.Ready = t != nil && !behind
		if t != nil && resp.NamesGen != req.Gen {
			resp.Catalog = t.Entries()
		}
	case "catalog":
		var behind bool
		resp.Catalog, behind = w.ix.Catalog()
		resp.Ready = !behind
	case "wait":
		// Not ready within the slice is an answer, not an error.
		resp.Ready = w.ix.WaitReady(ctx) == nil
		if !resp.Ready && (w.ix.closed.Load() || w.ctx.Err() != nil) {
			err = ErrClosed
		}
	default:
		err = fmt.Errorf("unknown method %q", req.Method)
	}
	if err != nil {
		var qe *QueryError
		switch {
		case errors.As(err, &qe):
			resp.ErrKind, resp.QueryErr = "query", qe
		case errors.Is(err, ErrClosed) || w.ctx.Err() != nil:
			resp.ErrKind = "closed"
		case errors.Is(err, context.DeadlineExceeded):
			resp.ErrKind = "deadline"
		case errors.Is(err, context.Canceled):
			resp.ErrKind = "canceled"
		default:
			resp.ErrKind = "other"
		}
		resp.Err = err.Error()
	}
	return resp
}

// close stops serving: no new connections, the socket and its address are
// removed (while the lock is still held, so no new owner's are), open
// connections are closed and running calls are cancelled and waited for.
func (w *wireServer) close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	w.ln.Close()
	if a, err := readAddr(w.dir); err == nil && a == w.sock {
		_ = os.Remove(filepath.Join(w.dir, addrName))
	}
	_ = os.Remove(w.sock)
	for c := range w.conns {
		c.Close()
	}
	w.mu.Unlock()
	w.cancel()
	w.wg.Wait()
}

// wireClient talks to the owner of an index.
type wireClient struct {
	conn net.Conn
	enc  *gob.Encoder
	wmu  sync.Mutex
	pid  int

	mu      sync.Mutex
	pending map[uint64]chan wireResponse
	nextID  uint64
	dead    bool

	namesMu  sync.Mutex
	namesGen uint64 // of table
	table    *vault.NameTable
}

// names returns the owner's name table, fetched again only when the
// owner's changed since the last call.
func (c *wireClient) names() (*vault.NameTable, bool, error) {
	c.namesMu.Lock()
	defer c.namesMu.Unlock()
	r, err := c.call(context.Background(), nameLookupTimeout, wireRequest{Method: "names-table", Gen: c.namesGen})
	if err != nil {
		return nil, false, err
	}
	if r.NamesGen != c.namesGen || c.table == nil {
		c.table, c.namesGen = vault.NewNameTable(r.Catalog), r.NamesGen
	}
	return c.table, !r.Ready, nil
}

// dial connects to the owner of the index in dir.
func dial(dir string) (*wireClient, error) {
	sock, err := readAddr(dir)
	if err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return nil, err
	}
	dec := gob.NewDecoder(conn)
	var h wireHello
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	if err := dec.Decode(&h); err != nil {
		conn.Close()
		return nil, fmt.Errorf("no hello from the index owner: %w", err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	if h.Proto != wireProto {
		conn.Close()
		return nil, fmt.Errorf("%w: the index owner (pid %d) speaks protocol %d, this vaultd %d; run one vaultd version per vault", errMismatch, h.PID, h.Proto, wireProto)
	}
	if !sameDir(h.Dir, dir) {
		conn.Close()
		// A stale address (say, of a copied state dir): the owner that
		// holds this index's lock writes its own in a moment.
		return nil, fmt.Errorf("the socket %s serves another index (%s)", sock, h.Dir)
	}
	c := &wireClient{conn: conn, enc: gob.NewEncoder(conn), pid: h.PID, pending: map[uint64]chan wireResponse{}}
	go c.read(dec)
	return c, nil
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// read delivers responses until the connection breaks; then every waiting
// call gets errConnLost.
func (c *wireClient) read(dec *gob.Decoder) {
	for {
		var resp wireResponse
		if err := dec.Decode(&resp); err != nil {
			c.fail()
			return
		}
		c.mu.Lock()
		ch := c.pending[resp.ID]
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- resp
		}
	}
}

func (c *wireClient) fail() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return
	}
	c.dead = true
	c.conn.Close()
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

func (c *wireClient) close() { c.fail() }

// isDead reports whether the connection to the owner is lost.
func (c *wireClient) isDead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

// call sends req and waits for its answer, for ctx or timeout (if > 0).
// Errors: errConnLost when the owner went away or is closing; the owner's
// errors (*QueryError, ctx errors, others as text); ctx errors.
func (c *wireClient) call(ctx context.Context, timeout time.Duration, req wireRequest) (wireResponse, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		if left <= 0 {
			return wireResponse{}, context.DeadlineExceeded
		}
		if req.Timeout == 0 || left < req.Timeout {
			req.Timeout = left
		}
	}
	ch := make(chan wireResponse, 1)
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		return wireResponse{}, errConnLost
	}
	c.nextID++
	req.ID = c.nextID
	c.pending[req.ID] = ch
	c.mu.Unlock()

	c.wmu.Lock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	err := c.enc.Encode(req)
	c.wmu.Unlock()
	if err != nil {
		c.fail()
		return wireResponse{}, errConnLost
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			return wireResponse{}, errConnLost
		}
		return resp, resp.err()
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, req.ID)
		c.mu.Unlock()
		return wireResponse{}, ctx.Err()
	}
}

// err turns the owner's error back into the error of *Index.
func (r wireResponse) err() error {
	switch r.ErrKind {
	case "":
		return nil
	case "query":
		if r.QueryErr != nil {
			return r.QueryErr
		}
	case "closed":
		return errConnLost
	case "deadline":
		return context.DeadlineExceeded
	case "canceled":
		return context.Canceled
	}
	return errors.New(r.Err)
}
