package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

const findVault = `
-- 1_Projekte/Alpha.md --
---
title: Projekt Alpha
aliases: [Der Erste, A1]
---
# Alpha
## Ziele
## Zeitplan
-- 1_Projekte/Beta/Plan.md --
# Plan Beta
-- 4_Archiv/Plan.md --
---
title: Alter Plan
---
-- 2_Bereiche/Gesundheit.md --
# Gesundheit
-- 2_Bereiche/Sport.md --
# Training
-- 2_Bereiche/Fitness.md --
# Training
-- 3_Ressourcen/Bücher.md --
---
aliases: [Leseliste]
---
-- 3_Ressourcen/Reading.md --
---
aliases: [leseliste]
---
-- 0_Inbox/Idee.md --
---
title: Gesundheit
---
-- Home.md --
# Start
-- assets/Alpha.png --
png
`

func TestFind(t *testing.T) {
	v := writeLinkVault(t, findVault)
	cases := []struct {
		ref, path, heading string
	}{
		// 1. exact path, with or without .md, any case
		{"1_Projekte/Alpha.md", "1_Projekte/Alpha.md", ""},
		{"1_Projekte/Alpha", "1_Projekte/Alpha.md", ""},
		{"1_projekte/ALPHA.md", "1_Projekte/Alpha.md", ""},
		{"/1_Projekte/Alpha", "1_Projekte/Alpha.md", ""},
		// 2. file name (a path ending only inside [[brackets]], as in links)
		{"Alpha", "1_Projekte/Alpha.md", ""},
		{"alpha.md", "1_Projekte/Alpha.md", ""},
		{"[[Beta/Plan]]", "1_Projekte/Beta/Plan.md", ""},
		{"Bu\u0308cher", "3_Ressourcen/Bücher.md", ""}, // NFD spelling
		// 3. title
		{"Projekt Alpha", "1_Projekte/Alpha.md", ""},
		{"projekt  alpha", "1_Projekte/Alpha.md", ""},
		{"Start", "Home.md", ""},
		{"Alter Plan", "4_Archiv/Plan.md", ""},
		// 4. alias
		{"der erste", "1_Projekte/Alpha.md", ""},
		{"A1", "1_Projekte/Alpha.md", ""},
		// wikilinks: brackets and label dropped, heading returned
		{"[[Alpha]]", "1_Projekte/Alpha.md", ""},
		{"[[Alpha#Ziele|die Ziele]]", "1_Projekte/Alpha.md", "Ziele"},
		{"![[Projekt Alpha#Zeitplan]]", "1_Projekte/Alpha.md", "Zeitplan"},
		{"[[1_Projekte/Alpha.md#Ziele]]", "1_Projekte/Alpha.md", "Ziele"},
		{"[[Der Erste#^block]]", "1_Projekte/Alpha.md", "^block"},
		// without brackets, a "#" is tried as a heading when nothing else matched
		{"Alpha#Zeitplan", "1_Projekte/Alpha.md", "Zeitplan"},
		{"Projekt Alpha # Ziele", "1_Projekte/Alpha.md", "Ziele"},
	}
	// A file name and another note's title are both names: neither note
	// hides the other.
	if _, _, err := v.Find("Gesundheit"); !errors.Is(err, note.ErrAmbiguous) {
		t.Errorf("Find(Gesundheit): %v, want both notes (the file name of one, the title of the other)", err)
	} else if e, _ := note.AsError(err); !slices.Equal(e.Alternatives, []string{"0_Inbox/Idee.md", "2_Bereiche/Gesundheit.md"}) {
		t.Errorf("Find(Gesundheit): candidates %q", e.Alternatives)
	}
	// A path with a folder is taken at its word: "Beta/Plan" is not
	// "1_Projekte/Beta/Plan.md", but the error names it first.
	if _, _, err := v.Find("Beta/Plan"); !errors.Is(err, note.ErrNotFound) {
		t.Errorf("Find(%q): %v, want not found", "Beta/Plan", err)
	} else if e, _ := note.AsError(err); len(e.Alternatives) == 0 || e.Alternatives[0] != "1_Projekte/Beta/Plan.md" {
		t.Errorf("Find(%q): alternatives %q, want 1_Projekte/Beta/Plan.md first", "Beta/Plan", e.Alternatives)
	}
	for _, c := range cases {
		n, h, err := v.Find(c.ref)
		if err != nil {
			t.Errorf("Find(%q): %v; want %s", c.ref, err, c.path)
			continue
		}
		if n.Path != c.path || h != c.heading {
			t.Errorf("Find(%q): got %q heading %q, want %q heading %q", c.ref, n.Path, h, c.path, c.heading)
		}
		if n.Version == "" || n.Doc == nil {
			t.Errorf("Find(%q): note not read: %+v", c.ref, n)
		}
	}
}

func TestFind_Errors(t *testing.T) {
	v := writeLinkVault(t, findVault)
	cases := []struct {
		ref  string
		kind error
		alts []string // nil: not checked here (see the golden file)
	}{
		{"Plan", note.ErrAmbiguous, []string{"1_Projekte/Beta/Plan.md", "4_Archiv/Plan.md"}},
		{"[[Plan#Ziele]]", note.ErrAmbiguous, []string{"1_Projekte/Beta/Plan.md", "4_Archiv/Plan.md"}},
		{"Training", note.ErrAmbiguous, []string{"2_Bereiche/Fitness.md", "2_Bereiche/Sport.md"}},
		{"Leseliste", note.ErrAmbiguous, []string{"3_Ressourcen/Bücher.md", "3_Ressourcen/Reading.md"}},
		{"1_Projekte/Alpah.md", note.ErrNotFound, nil},
		{"1_Projekte/Gamma/Alpha.md", note.ErrNotFound, nil},
		{"Alpah", note.ErrNotFound, nil},
		{"Projekt Alpah", note.ErrNotFound, nil},
		{"[[Nirgends]]", note.ErrNotFound, nil},
		{"Alpha.png", note.ErrNotFound, nil},
		{"", note.ErrInvalid, nil},
		{"  ", note.ErrInvalid, nil},
		{"[[#Ziele]]", note.ErrInvalid, nil},
	}
	var golden strings.Builder
	for _, c := range cases {
		n, _, err := v.Find(c.ref)
		if !errors.Is(err, c.kind) {
			t.Errorf("Find(%q): got %v (note %v), want %v", c.ref, err, n, c.kind)
			continue
		}
		e, ok := note.AsError(err)
		if !ok {
			t.Errorf("Find(%q): error %T is not an *Error", c.ref, err)
			continue
		}
		if c.alts != nil && strings.Join(e.Alternatives, "|") != strings.Join(c.alts, "|") {
			t.Errorf("Find(%q): alternatives %q, want %q", c.ref, e.Alternatives, c.alts)
		}
		if len(e.Alternatives) > 5 && c.kind == note.ErrNotFound {
			t.Errorf("Find(%q): %d alternatives, want at most 5", c.ref, len(e.Alternatives))
		}
		fmt.Fprintf(&golden, "Find(%q)\n  %s\n", c.ref, err)
		if len(e.Alternatives) > 0 {
			fmt.Fprintf(&golden, "  %s: %s\n", e.AltKind, strings.Join(e.Alternatives, ", "))
		}
	}
	checkLinksGolden(t, "find_errors.golden", []byte(golden.String()))
}

// The nearest note comes first when a path or a title is misspelt.
func TestFind_NotFoundClosest(t *testing.T) {
	v := writeLinkVault(t, findVault)
	for _, ref := range []string{"1_Projekte/Alpah.md", "Alpah", "Projekt Alpah", "1_Projekte/Gamma/Alpha"} {
		_, _, err := v.Find(ref)
		e, ok := note.AsError(err)
		if !ok || len(e.Alternatives) == 0 || e.Alternatives[0] != "1_Projekte/Alpha.md" {
			t.Errorf("Find(%q): got %v, want ErrNotFound naming 1_Projekte/Alpha.md first", ref, err)
		}
	}
}

// Notes, Find and Resolver see changes on disk: files parsed again when
// their size or mtime changed, and only then.
func TestNotes_Cache(t *testing.T) {
	v := writeLinkVault(t, `
-- a.md --
# Eins
-- b.md --
# Zwei
-- c.md --
[[d]] ![[pic.png]]
`)
	notes, err := v.Notes()
	if err != nil {
		t.Fatal(err)
	}
	if got := notePaths(notes); got != "a.md b.md c.md" {
		t.Fatalf("Notes: got %s, want a.md b.md c.md", got)
	}

	write := func(p, s string, mod time.Time) {
		t.Helper()
		fp := filepath.Join(v.Dir(), p)
		if err := os.WriteFile(fp, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(fp, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	// Same size, new mtime: parsed again.
	write("b.md", "# Drei\n", time.Now().Add(time.Hour))
	// New note and attachment, one note removed.
	write("d.md", "# Vier\n", time.Now())
	write("pic.png", "png", time.Now())
	if err := os.Remove(filepath.Join(v.Dir(), "a.md")); err != nil {
		t.Fatal(err)
	}
	notes, err = v.Notes()
	if err != nil {
		t.Fatal(err)
	}
	if got := notePaths(notes); got != "b.md c.md d.md" {
		t.Fatalf("Notes after changes: got %s, want b.md c.md d.md", got)
	}
	if notes[0].Title != "Drei" {
		t.Errorf("b.md after rewrite: title %q, want Drei", notes[0].Title)
	}
	if _, _, err := v.Find("Eins"); !errors.Is(err, note.ErrNotFound) {
		t.Errorf("Find(Eins) after a.md was removed: got %v, want ErrNotFound", err)
	}
	if n, _, err := v.Find("Vier"); err != nil || n.Path != "d.md" {
		t.Errorf("Find(Vier): got %v, %v; want d.md", n, err)
	}
	r, err := v.Resolver()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range notes[1].Doc.Links {
		if res := r.Resolve("c.md", l); res.Status != note.Resolved {
			t.Errorf("link %q of c.md after d.md and pic.png appeared: %v", l.Target, res.Status)
		}
	}

	// Unchanged files are not parsed again: same *Note, same Resolver.
	again, _ := v.Notes()
	r2, _ := v.Resolver()
	if again[0] != notes[0] || r2 != r {
		t.Errorf("second Notes/Resolver without changes built new values; want the cached ones")
	}
}

func notePaths(notes []*Note) string {
	var p []string
	for _, n := range notes {
		p = append(p, n.Path)
	}
	return strings.Join(p, " ")
}

// Find and Notes are safe for concurrent use (run with -race).
func TestFind_Concurrent(t *testing.T) {
	v := writeLinkVault(t, findVault)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 20 {
				if n, _, err := v.Find("Projekt Alpha"); err != nil || n.Path != "1_Projekte/Alpha.md" {
					t.Errorf("goroutine %d: Find: %v, %v", i, n, err)
					return
				}
				if _, err := v.Notes(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
