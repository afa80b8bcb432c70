package vault

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/vaultd/vaultd/note"
)

func u16(s string, bom bool, big bool) string {
	var order binary.AppendByteOrder = binary.LittleEndian
	var out []byte
	if big {
		order = binary.BigEndian
	}
	if bom {
		out = order.AppendUint16(out, 0xFEFF)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		out = order.AppendUint16(out, u)
	}
	return string(out)
}

func u32(s string) string {
	out := binary.LittleEndian.AppendUint32(nil, 0xFEFF)
	for _, r := range s {
		out = binary.LittleEndian.AppendUint32(out, uint32(r))
	}
	return string(out)
}

// A board, a heading, a property, a tag and a link in every encoding that
// is not UTF-8 text.
const notTextSrc = "---\nkanban-plugin: basic\ntags: [team]\n---\n# Plan\n\n## Offen\n\n- [ ] Budget\n\n## Fertig\n\n- [ ] Start\n\nSiehe [[Ziel]].\n"

var notTexts = map[string]string{
	"utf-16 le":        u16(notTextSrc, true, false),
	"utf-16 be":        u16(notTextSrc, true, true),
	"utf-32 le":        u32(notTextSrc),
	"utf-16 le no bom": u16(notTextSrc, false, false),
	"latin-1":          strings.Replace(notTextSrc, "Budget", "Budget f\xfcr M\xfcller", 1),
	"nul":              strings.Replace(notTextSrc, "Budget", "Budget\x00", 1),
	"lfs pointer":      "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n",
}

// Every write that builds on a note's text refuses a note that is not
// UTF-8 text — nothing written, nothing recorded — while reads show it
// decoded, and a delete and its undo carry its bytes unchanged.
func TestNotText_EveryEditRefused(t *testing.T) {
	for name, src := range notTexts {
		t.Run(name, func(t *testing.T) {
			v, dir := wOpen(t, map[string]string{"Team/Plan.md": src, "Ziel.md": "# Ziel\n"})
			ver := note.Version([]byte(src))
			o := WriteOpts{Summary: "x", ExpectedVersion: ver}
			edits := map[string]func() error{
				"append": func() error { _, err := v.Append("Team/Plan.md", "", []byte("- neu"), wOpts("x")); return err },
				"append under a heading": func() error {
					_, err := v.Append("Team/Plan.md", "Offen", []byte("- neu"), wOpts("x"))
					return err
				},
				"update_section": func() error { _, err := v.UpdateSection("Team/Plan.md", "Offen", []byte("- neu"), o); return err },
				"replace":        func() error { _, err := v.Replace("Team/Plan.md", []byte("# Neu\n"), o); return err },
				"set_properties": func() error {
					_, _, err := v.SetProperties("Team/Plan.md", note.PropertyEdit{Set: map[string]any{"status": "aktiv"}}, wOpts("x"))
					return err
				},
				"add_tags":    func() error { _, _, err := v.AddTags("Team/Plan.md", []string{"neu"}, wOpts("x")); return err },
				"remove_tags": func() error { _, _, err := v.RemoveTags("Team/Plan.md", []string{"team"}, wOpts("x")); return err },
				"add_card":    func() error { _, _, err := v.AddCard("Team/Plan.md", "Offen", "neu", 0, wOpts("x")); return err },
				"move_card": func() error {
					_, _, err := v.MoveCard("Team/Plan.md", note.CardMove{Card: "Start", ToColumn: "Offen"}, wOpts("x"))
					return err
				},
				"resolve_conflict both": func() error {
					_, err := v.ResolveConflict("Team/Plan.md", ConflictResolution{Take: TakeBoth}, wOpts("x"))
					return err
				},
				"resolve_conflict text": func() error {
					_, err := v.ResolveConflict("Team/Plan.md", ConflictResolution{Take: TakeText, Text: []byte("# Plan\n")}, wOpts("x"))
					return err
				},
				"resolve_conflict ours (not unmerged)": func() error {
					_, err := v.ResolveConflict("Team/Plan.md", ConflictResolution{Take: TakeOurs}, wOpts("x"))
					return err
				},
			}
			for what, edit := range edits {
				err := edit()
				if !errors.Is(err, ErrNotText) {
					t.Errorf("%s: got %v, want ErrNotText", what, err)
					continue
				}
				if e, _ := note.AsError(err); e.Path != "Team/Plan.md" || !strings.Contains(e.Msg, "nothing was changed") {
					t.Errorf("%s: error %+v", what, e)
				}
				if got := wRead(t, dir, "Team/Plan.md"); got != src {
					t.Fatalf("%s changed the note: %q", what, got)
				}
			}
			if h, _ := v.History(HistoryFilter{Path: "Team/Plan.md"}); len(h) != 0 {
				t.Errorf("history after refused edits: %+v", h)
			}

			// Read: the text a reader is shown, parsed (never for an LFS
			// pointer, which has no text of the note).
			n, err := v.Read("Team/Plan.md")
			if err != nil || n.NotText == nil || n.Version != ver {
				t.Fatalf("read: %+v, %v", n, err)
			}
			if name != "lfs pointer" {
				if got := n.Doc.HeadingPaths(); len(got) != 3 || got[2] != "Plan > Fertig" {
					t.Errorf("headings of the decoded text: %q", got)
				}
				if len(n.Doc.Links) != 1 || n.Doc.Links[0].Target != "Ziel" {
					t.Errorf("links of the decoded text: %+v", n.Doc.Links)
				}
			}

			// A delete keeps the bytes; its undo brings them back as they were.
			d, err := v.Delete("Team/Plan.md", WriteOpts{Summary: "weg", ExpectedVersion: ver})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.Undo(d.ChangeID, WriteOpts{}); err != nil {
				t.Fatalf("undo of the delete: %v", err)
			}
			if got := wRead(t, dir, "Team/Plan.md"); got != src {
				t.Errorf("restored: %q, want the bytes deleted", got)
			}
		})
	}
}

// A write never publishes a text that is not UTF-8: a new note's text or
// a replacement given as Latin-1, UTF-16 or with a NUL (a file a person
// passes to the command line) is refused.
func TestNotText_NewTextRefused(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"A.md": "# A\n\nText\n"})
	for _, bad := range []string{"# Caf\xe9\n", u16("# A\n", true, false), "a\x00b\n", u16("# A\n", false, false)} {
		if _, err := v.Create("Neu.md", []byte(bad), wOpts("neu")); !errors.Is(err, ErrNotText) {
			t.Errorf("create %q: got %v, want ErrNotText", bad, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "Neu.md")); err == nil {
			t.Fatalf("create %q wrote the note", bad)
		}
		if _, err := v.Replace("A.md", []byte(bad), WriteOpts{Summary: "x", ExpectedVersion: wVersion(t, dir, "A.md")}); !errors.Is(err, ErrNotText) {
			t.Errorf("replace with %q: got %v, want ErrNotText", bad, err)
		}
		if _, err := v.Append("A.md", "", []byte(bad), wOpts("x")); !errors.Is(err, ErrNotText) {
			t.Errorf("append of %q: got %v, want ErrNotText", bad, err)
		}
	}
	if got := wRead(t, dir, "A.md"); got != "# A\n\nText\n" {
		t.Errorf("A.md: %q", got)
	}
}

// The links in a note that is not UTF-8 are not rewritten when the note
// they lead to moves: the move goes ahead and names the note whose links
// stay, and why.
func TestNotText_MoveLeavesItsLinks(t *testing.T) {
	for _, name := range []string{"utf-16 le", "latin-1"} {
		v, dir := wOpen(t, map[string]string{"Team/Plan.md": notTexts[name], "Ziel.md": "# Ziel\n", "B.md": "[[Ziel]]\n"})
		res, err := v.Move("Ziel.md", "Archiv/Zweck.md", WriteOpts{Summary: "umgezogen", ExpectedVersion: wVersion(t, dir, "Ziel.md")})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := wRead(t, dir, "Team/Plan.md"); got != notTexts[name] {
			t.Errorf("%s: the note that is not UTF-8 was rewritten: %q", name, got)
		}
		if got := wRead(t, dir, "B.md"); got != "[[Zweck]]\n" {
			t.Errorf("%s: B.md: %q", name, got)
		}
		if len(res.Issues) != 1 || res.Issues[0].Path != "Team/Plan.md" || !strings.Contains(res.Issues[0].Reason, "1 link not updated: the note is") || !strings.Contains(res.Issues[0].Reason, "vaultd edits only UTF-8 notes") {
			t.Errorf("%s: issues %+v", name, res.Issues)
		}
	}
}

// An undo puts back the text from before a change byte for byte: a note a
// program turned into UTF-16 (recorded as an external change) goes back
// to its UTF-8 text.
func TestNotText_UndoOfExternalChangeBringsUTF8Back(t *testing.T) {
	v, dir := wOpen(t, map[string]string{})
	if _, err := v.Create("A.md", []byte("# A\n\nText\n"), wOpts("neu")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "A.md"), []byte(u16("# A\n\nText\n", true, false)), 0o644)
	if _, err := v.RecoverChanges(); err != nil {
		t.Fatal(err)
	}
	h, err := v.History(HistoryFilter{Path: "A.md", Limit: 1})
	if err != nil || len(h) != 1 || h[0].Op != "external" {
		t.Fatalf("history: %+v, %v", h, err)
	}
	nh, err := v.NoteHistory("A.md", HistoryQuery{})
	if err != nil || len(nh.Entries) == 0 || nh.Entries[0].DiffNote != "the same text, from UTF-8 to UTF-16 LE" {
		t.Errorf("note history: %+v, %v", nh, err)
	}
	if _, err := v.Undo(h[0].ID, WriteOpts{}); err != nil {
		t.Fatal(err)
	}
	if got := wRead(t, dir, "A.md"); got != "# A\n\nText\n" {
		t.Errorf("after the undo: %q", got)
	}
}
