package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// smallTmpfs mounts a tmpfs of size bytes at a temp dir; skipped where
// that is not possible (not root, no mount). CI runs as root and can.
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

// fill writes a file taking all but about leave bytes of dir's file system
// and returns its path.
func fill(t *testing.T, dir string, leave int) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
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
	fi, _ := f.Stat()
	if err := f.Truncate(max(0, fi.Size()-int64(leave))); err != nil {
		t.Fatal(err)
	}
	return p
}

// With the index's dir full, an index write fails: the index says it is
// unhealthy (the searches' status names the problem), never panics, and
// keeps answering from what it has; once space returns it catches up by
// itself and every note written meanwhile is found.
//
// Twice: as it happens (the index sees the space is short before it
// writes a batch), and with that check off, so that bleve's own write
// fails half-way while searches run — the case bleve does not survive
// without the store (a panic on the next search).
func TestFullIndexDir_UnhealthyThenRecovers(t *testing.T) {
	t.Run("space checked", func(t *testing.T) { testFullIndexDir(t, true) })
	t.Run("bleve fails", func(t *testing.T) { testFullIndexDir(t, false) })
}

func testFullIndexDir(t *testing.T, checked bool) {
	state := smallTmpfs(t, 8<<20)
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("n/Notiz %02d.md", i)] = fmt.Sprintf("# Notiz %02d\n\nGrundwasser und Bodenplatte, Abschnitt %d.\n", i, i)
	}
	v, dir := newVault(t, files)
	ix := openIndex(t, v, Options{Dir: filepath.Join(state, "index"), Watch: true, Quiet: 20 * time.Millisecond, PollInterval: 200 * time.Millisecond})
	if err := ix.WaitReady(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !checked {
		ix.bi.noPreflight = true // bleve meets the full disk itself
	}
	filler := fill(t, state, 0)
	// Searches run all the while.
	stop := make(chan struct{})
	searched := make(chan int)
	go func() {
		n := 0
		defer func() { searched <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			ix.Search(context.Background(), Query{Text: "Grundwasser Satzbau"})
			n++
		}
	}()

	// Notes written while the dir is full, each a word of its own.
	body := strings.Repeat("Füllwort Satzbau Überlänge. ", 700)
	var failed int
	for i := range 40 {
		p := fmt.Sprintf("n/Voll %02d.md", i)
		text := fmt.Sprintf("# Voll %02d\n\nkennwort%02d %s\n", i, i, body)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := ix.Update(p); err != nil {
			failed++
		}
		// Searches keep working from what the index has.
		if _, err := ix.Search(t.Context(), Query{Text: "Grundwasser"}); err != nil {
			t.Fatalf("search while the index dir is full: %v", err)
		}
	}
	if failed == 0 {
		t.Fatal("no index write failed: the dir was not full")
	}
	st := ix.Status()
	// (With the space check off the index keeps trying to heal, and is
	// healthy for moments in between.)
	if checked && (st.Problem == "" || !strings.Contains(st.Text(), "space")) {
		t.Errorf("status while full = %+v (%q), want a problem that names the missing space", st, st.Text())
	}
	t.Logf("%d of 40 index writes failed; status: %s", failed, st.Text())

	close(stop)
	t.Logf("%d searches meanwhile", <-searched)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			r, err := ix.Search(t.Context(), Query{Text: "kennwort07"})
			t.Logf("status %+v; search kennwort07: %v %v", ix.Status(), err, r != nil && len(r.Hits) > 0)
			out, _ := exec.Command("sh", "-c", "df "+state+"; ls -la "+state+"/index/index/store").CombinedOutput()
			t.Logf("%s", out)
		}
	}()
	eventually(t, 10*time.Second, "the index to catch up after space returned", func() bool {
		if ix.Status().Problem != "" {
			return false
		}
		for i := range 40 {
			r, err := ix.Search(t.Context(), Query{Text: fmt.Sprintf("kennwort%02d", i)})
			if err != nil || len(r.Hits) != 1 {
				return false
			}
		}
		return true
	})
	_ = note.Version
}

// An owner started while the state dir is full owns the index (unhealthy:
// it could not even be made) and, once space returns, makes it, indexes
// the vault and serves it to the other processes on the vault.
func TestFullStateDir_OwnerStartedFullServesLater(t *testing.T) {
	state := smallTmpfs(t, 4<<20)
	old := listenRetry
	listenRetry = 50 * time.Millisecond
	t.Cleanup(func() { listenRetry = old })
	dir := t.TempDir()
	writeFiles(t, dir, sharedFiles)
	// The lock file exists from an earlier run; nothing else fits.
	if err := os.WriteFile(filepath.Join(state, lockName), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	filler := fill(t, state, 0)

	owner, err := OpenShared(openVaultAt(t, dir, state), Options{Logger: quietLog(), Watch: true, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("an owner on a full state dir: %v", err)
	}
	t.Cleanup(func() { owner.Close() })
	if !owner.Owner() {
		t.Fatal("not the owner")
	}
	if st := owner.Status(); !st.Unhealthy || !strings.Contains(st.Problem, "no space left") {
		t.Errorf("status on a full state dir = %+v", st)
	}
	if _, err := owner.Search(t.Context(), Query{Text: "Krankenhaus"}); !errors.Is(err, ErrUnhealthy) || !errors.Is(err, vault.ErrStateDir) {
		t.Errorf("search on a full state dir: %v, want ErrUnhealthy", err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the owner to make the index", func() bool {
		return len(sharedSearchQuiet(owner, "Krankenhaus")) == 2
	})
	// A second process now finds the owner and is served by it.
	var client *Shared
	eventually(t, 10*time.Second, "a second process to be served", func() bool {
		c, err := OpenShared(openVaultAt(t, dir, state), Options{Logger: quietLog()})
		if err != nil {
			return false
		}
		if c.Owner() {
			c.Close()
			t.Fatal("the second process took the index over from a live owner")
		}
		client = c
		return true
	})
	t.Cleanup(func() { client.Close() })
	if got := sharedSearch(t, client, "Krankenhaus"); len(got) != 2 {
		t.Errorf("client search: %v", got)
	}
}

func sharedSearchQuiet(s *Shared, text string) []string {
	res, err := s.Search(context.Background(), Query{Text: text})
	if err != nil {
		return nil
	}
	return hitPaths(res)
}
