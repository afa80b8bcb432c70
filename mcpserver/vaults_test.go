package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/tools"
)

// connectVaults serves the example vault as "work" and a small vault as
// "team" to one in-process client on connection conn.
func connectVaults(t *testing.T, conn *tools.Connection) (*client.Client, *notifications, map[string]string) {
	t.Helper()
	work := copyExampleVault(t)
	team := t.TempDir()
	for p, text := range map[string]string{
		"Onboarding/Erste Woche.md": "# Erste Woche\n\n## Ablauf\n\nLaptop abholen.\n",
		"Zugangsdaten.md":           "# Zugangsdaten\n\nWiki-Zugang.\n",
	} {
		full := filepath.Join(team, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	io := index.Options{Watch: true, Quiet: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond}
	cw, ct := newTestCoreWith(t, work, io), newTestCoreWith(t, team, io)
	vs, err := tools.NewVaults([]string{"work", "team"}, []*tools.Core{cw, ct})
	if err != nil {
		t.Fatal(err)
	}
	cl := NewClientLog(true)
	s, _ := newServer(cw, ServerOptions{Default: conn, ClientLog: cl, Logger: testLogger(cl), Vaults: vs})
	mc, n := startInProcess(t, s)
	return mc, n, map[string]string{"work": work, "team": team}
}

// A connection limited to one vault of two sees that vault alone in
// resources, completions, prompts and subscriptions, and reaches its
// notes as NAME:path; every tool's schema takes a vault.
func TestVaults_ResourcesPromptsSubscriptions(t *testing.T) {
	conn := tools.NewConnection("key:anna", tools.Perms{Read: true, Write: true}, tools.Limits{})
	conn.Vaults = map[string]tools.Perms{"team": {Read: true, Write: true}}
	mc, n, dirs := connectVaults(t, conn)
	ctx := context.Background()

	tl, err := mc.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tl.Tools {
		if _, ok := tool.InputSchema.Properties["vault"]; !ok {
			t.Errorf("tool %s takes no vault: %+v", tool.Name, tool.InputSchema)
		}
	}

	rl, err := mc.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rl.Resources) != 2 {
		t.Errorf("resources/list: %d resources, want team's 2", len(rl.Resources))
	}
	for _, r := range rl.Resources {
		if !strings.HasPrefix(r.URI, "vault://note/team:") {
			t.Errorf("resources/list shows %s, not of vault team", r.URI)
		}
	}
	read := func(uri string) (string, error) {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		res, err := mc.ReadResource(ctx, req)
		if err != nil {
			return "", err
		}
		return res.Contents[0].(mcp.TextResourceContents).Text, nil
	}
	if text, err := read("vault://note/team:Onboarding/Erste%20Woche.md"); err != nil || !strings.Contains(text, "Laptop") {
		t.Errorf("read team's note: %q %v", text, err)
	}
	if _, err := read("vault://note/work:1_Projekte/Website-Relaunch.md"); err == nil || !strings.Contains(err.Error(), "the vaults: team;") {
		t.Errorf("read work's note with a team key: %v (want refused, listing team alone)", err)
	}

	complete := func(ref any, name, value string, args map[string]string) []string {
		req := mcp.CompleteRequest{}
		req.Params.Ref, req.Params.Argument = ref, mcp.CompleteArgument{Name: name, Value: value}
		req.Params.Context.Arguments = args
		res, err := mc.Complete(ctx, req)
		if err != nil {
			t.Fatalf("complete %s=%q: %v", name, value, err)
		}
		return res.Completion.Values
	}
	if got := complete(mcp.ResourceReference{Type: "ref/resource", URI: noteTemplate}, "path", "", nil); strings.Join(got, ",") != "team:" {
		t.Errorf("resource path completion of nothing: %v, want team: alone", got)
	}
	if got := complete(mcp.ResourceReference{Type: "ref/resource", URI: noteTemplate}, "path", "team:Onb", nil); strings.Join(got, ",") != "team:Onboarding/" {
		t.Errorf("resource path completion of team:Onb: %v", got)
	}
	prompt := mcp.PromptReference{Type: "ref/prompt", Name: "summarize_note"}
	if got := complete(prompt, "heading", "A", map[string]string{"path": "team:Onboarding/Erste Woche.md"}); strings.Join(got, ",") != "Ablauf" {
		t.Errorf("heading completion in team: %v", got)
	}
	if got := complete(prompt, "vault", "", nil); strings.Join(got, ",") != "team" {
		t.Errorf("vault completion: %v", got)
	}

	preq := mcp.GetPromptRequest{}
	preq.Params.Name, preq.Params.Arguments = "summarize_note", map[string]string{"path": "Erste Woche"}
	pr, err := mc.GetPrompt(ctx, preq)
	if err != nil {
		t.Fatal(err)
	}
	text := pr.Messages[0].Content.(mcp.TextContent).Text
	if !strings.Contains(text, `read_note {"vault": "team", "path": "Onboarding/Erste Woche.md"}`) {
		t.Errorf("summarize_note in team does not name the vault in its calls:\n%s", text)
	}
	preq.Params.Arguments = map[string]string{"vault": "work", "path": "Website-Relaunch"}
	if _, err := mc.GetPrompt(ctx, preq); err == nil || strings.Contains(err.Error(), "work,") || !strings.Contains(err.Error(), "the vaults: team") {
		t.Errorf("summarize_note in a vault the key may not see: %v", err)
	}

	sreq := mcp.SubscribeRequest{}
	sreq.Params.URI = "vault://note/work:1_Projekte/Website-Relaunch.md"
	if err := mc.Subscribe(ctx, sreq); err == nil {
		t.Error("a team key subscribed to a note of work")
	}
	sreq.Params.URI = "vault://note/team:Zugangsdaten.md"
	if err := mc.Subscribe(ctx, sreq); err != nil {
		t.Fatal(err)
	}
	// Changed outside vaultd: the change journal of team's index says so.
	if err := os.WriteFile(filepath.Join(dirs["team"], "Zugangsdaten.md"), []byte("# Zugangsdaten\n\nneu\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !n.waitFor(mcp.MethodNotificationResourceUpdated, "vault://note/team:Zugangsdaten.md") {
		t.Error("no notifications/resources/updated for team's note changed outside vaultd")
	}
	// Changed by a call: at once.
	n.mu.Lock()
	n.got = nil
	n.mu.Unlock()
	if r := callTool(t, mc, "append_to_note", map[string]any{"path": "team:Zugangsdaten.md", "content": "- mehr", "change_summary": "t"}); r.IsError {
		t.Fatal(resultText(r))
	}
	if !n.waitFor(mcp.MethodNotificationResourceUpdated, "vault://note/team:Zugangsdaten.md") {
		t.Error("no notifications/resources/updated after a write through vaultd")
	}
}
