package note

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// resolved renders a Resolution for comparison: "a/b.md #frag",
// "unresolved", "ambiguous [x y]"; a tie-broken choice lists the others.
func resolved(r Resolution) string {
	var s string
	switch r.Status {
	case Resolved:
		s = r.Target
		if len(r.Candidates) > 0 {
			s += " over " + strings.Join(r.Candidates[1:], ",")
		}
	case Ambiguous:
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

func TestResolve_EmptyTarget(t *testing.T) {
	r := NewResolver([]string{"a/Note.md"})
	l := Link{Fragment: "Local"}
	if got := resolved(r.Resolve("a/Note.md", l)); got != "a/Note.md #Local" {
		t.Errorf("[[#Local]] in a/Note.md: got %q, want %q", got, "a/Note.md #Local")
	}
	// Without a linking note there is nothing to point at.
	if got := resolved(r.Resolve("", l)); got != "unresolved #Local" {
		t.Errorf("[[#Local]] without a source: got %q, want %q", got, "unresolved #Local")
	}
}

func TestResolveName(t *testing.T) {
	r := NewResolver([]string{"Projekte/Alpha.md", "Alt/Beta.md", "Neu/Beta.md", "img/x.png"})
	cases := []struct{ in, want string }{
		{"Alpha", "Projekte/Alpha.md"},
		{"alpha.md", "Projekte/Alpha.md"},
		{"[[Alpha]]", "Projekte/Alpha.md"},
		{"[[Alpha#Ziele|die Ziele]]", "Projekte/Alpha.md #Ziele"},
		{"Alpha#^block", "Projekte/Alpha.md #^block"},
		{"![[x.png]]", "img/x.png"},
		{"  [[ Projekte/Alpha ]] ", "Projekte/Alpha.md"},
		{"Beta", "ambiguous Alt/Beta.md,Neu/Beta.md"},
		{"Gamma", "unresolved"},
		{"", "unresolved"},
	}
	for _, c := range cases {
		if got := resolved(r.ResolveName("", c.in)); got != c.want {
			t.Errorf("ResolveName(%q): got %q, want %q", c.in, got, c.want)
		}
	}
	// From a note in Neu/, its own folder decides.
	if got, want := resolved(r.ResolveName("Neu/Index.md", "Beta")), "Neu/Beta.md over Alt/Beta.md"; got != want {
		t.Errorf("ResolveName(\"Beta\") from Neu/Index.md: got %q, want %q", got, want)
	}
}

func TestSplitLinkText(t *testing.T) {
	cases := []struct{ in, target, frag string }{
		{"Note", "Note", ""},
		{"[[Note]]", "Note", ""},
		{"![[Note#H|L]]", "Note", "H"},
		{"Note#A#B", "Note", "A#B"},
		{`Note\|L`, "Note", ""},
		{`Note#H\|L`, "Note", "H"},
		{"[[#Local]]", "", "Local"},
		{"[[Note", "[[Note", ""},
	}
	for _, c := range cases {
		tg, fr := SplitLinkText(c.in)
		if tg != c.target || fr != c.frag {
			t.Errorf("SplitLinkText(%q): got %q, %q; want %q, %q", c.in, tg, fr, c.target, c.frag)
		}
	}
}

// A Resolver is shared by concurrent readers (run with -race).
func TestResolve_Concurrent(t *testing.T) {
	var paths []string
	for i := range 200 {
		paths = append(paths, fmt.Sprintf("f%d/Note.md", i%7), fmt.Sprintf("f%d/n%d.md", i%7, i))
	}
	r := NewResolver(paths).WithAliases(map[string][]string{"f1/n1.md": {"Eins"}})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				r.ResolveName(fmt.Sprintf("f%d/x.md", g%7), "Note")
				r.ResolveAlias("x.md", Link{Target: "Eins"})
				r.ResolveName("", fmt.Sprintf("n%d", i))
			}
		})
	}
	wg.Wait()
}

func TestJoinInside(t *testing.T) {
	cases := []struct {
		dir, rel, want string
		ok             bool
	}{
		{"a", "../y", "y", true},
		{"a/b", "../../y", "y", true},
		{"a", "../../y", "", false},
		{"", "../y", "", false},
		{"a", "./x/../y", "a/y", true},
		{"", ".", "", false},
	}
	for _, c := range cases {
		got, ok := JoinInside(c.dir, c.rel)
		if got != c.want || ok != c.ok {
			t.Errorf("JoinInside(%q, %q): got %q, %v; want %q, %v", c.dir, c.rel, got, ok, c.want, c.ok)
		}
	}
}
