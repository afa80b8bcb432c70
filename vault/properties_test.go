package vault

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

// TestProperties_Corpus sets and removes a property on every note of the
// Obsidian help vault that has frontmatter: every note must end
// byte-identical, through the full write protocol.
func TestProperties_Corpus(t *testing.T) {
	dir := copyTree(t, corpusDir(t, "obsidian-help-en"))
	v, err := Open(dir, Options{StateDir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var paths []string
	_ = v.Walk(func(e Entry) error {
		if e.Note {
			paths = append(paths, e.Path)
		}
		return nil
	})
	tested := 0
	for _, p := range paths {
		orig, err := v.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, ok := note.SplitFrontmatter(orig); !ok {
			continue
		}
		tested++
		o := WriteOpts{Summary: "corpus round trip"}
		if _, _, err := v.SetProperties(p, note.PropertyEdit{Set: map[string]any{"vaultd-test": []any{"a", "2026-11-29"}}}, o); err != nil {
			t.Errorf("%s: set: %v", p, err)
			continue
		}
		if _, _, err := v.SetProperties(p, note.PropertyEdit{Remove: []string{"vaultd-test"}}, o); err != nil {
			t.Errorf("%s: remove: %v", p, err)
			continue
		}
		if now, _ := v.ReadFile(p); !bytes.Equal(now, orig) {
			t.Errorf("%s: not byte-identical after set and remove:\n got %q\nwant %q", p, now, orig)
		}
	}
	if tested == 0 {
		t.Fatal("no note with frontmatter in the corpus")
	}
	t.Logf("%d of %d notes have frontmatter; each is byte-identical after set and remove", tested, len(paths))
}

// TestSetProperties_Protocol: a property write goes through the write
// protocol: history, policy, change notification, version precondition.
func TestSetProperties_Protocol(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"A.md": "---\nstatus: alt\nb: 1\n---\nText\n", "Archiv/B.md": "x\n"})
	var notified []string
	v.OnChange(func(p ...string) { notified = append(notified, p...) })
	v0 := note.Version([]byte("---\nstatus: alt\nb: 1\n---\nText\n"))

	res, ch, err := v.SetProperties("A", note.PropertyEdit{Set: map[string]any{"status": "neu"}}, WriteOpts{Summary: "Status", Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 || ch[0].Action != "changed" || ch[0].Old != "alt" || ch[0].New != "neu" {
		t.Errorf("changes: got %+v", ch)
	}
	if res.Before != v0 || res.ChangeID == "" || fmt.Sprint(notified) != "[A.md]" {
		t.Errorf("result %+v, notified %v", res, notified)
	}
	hist, _ := v.History(HistoryFilter{Path: "A.md"})
	if len(hist) != 1 || hist[0].Op != "set_properties" || hist[0].Summary != "Status" || hist[0].Before != v0 {
		t.Errorf("history: got %+v", hist)
	}

	// A stale version: applies when the key is untouched since, else conflict.
	if _, _, err := v.SetProperties("A", note.PropertyEdit{Set: map[string]any{"b": 2.0}}, WriteOpts{Summary: "b", ExpectedVersion: v0}); err != nil {
		t.Errorf("rebase over a change of another key: %v", err)
	}
	_, _, err = v.SetProperties("A", note.PropertyEdit{Set: map[string]any{"status": "x"}}, WriteOpts{Summary: "s", ExpectedVersion: v0})
	if e, ok := note.AsError(err); !errors.Is(err, note.ErrConflict) || !ok || e.Expected != v0 {
		t.Errorf("stale version on a changed key: got %v, want a conflict", err)
	}
	_, _, err = v.SetProperties("A", note.PropertyEdit{Set: map[string]any{"status": "x"}}, WriteOpts{Summary: "s", ExpectedVersion: strings.Repeat("0", 12)})
	if !errors.Is(err, note.ErrConflict) {
		t.Errorf("unknown version: got %v, want a conflict", err)
	}

	// Policy: denied writes leave the note alone.
	v.SetPolicy(denyUnder{"Archiv/"})
	before, _ := os.ReadFile(filepath.Join(dir, "Archiv", "B.md"))
	if _, _, err := v.SetProperties("Archiv/B", note.PropertyEdit{Set: map[string]any{"a": "b"}}, WriteOpts{Summary: "x"}); !errors.Is(err, ErrDenied) {
		t.Errorf("protected: got %v, want ErrDenied", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "Archiv", "B.md")); !bytes.Equal(before, after) {
		t.Error("a denied write changed the note")
	}

	// Invalid YAML: refused, the note is not touched.
	bad := "---\na: [\n---\nText\n"
	if err := os.WriteFile(filepath.Join(dir, "C.md"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := v.SetProperties("C", note.PropertyEdit{Set: map[string]any{"a": "b"}}, WriteOpts{Summary: "x"}); !errors.Is(err, note.ErrInvalid) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("invalid YAML: got %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "C.md")); string(b) != bad {
		t.Error("a note with invalid YAML was changed")
	}
	if _, _, err := v.SetProperties("C", note.PropertyEdit{}, WriteOpts{Summary: "x"}); !errors.Is(err, note.ErrInvalid) {
		t.Errorf("no changes: got %v", err)
	}
	if _, _, err := v.SetProperties("Nope", note.PropertyEdit{Set: map[string]any{"a": "b"}}, WriteOpts{Summary: "x"}); !errors.Is(err, note.ErrNotFound) {
		t.Errorf("missing note: got %v", err)
	}
}

func (d denyUnder) CheckWrite(c WriteCheck) error {
	if strings.HasPrefix(c.Path, d.prefix) {
		return &note.Error{Op: c.Op, Path: c.Path, Kind: ErrDenied, Msg: "protected", Rule: d.prefix + "**"}
	}
	return nil
}

// denyUnder is a Policy refusing writes below a folder.
type denyUnder struct{ prefix string }

func (d denyUnder) PlaceNew(p string) string { return p }
