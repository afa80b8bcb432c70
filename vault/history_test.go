package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

func TestHistory_RecordsAndFilters(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"A/One.md": "1\n"})
	start := time.Now().Add(-time.Second)
	steps := []func() (*Result, error){
		func() (*Result, error) {
			return v.Append("A/One.md", "", []byte("more"), WriteOpts{Summary: "add more", Actor: "mcp:cursor"})
		},
		func() (*Result, error) { return v.Create("A/Two.md", []byte("2\n"), WriteOpts{Summary: "second note"}) },
		func() (*Result, error) { return v.Create("B/Three.md", []byte("3\n"), WriteOpts{Summary: "third"}) },
		func() (*Result, error) {
			return v.Replace("A/One.md", []byte("one\n"), WriteOpts{Summary: "rewrite", ExpectedVersion: wVersion(t, dir, "A/One.md")})
		},
	}
	var ids []string
	for _, s := range steps {
		res, err := s()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.ChangeID)
	}

	all, err := v.History(HistoryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range all {
		got = append(got, c.Op+" "+c.Path+" "+c.Actor+" "+c.Summary)
	}
	want := []string{"replace A/One.md test rewrite", "create B/Three.md test third", "create A/Two.md test second note", "append A/One.md mcp:cursor add more"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("history, newest first:\n got %q\nwant %q", got, want)
	}
	if all[0].ID != ids[3] || all[0].Time.Before(start) {
		t.Errorf("newest record: got %+v, want ID %s", all[0], ids[3])
	}

	// The chain of versions, and the stored text of each.
	one := all[0]
	if one.Before != all[3].After {
		t.Errorf("replace.Before %s != append.After %s", one.Before, all[3].After)
	}
	for ver, text := range map[string]string{all[3].Before: "1\n", all[3].After: "1\n\nmore\n", one.After: "one\n"} {
		b, err := v.Content(ver)
		if err != nil || string(b) != text {
			t.Errorf("Content(%s): got %q, %v; want %q", note.ShortVersion(ver), b, err, text)
		}
		if b, err := v.Content(strings.ToUpper(ver[:12])); err != nil || string(b) != text {
			t.Errorf("Content(prefix %s): got %q, %v; want %q", ver[:12], b, err, text)
		}
	}

	filters := []struct {
		f    HistoryFilter
		want int
	}{
		{HistoryFilter{Path: "A/One.md"}, 2},
		{HistoryFilter{Path: "A/One"}, 2},
		{HistoryFilter{Path: "A"}, 3},
		{HistoryFilter{Path: "B/"}, 1},
		{HistoryFilter{Actor: "mcp:cursor"}, 1},
		{HistoryFilter{Limit: 2}, 2},
		{HistoryFilter{Since: time.Now().Add(time.Hour)}, 0},
		{HistoryFilter{Since: start, Path: "A/Two.md"}, 1},
	}
	for _, tt := range filters {
		got, err := v.History(tt.f)
		if err != nil || len(got) != tt.want {
			t.Errorf("History(%+v): got %d records (%v), want %d", tt.f, len(got), err, tt.want)
		}
	}
	if _, err := v.History(HistoryFilter{Path: "../x"}); !errors.Is(err, note.ErrInvalidPath) {
		t.Errorf("History(../x): got %v, want ErrInvalidPath", err)
	}
}

func TestHistory_ContentErrors(t *testing.T) {
	v, _ := wOpen(t, nil)
	for _, tt := range []struct {
		ver  string
		kind error
	}{
		{"", note.ErrInvalid},
		{"abc", note.ErrInvalid},
		{"zzzzzzzzzzzz", note.ErrInvalid},
		{"0123456789ab", note.ErrNotFound},
		{note.Version([]byte("never stored")), note.ErrNotFound},
	} {
		if _, err := v.Content(tt.ver); !errors.Is(err, tt.kind) {
			t.Errorf("Content(%q): got %v, want %v", tt.ver, err, tt.kind)
		}
	}
}

// A writer killed in the middle of appending a record leaves a torn line;
// it spoils only itself.
func TestHistory_TornLine(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"N.md": "a\n"})
	v.Append("N.md", "", []byte("b"), wOpts("first"))
	f, err := os.OpenFile(filepath.Join(dir, StateDirName, historyFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"torn","op":"app`)
	f.Close()
	v.Append("N.md", "", []byte("c"), wOpts("second"))
	h, err := v.History(HistoryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Summary != "second" || h[1].Summary != "first" {
		t.Errorf("got %+v, want the two good records", h)
	}
}

func TestHistory_Recover(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"A/N.md": "a\n", "A/M.md": "m\n", "A/Untouched.md": "u\n"})
	v.Append("A/N.md", "", []byte("b"), wOpts("s"))
	v.Append("A/M.md", "", []byte("n"), wOpts("s"))
	// Leftovers of a killed writer, and one of a write in progress.
	wFiles(t, dir, map[string]string{"A/.vaultd-0011.tmp": "half", "A/.vaultd-0022.tmp": "busy", ".vaultd-33.tmp": "x"})
	old := time.Now().Add(-2 * time.Minute)
	os.Chtimes(filepath.Join(dir, "A/.vaultd-0011.tmp"), old, old)
	os.Chtimes(filepath.Join(dir, ".vaultd-33.tmp"), old, old)
	// Changes outside vaultd.
	wFiles(t, dir, map[string]string{"A/N.md": "edited in Obsidian\n", "A/Untouched.md": "also edited\n"})
	os.Remove(filepath.Join(dir, "A/M.md"))

	rep, err := v.Recover()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rep.RemovedTemps, ","); got != ".vaultd-33.tmp,A/.vaultd-0011.tmp" {
		t.Errorf("removed temps: got %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "A/.vaultd-0022.tmp")); err != nil {
		t.Errorf("a young temp file was removed: %v", err)
	}
	var ext []string
	for _, c := range rep.External {
		ext = append(ext, c.Op+" "+c.Path+" "+note.ShortVersion(c.After))
	}
	want := []string{"external A/M.md ", "external A/N.md " + note.ShortVersion(note.Version([]byte("edited in Obsidian\n")))}
	if strings.Join(ext, "|") != strings.Join(want, "|") {
		t.Errorf("external changes: got %q, want %q (untouched notes are not scanned)", ext, want)
	}
	if b, err := v.Content(note.Version([]byte("edited in Obsidian\n"))); err != nil || string(b) != "edited in Obsidian\n" {
		t.Errorf("external text not stored: %q, %v", b, err)
	}
	// A second run finds nothing new.
	rep, err = v.Recover()
	if err != nil || len(rep.External) != 0 || len(rep.RemovedTemps) != 0 {
		t.Errorf("second Recover: got %+v, %v; want nothing", rep, err)
	}
}

// A history line cut off by a crash or a full disk is skipped and counted;
// the records around it are read.
func TestHistory_TornLinesSkippedAndCounted(t *testing.T) {
	v, _ := wOpen(t, map[string]string{"A.md": "# A\n"})
	v.Append("A.md", "", []byte("eins"), wOpts("eins"))
	f, err := v.state.OpenFile(historyFile, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(`{"id":"20261129T120000.000000Z-aaaaaa","op":"app`)) // torn by a full disk
	f.Close()
	v.Append("A.md", "", []byte("zwei"), wOpts("zwei")) // ends the torn line first
	f, _ = v.state.OpenFile(historyFile, os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte(`{"id":"x","op":"append","pa`)) // torn last line
	f.Close()
	h, err := v.History(HistoryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Summary != "zwei" || h[1].Summary != "eins" {
		t.Errorf("history: got %+v, want the two whole records", h)
	}
	if n := v.HistoryDamage(); n != 2 {
		t.Errorf("HistoryDamage: got %d, want 2", n)
	}
}
