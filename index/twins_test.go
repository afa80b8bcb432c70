package index

import (
	"os"
	"path/filepath"
	"testing"
)

// Notes whose names differ only in Unicode normalisation are two notes in
// the index: each is found under its own path, and a change to one file,
// as the watcher names it, is the change of that note — also a removed
// one, while its twin is there.
func TestTwins_IndexedApart(t *testing.T) {
	nfc, nfd := "Team/Caf\u00e9.md", "Team/Cafe\u0301.md"
	v, dir := newVault(t, map[string]string{nfc: "# a\n\nKaffeeautomat Flur\n", nfd: "# b\n\nKaffeeautomat Küche\n", "Team/Tee\u0301.md": "# c\n\nTee\n"})
	ix := openIndex(t, v, Options{})
	if got := pathsOf(t, ix, "Kaffeeautomat"); got != nfd+","+nfc {
		t.Errorf("search: %+q", got)
	}
	if got := pathsOf(t, ix, "Küche"); got != nfd {
		t.Errorf("search Küche: %+q", got)
	}
	w := &watcher{ix: ix, root: dir}
	for name, want := range map[string]string{
		filepath.Join(dir, "Team", "Cafe\u0301.md"): nfd,                // a twin: as it is
		filepath.Join(dir, "Team", "Caf\u00e9.md"):  nfc,                // the composed twin
		filepath.Join(dir, "Team", "Tee\u0301.md"):  "Team/Te\u00e9.md", // no twin: NFC, as Walk names it
	} {
		if got, ok := w.rel(name); !ok || got != want {
			t.Errorf("rel(%+q) = %+q, want %+q", name, got, want)
		}
	}
	os.Remove(filepath.Join(dir, "Team", "Cafe\u0301.md"))
	if got, _ := w.rel(filepath.Join(dir, "Team", "Cafe\u0301.md")); got != nfd {
		t.Errorf("the removed twin is named %+q, want %+q", got, nfd)
	}
}
