package vault

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

func TestConflict_EditsKeepingMarkersRefused(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"Plan.md": conflicted, "Gut.md": "# Gut\n"})
	ver := wVersion(t, dir, "Plan.md")
	for op, write := range map[string]func() error{
		"append":         func() error { _, err := v.Append("Plan.md", "Notiz", []byte("- mehr"), wOpts("mehr")); return err },
		"update_section": func() error { _, err := v.UpdateSection("Plan.md", "Notiz", []byte("neu"), wOpts("neu")); return err },
		"replace": func() error {
			_, err := v.Replace("Plan.md", []byte(conflicted+"\nmehr\n"), WriteOpts{Summary: "neu", ExpectedVersion: ver})
			return err
		},
		"set_properties": func() error {
			_, _, err := v.SetProperties("Plan.md", note.PropertyEdit{Set: map[string]any{"status": "x"}}, wOpts("status"))
			return err
		},
	} {
		err := write()
		e := wErr(t, err, ErrMergeConflict, op, "Plan.md")
		if !strings.Contains(e.Msg, `1 unresolved merge conflict (in "Plan > Ziele")`) {
			t.Errorf("%s: %s", op, e.Msg)
		}
	}
	if wRead(t, dir, "Plan.md") != conflicted {
		t.Fatal("a refused edit changed the note")
	}
	// No write puts markers into a note; inside a code block they are text.
	_, err := v.Create("Neu.md", []byte("<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n"), wOpts("neu"))
	wErr(t, err, ErrMergeConflict, "create", "Neu.md")
	_, err = v.Append("Gut.md", "", []byte("<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x"), wOpts("neu"))
	wErr(t, err, ErrMergeConflict, "append", "Gut.md")
	if _, err := v.Create("Git.md", []byte("```\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n```\n"), wOpts("Anleitung")); err != nil {
		t.Errorf("markers in a code block: %v", err)
	}
}

func TestResolveConflict_EachTake(t *testing.T) {
	block := func(h, a, b string) string {
		return "## " + h + "\n\n<<<<<<< HEAD\n" + a + "\n=======\n" + b + "\n>>>>>>> origin/main\n\n"
	}
	src := "# Plan\n\n" + block("A", "a1", "a2") + block("B", "b1", "b2") + block("C", "c1", "c2") + block("D", "d1", "d2") + "## E\n\nruhig\n"
	v, dir := wOpen(t, map[string]string{"Plan.md": src})
	steps := []struct {
		heading string
		r       ConflictResolution
		detail  string
	}{
		{"A", ConflictResolution{Take: TakeOurs}, `The merge conflicts of section "Plan > A" resolved (took ours); 3 merge conflicts left`},
		{"B", ConflictResolution{Take: TakeTheirs}, `(took theirs); 2 merge conflicts left`},
		{"C", ConflictResolution{Take: TakeBoth}, `(kept both: ours, then theirs); 1 merge conflict left`},
		{"D", ConflictResolution{Take: TakeText, Text: []byte("d1 und d2")}, `section "Plan > D" replaced by the given text, which resolves its merge conflicts`},
	}
	for _, s := range steps {
		s.r.Heading = s.heading
		res, err := v.ResolveConflict("Plan.md", s.r, wOpts("Konflikt in "+s.heading))
		if err != nil {
			t.Fatalf("%s: %v", s.heading, err)
		}
		if !strings.Contains(res.Detail, s.detail) {
			t.Errorf("%s: detail %q, want %q", s.heading, res.Detail, s.detail)
		}
	}
	want := "# Plan\n\n## A\n\na1\n\n## B\n\na2\n\n## C\n\nc1\nc2\n\n## D\n\nd1 und d2\n\n## E\n\nruhig\n"
	want = strings.Replace(want, "a2\n\n## C", "b2\n\n## C", 1)
	if got := wRead(t, dir, "Plan.md"); got != want {
		t.Errorf("resolved:\n%s\nwant:\n%s", got, want)
	}
	h, _ := v.History(HistoryFilter{Path: "Plan.md"})
	if len(h) != 4 || h[0].Op != "resolve_conflict" || h[0].Summary != "Konflikt in D" {
		t.Errorf("history: %+v", h)
	}
	// Nothing left to resolve.
	_, err := v.ResolveConflict("Plan.md", ConflictResolution{Take: TakeOurs}, wOpts("nochmal"))
	wErr(t, err, note.ErrInvalid, "resolve_conflict", "Plan.md")
}

func TestResolveConflict_Errors(t *testing.T) {
	src := "---\n<<<<<<< HEAD\nstatus: a\n=======\nstatus: b\n>>>>>>> x\n---\n# T\n\n## Ruhig\n\ntext\n"
	v, _ := wOpen(t, map[string]string{"T.md": src})
	_, err := v.ResolveConflict("T.md", ConflictResolution{Heading: "Ruhig", Take: TakeOurs}, wOpts("x"))
	if e := wErr(t, err, note.ErrNotFound, "resolve_conflict", "T.md"); e.AltKind != "conflict sections" || len(e.Alternatives) != 0 || !strings.Contains(e.Msg, `"the frontmatter"`) {
		t.Errorf("no conflict in the section: %+v", e)
	}
	_, err = v.ResolveConflict("T.md", ConflictResolution{Take: "mine"}, wOpts("x"))
	wErr(t, err, note.ErrInvalid, "resolve_conflict", "T.md")
	_, err = v.ResolveConflict("T.md", ConflictResolution{Take: TakeText, Text: []byte("<<<<<<< a\n1\n=======\n2\n>>>>>>> b\n")}, wOpts("x"))
	wErr(t, err, ErrMergeConflict, "resolve_conflict", "T.md")
	_, err = v.ResolveConflict("T.md", ConflictResolution{Take: TakeCurrent}, wOpts("x"))
	wErr(t, err, note.ErrInvalid, "resolve_conflict", "T.md")
	if _, err := v.ResolveConflict("T.md", ConflictResolution{Take: TakeTheirs}, wOpts("Status von x")); err != nil {
		t.Fatal(err)
	}
	if n, _ := v.Read("T.md"); n.Doc.Frontmatter["status"] != "b" {
		t.Errorf("frontmatter after taking theirs: %v", n.Doc.Frontmatter)
	}
}

// A real git merge stopped on a note: the note is reported unmerged with
// the commits of both sides; resolving it stages it, and leaves the user's
// merge for the user to commit.
func TestResolveConflict_GitMerge(t *testing.T) {
	dir := gitRepo(t, map[string]string{"Plan.md": "# Plan\n\n## Ziele\n\n- offen\n", "Andere.md": "x\n"})
	gitRun(t, dir, "checkout", "-q", "-b", "bob")
	wFiles(t, dir, map[string]string{"Plan.md": "# Plan\n\n## Ziele\n\n- billig\n"})
	gitRun(t, dir, "-c", "user.name=Bob", "commit", "-qam", "Ziele von Bob")
	gitRun(t, dir, "checkout", "-q", "main")
	wFiles(t, dir, map[string]string{"Plan.md": "# Plan\n\n## Ziele\n\n- schnell\n"})
	gitRun(t, dir, "-c", "user.name=Alice", "commit", "-qam", "Ziele von Alice")
	cmd := gitCmd(dir, "merge", "bob")
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the merge did not stop on a conflict:\n%s", out)
	}
	v := gitOpen(t, dir)
	c := v.ConflictAt("Plan.md")
	if c == nil || !c.Unmerged || c.Operation != "merge" || len(c.Regions) != 1 {
		t.Fatalf("conflict: %+v", c)
	}
	if c.Ours == nil || c.Ours.Author != "Alice" || c.Ours.Subject != "Ziele von Alice" || c.Theirs == nil || c.Theirs.Author != "Bob" || c.Theirs.Ref != "MERGE_HEAD" {
		t.Errorf("sides: %+v / %+v", c.Ours, c.Theirs)
	}
	entries, _, err := v.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if all := v.Conflicts(entries); len(all) != 1 || all[0].Path != "Plan.md" {
		t.Errorf("Conflicts: %+v", all)
	}
	res, err := v.ResolveConflict("Plan.md", ConflictResolution{Take: TakeBoth}, WriteOpts{Summary: "beide Ziele"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Detail, "marked resolved in git (git add); every conflict of the merge is resolved: the merge is yours, finish it with git commit") {
		t.Errorf("detail: %s", res.Detail)
	}
	if got := gitRun(t, dir, "ls-files", "-u"); got != "" {
		t.Errorf("still unmerged: %s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "MERGE_HEAD")); err != nil {
		t.Errorf("the user's merge was concluded: %v", err)
	}
	if v.ConflictAt("Plan.md") != nil {
		t.Errorf("still reported in conflict")
	}
	if got := wRead(t, dir, "Plan.md"); got != "# Plan\n\n## Ziele\n\n- schnell\n- billig\n" {
		t.Errorf("resolved text: %q", got)
	}
}

// A merge vaultd's sync started is concluded by the last resolution.
func TestResolveConflict_ConcludesOwnMerge(t *testing.T) {
	dir := gitRepo(t, map[string]string{"Plan.md": "# Plan\n\n- offen\n"})
	gitRun(t, dir, "checkout", "-q", "-b", "bob")
	wFiles(t, dir, map[string]string{"Plan.md": "# Plan\n\n- billig\n"})
	gitRun(t, dir, "commit", "-qam", "Bob")
	gitRun(t, dir, "checkout", "-q", "main")
	wFiles(t, dir, map[string]string{"Plan.md": "# Plan\n\n- schnell\n"})
	gitRun(t, dir, "commit", "-qam", "Alice")
	gitCmd(dir, "merge", "bob").Run()
	v := gitOpen(t, dir)
	head, _ := os.ReadFile(filepath.Join(dir, ".git", "MERGE_HEAD"))
	if err := os.WriteFile(filepath.Join(v.StateDir(), mergeMarkFile), head, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := v.ResolveConflict("Plan.md", ConflictResolution{Take: TakeOurs}, WriteOpts{Summary: "schnell gewinnt"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Detail, "vaultd committed the merge as ") {
		t.Errorf("detail: %s", res.Detail)
	}
	if got := gitRun(t, dir, "log", "-1", "--format=%P|%an|%s"); !strings.HasSuffix(got, "|mcp:claude|Merge branch 'bob'") || strings.Count(got, " ") != 3 {
		t.Errorf("merge commit: %q", got)
	}
	if got := gitRun(t, dir, "status", "--porcelain"); got != "" {
		t.Errorf("status after the merge: %q", got)
	}
}

func TestResolveConflict_UnmergedWithoutMarkers(t *testing.T) {
	dir := gitRepo(t, map[string]string{"Plan.md": "a\n"})
	gitRun(t, dir, "checkout", "-q", "-b", "bob")
	wFiles(t, dir, map[string]string{"Plan.md": "bb\n"})
	gitRun(t, dir, "commit", "-qam", "Bob")
	gitRun(t, dir, "checkout", "-q", "main")
	wFiles(t, dir, map[string]string{"Plan.md": "ccc\n"})
	gitRun(t, dir, "commit", "-qam", "Alice")
	gitCmd(dir, "merge", "bob").Run()
	wFiles(t, dir, map[string]string{"Plan.md": "c und b\n"}) // markers removed by hand, not staged
	v := gitOpen(t, dir)
	c := v.ConflictAt("Plan.md")
	if c == nil || !c.Unmerged || len(c.Regions) != 0 {
		t.Fatalf("conflict: %+v", c)
	}
	_, err := v.ResolveConflict("Plan.md", ConflictResolution{Take: TakeBoth}, WriteOpts{Summary: "x"})
	wErr(t, err, note.ErrInvalid, "resolve_conflict", "Plan.md")
	res, err := v.ResolveConflict("Plan.md", ConflictResolution{Take: TakeCurrent}, WriteOpts{Summary: "von Hand gelöst"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ChangeID == "" || !strings.Contains(res.Detail, "marked resolved in git") {
		t.Errorf("result: %+v", res)
	}
	if got := gitRun(t, dir, "ls-files", "-u"); got != "" {
		t.Errorf("still unmerged: %s", got)
	}
	if h, _ := v.History(HistoryFilter{Path: "Plan.md", Limit: 1}); len(h) != 1 || h[0].Op != "resolve_conflict" {
		t.Errorf("history: %+v", h)
	}
}

// gitCmd is gitRun's command, for a git run that is expected to fail.
func gitCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.org", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	return cmd
}

const conflicted = "---\ntags: [team]\n---\n# Plan\n\n## Ziele\n\n<<<<<<< HEAD\n- schnell\n=======\n- billig\n>>>>>>> origin/main\n\n## Notiz\n\nText\n=======\nkein Marker\n\n```\n<<<<<<< HEAD\nim Code\n=======\n>>>>>>> x\n```\n"
