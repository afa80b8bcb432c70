package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/tools"
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
func ToolSpecs(p tools.Perms) []ToolSpec {
	var out []ToolSpec
	for _, t := range tools.Tools() {
		if !tools.Allowed(p, t.Perm) {
			continue
		}
		b, err := json.Marshal(mcpTool(t))
		if err != nil {
			panic(fmt.Sprintf("tool %s does not marshal: %v", t.Name, err)) // a declaration bug, caught by the tests
		}
		var s ToolSpec
		if err := json.Unmarshal(b, &s); err != nil {
			panic(fmt.Sprintf("tool %s: %v", t.Name, err))
		}
		out = append(out, s)
	}
	return out
}

// mcpTool builds the mcp-go tool of a declaration with all four
// annotations set explicitly (mcp-go's defaults claim destructive and
// open-world).
func mcpTool(t tools.Tool) mcp.Tool {
	return mcp.NewTool(t.Name,
		mcp.WithDescription(t.Description),
		mcp.WithTitleAnnotation(t.Title),
		inputSchema(t.ArgsType),
		mcp.WithReadOnlyHintAnnotation(t.Perm == "read"),
		mcp.WithDestructiveHintAnnotation(t.Destructive),
		mcp.WithIdempotentHintAnnotation(t.Idempotent),
		mcp.WithOpenWorldHintAnnotation(false),
	)
}

// inputSchema is the JSON Schema of an args struct, inferred as
// mcp.WithInputSchema infers it: the json tags name the properties (no
// omitempty: required), the jsonschema tags describe them.
func inputSchema(t reflect.Type) mcp.ToolOption {
	schema, err := jsonschema.ForType(t, &jsonschema.ForOptions{IgnoreInvalidTypes: true})
	if err != nil {
		panic(fmt.Sprintf("args %s: %v", t, err)) // a declaration bug, caught by the tests
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("args %s: %v", t, err))
	}
	return func(tool *mcp.Tool) {
		tool.InputSchema.Type = ""
		tool.RawInputSchema = raw
	}
}
