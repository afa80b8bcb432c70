package vault

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Sync with the git remote: one round fetches the branch's upstream,
// merges it (through vaultd's merge driver where `vaultd git install`
// registered it) and pushes vaultd's own commits. The rules:
//
//   - never while git is in the middle of a merge, rebase, cherry-pick or
//     revert — except to conclude a merge vaultd's own round started,
//     once every conflict in it is resolved;
//   - never while the user's own uncommitted work touches a file the merge
//     would change (vaultd's own uncommitted changes — made while git could
//     not take a commit — are committed first);
//   - never a force push, and only vaultd's own commits: when the branch
//     holds commits of the user's that are not pushed yet, vaultd leaves
//     pushing to the user;
//   - the remote, and the credentials to reach it, are git's own (ssh,
//     https with a credential helper, a local path); vaultd stores none.
//
// A merge that stops on conflicts stays in progress, as `git pull` leaves
// it: the notes are reported in conflict everywhere, agents and people
// resolve them (ResolveConflict), and the round after the last resolution
// concludes the merge and pushes it.
//
// git's locks are held briefly: the network steps (fetch, push) run
// without vaultd's git lock; the merge runs under it and under the locks
// of the notes it changes (taken without waiting long, see tryLock), so
// that no vaultd write lands in a file while git rewrites it.

// SyncReport says what one sync round did.
type SyncReport struct {
	Time     time.Time `json:"time"`
	Upstream string    `json:"upstream,omitempty"` // "origin/main"
	// Committed counts vaultd's own changes committed before the round
	// (made while git could not take a commit).
	Committed int    `json:"committed,omitempty"`
	Merged    string `json:"merged,omitempty"` // what came in: "2 commits from origin/main (fast-forward)"
	Pushed    string `json:"pushed,omitempty"` // what went out: "3 commits to origin/main"
	// Conflicts are the notes a merge left in conflict (the merge is in
	// progress until they are resolved).
	Conflicts []string `json:"conflicts,omitempty"`
	// Waiting says why the round did nothing (more), when that is not a
	// failure: the user's work in the way, a merge to resolve.
	Waiting string `json:"waiting,omitempty"`
	// Error says what failed; the round is retried with backoff.
	Error string `json:"error,omitempty"`
	// Failures counts the rounds in a row that failed, this one included.
	Failures int `json:"failures,omitempty"`
	// Rejected: the push failed only because the remote moved meanwhile
	// (another clone pushed first) — contention, not a fault.
	Rejected bool `json:"push_rejected,omitempty"`
	// Attributes are what the team's .gitattributes set on notes that
	// changes how git stores or merges them, and what vaultd does about
	// each (gitattr.go).
	Attributes []AttrNotice `json:"attributes,omitempty"`
	// Restored are the notes git had written in another encoding that
	// the round turned back into the UTF-8 text committed.
	Restored []string `json:"restored_utf8,omitempty"`
	// KeptBoth are the attachments the merge found changed on both sides,
	// kept both ways until someone chooses (attachconflict.go).
	KeptBoth []AttachmentConflict `json:"attachments_kept_both,omitempty"`
}

// OK reports whether the round failed in nothing.
func (r *SyncReport) OK() bool { return r.Error == "" }

// Text renders the round in one paragraph, for the log, the CLI and
// vault_overview.
func (r *SyncReport) Text() string {
	var parts []string
	if len(r.Restored) > 0 {
		parts = append(parts, fmt.Sprintf("turned %s git had written in another encoding back into the UTF-8 text committed (%s)", plural(len(r.Restored), "note"), strings.Join(r.Restored[:min(len(r.Restored), 5)], ", ")))
	}
	if r.Committed > 0 {
		parts = append(parts, fmt.Sprintf("committed %s vaultd made while git was busy", plural(r.Committed, "change")))
	}
	if r.Merged != "" {
		parts = append(parts, "merged "+r.Merged)
	}
	if len(r.KeptBoth) > 0 {
		var ps []string
		for _, a := range r.KeptBoth {
			ps = append(ps, a.Path)
		}
		parts = append(parts, fmt.Sprintf("%s changed on both sides kept both ways until someone chooses with resolve_conflict (%s)", plural(len(ps), "attachment"), namesList(ps)))
	}
	if r.Pushed != "" {
		parts = append(parts, "pushed "+r.Pushed)
	}
	if r.Waiting != "" {
		parts = append(parts, r.Waiting)
	}
	if r.Error != "" {
		msg := r.Error
		if r.Failures > 1 {
			msg += fmt.Sprintf(" (%s in a row)", plural(r.Failures, "failed round"))
		}
		parts = append(parts, msg)
	}
	if len(parts) == 0 {
		if r.Upstream != "" {
			parts = append(parts, "up to date with "+r.Upstream)
		} else {
			parts = append(parts, "up to date")
		}
	}
	if len(r.Attributes) > 0 {
		var as []string
		for _, a := range r.Attributes {
			s := a.Attr
			if a.Kept {
				s += " (not in effect here)"
			}
			as = append(as, s)
		}
		parts = append(parts, ".gitattributes sets "+strings.Join(as, ", ")+" on notes")
	}
	return strings.Join(parts, "; ")
}

// Time limits of the network steps, and of the merge (a merge driver runs
// per note both sides changed).
const (
	syncNetTimeout   = 2 * time.Minute
	syncMergeTimeout = 2 * time.Minute
	// syncLockWait is how long a round waits for each note lock it needs
	// before it gives up for this round (a write holds one for
	// milliseconds).
	syncLockWait = 2 * time.Second
)

// syncKey serialises sync rounds across the vaultd processes of a vault.
const syncKey = "\x00sync"

// syncFile, in the state dir, holds the last round's SyncReport.
const syncFile = "git-sync.json"

// Sync runs one sync round (see above) and records its report in the
// state dir, where LastSync finds it. It never returns an error: what
// failed is in the report. A round while another vaultd process runs one
// on this vault does nothing and says so (Waiting), without recording.
func (v *Vault) Sync(ctx context.Context) *SyncReport {
	r := &SyncReport{Time: v.opts.Now().UTC()}
	unlock, ok, err := v.tryLock(syncKey, 0)
	if err != nil {
		r.Error = "could not lock the sync: " + errText(err)
		return v.saveSync(r)
	}
	if !ok {
		r.Waiting = "another vaultd process is syncing this vault right now"
		return r
	}
	defer unlock()
	v.syncRound(ctx, r)
	if a, err := v.NoteAttributes(); err == nil {
		r.Attributes = a
	}
	return v.saveSync(r)
}

func (v *Vault) saveSync(r *SyncReport) *SyncReport {
	if prev, ok := v.LastSync(); ok && r.Error != "" {
		r.Failures = prev.Failures + 1
	} else if r.Error != "" {
		r.Failures = 1
	}
	if b, err := json.Marshal(r); err == nil {
		_ = v.writeStateFile(syncFile, append(b, '\n'))
	}
	return r
}

// LastSync returns the report of the last sync round on this vault (by
// any vaultd process), if there was one.
func (v *Vault) LastSync() (*SyncReport, bool) {
	b, err := v.state.ReadFile(syncFile)
	if err != nil {
		return nil, false
	}
	var r SyncReport
	if json.Unmarshal(b, &r) != nil {
		return nil, false
	}
	return &r, true
}

// writeStateFile replaces a small file of the state dir atomically.
func (v *Vault) writeStateFile(name string, b []byte) error {
	tmp := name + "." + randHex(4) + ".tmp"
	if err := v.state.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	if err := v.state.Rename(tmp, name); err != nil {
		v.state.Remove(tmp)
		return err
	}
	return nil
}

func (v *Vault) syncRound(ctx context.Context, r *SyncReport) {
	gitDir, _ := v.repo()
	if gitDir == "" {
		r.Error = "the vault is not inside a git repository (or git is not installed)"
		return
	}
	branch, err := v.git("symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		r.Waiting = "HEAD is detached (no branch is checked out), so there is nothing to sync"
		return
	}
	branch = strings.TrimSpace(branch)
	remote, _ := v.git("config", "--get", "branch."+branch+".remote")
	mergeRef, _ := v.git("config", "--get", "branch."+branch+".merge")
	remote, mergeRef = strings.TrimSpace(remote), strings.TrimSpace(mergeRef)
	if remote == "" || mergeRef == "" || remote == "." {
		r.Error = fmt.Sprintf("branch %s has no upstream on a remote; set one with: git push -u origin %s", branch, branch)
		return
	}
	r.Upstream = remote + "/" + strings.TrimPrefix(mergeRef, "refs/heads/")

	// Notes stay UTF-8 and merge by vaultd's driver in this clone, whatever
	// a merged .gitattributes says (gitattr.go): before anything is merged.
	if _, err := v.keepNoteAttrs(v.driverConfigured()); err != nil {
		r.Error = "could not keep notes UTF-8 in this clone: " + err.Error()
		return
	}
	if op, _ := operation(gitDir); op != "" {
		if !v.concludeOwnMerge(gitDir, op, r) {
			return
		}
	}
	if v.opts.GitCommit {
		r.Committed = v.commitPending()
	}
	r.Restored, _ = v.restoreEncoded()
	if ctx.Err() != nil {
		r.Error = "interrupted"
		return
	}
	if out, _, err := v.gitRun(syncNetTimeout, nil, "fetch", "--quiet", "--no-write-fetch-head", remote); err != nil {
		r.Error = "git fetch " + remote + " failed: " + gitSays(out, err)
		return
	}
	upstream := "refs/remotes/" + remote + "/" + strings.TrimPrefix(mergeRef, "refs/heads/")
	if _, err := v.git("rev-parse", "--verify", "--quiet", upstream); err != nil {
		// The remote branch does not exist yet (a new, empty remote): push creates it.
		upstream = ""
	}
	if upstream != "" {
		if behind := v.count("HEAD.." + upstream); behind > 0 {
			if !v.syncMerge(r, upstream, behind, gitDir) {
				return
			}
		}
	}
	if ctx.Err() != nil {
		r.Error = "interrupted"
		return
	}
	v.syncPush(r, remote, mergeRef, upstream)
}

// count is the number of commits in a rev-list range (0 on an error).
func (v *Vault) count(rng string) int {
	out, err := v.git("rev-list", "--count", rng)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(out))
	return n
}

// concludeOwnMerge handles a round that finds git in the middle of an
// operation: a merge vaultd started whose conflicts are all resolved is
// committed, and the round goes on; anything else waits.
func (v *Vault) concludeOwnMerge(gitDir, op string, r *SyncReport) bool {
	left := v.UnmergedPaths()
	if op == "merge" && v.ownMerge(gitDir) && v.opts.GitCommit {
		unlock, err := v.lock(gitKey)
		if err != nil {
			r.Error = "could not lock git: " + errText(err)
			return false
		}
		var kerr error
		if len(left) > 0 && len(notesOnly(left)) == 0 {
			left, kerr = v.keepBothAndConclude(r) // attachments left from an earlier vaultd
		} else if len(left) == 0 {
			var hash string
			hash, kerr = v.concludeMerge("vaultd")
			if kerr == nil {
				r.Merged = "the merge whose conflicts were resolved, committed as " + hash
			}
		}
		unlock()
		switch {
		case kerr != nil:
			r.Error = "every conflict of the merge is resolved, but " + kerr.Error()
			return false
		case len(left) == 0:
			if r.Merged == "" {
				r.Merged = "the merge whose conflicts were resolved"
			}
			return true
		}
	}
	r.Conflicts = notesOnly(left)
	what := "a " + op
	if op == "merge" && v.ownMerge(gitDir) {
		what = "the merge vaultd started"
	}
	r.Waiting = fmt.Sprintf("git is in the middle of %s, so nothing is synced until it is finished", what)
	if len(left) > 0 {
		r.Waiting += fmt.Sprintf("; %s still in conflict: %s", pluralVerb(len(left), "file", "is", "are"), namesList(left))
	}
	return false
}

func notesOnly(paths []string) []string {
	var out []string
	for _, p := range paths {
		if IsNote(p) {
			out = append(out, p)
		}
	}
	return out
}

// syncMerge merges upstream (behind commits ahead of HEAD). It returns
// false when the round ends here.
func (v *Vault) syncMerge(r *SyncReport, upstream string, behind int, gitDir string) bool {
	// Paths from the top of the work tree, as git status names them.
	out, err := v.git("diff", "--name-only", "-z", "--no-relative", "HEAD..."+upstream)
	if err != nil {
		r.Error = "git diff failed: " + firstGitLine(out, err)
		return false
	}
	files := splitZ(out)
	// The user's own uncommitted work in a file the merge changes: wait.
	status, err := v.git("status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		r.Error = "git status failed: " + firstGitLine(status, err)
		return false
	}
	dirty := porcelainPaths(status)
	var mine []string
	for _, f := range files {
		if dirty[f] {
			mine = append(mine, f)
		}
	}
	if len(mine) > 0 {
		sort.Strings(mine)
		r.Waiting = fmt.Sprintf("%s from %s not merged yet: your uncommitted changes in %s touch files they change; commit or stash them, and the next round merges",
			plural(behind, "commit"), r.Upstream, namesList(mine))
		return false
	}
	// A merge that is not a fast-forward needs an index without staged
	// changes (git refuses it otherwise, whatever files they are in).
	if _, err := v.git("merge-base", "--is-ancestor", "HEAD", upstream); err != nil {
		if out, err := v.git("diff", "--cached", "--name-only", "-z", "--no-relative"); err == nil {
			if staged := splitZ(out); len(staged) > 0 {
				sort.Strings(staged)
				r.Waiting = fmt.Sprintf("%s from %s not merged yet: you have staged changes in %s, and git merges only when nothing is staged; commit them, or unstage them (git restore --staged -- %s), and the next round merges",
					plural(behind, "commit"), r.Upstream, namesList(staged), shellWords(staged[:min(len(staged), gitSaysFiles)]))
				return false
			}
		}
	}
	// The locks of the notes the merge rewrites, then git's.
	keys := make([]string, 0, len(files))
	var changed []string // vault paths
	for _, f := range files {
		if p, ok := v.vaultPath(f); ok {
			keys = append(keys, noteKey(p))
			changed = append(changed, p)
		}
	}
	sort.Strings(keys)
	// The merge is computed first without any lock (mergedriver.go); under
	// the locks git finds every note's merge done — unless HEAD moved
	// meanwhile (a write committed), which computes again.
	env := []string{"GIT_MERGE_AUTOEDIT=no", MergeCacheEnv + "=" + filepath.Join(v.stateDir, mergeCacheDir), MergeTheirsEnv + "=" + r.Upstream}
	defer v.clearMergeCache()
	var unlocks []func()
	release := func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
		unlocks = nil
	}
	var unlockGit func()
	var tree string // the merge's tree when it is clean
	_, ffErr := v.git("merge-base", "--is-ancestor", "HEAD", upstream)
	for redo := 0; ; redo++ {
		head, _ := v.git("rev-parse", "HEAD")
		if ffErr != nil { // a fast-forward merges nothing
			tree = v.precomputeMerge(env, upstream)
		}
		_ = v.step("sync-computed", "")
		for i, k := range keys {
			if i > 0 && k == keys[i-1] {
				continue
			}
			u, ok, err := v.tryLock(k, syncLockWait)
			if err != nil || !ok {
				release()
				r.Error = "the notes the merge changes are being written right now; the next round merges"
				return false
			}
			unlocks = append(unlocks, u)
		}
		_ = v.step("sync-locked", "")
		if unlockGit, err = v.lock(gitKey); err != nil {
			release()
			r.Error = "could not lock git: " + errText(err)
			return false
		}
		if now, _ := v.git("rev-parse", "HEAD"); now == head {
			break
		}
		unlockGit()
		release()
		_ = v.step("sync-unlocked", "")
		if redo+1 == mergeRedos {
			r.Waiting = fmt.Sprintf("%s from %s not merged yet: the notes kept changing while the merge was computed (%d times); the next round merges",
				plural(behind, "commit"), r.Upstream, mergeRedos)
			return false
		}
	}
	defer func() { release(); _ = v.step("sync-unlocked", "") }()
	before, _ := v.git("rev-parse", "HEAD")
	if tree != "" {
		// Clean: the merge commit is made from the tree computed, and the
		// work tree moves to it as in a fast-forward — no merging here.
		out, err = v.commitMergeTree(tree, strings.TrimSpace(before), upstream, r.Upstream)
	} else {
		out, err = v.gitRetry(syncMergeTimeout, env,
			"-c", "user.name=vaultd", "-c", "user.email=vaultd@vaultd", "merge", "--no-edit", "--quiet", r.Upstream)
	}
	v.forgetGit()
	if err != nil {
		if op, ref := operation(gitDir); op == "merge" {
			// Stopped on conflicts: the merge stays in progress, marked as
			// vaultd's, so that the round after the last resolution
			// concludes it — unless they were all attachments, which are
			// kept both ways at once (attachconflict.go).
			if head, rerr := readGitFile(gitDir, ref); rerr == nil {
				_ = v.writeStateFile(mergeMarkFile, []byte(head+"\n"))
			}
			left, kerr := v.keepBothAndConclude(r)
			unlockGit()
			v.notify(changed...)
			switch {
			case kerr != nil:
				r.Error = "the merge stopped on conflicts in attachments, and keeping both versions failed: " + kerr.Error()
				return false
			case len(left) == 0:
				r.Merged = fmt.Sprintf("%s from %s (merged)", plural(behind, "commit"), r.Upstream)
				return true
			}
			r.Conflicts = notesOnly(left)
			r.Waiting = fmt.Sprintf("the merge of %s from %s stopped on conflicts in %s; resolve them (resolve_conflict, or by hand and git add) and the next round commits the merge",
				plural(behind, "commit"), r.Upstream, conflictFiles(left))
			return false
		}
		unlockGit()
		r.Error = "git merge failed: " + gitSays(out, err)
		return false
	}
	after, _ := v.git("rev-parse", "HEAD")
	unlockGit()
	how := "merged"
	if v.count(strings.TrimSpace(before)+".."+strings.TrimSpace(after)) == behind {
		how = "fast-forward"
	}
	r.Merged = fmt.Sprintf("%s from %s (%s)", plural(behind, "commit"), r.Upstream, how)
	v.notify(changed...)
	return true
}

// syncPush pushes the branch when every commit the remote lacks is
// vaultd's.
func (v *Vault) syncPush(r *SyncReport, remote, mergeRef, upstream string) {
	rng := "HEAD"
	if upstream != "" {
		rng = upstream + "..HEAD"
	}
	ahead := v.count(rng)
	if ahead == 0 {
		return
	}
	out, err := v.git("log", "--format=%ce", rng)
	if err != nil {
		r.Error = "git log failed: " + firstGitLine(out, err)
		return
	}
	others := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.TrimSpace(l) != "vaultd@vaultd" {
			others++
		}
	}
	if others > 0 {
		r.Waiting = fmt.Sprintf("not pushed: %s not on %s yet, and %s not vaultd's; vaultd pushes only its own commits, push yours with git push",
			pluralVerb(ahead, "commit", "is", "are"), r.Upstream, pluralVerb(others, "of them", "is", "are"))
		return
	}
	if err := v.step("sync-push", r.Upstream); err != nil {
		r.Error = "git push failed: " + err.Error()
		return
	}
	out, _, err = v.gitRun(syncNetTimeout, nil, "push", "--porcelain", "--quiet", remote, "HEAD:"+mergeRef)
	if err != nil {
		if strings.Contains(out, "rejected") || strings.Contains(out, "fetch first") || strings.Contains(out, "non-fast-forward") {
			r.Error = fmt.Sprintf("push rejected: %s has commits this clone does not have yet; the next round fetches and merges them, then pushes", r.Upstream)
			r.Rejected = true
			return
		}
		r.Error = "git push failed: " + gitSays(out, err)
		return
	}
	r.Pushed = fmt.Sprintf("%s to %s", plural(ahead, "commit"), r.Upstream)
}

// commitPending commits vaultd's own changes that are not committed (made
// while git was in the middle of a merge, or when a commit failed): the
// notes whose text on disk is the one vaultd's last history record of
// them left. Anything else uncommitted is the user's, and stays.
func (v *Vault) commitPending() int {
	status, err := v.git("status", "--porcelain=v1", "-z", "--", ".")
	if err != nil {
		return 0
	}
	changed := map[string]bool{}
	for f := range porcelainPaths(status) {
		if p, ok := v.vaultPath(f); ok && IsNote(p) {
			changed[p] = true
		}
	}
	if len(changed) == 0 {
		return 0
	}
	last := map[string]Change{}
	_ = v.readChanges(func(ch Change) {
		if changed[ch.Path] {
			last[ch.Path] = ch
		}
	})
	var mine []string
	for p := range changed {
		ch, ok := last[p]
		if !ok || ch.Actor == "external" || ch.Op == "external" {
			continue
		}
		if v.currentVersion(p) == ch.After { // "" == "" for a note vaultd deleted
			mine = append(mine, p)
		}
	}
	if len(mine) == 0 {
		return 0
	}
	unlock, err := v.lock(gitKey)
	if err != nil {
		return 0
	}
	defer unlock()
	hash, err := v.gitCommit(mine, fmt.Sprintf("vaultd: %s made while git could not take a commit", plural(len(mine), "change")), "vaultd")
	if err != nil || hash == "" {
		return 0
	}
	return len(mine)
}

// porcelainPaths reads `git status --porcelain=v1 -z`: every path it
// names, a rename's source too.
func porcelainPaths(status string) map[string]bool {
	out := map[string]bool{}
	recs := splitZ(status)
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		if len(rec) < 4 {
			continue
		}
		out[rec[3:]] = true
		if rec[0] == 'R' || rec[0] == 'C' {
			i++ // the source follows
			if i < len(recs) {
				out[recs[i]] = true
			}
		}
	}
	return out
}

func readGitFile(gitDir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, name))
	return strings.TrimSpace(string(b)), err
}

// pluralVerb renders "1 file is", "3 files are"; a noun with a space
// ("of them") counts as is: "2 of them are".
func pluralVerb(n int, noun, one, many string) string {
	if n == 1 {
		return "1 " + noun + " " + one
	}
	if strings.Contains(noun, " ") {
		return fmt.Sprintf("%d %s %s", n, noun, many)
	}
	return fmt.Sprintf("%d %ss %s", n, noun, many)
}

// syncMaxBackoff bounds the wait after failed rounds.
const syncMaxBackoff = 15 * time.Minute

// SyncEvery runs Sync until ctx ends: a round at once, then one every
// interval. After a failed round the wait doubles (interval × 2, × 4, …,
// at most syncMaxBackoff, never less than interval); every wait varies by
// ±10 %, so that two clones started together do not keep pushing at the
// same moment. A push rejected because another clone pushed first is
// contention, not a fault: it is retried after one to two intervals,
// drawn at random (growing waits would let the busier clone starve the
// other). report, if set, gets each round and the wait before the next.
func (v *Vault) SyncEvery(ctx context.Context, interval time.Duration, report func(r *SyncReport, next time.Duration)) {
	for {
		r := v.Sync(ctx)
		wait := interval
		switch {
		case r.Rejected:
			wait += time.Duration(rand.Float64() * float64(interval))
		case r.Error != "":
			for i := 0; i < r.Failures && wait < syncMaxBackoff; i++ {
				wait *= 2
			}
			wait = max(min(wait, syncMaxBackoff), interval)
			fallthrough
		default:
			wait += time.Duration((rand.Float64()*0.2 - 0.1) * float64(wait))
		}
		if report != nil {
			report(r, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// namesList renders file names for a report: all of them up to
// gitSaysFiles, then how many more.
func namesList(names []string) string {
	s := strings.Join(names[:min(len(names), gitSaysFiles)], ", ")
	if more := len(names) - gitSaysFiles; more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// keepBothAndConclude keeps both versions of the attachments the merge in
// progress left unmerged and, when nothing else is, commits the merge. The
// caller holds gitKey. It returns the files still unmerged.
func (v *Vault) keepBothAndConclude(r *SyncReport) ([]string, error) {
	left := v.UnmergedPaths()
	kept, err := v.keepBothAttachments(r.Upstream, left)
	r.KeptBoth = append(r.KeptBoth, kept...)
	if err != nil {
		return left, err
	}
	if left = v.UnmergedPaths(); len(left) > 0 || len(kept) == 0 {
		return left, nil
	}
	if _, err := v.concludeMerge("vaultd"); err != nil {
		return left, err
	}
	return nil, nil
}

// conflictFiles names the files a merge stopped on: "2 files (A.md,
// .obsidian/app.json: in a hidden folder, for a person to resolve with
// git)".
func conflictFiles(left []string) string {
	s := plural(len(left), "file") + " (" + namesList(left)
	for _, p := range left {
		if hiddenPath(p) {
			s += "; files in hidden folders are for a person to resolve with git"
			break
		}
	}
	return s + ")"
}

// mergeRedos bounds how often a round computes its merge again because a
// write committed meanwhile; then it leaves the merge to the next round.
const mergeRedos = 3

// precomputeMerge has git compute the merge of upstream into HEAD without
// touching the work tree, the index or any lock (git merge-tree), so that
// vaultd's merge driver keeps its results (mergedriver.go). It returns the
// merged tree when the merge is clean, "" when it is not (or git has no
// merge-tree --write-tree, before 2.38): then git merges under the locks,
// finding the notes' merges done.
func (v *Vault) precomputeMerge(env []string, upstream string) string {
	out, _, err := v.gitRun(syncMergeTimeout, env, "merge-tree", "--write-tree", "--name-only", "-z", "HEAD", upstream)
	if err != nil {
		return ""
	}
	tree, _, _ := strings.Cut(out, "\x00")
	if tree = strings.TrimSpace(tree); len(tree) < 40 || strings.ContainsAny(tree, " \n") {
		return ""
	}
	return tree
}

// commitMergeTree makes the merge commit of head and upstream (named
// name, for the message git would write) from tree, computed clean, and
// moves the branch, index and work tree to it as a fast-forward does —
// only the files the merge changed are written. The caller holds the
// locks; head is HEAD, checked unchanged since tree was computed.
func (v *Vault) commitMergeTree(tree, head, upstream, name string) (string, error) {
	msg := "Merge remote-tracking branch '" + name + "'"
	commit, err := v.git("-c", "user.name=vaultd", "-c", "user.email=vaultd@vaultd", "commit-tree", tree, "-p", head, "-p", upstream, "-m", msg)
	if err != nil {
		return commit, err
	}
	return v.gitRetry(syncMergeTimeout, nil, "merge", "--ff-only", "--quiet", strings.TrimSpace(commit))
}
