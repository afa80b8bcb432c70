package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vaultd/vaultd/note"
)

// Git-synced vaults: with Options.GitCommit every change made through vaultd
// becomes one commit of exactly the files it touched, with the change
// summary as message and the actor as author. The user's own work in the
// repository is never swept in: files are staged by name (never
// `git add -A`) and committed with `git commit --only -- <paths>`, which
// leaves whatever else the user has staged alone. Nothing is committed
// while the repository is in the middle of a merge, rebase, cherry-pick or
// revert — the user is resolving something by hand, and a commit then
// would become part of their resolution; the history record says why
// nothing was committed instead.

// gitTimeout bounds one git invocation. Commit hooks run; a hook that hangs
// must not hold the note's lock forever.
const gitTimeout = 30 * time.Second

// gitKey serialises vaultd's commits across processes: two git commands in
// one repository at once fail on .git/index.lock.
const gitKey = "\x00git"

// gitCommitFor commits the vault paths a change touched, if Options.GitCommit
// is set, and returns what happened for the history and the answer:
// "committed as 1a2b3c4", "not committed to git: …", or "" when git
// committing is off. It never fails the change: the files are written
// whatever git says.
func (v *Vault) gitCommitFor(paths []string, summary, actor string) string {
	if !v.opts.GitCommit {
		return ""
	}
	unlock, err := v.lock(gitKey)
	if err != nil {
		return "not committed to git: " + errText(err)
	}
	defer unlock()
	hash, err := v.gitCommit(paths, summary, actor)
	if err != nil {
		return "not committed to git: " + err.Error()
	}
	if hash == "" {
		return "not committed to git: git sees no change in the files touched (they may be ignored by .gitignore)"
	}
	return "committed to git as " + hash
}

// gitDetail renders a git outcome as the tail of a write's Detail.
func gitDetail(git string) string {
	if git == "" {
		return ""
	}
	return "; " + git
}

// gitCommit stages and commits paths (vault-relative) and returns the short
// hash of the new commit, or "" when none of the paths changed for git.
func (v *Vault) gitCommit(paths []string, summary, actor string) (string, error) {
	gitDir, err := v.git("rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", errors.New("the vault is not inside a git repository")
	}
	if why := gitBusy(strings.TrimSpace(gitDir)); why != "" {
		return "", errors.New(why)
	}
	paths = uniqueSorted(paths)
	var present, gone []string
	for _, p := range paths {
		if _, err := v.root.Lstat(p); err == nil {
			present = append(present, p)
		} else {
			gone = append(gone, p)
		}
	}
	if len(present) > 0 {
		if _, err := v.git(append([]string{"add", "--"}, present...)...); err != nil {
			// One ignored path fails the whole add: stage the others one
			// by one and leave out what git refuses.
			for _, p := range present {
				_, _ = v.git("add", "--", p)
			}
		}
	}
	// Commit only what git sees changed among our paths — naming a path
	// git does not know fails the whole commit: the staged ones, and the
	// removed ones it tracks (`commit --only` takes their removal from the
	// working tree).
	var changed []string
	if len(present) > 0 {
		out, err := v.git(append([]string{"diff", "--cached", "--name-only", "--relative", "-z", "--"}, present...)...)
		if err != nil {
			return "", fmt.Errorf("git diff failed: %s", firstGitLine(out, err))
		}
		changed = append(changed, splitZ(out)...)
	}
	if len(gone) > 0 {
		out, err := v.git(append([]string{"ls-files", "-z", "--"}, gone...)...)
		if err != nil {
			return "", fmt.Errorf("git ls-files failed: %s", firstGitLine(out, err))
		}
		changed = append(changed, splitZ(out)...)
	}
	if len(changed) == 0 {
		return "", nil
	}
	name := gitName(actor)
	args := []string{"-c", "user.name=vaultd", "-c", "user.email=vaultd@vaultd",
		"commit", "--quiet", "--no-edit", "-m", summary,
		"--author", name + " <" + strings.ReplaceAll(name, " ", "-") + "@vaultd>", "--only", "--"}
	if out, err := v.git(append(args, changed...)...); err != nil {
		return "", fmt.Errorf("git commit failed: %s", gitSays(out, err))
	}
	hash, err := v.git("rev-parse", "--short", "HEAD")
	if err != nil {
		return "", fmt.Errorf("git rev-parse failed: %s", firstGitLine(hash, err))
	}
	return strings.TrimSpace(hash), nil
}

// gitBusy says why the repository must not get a commit now, or "".
func gitBusy(gitDir string) string {
	states := []struct{ name, what string }{
		{"MERGE_HEAD", "a merge"},
		{"rebase-merge", "a rebase"},
		{"rebase-apply", "a rebase"},
		{"CHERRY_PICK_HEAD", "a cherry-pick"},
		{"REVERT_HEAD", "a revert"},
	}
	for _, s := range states {
		if _, err := os.Lstat(filepath.Join(gitDir, s.name)); err == nil {
			return "the git repository is in the middle of " + s.what + "; vaultd does not commit until it is finished (the change is in the files and in vaultd's history)"
		}
	}
	return ""
}

// git runs git in the vault folder and returns its output (stdout and
// stderr together). No prompt may block it.
//
// vaultd shares the repository with its user, so it takes git's locks as
// briefly as it can: no optional locks (GIT_OPTIONAL_LOCKS=0: diff and
// ls-files do not refresh the index), no automatic gc or maintenance after
// a commit. When the user's own git holds .git/index.lock, the command is
// retried for up to gitLockWait rather than failed.
func (v *Vault) git(args ...string) (string, error) {
	return v.gitRetry(gitTimeout, nil, args...)
}

// gitRetry is gitRun, retried while the user's git holds .git/index.lock
// (for up to gitLockWait); it returns stdout and stderr together.
func (v *Vault) gitRetry(limit time.Duration, env []string, args ...string) (string, error) {
	deadline := time.Now().Add(gitLockWait)
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		out, _, err := v.gitRun(limit, env, args...)
		if err == nil || !strings.Contains(out, "index.lock") || time.Now().Add(wait).After(deadline) {
			return out, err
		}
		time.Sleep(wait)
	}
}

// gitLockWait is how long a git command waits for the user's git to
// release .git/index.lock.
const gitLockWait = 3 * time.Second

func (v *Vault) git1(args ...string) (string, error) {
	out, _, err := v.gitRun(gitTimeout, nil, args...)
	return out, err
}

// gitRun runs git once in the vault folder, with a time limit and extra
// environment, and returns stdout followed by stderr, and stderr alone.
func (v *Vault) gitRun(limit time.Duration, env []string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	all := append([]string{"-c", "gc.auto=0", "-c", "maintenance.auto=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", all...)
	cmd.Dir = v.dir
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("git %s took longer than %v", args[0], limit)
	}
	return stdout.String() + stderr.String(), stderr.String(), err
}

// gitStdout runs git once and returns its stdout alone (a file's text).
func (v *Vault) gitStdout(args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = v.dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, errors.New(firstGitLine(stderr.String(), err))
	}
	return out.Bytes(), nil
}

// firstGitLine is the first line git said, for a message: never a host path
// of ours (git names files relative to the vault folder).
func firstGitLine(out string, err error) string {
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return strings.ReplaceAll(l, "\x00", " ")
		}
	}
	return errText(err)
}

// gitName makes an actor usable as a git author name: no angle brackets or
// line breaks, never empty.
func gitName(actor string) string {
	n := strings.Map(func(r rune) rune {
		switch r {
		case '<', '>', '\n', '\r', 0:
			return -1
		}
		return r
	}, strings.TrimSpace(actor))
	if n == "" {
		return "vaultd"
	}
	return n
}

func splitZ(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func uniqueSorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	j := 0
	for i, p := range out {
		if p == "" || (i > 0 && p == out[i-1]) {
			continue
		}
		out[j] = p
		j++
	}
	return out[:j]
}

// mergeMarkFile, in the state dir, holds the MERGE_HEAD of a merge that
// vaultd's sync started and that stopped on conflicts: vaultd concludes
// that merge once every conflict is resolved, and only that one — a merge
// the user started is the user's to commit.
const mergeMarkFile = "git-merge"

// ownMerge reports whether the merge in progress is the one vaultd's sync
// started.
func (v *Vault) ownMerge(gitDir string) bool {
	mark, err := v.state.ReadFile(mergeMarkFile)
	if err != nil {
		return false
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "MERGE_HEAD"))
	return err == nil && strings.TrimSpace(string(head)) == strings.TrimSpace(string(mark))
}

// gitResolvedFor tells git that note p is resolved, after a resolution
// left no conflict marker in it, and says what happened (Change.Git):
//
//   - a note git lists as unmerged is staged (git add): that is what marks
//     it resolved;
//   - in a merge vaultd's sync started, with Options.GitCommit, the merge
//     is concluded with its commit once no file is unmerged; a merge the
//     user started, or a rebase, is left for the user to finish, and the
//     text says how;
//   - outside a merge, with Options.GitCommit, the note is committed like
//     any change (markers that were committed are gone now).
//
// "" when the vault is not in a git repository.
func (v *Vault) gitResolvedFor(p, summary, actor string) string {
	gitDir, _ := v.repo()
	if gitDir == "" {
		return ""
	}
	unlock, err := v.lock(gitKey)
	if err != nil {
		return "not staged in git: " + errText(err)
	}
	defer unlock()
	if b, err := v.root.ReadFile(p); err == nil && note.HasConflicts(b) {
		return "git is told the note is resolved once no conflict is left in it"
	}
	var parts []string
	m, op := v.unmerged()
	if _, u := m[p]; u {
		if out, err := v.git("add", "--", p); err != nil {
			return "could not mark it resolved in git: git add failed: " + firstGitLine(out, err)
		}
		v.forgetGit()
		parts = append(parts, "marked resolved in git (git add)")
	}
	switch op {
	case "":
		if v.opts.GitCommit {
			hash, err := v.gitCommit([]string{p}, summary, actor)
			switch {
			case err != nil:
				parts = append(parts, "not committed to git: "+err.Error())
			case hash != "":
				parts = append(parts, "committed to git as "+hash)
			}
		}
	case "merge":
		left := v.UnmergedPaths()
		switch {
		case len(left) > 0:
			parts = append(parts, fmt.Sprintf("the merge still has %s in conflict: %s", plural(len(left), "file"), strings.Join(left[:min(len(left), 5)], ", ")))
		case v.opts.GitCommit && v.ownMerge(gitDir):
			hash, err := v.concludeMerge(actor)
			if err != nil {
				parts = append(parts, "every conflict of the merge is resolved, but committing the merge failed: "+err.Error())
			} else {
				parts = append(parts, "every conflict of the merge is resolved: vaultd committed the merge as "+hash)
			}
		case v.ownMerge(gitDir):
			parts = append(parts, "every conflict of the merge is resolved: vaultd's next sync commits the merge (or run git commit)")
		default:
			parts = append(parts, "every conflict of the merge is resolved: the merge is yours, finish it with git commit")
		}
	default:
		parts = append(parts, fmt.Sprintf("git is in the middle of a %s: continue it with git %s --continue once every file is resolved", op, op))
	}
	return strings.Join(parts, "; ")
}

// concludeMerge commits the merge in progress (every file resolved) with
// git's prepared message, and forgets vaultd's mark of it. The caller
// holds gitKey.
func (v *Vault) concludeMerge(actor string) (string, error) {
	name := gitName(actor)
	out, err := v.git("-c", "user.name=vaultd", "-c", "user.email=vaultd@vaultd", "commit", "--quiet", "--no-edit", "--cleanup=strip",
		"--author", name+" <"+strings.ReplaceAll(name, " ", "-")+"@vaultd>")
	if err != nil {
		return "", fmt.Errorf("git commit failed: %s", gitSays(out, err))
	}
	v.state.Remove(mergeMarkFile)
	v.forgetGit()
	hash, err := v.git("rev-parse", "--short", "HEAD")
	if err != nil {
		return "", fmt.Errorf("git rev-parse failed: %s", firstGitLine(hash, err))
	}
	return strings.TrimSpace(hash), nil
}
