package media

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// photo is a noisy gradient: many colours, like a photograph.
func photo(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			m.Set(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8(r.IntN(256)), 255})
		}
	}
	return m
}

// withEXIF inserts an APP1 Exif segment right after the SOI marker.
func withEXIF(t *testing.T, j []byte) []byte {
	t.Helper()
	if !bytes.HasPrefix(j, []byte{0xFF, 0xD8}) {
		t.Fatal("not a JPEG")
	}
	payload := append([]byte("Exif\x00\x00MM\x00\x2A\x00\x00\x00\x08"), []byte("GPS 52.5200N 13.4050E secret-camera")...)
	seg := []byte{0xFF, 0xE1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}
	seg = append(seg, payload...)
	out := append([]byte{0xFF, 0xD8}, seg...)
	return append(out, j[2:]...)
}

func TestPrepare_JPEGLosesEXIF(t *testing.T) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, photo(320, 200), nil); err != nil {
		t.Fatal(err)
	}
	in := withEXIF(t, buf.Bytes())
	if !bytes.Contains(in, []byte("Exif\x00\x00")) {
		t.Fatal("fixture has no EXIF")
	}
	if _, _, err := image.Decode(bytes.NewReader(in)); err != nil {
		t.Fatalf("fixture with EXIF does not decode: %v", err)
	}
	got, err := Prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	if got.MIMEType != "image/jpeg" || got.Format != "jpeg" {
		t.Errorf("got %s from %s, want image/jpeg from jpeg", got.MIMEType, got.Format)
	}
	for _, leak := range []string{"Exif", "GPS", "secret-camera"} {
		if bytes.Contains(got.Data, []byte(leak)) {
			t.Errorf("output still contains %q", leak)
		}
	}
	// No APP1 marker anywhere in the header segments.
	if i := bytes.Index(got.Data, []byte{0xFF, 0xE1}); i >= 0 && i < 64 {
		t.Errorf("output has an APP1 segment at byte %d", i)
	}
	if got.Scaled() || got.OutWidth != 320 || got.OutHeight != 200 {
		t.Errorf("got %d×%d, want 320×200 unscaled", got.OutWidth, got.OutHeight)
	}
}

func TestPrepare_DownscalesToBound(t *testing.T) {
	for _, tc := range []struct{ w, h, ow, oh int }{
		{4000, 3000, 1568, 1176},
		{1000, 5000, 313, 1568},
		{1568, 10, 1568, 10},
	} {
		var buf bytes.Buffer
		if err := png.Encode(&buf, photo(tc.w, tc.h)); err != nil {
			t.Fatal(err)
		}
		got, err := Prepare(buf.Bytes())
		if err != nil {
			t.Fatalf("%d×%d: %v", tc.w, tc.h, err)
		}
		if len(got.Data) > MaxBytes {
			t.Errorf("%d×%d: %d bytes, want ≤ %d", tc.w, tc.h, len(got.Data), MaxBytes)
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(got.Data))
		if err != nil {
			t.Fatalf("%d×%d: output does not decode: %v", tc.w, tc.h, err)
		}
		if cfg.Width != got.OutWidth || cfg.Height != got.OutHeight || max(cfg.Width, cfg.Height) > MaxSide {
			t.Errorf("%d×%d: got %d×%d (reported %d×%d), want ≤ %d on the longest side",
				tc.w, tc.h, cfg.Width, cfg.Height, got.OutWidth, got.OutHeight, MaxSide)
		}
		if got.OutWidth != tc.ow || got.OutHeight != tc.oh {
			t.Errorf("%d×%d: got %d×%d, want %d×%d", tc.w, tc.h, got.OutWidth, got.OutHeight, tc.ow, tc.oh)
		}
		if got.Width != tc.w || got.Height != tc.h {
			t.Errorf("%d×%d: original reported as %d×%d", tc.w, tc.h, got.Width, got.Height)
		}
	}
}

func TestPrepare_ScreenshotStaysPNG(t *testing.T) {
	m := image.NewNRGBA(image.Rect(0, 0, 200, 100))
	for y := range 100 {
		for x := range 200 {
			c := color.NRGBA{255, 255, 255, 255}
			if x%20 < 2 {
				c = color.NRGBA{0, 0, 0, 255}
			}
			m.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	got, err := Prepare(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got.MIMEType != "image/png" {
		t.Errorf("screenshot came back as %s, want image/png", got.MIMEType)
	}
}

func TestPrepare_WebP(t *testing.T) {
	b, err := os.ReadFile("testdata/blue-purple-pink.lossy.webp")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Prepare(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Format != "webp" || got.Width == 0 || got.OutWidth != got.Width {
		t.Errorf("got format %q %d×%d → %d×%d", got.Format, got.Width, got.Height, got.OutWidth, got.OutHeight)
	}
	if _, format, err := image.Decode(bytes.NewReader(got.Data)); err != nil || "image/"+format != got.MIMEType {
		t.Errorf("output: format %q err %v, want %s", format, err, got.MIMEType)
	}
}

func TestPrepare_Refusals(t *testing.T) {
	if _, err := Prepare([]byte("%PDF-1.4 not an image")); err == nil {
		t.Error("a PDF was accepted as an image")
	}
	// A PNG header declaring 100,000 × 100,000 pixels is refused before decoding.
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	copy(b[16:24], []byte{0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0}) // IHDR width, height
	binary.BigEndian.PutUint32(b[29:33], crc32.ChecksumIEEE(b[12:29]))
	_, err := Prepare(b)
	if err == nil || !strings.Contains(err.Error(), "100000×100000 pixels, more than") {
		t.Errorf("a 100,000×100,000 PNG: got error %v, want the pixel bound named", err)
	}
}
