package vault

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

// smallTmpfs mounts a tmpfs of size bytes at a temp dir and returns it; the
// test is skipped where that is not possible (not root, no mount). CI runs
// as root and can.
func smallTmpfs(t *testing.T, size int) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("a full state dir is simulated on a small tmpfs, which needs Linux and root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s)", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fillUp writes a file that takes all but about leave bytes of dir's file
// system.
func fillUp(t *testing.T, dir string, leave int) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := bytes.Repeat([]byte("x"), 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Sync()
	fi, _ := f.Stat()
	if err := f.Truncate(max(0, fi.Size()-int64(leave))); err != nil {
		t.Fatal(err)
	}
}

// With the state dir full, every write either completes — its texts
// before and after kept, its record whole — or is refused with ErrStateDir
// and leaves the note exactly as it was. No history line is ever torn.
// When space returns, writes work again.
func TestFullStateDir_WritesKeepOrRefuse(t *testing.T) {
	state := smallTmpfs(t, 2<<20)
	dir := t.TempDir()
	notes := map[string]string{}
	for i := range 8 {
		notes[fmt.Sprintf("N%d.md", i)] = fmt.Sprintf("# Note %d\n\n## Log\n\n%s", i, strings.Repeat("Zeile mit Text.\n", 50+i*40))
	}
	wFiles(t, dir, notes)
	v := wOpenDir(t, dir, Options{StateDir: filepath.Join(state, "s"), Actor: "agent"}) // durability on
	// A first write of each note works while there is room.
	for p := range notes {
		if _, err := v.Append(p, "Log", []byte("- first"), wOpts("first")); err != nil {
			t.Fatalf("append with room: %v", err)
		}
	}
	fillUp(t, state, 48<<10)

	writes := 40 * stressScale() // make stress: 400
	refused, made := 0, 0
	for i := range writes {
		p := fmt.Sprintf("N%d.md", i%8)
		before := wRead(t, dir, p)
		var res *Result
		var err error
		switch i % 4 {
		case 0:
			res, err = v.Replace(p, []byte(before+strings.Repeat("neu ", 200+i)), WriteOpts{Summary: "replace", ExpectedVersion: note.Version([]byte(before))})
		case 1:
			res, err = v.Append(p, "Log", fmt.Appendf(nil, "- line %d %s", i, strings.Repeat("x", i*30)), wOpts("append"))
		case 2:
			res, err = v.UpdateSection(p, "Log", fmt.Appendf(nil, "- replaced %d", i), wOpts("update"))
		case 3:
			res, err = v.Create(fmt.Sprintf("New %d.md", i), []byte(strings.Repeat("neu\n", 100+i)), wOpts("create"))
		}
		after := wRead(t, dir, p)
		if err != nil {
			if !errors.Is(err, ErrStateDir) {
				t.Fatalf("write %d: got %v, want success or ErrStateDir", i, err)
			}
			refused++
			if i%4 != 3 && after != before {
				t.Fatalf("write %d was refused, but the note changed", i)
			}
			if i%4 == 3 {
				if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("New %d.md", i))); err == nil {
					t.Fatalf("create %d was refused, but the note exists", i)
				}
			}
			if strings.Contains(err.Error(), state) || strings.Contains(err.Error(), dir) {
				t.Errorf("the error shows a host path: %v", err)
			}
			continue
		}
		made++
		for _, ver := range []string{res.Before, res.After} {
			if ver == "" {
				continue
			}
			if _, err := v.Content(ver); err != nil {
				t.Errorf("write %d made, but version %s is not kept: %v", i, note.ShortVersion(ver), err)
			}
		}
	}
	if refused == 0 {
		t.Fatalf("no write of %d was refused: the state dir was not full", writes)
	}
	if _, err := v.History(HistoryFilter{}); err != nil {
		t.Fatal(err)
	}
	if n := v.HistoryDamage(); n != 0 {
		t.Errorf("%d history lines torn", n)
	}
	t.Logf("state dir full: %d writes, %d made (texts kept), %d refused (notes untouched), 0 torn lines", writes, made, refused)

	// Space returns: writes work again, and history explains every note.
	os.Remove(filepath.Join(state, "filler"))
	if _, err := v.Append("N0.md", "Log", []byte("- after"), wOpts("after")); err != nil {
		t.Fatalf("append after space returned: %v", err)
	}
	rep, err := v.Recover()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.External) != 0 || len(rep.Completed) != 0 {
		t.Errorf("Recover found changes vaultd did not record: %+v", rep)
	}
}
