package vault

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// png is a tiny picture's bytes, told apart by n.
func png(n string) string { return "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + n + "\x00\x01" }

// commitAsVaultd commits files in clone dir as vaultd would (vaultd
// pushes only its own commits).
func commitAsVaultd(t *testing.T, dir string, files map[string]string, remove ...string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(s), 0o644)
		gitRun(t, dir, "add", "--", p)
	}
	for _, p := range remove {
		gitRun(t, dir, "rm", "-q", "--", p)
	}
	gitRun(t, dir, "-c", "user.name=vaultd", "-c", "user.email=vaultd@vaultd", "commit", "-q", "-m", "vaultd")
}

// A picture changed on both sides: the sync keeps both at once (ours at
// its path, theirs beside it), commits the merge and pushes, so that the
// agents' writes go on being committed; resolve_conflict then takes one.
func TestSync_AttachmentConflictKeptBoth(t *testing.T) {
	bare, a, b := gitClones(t, map[string]string{"Anhänge/Plan.png": png("base"), "Log.md": "# Log\n"})
	pushAs(t, b, map[string]string{"Anhänge/Plan.png": png("ben")}, "Ben")
	commitAsVaultd(t, a, map[string]string{"Anhänge/Plan.png": png("anna")})
	va := gitOpen(t, a)
	r := va.Sync(context.Background())
	if !r.OK() || r.Merged != "1 commit from origin/main (merged)" || r.Pushed != "2 commits to origin/main" || len(r.KeptBoth) != 1 {
		t.Fatalf("round: %+v", r)
	}
	k := r.KeptBoth[0]
	if k.Path != "Anhänge/Plan.png" || k.Copy != "Anhänge/Plan (theirs).png" || k.Theirs == nil || k.Theirs.Author != "Test" {
		t.Errorf("kept: %+v", k)
	}
	if !strings.Contains(r.Text(), "1 attachment changed on both sides kept both ways until someone chooses with resolve_conflict (Anhänge/Plan.png)") {
		t.Errorf("text: %s", r.Text())
	}
	wantText(t, a, "Anhänge/Plan.png", png("anna"))
	wantText(t, a, "Anhänge/Plan (theirs).png", png("ben"))
	if st := gitRun(t, a, "status", "--porcelain"); st != "" {
		t.Errorf("status: %q", st)
	}
	if got := gitRun(t, bare, "show", "main:Anhänge/Plan (theirs).png"); got != strings.TrimRight(png("ben"), "\n") {
		t.Errorf("the remote lacks theirs: %q", got)
	}
	// Writes go on being committed while the choice waits.
	res, err := va.Append("Log.md", "", []byte("- weiter"), wOpts("weiter"))
	if err != nil || !strings.Contains(res.Detail, "committed to git as") {
		t.Fatalf("a write meanwhile: %+v, %v", res, err)
	}
	if list := va.AttachmentConflicts(); len(list) != 1 || !strings.Contains(list[0].Text(), "ours is kept at its path, theirs as Anhänge/Plan (theirs).png") {
		t.Fatalf("conflicts: %+v", list)
	}
	rr, err := va.ResolveAttachment("Anhänge/Plan.png", TakeTheirs, wOpts("Bens Plan"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Trashed) != 1 || !strings.Contains(rr.Detail, "took theirs") {
		t.Errorf("resolution: %+v", rr)
	}
	wantText(t, a, "Anhänge/Plan.png", png("ben"))
	if _, err := os.Stat(filepath.Join(a, "Anhänge/Plan (theirs).png")); !os.IsNotExist(err) {
		t.Errorf("the copy is still there: %v", err)
	}
	if got := wRead(t, a, rr.Trashed[0]); got != png("ben") {
		t.Errorf("the trash holds %q", got)
	}
	if list := va.AttachmentConflicts(); len(list) != 0 {
		t.Errorf("still in conflict: %+v", list)
	}
	if st := gitRun(t, a, "status", "--porcelain", "--", ".", ":!.trash"); st != "" {
		t.Errorf("status after the resolution: %q", st)
	}
	if r := va.Sync(context.Background()); !r.OK() || r.Pushed == "" {
		t.Fatalf("round after the resolution: %+v", r)
	}
	if _, err := va.ResolveAttachment("Anhänge/Plan.png", TakeOurs, wOpts("x")); err == nil || !strings.Contains(err.Error(), "has no merge conflict to resolve") {
		t.Errorf("a second resolution: %v", err)
	}
}

// Deleted here, changed there (and the other way round): the version
// that was changed stays until someone chooses; taking the side that
// deleted it puts it in the trash.
func TestSync_AttachmentDeletedVersusChanged(t *testing.T) {
	for _, oursDeletes := range []bool{true, false} {
		_, a, b := gitClones(t, map[string]string{"Scan.pdf": "%PDF-1.4 base\n", "Log.md": "# Log\n"})
		if oursDeletes {
			pushAs(t, b, map[string]string{"Scan.pdf": "%PDF-1.4 ben\n"}, "Ben")
			commitAsVaultd(t, a, nil, "Scan.pdf")
		} else {
			os.Remove(filepath.Join(b, "Scan.pdf"))
			gitRun(t, b, "rm", "-q", "--cached", "Scan.pdf")
			gitRun(t, b, "commit", "-qm", "weg")
			gitRun(t, b, "push", "-q")
			commitAsVaultd(t, a, map[string]string{"Scan.pdf": "%PDF-1.4 anna\n"})
		}
		va := gitOpen(t, a)
		r := va.Sync(context.Background())
		if !r.OK() || len(r.KeptBoth) != 1 || r.KeptBoth[0].OursDeleted != oursDeletes || r.KeptBoth[0].TheirsDeleted == oursDeletes || r.KeptBoth[0].Copy != "" {
			t.Fatalf("ours deletes %v: round %+v", oursDeletes, r)
		}
		want := map[bool]string{true: "%PDF-1.4 ben\n", false: "%PDF-1.4 anna\n"}[oursDeletes]
		wantText(t, a, "Scan.pdf", want)
		take := map[bool]string{true: TakeOurs, false: TakeTheirs}[oursDeletes]
		rr, err := va.ResolveAttachment("Scan.pdf", take, wOpts("weg damit"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(a, "Scan.pdf")); !os.IsNotExist(err) || len(rr.Trashed) != 1 || !strings.Contains(rr.Detail, "the attachment is deleted") {
			t.Errorf("ours deletes %v: %+v, %v", oursDeletes, rr, err)
		}
		if st := gitRun(t, a, "status", "--porcelain", "--", ".", ":!.trash"); st != "" {
			t.Errorf("status: %q", st)
		}
	}
}

// A note and a picture in conflict in one merge: the picture is kept both
// ways at once, the merge waits for the note, and the note's resolution
// concludes it.
func TestSync_AttachmentAndNoteConflicts(t *testing.T) {
	_, a, b := gitClones(t, map[string]string{"Plan.png": png("base"), "Plan.md": "# Plan\n\n- offen\n"})
	pushAs(t, b, map[string]string{"Plan.png": png("ben"), "Plan.md": "# Plan\n\n- billig\n"}, "Ben")
	commitAsVaultd(t, a, map[string]string{"Plan.png": png("anna"), "Plan.md": "# Plan\n\n- schnell\n"})
	va := gitOpen(t, a)
	r := va.Sync(context.Background())
	if !r.OK() || len(r.Conflicts) != 1 || len(r.KeptBoth) != 1 || !strings.Contains(r.Waiting, "stopped on conflicts in 1 file (Plan.md)") {
		t.Fatalf("round: %+v", r)
	}
	res, err := va.ResolveConflict("Plan.md", ConflictResolution{Take: TakeBoth}, wOpts("beide"))
	if err != nil || !strings.Contains(res.Detail, "vaultd committed the merge as") {
		t.Fatalf("resolve: %+v, %v", res, err)
	}
	wantText(t, a, "Plan (theirs).png", png("ben"))
	if r := va.Sync(context.Background()); !r.OK() || r.Pushed == "" {
		t.Fatalf("next round: %+v", r)
	}
}

// A merge the user started, stopped on a picture: resolve_conflict takes
// a side from git's index (both: theirs beside ours) and tells git; the
// merge stays the user's to commit.
func TestResolveAttachment_UsersMerge(t *testing.T) {
	dir := gitRepo(t, map[string]string{"Bild.jpg": "\xff\xd8\xff base"})
	gitRun(t, dir, "checkout", "-q", "-b", "ben")
	wFiles(t, dir, map[string]string{"Bild.jpg": "\xff\xd8\xff ben"})
	gitRun(t, dir, "commit", "-qam", "Ben")
	gitRun(t, dir, "checkout", "-q", "main")
	wFiles(t, dir, map[string]string{"Bild.jpg": "\xff\xd8\xff anna"})
	gitRun(t, dir, "commit", "-qam", "Anna")
	gitCmd(dir, "merge", "ben").Run()
	v := gitOpen(t, dir)
	list := v.AttachmentConflicts()
	if len(list) != 1 || !list[0].Unmerged || list[0].Theirs == nil || list[0].Theirs.Subject != "Ben" {
		t.Fatalf("conflicts: %+v", list)
	}
	rr, err := v.ResolveAttachment("Bild.jpg", TakeBoth, wOpts("beide"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rr.Kept, "|") != "Bild.jpg|Bild (theirs).jpg" || !strings.Contains(rr.Detail, "every conflict of the merge is resolved: finish it with git commit") {
		t.Errorf("resolution: %+v", rr)
	}
	wantText(t, dir, "Bild.jpg", "\xff\xd8\xff anna")
	wantText(t, dir, "Bild (theirs).jpg", "\xff\xd8\xff ben")
	if got := gitRun(t, dir, "ls-files", "-u"); got != "" {
		t.Errorf("still unmerged: %s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "MERGE_HEAD")); err != nil {
		t.Errorf("the user's merge was concluded: %v", err)
	}
}
