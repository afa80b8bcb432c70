package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/tools"
)

// notifications collects what the server sends a client.
type notifications struct {
	mu  sync.Mutex
	got []mcp.JSONRPCNotification
}

func (n *notifications) add(x mcp.JSONRPCNotification) {
	n.mu.Lock()
	n.got = append(n.got, x)
	n.mu.Unlock()
}

// waitFor waits up to 5 s for a notification of method whose params
// contain want, and reports whether one came.
func (n *notifications) waitFor(method, want string) bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		n.mu.Lock()
		for _, x := range n.got {
			if x.Method == method && strings.Contains(strings.ReplaceAll(toJSON(x.Params.AdditionalFields), `\u0026`, "&"), want) {
				n.mu.Unlock()
				return true
			}
		}
		n.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func connectWatching(t *testing.T, conn *tools.Connection) (*client.Client, *tools.Core, string, *notifications) {
	t.Helper()
	mc, c, dir, n, _ := connectServer(t, conn, ServerOptions{})
	return mc, c, dir, n
}

// connectServer connects an in-process client to a server with options o
// over a copy of the example vault whose index watches it, and returns
// the server's subscriptions too.
func connectServer(t *testing.T, conn *tools.Connection, o ServerOptions) (*client.Client, *tools.Core, string, *notifications, *subscriptions) {
	t.Helper()
	dir := copyExampleVault(t)
	c := newTestCoreWith(t, dir, index.Options{Watch: true, Quiet: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond})
	cl := NewClientLog(true)
	o.Default, o.ClientLog, o.Logger = conn, cl, testLogger(cl)
	s, sub := newServer(c, o)
	mc, n := startInProcess(t, s)
	return mc, c, dir, n, sub
}

// startInProcess connects an in-process client to s and initializes it;
// the notifications it gets are collected.
func startInProcess(t *testing.T, s *server.MCPServer) (*client.Client, *notifications) {
	t.Helper()
	mc, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	n := &notifications{}
	mc.OnNotification(n.add)
	ctx := context.Background()
	if err := mc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mc.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "resource-test", Version: "1"}
	res, err := mc.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if res.Capabilities.Resources == nil || !res.Capabilities.Resources.Subscribe || res.Capabilities.Prompts == nil ||
		res.Capabilities.Logging == nil || res.Capabilities.Completions == nil {
		t.Fatalf("capabilities: want resources (subscribe), prompts, logging, completions; got %+v", res.Capabilities)
	}
	if res.ServerInfo.Version != Version || Version == "" {
		t.Errorf("serverInfo.version %q, want mcpserver.Version %q", res.ServerInfo.Version, Version)
	}
	return mc, n
}

func TestResources_ListPagedReadWithVersion(t *testing.T) {
	mc, c, dir, _ := connectWatching(t, tools.NewConnection("mcp", tools.Perms{Read: true}, tools.Limits{}))
	ctx := context.Background()
	var uris []string
	var cursor mcp.Cursor
	for page := 0; page < 20; page++ {
		req := mcp.ListResourcesRequest{}
		req.Params.Cursor = cursor
		res, err := mc.ListResources(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Resources) > resourcePage {
			t.Fatalf("page of %d resources, more than %d", len(res.Resources), resourcePage)
		}
		for _, r := range res.Resources {
			if r.Name == "" || r.Description == "" || r.MIMEType == "" {
				t.Errorf("resource without name, description or MIME type: %+v", r)
			}
			uris = append(uris, r.URI)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	want := len(listedFiles(c))
	if len(uris) != want || want < 40 {
		t.Fatalf("resources/list gave %d resources over its pages, want every note and attachment (%d)", len(uris), want)
	}
	if !contains(uris, "vault://note/1_Projekte/Website-Relaunch.md") || !contains(uris, "vault://file/3_Ressourcen/Anh%C3%A4nge/architektur.svg") {
		t.Errorf("resources/list lacks a note or the attachment: %v", uris[:5])
	}

	read := func(uri string) (*mcp.ReadResourceResult, error) {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		return mc.ReadResource(ctx, req)
	}
	res, err := read("vault://note/0_Inbox/Notiz%202026-11-18.md")
	if err != nil {
		t.Fatal(err)
	}
	tc, ok := res.Contents[0].(mcp.TextResourceContents)
	b, _ := os.ReadFile(filepath.Join(dir, "0_Inbox", "Notiz 2026-11-18.md"))
	if !ok || tc.Text != string(b) || tc.MIMEType != "text/markdown" || tc.Meta["version"] == "" || tc.Meta["path"] != "0_Inbox/Notiz 2026-11-18.md" {
		t.Errorf("read note: %+v", res.Contents[0])
	}
	res, err = read("vault://file/3_Ressourcen/Anh%C3%A4nge/architektur.svg")
	if err != nil {
		t.Fatal(err)
	}
	bc, ok := res.Contents[0].(mcp.BlobResourceContents)
	svg, _ := os.ReadFile(filepath.Join(dir, "3_Ressourcen", "Anhänge", "architektur.svg"))
	if got, _ := base64.StdEncoding.DecodeString(bc.Blob); !ok || bc.MIMEType != "image/svg+xml" || string(got) != string(svg) {
		t.Errorf("read attachment: %+v", res.Contents[0])
	}
	// A miss names the closest note; hidden folders are not resources.
	if _, err := read("vault://note/0_Inbox/Buchtip.md"); err == nil || !strings.Contains(err.Error(), "closest: vault://note/0_Inbox/Buchtipps.md") {
		t.Errorf("unknown note: %v", err)
	}
	for _, uri := range []string{"vault://file/.obsidian/app.json", "vault://note/.vaultd/x.md", "vault://note/..%2F..%2Fetc%2Fpasswd", "test://static-text"} {
		if _, err := read(uri); err == nil {
			t.Errorf("%s was read", uri)
		}
	}
}

func TestResources_SubscribeOwnWritesAndOutside(t *testing.T) {
	mc, _, dir, n := connectWatching(t, tools.NewConnection("mcp", tools.Perms{Read: true, Write: true}, tools.Limits{}))
	ctx := context.Background()
	for _, uri := range []string{"vault://note/0_Inbox/Buchtipps.md", "vault://note/2_Bereiche/Team/Übersicht.md", "test://watched-resource"} {
		req := mcp.SubscribeRequest{}
		req.Params.URI = uri
		if err := mc.Subscribe(ctx, req); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	// vaultd's own write notifies at once.
	if r := callTool(t, mc, "append_to_note", map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "- x", "change_summary": "t"}); r.IsError {
		t.Fatal(resultText(r))
	}
	if !n.waitFor(mcp.MethodNotificationResourceUpdated, "vault://note/0_Inbox/Buchtipps.md") {
		t.Error("no notifications/resources/updated after append_to_note")
	}
	// A change by another program is found through the index's watcher.
	p := filepath.Join(dir, "2_Bereiche", "Team", "Übersicht.md")
	if err := os.WriteFile(p, []byte("# Übersicht\n\nin Obsidian geändert\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !n.waitFor(mcp.MethodNotificationResourceUpdated, "vault://note/2_Bereiche/Team/Übersicht.md") {
		t.Error("no notifications/resources/updated after a change outside vaultd")
	}
	// Unsubscribed: no more notifications.
	req := mcp.UnsubscribeRequest{}
	req.Params.URI = "vault://note/0_Inbox/Buchtipps.md"
	if err := mc.Unsubscribe(ctx, req); err != nil {
		t.Fatal(err)
	}
	n.mu.Lock()
	n.got = nil
	n.mu.Unlock()
	callTool(t, mc, "append_to_note", map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "- y", "change_summary": "t"})
	if n.waitFor(mcp.MethodNotificationResourceUpdated, "Buchtipps") {
		t.Error("notified after unsubscribe")
	}
}

func TestPrompts_NameTheToolsToCall(t *testing.T) {
	for _, tc := range []struct {
		perms      tools.Perms
		prompt     string
		args       map[string]string
		want, not_ []string
	}{
		{tools.Perms{Read: true}, "changes_this_week", nil, []string{`recent_changes {"since": "7d"}`, "note_history"}, nil},
		{tools.Perms{Read: true}, "changes_this_week", map[string]string{"space": "1_Projekte"}, []string{`recent_changes {"since": "7d", "space": "1_Projekte"}`}, nil},
		{tools.Perms{Read: true}, "triage_inbox", nil, []string{`list_notes {"folder": "0_Inbox"}`, `read_note {"path": "9_System/Regeln für Agenten.md"}`, "may only read"}, []string{"move_note"}},
		{tools.Perms{Read: true, Write: true}, "triage_inbox", nil, []string{"move_note", `list_notes {"folder": "0_Inbox"}`}, nil},
		{tools.Perms{Read: true}, "summarize_note", map[string]string{"path": "Ziele des Relaunchs"}, []string{`get_backlinks {"path": "1_Projekte/Website-Relaunch/Ziele.md"}`}, nil},
		{tools.Perms{Read: true}, "summarize_note", map[string]string{"path": "1_Projekte/Website-Relaunch.md", "heading": "Zeitleiste"}, []string{`read_note {"path": "1_Projekte/Website-Relaunch.md", "heading": "Zeitleiste"}`}, nil},
	} {
		mc, _, _, _ := connectWatching(t, tools.NewConnection("mcp", tc.perms, tools.Limits{}))
		req := mcp.GetPromptRequest{}
		req.Params.Name, req.Params.Arguments = tc.prompt, tc.args
		res, err := mc.GetPrompt(context.Background(), req)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.prompt, tc.args, err)
		}
		text := ""
		for _, m := range res.Messages {
			if c, ok := m.Content.(mcp.TextContent); ok {
				text += c.Text
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %v (perms %+v): no %q in:\n%s", tc.prompt, tc.args, tc.perms, w, text)
			}
		}
		for _, w := range tc.not_ {
			if strings.Contains(text, w) {
				t.Errorf("%s (perms %+v) names %q, which the connection may not use:\n%s", tc.prompt, tc.perms, w, text)
			}
		}
		checkNoPlaceholders(t, tc.prompt, text)
	}
	// A note that does not exist: an error naming the closest.
	mc, _, _, _ := connectWatching(t, tools.NewConnection("mcp", tools.Perms{Read: true}, tools.Limits{}))
	req := mcp.GetPromptRequest{}
	req.Params.Name, req.Params.Arguments = "summarize_note", map[string]string{"path": "0_Inbox/Buchtip.md"}
	if _, err := mc.GetPrompt(context.Background(), req); err == nil || !strings.Contains(err.Error(), "0_Inbox/Buchtipps.md") {
		t.Errorf("summarize_note of a missing note: %v", err)
	}
}

func TestCompletion_PathsHeadingsAndUnknownRefs(t *testing.T) {
	mc, _, _, _ := connectWatching(t, tools.NewConnection("mcp", tools.Perms{Read: true}, tools.Limits{}))
	complete := func(ref any, name, value string, ctxArgs map[string]string) []string {
		req := mcp.CompleteRequest{}
		req.Params.Ref, req.Params.Argument = ref, mcp.CompleteArgument{Name: name, Value: value}
		req.Params.Context.Arguments = ctxArgs
		res, err := mc.Complete(context.Background(), req)
		if err != nil {
			t.Fatalf("complete %v %s=%q: %v", ref, name, value, err)
		}
		return res.Completion.Values
	}
	prompt := mcp.PromptReference{Type: "ref/prompt", Name: "summarize_note"}
	if got := complete(prompt, "path", "1_Projekte/Web", nil); !contains(got, "1_Projekte/Website-Relaunch.md") || !contains(got, "1_Projekte/Website-Relaunch/") {
		t.Errorf("path completion: %v", got)
	}
	if got := complete(prompt, "heading", "Z", map[string]string{"path": "1_Projekte/Website-Relaunch.md"}); !contains(got, "Ziele") || !contains(got, "Zeitleiste") {
		t.Errorf("heading completion: %v", got)
	}
	if got := complete(mcp.PromptReference{Type: "ref/prompt", Name: "changes_this_week"}, "space", "1", nil); len(got) != 1 || got[0] != "1_Projekte" {
		t.Errorf("space completion: %v", got)
	}
	if got := complete(mcp.ResourceReference{Type: "ref/resource", URI: noteTemplate}, "path", "0_Inbox/B", nil); len(got) != 1 || got[0] != "0_Inbox/Buchtipps.md" {
		t.Errorf("resource template completion: %v", got)
	}
	for _, ref := range []any{mcp.PromptReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"}, mcp.ResourceReference{Type: "ref/resource", URI: "test://x/{id}"}} {
		if got := complete(ref, "arg1", "par", nil); got == nil || len(got) != 0 {
			t.Errorf("unknown ref %v: want an empty list, got %v", ref, got)
		}
	}
}

func TestLogging_SetLevelSendsLogMessages(t *testing.T) {
	mc, _, _, n := connectWatching(t, tools.NewConnection("mcp", tools.Perms{Read: true}, tools.Limits{}))
	callTool(t, mc, "vault_overview", map[string]any{})
	if n.waitFor("notifications/message", "vault_overview") {
		t.Error("an info log message came before the client asked for info (the default is errors only)")
	}
	req := mcp.SetLevelRequest{}
	req.Params.Level = mcp.LoggingLevelInfo
	if err := mc.SetLevel(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	callTool(t, mc, "vault_overview", map[string]any{})
	if !n.waitFor("notifications/message", "name=vault_overview") {
		t.Error("no log message for the tool call after logging/setLevel info")
	}
}

func testLogger(cl *ClientLog) *slog.Logger { return slog.New(cl.Handler()) }

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func checkNoPlaceholders(t *testing.T, what, text string) {
	t.Helper()
	for _, bad := range []string{"%s", "%!", "{{", "<nil>", `""`, "…\"", "NOTE", "PATH"} {
		if strings.Contains(text, bad) {
			t.Errorf("%s: placeholder %q in:\n%s", what, bad, text)
		}
	}
}

// TestGolden_PromptsAndResourceErrors keeps every prompt's messages, per
// right, and the texts of resource reads that fail as golden files: they
// are agent-facing text like any tool's answer.
func TestGolden_PromptsAndResourceErrors(t *testing.T) {
	c := newTestCore(t, copyExampleVault(t))
	render := func(res *mcp.GetPromptResult) string {
		var b strings.Builder
		b.WriteString("description: " + res.Description + "\n")
		for _, m := range res.Messages {
			switch x := m.Content.(type) {
			case mcp.TextContent:
				b.WriteString("--- " + string(m.Role) + " text\n" + x.Text + "\n")
			case mcp.EmbeddedResource:
				tc, _ := x.Resource.(mcp.TextResourceContents)
				b.WriteString("--- " + string(m.Role) + " resource " + tc.URI + " " + toJSON(tc.Meta) + "\n")
			}
		}
		return b.String()
	}
	for _, tc := range []struct {
		name   string
		perms  tools.Perms
		prompt string
		args   map[string]string
	}{
		{"changes_this_week", tools.Perms{Read: true}, "changes_this_week", nil},
		{"changes_this_week_space", tools.Perms{Read: true}, "changes_this_week", map[string]string{"space": "1_Projekte"}},
		{"triage_inbox_read", tools.Perms{Read: true}, "triage_inbox", nil},
		{"triage_inbox_write", tools.Perms{Read: true, Write: true}, "triage_inbox", nil},
		{"summarize_note_heading", tools.Perms{Read: true}, "summarize_note", map[string]string{"path": "1_Projekte/Website-Relaunch.md", "heading": "Zeitleiste"}},
	} {
		res, err := GetPrompt(c, tc.prompt, tc.perms, tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		compareGolden(t, filepath.Join("testdata", "golden", "prompts", tc.name+".golden"), render(res))
	}
	var errs strings.Builder
	for _, tc := range []struct {
		prompt string
		args   map[string]string
	}{
		{"summarize_note", map[string]string{"path": "0_Inbox/Buchtip.md"}},
		{"summarize_note", nil},
		{"changes_this_week", map[string]string{"space": "Projekte"}},
		{"no_such_prompt", nil},
	} {
		_, err := GetPrompt(c, tc.prompt, tools.Perms{Read: true}, tc.args)
		fmt.Fprintf(&errs, "prompts/get %s %s\n%v\n\n", tc.prompt, toJSON(tc.args), err)
	}
	for _, uri := range []string{"vault://note/0_Inbox/Buchtip.md", "vault://file/.obsidian/app.json", "vault://file/1_Projekte/Website-Relaunch.md.txt", "test://static-text"} {
		_, err := ReadResource(c, uri)
		fmt.Fprintf(&errs, "resources/read %s\n%v\n\n", uri, err)
	}
	compareGolden(t, filepath.Join("testdata", "golden", "errors", "prompts_resources.golden"), errs.String())
}
