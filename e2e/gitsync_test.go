package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// A team on git, for real: a bare repository and two clones, each served
// by its own vaultd process with its own agent, syncing through the
// remote (issue 18). No mocks: real git, the built binary, its merge
// driver as git runs it.

// gitEnv keeps the user's git configuration out of the tests.
var gitEnv = []string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null"}

// gitIn runs git in dir as a test user and returns its output.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitCmd(dir, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

func gitCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.org", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	return cmd
}

// clone is one team member's clone with its state dir.
type clone struct {
	dir, state string
}

// teamRepo makes a bare repository holding files and two clones of it.
// With driver, .gitattributes routes notes to vaultd's merge driver (in
// the repository, as a team commits it) and each clone registers the
// driver with `vaultd git install`.
func teamRepo(t *testing.T, files map[string]string, driver bool) (bare string, a, b clone) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git not found on PATH (%v): the git sync tests need it", err)
	}
	root := t.TempDir()
	seed := filepath.Join(root, "seed")
	if driver {
		files[".gitattributes"] = "*.md merge=vaultd\n"
	}
	for p, data := range files {
		full := filepath.Join(seed, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, seed, "init", "-q", "-b", "main")
	gitIn(t, seed, "add", "-A")
	gitIn(t, seed, "commit", "-q", "-m", "start")
	bare = filepath.Join(root, "remote.git")
	gitIn(t, root, "init", "-q", "--bare", "-b", "main", bare)
	gitIn(t, seed, "push", "-q", bare, "main")
	a = clone{dir: filepath.Join(root, "a"), state: filepath.Join(root, "a-state")}
	b = clone{dir: filepath.Join(root, "b"), state: filepath.Join(root, "b-state")}
	for _, c := range []clone{a, b} {
		gitIn(t, root, "clone", "-q", bare, c.dir)
		if driver {
			if out, code := vaultdCLI(t, c, "git", "install"); code != 0 || !strings.Contains(out, "done: git merges") {
				t.Fatalf("vaultd git install: exit %d\n%s", code, out)
			}
		}
	}
	return bare, a, b
}

// vaultdCLI runs a vaultd command on a clone and returns its output
// (stdout and stderr) and exit code.
func vaultdCLI(t testing.TB, c clone, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(vaultdBin, append(args, "--vault", c.dir, "--state-dir", c.state, "--no-sync")...)
	cmd.Env = append(os.Environ(), gitEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("vaultd %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// serveClone serves a clone with --git-commit (and extra flags) to one agent.
func serveClone(t testing.TB, c clone, extra ...string) *server {
	t.Helper()
	return serveEnv(t, c.dir, "", gitEnv, append([]string{"--state-dir", c.state, "--no-sync", "--git-commit", "--actor", "mcp:" + filepath.Base(c.dir), "--writes-per-minute", "100000"}, extra...)...)
}

func noteText(t testing.TB, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noMarkerCommitted fails if any commit of the bare repository adds a
// conflict marker line.
func noMarkerCommitted(t testing.TB, bare string) {
	t.Helper()
	log := gitIn(t, bare, "log", "--all", "-p", "--format=commit %h %s")
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "+<<<<<<<") || strings.HasPrefix(l, "+>>>>>>>") {
			t.Errorf("a commit adds a conflict marker: %q", l)
		}
	}
}

const meetingLog = "---\ntitle: Teamtreffen\ntags: [team]\n---\n# Teamtreffen\n\n## Zeitleiste\n\n- 2026-11-01 Start\n\n## Ziele\n\n- schnell\n\n## Offen\n\n- Budget\n"

// (2) Appends under the same heading on both sides, driver installed:
// merged without a conflict, every line once, ours first.
func TestGit_AppendsMergedByDriver(t *testing.T) {
	t.Parallel()
	bare, a, b := teamRepo(t, map[string]string{"Team/Treffen.md": meetingLog}, true)
	sa, sb := serveClone(t, a), serveClone(t, b)
	var linesA, linesB []string
	for i := range 3 {
		la, lb := fmt.Sprintf("- A %d: von Anna", i), fmt.Sprintf("- B %d: von Ben", i)
		linesA, linesB = append(linesA, la), append(linesB, lb)
		sa.mustOK("append_to_note", map[string]any{"path": "Team/Treffen.md", "heading": "Zeitleiste", "content": la, "change_summary": "Eintrag"})
		sb.mustOK("append_to_note", map[string]any{"path": "Team/Treffen.md", "heading": "Zeitleiste", "content": lb, "change_summary": "Eintrag"})
	}
	if out, code := vaultdCLI(t, a, "sync"); code != 0 || !strings.Contains(out, "pushed 3 commits to origin/main") {
		t.Fatalf("A's sync: exit %d\n%s", code, out)
	}
	out, code := vaultdCLI(t, b, "sync")
	if code != 0 || !strings.Contains(out, "merged 3 commits from origin/main (merged); pushed 4 commits to origin/main") {
		t.Fatalf("B's sync: exit %d\n%s", code, out)
	}
	if out, code := vaultdCLI(t, a, "sync"); code != 0 || !strings.Contains(out, "(fast-forward)") {
		t.Fatalf("A's second sync: exit %d\n%s", code, out)
	}
	got := noteText(t, b.dir, "Team/Treffen.md")
	if got != noteText(t, a.dir, "Team/Treffen.md") {
		t.Fatalf("the clones differ")
	}
	// B merged A's commits into its own: B's lines (ours) first.
	want := strings.Replace(meetingLog, "- 2026-11-01 Start\n", "- 2026-11-01 Start\n\n"+strings.Join(linesB, "\n\n")+"\n\n"+strings.Join(linesA, "\n\n")+"\n", 1)
	if got != want {
		t.Errorf("merged note:\n%s\nwant:\n%s", got, want)
	}
	for _, l := range append(linesA, linesB...) {
		if n := strings.Count(got, l+"\n"); n != 1 {
			t.Errorf("line %q is there %d times", l, n)
		}
	}
	r := sb.mustOK("read_note", map[string]any{"path": "Team/Treffen.md"})
	if strings.Contains(r, "conflict:") {
		t.Errorf("reported in conflict:\n%s", r)
	}
	noMarkerCommitted(t, bare)
}

// (3) Different sections and frontmatter keys changed on both sides: a
// clean merge, every other byte as it was.
func TestGit_DifferentSectionsAndProperties(t *testing.T) {
	t.Parallel()
	_, a, b := teamRepo(t, map[string]string{"Team/Treffen.md": meetingLog}, true)
	sa, sb := serveClone(t, a), serveClone(t, b)
	sa.mustOK("update_section", map[string]any{"path": "Team/Treffen.md", "heading": "Ziele", "content": "- schnell\n- gründlich", "change_summary": "Ziel"})
	sa.mustOK("set_properties", map[string]any{"path": "Team/Treffen.md", "properties": map[string]any{"status": "aktiv"}, "change_summary": "Status"})
	sb.mustOK("update_section", map[string]any{"path": "Team/Treffen.md", "heading": "Offen", "content": "- Budget 2027", "change_summary": "Budget"})
	sb.mustOK("set_properties", map[string]any{"path": "Team/Treffen.md", "properties": map[string]any{"owner": "Ben"}, "change_summary": "Owner"})
	vaultdCLI(t, a, "sync")
	if out, code := vaultdCLI(t, b, "sync"); code != 0 || !strings.Contains(out, "merged 2 commits") {
		t.Fatalf("B's sync: exit %d\n%s", code, out)
	}
	want := "---\ntitle: Teamtreffen\ntags: [team]\nowner: Ben\nstatus: aktiv\n---\n# Teamtreffen\n\n## Zeitleiste\n\n- 2026-11-01 Start\n\n## Ziele\n\n- schnell\n- gründlich\n\n## Offen\n\n- Budget 2027\n"
	if got := noteText(t, b.dir, "Team/Treffen.md"); got != want {
		t.Errorf("merged note:\n%q\nwant:\n%q", got, want)
	}
	if st := gitIn(t, b.dir, "status", "--porcelain"); st != "" {
		t.Errorf("B's status after the merge: %q", st)
	}
}

// (5) A push the remote rejects because it moved meanwhile: reported (in
// the CLI and vault_overview), and the next round fetches, merges and
// pushes.
func TestGit_PushRejectedThenPushed(t *testing.T) {
	t.Parallel()
	bare, a, b := teamRepo(t, map[string]string{"A.md": "# A\n", "B.md": "# B\n"}, true)
	// B's commit, ready; A's pre-push hook pushes it first, once: the
	// remote moves between A's fetch and A's push.
	os.WriteFile(filepath.Join(b.dir, "B.md"), []byte("# B\n\n- von Ben\n"), 0o644)
	gitIn(t, b.dir, "commit", "-qam", "Ben")
	hook := filepath.Join(a.dir, ".git", "hooks", "pre-push")
	script := fmt.Sprintf("#!/bin/sh\nif [ ! -e %q ]; then touch %q; git -C %q push -q origin main; fi\nexit 0\n",
		hook+".done", hook+".done", b.dir)
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sa := serveClone(t, a)
	sa.mustOK("append_to_note", map[string]any{"path": "A.md", "content": "- von Anna", "change_summary": "Anna"})
	out, code := vaultdCLI(t, a, "sync")
	if code != 1 || !strings.Contains(out, "push rejected: origin/main has commits this clone does not have yet; the next round fetches and merges them, then pushes") {
		t.Fatalf("first round: exit %d\n%s", code, out)
	}
	ov := sa.mustOK("vault_overview", map[string]any{})
	if !regexp.MustCompile(`(?m)^git sync FAILED at .*: push rejected: origin/main has commits`).MatchString(ov) {
		t.Errorf("vault_overview does not report the failed push:\n%s", ov)
	}
	out, code = vaultdCLI(t, a, "sync")
	if code != 0 || !strings.Contains(out, "merged 1 commit from origin/main (merged); pushed 2 commits to origin/main") {
		t.Fatalf("second round: exit %d\n%s", code, out)
	}
	if got := gitIn(t, bare, "show", "main:B.md") + "|" + gitIn(t, bare, "show", "main:A.md"); got != "# B\n\n- von Ben|# A\n\n- von Anna" {
		t.Errorf("the remote: %q", got)
	}
	if ov := sa.mustOK("vault_overview", map[string]any{}); !strings.Contains(ov, "git sync, last round at") || strings.Contains(ov, "FAILED") {
		t.Errorf("vault_overview after the retry:\n%s", ov)
	}
}

// convergence runs (4): both clones served with --git-sync, an agent on
// each appending to a shared note (the same sections) and to its own for
// d; then both must converge to the same commit as the remote with every
// line there once and no marker committed.
func convergence(t *testing.T, d time.Duration, interval string) {
	bare, a, b := teamRepo(t, map[string]string{"Team/Treffen.md": meetingLog, "Team/Anna.md": "# Anna\n", "Team/Ben.md": "# Ben\n"}, true)
	sa := serveClone(t, a, "--git-sync", interval)
	sb := serveClone(t, b, "--git-sync", interval)
	type agent struct {
		s     *server
		name  string
		own   string
		lines []string
	}
	agents := []*agent{{s: sa, name: "A", own: "Team/Anna.md"}, {s: sb, name: "B", own: "Team/Ben.md"}}
	headings := []string{"Zeitleiste", "Ziele", "Offen"}
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	for _, ag := range agents {
		wg.Go(func() {
			for i := 0; time.Now().Before(stop); i++ {
				line := fmt.Sprintf("- %s %d", ag.name, i)
				args := map[string]any{"path": "Team/Treffen.md", "heading": headings[i%len(headings)], "content": line, "change_summary": "Eintrag " + line}
				if i%4 == 3 {
					args = map[string]any{"path": ag.own, "content": line, "change_summary": "eigene Notiz"}
				}
				r := ag.s.call("append_to_note", args)
				if r.IsError {
					if strings.Contains(r.Text, "error code: busy") || strings.Contains(r.Text, "error code: merge_conflict") {
						t.Errorf("append %s: %s", line, r.Text)
						return
					}
					t.Errorf("append %s failed:\n%s", line, r.Text)
					return
				}
				ag.lines = append(ag.lines, line)
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	// Converge: the same commit everywhere, nothing left uncommitted.
	deadline := time.Now().Add(60 * time.Second)
	for {
		ha, hb, hr := gitIn(t, a.dir, "rev-parse", "HEAD"), gitIn(t, b.dir, "rev-parse", "HEAD"), gitIn(t, bare, "rev-parse", "main")
		clean := gitIn(t, a.dir, "status", "--porcelain") == "" && gitIn(t, b.dir, "status", "--porcelain") == ""
		if ha == hb && hb == hr && clean {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not converged after 60 s: A %s, B %s, remote %s, clean %v\nA: %s\nB: %s", ha, hb, hr, clean,
				gitIn(t, a.dir, "status", "--porcelain"), gitIn(t, b.dir, "status", "--porcelain"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	total, lost := 0, 0
	files := map[string]string{}
	for _, p := range []string{"Team/Treffen.md", "Team/Anna.md", "Team/Ben.md"} {
		files[p] = gitIn(t, bare, "show", "main:"+p) + "\n"
		if noteText(t, a.dir, p) != noteText(t, b.dir, p) {
			t.Errorf("%s differs between the clones", p)
		}
	}
	all := files["Team/Treffen.md"] + files["Team/Anna.md"] + files["Team/Ben.md"]
	for _, ag := range agents {
		for _, l := range ag.lines {
			total++
			if n := strings.Count(all, l+"\n"); n != 1 {
				lost++
				t.Errorf("line %q is in the synced notes %d times", l, n)
			}
		}
	}
	noMarkerCommitted(t, bare)
	commits := gitIn(t, bare, "rev-list", "--count", "main")
	merges := gitIn(t, bare, "rev-list", "--merges", "--count", "main")
	failed := strings.Count(sa.stderr.String(), `msg="git sync failed"`) + strings.Count(sb.stderr.String(), `msg="git sync failed"`)
	t.Logf("FIGURE git sync convergence: %s of appends by 2 agents on 2 clones (--git-sync %s): %d lines appended, %d lost or doubled, %s commits (%s merges by the section driver, 0 conflicts), %d failed rounds retried (pushes rejected because the remote moved), clones converged, no marker committed",
		d, interval, total, lost, commits, merges, failed)
	if total == 0 {
		t.Fatal("no line was appended")
	}
}

// (4), short: a few seconds of writes on both sides.
func TestGit_SyncConverges(t *testing.T) {
	t.Parallel()
	convergence(t, 3*time.Second, "250ms")
}

// (1), through the official TypeScript SDK (ts/git-session.mjs): the same
// sections edited differently on both clones; after the sync the note is
// in conflict in read_note, search_notes and vault_overview, an edit
// keeping the markers is refused, each option resolves one section, and
// the resolution reaches the other clone without a marker ever committed.
func TestTypeScriptSDK_GitConflict(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found on PATH (%v): the TypeScript SDK tests need Node ≥ 20 and npm", err)
	}
	const note = "Projekte/Plan.md"
	var src strings.Builder
	src.WriteString("---\ntags: [projekt]\n---\n# Plan\n")
	for _, h := range []string{"Alpha", "Beta", "Gamma", "Delta"} {
		fmt.Fprintf(&src, "\n## %s\n\n- %s am Anfang\n", h, h)
	}
	bare, a, b := teamRepo(t, map[string]string{note: src.String(), "Projekte/Andere.md": "# Andere\n"}, true)
	tsdir := filepath.Join(repoRoot, "e2e", "ts")
	npmCI(t, tsdir)
	cmd := exec.Command(node, "git-session.mjs", "--bin", vaultdBin, "--a", a.dir, "--a-state", a.state, "--b", b.dir, "--b-state", b.state, "--note", note)
	cmd.Dir = tsdir
	cmd.Env = append(os.Environ(), gitEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; err != nil || !regexp.MustCompile(`^ts-sdk git: [1-9][0-9]* passed, 0 failed$`).MatchString(last) {
		t.Fatalf("node git-session.mjs: %v\n%s", err, out.String())
	}
	t.Log(strings.Join(lines, "\n"))
	noMarkerCommitted(t, bare)
	if ha, hb, hr := gitIn(t, a.dir, "rev-parse", "HEAD"), gitIn(t, b.dir, "rev-parse", "HEAD"), gitIn(t, bare, "rev-parse", "main"); ha != hb || hb != hr {
		t.Errorf("not at one commit: A %s, B %s, remote %s", ha, hb, hr)
	}
	want := "---\ntags: [projekt]\n---\n# Plan\n\n## Alpha\n\n- Alpha nach ben\n\n## Beta\n\n- Beta nach anna\n\n## Gamma\n\n- Gamma nach ben\n- Gamma nach anna\n\n## Delta\n\n- Delta, gemeinsam\n"
	if got := gitIn(t, bare, "show", "main:"+note) + "\n"; got != want {
		t.Errorf("the remote's note:\n%q\nwant:\n%q", got, want)
	}
}
