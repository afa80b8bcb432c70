package vault

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A sync round that git would refuse because the user has staged changes
// says so with their names, and merges once they are committed.
func TestSync_StagedChangesNamed(t *testing.T) {
	_, a, b := gitClones(t, map[string]string{"A.md": "a\n", "B.md": "b\n", "Mein Plan.md": "c\n", "D.md": "d\n"})
	pushAs(t, b, map[string]string{"B.md": "b von Ben\n"}, "Ben")
	va := gitOpen(t, a)
	if _, err := va.Append("A.md", "", []byte("von Anna"), wOpts("Anna")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(a, "Mein Plan.md"), []byte("c, gestaged\n"), 0o644)
	os.WriteFile(filepath.Join(a, "D.md"), []byte("d, gestaged\n"), 0o644)
	gitRun(t, a, "add", "Mein Plan.md", "D.md")
	r := va.Sync(context.Background())
	if !r.OK() || !strings.Contains(r.Waiting, "1 commit from origin/main not merged yet: you have staged changes in D.md, Mein Plan.md, and git merges only when nothing is staged; commit them, or unstage them (git restore --staged -- D.md 'Mein Plan.md')") {
		t.Fatalf("round: %+v", r)
	}
	gitRun(t, a, "commit", "-qm", "meins")
	if r := va.Sync(context.Background()); !r.OK() || !strings.Contains(r.Merged, "1 commit from origin/main (merged)") {
		t.Fatalf("round after the commit: %+v", r)
	}
}

// What git says about the files it refuses to overwrite reaches the
// report with every name (git's first line alone ends before them).
func TestGitSays_NamesTheFiles(t *testing.T) {
	dir := gitRepo(t, map[string]string{"A.md": "a\n", "B.md": "b\n", "C.md": "c\n"})
	gitRun(t, dir, "checkout", "-q", "-b", "other")
	for _, p := range []string{"A.md", "B.md"} {
		os.WriteFile(filepath.Join(dir, p), []byte("other\n"), 0o644)
	}
	gitRun(t, dir, "commit", "-qam", "other")
	gitRun(t, dir, "checkout", "-q", "main")
	for _, p := range []string{"A.md", "B.md"} {
		os.WriteFile(filepath.Join(dir, p), []byte("mine\n"), 0o644)
	}
	cmd := exec.Command("git", "checkout", "other")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("git checkout did not refuse")
	}
	got := gitSays(string(out), err)
	want := "error: Your local changes to the following files would be overwritten by checkout: A.md, B.md; Please commit your changes or stash them before you switch branches; Aborting"
	if got != want {
		t.Errorf("gitSays(%q) =\n%q\nwant\n%q", out, got, want)
	}
	var many strings.Builder
	many.WriteString("error: The following untracked working tree files would be overwritten by merge:\n")
	for i := range 14 {
		many.WriteString("\tNotiz " + string(rune('A'+i)) + ".md\n")
	}
	many.WriteString("Please move or remove them before you merge.\nAborting\n")
	if got := gitSays(many.String(), nil); !strings.Contains(got, "merge: Notiz A.md, Notiz B.md, Notiz C.md, Notiz D.md, Notiz E.md, Notiz F.md, Notiz G.md, Notiz H.md, Notiz I.md, Notiz J.md and 4 more; Please move") {
		t.Errorf("gitSays of 14 files: %q", got)
	}
}

// A commit hook that refuses a commit with a list: the write says why,
// with the list (git's first line alone would end before it).
func TestGit_CommitHookMessageWhole(t *testing.T) {
	dir := gitRepo(t, map[string]string{"A.md": "a\n"})
	hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
	os.WriteFile(hook, []byte("#!/bin/sh\necho 'checks failed:' >&2\nprintf '\\tA.md: too long\\n\\tB.md: no title\\n' >&2\nexit 1\n"), 0o755)
	v := gitOpen(t, dir)
	res, err := v.Append("A.md", "", []byte("mehr"), wOpts("mehr"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Detail, "not committed to git: git commit failed: checks failed: A.md: too long, B.md: no title") {
		t.Errorf("detail: %s", res.Detail)
	}
}
