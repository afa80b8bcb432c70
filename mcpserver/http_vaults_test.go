package mcpserver

import (
	"maps"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/tools"
)

// A key limited to one vault of a server of several gets a connection
// whose Vaults hold that vault as the key names it (the core matches
// names whatever their case, and a vault served later by a reload is
// reached as soon as it is), with the union of its rights as its Perms;
// it sees that vault alone. A key without vaults sees every vault, and a change of a key's
// vaults counts from its next request.
func TestHTTP_KeyVaults(t *testing.T) {
	team, privat := newTestCore(t, copyExampleVault(t)), newTestCore(t, copyExampleVault(t))
	vs, err := tools.NewVaults([]string{"team", "privat"}, []*tools.Core{team, privat})
	if err != nil {
		t.Fatal(err)
	}
	f := newHTTPFixture(t, HTTPOptions{Vaults: vs}, map[string]string{"bot": "read,write", "owner": "read"})
	if _, err := f.keys.SetVaults("bot", map[string]keys.Rights{"Team": {}}); err != nil {
		t.Fatal(err)
	}
	lookup := func(name string) *tools.Connection {
		t.Helper()
		k, ok, err := f.keys.Lookup(f.token[name])
		if err != nil || !ok {
			t.Fatalf("Lookup(%s): %v %v", name, ok, err)
		}
		return f.srv.connection(k)
	}
	rw := tools.Perms{Read: true, Write: true}
	if cn := lookup("bot"); !maps.Equal(cn.Vaults, map[string]tools.Perms{"Team": rw}) || cn.Perms != rw {
		t.Errorf("bot's connection: Vaults %v, Perms %+v; want team alone with read,write", cn.Vaults, cn.Perms)
	}
	if cn := lookup("owner"); cn.Vaults != nil || cn.Perms != (tools.Perms{Read: true}) {
		t.Errorf("owner's connection: Vaults %v, Perms %+v; want nil (every vault), read", cn.Vaults, cn.Perms)
	}

	overview := func(name string) string {
		t.Helper()
		res := callTool(t, f.mustClient(t, name), "vault_overview", map[string]any{})
		if res.IsError {
			t.Fatalf("vault_overview as %s: %s", name, resultText(res))
		}
		return resultText(res)
	}
	// names says whether an answer names vault v (the tags of the example
	// vault include #team and #privat).
	names := func(text, v string) bool {
		return strings.Contains(text, "vault: "+v+"\n") || strings.Contains(text, `"vault": "`+v+`"`)
	}
	if text := overview("bot"); !names(text, "team") || names(text, "privat") {
		t.Errorf("bot's vault_overview:\n%s\nwant team only, privat nowhere", text)
	}
	if text := overview("owner"); !names(text, "team") || !names(text, "privat") {
		t.Errorf("owner's vault_overview:\n%s\nwant both vaults", text)
	}

	// Changed on the running server: the next request has the new vaults.
	if _, err := f.keys.SetVaults("bot", map[string]keys.Rights{"privat": {Read: true}, "archiv": {Read: true, Write: true}}); err != nil {
		t.Fatal(err)
	}
	if cn := lookup("bot"); !maps.Equal(cn.Vaults, map[string]tools.Perms{"privat": {Read: true}, "archiv": rw}) {
		t.Errorf("bot after SetVaults: Vaults %v; want privat read, archiv read,write", cn.Vaults)
	}
	if text := overview("bot"); !names(text, "privat") || names(text, "team") {
		t.Errorf("bot's vault_overview after SetVaults:\n%s\nwant privat only", text)
	}
}

// On a server of one vault, a key limited to vaults has the rights it
// names for that vault's name, and none where it names others only.
func TestHTTP_KeyVaultsLoneVault(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{LoneVault: "team"}, map[string]string{"teambot": "read,write", "other": "read,write"})
	if _, err := f.keys.SetVaults("teambot", map[string]keys.Rights{"Team": {Read: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.keys.SetVaults("other", map[string]keys.Rights{"privat": {Read: true, Write: true}}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]tools.Perms{"teambot": {Read: true}, "other": {}} {
		k, ok, err := f.keys.Lookup(f.token[name])
		if err != nil || !ok {
			t.Fatalf("Lookup(%s): %v %v", name, ok, err)
		}
		if cn := f.srv.connection(k); cn.Perms != want || cn.Vaults != nil {
			t.Errorf("%s on a server of vault team: Perms %+v, Vaults %v; want %+v, none", name, cn.Perms, cn.Vaults, want)
		}
	}
	res := callTool(t, f.mustClient(t, "other"), "read_note", map[string]any{"path": "1_Projekte/Website-Relaunch.md"})
	if !res.IsError || strings.Contains(resultText(res), "Website-Relaunch\n") {
		t.Errorf("a key for another vault reads this one:\n%s", resultText(res))
	}
}

// keys checks vault names itself (it does not import tools); the rule must
// stay the one vaultd serve names its vaults by.
func TestKeyVaultNamesFollowTools(t *testing.T) {
	for _, n := range []string{"team", "a", "Work_2", "x.y-z", "9", strings.Repeat("v", 40), strings.Repeat("v", 41),
		"", "-team", ".team", "_team", "team:x", "a b", "ä", "team/x", "team=read"} {
		if k, tl := keys.ValidVaultName(n) == nil, tools.ValidVaultName(n) == nil; k != tl {
			t.Errorf("vault name %q: keys says valid=%v, tools valid=%v", n, k, tl)
		}
	}
}
