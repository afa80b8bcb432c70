package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/media/mediatest"
)

// attachmentVault is the example vault plus attachments of every kind
// read_attachment answers for: a photo with EXIF (GPS in it), a WebP, a
// PNG larger than a model takes, a long PDF, a scanned one, a damaged
// one, an MP3, two files of one name, a file over the read limit, and
// files a caller must never see: in .obsidian and through a link into it.
func attachmentVault(t *testing.T) string {
	t.Helper()
	dir := copyExampleVault(t)
	write := func(p string, b []byte) {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, fixedNow, fixedNow); err != nil {
			t.Fatal(err)
		}
	}
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, gradient(64, 48), &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	write("1_Projekte/Hausbau Lindenweg/Baustelle.jpg", withExif(jb.Bytes()))
	webp, err := os.ReadFile(filepath.Join("..", "media", "testdata", "blue-purple-pink.lossy.webp"))
	if err != nil {
		t.Fatal(err)
	}
	write("3_Ressourcen/Anhänge/Farben.webp", webp)
	var pb bytes.Buffer
	if err := png.Encode(&pb, gradient(2400, 1600)); err != nil {
		t.Fatal(err)
	}
	write("3_Ressourcen/Anhänge/Lageplan.png", pb.Bytes())
	var pages []string
	for i := range 60 {
		pages = append(pages, fmt.Sprintf("BT /F1 10 Tf 72 770 Td 0 -14 TD (Kapitel %d) Tj%s ET", i+1,
			strings.Repeat(" T* [(Dieser)-600(Absatz)-600(steht)-600(auf)-600(jeder)-600(Seite.)] TJ", 10)))
	}
	write("3_Ressourcen/Handbuch.pdf", mediatest.PDF(pages...))
	write("0_Inbox/Scan Rechnung.pdf", mediatest.PDF("", ""))
	write("0_Inbox/Kaputt.pdf", []byte("%PDF-1.4\nnothing of a PDF follows\n"))
	write("2_Bereiche/Besprechung.mp3", append([]byte("ID3\x03\x00\x00\x00\x00\x00\x00"), make([]byte, 2000)...))
	write("1_Projekte/x/logo.png", smallPNG(t))
	write("2_Bereiche/y/logo.png", smallPNG(t))
	write(".obsidian/plugins/geheim.png", smallPNG(t))
	if err := os.Symlink("../../.obsidian/plugins/geheim.png", filepath.Join(dir, "3_Ressourcen", "Anhänge", "Verweis.png")); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(dir, "4_Archiv", "Scan groß.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	big.WriteString("%PDF-1.4\n")
	if err := big.Truncate(26 << 20); err != nil { // sparse: the size is what counts
		t.Fatal(err)
	}
	big.Close()
	if err := os.Chtimes(big.Name(), fixedNow, fixedNow); err != nil {
		t.Fatal(err)
	}
	return dir
}

func gradient(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Set(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x*7 + y*13) % 256), 255})
		}
	}
	return m
}

func smallPNG(t *testing.T) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withExif puts an APP1 Exif segment with a GPS position after the SOI.
func withExif(j []byte) []byte {
	payload := append([]byte("Exif\x00\x00MM\x00\x2A\x00\x00\x00\x08"), []byte("GPS 52.5200N 13.4050E")...)
	seg := []byte{0xFF, 0xE1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}
	out := append([]byte{0xFF, 0xD8}, append(seg, payload...)...)
	return append(out, j[2:]...)
}

var cliReader = Caller{Actor: "owner", Perms: AllPerms, Door: DoorCLI}

// TestGolden_ReadAttachment: every kind read_attachment answers for, each
// way of naming a file, and each refusal, as an agent reads them; the
// images sent are listed after the text (type, pixels, bytes).
func TestGolden_ReadAttachment(t *testing.T) {
	dir := attachmentVault(t)
	c := newTestCore(t, dir)
	for _, tc := range []struct {
		name   string
		caller Caller
		args   string
	}{
		{"image_embed", readOnly, `{"path":"![[Startseite Entwurf.png]]"}`},
		{"image_scaled", readOnly, `{"path":"3_Ressourcen/Anhänge/Lageplan.png"}`},
		{"image_jpeg_exif", readOnly, `{"path":"Baustelle.jpg"}`},
		{"image_webp", readOnly, `{"path":"[[Farben.webp]]"}`},
		{"image_cli", cliReader, `{"path":"Startseite Entwurf.png"}`},
		{"svg", readOnly, `{"path":"architektur.svg"}`},
		{"pdf_markdown_embed", readOnly, `{"path":"![Angebot CDN](../../3_Ressourcen/Anh%C3%A4nge/Angebot%20CDN.pdf)","note":"1_Projekte/Website-Relaunch/Technik.md"}`},
		{"pdf_long", readOnly, `{"path":"Handbuch.pdf"}`},
		{"pdf_long_next", readOnly, `{"path":"3_Ressourcen/Handbuch.pdf","offset":11993}`},
		{"pdf_scan", readOnly, `{"path":"0_Inbox/Scan Rechnung.pdf"}`},
		{"pdf_damaged", readOnly, `{"path":"0_Inbox/Kaputt.pdf"}`},
		{"audio", readOnly, `{"path":"2_Bereiche/Besprechung.mp3"}`},
		{"err_not_found", readOnly, `{"path":"Startseite.png"}`},
		{"err_not_found_in_folder", readOnly, `{"path":"3_Ressourcen/Anhänge/Farbe.webp"}`},
		{"err_ambiguous", readOnly, `{"path":"logo.png"}`},
		{"err_hidden", readOnly, `{"path":".obsidian/plugins/geheim.png"}`},
		{"err_link_into_hidden", readOnly, `{"path":"3_Ressourcen/Anhänge/Verweis.png"}`},
		{"err_outside", readOnly, `{"path":"../geheim.png"}`},
		{"err_too_large", readOnly, `{"path":"4_Archiv/Scan groß.pdf"}`},
		{"err_note", readOnly, `{"path":"![[Technik]]"}`},
		{"err_empty_path", readOnly, `{"path":"  "}`},
		{"err_offset_past_end", readOnly, `{"path":"3_Ressourcen/Anhänge/Angebot CDN.pdf","offset":5000}`},
		{"err_note_missing", readOnly, `{"path":"Startseite Entwurf.png","note":"Technikk"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call := step{"read_attachment", tc.args}
			r, shown := runStep(t, c, tc.caller, call, dir, "")
			checkContract(t, tc.caller, call, r, dir)
			followSuggestions(t, c, tc.caller, r)
			got := renderGolden(shown, r, dir)
			for _, im := range r.Images {
				cfg, format, err := image.DecodeConfig(bytes.NewReader(im.Data))
				if err != nil {
					t.Errorf("image sent does not decode: %v", err)
				}
				if "image/"+format != im.MIMEType {
					t.Errorf("image sent is %s, labelled %s", format, im.MIMEType)
				}
				if bytes.Contains(im.Data, []byte("Exif")) || bytes.Contains(im.Data, []byte("GPS")) {
					t.Errorf("image sent still holds EXIF")
				}
				got += fmt.Sprintf("--- image ---\n%s %d×%d, %d bytes\n", im.MIMEType, cfg.Width, cfg.Height, len(im.Data))
			}
			for _, l := range r.Resources {
				b, _ := json.Marshal(l)
				got += "--- resource link ---\n" + string(b) + "\n"
			}
			if strings.Contains(got, "geheim") && strings.Contains(tc.name, "hidden") && len(r.Images) > 0 {
				t.Errorf("a hidden file was shown")
			}
			compareGolden(t, filepath.Join("testdata", "golden", "read_attachment", tc.name+".golden"), got)
		})
	}
}
