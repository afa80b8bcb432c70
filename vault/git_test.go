package vault

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

// gitRepo makes dir a git repository with one commit of files, and a
// change of the user's that is staged and one that is not: vaultd's
// commits must leave both alone.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	wFiles(t, dir, files)
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "start")
	return dir
}

// gitRun runs git with a fixed identity (the test's own commits; vaultd's
// need none).
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.org", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func gitOpen(t *testing.T, dir string) *Vault {
	t.Helper()
	// No global config: vaultd must commit without user.name/user.email.
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_SYSTEM", "/dev/null")
	return wOpenDir(t, dir, Options{NoSync: true, Actor: "mcp:claude", GitCommit: true, StateDir: t.TempDir()})
}

func TestGit_CommitsOnlyTouchedFiles(t *testing.T) {
	dir := gitRepo(t, map[string]string{"A.md": "a\n", "B.md": "b\n", "Mine.md": "m\n", "Projekt.md": "p\n", "Projekt/Teil.md": "t\n", "Ref.md": "[p](./Projekt.md)\n"})
	v := gitOpen(t, dir)
	// The user's own work in progress: one file staged, one not.
	os.WriteFile(filepath.Join(dir, "Mine.md"), []byte("meins, ungespeichert\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "B.md"), []byte("b gestaged\n"), 0o644)
	gitRun(t, dir, "add", "B.md")

	res, err := v.Append("A.md", "", []byte("mehr"), WriteOpts{Summary: "Gedanke ergänzt"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Detail, "; committed to git as ") {
		t.Errorf("detail: %s", res.Detail)
	}
	if got := gitRun(t, dir, "log", "-1", "--format=%an <%ae>|%s"); got != "mcp:claude <mcp:claude@vaultd>|Gedanke ergänzt" {
		t.Errorf("commit: %s", got)
	}
	if got := gitRun(t, dir, "show", "--name-only", "--format=", "HEAD"); got != "A.md" {
		t.Errorf("files in the commit: %q", got)
	}
	if got := gitRun(t, dir, "status", "--porcelain"); got != "M  B.md\n M Mine.md" {
		t.Errorf("the user's work after the commit:\n%s", got)
	}
	h, _ := v.History(HistoryFilter{Limit: 1})
	if !strings.HasPrefix(h[0].Git, "committed to git as ") {
		t.Errorf("history record: %+v", h[0])
	}

	// A move: one commit with every file it touched, renames included.
	m, err := v.Move("Projekt.md", "Archiv/", WriteOpts{Summary: "archiviert", ExpectedVersion: note.Version([]byte("p\n"))})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(m.Git, "committed to git as ") {
		t.Errorf("move git: %q", m.Git)
	}
	got := gitRun(t, dir, "show", "--name-status", "--format=%s", "-M", "HEAD")
	want := "archiviert\n\nR100\tProjekt.md\tArchiv/Projekt.md\nR100\tProjekt/Teil.md\tArchiv/Projekt/Teil.md\nM\tRef.md"
	if got != want {
		t.Errorf("move commit:\n got %q\nwant %q", got, want)
	}
	// A delete: the removal is committed.
	if _, err := v.Delete("A.md", WriteOpts{Summary: "weg", ExpectedVersion: wVersion(t, dir, "A.md")}); err != nil {
		t.Fatal(err)
	}
	if got := gitRun(t, dir, "show", "--name-status", "--format=%s", "HEAD"); got != "weg\n\nD\tA.md" {
		t.Errorf("delete commit: %q", got)
	}
	// The trash is Obsidian's .trash/: vaultd never commits it.
	if got := gitRun(t, dir, "status", "--porcelain"); got != "M  B.md\n M Mine.md\n?? .trash/" {
		t.Errorf("the user's work at the end:\n%s", got)
	}
}

// A pin changes .obsidian/bookmarks.json, not the note: that file is what
// the commit holds.
func TestGit_PinCommitsBookmarks(t *testing.T) {
	dir := gitRepo(t, map[string]string{"A.md": "a\n"})
	v := gitOpen(t, dir)
	if _, err := v.Pin("A.md", WriteOpts{Summary: "angeheftet"}); err != nil {
		t.Fatal(err)
	}
	if got := gitRun(t, dir, "show", "--name-only", "--format=%s", "HEAD"); got != "angeheftet\n\n.obsidian/bookmarks.json" {
		t.Errorf("pin commit: %q", got)
	}
}

func TestGit_NoCommitMidMerge(t *testing.T) {
	for _, state := range []string{"MERGE_HEAD", "rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD"} {
		t.Run(state, func(t *testing.T) {
			dir := gitRepo(t, map[string]string{"A.md": "a\n"})
			v := gitOpen(t, dir)
			head := gitRun(t, dir, "rev-parse", "HEAD")
			p := filepath.Join(dir, ".git", state)
			if strings.HasPrefix(state, "rebase") {
				os.MkdirAll(p, 0o755)
			} else {
				os.WriteFile(p, []byte(head+"\n"), 0o644)
			}
			res, err := v.Append("A.md", "", []byte("mehr"), WriteOpts{Summary: "während des Merges"})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Detail, "not committed to git: the git repository is in the middle of") {
				t.Errorf("detail: %s", res.Detail)
			}
			if got := gitRun(t, dir, "rev-parse", "HEAD"); got != head {
				t.Errorf("a commit was made mid-%s", state)
			}
			h, _ := v.History(HistoryFilter{Limit: 1})
			if !strings.HasPrefix(h[0].Git, "not committed to git: the git repository is in the middle of") {
				t.Errorf("history record: %+v", h[0])
			}
			if wRead(t, dir, "A.md") != "a\n\nmehr\n" {
				t.Errorf("the change itself must be written")
			}
		})
	}
}

func TestGit_NotARepository(t *testing.T) {
	dir := t.TempDir()
	wFiles(t, dir, map[string]string{"A.md": "a\n"})
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	v := wOpenDir(t, dir, Options{NoSync: true, GitCommit: true})
	res, err := v.Append("A.md", "", []byte("x"), wOpts("s"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.Detail, "; not committed to git: the vault is not inside a git repository") {
		t.Errorf("detail: %s", res.Detail)
	}
}

// While the user's own git holds .git/index.lock, vaultd's commit waits for
// it (briefly) instead of failing, and commits once it is free.
func TestGit_WaitsForTheUsersIndexLock(t *testing.T) {
	dir := gitRepo(t, map[string]string{"A.md": "a\n"})
	v := gitOpen(t, dir)
	lock := filepath.Join(dir, ".git", "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		os.Remove(lock) // the user's checkout finished
	}()
	res, err := v.Append("A.md", "", []byte("mehr"), WriteOpts{Summary: "während git arbeitet"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Detail, "committed to git as") {
		t.Errorf("detail %q: want the change committed once the lock was free", res.Detail)
	}
	if got := gitRun(t, dir, "log", "-1", "--format=%s"); got != "während git arbeitet" {
		t.Errorf("last commit %q", got)
	}
}
