package index

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	bleveunicode "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// The word tokenizer must give exactly the tokens of bleve's unicode
// tokenizer, which the index used before it.

// sameTokens says how wordTokenizer's tokens of s differ from bleve's
// ("" if not). Text that is not UTF-8 is not compared: bleve's tokenizer
// stops at the first invalid byte (see TestTokenize_InvalidUTF8).
func sameTokens(s string) string {
	if !utf8.ValidString(s) {
		return ""
	}
	got := wordTokenizer{}.Tokenize([]byte(s))
	want := bleveunicode.NewUnicodeTokenizer().Tokenize([]byte(s))
	show := func(ts analysis.TokenStream) string {
		var b strings.Builder
		for _, t := range ts {
			fmt.Fprintf(&b, " %q@%d-%d#%d/%d", t.Term, t.Start, t.End, t.Position, t.Type)
		}
		return b.String()
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%q:\n got%s\nwant%s", s, show(got), show(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if string(g.Term) != string(w.Term) || g.Start != w.Start || g.End != w.End || g.Position != w.Position || g.Type != w.Type {
			return fmt.Sprintf("%q:\n got%s\nwant%s", s, show(got), show(want))
		}
	}
	return ""
}

func TestTokenize_AsBleve(t *testing.T) {
	cases := []string{
		"", " ", "a", "_", "__", "_1", "1_", "1_000", "a_b", "foo_ _bar",
		"3.14 1,000 1;2 1:2 1'000 1.2.3 1..2 a..b", "e.g. U.S.A. Abs. z.B. usw.",
		"don't a'b a''b 'a a' don’t ‘quoted’", "x:y a:1 1:a a·b", "a.1 1.a a1.5 1.5a a.b1 1a.b a1.b",
		"§ 626 Fristlose Kündigung aus wichtigem Grund (BGB)", "Straße Häuser ÄÖÜäöüß µ ª º ½ ² × ÷",
		"„Zitat“ – Gedanke — Ende… 5 € • ‹a› ‚b‘", "tab\tnew\nline\r\nform\ffeed\vvertical",
		"soft\u00adhyphen ẍy ab\u0301 naïve café", "日本語のテキスト 한국어 עברית", "emoji 😀 ok",
		"2026-11-16 16.11.2026 3. März", "http://example.com/a_b?c=d#e", "C++ C# .NET node.js v1.2.3-beta",
		"\u0308start", "end\u0308", "x\u00a0y", "a\u0085b",
	}
	for _, c := range cases {
		if err := sameTokens(c); err != "" {
			t.Error(err)
		}
	}
	// Every character the rules take, between letters, digits and
	// underscores and alone: its class decides what joins.
	ctx := []string{"a%sb", "1%s2", "%s", "a%s", "%sa", "1%s", "%s1", "_%s_", "a%s1", "1%sa", "a%s%sb", "1%s%s2", "a_%sb", "1%s_2"}
	for r := rune(0); r < 0x3000; r++ {
		if runeClass(r) == wbUnknown {
			continue
		}
		for _, f := range ctx {
			s := strings.ReplaceAll(f, "%s", string(r))
			if err := sameTokens(s); err != "" {
				t.Errorf("U+%04X: %s", r, err)
			}
		}
	}
	// Real notes.
	dirs := []string{filepath.Join("..", "example-vault")}
	for _, c := range []string{os.Getenv("VAULTD_CORPORA"), filepath.Join("..", "..", "shared", "corpora")} {
		if c != "" {
			for _, v := range []string{"obsidian-help-de", "obsidian-help-en", "tldr-de", "tldr-en"} {
				dirs = append(dirs, filepath.Join(c, v))
			}
		}
	}
	n := 0
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() || !strings.HasSuffix(p, ".md") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameTokens(string(b)); err != "" {
				t.Errorf("%s: %.2000s", p, err)
			}
			n++
			return nil
		})
	}
	if n < 20 {
		t.Fatalf("tokenized %d real notes; the example vault alone has more", n)
	}
}

// TestTokenize_AsBleve_Gesetze: the same over every note of the laws (166
// MB), in parallel.
func TestTokenize_AsBleve_Gesetze(t *testing.T) {
	if testing.Short() {
		t.Skip("tokenizes the 166 MB of the laws twice")
	}
	dir := unpackGesetze(t)
	var paths []string
	filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err == nil && !de.IsDir() && strings.HasSuffix(p, ".md") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) < 6000 {
		t.Fatalf("%d laws unpacked, want the 6,636", len(paths))
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures int
		next     atomic.Int64
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(paths) {
					return
				}
				b, err := os.ReadFile(paths[i])
				if err != nil {
					t.Error(err)
					return
				}
				if diff := sameTokens(string(b)); diff != "" {
					mu.Lock()
					if failures++; failures <= 3 {
						t.Errorf("%s: %.2000s", paths[i], diff)
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if failures > 0 {
		t.Errorf("%d of %d laws tokenized otherwise than by bleve", failures, len(paths))
	}
}

// A byte that is not UTF-8 is left out, not the rest of the note: bleve's
// tokenizer stopped at it, so that only "gut" was indexed.
func TestTokenize_InvalidUTF8(t *testing.T) {
	var got []string
	for _, tok := range (wordTokenizer{}).Tokenize([]byte("gut \xffkaputt utf8 \xc3 weiter")) {
		got = append(got, string(tok.Term))
	}
	if strings.Join(got, " ") != "gut kaputt utf8 weiter" {
		t.Errorf("tokens %q, want gut kaputt utf8 weiter", got)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"a.b 1,2 _x_ don't", "§ 1 Abs. 2 Satz 3", "„ä“ ’s 1’000", "a\u00adb", "日本 a1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := sameTokens(s); err != "" {
			t.Fatal(err)
		}
	})
}

func BenchmarkTokenize(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("..", "example-vault", "1_Projekte", "Hausbau Lindenweg.md"))
	if err != nil {
		b.Skip(err)
	}
	text := []byte(strings.Repeat(string(src), 20))
	for _, tc := range []struct {
		name string
		tok  analysis.Tokenizer
	}{{"bleve", bleveunicode.NewUnicodeTokenizer()}, {"words", wordTokenizer{}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				tc.tok.Tokenize(text)
			}
		})
	}
}
