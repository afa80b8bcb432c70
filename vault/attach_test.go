package vault

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

var tinyPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")

func TestAttachmentFolder(t *testing.T) {
	for _, tc := range []struct {
		name, app, rule, note string
		want, wantFrom        string
	}{
		{"vault root", `{"attachmentFolderPath": "/"}`, "", "P/N.md", "", "attachmentFolderPath \"/\""},
		{"next to the note", `{"attachmentFolderPath": "./"}`, "", "P/Q/N.md", "P/Q", "attachmentFolderPath \"./\""},
		{"sub-folder next to the note", `{"attachmentFolderPath": "./assets"}`, "", "P/N.md", "P/assets", "\"./assets\""},
		{"sub-folder next to a root note", `{"attachmentFolderPath": "./assets"}`, "", "N.md", "assets", "\"./assets\""},
		{"a folder", `{"attachmentFolderPath": "Anhänge/Bilder/"}`, "", "P/N.md", "Anhänge/Bilder", "Anhänge/Bilder/"},
		{"empty setting: the rule", `{"attachmentFolderPath": ""}`, "Dateien", "P/N.md", "Dateien", "the rule attachments: Dateien in 9_System/R.md"},
		{"no app.json: the rule", "", "Dateien", "", "Dateien", "the rule"},
		{"nothing set: next to the note", `{"other": 1}`, "", "P/N.md", "P", "next to the note P/N.md"},
		{"nothing set, no note: the root", "", "", "", "", "the vault root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"x.md": ""}
			if tc.app != "" {
				files[".obsidian/app.json"] = tc.app
			}
			v, _ := wOpen(t, files)
			got, from, err := v.AttachmentFolder(tc.note, tc.rule, "9_System/R.md")
			if err != nil || got != tc.want || !strings.Contains(from, tc.wantFrom) {
				t.Errorf("app.json %s, rule %q, note %q: got %q (%s) %v, want %q (…%s…)", tc.app, tc.rule, tc.note, got, from, err, tc.want, tc.wantFrom)
			}
		})
	}
	for _, app := range []string{`{"attachmentFolderPath": "../draußen"}`, `{nope`} {
		v, _ := wOpen(t, map[string]string{".obsidian/app.json": app})
		if _, _, err := v.AttachmentFolder("", "", ""); !errors.Is(err, note.ErrInvalid) {
			t.Errorf("app.json %s: got %v, want ErrInvalid", app, err)
		}
	}
}

func TestAttachments_TypeCheck(t *testing.T) {
	ftyp := func(brand string) []byte { return append([]byte("\x00\x00\x00\x18ftyp"+brand), make([]byte, 20)...) }
	ok := map[string][]byte{
		"a.png": tinyPNG, "a.JPG": []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), "a.gif": []byte("GIF89a\x01\x00"),
		"a.webp": []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), "a.bmp": []byte("BM\x00\x00\x00\x00"), "a.avif": ftyp("avif"),
		"a.svg": []byte("\ufeff<?xml version=\"1.0\"?>\n<!-- x -->\n<!DOCTYPE svg>\n<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>"),
		"a.pdf": []byte("%PDF-1.7\n"), "a.mp3": []byte("ID3\x03\x00\x00\x00"), "a.wav": []byte("RIFF\x00\x00\x00\x00WAVEfmt "),
		"a.m4a": ftyp("M4A "), "a.ogg": []byte("OggS\x00\x02"), "a.flac": []byte("fLaC\x00"), "a.3gp": ftyp("3gp4"),
		"a.webm": []byte("\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x84webm"),
		"a.mp4":  ftyp("isom"), "a.mov": ftyp("qt  "), "a.mkv": []byte("\x1a\x45\xdf\xa3\x00"), "a.ogv": []byte("OggS\x00\x02"),
	}
	for name, data := range ok {
		typ := attachmentTypes[strings.ToLower(filepath.Ext(name))]
		sn, _, _ := strings.Cut(http.DetectContentType(data), ";")
		if !typ.check(data, sn) {
			t.Errorf("%s: content not accepted (sniffed %s)", name, sn)
		}
	}
	bad := map[string][]byte{
		"a.png": []byte("kein Bild"), "a.pdf": []byte("<html><body>"), "a.svg": []byte("<html><svg></svg></html>"),
		"a.mp4": []byte("MZ\x90\x00"), "a.jpg": tinyPNG,
	}
	for name, data := range bad {
		typ := attachmentTypes[filepath.Ext(name)]
		sn, _, _ := strings.Cut(http.DetectContentType(data), ";")
		if typ.check(data, sn) {
			t.Errorf("%s: %q accepted", name, data)
		}
	}
}

func TestUploadAttachment(t *testing.T) {
	v, dir := wOpen(t, map[string]string{
		".obsidian/app.json": `{"attachmentFolderPath": "Anhänge"}`,
		"P/Note.md":          "# Note\n\n## Bilder\n\nText\n\n## Ende\n",
		"Anhänge/foto.png":   "alt",
		"Q/foto 1.png":       "gleicher Name woanders",
	})
	var notified []string
	v.OnChange(func(p ...string) { notified = append(notified, p...) })
	res, err := v.UploadAttachment(Upload{Name: "Foto.png", Data: tinyPNG, Note: "P/Note.md", Heading: "Bilder"}, WriteOpts{Summary: "Foto", Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	// "Foto.png" differs only in case from the existing foto.png: a free
	// name is chosen; "Foto 1.png" exists elsewhere, so the embed needs the
	// full path.
	if res.Path != "Anhänge/Foto 1.png" || !res.Renamed || res.Embed != "![[Anhänge/Foto 1.png]]" || res.Kind != "image" {
		t.Errorf("got %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "Anhänge", "foto.png")); string(b) != "alt" {
		t.Error("an existing file was overwritten")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "Anhänge", "Foto 1.png")); !bytes.Equal(b, tinyPNG) {
		t.Error("the upload is not on disk")
	}
	if note := wRead(t, dir, "P/Note.md"); note != "# Note\n\n## Bilder\n\nText\n\n![[Anhänge/Foto 1.png]]\n\n## Ende\n" {
		t.Errorf("note: %q", note)
	}
	h, _ := v.History(HistoryFilter{})
	if len(h) != 2 || h[1].Op != "upload_attachment" || h[1].Path != "Anhänge/Foto 1.png" || h[0].Op != "append" {
		t.Errorf("history: %+v", h)
	}
	if fmt.Sprint(notified) != "[Anhänge/Foto 1.png P/Note.md]" {
		t.Errorf("notified: %v", notified)
	}
	res, err = v.UploadAttachment(Upload{Name: "Foto.png", Data: tinyPNG}, WriteOpts{Summary: "noch eins"})
	if err != nil || res.Path != "Anhänge/Foto 2.png" || res.Link != "Foto 2.png" {
		t.Errorf("second upload: %+v %v", res, err)
	}

	for _, tc := range []struct {
		name string
		u    Upload
		kind error
		want string
	}{
		{"no summary", Upload{Name: "a.png", Data: tinyPNG}, note.ErrInvalid, "change_summary"},
		{"folder in the name", Upload{Name: "x/a.png", Data: tinyPNG}, note.ErrInvalidPath, "file name only"},
		{"not portable", Upload{Name: "a?.png", Data: tinyPNG}, note.ErrInvalidPath, "Windows"},
		{"type", Upload{Name: "a.html", Data: []byte("<html>")}, note.ErrInvalid, "files with .html cannot be uploaded"},
		{"no extension", Upload{Name: "README", Data: []byte("x")}, note.ErrInvalid, "no extension"},
		{"content", Upload{Name: "a.pdf", Data: tinyPNG}, note.ErrInvalid, "it looks like image/png"},
		{"empty", Upload{Name: "a.png"}, note.ErrInvalid, "empty"},
		{"size", Upload{Name: "a.png", Data: tinyPNG, MaxSize: 10}, note.ErrInvalid, "the limit is 10 bytes"},
		{"note missing", Upload{Name: "a.png", Data: tinyPNG, Note: "P/Nope.md"}, note.ErrNotFound, "no such note"},
		{"heading missing", Upload{Name: "a.png", Data: tinyPNG, Note: "P/Note.md", Heading: "Galerie"}, note.ErrNotFound, "Galerie"},
	} {
		summary := "x"
		if tc.name == "no summary" {
			summary = ""
		}
		_, err := v.UploadAttachment(tc.u, WriteOpts{Summary: summary})
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %v containing %q", tc.name, err, tc.kind, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "Anhänge", "a.png")); err == nil {
		t.Error("a refused upload left a file")
	}

	// Rules: a protected folder is refused, and so is a protected note,
	// before anything is stored.
	v.SetPolicy(denyUnder{"P/"})
	if _, err := v.UploadAttachment(Upload{Name: "b.png", Data: tinyPNG, Note: "P/Note.md"}, WriteOpts{Summary: "x"}); !errors.Is(err, ErrDenied) {
		t.Errorf("protected note: got %v", err)
	}
	v.SetPolicy(denyUnder{"Anhänge/"})
	if _, err := v.UploadAttachment(Upload{Name: "b.png", Data: tinyPNG}, WriteOpts{Summary: "x"}); !errors.Is(err, ErrDenied) {
		t.Errorf("protected folder: got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "Anhänge", "b.png")); err == nil {
		t.Error("a denied upload left a file")
	}
}

func TestAttachments_List(t *testing.T) {
	v, _ := wOpen(t, map[string]string{
		"A.md":           "![[bild.png]] und [[bild.png]] und ![](sub/doc.pdf)\n",
		"B.md":           "[Doku](sub/doc.pdf) ![[bild.png|200]]\n",
		"bild.png":       string(tinyPNG),
		"sub/doc.pdf":    "%PDF-1.4",
		"sub/unused.gif": "GIF89a",
	})
	list, err := v.Attachments("")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range list {
		got = append(got, fmt.Sprintf("%s %d embeds=%v links=%v", a.Path, a.Size, a.Embeds, a.LinkedBy))
	}
	want := "bild.png 68 embeds=[A.md B.md] links=[A.md]|sub/doc.pdf 8 embeds=[A.md] links=[B.md]|sub/unused.gif 6 embeds=[] links=[]"
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
	if list, err := v.Attachments("sub"); err != nil || len(list) != 2 {
		t.Errorf("folder: %v %v", list, err)
	}
	if _, err := v.Attachments("nope"); !errors.Is(err, note.ErrNotFound) {
		t.Errorf("missing folder: %v", err)
	}
}

// TestUploadAttachment_LinkSettings: the embed follows Obsidian's "Use
// [[Wikilinks]]" and "New link format" settings, and the embed written
// resolves to the file uploaded.
func TestUploadAttachment_LinkSettings(t *testing.T) {
	for _, tc := range []struct{ app, want string }{
		{`{"attachmentFolderPath": "Anhänge"}`, "![[Grundriss EG.png]]"},
		{`{"attachmentFolderPath": "Anhänge", "newLinkFormat": "absolute"}`, "![[Anhänge/Grundriss EG.png]]"},
		{`{"attachmentFolderPath": "Anhänge", "newLinkFormat": "relative"}`, "![[../../Anhänge/Grundriss EG.png]]"},
		{`{"attachmentFolderPath": "Anhänge", "useMarkdownLinks": true}`, "![](Grundriss%20EG.png)"},
		{`{"attachmentFolderPath": "Anhänge", "useMarkdownLinks": true, "newLinkFormat": "relative"}`, "![](../../Anhänge/Grundriss%20EG.png)"},
		{`{"attachmentFolderPath": "Anhänge", "useMarkdownLinks": true, "newLinkFormat": "absolute"}`, "![](Anhänge/Grundriss%20EG.png)"},
	} {
		v, dir := wOpen(t, map[string]string{".obsidian/app.json": tc.app, "P/Haus/Note.md": "# Note\n"})
		res, err := v.UploadAttachment(Upload{Name: "Grundriss EG.png", Data: tinyPNG, Note: "P/Haus/Note.md"}, WriteOpts{Summary: "Plan", Actor: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Embed != tc.want {
			t.Errorf("%s: embed %q, want %q", tc.app, res.Embed, tc.want)
		}
		if note := wRead(t, dir, "P/Haus/Note.md"); !strings.Contains(note, tc.want) {
			t.Errorf("%s: note %q lacks the embed", tc.app, note)
		}
		r, err := v.Resolver()
		if err != nil {
			t.Fatal(err)
		}
		links := note.Parse([]byte(res.Embed)).Links
		if len(links) != 1 {
			t.Fatalf("%s: %q parses as %d links", tc.app, res.Embed, len(links))
		}
		if rr := r.Resolve("P/Haus/Note.md", links[0]); rr.Status != note.Resolved || rr.Target != "Anhänge/Grundriss EG.png" {
			t.Errorf("%s: %q resolves to %+v, want Anhänge/Grundriss EG.png", tc.app, res.Embed, rr)
		}
	}
}
