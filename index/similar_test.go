package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/vault"
)

// similarCase expects, for a source note (or one of its sections, by
// heading text), notes among the first within hits, and words among the
// ones compared.
type similarCase struct {
	name    string
	path    string
	heading string // "" for the whole note
	within  int
	want    []string // notes expected within the first within hits
	words   []string // words expected among the source's words
	shared  string   // the first hit shares this word
}

func runSimilarCases(t *testing.T, ix *Index, cases []similarCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := SimilarQuery{Path: tc.path, Limit: tc.within}
			if tc.heading != "" {
				q.Section = sectionOf(t, ix, tc.path, tc.heading)
			}
			r, err := ix.Similar(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range r.Hits {
				got = append(got, h.Path)
				if h.Path == tc.path && tc.heading == "" {
					t.Errorf("the source itself is a hit")
				}
			}
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%s not within the first %d:%s", w, tc.within, describeSimilar(r))
				}
			}
			for _, w := range tc.words {
				if !slices.Contains(r.Words, w) {
					t.Errorf("word %q not among %v", w, r.Words)
				}
			}
			if tc.shared != "" && (len(r.Hits) == 0 || !slices.Contains(r.Hits[0].Shared, tc.shared)) {
				t.Errorf("first hit does not share %q:%s", tc.shared, describeSimilar(r))
			}
		})
	}
}

// sectionOf returns the section number of the note's heading with text h.
func sectionOf(t *testing.T, ix *Index, p, h string) int {
	t.Helper()
	src, err := ix.readNote(p)
	if err != nil {
		t.Fatal(err)
	}
	d := FromNote(p, src, time.Time{}, nil)
	for i, hd := range d.Headings {
		if hd.Text == h {
			return i + 1
		}
	}
	t.Fatalf("%s has no heading %q", p, h)
	return 0
}

func describeSimilar(r *SimilarResults) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nwords: %v", r.Words)
	for i, h := range r.Hits {
		fmt.Fprintf(&b, "\n  %d. %s [%s] %.3f shared %v", i+1, h.Path, h.Sections[0].Heading, h.Score, h.Shared)
	}
	return b.String()
}

// TestSimilar_ExampleVault: the expectations come from reading the notes.
func TestSimilar_ExampleVault(t *testing.T) {
	v, err := vault.Open(filepath.Join("..", "example-vault"), vault.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ix := openIndex(t, v, Options{})
	runSimilarCases(t, ix, []similarCase{
		// The greenhouse is to stand where the garden house did; both are
		// built on foundations in the allotment.
		{name: "greenhouse and garden house", path: "2_Bereiche/Garten/Gewächshaus.md", within: 1,
			want: []string{"4_Archiv/Gartenhaus Bau 2025.md"}, words: []string{"Gewächshaus", "Fundament", "Tomaten"}, shared: "Gartenhaus"},
		{name: "garden house and greenhouse", path: "4_Archiv/Gartenhaus Bau 2025.md", within: 1,
			want: []string{"2_Bereiche/Garten/Gewächshaus.md"}, shared: "Gartenhaus"},
		// The house is financed by the loan the finance note is about.
		{name: "house and its financing", path: "1_Projekte/Hausbau Lindenweg.md", within: 1,
			want: []string{"2_Bereiche/Finanzen/Baufinanzierung.md"}, words: []string{"Bauträger", "Bodenplatte"}, shared: "Lindenweg"},
		// The summer party was paid by the law firm whose migration is a project.
		{name: "summer party and the firm", path: "4_Archiv/Sommerfest 2026.md", within: 1,
			want: []string{"1_Projekte/Kanzlei Brandt M365-Migration.md"}, shared: "Kanzlei"},
		{name: "git workflow and the git server", path: "3_Ressourcen/Git Workflow.md", within: 1,
			want: []string{"3_Ressourcen/IT-Handbuch.md"}, shared: "Git"},
		// The hospital project: its maintenance windows are in the glossary,
		// the call notes and the team minutes.
		{name: "hospital network", path: "1_Projekte/Klinikverbund Nord.md", within: 5,
			want: []string{"3_Ressourcen/Glossar.md", "0_Inbox/Notiz 2026-11-18.md", "2_Bereiche/Team/Besprechungsprotokoll.md"}},
		{name: "relaunch and its sub-notes", path: "1_Projekte/Website-Relaunch.md", within: 3,
			want: []string{"1_Projekte/Website-Relaunch/Technik.md", "1_Projekte/Website-Relaunch/Projektplan.md"}},
		// A section: the glossary's maintenance window (Sunday mornings in
		// hospitals) is the hospital project's section on its windows and
		// the call note's Sunday window.
		{name: "section: maintenance window", path: "3_Ressourcen/Glossar.md", heading: "Wartungsfenster", within: 3,
			want: []string{"1_Projekte/Klinikverbund Nord.md", "0_Inbox/Notiz 2026-11-18.md"}, shared: "Wartungsfenster"},
	})
}

// TestSimilar_ObsidianHelpDE runs on the German Obsidian help (copied: the
// corpus is read-only).
func TestSimilar_ObsidianHelpDE(t *testing.T) {
	src := filepath.Join("/work/shared/corpora/obsidian-help-de")
	if _, err := os.Stat(src); err != nil {
		t.Skip("the obsidian-help-de corpus is not here")
	}
	dir := filepath.Join(t.TempDir(), "vault")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ix := openIndex(t, v, Options{})
	runSimilarCases(t, ix, []similarCase{
		// Choosing a region is done when setting up a remote vault.
		{name: "sync regions", path: "Obsidian Sync/Sync-Regionen.md", within: 2,
			want: []string{"Obsidian Sync/Obsidian Sync einrichten.md"}, words: []string{"Region", "Tresor"}, shared: "Region"},
		// Version history beside restoring a backup and the plan's limits.
		{name: "version history", path: "Obsidian Sync/Versionsgeschichte.md", within: 3,
			want: []string{"Erweiterungen/Datenwiederherstellung.md", "Obsidian Sync/Tarife und Speicherlimits.md"}, words: []string{"Versionsverlauf", "wiederherstellen"}},
		// Custom domains: the Publish notes.
		{name: "custom domains", path: "Obsidian Publish/Benutzerdefinierte Domains.md", within: 3,
			want: []string{"Obsidian Publish/Einführung in Obsidian Publish.md"}, words: []string{"Domain", "Subdomain"}},
		// Bookmarks are listed in the CLI's section on them.
		{name: "bookmarks", path: "Erweiterungen/Lesezeichen.md", within: 3,
			want: []string{"Obsidian erweitern/Obsidian CLI.md"}, words: []string{"Lesezeichen"}},
	})
}

func TestSimilar_Errors(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"a.md": "# Alpha\n\nGewächshaus Tomaten Paprika.\n",
		"b.md": "# Beta\n\nTomaten im Gewächshaus, Paprika im Beet.\n",
		"c.md": "# Leer\n",
	})
	ix := openIndex(t, v, Options{})
	ctx := context.Background()
	if _, err := ix.Similar(ctx, SimilarQuery{Path: "nope.md"}); !errors.Is(err, ErrBadQuery) {
		t.Errorf("missing note: got %v, want ErrBadQuery", err)
	}
	if _, err := ix.Similar(ctx, SimilarQuery{Path: "a.md", Section: 5}); !errors.Is(err, ErrBadQuery) {
		t.Errorf("missing section: got %v, want ErrBadQuery", err)
	}
	r, err := ix.Similar(ctx, SimilarQuery{Path: "c.md"})
	if err != nil || len(r.Hits) != 0 {
		t.Errorf("a note with no words to compare: got %v, %v; want no hits, no error", r, err)
	}
	r, err = ix.Similar(ctx, SimilarQuery{Path: "a.md"})
	if err != nil || len(r.Hits) != 1 || r.Hits[0].Path != "b.md" {
		t.Fatalf("got %v, %v; want b.md", r, err)
	}
	if r.Hits[0].Sections[0].Snippet == "" || !strings.Contains(r.Hits[0].Sections[0].Snippet, MarkStart+"Tomaten"+MarkEnd) {
		t.Errorf("snippet %q does not mark the shared words", r.Hits[0].Sections[0].Snippet)
	}
	ix.Close()
	if _, err := ix.Similar(ctx, SimilarQuery{Path: "a.md"}); !errors.Is(err, ErrClosed) {
		t.Errorf("closed: got %v, want ErrClosed", err)
	}
}
