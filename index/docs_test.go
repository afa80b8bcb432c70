package index

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/vaultd/vaultd/note"
)

// The text fields of a note's documents count their terms from the note's
// one analysis (noteTokens.run). They must give bleve exactly what its own
// TextField would have given for the same tokens (analysis.TokenFrequency):
// the same length, terms, counts and locations in the same order. The
// reference below takes each field's tokens the plain way, one stream per
// field, and counts them with bleve's function.

// refStreams returns the tokens of each text field of d's documents, in
// the order bleveDocs adds the fields.
func refStreams(d *Document) []analysis.TokenStream {
	nt := &noteTokens{d: d}
	nt.runHeadings()
	body := queryAnalyzer.Analyze([]byte(d.Body))
	out := []analysis.TokenStream{queryAnalyzer.Analyze([]byte(d.Title))}
	for _, a := range searchAliases(d) {
		out = append(out, queryAnalyzer.Analyze([]byte(a)))
	}
	out = append(out, nt.heads...)
	out = append(out, body)
	starts := d.sectionStarts()
	secs := make([]analysis.TokenStream, len(starts))
	for _, t := range body {
		if isPartToken(t) {
			continue
		}
		k := max(sort.Search(len(starts), func(i int) bool { return starts[i] > t.Start })-1, 0)
		if t.Start >= sectionEnd(d, starts, k) {
			continue
		}
		secs[k] = append(secs[k], t)
	}
	for k := range starts {
		if k == 0 && !d.hasSection0() {
			continue
		}
		out = append(out, secs[k])
		if k > 0 {
			out = append(out, nt.words[k-1])
			if len(nt.parts[k-1]) > 0 {
				out = append(out, nt.parts[k-1])
			}
		}
		if anc := d.ancestors(k - 1); len(anc) > 0 {
			var ctx analysis.TokenStream
			for _, j := range anc {
				ctx = append(ctx, nt.words[j]...)
			}
			out = append(out, ctx)
		}
	}
	return out
}

// checkNoteFields compares the note's fields with the reference.
func checkNoteFields(t *testing.T, p string, src []byte) {
	t.Helper()
	d := fromNote(p, src, time.Unix(0, 0), note.NewResolver(nil), note.Parse(src))
	var fields []*noteField
	for _, doc := range d.bleveDocs() {
		for _, f := range doc.Fields {
			if nf, ok := f.(*noteField); ok {
				fields = append(fields, nf)
			}
		}
	}
	if len(fields) > 0 {
		fields[len(fields)-1].Analyze() // any field runs the note's analysis
	}
	want := refStreams(d)
	if len(fields) != len(want) {
		t.Fatalf("%s: %d text fields, the reference has %d", p, len(fields), len(want))
	}
	for i, f := range fields {
		if err := sameFreqs(f, want[i]); err != "" {
			t.Fatalf("%s: field %d (%s, kind %d, #%d): %s", p, i, f.name, f.kind, f.i, err)
		}
	}
	// zapx merges the fields of one name in a document (a heading each,
	// an alias each) into the first one's frequencies (MergeAll), which
	// appends to its locations: that must not overwrite another term's.
	for _, name := range []string{fHeadings, fAliases} {
		var got, ref bindex.TokenFrequencies
		for i, f := range fields {
			if f.name != name {
				continue
			}
			w := analysis.TokenFrequency(want[i], f.pos, f.opts)
			if got == nil {
				got, ref = f.AnalyzedTokenFrequencies(), w
				continue
			}
			got.MergeAll(name, f.AnalyzedTokenFrequencies())
			ref.MergeAll(name, w)
		}
		if err := sameMerged(got, ref); err != "" {
			t.Fatalf("%s: the %s fields merged: %s", p, name, err)
		}
	}
}

// sameMerged says how two merged frequencies differ ("" if not).
func sameMerged(got, want bindex.TokenFrequencies) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d terms, want %d", len(got), len(want))
	}
	for term, w := range want {
		g := got[term]
		if g == nil || g.Frequency() != w.Frequency() || len(g.Locations) != len(w.Locations) {
			return fmt.Sprintf("term %q differs", term)
		}
		for j, wl := range w.Locations {
			gl := g.Locations[j]
			if gl.Field != wl.Field || gl.Start != wl.Start || gl.End != wl.End || gl.Position != wl.Position || !slices.Equal(gl.ArrayPositions, wl.ArrayPositions) {
				return fmt.Sprintf("term %q location %d: %+v, want %+v", term, j, *gl, *wl)
			}
		}
	}
	return ""
}

// sameFreqs says how f's analysis differs from bleve's of ts ("" if not).
func sameFreqs(f *noteField, ts analysis.TokenStream) string {
	want := analysis.TokenFrequency(ts, f.pos, f.opts)
	if f.AnalyzedLength() != len(ts) {
		return fmt.Sprintf("length %d, want %d", f.AnalyzedLength(), len(ts))
	}
	got := f.AnalyzedTokenFrequencies()
	if len(got) != len(want) {
		return fmt.Sprintf("%d terms, want %d", len(got), len(want))
	}
	for term, w := range want {
		g, ok := got[term]
		switch {
		case !ok:
			return fmt.Sprintf("term %q missing", term)
		case !bytes.Equal(g.Term, w.Term):
			return fmt.Sprintf("term %q holds %q", term, g.Term)
		case g.Frequency() != w.Frequency():
			return fmt.Sprintf("term %q: frequency %d, want %d", term, g.Frequency(), w.Frequency())
		case len(g.Locations) != len(w.Locations):
			return fmt.Sprintf("term %q: %d locations, want %d", term, len(g.Locations), len(w.Locations))
		}
		for j, wl := range w.Locations {
			gl := g.Locations[j]
			if gl.Start != wl.Start || gl.End != wl.End || gl.Position != wl.Position || gl.Field != wl.Field || !slices.Equal(gl.ArrayPositions, wl.ArrayPositions) {
				return fmt.Sprintf("term %q location %d: %+v, want %+v", term, j, *gl, *wl)
			}
		}
	}
	return ""
}

func TestNoteFields_AsBleve(t *testing.T) {
	notes := map[string]string{
		"plain.md": "Kein Titel, keine Überschrift: nur Text über Krankenhäuser und Häuser.",
		"empty.md": "",
		"Projekte/Hausbau.md": "---\ntitle: Hausbau Lindenweg\naliases: [Haus, Lindenweg 7]\ntags: [bau]\n---\n" +
			"Vorab: Termin am 2026-11-16, dann 16.11.2026 und am 3. März 2025.\n\n" +
			"# Hausbau\n\nDie Baufinanzierung steht. Die Baufinanzierung!\n\n" +
			"## Ziele\n\nZiele: Einzug im Mai. Einzug, Einzug.\n\n" +
			"### Unterziel\n\nText mit Würde und Weg.\n\n" +
			"## Ziele\n\nNoch einmal Ziele, derselbe Name.\n\n" +
			"## Leer\n\n" +
			"Setext-Überschrift\n------------------\n\nDarunter Krankenversicherungsbeiträge.\n",
		"only-headings.md": "# Eins\n## Zwei\n### Drei\n# Vier\n",
		"links.md":         "Siehe [[Hausbau]] und [[Ziele#Einzug|die Ziele]] und 2026-01-02T10:00.\n\n# Oben\n\nNach 2025-12-31 kommt 1.1.2026.\n",
	}
	for p, c := range notes {
		checkNoteFields(t, p, []byte(c))
	}
	// Real notes: the example vault, and the Obsidian help vaults where
	// they are at hand.
	dirs := []string{filepath.Join("..", "example-vault")}
	for _, c := range []string{os.Getenv("VAULTD_CORPORA"), filepath.Join("..", "..", "shared", "corpora")} {
		if c != "" {
			dirs = append(dirs, filepath.Join(c, "obsidian-help-de"), filepath.Join(c, "obsidian-help-en"))
		}
	}
	n := 0
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() || !strings.HasSuffix(p, ".md") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, p)
			checkNoteFields(t, filepath.ToSlash(rel), src)
			n++
			return nil
		})
	}
	if n < 20 {
		t.Fatalf("checked %d real notes; the example vault alone has more", n)
	}
}

// FuzzNoteFields checks the counting on any text.
func FuzzNoteFields(f *testing.F) {
	f.Add("# A\n\ntext 2026-11-16\n## B\nmore text Häuser")
	f.Add("---\ntitle: T\naliases: [x]\n---\nbefore\n# H1\n\n## H2 Krankenhaus\nbody\nsetext\n---\n")
	f.Add("# Eins\n## Zwei\n### Drei\n# Vier\n")
	f.Fuzz(func(t *testing.T, src string) {
		checkNoteFields(t, "f/note.md", []byte(src))
	})
}
