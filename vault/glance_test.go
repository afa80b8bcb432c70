package vault

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

// Glance answers what NotTextAt and ConflictAt answer and reads the
// note's first bytes, for every kind of text (UTF-8, every encoding that
// is not, conflict markers, shorter than, as long as and longer than the
// head), cold and remembered, and after every change of the note to
// another kind: its answers are checked against the bytes on disk after
// every step, not only against its own earlier answers.
func TestGlance_SameAsItsParts(t *testing.T) {
	const head = 64
	conflict := "# Plan\n\n<<<<<<< HEAD\nunsere Zeile\n=======\neure Zeile\n>>>>>>> main\n"
	texts := map[string]string{
		"short":         "# A\n\nText\n",
		"head long":     strings.Repeat("x", head),
		"long":          "---\nstatus: aktiv\n---\n# Lang\n\n" + strings.Repeat("Ein Satz über Äpfel. ", 40),
		"conflict":      conflict,
		"long conflict": strings.Repeat("Zeile davor\n", 20) + conflict,
		"empty":         "",
	}
	for name, src := range notTexts {
		texts[name] = src
	}
	var kinds []string
	for k := range texts {
		kinds = append(kinds, k)
	}
	v, dir := wOpen(t, map[string]string{"Ordner/Platzhalter.md": "# P\n"})
	check := func(step, p string) {
		t.Helper()
		buf := make([]byte, head)
		g := v.Glance(p, buf)
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			if g != (Glance{}) {
				t.Errorf("%s: %s cannot be read (%v) but Glance says %+v", step, p, err, g)
			}
			return
		}
		want := Glance{Found: true, NotText: note.CheckText(b), Conflict: v.ConflictIn(p, note.Parse(b)), Head: min(len(b), head), Whole: len(b) < head}
		if len(b) == head && g.Whole { // the head filled exactly: whole or not, both are true
			want.Whole = true
		}
		if !reflect.DeepEqual(g, want) {
			t.Errorf("%s: %s: Glance %+v, want %+v", step, p, g, want)
		}
		if !bytes.Equal(buf[:g.Head], b[:want.Head]) {
			t.Errorf("%s: %s: head %q, want %q", step, p, buf[:g.Head], b[:want.Head])
		}
		if got := v.NotTextAt(p); !reflect.DeepEqual(got, g.NotText) {
			t.Errorf("%s: %s: NotTextAt %+v, Glance %+v", step, p, got, g.NotText)
		}
		if got := v.ConflictAt(p); !reflect.DeepEqual(got, g.Conflict) {
			t.Errorf("%s: %s: ConflictAt %+v, Glance %+v", step, p, got, g.Conflict)
		}
	}
	mtime := time.Now().Add(-time.Hour)
	for i, from := range kinds {
		p := "Notizen/" + strings.ReplaceAll(from, " ", "-") + ".md"
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(texts[from]), 0o644)
		check(from+" cold", p)
		check(from+" remembered", p)
		// Then every other kind in turn, in a rotating order, each with
		// its own mtime (a change the size alone may not show).
		for j := range kinds {
			to := kinds[(i+j+1)%len(kinds)]
			os.WriteFile(full, []byte(texts[to]), 0o644)
			mtime = mtime.Add(time.Second)
			os.Chtimes(full, mtime, mtime)
			check(from+" → "+to, p)
			check(from+" → "+to+" remembered", p)
		}
	}
	check("a folder", "Ordner")
	check("a missing note", "Fehlt.md")
	check("outside the vault", "../x.md")
}
