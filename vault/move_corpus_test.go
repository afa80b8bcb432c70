package vault

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

// mTargets resolves every link of the vault: note path → the target of
// each of its links in order ("" unresolved, "?" ambiguous).
func mTargets(t *testing.T, v *Vault) (map[string][]string, int) {
	t.Helper()
	notes, err := v.Notes()
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.Resolver()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	unresolved := 0
	for _, n := range notes {
		for _, l := range n.Doc.Links {
			res := r.Resolve(n.Path, l)
			switch res.Status {
			case note.Unresolved:
				unresolved++
				out[n.Path] = append(out[n.Path], "")
			case note.Ambiguous:
				out[n.Path] = append(out[n.Path], "?")
			default:
				out[n.Path] = append(out[n.Path], res.Target)
			}
		}
	}
	return out, unresolved
}

// Moving folders with children in Obsidian's German help vault leaves the
// number of unresolved links as it was, and every link leads to the same
// file as before (at its new place). "Erweiterungen" holds "Vorlagen",
// a name "Obsidian Web Clipper" has too: "Obsidian erweitern/Obsidian
// CLI.md" links [[Vorlagen]] and gets the shorter path, Erweiterungen's;
// moved one folder deeper it would be the longer one, so that link must
// name its folder now. "Obsidian Sync" shares "Sicherheit und Datenschutz"
// with "Obsidian Publish"; its own links keep preferring their own folder.
func TestMove_CorpusFoldersKeepLinks(t *testing.T) {
	v := openLinkVault(t, copyTree(t, corpusDir(t, "obsidian-help-de")))
	before, unresolvedBefore := mTargets(t, v)
	moves := []struct{ from, to string }{
		{"Bases", "Daten/Bases"},
		{"Obsidian Sync", "Dienste/Obsidian Sync"},
		{"Notizen und Dateien verknüpfen", "Daten/"},
		{"Erweiterungen", "Kernfunktionen/"},
	}
	moved := map[string]string{}
	for _, m := range moves {
		res, err := v.Move(m.from, m.to, WriteOpts{Summary: "umgeräumt"})
		if err != nil {
			t.Fatalf("Move(%q, %q): %v", m.from, m.to, err)
		}
		if res.SubNotes == 0 || len(res.Pending) != 0 {
			t.Errorf("move %s: %+v", m.from, res)
		}
		for _, f := range res.Moved {
			for old, cur := range moved {
				if cur == f.From {
					moved[old] = f.To
				}
			}
			if _, ok := moved[f.From]; !ok {
				moved[f.From] = f.To
			}
		}
		t.Logf("%s → %s: %s", m.from, res.To, res.Detail)
		for _, is := range res.Issues {
			t.Logf("  issue %s:%d %s: %s", is.Path, is.Line, is.Link, is.Reason)
		}
	}
	after, unresolvedAfter := mTargets(t, v)
	if unresolvedAfter != unresolvedBefore {
		t.Errorf("unresolved links: %d before the moves, %d after", unresolvedBefore, unresolvedAfter)
	}
	np := func(p string) string {
		if n, ok := moved[p]; ok {
			return n
		}
		return p
	}
	var diffs []string
	for p, targets := range before {
		got := after[np(p)]
		if len(got) != len(targets) {
			diffs = append(diffs, fmt.Sprintf("%s: %d links before, %d after", p, len(targets), len(got)))
			continue
		}
		for i, t0 := range targets {
			if want := np(t0); t0 != "" && t0 != "?" && got[i] != want {
				diffs = append(diffs, fmt.Sprintf("%s link %d: led to %s, now to %q", p, i+1, want, got[i]))
			}
		}
	}
	if b, _ := v.ReadFile("Obsidian erweitern/Obsidian CLI.md"); !strings.Contains(string(b), "[[Erweiterungen/Vorlagen]]") {
		t.Errorf("the [[Vorlagen]] link of Obsidian CLI.md does not name its folder after the move")
	}
	if len(diffs) > 0 {
		t.Errorf("%d links lead elsewhere after the moves:\n%s", len(diffs), strings.Join(diffs[:min(len(diffs), 20)], "\n"))
	}
}
