package note

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite golden files (testdata/**) from the current output")

// Golden section-parser cases live in testdata/sections/*.txtar:
//
//	<comment: what the case is about; a line "input: bom crlf noeol" transforms the note>
//	-- note.md --     the note; "␍" stands for a CR byte (mixed and old-Mac line endings)
//	-- queries --     optional: one heading query per line
//	-- dump --        generated: what Parse found, offsets shown as the text there
//	-- resolve --     generated: what Section answers for each query
//
// Run `go test ./vault -run TestSections_Golden -update` to regenerate the
// generated parts, then read the diff.
func TestSections_Golden(t *testing.T) {
	files, err := filepath.Glob("testdata/sections/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden cases in testdata/sections")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src, ok := goldenNote(t, ar)
			if !ok {
				t.Fatalf("%s: no note.md section", file)
			}
			d := Parse(src)
			checkDoc(t, src, d)
			checkRoundTrip(t, src, d)
			var queries []string
			if q, ok := arSection(ar, "queries"); ok {
				for _, l := range strings.Split(strings.TrimRight(string(q), "\n"), "\n") {
					if l != "" {
						queries = append(queries, l)
					}
				}
			}
			got := map[string][]byte{"dump": dumpDoc(d)}
			if len(queries) > 0 {
				got["resolve"] = dumpResolve(d, queries)
			}
			if *update {
				writeSeeds(t, name, src)
				setSection(ar, "dump", got["dump"])
				if r, ok := got["resolve"]; ok {
					setSection(ar, "resolve", r)
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, part := range []string{"dump", "resolve"} {
				g, ok := got[part]
				if !ok {
					continue
				}
				want, _ := arSection(ar, part)
				if !bytes.Equal(g, want) {
					t.Errorf("%s: %s differs (run with -update and review the diff)\ninput: %q\n--- got\n%s--- want\n%s", file, part, src, g, want)
				}
			}
		})
	}
}

func arSection(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

func setSection(ar *txtar.Archive, name string, data []byte) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}

// goldenNote builds the note's exact bytes from the archive: "␍" becomes a
// CR, and the comment's "input:" line may ask for a BOM, CRLF line endings
// or no final line ending (txtar itself always ends a file with "\n").
func goldenNote(t *testing.T, ar *txtar.Archive) ([]byte, bool) {
	t.Helper()
	src, ok := arSection(ar, "note.md")
	if !ok {
		return nil, false
	}
	src = bytes.ReplaceAll(src, []byte("␍"), []byte("\r"))
	for _, l := range strings.Split(string(ar.Comment), "\n") {
		opts, ok := strings.CutPrefix(l, "input:")
		if !ok {
			continue
		}
		for _, o := range strings.Fields(opts) {
			switch o {
			case "noeol":
				src = bytes.TrimSuffix(src, []byte("\n"))
			case "crlf":
				src = bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))
			case "bom":
				src = append([]byte("\xef\xbb\xbf"), src...)
			default:
				t.Fatalf("unknown input option %q", o)
			}
		}
	}
	return src, true
}

// at shows the text of the line that starts at offset i (at most 40 bytes,
// quoted), so that a golden reads "Start 57 \"## Ziele\\n\"" rather than a
// bare number.
func showAt(src []byte, i int) string {
	if i >= len(src) {
		return fmt.Sprintf("%4d EOF", i)
	}
	end := lineEnd(src, i)
	if j := bytes.IndexByte(src[i:end], '\r'); j >= 0 && i+j+1 < end && src[i+j+1] != '\n' {
		end = i + j + 1 // a bare CR ends the line
	}
	if end-i > 40 {
		end = i + 40
		for end > i && end < len(src) && src[end]&0xC0 == 0x80 {
			end--
		}
		return fmt.Sprintf("%4d %q…", i, src[i:end])
	}
	return fmt.Sprintf("%4d %q", i, src[i:end])
}

func dumpDoc(d *Doc) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "title: %q\n", d.Title)
	fmt.Fprintf(&b, "aliases: %q\n", d.Aliases)
	fmt.Fprintf(&b, "tags: %q\n", d.Tags)
	fmt.Fprintf(&b, "bom: %v  crlf: %v\n", d.BOM, d.CRLF)
	if d.HasFrontmatter {
		fmt.Fprintf(&b, "frontmatter: %d..%d yaml %q\n", d.FrontmatterStart, d.BodyStart, d.FrontmatterRaw)
		fmt.Fprintf(&b, "  body starts at %s\n", showAt(d.Src, d.BodyStart))
	} else {
		fmt.Fprintf(&b, "frontmatter: none\n")
	}
	if d.FrontmatterErr != nil {
		fmt.Fprintf(&b, "frontmatter error: %s\n", d.FrontmatterErr)
	}
	fmt.Fprintf(&b, "headings: %d\n", len(d.Headings))
	paths := d.HeadingPaths()
	for i, h := range d.Headings {
		fmt.Fprintf(&b, "H%d %q line %d\n", h.Level, h.Text, h.Line)
		fmt.Fprintf(&b, "  path     %q\n", h.Path)
		fmt.Fprintf(&b, "  address  %q\n", paths[i])
		fmt.Fprintf(&b, "  Start     %s\n", showAt(d.Src, h.Start))
		fmt.Fprintf(&b, "  BodyStart %s\n", showAt(d.Src, h.BodyStart))
		fmt.Fprintf(&b, "  OwnEnd    %s\n", showAt(d.Src, h.OwnEnd))
		fmt.Fprintf(&b, "  End       %s\n", showAt(d.Src, h.End))
	}
	fmt.Fprintf(&b, "links: %d\n", len(d.Links))
	for _, l := range d.Links {
		kind := "wiki"
		if l.Markdown {
			kind = "md"
		}
		if l.Embed {
			kind += " embed"
		}
		fmt.Fprintf(&b, "  line %d %s target %q fragment %q label %q  %q\n", l.Line, kind, l.Target, l.Fragment, l.Label, d.Src[l.Start:l.End])
	}
	return b.Bytes()
}

func dumpResolve(d *Doc, queries []string) []byte {
	var b bytes.Buffer
	for _, q := range queries {
		fmt.Fprintf(&b, "%q\n", q)
		h, err := d.Section(q)
		if err != nil {
			kind := "?"
			for _, k := range []error{ErrNotFound, ErrAmbiguous, ErrInvalid} {
				if errors.Is(err, k) {
					kind = k.Error()
				}
			}
			fmt.Fprintf(&b, "  error (%s): %s\n", kind, err)
			if e, ok := AsError(err); ok && len(e.Alternatives) > 0 {
				fmt.Fprintf(&b, "  %s: %q\n", e.AltKind, e.Alternatives)
			}
			continue
		}
		fmt.Fprintf(&b, "  → H%d %q line %d, section %s\n", h.Level, h.PathString(), h.Line, showAt(d.Src, h.Start))
	}
	return b.Bytes()
}

// TestSections_AlternativesResolve checks the agent contract on every
// golden note: each address that HeadingPaths (and thus every error)
// offers names exactly its heading, and no error offers the caller's own
// query back as a fix.
func TestSections_AlternativesResolve(t *testing.T) {
	files, _ := filepath.Glob("testdata/sections/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src, ok := goldenNote(t, ar)
		if !ok {
			continue
		}
		d := Parse(src)
		checkAddresses(t, src, d)
		if q, ok := arSection(ar, "queries"); ok {
			for _, l := range strings.Split(string(q), "\n") {
				if l == "" {
					continue
				}
				_, err := d.Section(l)
				if e, ok := AsError(err); ok {
					for _, alt := range e.Alternatives {
						if alt == strings.TrimSpace(l) {
							t.Errorf("%s: Section(%q) offers the query itself as an alternative: %v", file, l, e.Alternatives)
						}
					}
					checkAgentText(t, err.Error())
				}
			}
		}
	}
}

// checkAgentText fails on text an agent must never see (AGENT-CONTRACT 10).
func checkAgentText(t testing.TB, s string) {
	t.Helper()
	for _, bad := range []string{"%!", "%s", "%q", "{{", "<nil>", `""`, "map[", "interface {}", "[]uint8", "*vault.", "*note."} {
		if strings.Contains(s, bad) {
			t.Errorf("agent-facing text contains %q: %s", bad, s)
		}
	}
}

func TestSections_EmptyQuery(t *testing.T) {
	d := Parse([]byte("# A\n## B\n"))
	for _, q := range []string{"", "  ", "\t"} {
		_, err := d.Section(q)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Section(%q): got %v, want ErrInvalid", q, err)
		}
		e, _ := AsError(err)
		if e == nil || len(e.Alternatives) != 2 {
			t.Errorf("Section(%q): got alternatives %v, want the note's two headings", q, e)
		}
	}
	for _, q := range []string{"#", "##", ">", "# >"} {
		if _, err := d.Section(q); !errors.Is(err, ErrInvalid) {
			t.Errorf("Section(%q): got %v, want ErrInvalid", q, err)
		}
	}
}

func TestSections_NoHeadings(t *testing.T) {
	d := Parse([]byte("just text\n"))
	_, err := d.Section("Ziele")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "the note has no headings") {
		t.Errorf("got %v, want ErrNotFound saying the note has no headings", err)
	}
}

// TestSections_ReplaceKeepsOtherBytes is the non-fuzz version of the
// FuzzSections property on the golden notes: replacing one section's body
// changes those bytes and no others, and every other section is still
// found, with the same text.
func TestSections_ReplaceKeepsOtherBytes(t *testing.T) {
	files, _ := filepath.Glob("testdata/sections/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src, ok := goldenNote(t, ar)
		if !ok {
			continue
		}
		checkReplaceEach(t, src, Parse(src), []byte("replaced body\n"))
	}
}

// TestSections_Chunks checks that Chunks splits at every heading and joins
// back to the exact bytes.
func TestSections_Chunks(t *testing.T) {
	src := []byte("\xef\xbb\xbf---\r\ntags: [a]\r\n---\r\npre\r\n# A\r\nx\r\n## B\r\ny\r\n# C")
	d := Parse(src)
	ch := d.Chunks()
	if len(ch) != 4 {
		t.Fatalf("input %q: got %d chunks, want 4: %q", src, len(ch), ch)
	}
	if got := bytes.Join(ch, nil); !bytes.Equal(got, src) {
		t.Errorf("input %q: joined chunks %q", src, got)
	}
	if !bytes.HasPrefix(ch[1], []byte("# A")) || !bytes.HasPrefix(ch[2], []byte("## B")) || string(ch[3]) != "# C" {
		t.Errorf("input %q: got chunks %q", src, ch)
	}
}

// writeSeeds stores a golden note as a seed of FuzzParse and FuzzSections
// (testdata/fuzz/…/golden-NAME), so that plain `go test` runs the fuzz
// properties on every golden note and fuzzing starts from them.
func writeSeeds(t *testing.T, name string, src []byte) {
	t.Helper()
	seeds := map[string]string{
		"FuzzParse":    fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", src),
		"FuzzSections": fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nuint(%d)\n[]byte(%q)\n", src, len(name), "new text\n\n```\n# fenced\n```\n"),
	}
	for target, data := range seeds {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "golden-"+name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSections_LongHeadings: a paragraph above a line of dashes is a
// heading; it is named by its first words (BriefName, BriefPath), and the
// names given, with or without a trailing ellipsis, resolve to it.
func TestSections_LongHeadings(t *testing.T) {
	long := "Der Betriebsrat besteht in Betrieben mit in der Regel 5 bis 20 wahlberechtigten Arbeitnehmern aus einer Person, 21 bis 50 wahlberechtigten Arbeitnehmern aus 3 Mitgliedern."
	same := "In Betrieben mit mehr als 9.000 Arbeitnehmern erhöht sich die Zahl der Mitglieder des Betriebsrats für je angefangene weitere 3.000 Arbeitnehmer"
	twin := same + " um 2 Mitglieder."
	src := "# Gesetz\n## § 9 Zahl\n" + long + "\n-----\n\nFußnote\n\n" + twin + "\n---\n\nx\n\n" + same + " um 3 Mitglieder.\n---\n\nDer Betriebsrat besteht in Betrieben\n---\n\n## Kurz\n"
	d := Parse([]byte(src))
	idx := map[string]int{}
	for i, h := range d.Headings {
		idx[h.Text] = i
	}
	li, ti := idx[long], idx[twin]
	if got, want := d.BriefName(li, long), "Der Betriebsrat besteht in Betrieben mit"; got != want {
		t.Errorf("BriefName(long) = %q, want %q", got, want)
	}
	// Its first hundred characters begin the other one as well.
	if got := d.BriefName(ti, twin); got != twin {
		t.Errorf("BriefName(twin) = %q, want the whole text", got)
	}
	if got := d.BriefName(idx["Kurz"], "Kurz"); got != "Kurz" {
		t.Errorf("BriefName(Kurz) = %q", got)
	}
	if got, want := d.BriefPath(li), "Gesetz > Der Betriebsrat besteht in Betrieben mit …"; got != want {
		t.Errorf("BriefPath(long) = %q, want %q", got, want)
	}
	if got := d.BriefPath(ti); got != d.Headings[ti].PathString() {
		t.Errorf("BriefPath(twin) = %q, want the full path", got)
	}
	for _, q := range []string{
		"Der Betriebsrat besteht in Betrieben mit",
		"Der Betriebsrat besteht in Betrieben mit …",
		"Der Betriebsrat besteht in Betrieben mit...",
		"Gesetz > Der Betriebsrat besteht in Betrieben mit …",
	} {
		h, err := d.Section(q)
		if err != nil || h.Line != d.Headings[li].Line {
			t.Errorf("Section(%q) = line %d, %v; want line %d", q, h.Line, err, d.Headings[li].Line)
		}
	}
	// An ellipsis alone names nothing.
	if _, err := d.Section("…"); err == nil {
		t.Error(`Section("…") found a heading`)
	}
}
