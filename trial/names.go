package trial

import (
	"context"
	"fmt"
	"hash/fnv"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/tools"
)

// NameRates is how well a vault's notes are found by the names people give
// them, measured over every note (CheckNames): the property behind
// AGENT-CONTRACT rule 19 and 21, checked on whole corpora rather than on
// examples.
type NameRates struct {
	Notes int
	// Names: each title, alias and file name (a folder note's folder name)
	// of each note, read by it; Resolved: found directly, or in an
	// ambiguity list that names the note.
	Names, Resolved int
	// Typos: each note's title with one slip (two neighbouring letters
	// swapped, one left out or doubled; titles of 5 letters or more);
	// TypoFirst: the note is found, or is the first closest note (or tied
	// with the ones before it by bearing the very same title).
	Typos, TypoFirst int
	// Starts: the first words of a title, where no other note has a name
	// that starts with them; StartFirst: found, or first closest.
	Starts, StartFirst int
	// Searches: each note's title as a search query; SearchTop3: the note
	// is among the first three hits.
	Searches, SearchTop3 int
	// Misses are a few of each kind that failed, for a person to look at.
	Misses []string
}

// Rate returns n of d as a percentage (100 when d is 0).
func Rate(n, d int) float64 {
	if d == 0 {
		return 100
	}
	return 100 * float64(n) / float64(d)
}

// String is one line per property.
func (r NameRates) String() string {
	return fmt.Sprintf("names resolve %d/%d (%.1f %%); typo first %d/%d (%.1f %%); first words first %d/%d (%.1f %%); title search top 3 %d/%d (%.1f %%)",
		r.Resolved, r.Names, Rate(r.Resolved, r.Names), r.TypoFirst, r.Typos, Rate(r.TypoFirst, r.Typos),
		r.StartFirst, r.Starts, Rate(r.StartFirst, r.Starts), r.SearchTop3, r.Searches, Rate(r.SearchTop3, r.Searches))
}

// NameCheck says which properties CheckNames measures.
type NameCheck struct {
	Search bool // (d): needs the core's index
	// MaxMisses bounds NameRates.Misses per property (default 5).
	MaxMisses int
}

// CheckNames measures NameRates over every note of the core's vault, through
// the tools an agent calls: read_note for names, typos and first words (a
// miss's closest notes as the agent sees them, search included), and
// search_notes for titles.
func CheckNames(ctx context.Context, c *tools.Core, o NameCheck) (NameRates, error) {
	if o.MaxMisses == 0 {
		o.MaxMisses = 5
	}
	entries, _, err := c.Vault().Catalog()
	if err != nil {
		return NameRates{}, err
	}
	var notes []named
	for _, e := range entries {
		if !e.Attachment {
			notes = append(notes, named{Path: e.Path, Title: e.Title, Titles: e.Titles, Aliases: e.Aliases})
		}
	}
	sort.Slice(notes, func(i, j int) bool { return notes[i].Path < notes[j].Path })
	starts := startIndex(notes)
	titleKey := make(map[string]string, len(notes))
	for _, n := range notes {
		titleKey[n.Path] = note.NameKey(displayTitle(n))
	}
	// first reports whether p leads list: first, or tied with the notes
	// before it by bearing the very same title (the laws' "Allgemeines
	// Eisenbahngesetz" of 1994 and of today, the docs' two tutorials named
	// "Buttons"): no ranking can tell those apart, and the list names both.
	leads := func(list []string, p string) bool {
		for _, q := range list {
			if q == p {
				return true
			}
			if titleKey[q] != titleKey[p] {
				return false
			}
		}
		return false
	}
	caller := tools.Caller{Actor: "namecheck", Perms: tools.Perms{Read: true}}
	var r NameRates
	misses := map[string]int{}
	miss := func(kind, format string, a ...any) {
		if misses[kind] < o.MaxMisses {
			misses[kind]++
			r.Misses = append(r.Misses, kind+": "+fmt.Sprintf(format, a...))
		}
	}
	// found reports whether reading ref finds the note at p, directly or
	// in an ambiguity list (anyOf), and whether it is the first closest
	// note of a miss.
	found := func(ref, p string, anyOf bool) (bool, string) {
		res := c.ReadNote(ctx, caller, tools.ReadNoteArgs{Path: ref})
		if res.Err == nil {
			d, _ := res.Data.(tools.ReadNoteData)
			return d.Note.Path == p, d.Note.Path
		}
		data, _ := res.Data.(map[string]any)
		if list, ok := data["candidates"].([]string); ok {
			return anyOf && slices.Contains(list, p), "ambiguous: " + strings.Join(first(list, 3), ", ")
		}
		if list, ok := data["closest"].([]string); ok && len(list) > 0 {
			return !anyOf && leads(list, p), "closest: " + strings.Join(first(list, 3), ", ")
		}
		return false, "nothing"
	}
	for _, n := range notes {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		r.Notes++
		for _, name := range namesOf(n) {
			r.Names++
			if ok, got := found(name, n.Path, true); ok {
				r.Resolved++
			} else {
				miss("name", "%q (%s) → %s", name, n.Path, got)
			}
		}
		title := displayTitle(n)
		if typo, ok := oneSlip(title, n.Path); ok {
			r.Typos++
			if ok, got := found(typo, n.Path, false); ok {
				r.TypoFirst++
			} else {
				miss("typo", "%q for %q (%s) → %s", typo, title, n.Path, got)
			}
		}
		if words, ok := uniqueStart(title, n.Path, starts); ok {
			r.Starts++
			if ok, got := found(words, n.Path, false); ok {
				r.StartFirst++
			} else {
				miss("start", "%q of %q (%s) → %s", words, title, n.Path, got)
			}
		}
		if o.Search && strings.TrimSpace(title) != "" {
			r.Searches++
			res := c.SearchNotes(ctx, caller, tools.SearchNotesArgs{Query: title, Limit: 3})
			d, _ := res.Data.(tools.SearchData)
			var got []string
			for _, h := range d.Hits {
				got = append(got, h.Path)
			}
			if slices.Contains(first(got, 3), n.Path) {
				r.SearchTop3++
			} else {
				miss("search", "%q (%s) → %s", title, n.Path, strings.Join(got, ", "))
			}
		}
	}
	return r, nil
}

func first(list []string, n int) []string { return list[:min(n, len(list))] }

// named is a note as CheckNames knows it.
type named struct {
	Path, Title     string
	Titles, Aliases []string
}

// displayTitle is the title a note is shown with.
func displayTitle(e named) string {
	if e.Title != "" {
		return e.Title
	}
	return note.NoteTitle(e.Path, nil)
}

// namesOf lists the names a person calls a note by: its titles, aliases,
// and its file name — for a folder note (x/BGB/index.md) its folder's
// name, not the index.md that thousands of notes share.
func namesOf(e named) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, t := range e.Titles {
		add(t)
	}
	for _, a := range e.Aliases {
		add(a)
	}
	if f := note.FolderNoteFolder(e.Path); f != "" {
		add(path.Base(f))
	} else {
		add(strings.TrimSuffix(path.Base(e.Path), path.Ext(e.Path)))
	}
	return out
}

// oneSlip returns title with one slip a person makes — two neighbouring
// letters swapped, one left out, or one doubled — at a place and of a kind
// chosen from the note's path (the same every run); false for titles
// shorter than 5 letters, where one slip makes another word.
func oneSlip(title, p string) (string, bool) {
	r := []rune(title)
	var letters []int // positions of letters, not the first
	for i := 1; i < len(r); i++ {
		if unicode.IsLetter(r[i]) {
			letters = append(letters, i)
		}
	}
	if len(letters) < 4 {
		return "", false
	}
	h := fnv.New64a()
	h.Write([]byte(p))
	x := h.Sum64()
	i := letters[int(x%uint64(len(letters)))]
	switch (x / 7) % 3 {
	case 0: // swap with the letter before, if that differs
		if r[i-1] != r[i] && unicode.IsLetter(r[i-1]) {
			r[i-1], r[i] = r[i], r[i-1]
			return string(r), true
		}
		fallthrough
	case 1: // leave one out
		return string(append(r[:i:i], r[i+1:]...)), true
	default: // double one
		return string(append(append(r[:i+1:i+1], r[i]), r[i+1:]...)), true
	}
}

// startIndex counts, for each start of a name in whole words (its loose
// key, note.LooseKey), the notes with a name that starts so.
func startIndex(notes []named) map[string]int {
	out := map[string]int{}
	for _, n := range notes {
		seen := map[string]bool{}
		for _, name := range namesOf(n) {
			words := strings.Fields(note.LooseKey(name))
			for k := 1; k <= len(words); k++ {
				s := strings.Join(words[:k], " ")
				if !seen[s] {
					seen[s] = true
					out[s]++
				}
			}
		}
	}
	return out
}

// uniqueStart returns the fewest first words of title (fewer than all of
// them, at least 4 letters) that no other note's name starts with; false
// when there are none.
func uniqueStart(title, p string, starts map[string]int) (string, bool) {
	words := strings.Fields(title)
	loose := strings.Fields(note.LooseKey(title))
	if len(words) < 2 || len(loose) < 2 {
		return "", false
	}
	for k := 1; k < len(words); k++ {
		typed := strings.Join(words[:k], " ")
		key := note.LooseKey(typed)
		if len([]rune(key)) < 4 || key == "" {
			continue
		}
		if starts[key] == 1 {
			return typed, true
		}
	}
	return "", false
}
