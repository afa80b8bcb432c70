package index

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestJournal_Since: what came after a mark, each path once at its last
// place; a mark of another journal, from the future or older than the
// journal keeps is Lost, and the next mark starts over.
func TestJournal_Since(t *testing.T) {
	j := newJournal()
	first := j.since(ChangeMark{})
	if !first.Lost || first.Next.Epoch != j.epoch || first.Next.Seq != 0 {
		t.Fatalf("from the zero mark: got %+v, want Lost at seq 0 of %s", first, j.epoch)
	}
	j.add([]string{"a.md", "b.md"})
	j.add([]string{"a.md", "c.md"})
	got := j.since(first.Next)
	if got.Lost || !reflect.DeepEqual(got.Paths, []string{"b.md", "a.md", "c.md"}) || got.Next.Seq != 4 {
		t.Errorf("since seq 0: got %+v, want b.md a.md c.md up to seq 4", got)
	}
	if got := j.since(got.Next); got.Lost || len(got.Paths) != 0 {
		t.Errorf("since the newest mark: got %+v, want nothing", got)
	}
	for _, m := range []ChangeMark{{Epoch: "another", Seq: 2}, {Epoch: j.epoch, Seq: 99}} {
		if got := j.since(m); !got.Lost || got.Next.Seq != 4 {
			t.Errorf("since %+v: got %+v, want Lost with the newest mark", m, got)
		}
	}
	// Past the journal's size, the oldest marks are lost; the newest
	// journalKept entries are still there.
	mark := j.since(ChangeMark{Epoch: j.epoch, Seq: 4}).Next
	var many []string
	for i := range journalKept + 10 {
		many = append(many, fmt.Sprintf("n%05d.md", i))
	}
	j.add(many)
	if got := j.since(mark); !got.Lost {
		t.Errorf("a mark %d entries back with %d kept: got %d paths, want Lost", journalKept+10, journalKept, len(got.Paths))
	}
	back := ChangeMark{Epoch: j.epoch, Seq: j.seq - journalKept}
	got = j.since(back)
	if got.Lost || len(got.Paths) != journalKept || got.Paths[0] != many[10] || got.Paths[journalKept-1] != many[len(many)-1] {
		t.Errorf("a mark exactly %d entries back: got Lost=%v, %d paths", journalKept, got.Lost, len(got.Paths))
	}
}

// TestShared_ChangesOfEveryProcess: the owner's journal has the writes a
// client process asked to index and the changes the owner's watcher
// found, and a client reads it; after the owner exits, a mark of its
// journal is Lost.
func TestShared_ChangesOfEveryProcess(t *testing.T) {
	dir, state := sharedVault(t)
	owner, err := OpenShared(openVaultAt(t, dir, state), Options{Logger: quietLog(), Watch: true, Quiet: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	client := openShared(t, dir, state)
	start, err := client.Changes(ChangeMark{})
	if err != nil || !start.Lost {
		t.Fatalf("a client's first Changes: %+v, %v; want Lost", start, err)
	}
	// A write by the client's process.
	if err := os.WriteFile(filepath.Join(dir, "1_Projekte", "Beta.md"), []byte("# Beta\n\nneu\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := client.Update("1_Projekte/Beta.md"); err != nil {
		t.Fatal(err)
	}
	got, err := client.Changes(start.Next)
	if err != nil || got.Lost || !reflect.DeepEqual(got.Paths, []string{"1_Projekte/Beta.md"}) {
		t.Errorf("after the client's Update: %+v, %v; want 1_Projekte/Beta.md", got, err)
	}
	// A change outside vaultd, found by the owner's watcher.
	if err := os.WriteFile(filepath.Join(dir, "2_Bereiche", "Neu.md"), []byte("# Neu\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	found := false
	for range 1500 { // the watcher's debounce: well under a second
		ch, err := client.Changes(got.Next)
		if found = err == nil && !ch.Lost && len(ch.Paths) > 0 && ch.Paths[len(ch.Paths)-1] == "2_Bereiche/Neu.md"; found {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !found {
		t.Error("the owner's watcher did not journal 2_Bereiche/Neu.md within 30 s")
	}
	// The owner exits; the client takes the index over, with a journal
	// of its own.
	mark := got.Next
	owner.Close()
	after, err := client.Changes(mark)
	if err != nil || !after.Lost || after.Next.Epoch == mark.Epoch {
		t.Errorf("after the owner exited: %+v, %v; want Lost, another journal", after, err)
	}
}
