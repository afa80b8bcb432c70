package index

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// corpusDir finds a shared corpus: $VAULTD_CORPORA, else ../../shared/corpora
// relative to this package (the repo's sibling "shared" folder).
func corpusDir(t *testing.T, name string) string {
	t.Helper()
	var cands []string
	if d := os.Getenv("VAULTD_CORPORA"); d != "" {
		cands = append(cands, d)
	}
	cands = append(cands, filepath.Join("..", "..", "shared", "corpora"), filepath.Join("..", "shared", "corpora"))
	for _, c := range cands {
		p := filepath.Join(c, name)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
	}
	t.Skipf("corpus %s not found (looked in %s; set VAULTD_CORPORA to the corpora folder)", name, strings.Join(cands, ", "))
	return ""
}

// copyCorpus copies a (read-only) corpus into a temp dir and opens it as a
// vault with its own state dir.
func copyCorpus(t *testing.T, name string) (*vault.Vault, string) {
	t.Helper()
	src := corpusDir(t, name)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dst, vault.Options{StateDir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, dst
}

// qualityCase: the notes in Top must all be among the first N hits (N = 5
// unless set); First, if set, must be the first hit; Heading, if set, is the
// heading path expected for the hit Top[0].
type qualityCase struct {
	name    string
	q       Query
	top     []string
	n       int
	first   string
	heading string
	check   func(t *testing.T, r *Results)
}

func runQuality(t *testing.T, ix *Index, cases []qualityCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := mustSearch(t, ix, c.q)
			n := c.n
			if n == 0 {
				n = 5
			}
			for _, want := range c.top {
				if i := hitIndex(r, want); i < 0 || i >= n {
					t.Errorf("query %q %+v: %s at rank %d, want within the first %d; got:%s", c.q.Text, c.q, want, i+1, n, describe(r))
				}
			}
			if c.first != "" && (len(r.Hits) == 0 || r.Hits[0].Path != c.first) {
				t.Errorf("query %q: first hit is not %s; got:%s", c.q.Text, c.first, describe(r))
			}
			if c.heading != "" {
				want := c.first
				if want == "" {
					want = c.top[0]
				}
				if i := hitIndex(r, want); i >= 0 && r.Hits[i].Heading != c.heading {
					t.Errorf("query %q: %s heading = %q, want %q", c.q.Text, want, r.Hits[i].Heading, c.heading)
				}
			}
			if c.check != nil {
				c.check(t, r)
			}
		})
	}
}

// TestQuality_ObsidianHelpDE checks ranking on the German Obsidian help: a
// real vault nobody here wrote. The expected notes were chosen by reading
// the notes, not by looking at what the engine returns.
func TestQuality_ObsidianHelpDE(t *testing.T) {
	v, dir := copyCorpus(t, "obsidian-help-de")
	ix := openIndex(t, v, Options{})

	inSpace := func(space string) func(t *testing.T, r *Results) {
		return func(t *testing.T, r *Results) {
			for _, h := range r.Hits {
				if h.Space != space {
					t.Errorf("hit %s is in space %q, want only %q", h.Path, h.Space, space)
				}
			}
		}
	}
	notContaining := func(re string) func(t *testing.T, r *Results) {
		rx := regexp.MustCompile(re)
		return func(t *testing.T, r *Results) {
			if len(r.Hits) == 0 {
				t.Errorf("no hits")
			}
			for _, h := range r.Hits {
				b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(h.Path)))
				// Frontmatter other than title, aliases and tags is not
				// indexed ("publish: true" is no mention of Publish).
				if d := note.Parse(b); rx.Match(b[d.BodyStart:]) {
					t.Errorf("hit %s contains %s, which the query excludes", h.Path, re)
				}
			}
		}
	}
	cases := []qualityCase{
		// Inflection: "Tabellen" finds the note titled "Tabelle" and the
		// section "## Tabellen" (and vice versa).
		{name: "plural finds singular title", q: Query{Text: "Tabellen"},
			top: []string{"Bases/Layouts/Tabelle.md", "Bearbeitung und Formatierung/Erweiterte Formatierungssyntax.md"}},
		{name: "singular finds plural heading", q: Query{Text: "Tabelle"},
			top: []string{"Bases/Layouts/Tabelle.md", "Bearbeitung und Formatierung/Erweiterte Formatierungssyntax.md"}},
		{name: "heading of the best match", q: Query{Text: "Diagramme"},
			top: []string{"Bearbeitung und Formatierung/Erweiterte Formatierungssyntax.md"}, heading: "Diagramme"},
		{name: "heading path", q: Query{Text: "Zeilenhöhe"},
			first: "Bases/Layouts/Tabelle.md", heading: "Einstellungen > Zeilenhöhe"},
		{name: "section heading", q: Query{Text: "Suchoperatoren"},
			first: "Erweiterungen/Suchen.md", heading: "Suchoperatoren"},
		// Compounds: "Leiste" is a word part of Seitenleiste, Statusleiste.
		{name: "compound heads", q: Query{Text: "Leiste"}, n: 10,
			top: []string{"Benutzeroberfläche/Seitenleiste.md", "Benutzeroberfläche/Statusleiste.md"}},
		// Title beats body.
		{name: "title first: Canvas", q: Query{Text: "Canvas"}, first: "Erweiterungen/Canvas.md"},
		{name: "title first: Lesezeichen", q: Query{Text: "Lesezeichen"}, first: "Erweiterungen/Lesezeichen.md"},
		{name: "title first: Tastenkürzel", q: Query{Text: "Tastenkürzel"}, first: "Benutzeroberfläche/Tastenkürzel.md"},
		{name: "two notes titled Vorlagen", q: Query{Text: "Vorlage"},
			top: []string{"Erweiterungen/Vorlagen.md", "Obsidian Web Clipper/Vorlagen.md"}},
		// Aliases rank like titles.
		{name: "alias", q: Query{Text: "Callouts"}, first: "Bearbeitung und Formatierung/Hinweisblöcke.md"},
		{name: "alias (English words)", q: Query{Text: "footnotes view"}, first: "Erweiterungen/Fußnoten-Ansicht.md"},
		// Filters.
		{name: "space filter", q: Query{Text: "Vorlagen", Space: "Obsidian Web Clipper"},
			first: "Obsidian Web Clipper/Vorlagen.md", check: inSpace("Obsidian Web Clipper")},
		{name: "folder filter includes sub-folders", q: Query{Text: "Karte", Folder: "Bases"},
			first: "Bases/Layouts/Karte.md", check: inSpace("Bases")},
		{name: "inline folder filter", q: Query{Text: "Karte folder:Bases/Layouts"}, first: "Bases/Layouts/Karte.md"},
		// Syntax.
		{name: "phrase", q: Query{Text: `"interne Links"`}, top: []string{"Notizen und Dateien verknüpfen/Interne Links.md"}},
		{name: "prefix", q: Query{Text: "synchronis*"}, top: []string{"Erste Schritte/Notizen geräteübergreifend synchronisieren.md"}},
		{name: "exclude", q: Query{Text: "Sync -Publish"}, top: []string{"Obsidian Sync/Einführung in Obsidian Sync.md"}, n: 10,
			check: notContaining(`(?i)\bpublish`)},
	}
	runQuality(t, ix, cases)
}
