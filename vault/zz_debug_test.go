package vault

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

func TestZZDebugTrust(t *testing.T) {
	dir := os.Getenv("ZZ_VAULT")
	if dir == "" {
		t.Skip()
	}
	v, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	l1, err := v.WalkListing(WalkOptions{}, func(Entry) error { return nil })
	for i := 0; i < 5; i++ {
		fw, _ := fsnotify.NewBufferedWatcher(4096)
		enter := func(rel string) { fw.Add(filepath.Join(dir, filepath.FromSlash(rel))) }
		if os.Getenv("ZZ_NOWATCH") != "" {
			enter = nil
		}
		t0 := time.Now()
		var es []Entry
		_, err = v.WalkListing(WalkOptions{Known: l1, Enter: enter}, func(e Entry) error { es = append(es, e); return nil })
		t.Logf("trusted walk: %v", time.Since(t0))
		fw.Close()
	}
}
