package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	_ "image/png" // decodes the PNG sent
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// attachmentVault is example-vault (its Startseite Entwurf.png and
// Angebot CDN.pdf) plus a JPEG photo carrying EXIF with a GPS position and
// x/image's WebP test image, under 3_Ressourcen/Anhänge.
func attachmentVault(t *testing.T) string {
	t.Helper()
	dir := copyVault(t)
	m := image.NewNRGBA(image.Rect(0, 0, 320, 240))
	for y := range 240 {
		for x := range 320 {
			m.Set(x, y, color.NRGBA{uint8(x * 255 / 320), uint8(y * 255 / 240), uint8((x * y) % 256), 255})
		}
	}
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, m, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	payload := append([]byte("Exif\x00\x00MM\x00\x2A\x00\x00\x00\x08"), "GPS 52.5200N 13.4050E"...)
	j := append([]byte{0xFF, 0xD8, 0xFF, 0xE1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}, payload...)
	j = append(j, jb.Bytes()[2:]...)
	webp, err := os.ReadFile(filepath.Join(repoRoot, "media", "testdata", "blue-purple-pink.lossy.webp"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"Baustelle.jpg": j, "Farben.webp": webp} {
		if err := os.WriteFile(filepath.Join(dir, "3_Ressourcen", "Anhänge", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".obsidian", "geheim.png"), []byte("\x89PNG secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAttachments_GoClient: read_attachment over stdio through mcp-go's
// client, as a model receives it: for PNG, JPEG and WebP the text, then
// image content that decodes, without EXIF, then a resource_link that
// resources/read answers with the file's bytes; for the PDF its text; a
// file in .obsidian refused.
func TestAttachments_GoClient(t *testing.T) {
	t.Parallel()
	dir := attachmentVault(t)
	s := serve(t, dir, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	callRaw := func(args map[string]any) *mcp.CallToolResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "read_attachment", args
		res, err := s.c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("read_attachment %v: %v", args, err)
		}
		return res
	}
	for _, tc := range []struct {
		path, wantText, mime string
	}{
		{"![[Startseite Entwurf.png]]", "pixels: 480 × 300", "image/png"},
		{"Baustelle.jpg", "pixels: 320 × 240", "image/jpeg"},
		{"[[Farben.webp]]", "kind: image (WebP)", "image/jpeg"},
	} {
		res := callRaw(map[string]any{"path": tc.path})
		if res.IsError || len(res.Content) != 3 {
			t.Fatalf("%s: isError %v, %d content blocks, want text, image, resource_link", tc.path, res.IsError, len(res.Content))
		}
		text, _ := mcp.AsTextContent(res.Content[0])
		im, ok := mcp.AsImageContent(res.Content[1])
		if text == nil || !ok || im == nil {
			t.Fatalf("%s: got %T, %T; want text then image", tc.path, res.Content[0], res.Content[1])
		}
		wantContains(t, tc.path, text.Text, tc.wantText, "image sent: ", "resource: vault://file/3_Ressourcen/Anh%C3%A4nge/")
		b, err := base64.StdEncoding.DecodeString(im.Data)
		if err != nil {
			t.Fatalf("%s: image data is not base64: %v", tc.path, err)
		}
		if _, format, err := image.DecodeConfig(bytes.NewReader(b)); err != nil || "image/"+format != im.MIMEType || im.MIMEType != tc.mime {
			t.Errorf("%s: image %s decodes as %q (%v), want %s", tc.path, im.MIMEType, format, err, tc.mime)
		}
		if bytes.Contains(b, []byte("Exif")) || bytes.Contains(b, []byte("GPS")) {
			t.Errorf("%s: the image sent still holds EXIF", tc.path)
		}
		link, ok := res.Content[2].(mcp.ResourceLink)
		if !ok {
			t.Fatalf("%s: third block is %T, want a resource_link", tc.path, res.Content[2])
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		rr := mcp.ReadResourceRequest{}
		rr.Params.URI = link.URI
		got, err := s.c.ReadResource(ctx, rr)
		cancel()
		if err != nil || len(got.Contents) != 1 {
			t.Fatalf("%s: resources/read %s: %v", tc.path, link.URI, err)
		}
		blob, ok := got.Contents[0].(mcp.BlobResourceContents)
		orig, _ := os.ReadFile(filepath.Join(dir, "3_Ressourcen", "Anhänge", filepath.Base(strings.Trim(strings.TrimPrefix(tc.path, "!"), "[]"))))
		if data, _ := base64.StdEncoding.DecodeString(blob.Blob); !ok || !bytes.Equal(data, orig) {
			t.Errorf("%s: resources/read %s did not give the file's bytes", tc.path, link.URI)
		}
	}
	pdf := s.call("read_attachment", map[string]any{"path": "Angebot CDN.pdf"})
	wantContains(t, "pdf", pdf.Text, "kind: PDF", "pages: 1", "Kunde: Nordlicht IT-Service GmbH, Projekt Website-Relaunch", "Grundgebühr 29,00 € im Monat")
	hidden := s.call("read_attachment", map[string]any{"path": ".obsidian/geheim.png"})
	if !hidden.IsError || strings.Contains(hidden.Text, "secret") {
		t.Errorf(".obsidian/geheim.png: got isError %v:\n%s", hidden.IsError, hidden.Text)
	}
	read := s.call("read_note", map[string]any{"path": "1_Projekte/Website-Relaunch/Technik.md"})
	wantContains(t, "read_note", read.Text, "attachments: 3_Ressourcen/Anhänge/architektur.svg (image, 1.5 KB), 3_Ressourcen/Anhänge/Startseite Entwurf.png (image, 488 bytes), 3_Ressourcen/Anhänge/Angebot CDN.pdf (PDF, 2.1 KB)")
}

// TestTypeScriptSDK_Attachments: the official TypeScript SDK client reads
// a PNG, a JPEG, a WebP and a PDF through `vaultd serve` and checks the
// content types (text, image, resource_link) and the text
// (ts/attach-session.mjs).
func TestTypeScriptSDK_Attachments(t *testing.T) {
	t.Parallel()
	dir := attachmentVault(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found on PATH (%v): the TypeScript SDK tests need Node ≥ 20 and npm", err)
	}
	tsdir := filepath.Join(repoRoot, "e2e", "ts")
	npmCI(t, tsdir)
	cmd := exec.Command(node, "attach-session.mjs", "--bin", vaultdBin, "--vault", dir, "--state", t.TempDir())
	cmd.Dir = tsdir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "ts-sdk attachments: 6 passed, 0 failed") {
		t.Fatalf("node attach-session.mjs: %v\n%s", err, out.String())
	}
	t.Log(strings.TrimSpace(out.String()))
}
