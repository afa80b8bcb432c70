package web

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/tools"
)

// Every refused undo is said in the owner's language with what to do
// next, and the German page shows none of the core's English.
func TestUndo_RefusalsInWords(t *testing.T) {
	f := newFixture(t)
	f.signIn()
	ctx := context.Background()
	flashRE := regexp.MustCompile(`(?s)<div class="flash err" role="status">.*?</div>\s*</div>`)
	undo := func(id, lang string) string {
		return flashRE.FindString(f.postLang("/undo", url.Values{"change": {id}, "back": {"/"}}, lang))
	}

	// Edited outside vaultd since: open the history, pick the text there.
	r := f.core.AppendToNote(ctx, agent, tools.AppendArgs{Path: "0_Inbox/Buchtipps.md", Content: "- Eins", ChangeSummary: "one"})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	one := r.Data.(tools.WriteData).ChangeID
	p := filepath.Join(f.dir, "0_Inbox", "Buchtipps.md")
	b, _ := os.ReadFile(p)
	must(t, os.WriteFile(p, append(b, "von Hand\n"...), 0o644))
	// The created note moved away meanwhile: it is gone from where it was.
	r = f.core.CreateNote(ctx, agent, tools.CreateNoteArgs{Path: "0_Inbox/Neu.md", Content: "---\ntags: [x]\n---\n# Neu\n", ChangeSummary: "new"})
	if r.IsError() {
		t.Fatal(r.Text)
	}
	created := r.Data.(tools.WriteData).ChangeID
	must(t, os.Rename(filepath.Join(f.dir, "0_Inbox", "Neu.md"), filepath.Join(f.dir, "0_Inbox", "Anders.md")))

	for _, c := range []struct {
		name, id string
		en, de   []string
	}{
		{"edited outside", one,
			[]string{"edited outside vaultd after this change", `href="/note?path=0_Inbox%2FBuchtipps.md">Open the note's history</a>`},
			[]string{"außerhalb von vaultd bearbeitet", "Verlauf der Notiz öffnen"}},
		{"gone", created,
			[]string{"The note is no longer where this change left it", `href="/trash">Open the trash</a>`},
			[]string{"Die Notiz ist nicht mehr dort, wo diese Änderung sie hinterlassen hat", "Papierkorb öffnen"}},
		{"unknown", "20990101T000000.000000Z-000000",
			[]string{"vaultd has no record of this change", "Reload the list"},
			[]string{"vaultd kennt diese Änderung nicht", "Liste neu laden"}},
	} {
		en := undo(c.id, "en")
		for _, want := range append(c.en, "Not undone", "What vaultd answered") {
			if !strings.Contains(en, want) {
				t.Errorf("%s, English: lacks %q\n%s", c.name, want, en)
			}
		}
		de := undo(c.id, "de")
		for _, want := range append(c.de, "Nicht rückgängig gemacht") {
			if !strings.Contains(de, want) {
				t.Errorf("%s, German: lacks %q\n%s", c.name, want, de)
			}
		}
		if strings.Contains(de, "cannot") || strings.Contains(de, "change ") || strings.Contains(de, c.id) {
			t.Errorf("%s, German: the core's English or the change id shows\n%s", c.name, de)
		}
	}
}
