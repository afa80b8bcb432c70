package mcpserver

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"runtime/debug"
	"strings"
	"text/template"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultd/vaultd/rules"
)

// Version is vaultd's version: what `vaultd --version`, `vaultd version`
// and the MCP serverInfo all report. `make build` and `make dist` stamp it
// from git (git describe --tags --always --dirty) with
//
//	-ldflags "-X github.com/vaultd/vaultd/mcpserver.Version=v1.2.3"
//
// A build without the stamp reports the module version `go install …@v1.2.3`
// records, else "dev" (with the VCS revision when the build recorded one).
var Version = ""

func init() {
	if Version == "" {
		Version = buildVersion()
	}
}

// buildVersion is the version an unstamped build knows of itself.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	v := "dev"
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += "-" + s.Value[:12]
		}
	}
	return v
}

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
	writes *bucket
	dels   *bucket
	limits Limits
}

// NewConnection returns a connection with its own limits.
func NewConnection(actor string, p Perms, l Limits) *Connection {
	l = l.withDefaults()
	return &Connection{
		Actor:  actor,
		Perms:  p,
		limits: l,
		writes: newBucket(l.WritesPerMinute, l.WriteBurst),
		dels:   newBucket(l.DeletesPerMinute, l.DeleteBurst),
	}
}

// reserve takes what a call of t needs from the connection's limits
// before it runs: one write for every write or delete tool, one delete
// more for a delete tool. A call over the limit gets an error that says
// when to retry, and nothing is taken. The caller refunds the charge when
// the call changed nothing.
func (cn *Connection) reserve(t tool, now time.Time) (*charge, *Result) {
	ch := &charge{cn: cn}
	if t.perm == "read" || !allowed(cn.Perms, t.perm) {
		return ch, nil
	}
	if ok, wait := cn.writes.take(now); !ok {
		return nil, cn.rateLimited("writes", wait, "")
	}
	ch.writes = 1
	if t.perm == "delete" {
		if ok, wait := ch.takeDelete(now); !ok {
			ch.refund(now)
			return nil, cn.rateLimited("deletes", wait, "")
		}
	}
	return ch, nil
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
	// ClientLog, when set, is attached to the server: the log records
	// handed to its Handler go to the clients as MCP log notifications.
	ClientLog *ClientLog
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
	// Instructions fit the connection: a read-only key is not told about
	// write tools (set again per initialize; the default is the default
	// connection's).
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		if cn := connOf(ctx); cn != nil && res != nil {
			res.Instructions = c.InstructionsFor(cn.Perms)
		}
	})
	defaultPerms := AllPerms
	if o.Default != nil {
		defaultPerms = o.Default.Perms
	}
	s := server.NewMCPServer("vaultd", Version,
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, false),
		server.WithPromptCapabilities(false),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(completions{c}),
		server.WithResourceCompletionProvider(completions{c}),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithHooks(hooks),
		server.WithInstructions(c.InstructionsFor(defaultPerms)),
	)
	if o.ClientLog != nil {
		o.ClientLog.s.Store(s)
	}
	// Notes as resources, workflows as prompts, subscriptions to notes:
	// all read-only, so every connection (each has read) gets them.
	c.addResources(s, hooks)
	c.addPrompts(s, func(ctx context.Context) Perms {
		if cn := connOf(ctx); cn != nil {
			return cn.Perms
		}
		return Perms{Read: true}
	})
	newSubscriptions(c, s, hooks)
	for _, t := range tools {
		t := t
		s.AddTool(t.mcpTool(), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			cn := connOf(ctx)
			caller := Caller{Actor: actorFor(ctx, cn), Perms: cn.Perms, Door: DoorMCP}
			start := time.Now()
			r := c.callOn(ctx, cn, caller, t, req.GetArguments())
			o.Logger.InfoContext(ctx, "tool", "name", t.name, "actor", caller.Actor, "error", r.Err != nil, "changed", r.Changed, "ms", time.Since(start).Milliseconds())
			return toMCP(r), nil
		})
	}
	return s
}

// callOn runs tool t for caller on connection cn, as every MCP call runs:
// the connection's rights first, then its rate limits (refunded when the
// call changed nothing), and on a write tool the limits left.
func (c *Core) callOn(ctx context.Context, cn *Connection, caller Caller, t tool, args map[string]any) *Result {
	var r *Result
	if !allowed(cn.Perms, t.perm) {
		r = permissionDenied(caller, t.name, t.perm)
	} else if ch, refused := cn.reserve(t, time.Now()); refused != nil {
		r = refused
	} else {
		caller.charge = ch
		r = t.run(ctx, c, caller, args)
		if !r.Changed {
			ch.refund(time.Now())
		}
	}
	if t.perm != "read" && allowed(cn.Perms, t.perm) {
		r = withBudget(r, cn, time.Now())
	}
	return r
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

// Instructions renders the server instructions for a connection with every
// right (InstructionsFor).
func (c *Core) Instructions() string { return c.InstructionsFor(AllPerms) }

// InstructionsFor renders the server instructions for a connection with
// perms: what this vault is, its spaces, its rules from 9_System/ (only if
// it has that folder), where to start — and the write tools only when the
// connection may write (AGENT-CONTRACT rule 16: what they claim is true).
func (c *Core) InstructionsFor(p Perms) string {
	spaces := c.v.Spaces()
	sp := "none yet"
	if len(spaces) > 0 {
		sp = strings.Join(spaces, ", ")
	}
	data := map[string]any{"Spaces": sp, "Write": p.Write, "Delete": p.Write && p.Delete}
	if fi, err := fs.Stat(c.v.FS(), rules.Folder); err == nil && fi.IsDir() {
		data["Rules"] = true
		if r, err := c.Rules(); err == nil {
			data["Policy"] = r.Policy()
			var names []string
			for _, n := range r.Notes {
				if n.Guidance != "" {
					names = append(names, n.Path)
				}
			}
			data["Guides"] = strings.Join(names, ", ")
		}
	}
	var b bytes.Buffer
	_ = instructions.Execute(&b, data)
	return strings.TrimSpace(strings.ReplaceAll(b.String(), "\n\n\n", "\n\n"))
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
