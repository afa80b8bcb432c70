package mcpserver

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"log"
	"log/slog"
	"strings"
	"text/template"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/time/rate"
)

// Version is vaultd's version, reported to clients.
var Version = "0.4.0"

// Limits are the rate limits of one connection.
type Limits struct {
	WritesPerMinute  int // default 60
	WriteBurst       int // default 10
	DeletesPerMinute int // default 10
	DeleteBurst      int // default 3
}

func (l Limits) withDefaults() Limits {
	if l.WritesPerMinute <= 0 {
		l.WritesPerMinute = 60
	}
	if l.WriteBurst <= 0 {
		l.WriteBurst = 10
	}
	if l.DeletesPerMinute <= 0 {
		l.DeletesPerMinute = 10
	}
	if l.DeleteBurst <= 0 {
		l.DeleteBurst = 3
	}
	return l
}

// Connection is one client's identity, rights and rate limits. For stdio
// there is one per process; over HTTP one per access key.
type Connection struct {
	Actor  string
	Perms  Perms
	writes *rate.Limiter
	dels   *rate.Limiter
	limits Limits
}

// NewConnection returns a connection with its own limiters.
func NewConnection(actor string, p Perms, l Limits) *Connection {
	l = l.withDefaults()
	return &Connection{
		Actor:  actor,
		Perms:  p,
		limits: l,
		writes: rate.NewLimiter(rate.Limit(float64(l.WritesPerMinute)/60), l.WriteBurst),
		dels:   rate.NewLimiter(rate.Limit(float64(l.DeletesPerMinute)/60), l.DeleteBurst),
	}
}

// limit charges one call to the connection's limiters; a call over the
// limit gets an error that says when to retry.
func (cn *Connection) limit(t tool, now time.Time) *Result {
	if t.perm == "read" || !allowed(cn.Perms, t.perm) {
		return nil
	}
	lims := []*rate.Limiter{cn.writes}
	if t.perm == "delete" {
		lims = append(lims, cn.dels)
	}
	var reservations []*rate.Reservation
	for _, l := range lims {
		r := l.ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			for _, prev := range reservations {
				prev.CancelAt(now)
			}
			what, per := "writes", cn.limits.WritesPerMinute
			if l == cn.dels {
				what, per = "deletes", cn.limits.DeletesPerMinute
			}
			secs := int(d.Seconds() + 0.999)
			text := fmt.Sprintf("error: rate limited: this connection may make %d %s per minute and has used them up.\nerror code: rate_limited\nretry after: %d seconds\nNothing was changed. Wait %d seconds, then send the same call again; other connections are not affected.", per, what, secs, secs)
			return &Result{Text: text, Data: map[string]any{"error": "rate_limited", "retry_after_seconds": secs},
				Err: errRateLimited}
		}
		reservations = append(reservations, r)
	}
	return nil
}

var errRateLimited = fmt.Errorf("rate limited")

// ServerOptions configure an MCP server.
type ServerOptions struct {
	Logger *slog.Logger
	// Connection returns the caller of a request: fixed for stdio, by
	// access key for HTTP. Nil means Default.
	Connection func(ctx context.Context) *Connection
	// Default is the connection for stdio.
	Default *Connection
}

// NewServer builds the MCP server over a core: every tool registered, the
// list each connection sees filtered to its rights, and calls checked
// against rights and rate limits.
func NewServer(c *Core, o ServerOptions) *server.MCPServer {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	connOf := func(ctx context.Context) *Connection {
		if o.Connection != nil {
			if cn := o.Connection(ctx); cn != nil {
				return cn
			}
		}
		return o.Default
	}
	byName := map[string]tool{}
	for _, t := range tools {
		byName[t.name] = t
	}
	hooks := &server.Hooks{}
	hooks.AddAfterListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		cn := connOf(ctx)
		kept := res.Tools[:0]
		for _, t := range res.Tools {
			if d, ok := byName[t.Name]; ok && cn != nil && allowed(cn.Perms, d.perm) {
				kept = append(kept, t)
			}
		}
		res.Tools = kept
	})
	s := server.NewMCPServer("vaultd", Version,
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		server.WithHooks(hooks),
		server.WithInstructions(c.Instructions()),
	)
	for _, t := range tools {
		t := t
		s.AddTool(t.mcpTool(), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			cn := connOf(ctx)
			caller := Caller{Actor: actorFor(ctx, cn), Perms: cn.Perms, Door: DoorMCP}
			start := time.Now()
			var r *Result
			if !allowed(cn.Perms, t.perm) {
				r = permissionDenied(caller, t.name, t.perm)
			} else if r = cn.limit(t, start); r == nil {
				r = t.run(ctx, c, caller, req.GetArguments())
			}
			o.Logger.Info("tool", "name", t.name, "actor", caller.Actor, "error", r.Err != nil, "ms", time.Since(start).Milliseconds())
			return toMCP(r), nil
		})
	}
	return s
}

// toMCP turns a result into an MCP tool result: the text for every client,
// the same facts as structured content, isError on failures.
func toMCP(r *Result) *mcp.CallToolResult {
	res := mcp.NewToolResultStructured(r.Data, r.Text)
	res.IsError = r.Err != nil
	return res
}

//go:embed instructions.md
var instructionsTmpl string

var instructions = template.Must(template.New("instructions").Parse(instructionsTmpl))

// Instructions renders the server instructions: what this vault is, its
// spaces, its rules from 9_System/, and where to start.
func (c *Core) Instructions() string {
	spaces := c.v.Spaces()
	sp := "none yet"
	if len(spaces) > 0 {
		sp = strings.Join(spaces, ", ")
	}
	policy, guides := "", ""
	if r, err := c.Rules(); err == nil {
		policy = r.Policy()
		var names []string
		for _, n := range r.Notes {
			if n.Guidance != "" {
				names = append(names, n.Path)
			}
		}
		guides = strings.Join(names, ", ")
	}
	var b bytes.Buffer
	_ = instructions.Execute(&b, map[string]string{"Spaces": sp, "Policy": policy, "Guides": guides})
	return strings.TrimSpace(b.String())
}

// ServeStdio serves MCP over in/out until in closes or ctx ends. out
// carries protocol messages only; errors of the transport go to logger.
func ServeStdio(ctx context.Context, s *server.MCPServer, in io.Reader, out io.Writer, logger *log.Logger) error {
	st := server.NewStdioServer(s)
	if logger != nil {
		st.SetErrorLogger(logger)
	}
	return st.Listen(ctx, in, out)
}

// actorFor names the caller in history. A stdio connection's actor "mcp"
// gets the client's name, so that the history says "mcp:claude-code".
func actorFor(ctx context.Context, cn *Connection) string {
	if cn.Actor != "mcp" {
		return cn.Actor
	}
	name := ""
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientInfo != nil {
		name = info.ClientInfo.Name
	}
	if s := server.ClientSessionFromContext(ctx); name == "" && s != nil {
		if ci, ok := s.(server.SessionWithClientInfo); ok {
			name = ci.GetClientInfo().Name
		}
	}
	name = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' {
			return '-'
		}
		return r
	}, strings.ToLower(strings.TrimSpace(name)))
	if name == "" {
		return cn.Actor
	}
	return cn.Actor + ":" + cut(name, 40)
}
