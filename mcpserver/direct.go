package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/vault"
)

// ToolSpec is one tool as an MCP client's tools/list shows it to a model:
// the name, the description and the JSON Schema of the arguments.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// ToolSpecs lists the tools a connection with perms sees, sorted by name,
// each exactly as tools/list sends it (the same name, description and
// input schema bytes), for a client that hands them to a model itself
// (vaultd trial).
func ToolSpecs(p Perms) []ToolSpec {
	var out []ToolSpec
	for _, t := range tools {
		if !allowed(p, t.perm) {
			continue
		}
		b, err := json.Marshal(t.mcpTool())
		if err != nil {
			panic(fmt.Sprintf("tool %s does not marshal: %v", t.name, err)) // a declaration bug, caught by the tests
		}
		var s ToolSpec
		if err := json.Unmarshal(b, &s); err != nil {
			panic(fmt.Sprintf("tool %s: %v", t.name, err))
		}
		out = append(out, s)
	}
	return out
}

// CallAs runs a tool by name for connection cn the way an MCP tools/call
// on that connection runs it: its rights (a tool it may not use is
// refused with the permission-denied text), its rate limits, the limits
// left on a write's answer, the actor recorded in history. An unknown
// tool is an invalid-argument error listing the tools cn may use. The
// answer is the Result whose Text an MCP client shows the model.
func (c *Core) CallAs(ctx context.Context, cn *Connection, name string, args map[string]any) *Result {
	caller := Caller{Actor: cn.Actor, Perms: cn.Perms, Door: DoorMCP}
	for _, t := range tools {
		if t.name == name {
			if args == nil {
				args = map[string]any{}
			}
			return c.callOn(ctx, cn, caller, t, args)
		}
	}
	return c.fail(caller, failure{tool: name}, &vault.Error{Op: "call", Kind: vault.ErrInvalid,
		Msg: fmt.Sprintf("there is no tool %q; tools: %s", name, strings.Join(ToolNames(cn.Perms), ", "))})
}
