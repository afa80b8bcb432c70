package mcpserver

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync"
	"time"
)

// HTTPLimits bound what clients can make the HTTP server hold (issue 10
// item 6: any key, even read-only, pushed memory from 43 MB to 969 MB with
// 8 parallel 60 MB bodies; 1,100 slow or idle connections made the server
// stop answering others). Zero values take the defaults.
type HTTPLimits struct {
	// MaxBody bounds one request body. Default 16 MiB: upload_attachment
	// takes files up to 10 MB, 13.4 MB as base64 inside the JSON-RPC
	// message; a 2 MB note (the largest laws) fits many times over.
	// Larger bodies get 413 without being read.
	MaxBody int64
	// BodyBudget bounds the request bodies held in memory at once, by all
	// clients together, while they are read and handled. A body counts
	// twice its size: mcp-go and the tools copy it a few times (a 16 MB
	// body took about 110 MB while handled). Default 32 MiB, at least
	// 2×MaxBody, so one body of the largest size at a time. Bodies up to
	// 64 KiB (nearly every call) do not count. A body that does not fit
	// waits up to BodyWait, then gets 503.
	BodyBudget int64
	BodyWait   time.Duration // default 10 s
	// BodyTimeout bounds how long a request's headers and body may take
	// after the headers started (a body trickled a byte at a time ties up
	// a connection and a budget share). Default 60 s: 16 MiB in 60 s
	// needs about 2.3 Mbit/s.
	BodyTimeout time.Duration
	// ReadHeaderTimeout bounds the headers (slowloris). Default 10 s.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes keep-alive connections without a request.
	// Default 60 s.
	IdleTimeout time.Duration
	// MaxConns bounds the open connections. Default: 4,096 (an idle
	// connection holds about 16 KB), or fewer when the process may open
	// fewer files: a quarter of them, at least 256, stay for the index,
	// the vault and the state dir (when the limit ran out, accept failed
	// for everyone and the index could no longer open its segments). At the limit, the oldest connection that has
	// not shown a valid key is closed first, then the longest idle one;
	// connections in the middle of an authenticated request are never
	// closed, so a client with a key still gets in.
	MaxConns int
	// MaxRequestsPerKey bounds one key's requests in progress (bodies
	// being sent count). Default 16; more get 429.
	MaxRequestsPerKey int
	// MaxStreamsPerKey bounds one key's open event streams (GET, or a
	// subscriptions/listen POST). Default 8; more get 429.
	MaxStreamsPerKey int
	// MaxSessionsPerKey bounds one key's MCP sessions; opening one more
	// ends the key's least recently used session (one without an open
	// stream first). Default 32.
	MaxSessionsPerKey int
	// SessionIdleTTL ends a session unused this long (no request, no open
	// stream). Default 1 h.
	SessionIdleTTL time.Duration
	// RevokeCheck is how often the keys of open event streams are checked;
	// a revoked key's streams close within it. Default 500 ms.
	RevokeCheck time.Duration
	// MaxSubscriptionsPerSession bounds one session's resource
	// subscriptions, MaxSubscriptionsPerKey those of all sessions of one
	// key or signed-in connection together (one read-only key held 20,000,
	// 88 MB). Defaults 256 and 1,024 (SubscriptionLimits); more are
	// refused with an error naming one to let go.
	MaxSubscriptionsPerSession, MaxSubscriptionsPerKey int
}

// smallBody is the size up to which a body does not count against the
// budget: nearly every tool call is far below it.
const smallBody = 64 << 10

func (l HTTPLimits) withDefaults() HTTPLimits {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if l.MaxBody <= 0 {
		l.MaxBody = 16 << 20
	}
	if l.BodyBudget <= 0 {
		l.BodyBudget = 32 << 20
	}
	l.BodyBudget = max(l.BodyBudget, 2*l.MaxBody)
	def(&l.BodyWait, 10*time.Second)
	def(&l.BodyTimeout, 60*time.Second)
	def(&l.ReadHeaderTimeout, 10*time.Second)
	def(&l.IdleTimeout, 60*time.Second)
	def(&l.SessionIdleTTL, time.Hour)
	def(&l.RevokeCheck, 500*time.Millisecond)
	if l.MaxConns <= 0 {
		l.MaxConns = defaultMaxConns(openFileLimit())
	}
	if l.MaxRequestsPerKey <= 0 {
		l.MaxRequestsPerKey = 16
	}
	if l.MaxStreamsPerKey <= 0 {
		l.MaxStreamsPerKey = 8
	}
	if l.MaxSessionsPerKey <= 0 {
		l.MaxSessionsPerKey = 32
	}
	sl := SubscriptionLimits{MaxPerSession: l.MaxSubscriptionsPerSession, MaxPerKey: l.MaxSubscriptionsPerKey}.withDefaults()
	l.MaxSubscriptionsPerSession, l.MaxSubscriptionsPerKey = sl.MaxPerSession, sl.MaxPerKey
	return l
}

// defaultMaxConns leaves a quarter of the open-file limit (at least 256
// descriptors) to everything but connections.
func defaultMaxConns(nofile int) int {
	if nofile <= 0 {
		return 1024
	}
	return max(16, min(4096, nofile-max(256, nofile/4)))
}

// mib renders a byte count for messages: "16 MB", "256 KB".
func mib(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// byteBudget is a weighted semaphore of bytes with FIFO waiters (as
// golang.org/x/sync/semaphore, which vaultd does not otherwise need).
type byteBudget struct {
	mu      sync.Mutex
	size    int64
	used    int64
	waiters list.List // of *budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

func newByteBudget(size int64) *byteBudget { return &byteBudget{size: size} }

// acquire takes n bytes, waiting in line until they are free or ctx ends.
func (b *byteBudget) acquire(ctx context.Context, n int64) error {
	if n > b.size {
		return fmt.Errorf("%d bytes exceed the budget of %d", n, b.size)
	}
	b.mu.Lock()
	if b.size-b.used >= n && b.waiters.Len() == 0 {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	e := b.waiters.PushBack(w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready:
			// Granted just now: give it back.
			b.used -= n
		default:
			b.waiters.Remove(e)
		}
		b.notifyLocked()
		b.mu.Unlock()
		return ctx.Err()
	}
}

// release gives n bytes back.
func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.notifyLocked()
	b.mu.Unlock()
}

func (b *byteBudget) notifyLocked() {
	for e := b.waiters.Front(); e != nil; e = b.waiters.Front() {
		w := e.Value.(*budgetWaiter)
		if b.size-b.used < w.n {
			return // first in line first: no overtaking
		}
		b.used += w.n
		b.waiters.Remove(e)
		close(w.ready)
	}
}

// refuse answers a request the server will not serve, with a plain-text
// reason. The connection is closed afterwards: a body the handler did not
// read is not drained (that would wait for a client sending it slowly).
func (h *HTTPServer) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.log.Warn("http request refused", "status", status, "reason", msg, "remote", r.RemoteAddr, "method", r.Method)
	w.Header().Set("Connection", "close")
	http.Error(w, "vaultd: "+msg, status)
}

// readBody reads a POST body within the limits: 413 for one over MaxBody
// (refused by its Content-Length before a byte is read, or once it
// passes the limit), 408 for one that does not arrive in time, 503 when
// the bodies in memory already fill the budget. It returns the body and
// the function that gives its share of the budget back, or ok false when
// it answered the request.
func (h *HTTPServer) readBody(w http.ResponseWriter, r *http.Request) (body []byte, release func(), ok bool) {
	l := h.lim
	tooLarge := fmt.Sprintf("the request body is larger than %s, the most this server takes in one request; upload_attachment takes files up to 10 MB (13.4 MB as base64) — send less at once (a long note section by section with update_section)", mib(l.MaxBody))
	if r.ContentLength > l.MaxBody {
		h.refuse(w, r, http.StatusRequestEntityTooLarge, tooLarge)
		return nil, nil, false
	}
	var held int64
	release = func() {
		if held > 0 {
			h.bodiesDone(held)
			h.budget.release(held)
			held = 0
		}
	}
	acquire := func(n int64) bool {
		ctx, cancel := context.WithTimeout(r.Context(), l.BodyWait)
		defer cancel()
		if h.budget.acquire(ctx, n) != nil {
			w.Header().Set("Retry-After", "5")
			h.refuse(w, r, http.StatusServiceUnavailable, "the server is busy reading other large requests; send this one again in a few seconds")
			return false
		}
		held += n
		return true
	}
	failed := func(err error) ([]byte, func(), bool) {
		release()
		var tooBig *http.MaxBytesError
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			h.refuse(w, r, http.StatusRequestTimeout, fmt.Sprintf("the request did not arrive within %s; send it at once, not a little at a time", durationText(l.BodyTimeout)))
		case errors.As(err, &tooBig):
			h.refuse(w, r, http.StatusRequestEntityTooLarge, tooLarge)
		default:
			h.refuse(w, r, http.StatusBadRequest, "the request body could not be read: it ended early or the connection failed")
		}
		return nil, nil, false
	}
	if n := r.ContentLength; n >= 0 {
		if n > smallBody && !acquire(2*n) {
			return nil, nil, false
		}
		body = make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return failed(err)
		}
		return body, release, true
	}
	// Chunked, length unknown: the first 64 KiB are free. A larger body
	// is read in 1 MiB pieces (no buffer doubling, and one over the limit
	// is refused before it is joined), counting as the largest body until
	// it is joined, then as its size.
	first := make([]byte, smallBody+1)
	n, err := io.ReadFull(r.Body, first)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return first[:n], release, true
	} else if err != nil {
		return failed(err)
	}
	if !acquire(2 * l.MaxBody) {
		return nil, nil, false
	}
	pieces, total := [][]byte{first}, int64(n)
	for {
		p := make([]byte, 1<<20)
		n, err := io.ReadFull(r.Body, p)
		pieces, total = append(pieces, p[:n]), total+int64(n)
		if total > l.MaxBody {
			return failed(&http.MaxBytesError{Limit: l.MaxBody})
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return failed(err)
		}
	}
	body = bytes.Join(pieces, nil)
	h.budget.release(held - 2*total)
	held = 2 * total
	return body, release, true
}

// bodiesDone counts n bytes of request bodies the server is done with
// (a body and what the call made of it, as the budget counts them) and,
// once they add up to the body budget, collects the garbage before the
// caller gives its share of the budget back (so before the next large
// body is read). While serving, the collector runs at 200 %
// (index.ServingGC): garbage may grow to twice the live heap before it
// collects, and a large body's garbage — 16 MB, and the copies the JSON
// decoding makes of it — took the server's peak RSS from 173 MB to
// 224–268 MB in TestStress_HTTPBodies (8 bodies of 16 MB, one after
// another); 180–190 MB collecting here, 197–201 MB collecting beside the
// next body (in the background), 173 MB at GOGC=100. Small bodies do
// not count (they take no budget), so a load of tool calls never
// collects for them; a collection already running is not waited for.
func (h *HTTPServer) bodiesDone(n int64) {
	if h.bodyGarbage.Add(n) < h.lim.BodyBudget || !h.collecting.CompareAndSwap(false, true) {
		return
	}
	defer h.collecting.Store(false)
	h.bodyGarbage.Store(0)
	runtime.GC()
}

// respWriter adapts an http.ResponseWriter to mcp-go's HTTPResponseWriter
// (the server calls mcp-go's Handle with the body it read itself, so that
// mcp-go does not read it again).
type respWriter struct {
	w http.ResponseWriter
	f http.Flusher
}

func newRespWriter(w http.ResponseWriter) *respWriter {
	f, _ := w.(http.Flusher)
	return &respWriter{w: w, f: f}
}

func (a *respWriter) Header() http.Header         { return a.w.Header() }
func (a *respWriter) WriteHeader(status int)      { a.w.WriteHeader(status) }
func (a *respWriter) Write(p []byte) (int, error) { return a.w.Write(p) }
func (a *respWriter) CanStream() bool             { return a.f != nil }
func (a *respWriter) Flush() {
	if a.f != nil {
		a.f.Flush()
	}
}

// SetWriteDeadline lets mcp-go bound a write to a stalled client.
func (a *respWriter) SetWriteDeadline(t time.Time) error {
	return http.NewResponseController(a.w).SetWriteDeadline(t)
}

// connGuard bounds the open connections of a listener. At the limit it
// makes room for a new connection by closing the oldest one that has not
// shown a valid key (idle, slow headers, refused), else the longest idle
// one with a key; if every connection is in the middle of an
// authenticated request, the new one is closed instead.
type connGuard struct {
	net.Listener
	max int
	log func(msg string, args ...any)

	mu      sync.Mutex
	conns   map[*guardedConn]struct{}
	evicted int64
	refused int64
	lastLog time.Time
}

type guardedConn struct {
	net.Conn
	g        *connGuard
	accepted time.Time

	// Under g.mu:
	state     http.ConnState
	idleSince time.Time
	authed    bool
	gone      bool
}

func newConnGuard(ln net.Listener, max int, log func(string, ...any)) *connGuard {
	return &connGuard{Listener: ln, max: max, log: log, conns: map[*guardedConn]struct{}{}}
}

// Accept returns the next connection, making room for it first.
func (g *connGuard) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		now := time.Now()
		gc := &guardedConn{Conn: c, g: g, accepted: now, state: http.StateNew}
		g.mu.Lock()
		var victim *guardedConn
		if len(g.conns) >= g.max {
			victim = g.victimLocked()
			if victim == nil {
				g.refused++
				g.noteLocked(now)
				g.mu.Unlock()
				c.Close()
				continue
			}
			victim.gone = true
			delete(g.conns, victim)
			g.evicted++
			g.noteLocked(now)
		}
		g.conns[gc] = struct{}{}
		g.mu.Unlock()
		if victim != nil {
			victim.Conn.Close()
		}
		return gc, nil
	}
}

// victimLocked picks the connection to close for a new one: the oldest
// without a valid key that is not mid-request with one, then the longest
// idle one. g.mu is held.
func (g *connGuard) victimLocked() *guardedConn {
	var anon, idle *guardedConn
	for c := range g.conns {
		switch {
		case !c.authed:
			if anon == nil || c.accepted.Before(anon.accepted) {
				anon = c
			}
		case c.state == http.StateIdle:
			if idle == nil || c.idleSince.Before(idle.idleSince) {
				idle = c
			}
		}
	}
	if anon != nil {
		return anon
	}
	return idle
}

// noteLocked logs evictions at most every 10 s, so that a flood does not
// flood the log too.
func (g *connGuard) noteLocked(now time.Time) {
	if now.Sub(g.lastLog) < 10*time.Second {
		return
	}
	g.lastLog = now
	g.log("http connection limit reached: closed the oldest connections without a key to make room",
		"limit", g.max, "closed", g.evicted, "refused", g.refused)
}

// connState is the http.Server's ConnState hook.
func (g *connGuard) connState(c net.Conn, st http.ConnState) {
	gc, ok := c.(*guardedConn)
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	gc.state = st
	switch st {
	case http.StateIdle:
		gc.idleSince = time.Now()
	case http.StateClosed, http.StateHijacked:
		gc.gone = true
		delete(g.conns, gc)
	}
}

// authenticated marks the connection of a request that showed a valid key.
func (g *connGuard) authenticated(c *guardedConn) {
	g.mu.Lock()
	c.authed = true
	g.mu.Unlock()
}

// open is the number of connections held now.
func (g *connGuard) open() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.conns)
}

func (c *guardedConn) Close() error {
	c.g.mu.Lock()
	if !c.gone {
		c.gone = true
		delete(c.g.conns, c)
	}
	c.g.mu.Unlock()
	return c.Conn.Close()
}

type guardedConnKey struct{}

// connContext is the http.Server's ConnContext hook: requests know their
// connection, so that a valid key marks it.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if gc, ok := c.(*guardedConn); ok {
		return context.WithValue(ctx, guardedConnKey{}, gc)
	}
	return ctx
}
