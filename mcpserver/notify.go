package mcpserver

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultd/vaultd/tools"
)

// subscriptions track resources/subscribe per session and send
// notifications/resources/updated when a subscribed note changes:
// at once for vaultd's own writes (vault.OnChange, in this process), and
// for changes made by anything else — Obsidian, git, an editor, another
// vaultd process — by a stat of the subscribed files every pollEvery.
// (The search index's watcher runs in one vaultd process of a vault only,
// so it cannot drive every process's subscribers; a stat of the few
// subscribed files is cheap.) A URI that names no vault file — or a note
// that does not exist yet — may be subscribed to; the first is never
// notified, the second when the note appears.
type subscriptions struct {
	c *tools.Core
	s *server.MCPServer

	mu      sync.Mutex
	byURI   map[string]map[string]string // canonical uri → session ID → the uri as the session subscribed it
	stamps  map[string]string            // canonical uri → what the poll saw last
	polling bool
}

// pollEvery is how often subscribed files are checked for changes made
// outside this process.
const pollEvery = time.Second

func newSubscriptions(c *tools.Core, s *server.MCPServer, hooks *server.Hooks) *subscriptions {
	sub := &subscriptions{c: c, s: s, byURI: map[string]map[string]string{}, stamps: map[string]string{}}
	hooks.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		if sid := sessionID(ctx); sid != "" && req != nil {
			sub.add(sid, req.Params.URI)
		}
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if sid := sessionID(ctx); sid != "" && req != nil {
			sub.remove(sid, req.Params.URI)
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, session server.ClientSession) {
		sub.dropSession(session.SessionID())
	})
	c.Vault().OnChange(func(paths ...string) {
		for _, p := range paths {
			sub.changed(NoteURI(p))
		}
	})
	return sub
}

func sessionID(ctx context.Context) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}

// canonical spells a vault:// URI as NoteURI does (each segment
// percent-encoded), so that "Übersicht.md" and "%C3%9Cbersicht.md" are one
// subscription; other URIs stay as they are.
func canonical(uri string) string {
	if p, _, ok := pathOfURI(uri); ok {
		return NoteURI(p)
	}
	return uri
}

func (sub *subscriptions) add(sid, given string) {
	uri := canonical(given)
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.byURI[uri] == nil {
		sub.byURI[uri] = map[string]string{}
		sub.stamps[uri] = sub.stamp(uri)
	}
	sub.byURI[uri][sid] = given
	if !sub.polling {
		sub.polling = true
		go sub.poll()
	}
}

func (sub *subscriptions) remove(sid, given string) {
	uri := canonical(given)
	sub.mu.Lock()
	defer sub.mu.Unlock()
	delete(sub.byURI[uri], sid)
	if len(sub.byURI[uri]) == 0 {
		delete(sub.byURI, uri)
		delete(sub.stamps, uri)
	}
}

func (sub *subscriptions) dropSession(sid string) {
	sub.mu.Lock()
	var uris []string
	for uri, sids := range sub.byURI {
		if _, ok := sids[sid]; ok {
			uris = append(uris, uri)
		}
	}
	sub.mu.Unlock()
	for _, uri := range uris {
		sub.remove(sid, uri)
	}
}

// stamp is what identifies the current state of the file a URI names:
// size and modification time, or "gone".
func (sub *subscriptions) stamp(uri string) string {
	p, _, ok := pathOfURI(uri)
	if !ok {
		return ""
	}
	fi, err := fs.Stat(sub.c.Vault().FS(), p)
	if err != nil {
		return "gone"
	}
	return fmt.Sprintf("%d|%d", fi.Size(), fi.ModTime().UnixNano())
}

// changed notifies the sessions subscribed to uri (canonical), each with
// the URI as it subscribed it.
func (sub *subscriptions) changed(uri string) {
	sub.mu.Lock()
	to := map[string]string{}
	for sid, given := range sub.byURI[uri] {
		to[sid] = given
	}
	if len(to) > 0 {
		sub.stamps[uri] = sub.stamp(uri)
	}
	sub.mu.Unlock()
	for sid, given := range to {
		_ = sub.s.SendNotificationToSpecificClient(sid, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": given})
	}
}

// poll checks the subscribed files until no subscription is left.
func (sub *subscriptions) poll() {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for range t.C {
		sub.mu.Lock()
		if len(sub.byURI) == 0 {
			sub.polling = false
			sub.mu.Unlock()
			return
		}
		var moved []string
		for uri, was := range sub.stamps {
			if now := sub.stamp(uri); now != was {
				moved = append(moved, uri)
			}
		}
		sub.mu.Unlock()
		for _, uri := range moved {
			sub.changed(uri)
		}
	}
}

// ClientLog sends log records to MCP clients as notifications/message
// (logging/setLevel sets how much each session gets; the default is
// errors only) instead of to stderr, where clients show every line as an
// error. A record logged while serving a request goes to that request's
// session only, so that over HTTP one key's clients never see another's
// calls; a record of the server itself (the index, a recovery) goes to
// the client only over stdio, where there is one. Records before the
// server is attached (ServerOptions.ClientLog) are dropped.
type ClientLog struct {
	broadcast bool
	s         atomic.Pointer[server.MCPServer]
}

// NewClientLog returns a ClientLog; broadcast sends the server's own
// records to the stdio client.
func NewClientLog(broadcast bool) *ClientLog { return &ClientLog{broadcast: broadcast} }

// Handler is the slog handler that feeds the clients.
func (cl *ClientLog) Handler() slog.Handler { return &mcpLogHandler{cl: cl} }

type mcpLogHandler struct {
	cl    *ClientLog
	attrs []slog.Attr
	group string
}

func (h *mcpLogHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *mcpLogHandler) Handle(ctx context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		if a.Key != "" {
			fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	s := h.cl.s.Load()
	if s == nil {
		return nil
	}
	n := mcp.NewLoggingMessageNotification(mcpLevel(r.Level), "vaultd", b.String())
	if server.ClientSessionFromContext(ctx) != nil {
		_ = s.SendLogMessageToClient(ctx, n)
		return nil
	}
	if h.cl.broadcast {
		_ = s.SendLogMessageToSpecificClient("stdio", n)
	}
	return nil
}

func (h *mcpLogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	cp := *h
	cp.attrs = append(append([]slog.Attr{}, h.attrs...), as...)
	return &cp
}

func (h *mcpLogHandler) WithGroup(name string) slog.Handler {
	cp := *h
	cp.group = name
	return &cp
}

func mcpLevel(l slog.Level) mcp.LoggingLevel {
	switch {
	case l >= slog.LevelError:
		return mcp.LoggingLevelError
	case l >= slog.LevelWarn:
		return mcp.LoggingLevelWarning
	case l >= slog.LevelInfo:
		return mcp.LoggingLevelInfo
	}
	return mcp.LoggingLevelDebug
}

// fanout is a slog handler that hands each record to several handlers.
type fanout []slog.Handler

// Fanout logs each record to every handler that is enabled for it.
func Fanout(hs ...slog.Handler) slog.Handler { return fanout(hs) }

func (f fanout) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range f {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (f fanout) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range f {
		if h.Enabled(ctx, r.Level) {
			_ = h.Handle(ctx, r.Clone())
		}
	}
	return nil
}

func (f fanout) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(as)
	}
	return out
}

func (f fanout) WithGroup(name string) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(name)
	}
	return out
}
