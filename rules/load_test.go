package rules

import (
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

const regeln = "9_System/Regeln für Agenten.md"

func TestLoad_ListForm(t *testing.T) {
	r := load(t, `
-- 9_System/Regeln für Agenten.md --
---
title: Regeln für Agenten
protected:
  - "4_Archiv/**"
  - 5_Privat
inbox: 0_Inbox
required_properties:
  - tags
  - status
---
Schreibe auf Deutsch.

Neue Notizen kommen in die Inbox.
-- 1_Projekte/Alpha.md --
# Alpha
`)
	want := &Rules{
		Notes: []Note{{
			Path:     regeln,
			Title:    "Regeln für Agenten",
			Guidance: "Schreibe auf Deutsch.\n\nNeue Notizen kommen in die Inbox.",
		}},
		Protected:   []Rule{{"9_System/**", ""}, {"4_Archiv/**", regeln}, {"5_Privat", regeln}},
		Inbox:       "0_Inbox",
		InboxSource: regeln,
		Required:    []Rule{{"tags", regeln}, {"status", regeln}},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("Load:\ngot  %+v\nwant %+v", r, want)
	}
}

func TestLoad_StringForm(t *testing.T) {
	r := load(t, `
-- 9_System/Regeln.md --
---
protected: 4_Archiv/**
required_properties: tags
inbox: /0_Inbox/
---
Text.
`)
	want := &Rules{
		Notes:       []Note{{Path: "9_System/Regeln.md", Title: "Regeln", Guidance: "Text."}},
		Protected:   []Rule{{"9_System/**", ""}, {"4_Archiv/**", "9_System/Regeln.md"}},
		Inbox:       "0_Inbox",
		InboxSource: "9_System/Regeln.md",
		Required:    []Rule{{"tags", "9_System/Regeln.md"}},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("Load:\ngot  %+v\nwant %+v", r, want)
	}
}

// Two notes add up; each rule keeps the note that declared it first, and
// notes are taken in path order (A.md before A/, unlike a directory walk).
func TestLoad_MergeTwoNotes(t *testing.T) {
	r := load(t, `
-- 9_System/A/Mehr.md --
---
protected: [4_Archiv/**, "6_Vertraulich/**", "9_System/**"]
required_properties: [tags, status]
---
Mehr Regeln.
-- 9_System/A.md --
---
protected: ["4_archiv/**/"]
required_properties: tags
---
Erste Regeln.
`)
	wantProtected := []Rule{
		{"9_System/**", ""},
		{"4_archiv/**/", "9_System/A.md"},
		{"6_Vertraulich/**", "9_System/A/Mehr.md"},
	}
	wantRequired := []Rule{{"tags", "9_System/A.md"}, {"status", "9_System/A/Mehr.md"}}
	if !reflect.DeepEqual(r.Protected, wantProtected) {
		t.Errorf("Protected:\ngot  %+v\nwant %+v", r.Protected, wantProtected)
	}
	if !reflect.DeepEqual(r.Required, wantRequired) {
		t.Errorf("Required:\ngot  %+v\nwant %+v", r.Required, wantRequired)
	}
	var paths []string
	for _, n := range r.Notes {
		paths = append(paths, n.Path)
	}
	if want := []string{"9_System/A.md", "9_System/A/Mehr.md"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("note order: got %q, want %q", paths, want)
	}
	if len(r.Problems) != 0 {
		t.Errorf("Problems: got %q, want none", r.Problems)
	}
}

func TestLoad_ConflictingInbox(t *testing.T) {
	r := load(t, `
-- 9_System/B.md --
---
inbox: Eingang
---
-- 9_System/A.md --
---
inbox: 0_Inbox
---
-- 9_System/C.md --
---
inbox: 0_inbox/
---
`)
	if r.Inbox != "0_Inbox" || r.InboxSource != "9_System/A.md" {
		t.Errorf("Inbox: got %q from %q, want %q from %q", r.Inbox, r.InboxSource, "0_Inbox", "9_System/A.md")
	}
	want := []string{`9_System/B.md: inbox "Eingang" conflicts with inbox "0_Inbox" from 9_System/A.md, so "0_Inbox" is used`}
	if !reflect.DeepEqual(r.Problems, want) {
		t.Errorf("Problems:\ngot  %q\nwant %q", r.Problems, want)
	}
}

// Invalid YAML in one note is reported; that note's guidance is kept, and
// the other notes' rules apply.
func TestLoad_InvalidYAML(t *testing.T) {
	r := load(t, `
-- 9_System/Kaputt.md --
---
protected: [4_Archiv/**
inbox: 0_Inbox
---
# Kaputte Regeln
Trotzdem lesen.
-- 9_System/Gut.md --
---
protected: 5_Privat/**
---
`)
	if len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0], "9_System/Kaputt.md: the frontmatter is not valid YAML (line ") {
		t.Errorf("Problems: got %q, want one about 9_System/Kaputt.md", r.Problems)
	}
	if want := []Rule{{"9_System/**", ""}, {"5_Privat/**", "9_System/Gut.md"}}; !reflect.DeepEqual(r.Protected, want) {
		t.Errorf("Protected:\ngot  %+v\nwant %+v", r.Protected, want)
	}
	if r.Inbox != "" {
		t.Errorf("Inbox: got %q, want none", r.Inbox)
	}
	if n := r.Notes[1]; n.Title != "Kaputte Regeln" || n.Guidance != "# Kaputte Regeln\nTrotzdem lesen." {
		t.Errorf("note %s: got title %q, guidance %q", n.Path, n.Title, n.Guidance)
	}
}

func TestLoad_NoSystemFolder(t *testing.T) {
	r := load(t, `
-- 1_Projekte/Alpha.md --
# Alpha
`)
	want := &Rules{Protected: []Rule{{"9_System/**", ""}}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("Load:\ngot  %+v\nwant %+v", r, want)
	}
}

func TestLoad_EmptyVault(t *testing.T) {
	r, err := Load(fstest.MapFS{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Rule{builtin}; !reflect.DeepEqual(r.Protected, want) || len(r.Notes) != 0 {
		t.Errorf("Load of an empty vault: got %+v", r)
	}
}

// Every mistake a rules note can hold, with the exact problem text.
func TestLoad_Problems(t *testing.T) {
	r := load(t, `
-- 9_System/Fehler.md --
---
protected:
  - 4_Archiv/**
  - ""
  - [verschachtelt]
  - ../Außerhalb/**
  - {ordner: 5_Privat}
inbox: [0_Inbox, Eingang]
required_properties:
  tags: true
---
-- 9_System/Leer.md --
---
inbox: ..
---
-- 9_System/Liste.md --
---
- protected
- inbox
---
-- 9_System/Tabs.md --
---
protected:
	- 4_Archiv
---
-- 9_System/Zzz.md --
---
inbox: 4_Archiv/Eingang
---
`)
	checkGolden(t, "problems.golden", []byte(strings.Join(r.Problems, "\n")+"\n"))
}

func TestLoad_Titles(t *testing.T) {
	r := load(t, `
-- 9_System/Frontmatter.md --
---
title: "  Titel aus dem Frontmatter "
---
# Nicht dieser
-- 9_System/Heading.md --
Vorwort.

## Zwei
# Erste Ebene *eins*
# Zweite
-- 9_System/Code.md --
`+"```"+`
# kein Titel
`+"```"+`
-- 9_System/Name.md --
Nur Text.
`)
	got := map[string]string{}
	for _, n := range r.Notes {
		got[n.Path] = n.Title
	}
	want := map[string]string{
		"9_System/Code.md":        "Code",
		"9_System/Frontmatter.md": "Titel aus dem Frontmatter",
		"9_System/Heading.md":     "Erste Ebene *eins*",
		"9_System/Name.md":        "Name",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("titles:\ngot  %q\nwant %q", got, want)
	}
}

// What Load reads: .md files in every sub-folder of 9_System/ (spelled in
// any case), not hidden ones, not other files, not other folders.
func TestLoad_WhichFiles(t *testing.T) {
	r := load(t, `
-- 9_system/Klein.md --
---
protected: A/**
---
-- 9_system/Tief/Tiefer/Regel.MD --
---
protected: B/**
---
-- 9_system/.obsidian/x.md --
---
protected: C/**
---
-- 9_system/.versteckt.md --
---
protected: D/**
---
-- 9_system/Bild.png --
---
protected: E/**
---
-- 1_Projekte/Keine Regel.md --
---
protected: F/**
---
`)
	want := []Rule{{"9_System/**", ""}, {"A/**", "9_system/Klein.md"}, {"B/**", "9_system/Tief/Tiefer/Regel.MD"}}
	if !reflect.DeepEqual(r.Protected, want) {
		t.Errorf("Protected:\ngot  %+v\nwant %+v", r.Protected, want)
	}
}

// A BOM, CRLF line endings and a decomposed file name (as macOS writes
// them) are read like any other note; paths come back in NFC.
func TestLoad_BOMCRLFAndNFD(t *testing.T) {
	r := load(t, "\n-- 9_System/"+uDecomposed+"bersicht.md --\n\ufeff---\r\nprotected: \"Gr"+uDecomposed+"n/**\"\r\n--- \r\nText.\r\n")
	src := "9_System/\u00dcbersicht.md"
	if len(r.Notes) != 1 || r.Notes[0].Path != src || r.Notes[0].Guidance != "Text." {
		t.Fatalf("Notes: got %+q, want one note %q with guidance %q", r.Notes, src, "Text.")
	}
	if rule, ok := r.Protects("Gr\u00fcn/Notiz.md"); !ok || rule.Source != src {
		t.Errorf("Protects(Grün/Notiz.md): got %+v, %v; want the rule from %s", rule, ok, src)
	}
}

// failFS fails to read one file, with a host path in its error the way
// os.DirFS would.
type failFS struct{ fstest.MapFS }

func (f failFS) Open(name string) (fs.File, error) {
	if name == "9_System/Kaputt.md" {
		return nil, &fs.PathError{Op: "open", Path: "/home/owner/vault/" + name, Err: fs.ErrPermission}
	}
	return f.MapFS.Open(name)
}

func (f failFS) ReadFile(name string) ([]byte, error) { return fs.ReadFile(fsOnly{f}, name) }

// fsOnly hides every method but Open.
type fsOnly struct{ fs.FS }

func TestLoad_ReadError(t *testing.T) {
	fsys := failFS{fstest.MapFS{
		"9_System/Gut.md":    {Data: []byte("Text.")},
		"9_System/Kaputt.md": {Data: []byte("Text.")},
	}}
	_, err := Load(fsys)
	if err == nil {
		t.Fatal("Load: got no error, want one for 9_System/Kaputt.md")
	}
	if want := "rules: cannot read 9_System/Kaputt.md: permission denied"; err.Error() != want {
		t.Errorf("Load error:\ngot  %s\nwant %s", err, want)
	}
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("errors.Is(%v, fs.ErrPermission) = false, want true", err)
	}
}

func TestSplitFrontmatter(t *testing.T) {
	tests := []struct {
		name, src, fm, body string
		ok                  bool
	}{
		{"plain", "---\na: 1\n---\nText\n", "a: 1\n", "Text\n", true},
		// Obsidian closes frontmatter with --- only; "..." is text.
		{"dots", "---\na: 1\n...\nText", "", "---\na: 1\n...\nText", false},
		{"crlf", "---\r\na: 1\r\n---\r\nText", "a: 1\r\n", "Text", true},
		{"bom", "\ufeff---\na: 1\n---\n", "a: 1\n", "", true},
		{"trailing spaces on close", "---\na: 1\n---  \t\nText", "a: 1\n", "Text", true},
		{"close at end without newline", "---\na: 1\n---", "a: 1\n", "", true},
		{"empty", "---\n---\nText", "", "Text", true},
		{"unclosed", "---\na: 1\nText\n", "", "---\na: 1\nText\n", false},
		{"only fence", "---", "", "---", false},
		{"not first line", "\n---\na: 1\n---\n", "", "\n---\na: 1\n---\n", false},
		{"open with spaces", "--- \na: 1\n---\n", "a: 1\n", "", true},
		{"four dashes", "----\na: 1\n----\n", "", "----\na: 1\n----\n", false},
		{"no frontmatter", "# Titel\n", "", "# Titel\n", false},
	}
	for _, tt := range tests {
		fm, body, ok := splitFrontmatter([]byte(tt.src))
		if string(fm) != tt.fm || string(body) != tt.body || ok != tt.ok {
			t.Errorf("%s: splitFrontmatter(%q) = %q, %q, %v; want %q, %q, %v",
				tt.name, tt.src, fm, body, ok, tt.fm, tt.body, tt.ok)
		}
	}
}

func FuzzSplitFrontmatter(f *testing.F) {
	f.Add([]byte("---\na: 1\n---\nText\n"))
	f.Add([]byte("\ufeff---\r\n...\r\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		fm, body, ok := splitFrontmatter(src)
		if !ok {
			return
		}
		// The frontmatter and the body are pieces of the note, in order.
		s := string(src)
		i := strings.Index(s, string(fm))
		if i < 0 || !strings.HasSuffix(s, string(body)) || i+len(fm) > len(s)-len(body) {
			t.Errorf("splitFrontmatter(%q) = %q, %q: not pieces of the note", src, fm, body)
		}
		if _, err := parseFrontmatter(fm); err != nil && err.Error() == "" {
			t.Errorf("parseFrontmatter(%q): empty error", fm)
		}
	})
}
