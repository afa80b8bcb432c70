package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/tools"
)

// Resource subscriptions are bounded, and an idle one costs nothing (issue
// "Never lose a word, round three", item 4: one read-only key held 20,000
// subscriptions, 88 MB, and the idle server used a quarter of a core
// stat'ing them every second).

func subscribe(mc interface {
	Subscribe(context.Context, mcp.SubscribeRequest) error
}, uri string) error {
	req := mcp.SubscribeRequest{}
	req.Params.URI = uri
	return mc.Subscribe(context.Background(), req)
}

// TestSubscriptions_PerSessionLimit: a session holds at most its limit;
// one more is refused with an error that says how many are held and names
// the one subscribed longest ago to let go; that call, followed literally, makes room. A
// subscription again of a URI held, in another spelling too, takes no
// room; an overlong URI is refused.
func TestSubscriptions_PerSessionLimit(t *testing.T) {
	mc, _, _, _, sub := connectServer(t, tools.NewConnection("mcp", tools.Perms{Read: true}, tools.Limits{}),
		ServerOptions{Subscriptions: SubscriptionLimits{MaxPerSession: 3}})
	held := []string{"vault://note/0_Inbox/Buchtipps.md", "vault://note/2_Bereiche/Team/%C3%9Cbersicht.md", "vault://note/1_Projekte/Neu.md"}
	for _, uri := range held {
		if err := subscribe(mc, uri); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	// The same notes again, one in another spelling: no more room taken.
	for _, uri := range []string{held[0], "vault://note/2_Bereiche/Team/Übersicht.md"} {
		if err := subscribe(mc, uri); err != nil {
			t.Errorf("subscribe %s again: %v", uri, err)
		}
	}
	if n, _ := sub.held(); n != 3 {
		t.Errorf("held %d subscriptions, want 3", n)
	}
	err := subscribe(mc, "vault://note/3_Ressourcen/Rezepte.md")
	if err == nil {
		t.Fatal("a 4th subscription with a limit of 3 was taken")
	}
	var golden strings.Builder
	fmt.Fprintf(&golden, "4th subscription, limit 3:\n%s\n", err)
	if n, _ := sub.held(); n != 3 {
		t.Errorf("held %d subscriptions after a refusal, want 3", n)
	}
	// The suggested call, copied literally, makes room.
	m := regexp.MustCompile(`resources/unsubscribe \{"uri": "([^"]+)"\}`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("the refusal names no unsubscribe call: %v", err)
	}
	// The two subscribed again are newer now.
	if m[1] != held[2] {
		t.Errorf("the refusal names %s, want the one subscribed longest ago, %s", m[1], held[2])
	}
	req := mcp.UnsubscribeRequest{}
	req.Params.URI = m[1]
	if err := mc.Unsubscribe(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if err := subscribe(mc, "vault://note/3_Ressourcen/Rezepte.md"); err != nil {
		t.Errorf("subscribe after the suggested unsubscribe: %v", err)
	}
	long := "vault://note/" + strings.Repeat("a", maxSubscribeURI) + ".md"
	err = subscribe(mc, long)
	if err == nil {
		t.Fatal("an overlong URI was subscribed")
	}
	fmt.Fprintf(&golden, "\nan overlong URI:\n%s\n", err)
	for _, bad := range []string{"%s", "%!", "{{", "<nil>", `""`, "<path>"} { // AGENT-CONTRACT rule 10
		if strings.Contains(golden.String(), bad) {
			t.Errorf("a refusal contains %q:\n%s", bad, golden.String())
		}
	}
	compareGolden(t, filepath.Join("testdata", "golden", "errors", "subscribe_limits.golden"), golden.String())
}

// TestSubscriptions_IdleCostsNothing: 200 subscriptions, most to notes
// that do not exist, cost no look at any file while nothing changes; a
// change outside vaultd is notified, and looks at the changed file only.
func TestSubscriptions_IdleCostsNothing(t *testing.T) {
	mc, _, dir, n, sub := connectServer(t, tools.NewConnection("mcp", tools.Perms{Read: true}, tools.Limits{}), ServerOptions{})
	uris := []string{"vault://note/0_Inbox/Buchtipps.md"}
	for i := range 199 {
		uris = append(uris, fmt.Sprintf("vault://note/4_Archiv/noch-nicht-%03d.md", i))
	}
	for _, uri := range uris {
		if err := subscribe(mc, uri); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	sub.tick() // the first asks from no mark: everything is looked at once
	sub.mu.Lock()
	before := sub.looked
	sub.mu.Unlock()
	for range 5 {
		sub.tick()
	}
	sub.mu.Lock()
	idle := sub.looked - before
	sub.mu.Unlock()
	if idle != 0 {
		t.Errorf("5 polls with nothing changed looked at %d files, want 0", idle)
	}
	if err := os.WriteFile(filepath.Join(dir, "0_Inbox", "Buchtipps.md"), []byte("# Buchtipps\n\nin Obsidian geändert\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !n.waitFor(mcp.MethodNotificationResourceUpdated, "vault://note/0_Inbox/Buchtipps.md") {
		t.Fatal("no notifications/resources/updated after a change outside vaultd")
	}
	sub.mu.Lock()
	after := sub.looked - before
	sub.mu.Unlock()
	if after > 2 {
		t.Errorf("finding one changed note looked at %d files, want at most 2", after)
	}
	// A note that appears is notified too.
	if err := os.WriteFile(filepath.Join(dir, "4_Archiv", "noch-nicht-007.md"), []byte("# da\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !n.waitFor(mcp.MethodNotificationResourceUpdated, "vault://note/4_Archiv/noch-nicht-007.md") {
		t.Error("no notifications/resources/updated for a subscribed note that appeared")
	}
}

// TestSubscriptions_NoIndexLooksAtFiles: without a search index there is
// no change journal; the subscribed files are looked at on every poll (the
// limits bound them), so a change outside vaultd is still notified.
func TestSubscriptions_NoIndexLooksAtFiles(t *testing.T) {
	dir := copyExampleVault(t)
	c := newCoreWithoutIndex(t, dir)
	cl := NewClientLog(true)
	s, sub := newServer(c, ServerOptions{Default: tools.NewConnection("mcp", tools.Perms{Read: true}, tools.Limits{}), ClientLog: cl})
	mc, n := startInProcess(t, s)
	if err := subscribe(mc, "vault://note/0_Inbox/Buchtipps.md"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a distinct modification time
	if err := os.WriteFile(filepath.Join(dir, "0_Inbox", "Buchtipps.md"), []byte("# Buchtipps\n\nanders\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub.tick()
	if !n.waitFor(mcp.MethodNotificationResourceUpdated, "vault://note/0_Inbox/Buchtipps.md") {
		t.Error("no notifications/resources/updated without an index")
	}
}
