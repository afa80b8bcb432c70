package mcpserver

import (
	"context"
	"encoding/json"
	"github.com/vaultd/vaultd/tools"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestToolSpecs_AreToolsList: what vaultd trial hands a model is exactly
// what an MCP client's tools/list gets — the same tools, names,
// descriptions and input schemas — for every kind of connection.
func TestToolSpecs_AreToolsList(t *testing.T) {
	for _, p := range []tools.Perms{{Read: true}, {Read: true, Write: true}, tools.AllPerms} {
		cl, _, _ := connect(t, tools.NewConnection("mcp", p, tools.Limits{}))
		res, err := cl.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		specs := ToolSpecs(p)
		if len(specs) != len(res.Tools) {
			t.Fatalf("%+v: %d specs, tools/list has %d", p, len(specs), len(res.Tools))
		}
		for i, tool := range res.Tools {
			b, _ := json.Marshal(tool)
			var want ToolSpec
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			got := specs[i]
			gs, ws := schemaOf(t, got.InputSchema), schemaOf(t, want.InputSchema)
			if got.Name != want.Name || got.Description != want.Description || gs != ws {
				t.Errorf("%+v tool %d:\n got %s %q %s\nwant %s %q %s", p, i, got.Name, got.Description, gs, want.Name, want.Description, ws)
			}
		}
	}
}

// schemaOf renders a schema with sorted keys and the empty "properties"
// and "required" that mcp-go's client adds when it decodes a schema
// without them, so that the wire bytes and the decoded tool compare.
func schemaOf(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	if _, ok := m["required"]; !ok {
		m["required"] = []any{}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TestCallAs_IsTheMCPCall: a call through CallAs answers the text an MCP
// client gets on the same connection: a read, a refused write on a
// read-only connection, an unknown tool, and a write with its limits left.
func TestCallAs_IsTheMCPCall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		perms tools.Perms
		tool  string
		args  map[string]any
	}{
		{"read", tools.Perms{Read: true}, "read_note", map[string]any{"path": "1_Projekte/Website-Relaunch.md", "heading": "Zeitleiste"}},
		{"denied", tools.Perms{Read: true}, "create_note", map[string]any{"path": "0_Inbox/X.md", "content": "x", "change_summary": "x"}},
		{"write", tools.Perms{Read: true, Write: true}, "append_to_note", map[string]any{"path": "0_Inbox/Notiz 2026-11-18.md", "content": "- Zeile", "change_summary": "Test"}},
		{"unknown argument", tools.Perms{Read: true}, "read_note", map[string]any{"note": "Website-Relaunch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, _, _ := connect(t, tools.NewConnection("mcp", tc.perms, tools.Limits{}))
			want := callTool(t, cl, tc.tool, tc.args)
			_, c, _ := connect(t, tools.NewConnection("mcp", tc.perms, tools.Limits{}))
			got := c.CallAs(context.Background(), tools.NewConnection("mcp", tc.perms, tools.Limits{}), tc.tool, tc.args)
			if changeID.ReplaceAllString(got.Text, "ID") != changeID.ReplaceAllString(resultText(want), "ID") || got.IsError() != want.IsError {
				t.Errorf("CallAs %s %v:\n%s\nMCP:\n%s", tc.tool, tc.args, got.Text, resultText(want))
			}
		})
	}
	_, c, _ := connect(t, tools.NewConnection("mcp", tools.Perms{Read: true}, tools.Limits{}))
	r := c.CallAs(context.Background(), tools.NewConnection("trial", tools.Perms{Read: true}, tools.Limits{}), "read_notes", map[string]any{"path": "x"})
	if !r.IsError() || !strings.Contains(r.Text, `there is no tool "read_notes"`) || strings.Contains(r.Text, "create_note") {
		t.Errorf("unknown tool: got\n%s\nwant an error naming the read tools only", r.Text)
	}
}
