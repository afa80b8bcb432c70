package media

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// PDF is the text of a PDF as far as PDFText read it.
type PDF struct {
	Pages int // pages in the file
	// Text is the text of the pages read, each page after a line
	// "--- page N ---", lines in reading order as the page places them.
	Text string
	// PagesRead counts the pages whose text Text holds (all of them unless
	// maxChars cut it short).
	PagesRead int
	// EmptyPages counts the pages read that hold no text at all: scans and
	// drawings, which need OCR (not done).
	EmptyPages int
}

// ErrPDF is returned for a PDF whose structure cannot be read: encrypted,
// damaged, or not a PDF.
var ErrPDF = errors.New("the PDF cannot be read")

// PDFText extracts the text of a PDF, page by page, until it holds at
// least maxChars characters (0: all pages). Glyphs come back in the order
// the page draws them, broken into lines where the baseline moves and
// into words where the gap between two glyphs is wider than a sixth of
// the font size: PDFs made by TeX, word processors and browsers place
// words by position and carry no space characters. Zero-width glyphs
// (pdfTeX draws invisible markers) are dropped, combining marks kept.
//
// It reads text only: a scanned page (an image) yields no text and is
// counted in EmptyPages. Errors: ErrPDF for an encrypted, damaged or
// non-PDF file; the extractor's panics on malformed input are caught and
// reported as ErrPDF.
func PDFText(b []byte, maxChars int) (out PDF, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = PDF{}, fmt.Errorf("%w: %v", ErrPDF, r)
		}
	}()
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		return PDF{}, fmt.Errorf("%w: it does not start with %%PDF-", ErrPDF)
	}
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return PDF{}, fmt.Errorf("%w: %v", ErrPDF, err)
	}
	out.Pages = r.NumPage()
	var sb strings.Builder
	chars := 0
	for i := 1; i <= out.Pages; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		text := pageText(glyphs(p))
		out.PagesRead++
		if strings.TrimSpace(text) == "" {
			out.EmptyPages++
			continue
		}
		fmt.Fprintf(&sb, "--- page %d ---\n%s\n", i, text)
		chars += utf8.RuneCountInString(text)
		if maxChars > 0 && chars >= maxChars {
			break
		}
	}
	out.Text = sb.String()
	return out, nil
}

// pageText lays out one page's glyphs as lines of words.
func pageText(gs []glyph) string {
	type line struct {
		y     float64
		glyph []glyph
	}
	// Glyphs in drawing order, grouped into lines: a glyph joins the
	// current line while its baseline stays within half a font size.
	var lines []line
	for _, g := range gs {
		if n := len(lines); n > 0 && math.Abs(lines[n-1].y-g.y) <= g.size*0.5 {
			lines[n-1].glyph = append(lines[n-1].glyph, g)
			continue
		}
		lines = append(lines, line{y: g.y, glyph: []glyph{g}})
	}
	var b strings.Builder
	for _, l := range lines {
		g := l.glyph
		// Within a line, left to right: some producers draw a line's
		// pieces out of order (a table's cells, a word set in bold later).
		sort.SliceStable(g, func(i, j int) bool { return g[i].x < g[j].x-0.01 })
		var lb strings.Builder
		end := math.Inf(-1)
		for _, t := range g {
			if t.x-end > t.size/6 && lb.Len() > 0 {
				lb.WriteByte(' ')
			}
			lb.WriteString(t.s)
			end = math.Max(end, t.x+t.w)
		}
		s := strings.Join(strings.Fields(ligatures.Replace(lb.String())), " ")
		if s != "" {
			b.WriteString(s + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// ligatures spells out the ligature glyphs TeX and word processors set
// ("speciﬁcation"), so that the text can be searched and quoted.
var ligatures = strings.NewReplacer("\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl", "\ufb03", "ffi", "\ufb04", "ffl", "\ufb05", "st", "\ufb06", "st")

// glyph is one character a page draws: where (in points, on the page),
// its advance width and its font size.
type glyph struct {
	s       string
	x, y, w float64
	size    float64
}

// font is what the text operators need of one font, read once per page:
// the extractor's own Font reads its Widths array from the file again for
// every glyph, which made a 17-page TeX document take 2.5 s; read once,
// it takes milliseconds (the figures are in media/pdf_test.go).
type font struct {
	enc     pdf.TextEncoding
	widths  map[int]float64 // code → width in thousandths of the font size
	missing float64         // width of a code not in widths
	twoByte bool            // a composite (Type0) font: two bytes a code
}

func readFont(f pdf.Font) *font {
	fo := &font{enc: f.Encoder(), widths: map[int]float64{}, missing: 500}
	if fo.enc == nil {
		fo.enc = nopEncoding{}
	}
	if f.V.Key("Subtype").Name() == "Type0" {
		fo.twoByte = true
		d := f.V.Key("DescendantFonts").Index(0)
		if dw := d.Key("DW"); !dw.IsNull() {
			fo.missing = dw.Float64()
		} else {
			fo.missing = 1000
		}
		// W: [c [w1 w2 …] c1 c2 w …] (PDF 32000-1, 9.7.4.3).
		w := d.Key("W")
		for i := 0; i < w.Len(); {
			c := int(w.Index(i).Int64())
			if i+1 < w.Len() && w.Index(i+1).Kind() == pdf.Array {
				a := w.Index(i + 1)
				for j := 0; j < a.Len() && j < 65536; j++ {
					fo.widths[c+j] = a.Index(j).Float64()
				}
				i += 2
				continue
			}
			if i+2 >= w.Len() {
				break
			}
			last, wd := int(w.Index(i+1).Int64()), w.Index(i+2).Float64()
			for k := c; k <= last && k-c < 65536; k++ {
				fo.widths[k] = wd
			}
			i += 3
		}
		return fo
	}
	first := f.FirstChar()
	ws := f.Widths()
	for i, wd := range ws {
		fo.widths[first+i] = wd
	}
	if len(ws) == 0 {
		// The 14 standard fonts need no Widths; Helvetica's average.
		fo.missing = 556
	}
	return fo
}

type nopEncoding struct{}

func (nopEncoding) Decode(raw string) string { return raw }

// matrix is a PDF transformation matrix [a b c d e f] as 3×3.
type matrix [3][3]float64

var ident = matrix{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

func (x matrix) mul(y matrix) matrix {
	var z matrix
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				z[i][j] += x[i][k] * y[k][j]
			}
		}
	}
	return z
}

func translate(tx, ty float64) matrix { return matrix{{1, 0, 0}, {0, 1, 0}, {tx, ty, 1}} }

// glyphs runs a page's content stream and returns the glyphs it draws.
// It follows the text operators of PDF 32000-1, 9.4 (adapted from the
// extractor's Page.Content, BSD-3-Clause, The Go Authors), with each
// font read once and word spacing applied; invisible text (render mode
// 3: the text layer of an OCRed scan) is kept, since it is the text.
func glyphs(p pdf.Page) []glyph {
	contents := p.V.Key("Contents")
	if contents.IsNull() {
		return nil
	}
	type gstate struct {
		Tc, Tw, Th, Tl, Tfs, Trise float64
		Tf                         *font
		Tm, Tlm, CTM               matrix
	}
	g := gstate{Th: 1, CTM: ident, Tm: ident, Tlm: ident}
	fonts := map[string]*font{}
	var stack []gstate
	var out []glyph
	show := func(s string) {
		f := g.Tf
		if f == nil {
			return
		}
		step := 1
		if f.twoByte {
			step = 2
		}
		for i := 0; i+step <= len(s); i += step {
			raw := s[i : i+step]
			code := int(raw[0])
			if step == 2 {
				code = code<<8 | int(raw[1])
			}
			w0, ok := f.widths[code]
			if !ok {
				w0 = f.missing
			}
			trm := matrix{{g.Tfs * g.Th, 0, 0}, {0, g.Tfs, 0}, {0, g.Trise, 1}}.mul(g.Tm).mul(g.CTM)
			size := math.Hypot(trm[1][0], trm[1][1])
			if size <= 0 {
				size = 10
			}
			text := strings.Map(func(r rune) rune {
				if unicode.IsControl(r) || r == utf8.RuneError {
					return -1
				}
				return r
			}, f.enc.Decode(raw))
			if text != "" {
				out = append(out, glyph{s: text, x: trm[2][0], y: trm[2][1], w: w0 / 1000 * trm[0][0], size: size})
			}
			tx := w0/1000*g.Tfs + g.Tc
			if raw == " " && step == 1 {
				tx += g.Tw
			}
			g.Tm = translate(tx*g.Th, 0).mul(g.Tm)
		}
	}
	num := func(args []pdf.Value, i int) float64 {
		if i < len(args) {
			return args[i].Float64()
		}
		return 0
	}
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		setMatrix := func() matrix {
			var m matrix
			for i := range 6 {
				m[i/2][i%2] = num(args, i)
			}
			m[2][2] = 1
			return m
		}
		switch op {
		case "cm":
			g.CTM = setMatrix().mul(g.CTM)
		case "q":
			stack = append(stack, g)
		case "Q":
			if n := len(stack); n > 0 {
				g, stack = stack[n-1], stack[:n-1]
			}
		case "BT":
			g.Tm, g.Tlm = ident, ident
		case "Tc":
			g.Tc = num(args, 0)
		case "Tw":
			g.Tw = num(args, 0)
		case "Tz":
			g.Th = num(args, 0) / 100
		case "TL":
			g.Tl = num(args, 0)
		case "Ts":
			g.Trise = num(args, 0)
		case "Tf":
			if len(args) < 2 {
				return
			}
			name := args[0].Name()
			f, ok := fonts[name]
			if !ok {
				f = readFont(p.Font(name))
				fonts[name] = f
			}
			g.Tf, g.Tfs = f, args[1].Float64()
		case "TD":
			g.Tl = -num(args, 1)
			fallthrough
		case "Td":
			g.Tlm = translate(num(args, 0), num(args, 1)).mul(g.Tlm)
			g.Tm = g.Tlm
		case "Tm":
			g.Tm = setMatrix()
			g.Tlm = g.Tm
		case "T*":
			g.Tlm = translate(0, -g.Tl).mul(g.Tlm)
			g.Tm = g.Tlm
		case "\"":
			if len(args) == 3 {
				g.Tw, g.Tc = num(args, 0), num(args, 1)
				args = args[2:]
			}
			fallthrough
		case "'":
			g.Tlm = translate(0, -g.Tl).mul(g.Tlm)
			g.Tm = g.Tlm
			fallthrough
		case "Tj":
			if len(args) > 0 {
				show(args[len(args)-1].RawString())
			}
		case "TJ":
			if len(args) == 0 {
				return
			}
			v := args[0]
			for i := range v.Len() {
				x := v.Index(i)
				if x.Kind() == pdf.String {
					show(x.RawString())
				} else {
					g.Tm = translate(-x.Float64()/1000*g.Tfs*g.Th, 0).mul(g.Tm)
				}
			}
		}
	})
	return out
}
