package vault

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// closestVault is shaped like the vaults the ranking was tuned for: laws in
// folder notes named by abbreviation with long titles, API notes whose
// titles are dotted names, folders that share a note name.
var closestVault = []NameEntry{
	{Path: "g/gg/index.md", Titles: []string{"Grundgesetz für die Bundesrepublik Deutschland"}},
	{Path: "a/avorbaschrbek/index.md", Titles: []string{"Bekanntmachung des Schreibens … zum Grundgesetz vom 12. Mai 1949"}},
	{Path: "g/ggaendg_1/index.md", Titles: []string{"Gesetz zur Änderung des Grundgesetzes"}},
	{Path: "s/stvo_2013/index.md", Titles: []string{"Straßenverkehrs-Ordnung"}},
	{Path: "s/stpo/index.md", Titles: []string{"Strafprozeßordnung"}},
	{Path: "s/stvg/index.md", Titles: []string{"Straßenverkehrsgesetz"}},
	{Path: "b/bgb/index.md", Titles: []string{"Bürgerliches Gesetzbuch"}},
	{Path: "web/js/global_objects/array/filter/index.md", Titles: []string{"Array.prototype.filter()"}},
	{Path: "web/js/global_objects/array/fill/index.md", Titles: []string{"Array.prototype.fill()"}},
	{Path: "web/js/global_objects/iterator/filter/index.md", Titles: []string{"Iterator.prototype.filter()"}},
	{Path: "web/css/filter/index.md", Titles: []string{"filter"}},
	{Path: "web/html/li/index.md", Titles: []string{"<li>: Das Listenelement"}},
	{Path: "web/html/te/index.md", Titles: []string{"TE"}},
	{Path: "Notizen/Projektplan.md"},
	{Path: "Notizen/Ziele.md"},
	{Path: "Archiv/Plan.md"},
	// Johnny.Decimal numbers after an emoji, and a dotted plugin name
	// beside a shorter note (obsidian-hub).
	{Path: "c/03.01 Structure/🗂️ 03.01 Structure.md", Titles: []string{"🗂️ 03.01 Structure"}},
	{Path: "c/03.02 Design Decisions/🗂️ 03.02 Design Decisions.md", Titles: []string{"🗂️ 03.02 Design Decisions"}},
	{Path: "Plugins/mermaid-helper.md", Titles: []string{"Mermaid.js Helper (OMH)"}},
	{Path: "Concepts/Mermaid.md"},
}

// TestNameTable_ClosestRanksWhatWasMeant: a name that matched nothing lists
// first the note a person meant (AGENT-CONTRACT rule 21): a name the typed
// words start, a near spelling, a near start, then names holding the
// words, then the folder named; never names the typed word merely holds.
func TestNameTable_ClosestRanksWhatWasMeant(t *testing.T) {
	tab := NewNameTable(closestVault)
	for _, c := range []struct {
		ref, first, why string
		never           []string
	}{
		// The title starts with the words; titles that only hold them
		// ("…Grundgesetzes") come later.
		{"Grundgesetz", "g/gg/index.md", `title "Grundgesetz für die Bundesrepublik Deutschland"`, nil},
		// The folder's name starts with it (at "_"); StPO and StVG are
		// one slip away, after it.
		{"StVO", "s/stvo_2013/index.md", `folder name "stvo_2013"`, nil},
		{"Straßenverkehrsordnung", "s/stvo_2013/index.md", `title "Straßenverkehrs-Ordnung"`, nil},
		// A dotted name with a slip and without its "()".
		{"Array.protoype.filter", "web/js/global_objects/array/filter/index.md", `title "Array.prototype.filter()"`, nil},
		// Swapped letters are one slip; the typo holds "li" and "te",
		// which are no reason to list those notes.
		{"fliter", "web/css/filter/index.md", `title "filter"`, []string{"web/html/li/index.md", "web/html/te/index.md"}},
		// The folder typed decides among the notes named filter.
		{"array/fliter", "web/js/global_objects/array/filter/index.md", `folder name "filter"`, nil},
		{"Bürgerliches Gesetzbcuh", "b/bgb/index.md", `title "Bürgerliches Gesetzbuch"`, nil},
		// A slip in the first words of a long title.
		{"Grundgestez", "g/gg/index.md", `title "Grundgesetz für die Bundesrepublik Deutschland"`, nil},
		// Rule 9: the folder named has no "Plan"; it has Projektplan and
		// Ziele, and Archiv/Plan.md has the name.
		{"Notizen/Plan.md", "Archiv/Plan.md", `file name "Plan"`, nil},
		// The title the typed words start comes before the one that
		// only "03" starts (".02" is no file extension), and before the
		// name that "Mermaid.js" without ".js" is.
		{"🗂️ 03.02", "c/03.02 Design Decisions/🗂️ 03.02 Design Decisions.md", `title "🗂️ 03.02 Design Decisions"`, nil},
		{"Mermaid.js", "Plugins/mermaid-helper.md", `title "Mermaid.js Helper (OMH)"`, nil},
	} {
		m := tab.Lookup(c.ref, false)
		if m.What != "" {
			t.Errorf("Lookup(%q) matched %s %q; want a miss", c.ref, m.What, m.Paths)
			continue
		}
		if len(m.Closest) == 0 || m.Closest[0] != c.first {
			t.Errorf("Lookup(%q): closest %q, want %q first", c.ref, m.Closest, c.first)
			continue
		}
		if len(m.Why) != len(m.Closest) || m.Why[0] != c.why {
			t.Errorf("Lookup(%q): why %q, want %q first", c.ref, m.Why, c.why)
		}
		for _, p := range c.never {
			if slices.Contains(m.Closest, p) {
				t.Errorf("Lookup(%q) lists %s: %q", c.ref, p, m.Closest)
			}
		}
	}
	// A name but for punctuation and case, borne by one note, is that note.
	if m := tab.Lookup("array prototype filter", false); m.What == "" || len(m.Paths) != 1 || m.Paths[0] != "web/js/global_objects/array/filter/index.md" {
		t.Errorf(`Lookup("array prototype filter") = %q %q, want the note titled "Array.prototype.filter()"`, m.What, m.Paths)
	}
	// And so is a title without the emoji it starts with.
	if m := tab.Lookup("03.02 Design Decisions", false); m.What == "" || len(m.Paths) != 1 || m.Paths[0] != "c/03.02 Design Decisions/🗂️ 03.02 Design Decisions.md" {
		t.Errorf(`Lookup("03.02 Design Decisions") = %q %q, want the note titled "🗂️ 03.02 Design Decisions"`, m.What, m.Paths)
	}

	m := tab.Lookup("Notizen/Plan.md", false)
	for _, p := range []string{"Notizen/Projektplan.md", "Notizen/Ziele.md"} {
		if !slices.Contains(m.Closest, p) {
			t.Errorf("Lookup(Notizen/Plan.md) = %q, want the folder's %s too", m.Closest, p)
		}
	}
	// The names a title merely shares a word with come after the one it starts.
	m = tab.Lookup("Grundgesetz", false)
	if i := slices.Index(m.Closest, "g/ggaendg_1/index.md"); i >= 0 && i < 1 {
		t.Errorf("Lookup(Grundgesetz) = %q: the amending law before the Grundgesetz", m.Closest)
	}
	if m.Close < 1 {
		t.Errorf("Lookup(Grundgesetz).Close = %d, want ≥ 1", m.Close)
	}
}

// lagging is a NameSource whose table lags the files until CatchUpNames,
// as the index's is while it compares a restart with the files.
type lagging struct {
	stale, fresh *NameTable
	caught       atomic.Bool
	catchUps     atomic.Int32
}

func (l *lagging) table() *NameTable {
	if l.caught.Load() {
		return l.fresh
	}
	return l.stale
}

func (l *lagging) LookupName(target string, link bool) (NameMatch, bool) {
	m := l.table().Lookup(target, link)
	m.Behind = !l.caught.Load()
	return m, true
}

func (l *lagging) CatchUpNames(context.Context) bool {
	l.catchUps.Add(1)
	l.caught.Store(true)
	return true
}

func (l *lagging) Names() (*NameTable, bool) { return l.table(), !l.caught.Load() }

func (l *lagging) Catalog() ([]NameEntry, bool) { return l.table().Entries(), !l.caught.Load() }

// TestFind_LaggingSourceNeverWalks: a table that may lag the files answers
// a note it finds that still bears the name at once; a miss, and a note
// that no longer bears the name, wait for the source to catch up; the vault
// is never walked.
func TestFind_LaggingSourceNeverWalks(t *testing.T) {
	v := writeLinkVault(t, `
-- a/Alpha.md --
---
title: Projekt Alpha
---
-- b/Neu.md --
---
title: Neuer Plan
---
-- c/Umbenannt.md --
---
title: Jetzt anders
---
`)
	l := &lagging{
		// As saved before: b/Neu.md did not exist, c/Umbenannt.md had
		// another title.
		stale: NewNameTable([]NameEntry{
			{Path: "a/Alpha.md", Titles: []string{"Projekt Alpha"}},
			{Path: "c/Umbenannt.md", Titles: []string{"Alter Titel"}},
		}),
		fresh: NewNameTable([]NameEntry{
			{Path: "a/Alpha.md", Titles: []string{"Projekt Alpha"}},
			{Path: "b/Neu.md", Titles: []string{"Neuer Plan"}},
			{Path: "c/Umbenannt.md", Titles: []string{"Jetzt anders"}},
		}),
	}
	v.SetNames(l)
	n, _, err := v.Find("Projekt Alpha")
	if err != nil || n.Path != "a/Alpha.md" || l.catchUps.Load() != 0 {
		t.Fatalf("Find(Projekt Alpha) = %v, %v after %d catch-ups; want a/Alpha.md from the saved table", n, err, l.catchUps.Load())
	}
	if _, _, err := v.Find("Alter Titel"); err == nil {
		t.Errorf("Find(Alter Titel) found a note that no longer bears the title")
	}
	if l.catchUps.Load() == 0 {
		t.Errorf("a note that no longer bears its name did not make the source catch up")
	}
	if n, _, err := v.Find("Neuer Plan"); err != nil || n.Path != "b/Neu.md" {
		t.Errorf("Find(Neuer Plan) = %v, %v; want b/Neu.md once caught up", n, err)
	}
	if v.cache.snap != nil || len(v.cache.files) != 0 {
		t.Errorf("Find walked the vault (%d files cached)", len(v.cache.files))
	}
	// A miss when caught up is final, with the closest notes.
	_, _, err = v.Find("Projekt Alfa")
	if e, ok := err.(interface{ Error() string }); !ok || !strings.Contains(e.Error(), "no note has") {
		t.Errorf("Find(Projekt Alfa) = %v, want not found", err)
	}
}
