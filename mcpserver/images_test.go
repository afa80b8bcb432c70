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

// TestToMCP_ResourceLinks: a result's resources follow its text and
// images as resource_link content a client can read with resources/read.
func TestToMCP_ResourceLinks(t *testing.T) {
	r := &tools.Result{Text: "attachment: a b.pdf", Images: []tools.Image{{MIMEType: "image/png", Data: []byte("x")}},
		Resources: []tools.Resource{{URI: tools.ResourceURI("Anhänge/a b.pdf"), Name: "a b.pdf", MIMEType: "application/pdf", Description: "PDF, 2 KB"}}}
	wire, err := json.Marshal(toMCP(r))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Content []struct {
			Type, URI, Name, MIMEType, Description string
		}
	}
	if err := json.Unmarshal(wire, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Content) != 3 {
		t.Fatalf("got %s, want text, image, resource_link", wire)
	}
	l := got.Content[2]
	if l.Type != "resource_link" || l.URI != "vault://file/Anh%C3%A4nge/a%20b.pdf" || l.Name != "a b.pdf" || l.MIMEType != "application/pdf" {
		t.Errorf("got %+v, want a resource_link to vault://file/Anh%%C3%%A4nge/a%%20b.pdf", l)
	}
	if p, isNote, ok := pathOfURI(l.URI); !ok || isNote || p != "Anhänge/a b.pdf" {
		t.Errorf("the link's URI reads back as %q (note %v, ok %v)", p, isNote, ok)
	}
}
