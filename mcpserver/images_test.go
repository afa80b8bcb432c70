package mcpserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/tools"
)

// TestToMCP_Images: a result's images follow its text as MCP image
// content, base64 with their MIME type, as a client receives them on the
// wire; a result without images keeps its one text block.
func TestToMCP_Images(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	r := &tools.Result{Text: "attachment \"a.png\": PNG, 2×2", Data: map[string]any{"path": "a.png"},
		Images: []tools.Image{{MIMEType: "image/png", Data: png}}}
	wire, err := json.Marshal(toMCP(r))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Content []struct {
			Type, Text, Data, MIMEType string
		}
		IsError bool
	}
	if err := json.Unmarshal(wire, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Content) != 2 || got.Content[0].Type != "text" || got.Content[0].Text != r.Text {
		t.Fatalf("got content %s, want the text first, then one image", wire)
	}
	im := got.Content[1]
	data, err := base64.StdEncoding.DecodeString(im.Data)
	if im.Type != "image" || im.MIMEType != "image/png" || err != nil || !bytes.Equal(data, png) {
		t.Errorf("got image part %+v (decode error %v), want type image, mimeType image/png, the bytes in base64", im, err)
	}

	plain := toMCP(&tools.Result{Text: "x"})
	if len(plain.Content) != 1 {
		t.Errorf("a result without images has %d content blocks, want 1", len(plain.Content))
	}
	if _, ok := plain.Content[0].(mcp.TextContent); !ok {
		t.Errorf("got %T, want text content", plain.Content[0])
	}
}
