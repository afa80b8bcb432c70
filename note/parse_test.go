package note

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParse_SplitFrontmatter(t *testing.T) {
	for _, c := range []struct {
		in         string
		yaml       string
		start, end int
		ok         bool
	}{
		{"---\na: 1\n---\nbody", "a: 1\n", 0, 13, true},
		{"---\r\na: 1\r\n---\r\nbody", "a: 1\r\n", 0, 16, true},
		{"\xef\xbb\xbf---\na: 1\n---\n", "a: 1\n", 3, 16, true},
		{"---  \na: 1\n---\t\n", "a: 1\n", 0, 16, true}, // trailing blanks on the fences
		{"---\n---\n", "", 0, 8, true},
		{"---\n---", "", 0, 7, true},
		{"---\na: 1\n---", "a: 1\n", 0, 12, true},
		{"---\na: 1\n", "", 0, 0, false},           // unclosed
		{"---\na: 1\n...\n# H\n", "", 0, 0, false}, // "..." does not close (Obsidian)
		{"---", "", 0, 0, false},
		{"", "", 0, 0, false},
		{"\n---\na: 1\n---\n", "", 0, 0, false}, // not at the very start
		{" ---\na: 1\n---\n", "", 0, 0, false},
		{"----\na: 1\n----\n", "", 0, 0, false},
		{"---\na: 1\n ---\n---\n", "a: 1\n ---\n", 0, 18, true}, // an indented --- does not close
		{"--- x\na: 1\n---\n", "", 0, 0, false},
	} {
		y, start, end, ok := SplitFrontmatter([]byte(c.in))
		if string(y) != c.yaml || start != c.start || end != c.end || ok != c.ok {
			t.Errorf("SplitFrontmatter(%q): got %q, %d, %d, %v; want %q, %d, %d, %v", c.in, y, start, end, ok, c.yaml, c.start, c.end, c.ok)
		}
	}
}

// TestParse_FrontmatterNeverRewritten: Parse keeps the frontmatter bytes
// exactly, valid or not, and the body offsets are file offsets.
func TestParse_FrontmatterNeverRewritten(t *testing.T) {
	for _, src := range []string{
		"---\ntitle: x\n---\n# H\n",
		"---\ntitle: [broken\n---\n# H\n",
		"---\ntags: #a\n---\n# H\n",
		"\xef\xbb\xbf---\r\nx: 1\r\n---\r\n# H\r\n",
	} {
		d := Parse([]byte(src))
		if !d.HasFrontmatter || string(d.Src[:d.BodyStart]) != src[:strings.Index(src, "# H")] {
			t.Errorf("input %q: frontmatter %v ends at %d", src, d.HasFrontmatter, d.BodyStart)
		}
		if len(d.Headings) != 1 || d.Headings[0].Start != d.BodyStart {
			t.Errorf("input %q: got headings %+v, want one at %d", src, d.Headings, d.BodyStart)
		}
	}
}

func TestParse_FrontmatterErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"---\ntitle: [x\n---\n", "line 2"},
		{"\n", ""},
		{"---\na: 1\nb: [\n---\n", "line 3"},
		{"---\na: 1\na: 2\n---\n", `line 3: mapping key "a" already defined at line 2`},
		{"---\n- a\n- b\n---\n", "not a list of properties"},
		{"---\n\tx: 1\n---\n", "not valid YAML"},
	} {
		d := Parse([]byte(c.in))
		if c.want == "" {
			if d.FrontmatterErr != nil {
				t.Errorf("input %q: got %v, want no error", c.in, d.FrontmatterErr)
			}
			continue
		}
		if d.FrontmatterErr == nil {
			t.Errorf("input %q: got no error, want %q", c.in, c.want)
			continue
		}
		msg := d.FrontmatterErr.Error()
		if !strings.Contains(msg, c.want) || !errors.Is(d.FrontmatterErr, ErrInvalid) {
			t.Errorf("input %q: got %q, want it to say %q (ErrInvalid)", c.in, msg, c.want)
		}
		checkAgentText(t, msg)
	}
}

func TestParse_Tags(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"#a #b/c #a", []string{"a", "b/c"}},
		{"#Tag #tag #TAG", []string{"Tag"}},
		{"x#y C# #1984 #y1984 #/", []string{"y1984"}},
		{"(#p) **#b** *#i* [#l](x.md) a_#x", []string{"p", "b", "i"}},
		{"`#c`\n```\n#f\n```", nil},
		{"```\n#fenced\n```\n#after", []string{"after"}},
		{"https://example.com/#x www.example.com/?q=#y", nil},
		{"[[Note#Heading]] [[N|#l]] ![[img.png#x]]", nil},
		{"##\u06e0 ##x", nil},
		{"#über #日本 #🚀launch", []string{"über", "日本", "🚀launch"}},
		{"---\ntags: [a, '#b', 2024, {x: y}, [n]]\n---\n#a", []string{"a", "b"}},
		{"---\ntags:\n---\n", nil},
		{"---\ntag: solo\n---\n", []string{"solo"}},
		{"---\ntags: 'a, b'\n---\n", []string{"a", "b"}},
		{"---\ntags: \"#a #b\"\n---\n", []string{"a", "b"}},
	} {
		d := Parse([]byte(c.in))
		if !slices.Equal(d.Tags, c.want) {
			t.Errorf("input %q: got tags %q, want %q", c.in, d.Tags, c.want)
		}
	}
}

func TestParse_TitleAndAliases(t *testing.T) {
	for _, c := range []struct {
		in, title string
		aliases   []string
	}{
		{"---\ntitle: T\n---\n# H", "T", nil},
		{"---\ntitle: '  Spaced   Title '\n---\n", "Spaced Title", nil},
		{"---\ntitle:\n---\n# H", "H", nil},
		{"---\ntitle: [a]\n---\n# H", "H", nil},
		{"---\ntitle: 2024-01-02\n---\n", "2024-01-02", nil},
		{"---\ntitle: true\n---\n", "true", nil},
		{"## A\n# B\n# C", "B", nil},
		{"No heading", "", nil},
		{"---\naliases: [A, B]\nalias: C\n---\n", "", []string{"A", "B", "C"}},
		{"---\naliases: A, B\n---\n", "", []string{"A", "B"}},
		{"---\naliases:\n  - A\n  - A\n---\n", "", []string{"A"}},
		{"---\ntitle: [unclosed\n---\n# Fallback", "Fallback", nil},
	} {
		d := Parse([]byte(c.in))
		if d.Title != c.title || !slices.Equal(d.Aliases, c.aliases) {
			t.Errorf("input %q: got title %q aliases %q, want %q %q", c.in, d.Title, d.Aliases, c.title, c.aliases)
		}
	}
	if got := NoteTitle("1_Projekte/Alpha Plan.md", Parse([]byte("text"))); got != "Alpha Plan" {
		t.Errorf("NoteTitle without title or H1: got %q, want the file name", got)
	}
}

func TestParse_LineEndingsAndBOM(t *testing.T) {
	for _, c := range []struct {
		in        string
		crlf, bom bool
	}{
		{"a\nb\n", false, false},
		{"a\r\nb\r\n", true, false},
		{"a\r\nb\nc\r\n", true, false},
		{"a\r\nb\nc\n", false, false},
		{"\xef\xbb\xbfa", false, true},
		{"", false, false},
	} {
		d := Parse([]byte(c.in))
		if d.CRLF != c.crlf || d.BOM != c.bom {
			t.Errorf("input %q: got CRLF %v BOM %v, want %v %v", c.in, d.CRLF, d.BOM, c.crlf, c.bom)
		}
	}
}

// TestParse_LinkRanges: Start..End covers exactly the link's text, for
// every kind of link.
func TestParse_LinkRanges(t *testing.T) {
	src := "a [[N]] b ![[E.png]] c [t](x.md) d ![i](y.png) e [r][ref] f [c][] g [ref] h [p](a(b).md) i [[N#H|L]]\n\n[ref]: R.md\n[c]: C.md\n"
	want := []string{"[[N]]", "![[E.png]]", "[t](x.md)", "![i](y.png)", "[r][ref]", "[c][]", "[ref]", "[p](a(b).md)", "[[N#H|L]]"}
	d := Parse([]byte(src))
	var got []string
	for _, l := range d.Links {
		got = append(got, src[l.Start:l.End])
	}
	if !slices.Equal(got, want) {
		t.Errorf("input %q:\ngot  %q\nwant %q", src, got, want)
	}
}

// BenchmarkParse_ManyHeadings guards the line table: a note with many
// headings and links parses in time proportional to its size (line numbers
// used to be counted from the start of the note for every heading and
// link, 4× and more per byte at 8,000 headings). A benchmark, not a test:
// a loaded machine must not fail the tests; compare the ns/byte of the
// two sizes (go test ./note -run '^$' -bench ManyHeadings).
func BenchmarkParse_ManyHeadings(b *testing.B) {
	for _, n := range []int{500, 8000} {
		src := manyHeadings(n)
		b.Run(fmt.Sprintf("headings=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				Parse(src)
			}
		})
	}
}

func manyHeadings(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		b.WriteString("## § ")
		b.WriteString(strings.Repeat("x", i%13))
		b.WriteString("\n\nSatz mit [[Link]] und #tag.\n\n")
	}
	return b.Bytes()
}

// TestParse_Corpora parses every note of the real vaults in
// ../shared/corpora and checks the invariants on each; the 166 MB law
// corpus runs when VAULTD_BIG_CORPUS=1 (it takes about half a minute).
func TestParse_Corpora(t *testing.T) {
	for _, name := range []string{"obsidian-help-de", "obsidian-help-en", "tldr-de"} {
		t.Run(name, func(t *testing.T) {
			parseTree(t, corpusDir(t, name))
		})
	}
	t.Run("gesetze", func(t *testing.T) {
		if os.Getenv("VAULTD_BIG_CORPUS") == "" {
			t.Skip("set VAULTD_BIG_CORPUS=1 to parse the 166 MB law corpus")
		}
		archive := filepath.Join("..", "..", "shared", "corpora", "gesetze.tar.xz")
		if _, err := os.Stat(archive); err != nil {
			t.Skipf("no %s", archive)
		}
		tmp := t.TempDir()
		if out, err := exec.Command("tar", "-xJf", archive, "-C", tmp).CombinedOutput(); err != nil {
			t.Fatalf("unpack: %v\n%s", err, out)
		}
		parseTree(t, filepath.Join(tmp, "gesetze"))
	})
}

func parseTree(t *testing.T, dir string) {
	t.Helper()
	var notes, headings, links, size int
	var elapsed time.Duration
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		start := time.Now()
		d := Parse(src)
		elapsed += time.Since(start)
		rel, _ := filepath.Rel(dir, p)
		if d.FrontmatterErr != nil {
			t.Logf("%s: %v", rel, d.FrontmatterErr)
		}
		checkDoc(t, src, d)
		checkRoundTrip(t, src, d)
		notes++
		headings += len(d.Headings)
		links += len(d.Links)
		size += len(src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d notes, %d bytes, %d headings, %d links; Parse %v (%.1f MB/s)", notes, size, headings, links, elapsed,
		float64(size)/1e6/elapsed.Seconds())
}

// corpusDir locates a read-only test corpus. CI mounts ../shared next to
// the repository; tests run in the package folder, hence ../../shared.
func corpusDir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "corpora", name)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("corpus %s not found at %s (it lives in ../shared/corpora next to the repository): skipping", name, dir)
	}
	return dir
}
