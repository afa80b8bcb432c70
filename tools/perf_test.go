package tools

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// pageOfRunes is the reference pageOf works like: the whole text as runes.
func pageOfRunes(s string, off, max int) (string, int) {
	r := []rune(s)
	if off < 0 || off > len(r) {
		off = 0
	}
	end := off + max
	if end >= len(r) {
		return string(r[off:]), 0
	}
	for i := end; i > off+max/2; i-- {
		if r[i-1] == '\n' {
			end = i
			break
		}
	}
	return string(r[off:end]), end
}

// TestPageOf_SameAsRunes compares pageOf with the conversion to []rune on
// random texts of ASCII, umlauts, emoji, line ends and invalid bytes.
func TestPageOf_SameAsRunes(t *testing.T) {
	pieces := []string{"a", "b", " ", "\n", "\r\n", "ä", "ß", "€", "😀", "\xff", "\xe2\x82", "\xc3", "\n\n"}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		var b strings.Builder
		for range rng.IntN(200) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		max := 1 + rng.IntN(60)
		off := rng.IntN(len(s)+3) - 1
		gotPage, gotNext := pageOf([]byte(s), off, max)
		wantPage, wantNext := pageOfRunes(s, off, max)
		if gotPage != wantPage || gotNext != wantNext {
			t.Fatalf("case %d: pageOf(%q, %d, %d) = %q, %d; want %q, %d", n, s, off, max, gotPage, gotNext, wantPage, wantNext)
		}
	}
}

// TestHitProperties_SameAsWholeHead: reading the first 4 KB first gives
// the properties of the 64 KB head, for frontmatter ending before, at and
// after the 4 KB mark, notes without frontmatter, a BOM, and a fence-like
// line cut by the 4 KB mark.
func TestHitProperties_SameAsWholeHead(t *testing.T) {
	dir := t.TempDir()
	fm := func(pad int, tail string) string {
		return "---\nstatus: aktiv\ntags: [a, b]\nnote: " + strings.Repeat("x", pad) + "\n---" + tail + "\n# Titel\n" + strings.Repeat("Text.\n", 3000)
	}
	cases := map[string]string{
		"small.md":    fm(10, ""),
		"bom.md":      "\xef\xbb\xbf" + fm(10, ""),
		"crlf.md":     strings.ReplaceAll(fm(10, ""), "\n", "\r\n"),
		"none.md":     "# Titel\n" + strings.Repeat("Text.\n", 3000),
		"unclosed.md": "---\nstatus: aktiv\n" + strings.Repeat("Text.\n", 3000),
		"long.md":     fm(5000, ""),
		"verylong.md": fm(70000, ""),
		"tiny.md":     "---\nstatus: aktiv\n---\n",
		"invalid.md":  "---\nstatus: [\n---\n" + strings.Repeat("Text.\n", 3000),
		"longline.md": strings.Repeat("y", 5000) + "\n",
	}
	// A line "----x" whose first three dashes end the 4 KB head.
	pre := "---\nstatus: aktiv\nnote: "
	cutFence := pre + strings.Repeat("z", 4096-len(pre)-4) + "\n---"
	cases["cutfence.md"] = cutFence + "-x\nmore: 1\n---\n" + strings.Repeat("Text.\n", 3000)
	for i := 4080; i < 4110; i++ {
		cases[fmt.Sprintf("edge%d.md", i)] = fm(i-len("---\nstatus: aktiv\ntags: [a, b]\nnote: "), "")
	}
	for name, text := range cases {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := vault.Open(dir, vault.Options{StateDir: filepath.Join(t.TempDir(), "state"), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	c, err := NewCore(v, CoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range cases {
		head := []byte(text)[:min(len(text), hitPropertyBytes)]
		var want []PropertyData
		for _, pr := range note.FrontmatterProperties(head) {
			if len(want) == hitProperties {
				break
			}
			if pr.Key != "aliases" && pr.Key != "alias" {
				want = append(want, PropertyData{Key: pr.Key, Value: cut(oneLine(pr.Text()), maxPropertyChars)})
			}
		}
		for range 2 { // the second answer comes from the cache
			got := c.hitProperties(name)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: got %v, want %v", name, got, want)
			}
			if len(got) > 0 {
				got[0].Value = "changed by the caller"
			}
		}
	}
}

// outlineCounting is the reference outline works like: each section's runes
// counted on their own.
// TestOutline_SameAsCounting: every outline entry, on random notes with
// nested headings, setext headings, CRLF, a BOM, multi-byte and invalid
// bytes, and more than a page of headings, names its section for
// read_note (Section finds it by the entry's heading) and counts its
// characters as counting that section does; the pages together list each
// entry once.
func TestOutline_SameAsCounting(t *testing.T) {
	lines := []string{"# Titel", "## Ziele", "### Tief", "Text ä ß 😀", "\xff\xfe kaputt", "", "Setext", "------", "- Liste", "```", "# kein Titel", "```", "\r"}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 500 {
		var b strings.Builder
		if n%5 == 0 {
			b.WriteString("\xef\xbb\xbf")
		}
		eol := "\n"
		if n%3 == 0 {
			eol = "\r\n"
		}
		for range rng.IntN(300) {
			b.WriteString(lines[rng.IntN(len(lines))] + eol)
		}
		d := note.Parse([]byte(b.String()))
		all := make([]int, len(d.Headings))
		for i := range all {
			all[i] = i
		}
		for _, sub := range [][]int{all, all[min(1, len(all)):]} {
			seen := 0
			for off := 0; ; off += outlinePage {
				page, total := outline(d, sub, off, 0)
				if len(page) == 0 {
					if seen != total {
						t.Fatalf("case %d: pages listed %d of %d entries", n, seen, total)
					}
					break
				}
				seen += len(page)
				for _, e := range page {
					h, err := d.Section(e.Heading)
					if err != nil {
						t.Fatalf("case %d: outline entry %q does not name a section: %v", n, e.Heading, err)
					}
					if want := utf8.RuneCount(d.Src[h.Start:h.End]); e.Chars != want {
						t.Fatalf("case %d: entry %q counts %d characters, want %d", n, e.Heading, e.Chars, want)
					}
				}
			}
		}
	}
}

// TestReadProperties_SameAsParsing: the remembered properties of read_note
// are those of parsing the frontmatter, also when notes share it, and a
// caller changing its copy changes nothing for the next.
func TestReadProperties_SameAsParsing(t *testing.T) {
	srcs := []string{
		"---\nstatus: aktiv\ntags: [a, b]\n---\n# A\n",
		"---\nstatus: aktiv\ntags: [a, b]\n---\n# B, same frontmatter\n",
		"---\nstatus: [\n---\nbroken YAML\n",
		"---\n---\nempty\n",
		"# no frontmatter\n",
		"\xef\xbb\xbf---\r\nstatus: fertig\r\n---\r\n",
	}
	for _, src := range srcs {
		d := note.Parse([]byte(src))
		want := propertiesData(d)
		for range 2 {
			got := readProperties(d)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("readProperties(%q): got %v, want %v", src, got, want)
			}
			if len(got) > 0 {
				got[0].Value = "changed by the caller"
			}
		}
	}
}
