package web

import (
	"context"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/tools"
)

func TestActivity_FilterByNoteAcrossMoves(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	ctx := context.Background()
	const before, after = "0_Inbox/Buchtipps.md", "3_Ressourcen/Bücher/Buchtipps.md"
	if r := f.core.AppendToNote(ctx, agent, tools.AppendArgs{Path: before, Content: "- Eins", ChangeSummary: "first book"}); r.IsError() {
		t.Fatal(r.Text)
	}
	n := f.core.ReadNote(ctx, agent, tools.ReadNoteArgs{Path: before})
	if r := f.core.MoveNote(ctx, agent, tools.MoveNoteArgs{Path: before, To: after, ChangeSummary: "filed the books", ExpectedVersion: n.Data.(tools.ReadNoteData).Note.Version}); r.IsError() {
		t.Fatal(r.Text)
	}
	if r := f.core.AppendToNote(ctx, agent, tools.AppendArgs{Path: after, Content: "- Zwei", ChangeSummary: "second book"}); r.IsError() {
		t.Fatal(r.Text)
	}
	if r := f.core.AppendToNote(ctx, agent, tools.AppendArgs{Path: "0_Inbox/Anruf Stadtwerke.md", Content: "- Rückruf", ChangeSummary: "another note"}); r.IsError() {
		t.Fatal(r.Text)
	}

	body := f.page("/?note=" + url.QueryEscape(after))
	for _, want := range []string{"Changes of " + after + ", across its moves", "first book", "filed the books", "second book",
		"then at " + before, `name="note" value="` + after + `"`, `<ins><span class="sr">added: </span>- Zwei</ins>`} {
		if !strings.Contains(body, want) {
			t.Errorf("activity of %s lacks %q\n%s", after, want, body)
		}
	}
	if strings.Contains(body, "another note") {
		t.Errorf("activity of %s shows a change of another note", after)
	}
	// The unfiltered list links each note to its history, and the
	// history to the note's activity; the links, followed, lead there
	// (the path is escaped once).
	all := f.page("/")
	for _, c := range []struct{ re, want string }{
		{`<a class="c-note" href="(/note\?path=[^"]+)"`, "History of <span translate=\"no\">"},
	} {
		links := regexp.MustCompile(c.re).FindAllStringSubmatch(all, -1)
		if len(links) < 3 {
			t.Fatalf("the activity list has %d links %s, want one per row\n%s", len(links), c.re, all)
		}
		seen := map[string]bool{}
		for _, l := range links {
			b := f.page(l[1])
			for _, p := range []string{after, "0_Inbox/Anruf Stadtwerke.md"} {
				if strings.Contains(b, c.want+p) {
					seen[p] = true
				}
			}
		}
		if !seen[after] || !seen["0_Inbox/Anruf Stadtwerke.md"] {
			t.Errorf("following %s does not lead to %q for each note: %v", c.re, c.want, seen)
		}
	}
	hist := f.page("/note?path=" + url.QueryEscape(after))
	if m := regexp.MustCompile(`class="btn note-activity" href="([^"]+)"`).FindStringSubmatch(hist); m == nil {
		t.Errorf("the history of %s does not link to its activity\n%s", after, hist)
	} else if b := f.page(html.UnescapeString(m[1])); !strings.Contains(b, "Changes of "+after) {
		t.Errorf("the history's link to the activity of %s leads to\n%s", after, b)
	}
	// A title names the note as note_history reads it; other filters narrow.
	if b := f.page("/?note=Buchtipps"); !strings.Contains(b, "second book") || !strings.Contains(b, "Changes of "+after) {
		t.Errorf("note filter by title:\n%s", b)
	}
	if b := f.page("/?note=" + url.QueryEscape(after) + "&space=0_Inbox"); !strings.Contains(b, "first book") || strings.Contains(b, "second book") {
		t.Errorf("note filter in space 0_Inbox must show the change made there, not the one after the move:\n%s", b)
	}
	if b := f.page("/?note=" + url.QueryEscape(after) + "&since=2999-01-01"); !strings.Contains(b, "No changes match") {
		t.Errorf("note filter since 2999:\n%s", b)
	}
	if b := f.page("/?note=" + url.QueryEscape(after) + "&actor=owner"); strings.Contains(b, "second book") {
		t.Errorf("note filter by owner shows the agent's change")
	}
	if b := f.page("/?note=" + url.QueryEscape(after) + "&since=soon"); !strings.Contains(b, `“soon” is not a time vaultd understands`) {
		t.Errorf("a bad time with the note filter is not explained:\n%s", b)
	}
	// An unknown note is explained with the closest notes, as note_history
	// explains it.
	if b := f.page("/?note=" + url.QueryEscape("0_Inbox/Buchtips.md")); !strings.Contains(b, "There is no note “0_Inbox/Buchtips.md”") || !strings.Contains(b, `translate="no">3_Ressourcen/Bücher/Buchtipps.md</a>`) {
		t.Errorf("unknown note:\n%s", b)
	}
	// Undo from the filtered list goes back to it.
	m := f.page("/?note=" + url.QueryEscape(after))
	if !strings.Contains(m, `name="back" value="/?note=`) {
		t.Errorf("the filtered list's undo does not come back to it")
	}
}
