package index

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/vault"
)

// TestMetaEmbeds_SameAsTheNote: for every note of the example vault and
// the Obsidian help vaults, the embed targets the index keeps (in the
// meta, through its encoding) resolve to exactly the files the vault
// lists from the note itself (vault.EmbeddedFiles).
func TestMetaEmbeds_SameAsTheNote(t *testing.T) {
	dirs := map[string]string{}
	for _, name := range []string{"obsidian-help-en", "obsidian-help-de"} {
		_, dirs[name] = copyCorpus(t, name)
	}
	dirs["example-vault"] = filepath.Join("..", "example-vault")
	notes, withEmbeds := 0, 0
	for name, dir := range dirs {
		v, err := vault.Open(dir, vault.Options{StateDir: t.TempDir(), NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		err = v.Walk(func(e vault.Entry) error {
			if !e.Note {
				return nil
			}
			n, err := v.Read(e.Path)
			if err != nil {
				return err
			}
			src, err := fs.ReadFile(v.FS(), e.Path)
			if err != nil {
				return err
			}
			d := FromNote(e.Path, src, time.Time{}, nil)
			m := decodeMeta(encodeMeta(d))
			if !m.embedsKnown {
				t.Fatalf("%s %s: the meta does not say which embeds the note has", name, e.Path)
			}
			got, want := v.EmbeddedTargets(e.Path, m.embeds), v.EmbeddedFiles(n)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s %s: embeds from the index %v, from the note %v (targets %q)", name, e.Path, got, want, m.embeds)
			}
			notes++
			if len(want) > 0 {
				withEmbeds++
			}
			return nil
		})
		v.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if withEmbeds < 10 {
		t.Fatalf("%d of %d notes embed a file: the Obsidian help vaults alone have more", withEmbeds, notes)
	}
	t.Logf("%d notes, %d with embedded files", notes, withEmbeds)
	// A decoder from before the embeds reads the rest as before (it skips
	// records that are not a heading's).
	d := &Document{Size: 120, BodyStart: 10, BodyLine: 2, Headings: []Heading{{Text: "Ziele", Level: 1, Start: 10, BodyStart: 18, Line: 2}},
		Links: []LinkRef{{Raw: "kran.png", Embed: true}}}
	enc := encodeMeta(d)
	if old := strings.Split(strings.Split(enc, recordSep)[0], unitSep); len(old) != 3 {
		t.Errorf("the first record has %d units, want 3 as before: %q", len(old), enc)
	}
	if m := decodeMeta(enc); len(m.headings) != 1 || m.headings[0].Text != "Ziele" || fmt.Sprint(m.embeds) != "[kran.png]" {
		t.Errorf("decode(encode): got %+v", m)
	}
	// A meta from before the index kept embeds says it does not know.
	if m := decodeMeta("120\x1f10\x1f2\x1e10\x1f12\x1f2\x1f1\x1f\x1fZiele"); m.embedsKnown || len(m.headings) != 1 || m.size != 120 {
		t.Errorf("an old meta: got %+v, want its heading and size, embeds unknown", m)
	}
}

// TestSearch_HitsCarryTheirEmbeds: a search hit says which files its note
// embeds, so that showing it needs no read of the note.
func TestSearch_HitsCarryTheirEmbeds(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"bau/plan.md":         "# Plan\n\nDer Kran steht hier: ![[kran.png]] und ![](fotos/baustelle.jpg) und ![[Notiz]]\n",
		"bau/notiz.md":        "# Notiz\n\nKran ohne Bild.\n",
		"bau/kran.png":        "png",
		"fotos/baustelle.jpg": "jpg",
	})
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "Kran"})
	got := map[string]string{}
	for _, h := range r.Hits {
		if !h.EmbedsKnown {
			t.Errorf("%s: the hit does not say which files its note embeds", h.Path)
		}
		got[h.Path] = strings.Join(h.Embeds, ",")
	}
	if want := map[string]string{"bau/plan.md": "kran.png,fotos/baustelle.jpg", "bau/notiz.md": ""}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("embeds of the hits: got %v, want %v", got, want)
	}
}
