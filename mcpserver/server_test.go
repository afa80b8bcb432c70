package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// connect starts an in-process MCP client on a server over the example vault.
func connect(t *testing.T, conn *tools.Connection) (*client.Client, *tools.Core, string) {
	t.Helper()
	dir := copyExampleVault(t)
	c := newTestCore(t, dir)
	s := NewServer(c, ServerOptions{Default: conn})
	cl, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "Golden Test", Version: "1"}
	if _, err := cl.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return cl, c, dir
}

func callTool(t *testing.T, cl *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := cl.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: protocol error %v (tool failures must be isError results)", name, err)
	}
	return res
}

func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestServer_ToolList pins the tool list each kind of connection sees: the
// names, sorted, byte-stable, every annotation set explicitly.
func TestServer_ToolList(t *testing.T) {
	for _, tc := range []struct {
		name  string
		perms tools.Perms
	}{
		{"read", tools.Perms{Read: true}},
		{"read_write", tools.Perms{Read: true, Write: true}},
		{"all", tools.AllPerms},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, _, _ := connect(t, tools.NewConnection("mcp", tc.perms, tools.Limits{}))
			res, err := cl.ListTools(context.Background(), mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				a := tool.Annotations
				if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
					t.Errorf("%s: not all four annotations are set: %+v", tool.Name, a)
					continue
				}
				if *a.OpenWorldHint {
					t.Errorf("%s: openWorldHint is true; a local vault is a closed world", tool.Name)
				}
				if want := d(tool.Name).Perm == "read"; *a.ReadOnlyHint != want {
					t.Errorf("%s: readOnlyHint %v, want %v", tool.Name, *a.ReadOnlyHint, want)
				}
				if !strings.Contains(tool.Description, "Example: "+tool.Name+" {") {
					t.Errorf("%s: description shows no example call", tool.Name)
				}
			}
			if got, want := strings.Join(names, " "), strings.Join(tools.ToolNames(tc.perms), " "); got != want {
				t.Errorf("tools/list names:\n got %s\nwant %s", got, want)
			}
			b, _ := json.MarshalIndent(res.Tools, "", "  ")
			compareGolden(t, filepath.Join("testdata", "golden", "tools_list", tc.name+".golden"), string(b)+"\n")
		})
	}
}

func d(name string) tools.Tool {
	t, _ := tools.LookupTool(name)
	return t
}

// TestServer_PermissionDenied: a tool the connection may not use is not
// listed, and calling it anyway is a helpful isError result.
func TestServer_PermissionDenied(t *testing.T) {
	cl, _, _ := connect(t, tools.NewConnection("mcp", tools.Perms{Read: true}, tools.Limits{}))
	res := callTool(t, cl, "create_note", map[string]any{"path": "0_Inbox/X.md", "content": "x", "change_summary": "x"})
	if !res.IsError {
		t.Fatalf("create_note on a read-only connection succeeded")
	}
	text := resultText(res)
	for _, want := range []string{"write permission", "vaultd serve --allow read,write", "error code: permission_denied"} {
		if !strings.Contains(text, want) {
			t.Errorf("denial lacks %q:\n%s", want, text)
		}
	}
}

// TestServer_RateLimit: a connection that writes too fast gets an error
// saying when to retry; another connection is not affected.
func TestServer_RateLimit(t *testing.T) {
	cn := tools.NewConnection("mcp", tools.Perms{Read: true, Write: true}, tools.Limits{WritesPerMinute: 1, WriteBurst: 2})
	cl, c, _ := connect(t, cn)
	var last *mcp.CallToolResult
	for i := 0; i < 3; i++ {
		last = callTool(t, cl, "append_to_note", map[string]any{"path": "0_Inbox/Notiz 2026-11-18.md", "content": "- Zeile", "change_summary": "Test"})
	}
	if !last.IsError {
		t.Fatalf("third write within the burst of 2 was not limited:\n%s", resultText(last))
	}
	text := resultText(last)
	// tools.TestRateLimited_Contract checks the same text against the agent contract.
	compareGolden(t, filepath.Join("testdata", "golden", "rate_limited.golden"), strings.ReplaceAll(text, "retry after: 59 seconds", "retry after: 60 seconds")+"\n")

	// Another connection on the same core still writes.
	other := NewServer(c, ServerOptions{Default: tools.NewConnection("mcp", tools.Perms{Read: true, Write: true}, tools.Limits{})})
	cl2, err := client.NewInProcessClient(other)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl2.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if _, err := cl2.Initialize(context.Background(), init); err != nil {
		t.Fatal(err)
	}
	if r := callTool(t, cl2, "append_to_note", map[string]any{"path": "0_Inbox/Notiz 2026-11-18.md", "content": "- andere", "change_summary": "Test"}); r.IsError {
		t.Errorf("another connection was limited too:\n%s", resultText(r))
	}
	// Reads are never limited.
	if r := callTool(t, cl, "read_note", map[string]any{"path": "0_Inbox/Notiz 2026-11-18.md"}); r.IsError {
		t.Errorf("a read was limited:\n%s", resultText(r))
	}
}

// TestServer_ActorFromClient: history names the client that wrote.
func TestServer_ActorFromClient(t *testing.T) {
	cl, c, _ := connect(t, tools.NewConnection("mcp", tools.Perms{Read: true, Write: true}, tools.Limits{}))
	callTool(t, cl, "append_to_note", map[string]any{"path": "0_Inbox/Notiz 2026-11-18.md", "content": "- Zeile", "change_summary": "Test"})
	h, err := c.Vault().History(vault.HistoryFilter{Limit: 1})
	if err != nil || len(h) != 1 {
		t.Fatalf("history: %v %v", h, err)
	}
	if h[0].Actor != "mcp:golden-test" {
		t.Errorf("actor %q, want mcp:golden-test", h[0].Actor)
	}
}

// TestServer_Instructions: short, and every claim true of the vault.
func TestServer_Instructions(t *testing.T) {
	dir := copyExampleVault(t)
	c := newTestCore(t, dir)
	ins := c.Instructions()
	if n := len([]rune(ins)); n > 1800 {
		t.Errorf("instructions are %d characters; keep them near 1,500", n)
	}
	for _, s := range c.Vault().Spaces() {
		if !strings.Contains(ins, s) {
			t.Errorf("instructions do not name the space %s", s)
		}
	}
	for _, tool := range []string{"vault_overview", "search_notes", "read_note", "append_to_note", "update_section", "replace_note"} {
		if !strings.Contains(ins, tool) {
			t.Errorf("instructions do not name %s", tool)
		}
		if len(tools.ToolNames(tools.AllPerms)) > 0 && d(tool).Name == "" {
			t.Errorf("instructions name %s, which is not a tool", tool)
		}
	}
	for _, claim := range []string{"4_Archiv/**", "0_Inbox", "tags"} {
		if !strings.Contains(ins, claim) {
			t.Errorf("instructions do not state the rule %q from 9_System", claim)
		}
	}
	compareGolden(t, filepath.Join("testdata", "golden", "instructions.golden"), ins+"\n")
	_ = time.Second

	// What the instructions claim is true for each connection: they name
	// only the tools it may use.
	for name, p := range map[string]tools.Perms{"read": {Read: true}, "read_write": {Read: true, Write: true}} {
		ins := c.InstructionsFor(p)
		for _, tl := range tools.Tools() {
			if strings.Contains(ins, tl.Name) && !tools.Allowed(p, tl.Perm) {
				t.Errorf("instructions for a %s connection name %s, which it may not use:\n%s", name, tl.Name, ins)
			}
		}
		compareGolden(t, filepath.Join("testdata", "golden", "instructions_"+name+".golden"), ins+"\n")
	}
	// The instructions a client gets at initialize are its connection's.
	s := NewServer(c, ServerOptions{Default: tools.NewConnection("mcp", tools.Perms{Read: true}, tools.Limits{})})
	cl, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	init, err := cl.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_LEGACY_PROTOCOL_VERSION}})
	if err != nil {
		t.Fatal(err)
	}
	if init.Instructions != c.InstructionsFor(tools.Perms{Read: true}) {
		t.Errorf("a read-only connection got instructions:\n%s", init.Instructions)
	}
}

// TestServer_InstructionsWithoutRules: a vault without 9_System/ gets no
// claims about rules there.
func TestServer_InstructionsWithoutRules(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Notiz.md"), []byte("# Notiz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newTestCore(t, dir)
	ins := c.Instructions()
	if strings.Contains(ins, "9_System") || strings.Contains(ins, "Rules for agents") {
		t.Errorf("instructions of a vault without 9_System/ claim rules there:\n%s", ins)
	}
	compareGolden(t, filepath.Join("testdata", "golden", "instructions_no_rules.golden"), ins+"\n")
}
