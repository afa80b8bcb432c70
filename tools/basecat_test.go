package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vaultd/vaultd/base"
	"github.com/vaultd/vaultd/vault"
)

// A base's set reads a note's properties from its frontmatter and its tags
// from the catalog (readBaseHead), and its links only when a view first
// looks at one (loadLinks). Over the example vault and both Obsidian
// helps, every file of the set has the properties, tags, aliases,
// links, embeds and backlinks that parsing every note whole gives — as
// built, and again after notes changed outside vaultd (a link added, a
// property set, a tag taken away), which the set follows note by note. A
// set for a view that names links reads every note whole at once, to the
// same answers.
func TestBaseSet_SameAsParsingEveryNote(t *testing.T) {
	eachVaultCopy(t, func(t *testing.T, dir string) {
		whole, _ := newTestCoreIndex(t, dir)
		compareBaseSet(t, whole, "read whole", true, true)
		c, idx := newTestCoreIndex(t, dir)
		set := compareBaseSet(t, c, "as built", true, false)
		if set.files[0].LoadLinks == nil {
			t.Fatal("the set's files have no LoadLinks: links were made eagerly")
		}

		// Three notes changed by another program, as an editor saves.
		var changed []string
		for _, f := range set.files {
			if len(changed) == 3 {
				break
			}
			if !vault.IsNote(f.Path) {
				continue
			}
			p := filepath.Join(dir, filepath.FromSlash(f.Path))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			switch len(changed) {
			case 0:
				s += "\n\nSiehe [[" + strings.TrimSuffix(set.files[len(set.files)-1].Path, ".md") + "]].\n"
			case 1:
				if strings.HasPrefix(s, "---\n") {
					s = "---\nstatus: geprüft\n" + s[4:]
				} else {
					s = "---\nstatus: geprüft\n---\n" + s
				}
			case 2:
				s = strings.ReplaceAll(s, "#", "") // headings and tags gone
			}
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
			changed = append(changed, f.Path)
		}
		if err := idx.Update(changed...); err != nil {
			t.Fatal(err)
		}
		compareBaseSet(t, c, "after outside changes", false, false)
	})
}

// compareBaseSet compares c's current set with one made from every note
// parsed whole, and returns it; first says it is the core's first set,
// links that it is asked for a view that looks at links.
func compareBaseSet(t *testing.T, c *Core, step string, first, links bool) *baseSet {
	t.Helper()
	set, err := c.baseSet(links)
	if err != nil {
		t.Fatal(err)
	}
	// Until a view looks at links, none are made (but those a set before
	// made for notes that did not change); on a first build no note was
	// parsed for them.
	for _, f := range set.files {
		kept := set.only != nil && !slices.Contains(set.only, f)
		if (f.Links != nil || f.Embeds != nil) && !kept || f.Backlinks != nil {
			t.Fatalf("%s: %s has links before any view asked for them", step, f.Path)
		}
	}
	if !first && set.only == nil {
		t.Errorf("%s: the set made every note's links anew", step)
	}
	if first {
		for p, r := range set.recs {
			if r.links.Load() != nil && !links {
				t.Fatalf("%s: %s was parsed for its links before any view asked for them", step, p)
			}
			if r.links.Load() == nil && links {
				t.Fatalf("%s: %s was not read whole for a view that looks at links", step, p)
			}
		}
	}

	// The reference: every note read whole, its links made at once.
	want := c.newBaseSet(len(set.files), len(set.files), set.res, set.loc)
	for _, f := range set.files {
		wf := &base.File{Path: f.Path, Size: f.Size, MTime: f.MTime, CTime: f.CTime}
		want.files = append(want.files, wf)
		want.byPath[wf.Path] = wf
		if !vault.IsNote(f.Path) {
			wf.Prepare()
			continue
		}
		r := c.readBaseRecord(vault.NameEntry{Path: f.Path})
		if r == nil {
			t.Fatalf("%s: %s cannot be read", step, f.Path)
		}
		want.fill(wf, r)
		got := set.recs[f.Path]
		if got == nil && set.only != nil {
			got = c.bases.recs[f.Path] // a note that did not change
		}
		if got == nil {
			t.Fatalf("%s: %s has no record in the set", step, f.Path)
		}
		if !reflect.DeepEqual(got.fm, r.fm) || !slices.Equal(got.tags, r.tags) || !slices.Equal(got.aliases, r.aliases) || got.blocks != r.blocks {
			t.Errorf("%s: %s: record\n%+v %q %q %v\nparsing the note whole:\n%+v %q %q %v", step, f.Path, got.fm, got.tags, got.aliases, got.blocks, r.fm, r.tags, r.aliases, r.blocks)
		}
	}
	want.loadLinks()

	// Views on several goroutines at once ask for links first.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, f := range set.files {
				f.LoadLinks()
			}
		})
	}
	wg.Wait()
	linkKeys := func(ls []base.Link) []string {
		var out []string
		for _, l := range ls {
			out = append(out, fmt.Sprintf("%s|%s|%s", l.Target, l.Display, l.Path))
		}
		slices.Sort(out) // the property links come in map order
		return out
	}
	n := 0
	for i, f := range set.files {
		w := want.files[i]
		if !reflect.DeepEqual(f.Props, w.Props) || !slices.Equal(f.Tags, w.Tags) {
			t.Errorf("%s: %s: properties %v tags %q, parsing whole %v %q", step, f.Path, f.Props, f.Tags, w.Props, w.Tags)
		}
		if !slices.Equal(linkKeys(f.Links), linkKeys(w.Links)) || !slices.Equal(linkKeys(f.Embeds), linkKeys(w.Embeds)) {
			t.Errorf("%s: %s: links %q embeds %q, parsing whole %q %q", step, f.Path, linkKeys(f.Links), linkKeys(f.Embeds), linkKeys(w.Links), linkKeys(w.Embeds))
		}
		if !slices.Equal(slices.Sorted(slices.Values(f.Backlinks)), slices.Sorted(slices.Values(w.Backlinks))) {
			t.Errorf("%s: %s: backlinks %q, parsing whole %q", step, f.Path, f.Backlinks, w.Backlinks)
		}
		n += len(f.Links) + len(f.Embeds)
	}
	if n == 0 {
		t.Errorf("%s: no file has a link: nothing was compared", step)
	}
	t.Logf("%s: %d files, %d links and embeds agree", step, len(set.files), n)
	return set
}
