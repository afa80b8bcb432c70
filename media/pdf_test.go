package media

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/media/mediatest"
)

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
	b := mediatest.PDF(texPage, "", "BT /F1 10 Tf 72 770 Td (Page three.) Tj ET")
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
	got, err := PDFText(mediatest.PDF(pages...), 40)
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
		"truncated": mediatest.PDF(texPage)[:300],
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
		_, err := PDFText(mediatest.PDF(c), 0)
		if err != nil && !errors.Is(err, ErrPDF) {
			t.Errorf("%q: got %v, want text or ErrPDF", c, err)
		}
	}
}
