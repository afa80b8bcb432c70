// Package mcpserver is vaultd's MCP door: the adapter between mcp-go and
// the core in package tools, and the only package of vaultd that imports
// mcp-go. It serves the declared tools over stdio and HTTP (access keys,
// per-key rights and rate limits, body and connection limits, sessions),
// filters tools/list to each connection's rights, turns results into MCP
// tool results, and adds what only MCP has: notes as resources with
// subscriptions, workflow prompts, completions and log notifications.
//
// It holds no tool logic: what a tool does and says is in tools. It imports
// tools, index, keys, vault and note; it must not be imported by tools,
// index, rules, vault or note (only web, trial and cmd/vaultd sit above).
package mcpserver

import (
	"context"
	_ "embed"
	"encoding/base64"
	"io"
	"log"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultd/vaultd/tools"
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

// ServerOptions configure an MCP server.
type ServerOptions struct {
	Logger *slog.Logger
	// Connection returns the caller of a request: fixed for stdio, by
	// access key for HTTP. Nil means Default.
	Connection func(ctx context.Context) *tools.Connection
	// Default is the connection for stdio.
	Default *tools.Connection
	// ClientLog, when set, is attached to the server: the log records
	// handed to its Handler go to the clients as MCP log notifications.
	ClientLog *ClientLog
	// Subscriptions bound the resource subscriptions of a session (and,
	// over HTTP, of a key's sessions together).
	Subscriptions SubscriptionLimits
	// Vaults, when it serves several, are what the server serves (the
	// core given is then the first's): every tool takes a vault, and
	// resources and completions name a note as NAME:path. Nil: the core's
	// vault alone.
	Vaults *tools.Vaults
}

// NewServer builds the MCP server over a core: every tool registered, the
// list each connection sees filtered to its rights, and calls checked
// against rights and rate limits.
func NewServer(c *tools.Core, o ServerOptions) *server.MCPServer {
	s, _ := newServer(c, o)
	return s
}

// newServer is NewServer that also returns the server's subscriptions.
func newServer(c *tools.Core, o ServerOptions) (*server.MCPServer, *subscriptions) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	vs := o.Vaults
	if vs == nil || !vs.Multi() {
		vs = tools.SingleVault(c)
	}
	c = vs.First()
	connOf := func(ctx context.Context) *tools.Connection {
		if o.Connection != nil {
			if cn := o.Connection(ctx); cn != nil {
				return cn
			}
		}
		return o.Default
	}
	byName := map[string]tools.Tool{}
	for _, t := range tools.Tools() {
		byName[t.Name] = t
	}
	hooks := &server.Hooks{}
	hooks.AddAfterListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		cn := connOf(ctx)
		kept := res.Tools[:0]
		for _, t := range res.Tools {
			if d, ok := byName[t.Name]; ok && cn != nil && tools.Allowed(cn.Perms, d.Perm) {
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
			res.Instructions = instructionsFor(vs, cn)
		}
	})
	defaultConn := o.Default
	if defaultConn == nil {
		defaultConn = tools.NewConnection("mcp", tools.AllPerms, tools.Limits{})
	}
	s := server.NewMCPServer("vaultd", Version,
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, false),
		server.WithPromptCapabilities(false),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(completions{c, vs, connOf}),
		server.WithResourceCompletionProvider(completions{c, vs, connOf}),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithHooks(hooks),
		server.WithInstructions(instructionsFor(vs, defaultConn)),
	)
	if o.ClientLog != nil {
		o.ClientLog.s.Store(s)
	}
	// Notes as resources, workflows as prompts, subscriptions to notes:
	// all read-only, so every connection (each has read) gets them.
	addResources(vs, s, hooks, connOf)
	addPrompts(vs, s, func(ctx context.Context) tools.Perms {
		if cn := connOf(ctx); cn != nil {
			return cn.Perms
		}
		return tools.Perms{Read: true}
	}, func(ctx context.Context) []string { return visibleTo(vs, connOf(ctx)) },
		func(ctx context.Context) tools.Caller {
			if cn := connOf(ctx); cn != nil {
				return tools.Caller{Perms: cn.Perms, Vaults: cn.Vaults}
			}
			return tools.Caller{}
		})
	sub := newSubscriptions(c, vs, func(ctx context.Context) []string { return visibleTo(vs, connOf(ctx)) }, s, hooks, o.Subscriptions)
	for _, t := range tools.Tools() {
		mt := mcpTool(t)
		if vs.Multi() {
			mt = withVaultArg(mt)
		}
		s.AddTool(mt, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			cn := connOf(ctx)
			caller := tools.Caller{Actor: cn.Actor, Client: clientFor(ctx, cn), Perms: cn.Perms, Door: tools.DoorMCP}
			start := time.Now()
			r := vs.CallOn(ctx, cn, caller, t.Name, req.GetArguments())
			o.Logger.InfoContext(ctx, "tool", "name", t.Name, "actor", tools.HistoryActor(caller), "error", r.Err != nil, "changed", r.Changed, "ms", time.Since(start).Milliseconds())
			return toMCP(r), nil
		})
	}
	return s, sub
}

// toMCP turns a result into an MCP tool result: the text for every client,
// the same facts as structured content, isError on failures, and after
// the text each image the result shows, base64 as MCP image content
// requires, then a resource_link for each vault file it points to.
func toMCP(r *tools.Result) *mcp.CallToolResult {
	res := mcp.NewToolResultStructured(r.Data, r.Text)
	res.IsError = r.Err != nil
	for _, im := range r.Images {
		res.Content = append(res.Content, mcp.NewImageContent(base64.StdEncoding.EncodeToString(im.Data), im.MIMEType))
	}
	for _, l := range r.Resources {
		res.Content = append(res.Content, mcp.NewResourceLink(l.URI, l.Name, l.Description, l.MIMEType))
	}
	return res
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

// clientFor is the client name recorded after cn in history: for stdio's
// default actor "mcp" ("mcp:claude-code"), an access key
// ("key:anna:claude-code") and a signed-in connection
// ("oauth:laptop:cursor"); an actor the owner named with serve --actor is
// recorded as given.
func clientFor(ctx context.Context, cn *tools.Connection) string {
	if cn.Actor != "mcp" && !strings.HasPrefix(cn.Actor, "key:") && !strings.HasPrefix(cn.Actor, tools.SignedInActor) {
		return ""
	}
	return clientName(ctx)
}

// clientName is the MCP client's own name (clientInfo.name: from the
// request's _meta in the stateless era, else from the session's
// initialize), lower-case with blanks as '-', at most 40 characters; ""
// when it gave none. History records it after the connection, over stdio
// ("mcp:claude-code") and over HTTP ("key:anna:claude-code") alike.
func clientName(ctx context.Context) string {
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
	return tools.Cut(name, 40)
}
