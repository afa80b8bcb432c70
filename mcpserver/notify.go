package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"golang.org/x/text/unicode/norm"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/tools"
)

// subscriptions track resources/subscribe per session and send
// notifications/resources/updated when a subscribed note changes: at once
// for this process's writes (vault.OnChange), and for every other change
// — another vaultd process's writes, Obsidian, git, an editor — from the
// search index's change journal (tools.Core.Changes), asked once every
// pollEvery while anything is subscribed: one call that names the paths
// changed, whatever the number of subscriptions, so an idle subscription
// costs nothing (each subscribed file used to be stat'ed every second:
// 20,000 subscriptions of one read-only key held a quarter of a core).
// Only when the journal cannot say — its owner changed, more changed than
// it keeps — are the subscribed files looked at, each once; when there is
// none (no index, or its owner cannot be asked), on every tick: the
// limits bound them.
//
// A session holds at most MaxPerSession subscriptions and the sessions of
// one access key or signed-in connection MaxPerKey together; more are
// refused with an error that says how many are held and which to let go.
// A URI that names no vault file — or a note that does not exist yet — may
// be subscribed to; the first is never notified, the second when the
// note appears.
type subscriptions struct {
	c *tools.Core
	// vs, when it serves vaults by name, is what the URIs name as
	// NAME:path; visible says which of them a request's connection may
	// read (a subscription to another vault is refused as unknown).
	vs      *tools.Vaults
	visible func(ctx context.Context) []string
	s       *server.MCPServer
	lim     SubscriptionLimits
	// alive, when set, says whether a session still exists (the HTTP
	// server's sessions, which end there, not with mcp-go's hooks).
	alive func(sid string) bool

	mu       sync.Mutex
	byURI    map[string]map[string]string // canonical uri → session ID → the uri as the session subscribed it
	sessions map[string]*subSession       // session ID → its subscriptions
	perKey   map[string]int               // key id → subscriptions of its sessions
	stamps   map[string]string            // canonical uri → what was seen last
	seq      uint64                       // orders subscriptions (the oldest is named first)
	polling  bool
	mark     index.ChangeMark
	marks    map[string]index.ChangeMark // by vault, where vs serves several
	// ticks counts the polls, looked counts the files stat'ed by them
	// (tests check that an idle subscription costs none).
	ticks, looked int
}

// subSession is one session's subscriptions.
type subSession struct {
	key  string            // the access key's id ("" over stdio)
	uris map[string]subURI // canonical uri → how it was subscribed
}

type subURI struct {
	given string
	seq   uint64
}

// SubscriptionLimits bound the resource subscriptions a client can make
// the server hold. Zero values take the defaults.
type SubscriptionLimits struct {
	// MaxPerSession bounds one session's subscriptions. Default 256: a
	// client subscribes to the notes it shows, a few dozen.
	MaxPerSession int
	// MaxPerKey bounds the subscriptions of all sessions of one access key
	// or signed-in connection together (HTTP). Default 1,024.
	MaxPerKey int
}

func (l SubscriptionLimits) withDefaults() SubscriptionLimits {
	if l.MaxPerSession <= 0 {
		l.MaxPerSession = 256
	}
	if l.MaxPerKey <= 0 {
		l.MaxPerKey = 1024
	}
	return l
}

// maxSubscribeURI bounds the URI of a subscription: a vault path is far
// shorter, even percent-encoded, and the URI is kept as sent.
const maxSubscribeURI = 4096

// pollEvery is how often the change journal is asked while anything is
// subscribed.
const pollEvery = time.Second

func newSubscriptions(c *tools.Core, vs *tools.Vaults, visible func(context.Context) []string, s *server.MCPServer, hooks *server.Hooks, lim SubscriptionLimits) *subscriptions {
	sub := &subscriptions{c: c, s: s, lim: lim.withDefaults(), byURI: map[string]map[string]string{},
		sessions: map[string]*subSession{}, perKey: map[string]int{}, stamps: map[string]string{}, marks: map[string]index.ChangeMark{}}
	if vs != nil && vs.Multi() {
		sub.vs, sub.visible = vs, visible
	}
	// A subscription is taken (or refused) before mcp-go answers the
	// request: mcp-go's own handler only acknowledges it.
	hooks.AddOnRequestInitialization(func(ctx context.Context, _ any, message any) error {
		raw, ok := message.(json.RawMessage)
		if !ok || !bytes.Contains(raw, []byte(mcp.MethodResourcesSubscribe)) {
			return nil
		}
		var req struct {
			Method string `json:"method"`
			Params struct {
				URI  string    `json:"uri"`
				Meta *mcp.Meta `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &req) != nil || req.Method != string(mcp.MethodResourcesSubscribe) ||
			req.Params.URI == "" || mcp.IsModernProtocol(req.Params.Meta.ProtocolVersion()) {
			return nil // mcp-go refuses it
		}
		sid := sessionID(ctx)
		if sid == "" {
			return nil
		}
		key := ""
		if ks := keyStateFrom(ctx); ks != nil {
			key = ks.id
		}
		if sub.vs != nil {
			if err := sub.mayRead(ctx, req.Params.URI); err != nil {
				return err
			}
		}
		return sub.add(sid, key, req.Params.URI, keyStateFrom(ctx))
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if sid := sessionID(ctx); sid != "" && req != nil {
			sub.remove(sid, req.Params.URI)
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, session server.ClientSession) {
		if sub.alive == nil { // over HTTP, sessions end with the server's table
			sub.dropSession(session.SessionID())
		}
	})
	if sub.vs == nil {
		c.Vault().OnChange(func(paths ...string) {
			for _, p := range paths {
				sub.changed(canonical(NoteURI(p)))
			}
		})
		return sub
	}
	// This process's writes at once, in every vault served from the start
	// (one served later by a reload: by the poll, within pollEvery).
	for _, name := range vs.Names() {
		vs.Core(name).Vault().OnChange(func(paths ...string) {
			for _, p := range paths {
				sub.changed(canonical(NoteURI(name + ":" + p)))
			}
		})
	}
	return sub
}

// mayRead refuses a subscription to a URI that names no vault the
// request's connection may read, as readInVaults refuses to read it.
func (sub *subscriptions) mayRead(ctx context.Context, uri string) error {
	visible := sub.visible(ctx)
	if p, _, ok := pathOfURI(uri); ok {
		if _, _, ok := splitVault(sub.vs, visible, p); ok {
			return nil
		}
	}
	return fmt.Errorf("resources/subscribe %q refused: this server serves several vaults, and names a note as %sNAME:path; the vaults: %s; resources/list lists them",
		tools.Cut(uri, 200), noteURIPrefix, strings.Join(visible, ", "))
}

// fileOf returns the vault file system and the path a URI names.
func (sub *subscriptions) fileOf(uri string) (fs.FS, string, bool) {
	p, _, ok := pathOfURI(uri)
	if !ok {
		return nil, "", false
	}
	if sub.vs == nil {
		return sub.c.Vault().FS(), p, true
	}
	name, rest, ok := strings.Cut(p, ":")
	c := sub.vs.Core(name)
	if !ok || c == nil {
		return nil, "", false
	}
	return c.Vault().FS(), rest, true
}

func sessionID(ctx context.Context) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}

// canonical spells a vault:// URI as NoteURI does (each segment
// percent-encoded, the path in Unicode NFC as the vault looks names up),
// so that "Übersicht.md" and "%C3%9Cbersicht.md" are one subscription;
// other URIs stay as they are.
func canonical(uri string) string {
	if p, _, ok := pathOfURI(uri); ok {
		return NoteURI(norm.NFC.String(p))
	}
	return uri
}

// add subscribes session sid (of key, "" for none) to uri, or returns why
// not: the URI is too long, or the session or its key holds as many
// subscriptions as it may.
func (sub *subscriptions) add(sid, key, given string, ks *keyState) error {
	if len(given) > maxSubscribeURI {
		return fmt.Errorf("resources/subscribe refused: the uri is %d bytes long, more than the %d a vaultd resource can be; notes are named like %s, and resources/list lists them",
			len(given), maxSubscribeURI, NoteURI(exampleNote(sub.c)))
	}
	if sub.alive != nil && !sub.alive(sid) {
		return nil // mcp-go answers an ended session with 404 anyway
	}
	uri := canonical(given)
	sub.mu.Lock()
	ss := sub.sessions[sid]
	if ss == nil {
		ss = &subSession{key: key, uris: map[string]subURI{}}
		sub.sessions[sid] = ss
	}
	if _, dup := ss.uris[uri]; !dup {
		if err := sub.fullLocked(ss, given, ks); err != nil {
			if len(ss.uris) == 0 {
				delete(sub.sessions, sid)
			}
			sub.mu.Unlock()
			return err
		}
		sub.perKey[key]++
	}
	sub.seq++
	ss.uris[uri] = subURI{given: given, seq: sub.seq}
	if sub.byURI[uri] == nil {
		sub.byURI[uri] = map[string]string{}
		sub.stamps[uri] = sub.stamp(uri)
	}
	sub.byURI[uri][sid] = given
	if !sub.polling {
		sub.polling = true
		go sub.poll()
	}
	sub.mu.Unlock()
	// The session may have ended while it subscribed: its subscriptions
	// were dropped before this one was added.
	if sub.alive != nil && !sub.alive(sid) {
		sub.dropSession(sid)
	}
	return nil
}

// fullLocked returns the refusal for one more subscription of session ss,
// or nil when it may take one.
func (sub *subscriptions) fullLocked(ss *subSession, given string, ks *keyState) error {
	var msg string
	switch {
	case ss.key != "" && sub.perKey[ss.key] >= sub.lim.MaxPerKey:
		msg = fmt.Sprintf("the sessions of %s hold %d subscriptions together, the most one key may hold; this session holds %d",
			keyLabel(ks), sub.perKey[ss.key], len(ss.uris))
	case len(ss.uris) >= sub.lim.MaxPerSession:
		msg = fmt.Sprintf("this session holds %d subscriptions, the most one session may hold", len(ss.uris))
	default:
		return nil
	}
	msg = fmt.Sprintf("resources/subscribe %q refused: %s", tools.Cut(given, 200), msg)
	if len(ss.uris) == 0 {
		return fmt.Errorf("%s. End a session of this key you no longer use (DELETE with its Mcp-Session-Id) or unsubscribe in it, then subscribe again; a session unused for an hour ends by itself", msg)
	}
	oldest := subURI{}
	for _, u := range ss.uris {
		if oldest.seq == 0 || u.seq < oldest.seq {
			oldest = u
		}
	}
	return fmt.Errorf("%s. Unsubscribe from notes you no longer need, e.g. the one subscribed longest ago: resources/unsubscribe {\"uri\": %q}, then subscribe again", msg, oldest.given)
}

// keyLabel names a key's connection in a message.
func keyLabel(ks *keyState) string {
	switch {
	case ks == nil:
		return "this connection"
	case ks.id == "open":
		return "this server (it serves without access keys)"
	case strings.HasPrefix(ks.id, keys.GrantPrefix):
		return fmt.Sprintf("this signed-in connection (%s)", ks.name)
	}
	return fmt.Sprintf("this access key (%s)", ks.name)
}

func (sub *subscriptions) remove(sid, given string) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	sub.removeLocked(sid, canonical(given))
}

func (sub *subscriptions) removeLocked(sid, uri string) {
	ss := sub.sessions[sid]
	if ss == nil {
		return
	}
	if _, ok := ss.uris[uri]; !ok {
		return
	}
	delete(ss.uris, uri)
	if sub.perKey[ss.key]--; sub.perKey[ss.key] <= 0 {
		delete(sub.perKey, ss.key)
	}
	if len(ss.uris) == 0 {
		delete(sub.sessions, sid)
	}
	delete(sub.byURI[uri], sid)
	if len(sub.byURI[uri]) == 0 {
		delete(sub.byURI, uri)
		delete(sub.stamps, uri)
	}
}

// dropSession removes the subscriptions of an ended session.
func (sub *subscriptions) dropSession(sid string) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	ss := sub.sessions[sid]
	if ss == nil {
		return
	}
	for uri := range ss.uris {
		sub.removeLocked(sid, uri)
	}
}

// held returns the number of subscriptions held, and of the sessions that
// hold them (tests).
func (sub *subscriptions) held() (subs, sessions int) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	for _, ss := range sub.sessions {
		subs += len(ss.uris)
	}
	return subs, len(sub.sessions)
}

// stamp is what identifies the current state of the file a URI names:
// size and modification time, or "gone".
func (sub *subscriptions) stamp(uri string) string {
	fsys, p, ok := sub.fileOf(uri)
	if !ok {
		return ""
	}
	fi, err := fs.Stat(fsys, p)
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

// moved returns which of the subscribed uris (canonical) now look other
// than when last seen, and updates what was seen. sub.mu is held.
func (sub *subscriptions) movedLocked(uris []string) []string {
	var moved []string
	for _, uri := range uris {
		was, ok := sub.stamps[uri]
		if !ok {
			continue
		}
		sub.looked++
		if now := sub.stamp(uri); now != was {
			moved = append(moved, uri)
		}
	}
	return moved
}

// poll asks the change journal for what changed, every pollEvery, until
// no subscription is left.
func (sub *subscriptions) poll() {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for range t.C {
		if !sub.tick() {
			return
		}
	}
}

// tick is one poll: it notifies the subscribers of what changed since the
// last, and reports whether any subscription is left.
func (sub *subscriptions) tick() bool {
	sub.mu.Lock()
	if len(sub.byURI) == 0 {
		sub.polling = false
		sub.mu.Unlock()
		return false
	}
	sub.ticks++
	sub.mu.Unlock()
	var look []string
	if sub.vs == nil {
		look = sub.journal("", sub.c)
	} else {
		for _, name := range sub.vs.Names() {
			if c := sub.vs.Core(name); c != nil {
				look = append(look, sub.journal(name, c)...)
			}
		}
	}
	sub.mu.Lock()
	moved := sub.movedLocked(look)
	sub.mu.Unlock()
	for _, uri := range moved {
		sub.changed(uri)
	}
	return true
}

// journal returns the subscribed URIs of one vault (named name, "" for a
// lone vault) whose files its change journal names since the last poll,
// or all of that vault's when the journal cannot say.
func (sub *subscriptions) journal(name string, c *tools.Core) []string {
	prefix := ""
	if name != "" {
		prefix = name + ":"
	}
	sub.mu.Lock()
	mark := sub.mark
	if name != "" {
		mark = sub.marks[name]
	}
	sub.mu.Unlock()
	ch, err := c.Changes(mark)
	sub.mu.Lock()
	defer sub.mu.Unlock()
	var look []string
	switch {
	case errors.Is(err, tools.ErrIndexOpening):
		// Its first answer will be Lost: everything is looked at then.
	case err != nil || ch.Lost:
		// No journal (no index, or its owner cannot be asked: look
		// every time), or it lost track (look once).
		for uri := range sub.stamps {
			if p, _, ok := pathOfURI(uri); ok && strings.HasPrefix(p, prefix) {
				look = append(look, uri)
			}
		}
	default:
		for _, p := range ch.Paths {
			if uri := canonical(NoteURI(prefix + p)); sub.byURI[uri] != nil {
				look = append(look, uri)
			}
		}
	}
	if err == nil {
		if name == "" {
			sub.mark = ch.Next
		} else {
			sub.marks[name] = ch.Next
		}
	}
	return look
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
