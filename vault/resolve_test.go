package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

// linksOf parses one note of the vault and returns its links.
func linksOf(t *testing.T, v *Vault, p string) []note.Link {
	t.Helper()
	b, err := v.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return note.Parse(b).Links
}

// Every link form the issue names, parsed from a real note and resolved.
func TestResolve_LinkForms(t *testing.T) {
	v := writeLinkVault(t, `
-- Home.md --
# Home

- wikilink [[Note]]
- heading [[Note#Setup]]
- nested heading [[Note#Setup#Linux]]
- block [[Note#^abc123]]
- label [[Note|the note]]
- heading and label [[Note#Setup|setup]]
- with extension [[Note.md]]
- embed note ![[Note#Setup]]
- embed image ![[diagram.png]]
- embed image sized ![[diagram.png|100]]
- md link [text](Note.md)
- md link heading [text](Note.md#Setup)
- md link encoded [text](My%20Other%20Note.md)
- md link encoded path [text](sub/My%20Other%20Note.md)
- md link angle [text](<My Other Note.md>)
- md image ![alt](diagram.png)
- own heading [[#Home]]
- missing [[Nowhere]]
- web [site](https://example.com/Note.md)

| table | cell |
| --- | --- |
| [[Note\|aliased in a table]] | [[Note#Setup\|setup in a table]] |

Not links: `+"`[[Note]]`"+` and

`+"```"+`
[[Note]] [x](Note.md)
`+"```"+`
-- Note.md --
# Note
## Setup
### Linux
text ^abc123
-- sub/My Other Note.md --
other
-- diagram.png --
png
`)
	r, err := v.Resolver()
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ raw, res string }{
		{"[[Note]]", "Note.md"},
		{"[[Note#Setup]]", "Note.md #Setup"},
		{"[[Note#Setup#Linux]]", "Note.md #Setup#Linux"},
		{"[[Note#^abc123]]", "Note.md #^abc123"},
		{"[[Note|the note]]", "Note.md"},
		{"[[Note#Setup|setup]]", "Note.md #Setup"},
		{"[[Note.md]]", "Note.md"},
		{"![[Note#Setup]]", "Note.md #Setup"},
		{"![[diagram.png]]", "diagram.png"},
		{"![[diagram.png|100]]", "diagram.png"},
		{"[text](Note.md)", "Note.md"},
		{"[text](Note.md#Setup)", "Note.md #Setup"},
		{"[text](My%20Other%20Note.md)", "sub/My Other Note.md"},
		{"[text](sub/My%20Other%20Note.md)", "sub/My Other Note.md"},
		{"[text](<My Other Note.md>)", "sub/My Other Note.md"},
		{"![alt](diagram.png)", "diagram.png"},
		{"[[#Home]]", "Home.md #Home"},
		{"[[Nowhere]]", "unresolved"},
		{`[[Note\|aliased in a table]]`, "Note.md"},
		{`[[Note#Setup\|setup in a table]]`, "Note.md #Setup"},
	}
	src, _ := v.ReadFile("Home.md")
	links := linksOf(t, v, "Home.md")
	var got []string
	for _, l := range links {
		got = append(got, fmt.Sprintf("%s → %s", src[l.Start:l.End], resolved(r.Resolve("Home.md", l))))
	}
	var exp []string
	for _, w := range want {
		exp = append(exp, w.raw+" → "+w.res)
	}
	if !slices.Equal(got, exp) {
		t.Errorf("links of Home.md:\ngot:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(exp, "\n  "))
	}
}

// runResolveCases writes each link into a note at from, parses it and
// resolves it against the vault.
func runResolveCases(t *testing.T, v *Vault, cases []resolveCase) {
	t.Helper()
	r, err := v.Resolver()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		links := note.Parse([]byte(c.link + "\n")).Links
		if len(links) != 1 {
			t.Errorf("Parse(%q) gave %d links, want 1: %+v", c.link, len(links), links)
			continue
		}
		if got := resolved(r.Resolve(c.from, links[0])); got != c.want {
			t.Errorf("%s in %q: got %q, want %q", c.link, c.from, got, c.want)
		}
	}
}

// The tie-break fixture observed in Obsidian 1.13.7 (see Resolver): a root
// Note.md and two more in folders.
func TestResolve_ExactPathWins(t *testing.T) {
	v := writeLinkVault(t, `
-- Note.md --
-- zzzz/Note.md --
-- a/b/Note.md --
-- src-root.md --
-- zzzz/src-zzzz.md --
-- a/b/src-ab.md --
`)
	runResolveCases(t, v, []resolveCase{
		// The exact vault path wins from every folder, even beside another Note.md.
		{"src-root.md", "[[Note]]", "Note.md"},
		{"zzzz/src-zzzz.md", "[[Note]]", "Note.md"},
		{"a/b/src-ab.md", "[[Note]]", "Note.md"},
		// A path suffix matches when no exact path exists.
		{"src-root.md", "[[b/Note]]", "a/b/Note.md"},
		{"src-root.md", "[[zzzz/Note]]", "zzzz/Note.md"},
		// Segments match whole: "ote" is no file name here.
		{"src-root.md", "[[ote]]", "unresolved"},
		{"src-root.md", "[[/zzzz/Note]]", "zzzz/Note.md"},
		{"src-root.md", "[[/b/Note]]", "unresolved"}, // rooted: exact only
	})
}

// Without a root Note.md: own folder first, then the shortest path string.
func TestResolve_TieBreak(t *testing.T) {
	v := writeLinkVault(t, `
-- zzzz/Note.md --
-- a/b/Note.md --
-- b/Note.md --
-- aaaaaaaa/Note.md --
-- src-root.md --
-- zzzz/src-zzzz.md --
-- zzzz/deep/src-deep.md --
-- a/b/src-ab.md --
-- aa/Tie.md --
-- bb/Tie.md --
-- zz/long/Tie.md --
-- xxx/Tie.md --
-- q/r/Deep.md --
-- qqqqq/Deep.md --
`)
	runResolveCases(t, v, []resolveCase{
		// Own folder wins over a shorter path.
		{"zzzz/src-zzzz.md", "[[Note]]", "zzzz/Note.md over b/Note.md,a/b/Note.md,aaaaaaaa/Note.md"},
		{"a/b/src-ab.md", "[[Note]]", "a/b/Note.md over b/Note.md,zzzz/Note.md,aaaaaaaa/Note.md"},
		// An ancestor folder counts for nothing: shortest string wins.
		{"zzzz/deep/src-deep.md", "[[Note]]", "b/Note.md over a/b/Note.md,zzzz/Note.md,aaaaaaaa/Note.md"},
		{"src-root.md", "[[Note]]", "b/Note.md over a/b/Note.md,zzzz/Note.md,aaaaaaaa/Note.md"},
		{"src-root.md", "[[b/Note]]", "b/Note.md"},
		// String length, not depth: q/r/Deep.md (11) over qqqqq/Deep.md (13).
		{"src-root.md", "[[Deep]]", "q/r/Deep.md over qqqqq/Deep.md"},
		// The shortest are tied and none is in the source's folder:
		// Obsidian's choice is unstable, so we report it.
		{"src-root.md", "[[Tie]]", "ambiguous aa/Tie.md,bb/Tie.md,xxx/Tie.md,zz/long/Tie.md"},
		{"xxx/Other.md", "[[Tie#H]]", "xxx/Tie.md over aa/Tie.md,bb/Tie.md,zz/long/Tie.md #H"},
		// Unique shortest wins even with equal-length others behind it.
		{"src-root.md", "[[long/Tie]]", "zz/long/Tie.md"},
	})
}

// Case, Unicode normalisation and extensions.
func TestResolve_NamesAndExtensions(t *testing.T) {
	v := writeLinkVault(t, `
-- Projekte/Übersicht.md --
-- Projekte/Version 2.0.md --
-- Log.md --
-- a/Log.MD --
-- assets/diagram.png --
-- assets/Scan.PDF --
-- Café.md --
-- folder/readme.md --
-- Canvas.canvas --
`)
	// A file name written decomposed (NFD), as macOS may store it.
	nfd := "Cafe\u0301 Noir.md"
	if err := os.WriteFile(filepath.Join(v.Dir(), nfd), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	runResolveCases(t, v, []resolveCase{
		{"x.md", "[[log]]", "Log.md"},
		{"x.md", "[[LOG.MD]]", "Log.md"},
		{"x.md", "[[a/log]]", "a/Log.MD"},
		{"x.md", "[[übersicht]]", "Projekte/Übersicht.md"},
		{"x.md", "[[ÜBERSICHT]]", "Projekte/Übersicht.md"},
		{"x.md", "[[Version 2.0]]", "Projekte/Version 2.0.md"},
		{"x.md", "[[Version 2.0.md]]", "Projekte/Version 2.0.md"},
		// Attachments need their extension; it compares without case.
		{"x.md", "![[diagram]]", "unresolved"},
		{"x.md", "![[diagram.png]]", "assets/diagram.png"},
		{"x.md", "[[scan.pdf]]", "assets/Scan.PDF"},
		{"x.md", "![[Canvas.canvas]]", "Canvas.canvas"},
		{"x.md", "[[Canvas]]", "unresolved"},
		// NFC and NFD spellings meet in both directions.
		{"x.md", "[[Cafe\u0301]]", "Café.md"},
		{"x.md", "[[Café Noir]]", "Café Noir.md"},
		// A folder is not a note.
		{"x.md", "[[folder]]", "unresolved"},
		{"x.md", "[[folder/readme]]", "folder/readme.md"},
	})
}

// Explicit relative paths and markdown links.
func TestResolve_RelativeAndMarkdown(t *testing.T) {
	v := writeLinkVault(t, `
-- y.md --
-- a/x.md --
-- a/sib.md --
-- a/sub2/n.md --
-- b/sub2/n.md --
-- Sub/My Note.md --
-- Sub/md2.md --
`)
	runResolveCases(t, v, []resolveCase{
		{"a/x.md", "[[../y]]", "y.md"},
		{"a/x.md", "[[./sib]]", "a/sib.md"},
		{"a/x.md", "[[./y]]", "unresolved"}, // explicit: no fall-back to the name
		{"a/x.md", "[[../../y]]", "unresolved"},
		{"a/x.md", "[up](../y.md)", "y.md"},
		{"a/x.md", "[here](./sib.md)", "a/sib.md"},
		{"a/x.md", "[root](/y.md)", "y.md"},
		{"a/x.md", "[[sub2/../sib]]", "a/sib.md"},
		// Markdown destinations are looked up vault-wide after decoding, like
		// wikilinks (Obsidian 1.13.7, from the root and from Sub/).
		{"md1.md", "[y](My%20Note.md)", "Sub/My Note.md"},
		{"md1.md", "[x](Sub/My%20Note.md)", "Sub/My Note.md"},
		{"Sub/md2.md", "[x](My%20Note.md)", "Sub/My Note.md"},
		{"Sub/md2.md", "[z](Sub/My%20Note.md)", "Sub/My Note.md"},
		// "sub2/n.md" written from a/ (Obsidian's "relative path to file"
		// format) is a/sub2/n.md, though b/sub2/n.md matches as well.
		{"a/x.md", "[n](sub2/n.md)", "a/sub2/n.md"},
		{"y.md", "[n](sub2/n.md)", "ambiguous a/sub2/n.md,b/sub2/n.md"},
		{"a/x.md", "[[sub2/n]]", "a/sub2/n.md"},
	})
}

// Obsidian never resolves a link by alias; ResolveAlias does, for backlinks.
func TestResolve_Aliases(t *testing.T) {
	v := writeLinkVault(t, `
-- KI.md --
---
aliases: [AI, Künstliche Intelligenz]
---
-- Twins/One.md --
---
aliases: [Twin]
---
-- Twins/Two.md --
---
aliases:
  - twin
---
-- AI Tools.md --
-- Real.md --
---
aliases: [KI]
---
`)
	r, err := v.Resolver()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ link, obsidian, withAlias string }{
		{"[[AI]]", "unresolved", "KI.md (alias)"},
		{"[[ai#Intro]]", "unresolved #Intro", "KI.md #Intro (alias)"},
		{"[[künstliche intelligenz]]", "unresolved", "KI.md (alias)"},
		{"[[Twin]]", "unresolved", "ambiguous Twins/One.md,Twins/Two.md (alias)"},
		// A file name always beats an alias.
		{"[[KI]]", "KI.md", "KI.md"},
		{"[[AI Tools]]", "AI Tools.md", "AI Tools.md"},
		// Markdown links name files, never aliases.
		{"[x](AI.md)", "unresolved", "unresolved"},
	}
	for _, c := range cases {
		l := note.Parse([]byte(c.link)).Links[0]
		if got := resolved(r.Resolve("x.md", l)); got != c.obsidian {
			t.Errorf("Resolve(%s): got %q, want %q", c.link, got, c.obsidian)
		}
		if got := resolved(r.ResolveAlias("x.md", l)); got != c.withAlias {
			t.Errorf("ResolveAlias(%s): got %q, want %q", c.link, got, c.withAlias)
		}
	}
}

type resolveCase struct {
	from, link string // link as written in a note
	want       string // see resolved
}

// resolved renders a Resolution for comparison: "a/b.md #frag",
// "unresolved", "ambiguous [x y]"; a tie-broken choice lists the others.
func resolved(r note.Resolution) string {
	var s string
	switch r.Status {
	case note.Resolved:
		s = r.Target
		if len(r.Candidates) > 0 {
			s += " over " + strings.Join(r.Candidates[1:], ",")
		}
	case note.Ambiguous:
		s = "ambiguous " + strings.Join(r.Candidates, ",")
	default:
		s = "unresolved"
	}
	if r.Heading != "" {
		s += " #" + r.Heading
	}
	if r.Alias {
		s += " (alias)"
	}
	return s
}
