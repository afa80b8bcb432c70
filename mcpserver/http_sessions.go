package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// Sessions, event streams and the per-key limits of the HTTP server.
//
// MCP sessions (protocol versions up to 2025-11-25) are held here, not in
// mcp-go's default manager, which accepts any well-formed id and whose
// DELETE ends nothing. A session belongs to the key that opened it: an id
// that is unknown, ended, or another key's gets 404; DELETE ends it and
// its event stream; a key opening more than MaxSessionsPerKey ends its
// least recently used one; a session unused for SessionIdleTTL ends.
// Requests of the stateless 2026-07-28 era carry no session and are not
// affected.

// keyState is what the server holds per key: its requests in progress,
// its open event streams.
type keyState struct {
	id   string // the key's hash; "open" with --no-auth
	name string

	// Under HTTPServer.mu:
	inflight int
	streams  map[*stream]struct{}
}

// stream is one open event stream: a GET of a session, or a
// subscriptions/listen POST (no session).
type stream struct {
	session string
	cancel  context.CancelFunc
}

// session is one MCP session.
type session struct {
	key      string // keyState.id
	lastUsed time.Time
	streams  int
}

var errUnknownSession = errors.New("unknown session")

// keyState returns the state of a key, made on first use.
func (h *HTTPServer) keyState(id, name string) *keyState {
	h.mu.Lock()
	defer h.mu.Unlock()
	ks := h.keys[id]
	if ks == nil {
		ks = &keyState{id: id, name: name, streams: map[*stream]struct{}{}}
		h.keys[id] = ks
	}
	return ks
}

type keyStateKey struct{}

func keyStateFrom(ctx context.Context) *keyState {
	ks, _ := ctx.Value(keyStateKey{}).(*keyState)
	return ks
}

// begin takes one of the key's request slots; false when they are all in
// use.
func (h *HTTPServer) begin(ks *keyState) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ks.inflight >= h.lim.MaxRequestsPerKey {
		return false
	}
	ks.inflight++
	return true
}

func (h *HTTPServer) end(ks *keyState) {
	h.mu.Lock()
	ks.inflight--
	h.mu.Unlock()
}

// openStream registers an event stream of the key (of session sid, or ""
// for a listen POST); it ends when its context is cancelled: on a revoked
// key, an ended session, shutdown. ok is false when the key has as many
// streams open as it may.
func (h *HTTPServer) openStream(ctx context.Context, ks *keyState, sid string) (context.Context, func(), bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(ks.streams) >= h.lim.MaxStreamsPerKey {
		return nil, nil, false
	}
	sctx, cancel := context.WithCancel(ctx)
	st := &stream{session: sid, cancel: cancel}
	ks.streams[st] = struct{}{}
	if s := h.sessions[sid]; s != nil {
		s.streams++
	}
	return sctx, func() {
		cancel()
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := ks.streams[st]; !ok {
			return
		}
		delete(ks.streams, st)
		if s := h.sessions[sid]; s != nil {
			s.streams--
			s.lastUsed = h.o.Now()
		}
	}, true
}

// newSession opens a session of the key. At the key's limit its least
// recently used session ends first (one without an open stream, if any).
func (h *HTTPServer) newSession(key string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	id := "vs-" + hex.EncodeToString(b)
	h.mu.Lock()
	defer h.unlockForget()
	now := h.o.Now()
	var own []string
	for sid, s := range h.sessions {
		if s.key == key {
			own = append(own, sid)
		}
	}
	if len(own) >= h.lim.MaxSessionsPerKey {
		sort.Slice(own, func(i, j int) bool {
			a, b := h.sessions[own[i]], h.sessions[own[j]]
			if (a.streams > 0) != (b.streams > 0) {
				return a.streams == 0
			}
			return a.lastUsed.Before(b.lastUsed)
		})
		for _, sid := range own[:len(own)-h.lim.MaxSessionsPerKey+1] {
			h.log.Info("http session ended: its key opened more sessions than it may keep", "key", h.keys[key].nameOr(key), "limit", h.lim.MaxSessionsPerKey)
			h.endSessionLocked(sid)
		}
	}
	h.sessions[id] = &session{key: key, lastUsed: now}
	return id
}

func (ks *keyState) nameOr(id string) string {
	if ks == nil {
		return id
	}
	return ks.name
}

// useSession checks that sid is a live session of the key (any key when
// key is "") and records its use.
func (h *HTTPServer) useSession(key, sid string) error {
	h.mu.Lock()
	defer h.unlockForget()
	s := h.sessions[sid]
	if s == nil || key != "" && s.key != key {
		return errUnknownSession
	}
	now := h.o.Now()
	if s.streams == 0 && now.Sub(s.lastUsed) > h.lim.SessionIdleTTL {
		h.endSessionLocked(sid)
		return errUnknownSession
	}
	s.lastUsed = now
	return nil
}

// endSession ends a session (of the key, or any when key is ""): later
// requests with its id get 404 and its event stream closes.
func (h *HTTPServer) endSession(key, sid string) {
	h.mu.Lock()
	defer h.unlockForget()
	if s := h.sessions[sid]; s != nil && (key == "" || s.key == key) {
		h.endSessionLocked(sid)
	}
}

func (h *HTTPServer) endSessionLocked(sid string) {
	s := h.sessions[sid]
	if s == nil {
		return
	}
	delete(h.sessions, sid)
	h.ended = append(h.ended, sid)
	if ks := h.keys[s.key]; ks != nil {
		for st := range ks.streams {
			if st.session == sid {
				st.cancel()
			}
		}
	}
}

// unlockForget releases h.mu, then forgets the sessions that ended while
// it was held: their resource subscriptions, and what mcp-go keeps of
// them. mcp-go would keep its own record of every session until it has
// been idle for SessionIdleTTL, so a key opening sessions in a loop (each
// ending its least recently used one here) grew it without bound.
func (h *HTTPServer) unlockForget() {
	ended := h.ended
	h.ended = nil
	h.mu.Unlock()
	for _, sid := range ended {
		h.sub.dropSession(sid)
		// mcp-go's DELETE handler clears its state of a session; the
		// session table's Terminate, which it calls first, finds the
		// session ended already.
		h.mcp.Handle(discardWriter{}, &server.HTTPRequest{Method: http.MethodDelete,
			Header: http.Header{server.HeaderKeySessionID: {sid}}, Context: context.Background()})
	}
}

// sessionAlive reports whether sid is a session of the table.
func (h *HTTPServer) sessionAlive(sid string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[sid] != nil
}

// discardWriter is the response of a request the server makes of mcp-go
// itself.
type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) WriteHeader(int)             {}
func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (discardWriter) Flush()                      {}
func (discardWriter) CanStream() bool             { return false }

// expireSessions ends the sessions unused for SessionIdleTTL.
func (h *HTTPServer) expireSessions() {
	h.mu.Lock()
	defer h.unlockForget()
	now := h.o.Now()
	for sid, s := range h.sessions {
		if s.streams == 0 && now.Sub(s.lastUsed) > h.lim.SessionIdleTTL {
			h.endSessionLocked(sid)
		}
	}
}

// closeRevoked ends the streams and sessions of keys revoked since they
// opened them: a revoked key's event stream closes within RevokeCheck, not
// at its next request.
func (h *HTTPServer) closeRevoked() {
	if h.o.Keys == nil {
		return
	}
	h.mu.Lock()
	var ids []string
	for id, ks := range h.keys {
		if len(ks.streams) > 0 {
			ids = append(ids, id)
		}
	}
	h.mu.Unlock()
	for _, id := range ids {
		ok, err := h.o.Keys.Valid(id)
		if err != nil || ok {
			continue // an unreadable store refuses every request anyway
		}
		h.mu.Lock()
		ks := h.keys[id]
		h.log.Info("access key revoked: its event streams and sessions end", "key", ks.name, "streams", len(ks.streams))
		for st := range ks.streams {
			st.cancel()
		}
		for sid, s := range h.sessions {
			if s.key == id {
				h.endSessionLocked(sid)
			}
		}
		h.unlockForget()
	}
}

// forgetGoneKeys drops what the server holds of keys and signed-in
// connections that no longer exist (revoked, or a grant that ended): their
// connection with its rate limits, and their request and stream counts,
// once nothing of theirs is in progress. Grants come and go with every
// sign-in, so these tables grew for the life of the server.
func (h *HTTPServer) forgetGoneKeys() {
	if h.o.Keys == nil {
		return
	}
	h.mu.Lock()
	var idle []string
	for id, ks := range h.keys {
		if ks.inflight == 0 && len(ks.streams) == 0 {
			idle = append(idle, id)
		}
	}
	h.mu.Unlock()
	for _, id := range idle {
		if ok, err := h.o.Keys.Valid(id); err != nil || ok {
			continue
		}
		h.mu.Lock()
		if ks := h.keys[id]; ks != nil && ks.inflight == 0 && len(ks.streams) == 0 {
			delete(h.keys, id)
			for c := range h.conns {
				if strings.HasPrefix(c, id+" ") {
					delete(h.conns, c)
				}
			}
		}
		h.mu.Unlock()
	}
}

// watch runs closeRevoked every RevokeCheck, and expireSessions and
// forgetGoneKeys every minute, until stop closes.
func (h *HTTPServer) watch(stop <-chan struct{}) {
	t := time.NewTicker(h.lim.RevokeCheck)
	defer t.Stop()
	swept := time.Now()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		h.closeRevoked()
		if time.Since(swept) >= time.Minute {
			h.expireSessions()
			h.forgetGoneKeys()
			swept = time.Now()
		}
	}
}

// closeStreams ends every open stream (shutdown).
func (h *HTTPServer) closeStreams() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ks := range h.keys {
		for st := range ks.streams {
			st.cancel()
		}
	}
}

// sessionResolver gives mcp-go a session manager bound to the request's
// key; without a request (mcp-go's idle sweep, shutdown) it acts on any
// session.
type sessionResolver struct{ h *HTTPServer }

func (r sessionResolver) ResolveSessionIdManager(req *http.Request) server.SessionIdManager {
	m := sessionManager{h: r.h}
	if req != nil {
		if ks := keyStateFrom(req.Context()); ks != nil {
			m.key = ks.id
		}
	}
	return m
}

// sessionManager is mcp-go's view of the server's sessions.
type sessionManager struct {
	h   *HTTPServer
	key string
}

func (m sessionManager) Generate() string { return m.h.newSession(m.key) }

func (m sessionManager) Validate(sid string) (isTerminated bool, err error) {
	return false, m.h.useSession(m.key, sid)
}

func (m sessionManager) Terminate(sid string) (isNotAllowed bool, err error) {
	m.h.endSession(m.key, sid)
	return false, nil
}
