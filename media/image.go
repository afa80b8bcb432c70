// Package media owns what vaultd does to an attachment's bytes before an
// agent sees them: it decodes an image (PNG, JPEG, GIF, WebP), scales it
// down to a bound a model can take, and encodes it afresh; it extracts the
// text of a PDF (pdf.go). It does no I/O.
//
// Re-encoding is the point, not a side effect: the encoders of the
// standard library write pixels only, so EXIF (camera, GPS position),
// XMP, ICC and text chunks of the original never leave the vault.
package media

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // registers the GIF decoder
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // registers the WebP decoder
)

// Bounds for an image handed to a model. 1568 px on the longest side is
// what Anthropic's vision documentation gives as the size beyond which an
// image is scaled down anyway; ~1 MB keeps one image far below the
// response budget of clients that inline base64 (≈1.33 MB of text).
const (
	MaxSide  = 1568
	MaxBytes = 1 << 20
	// MaxPixels refuses decompression bombs before decoding: a 50 kB PNG
	// may declare 30,000 × 30,000 pixels (3.6 GB of RGBA).
	MaxPixels = 50_000_000
)

// ErrNotImage is returned for bytes no registered decoder accepts.
var ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")

// Image is an image ready to hand to a model.
type Image struct {
	Data     []byte // encoded PNG or JPEG, without metadata
	MIMEType string // "image/png" or "image/jpeg"
	Format   string // format of the original: png, jpeg, gif, webp
	// Width and Height are the original's; OutWidth and OutHeight what
	// Data holds.
	Width, Height       int
	OutWidth, OutHeight int
}

// Scaled reports whether Data is smaller than the original.
func (im Image) Scaled() bool { return im.OutWidth != im.Width || im.OutHeight != im.Height }

// Config reads an image's format and dimensions without decoding pixels.
func Config(b []byte) (format string, width, height int, err error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return "", 0, 0, fmt.Errorf("%w: %v", ErrNotImage, err)
	}
	return format, cfg.Width, cfg.Height, nil
}

// Prepare decodes b, scales it so its longest side is at most MaxSide and
// encodes it at most MaxBytes large. Images with transparency or few
// colours (screenshots, diagrams, GIFs) come back as PNG, photographs as
// JPEG; a PNG that stays above MaxBytes is tried as JPEG, then both at
// smaller sizes. Only the first frame of an animated GIF is kept.
func Prepare(b []byte) (Image, error) {
	format, w, h, err := Config(b)
	if err != nil {
		return Image{}, err
	}
	if w <= 0 || h <= 0 {
		return Image{}, fmt.Errorf("%w: it declares %d×%d pixels", ErrNotImage, w, h)
	}
	if int64(w)*int64(h) > MaxPixels {
		return Image{}, fmt.Errorf("image is %d×%d pixels, more than the %d million vaultd decodes", w, h, MaxPixels/1_000_000)
	}
	src, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return Image{}, fmt.Errorf("%w: %v", ErrNotImage, err)
	}
	out := Image{Format: format, Width: w, Height: h}
	wantPNG := format == "png" || format == "gif"
	if wantPNG && !hasAlpha(src) && format == "png" && isPhoto(src) {
		wantPNG = false
	}
	side := MaxSide
	for {
		ow, oh := fit(w, h, side)
		dst := scale(src, ow, oh)
		var enc []byte
		mime := "image/jpeg"
		if wantPNG {
			enc, err = encodePNG(dst)
			mime = "image/png"
			if err == nil && len(enc) > MaxBytes && !hasAlpha(dst) {
				enc, err = encodeJPEG(dst, 85)
				mime = "image/jpeg"
			}
		} else {
			enc, err = encodeJPEG(dst, 85)
		}
		if err != nil {
			return Image{}, err
		}
		if len(enc) <= MaxBytes || side <= 64 {
			out.Data, out.MIMEType, out.OutWidth, out.OutHeight = enc, mime, ow, oh
			return out, nil
		}
		side = side * 3 / 4
	}
}

// fit scales w×h so its longest side is at most side, keeping the ratio.
func fit(w, h, side int) (int, int) {
	if w <= side && h <= side {
		return w, h
	}
	if w >= h {
		return side, max(1, int(int64(h)*int64(side)/int64(w)))
	}
	return max(1, int(int64(w)*int64(side)/int64(h))), side
}

func scale(src image.Image, w, h int) image.Image {
	b := src.Bounds()
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	if w == b.Dx() && h == b.Dy() {
		draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Src)
		return dst
	}
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	return dst
}

func encodePNG(m image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func encodeJPEG(m image.Image, q int) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: q}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// hasAlpha reports whether any pixel is not fully opaque.
func hasAlpha(m image.Image) bool {
	if o, ok := m.(interface{ Opaque() bool }); ok {
		return !o.Opaque()
	}
	return true
}

// isPhoto guesses whether a PNG holds a photograph: it samples up to
// 4096 pixels and counts distinct colours. Screenshots and diagrams use
// few; photographs use almost as many as were sampled.
func isPhoto(m image.Image) bool {
	if _, ok := m.(*image.Paletted); ok {
		return false
	}
	b := m.Bounds()
	step := max(1, b.Dx()*b.Dy()/4096)
	seen := make(map[color.RGBA]struct{})
	n := 0
	for i := 0; i < b.Dx()*b.Dy(); i += step {
		x, y := b.Min.X+i%b.Dx(), b.Min.Y+i/b.Dx()
		r, g, bl, a := m.At(x, y).RGBA()
		seen[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(a >> 8)}] = struct{}{}
		n++
	}
	return n >= 256 && len(seen)*2 > n
}
