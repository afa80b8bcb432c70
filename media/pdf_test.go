package media

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// buildPDF writes a PDF the way producers do: one content stream per page,
// Flate-compressed, a cross-reference table, Courier (600 units a glyph,
// WinAnsiEncoding) with its Widths. Each page is its content stream; ""
// is a page without text (a scan).
func buildPDF(pages ...string) []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	add("") // 1: catalog, filled below
	add("") // 2: pages
	widths := strings.TrimSpace(strings.Repeat("600 ", 95))
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 126 /Widths [" + widths + "] >>")
	var kids []string
	var streams = map[int][]byte{}
	for _, c := range pages {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write([]byte(c))
		w.Close()
		s := add(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>", z.Len()))
		streams[s] = z.Bytes()
		p := add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", font, s))
		kids = append(kids, fmt.Sprintf("%d 0 R", p))
	}
	objs[0] = "<< /Type /Catalog /Pages 2 0 R >>"
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\n", i+1, o)
		if st, ok := streams[i+1]; ok {
			b.WriteString("stream\n")
			b.Write(st)
			b.WriteString("\nendstream\n")
		}
		b.WriteString("endobj\n")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// A page set the way TeX sets it: words placed by TJ offsets, no space
// characters; a line set with spaces; a second column drawn first; kerning
// inside a word and a word gap of a quarter em.
const texPage = `BT /F1 12 Tf 72 770 Td
[(Quarterly)-500(report)-500(2026)] TJ
0 -20 Td
(Revenue grew by 12 percent.) Tj
ET
BT /F1 12 Tf 300 700 Td (right) Tj ET
BT /F1 12 Tf 72 700 Td (left) Tj ET
BT /F1 12 Tf 72 680 Td [(Kern)50(ing)-250(stays)] TJ ET
`

func TestPDFText_Words(t *testing.T) {
	b := buildPDF(texPage, "", "BT /F1 10 Tf 72 770 Td (Page three.) Tj ET")
	got, err := PDFText(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "--- page 1 ---\nQuarterly report 2026\nRevenue grew by 12 percent.\nleft right\nKerning stays\n--- page 3 ---\nPage three.\n"
	if got.Text != want {
		t.Errorf("got:\n%s\nwant:\n%s", got.Text, want)
	}
	if got.Pages != 3 || got.PagesRead != 3 || got.EmptyPages != 1 {
		t.Errorf("got pages %d, read %d, empty %d; want 3, 3, 1", got.Pages, got.PagesRead, got.EmptyPages)
	}
}

func TestPDFText_StopsAtMaxChars(t *testing.T) {
	var pages []string
	for i := range 10 {
		pages = append(pages, fmt.Sprintf("BT /F1 12 Tf 72 770 Td (Page %d has some words on it.) Tj ET", i+1))
	}
	got, err := PDFText(buildPDF(pages...), 40)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pages != 10 || got.PagesRead != 2 {
		t.Errorf("got pages %d, read %d; want 10, 2 (40 characters fill two pages)", got.Pages, got.PagesRead)
	}
}

func TestPDFText_Refused(t *testing.T) {
	for name, b := range map[string][]byte{
		"png":       {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'},
		"truncated": buildPDF(texPage)[:300],
		"garbage":   []byte("%PDF-1.7\n" + strings.Repeat("(((((", 1000)),
	} {
		if _, err := PDFText(b, 0); !errors.Is(err, ErrPDF) {
			t.Errorf("%s: got %v, want ErrPDF", name, err)
		}
	}
}

// A malformed content stream must not take the process down (the
// extractor panics on some).
func TestPDFText_BadContent(t *testing.T) {
	for _, c := range []string{"BT /F1 Tf (x) Tj ET", "BT Tm TJ ET", "Q Q Q BT /F9 12 Tf (x) Tj ET", "BT /F1 12 Tf [(a) /Name (b)] TJ ET"} {
		_, err := PDFText(buildPDF(c), 0)
		if err != nil && !errors.Is(err, ErrPDF) {
			t.Errorf("%q: got %v, want text or ErrPDF", c, err)
		}
	}
}
