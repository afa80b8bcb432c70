// Package mediatest makes the attachment files tests need — PDFs written
// as producers write them — so that every test builds them one way.
package mediatest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// PDF writes a PDF the way producers do: a catalog, a page tree, Courier
// with its widths, one Flate-compressed content stream per page, an xref
// table and a trailer. Each page is its content stream ("BT /F1 10 Tf 72
// 770 Td (Text) Tj ET"); "" is a page without text, as a scan has.
func PDF(pages ...string) []byte {
	objs := []string{"", ""} // 1: catalog, 2: pages, filled below
	streams := map[int][]byte{}
	objs = append(objs, "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 126 /Widths ["+strings.TrimSpace(strings.Repeat("600 ", 95))+"] >>")
	const font = 3
	var kids []string
	for _, c := range pages {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write([]byte(c))
		w.Close()
		objs = append(objs, fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>", z.Len()))
		streams[len(objs)] = z.Bytes()
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", font, len(objs)))
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)))
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
