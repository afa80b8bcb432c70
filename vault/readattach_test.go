package vault

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

// TestReadAttachment_Rules: an attachment is read with the notes that
// embed it; one in a hidden folder, reached through a link into a hidden
// folder or out of the vault, a note, or one over the limit is refused
// with ErrInvalidPath / ErrInvalid, and no byte of it is returned.
func TestReadAttachment_Rules(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(base, name, data string) {
		t.Helper()
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(dir, "Plan.md", "# Plan\n\n![[chart.png]]\n\nsee [[scan.pdf]]\n")
	write(dir, "img/chart.png", "PNGDATA")
	write(dir, "scan.pdf", "%PDF-1.4 x")
	write(dir, ".obsidian/x.png", "SECRET-OBSIDIAN")
	write(dir, ".git/y.png", "SECRET-GIT")
	write(outside, "z.png", "SECRET-OUTSIDE")
	write(dir, "big.png", strings.Repeat("x", 2000))
	for name, target := range map[string]string{
		"hidden.png":  ".obsidian/x.png",
		"hiddendir":   ".git",
		"outside.png": filepath.Join(outside, "z.png"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	v := openLinkVault(t, dir)

	info, b, err := v.ReadAttachment("img/chart.png", 0)
	if err != nil || string(b) != "PNGDATA" || info.Size != 7 {
		t.Fatalf("img/chart.png: got %q, %+v, %v", b, info, err)
	}
	if strings.Join(info.Embeds, ",") != "Plan.md" || len(info.LinkedBy) != 0 {
		t.Errorf("img/chart.png: embeds %v, linked by %v, want embedded by Plan.md", info.Embeds, info.LinkedBy)
	}
	if info, _, err := v.ReadAttachment("scan.pdf", 0); err != nil || strings.Join(info.LinkedBy, ",") != "Plan.md" {
		t.Errorf("scan.pdf: linked by %v, %v, want Plan.md", info.LinkedBy, err)
	}

	for _, tc := range []struct {
		path string
		kind error
	}{
		{".obsidian/x.png", note.ErrInvalidPath},
		{".git/y.png", note.ErrInvalidPath},
		{"hidden.png", note.ErrInvalidPath},
		{"hiddendir/y.png", note.ErrInvalidPath},
		{"outside.png", note.ErrInvalidPath},
		{"Plan.md", note.ErrInvalidPath},
		{"../z.png", note.ErrInvalidPath},
		{"missing.png", note.ErrNotFound},
	} {
		_, b, err := v.ReadAttachment(tc.path, 0)
		if !errors.Is(err, tc.kind) {
			t.Errorf("%s: got error %v, want %v", tc.path, err, tc.kind)
		}
		if bytes.Contains(b, []byte("SECRET")) {
			t.Errorf("%s: returned bytes of a hidden or outside file", tc.path)
		}
	}
	_, _, err = v.ReadAttachment("big.png", 1000)
	if !errors.Is(err, note.ErrInvalid) || !strings.Contains(err.Error(), "more than") {
		t.Errorf("big.png over a 1000-byte limit: got %v, want ErrInvalid naming the limit", err)
	}
}

// TestEmbeddedFiles: a note's embeds that lead to a real file are listed
// once each, in order, with their size — by name anywhere, relative to the
// note, as a markdown path; embeds of notes, of missing files, of hidden
// folders and through links into one or out of the vault are not.
func TestEmbeddedFiles(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(base, name, data string) {
		t.Helper()
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(dir, "Projekt/Plan.md", "# Plan\n\n![[chart.png]]\n![[chart.png|300]]\n![Scan](../scans/scan%201.pdf)\n![[local.jpg]]\n"+
		"![[Other]]\n![[missing.png]]\n![[.obsidian/x.png]]\n![[hidden.png]]\n![[outside.png]]\n[[linked.png]]\n")
	write(dir, "Other.md", "# Other\n")
	write(dir, "img/chart.png", "PNGDATA")
	write(dir, "scans/scan 1.pdf", "%PDF-1.4 x")
	write(dir, "Projekt/local.jpg", "JPG")
	write(dir, "linked.png", "L")
	write(dir, ".obsidian/x.png", "SECRET")
	write(outside, "outside.png", "SECRET")
	if err := os.Symlink("../.obsidian/x.png", filepath.Join(dir, "Projekt", "hidden.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "outside.png"), filepath.Join(dir, "outside.png")); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir, Options{StateDir: filepath.Join(t.TempDir(), "state"), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	n, err := v.Read("Projekt/Plan.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range v.EmbeddedFiles(n) {
		got = append(got, e.Path+" "+FormatSize(e.Size))
	}
	want := []string{"img/chart.png 7 bytes", "scans/scan 1.pdf 10 bytes", "Projekt/local.jpg 3 bytes"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}
