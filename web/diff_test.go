package web

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/tools"
)

func TestSideBySide_PairsRemovedWithAdded(t *testing.T) {
	a := "eins\nzwei\ndrei\nvier\nfünf\n"
	b := "eins\nZWEI\nDREI\nneu\nvier\nfünf\nsechs\n"
	lines, note := parseUnified(note.LineDiff([]byte(a), []byte(b), 0).Text)
	if note != "" {
		t.Fatalf("note %q", note)
	}
	var got []string
	for _, r := range sideBySide(lines) {
		cell := func(l *diffLine, n func(*diffLine) int) string {
			if l == nil {
				return "·"
			}
			return fmt.Sprintf("%d%s%s", n(l), map[string]string{"ctx": " ", "del": "-", "add": "+"}[l.Kind], l.Text)
		}
		if r.Hunk != "" {
			got = append(got, r.Hunk)
			continue
		}
		got = append(got, cell(r.Left, func(l *diffLine) int { return l.Old })+" | "+cell(r.Right, func(l *diffLine) int { return l.New }))
	}
	want := []string{
		"@@ -1,5 +1,7 @@",
		"1 eins | 1 eins",
		"2-zwei | 2+ZWEI",
		"3-drei | 3+DREI",
		"· | 4+neu",
		"4 vier | 5 vier",
		"5 fünf | 6 fünf",
		"· | 7+sechs",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("side by side of\n%s→\n%s\ngot\n%s\nwant\n%s", a, b, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestNoteDiff_AnyTwoVersions(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	ctx := context.Background()
	const p = "0_Inbox/Buchtipps.md"
	v0 := note.ShortVersion(f.core.ReadNote(ctx, agent, tools.ReadNoteArgs{Path: p}).Data.(tools.ReadNoteData).Note.Version)
	var vs []string
	for _, book := range []string{"Eins", "Zwei", "Drei"} {
		r := f.core.AppendToNote(ctx, agent, tools.AppendArgs{Path: p, Content: "- " + book, ChangeSummary: "book " + book})
		if r.IsError() {
			t.Fatal(r.Text)
		}
		vs = append(vs, note.ShortVersion(r.Data.(tools.WriteData).Note.Version))
	}
	// The note's page offers every version on both sides, newest first,
	// and a link from each earlier one to the current.
	body := f.page("/note?path=" + url.QueryEscape(p))
	opts := regexp.MustCompile(`<select name="from">(.*?)</select>`).FindStringSubmatch(body)
	if opts == nil {
		t.Fatalf("the note's page has no version select\n%s", body)
	}
	got := regexp.MustCompile(`value="([0-9a-f]+)"`).FindAllStringSubmatch(opts[1], -1)
	if len(got) != 4 || got[0][1] != vs[2] || got[3][1] != v0 {
		t.Errorf("versions offered: %v, want %s … %s (4)", got, vs[2], v0)
	}
	if !strings.Contains(opts[1], `value="`+vs[1]+`" selected`) {
		t.Errorf("the from side does not default to the version before the current")
	}
	link := regexp.MustCompile(`<a class="btn compare-current" href="(/note/diff\?[^"]+)">`).FindStringSubmatch(body)
	if link == nil {
		t.Fatalf("no link to compare an earlier version with the current\n%s", body)
	}
	if b := f.page(html.UnescapeString(link[1])); !regexp.MustCompile(`<select name="to"><option value="` + vs[2] + `" selected>`).MatchString(b) {
		t.Errorf("compare with current does not compare with %s\n%s", vs[2], b)
	}

	// Any two: the first and the last, inline; lines marked by sign and
	// by text, not by colour alone.
	b := f.page("/note/diff?path=" + url.QueryEscape(p) + "&from=" + v0 + "&to=" + vs[2])
	for _, want := range []string{"Compare versions of <span translate=\"no\">" + p, `value="` + v0 + `" selected`, `value="` + vs[2] + `" selected`, "6 lines added (+), 0 removed",
		`<ins><span class="sr">added: </span>- Eins</ins>`, `<ins><span class="sr">added: </span>- Drei</ins>`, `<td class="sign" aria-hidden="true">+</td>`} {
		if !strings.Contains(b, want) {
			t.Errorf("inline diff %s→%s lacks %q\n%s", v0, vs[2], want, b)
		}
	}
	// Backwards, side by side: the removed lines on the left.
	b = f.page("/note/diff?path=" + url.QueryEscape(p) + "&from=" + vs[2] + "&to=" + vs[0] + "&view=side")
	for _, want := range []string{`class="dt sdiff"`, "0 lines added (+), 4 removed", `<del><span class="sr">removed: </span>- Zwei</del>`, `<td class="t none"></td>`, `value="side" checked`} {
		if !strings.Contains(b, want) {
			t.Errorf("side-by-side diff %s→%s lacks %q\n%s", vs[2], vs[0], want, b)
		}
	}
	if b := f.page("/note/diff?path=" + url.QueryEscape(p) + "&from=" + vs[1] + "&to=" + vs[1]); !strings.Contains(b, "same lines") {
		t.Errorf("a version with itself:\n%s", b)
	}
	if b := f.page("/note/diff?path=" + url.QueryEscape(p) + "&from=0123456789ab&to=" + vs[1]); !strings.Contains(b, "The text of version 0123456789ab is not kept") {
		t.Errorf("an unknown version:\n%s", b)
	}
	if b := f.page("/note/diff?path=" + url.QueryEscape("0_Inbox/Nope.md")); !strings.Contains(b, "There is no note “0_Inbox/Nope.md”") {
		t.Errorf("an unknown note:\n%s", b)
	}
}

func TestNoteDiff_HugeNoteBounded(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	ctx := context.Background()
	const p = "3_Ressourcen/Lang.md"
	var a, b strings.Builder
	a.WriteString("---\ntags: [x]\n---\n# Lang\n")
	b.WriteString("---\ntags: [x]\n---\n# Lang\n")
	for i := range 1000 {
		fmt.Fprintf(&a, "Zeile %d alt\n", i)
		if i%2 == 0 {
			fmt.Fprintf(&b, "Zeile %d neu\n", i) // every other line: within what a line diff takes
		} else {
			fmt.Fprintf(&b, "Zeile %d alt\n", i)
		}
	}
	want := note.LineDiff([]byte(a.String()), []byte(b.String()), 0)
	if want.Total <= compareLines || want.Added != 500 {
		t.Fatalf("the fixture's diff has %d lines, +%d; want more than %d, +500", want.Total, want.Added, compareLines)
	}
	must(t, os.WriteFile(filepath.Join(f.dir, filepath.FromSlash(p)), []byte(a.String()), 0o644))
	n := f.core.ReadNote(ctx, agent, tools.ReadNoteArgs{Path: p})
	old := n.Data.(tools.ReadNoteData).Note.Version
	r := f.core.ReplaceNote(ctx, tools.Caller{Actor: "owner", Perms: tools.AllPerms, Door: tools.DoorCLI}, tools.ReplaceArgs{Path: p, Content: b.String(), ChangeSummary: "rewrote every line", ExpectedVersion: old})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	body := f.page("/note/diff?path=" + url.QueryEscape(p))
	if !strings.Contains(body, "500 lines added (+), 500 removed") {
		t.Errorf("the stat does not count every line\n%.2000s", body)
	}
	m := regexp.MustCompile(`(\d+) more lines of the comparison are not shown`).FindStringSubmatch(body)
	if m == nil || m[1] != fmt.Sprint(want.Total-compareLines) {
		t.Errorf("the bounded diff says %v, want %d more lines (%d diff lines, %d shown)", m, want.Total-compareLines, want.Total, compareLines)
	}
	if rows := strings.Count(body, "<tr class="); rows > compareLines {
		t.Errorf("%d diff rows on the page, want at most %d", rows, compareLines)
	}
	// A rewrite of every line is more than a line diff takes: said so,
	// with the counts.
	c := strings.ReplaceAll(a.String(), "alt", "ganz neu")
	n = f.core.ReadNote(ctx, agent, tools.ReadNoteArgs{Path: p})
	if r := f.core.ReplaceNote(ctx, tools.Caller{Actor: "owner", Perms: tools.AllPerms, Door: tools.DoorCLI}, tools.ReplaceArgs{Path: p, Content: c, ChangeSummary: "rewrote it all", ExpectedVersion: n.Data.(tools.ReadNoteData).Note.Version}); r.IsError() {
		t.Fatal(r.Text)
	}
	if body := f.page("/note/diff?path=" + url.QueryEscape(p) + "&view=side"); !strings.Contains(body, "The texts differ too much for a line diff: 1004 lines before, 1004 after") {
		t.Errorf("a rewrite of every line:\n%.3000s", body)
	}
}
