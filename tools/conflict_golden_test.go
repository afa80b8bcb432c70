package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
)

const conflictNote = "1_Projekte/Website-Relaunch.md"

// conflictVault makes a copy of the example vault a git repository and
// merges into it a branch that changed the same lines of two sections of
// 1_Projekte/Website-Relaunch.md ("Ziele" and "Zeitleiste"): the merge
// stops on conflicts, as a team's `git pull` does. Commit times and
// authors are fixed, so the commits are the same on every run.
func conflictVault(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_SYSTEM", "/dev/null")
	dir := copyExampleVault(t)
	note := filepath.Join(dir, filepath.FromSlash(conflictNote))
	fi, err := os.Stat(note)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(note)
	edit := func(pairs ...string) {
		s := string(orig)
		for i := 0; i < len(pairs); i += 2 {
			if !strings.Contains(s, pairs[i]) {
				t.Fatalf("%q not in the note", pairs[i])
			}
			s = strings.Replace(s, pairs[i], pairs[i+1], 1)
		}
		if err := os.WriteFile(note, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const launch = "- 2026-12-08 Launch der neuen Website, DNS-Umstellung um 7:00 Uhr"
	gitT(t, dir, "", "init", "-q", "-b", "main")
	gitT(t, dir, "Lena Hoffmann|2026-11-20T09:00:00Z", "add", "-A")
	gitT(t, dir, "Lena Hoffmann|2026-11-20T09:00:00Z", "commit", "-q", "-m", "Vault angelegt")
	gitT(t, dir, "", "checkout", "-q", "-b", "jonas")
	edit("- barrierearm nach WCAG 2.1 AA", "- barrierearm nach WCAG 2.2 AA", launch, "- 2026-12-15 Launch der neuen Website (eine Woche später)")
	gitT(t, dir, "mcp:jonas|2026-11-27T16:30:00Z", "commit", "-q", "-am", "Launch verschoben, WCAG 2.2")
	gitT(t, dir, "", "checkout", "-q", "main")
	edit("- barrierearm nach WCAG 2.1 AA", "- barrierefrei nach BITV 2.0", launch, "- 2026-12-08 Launch der neuen Website, DNS-Umstellung um 6:00 Uhr")
	gitT(t, dir, "mcp:lena|2026-11-28T08:15:00Z", "commit", "-q", "-am", "Launch früher, BITV")
	cmd := gitCommand(dir, "mcp:lena|2026-11-28T09:00:00Z", "merge", "jonas")
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the merge did not stop on conflicts:\n%s", out)
	}
	// The merge touched the note: give it back its pinned time, so that
	// "recently changed" stays the same on every run.
	if err := os.Chtimes(note, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// gitT runs git in dir as "author|date" (the committer too); "" for a
// command that makes no commit.
func gitT(t *testing.T, dir, who string, args ...string) {
	t.Helper()
	if out, err := gitCommand(dir, who, args...).CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func gitCommand(dir, who string, args ...string) *exec.Cmd {
	name, date, _ := strings.Cut(who, "|")
	if name == "" {
		name, date = "Test", "2026-11-20T09:00:00Z"
	}
	cmd := exec.Command("git", append([]string{"-c", "user.name=" + name, "-c", "user.email=" + strings.ReplaceAll(name, " ", ".") + "@example.org", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	return cmd
}

var conflictCases = []goldenCase{
	{name: "read_note", caller: readWrite, call: step{"read_note", `{"path":"1_Projekte/Website-Relaunch.md"}`}},
	{name: "read_note_section", caller: readWrite, call: step{"read_note", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Zeitleiste"}`}},
	{name: "read_note_read_only", caller: readOnly, call: step{"read_note", `{"path":"Relaunch"}`}},
	{name: "search_notes", caller: readWrite, call: step{"search_notes", `{"query":"Launch DNS-Umstellung","limit":2}`}},
	{name: "overview", caller: readWrite, call: step{"vault_overview", `{}`}},
	{name: "err_update_section", caller: readWrite, call: step{"update_section", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Offene Fragen","content":"- keine","change_summary":"erledigt"}`}},
	{name: "err_create_with_markers", caller: readWrite, call: step{"create_note", `{"path":"0_Inbox/Kopie.md","content":"---\ntags: [x]\n---\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> jonas\n","change_summary":"kopiert"}`}},
	{name: "resolve_section_both", caller: readWrite, call: step{"resolve_conflict", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Ziele","take":"both","change_summary":"beide Ziele behalten"}`}},
	{name: "resolve_all_theirs", caller: readWrite, call: step{"resolve_conflict", `{"path":"1_Projekte/Website-Relaunch.md","take":"theirs","change_summary":"Jonas' Stand übernommen"}`}},
	{name: "resolve_section_text", caller: readWrite, call: step{"resolve_conflict", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Zeitleiste","take":"text","content":"- 2026-10-14 Kickoff\n- 2026-12-15 Launch, DNS-Umstellung um 6:00 Uhr","change_summary":"Zeitleiste zusammengeführt"}`}},
	{name: "err_resolve_no_conflict_there", caller: readWrite, call: step{"resolve_conflict", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Offene Fragen","take":"ours","change_summary":"x"}`}},
	{name: "err_resolve_bad_take", caller: readWrite, call: step{"resolve_conflict", `{"path":"1_Projekte/Website-Relaunch.md","take":"mine","change_summary":"x"}`}},
	{name: "err_resolve_text_with_markers", caller: readWrite, call: step{"resolve_conflict", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Ziele","take":"text","content":"<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> jonas\n","change_summary":"x"}`}},
}

// TestConflict_ErrorSuggestionsWork follows the next call of each refused
// or failed call on a note in conflict, literally (AGENT-CONTRACT rule 18):
// it succeeds.
func TestConflict_ErrorSuggestionsWork(t *testing.T) {
	next := regexp.MustCompile(`(?m)^next: ([a-z_]+) (\{.*\})$`)
	for _, name := range []string{"err_update_section", "err_resolve_no_conflict_there", "err_resolve_bad_take"} {
		t.Run(name, func(t *testing.T) {
			var tc goldenCase
			for _, c := range conflictCases {
				if c.name == name {
					tc = c
				}
			}
			dir := conflictVault(t)
			c := newTestCore(t, dir)
			r, _ := runStep(t, c, tc.caller, tc.call, dir, "")
			m := next.FindStringSubmatch(r.Text)
			if !r.IsError() || m == nil {
				t.Fatalf("want an error with a next call:\n%s", r.Text)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
				t.Fatal(err)
			}
			if res := c.Call(context.Background(), tc.caller, m[1], args); res.IsError() {
				t.Fatalf("following %s failed:\n%s", m[0], res.Text)
			}
		})
	}
}

// TestGolden_Conflict: a note a merge left in conflict, in every answer
// that shows it, and its resolution.
func TestGolden_Conflict(t *testing.T) {
	for _, tc := range conflictCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := conflictVault(t)
			c := newTestCore(t, dir)
			r, shown := runStep(t, c, tc.caller, tc.call, dir, "")
			checkContract(t, tc.caller, tc.call, r, dir)
			if tc.call.tool != "resolve_conflict" && tc.call.tool != "create_note" && !strings.Contains(r.Text, "conflict: ") {
				t.Errorf("the answer does not say the note is in conflict:\n%s", r.Text)
			}
			compareGolden(t, filepath.Join("testdata", "golden", "conflict", tc.name+".golden"), renderGolden(shown, r, dir))
		})
	}
}

// TestGolden_ConflictCLI: the CLI door shows the conflict after the
// note's text, with the commands that resolve it.
func TestGolden_ConflictCLI(t *testing.T) {
	dir := conflictVault(t)
	c := newTestCore(t, dir)
	cli := Caller{Actor: "cli", Perms: AllPerms, Door: DoorCLI}
	r := c.Call(context.Background(), cli, "read_note", map[string]any{"path": conflictNote, "heading": "Ziele"})
	if !strings.Contains(r.Text, "resolve: vaultd resolve 1_Projekte/Website-Relaunch.md --heading 'Website-Relaunch > Ziele' --take both --summary") {
		t.Errorf("no CLI resolve command:\n%s", r.Text)
	}
	compareGolden(t, filepath.Join("testdata", "golden", "conflict", "read_note_cli.golden"), renderGolden("vaultd read 1_Projekte/Website-Relaunch.md --heading Ziele", r, dir))
}

var suggested = regexp.MustCompile(`(?m)^(resolve|resolve all): ([a-z_]+) (\{.*\})$`)

// TestConflict_SuggestionsWork follows every resolve call read_note
// suggests, literally and in order (AGENT-CONTRACT rule 18): each
// succeeds, and at the end the note holds no marker and git lists nothing
// as unmerged.
func TestConflict_SuggestionsWork(t *testing.T) {
	dir := conflictVault(t)
	c := newTestCore(t, dir)
	r := c.Call(context.Background(), readWrite, "read_note", map[string]any{"path": conflictNote})
	ms := suggested.FindAllStringSubmatch(r.Text, -1)
	if len(ms) != 3 {
		t.Fatalf("got %d resolve calls, want 3 (two sections, all):\n%s", len(ms), r.Text)
	}
	for _, m := range ms[:2] {
		var args map[string]any
		if err := json.Unmarshal([]byte(m[3]), &args); err != nil {
			t.Fatalf("%s: %v", m[0], err)
		}
		res := c.Call(context.Background(), readWrite, m[2], args)
		if res.IsError() {
			t.Fatalf("following %s failed:\n%s", m[0], res.Text)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, conflictNote))
	if note.HasConflicts(b) {
		t.Errorf("markers left:\n%s", b)
	}
	for _, want := range []string{"- barrierefrei nach BITV 2.0\n- barrierearm nach WCAG 2.2 AA\n", "6:00 Uhr\n- 2026-12-15 Launch der neuen Website (eine Woche später)\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("missing %q in:\n%s", want, b)
		}
	}
	if out, _ := gitCommand(dir, "", "ls-files", "-u").CombinedOutput(); len(out) != 0 {
		t.Errorf("git still lists unmerged files:\n%s", out)
	}
	// The note is a note again everywhere.
	if r := c.Call(context.Background(), readWrite, "read_note", map[string]any{"path": conflictNote}); strings.Contains(r.Text, "conflict: ") {
		t.Errorf("still reported in conflict:\n%s", r.Text)
	}
	// And "resolve all" on a fresh conflict works too.
	dir2 := conflictVault(t)
	c2 := newTestCore(t, dir2)
	var args map[string]any
	_ = json.Unmarshal([]byte(ms[2][3]), &args)
	if res := c2.Call(context.Background(), readWrite, ms[2][2], args); res.IsError() {
		t.Fatalf("following %s failed:\n%s", ms[2][0], res.Text)
	}
}

// TestGolden_ConflictWithoutMarkers: a note whose markers were removed by
// hand while git still lists it as unmerged is still in conflict; the
// suggested call marks it resolved as it is (rule 18: followed literally).
func TestGolden_ConflictWithoutMarkers(t *testing.T) {
	dir := conflictVault(t)
	note := filepath.Join(dir, filepath.FromSlash(conflictNote))
	b, _ := os.ReadFile(note)
	fixed := regexp.MustCompile(`(?s)<<<<<<< HEAD\n(.*?)=======\n.*?>>>>>>> jonas\n`).ReplaceAllString(string(b), "$1")
	fi, _ := os.Stat(note)
	if err := os.WriteFile(note, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(note, fi.ModTime(), fi.ModTime())
	c := newTestCore(t, dir)
	call := step{"read_note", `{"path":"1_Projekte/Website-Relaunch.md","heading":"Ziele"}`}
	r, shown := runStep(t, c, readWrite, call, dir, "")
	checkContract(t, readWrite, call, r, dir)
	compareGolden(t, filepath.Join("testdata", "golden", "conflict", "read_note_unmerged_no_markers.golden"), renderGolden(shown, r, dir))
	m := suggested.FindStringSubmatch(r.Text)
	if m == nil {
		t.Fatalf("no resolve call:\n%s", r.Text)
	}
	var args map[string]any
	_ = json.Unmarshal([]byte(m[3]), &args)
	res := c.Call(context.Background(), readWrite, m[2], args)
	if res.IsError() {
		t.Fatalf("following %s failed:\n%s", m[0], res.Text)
	}
	checkContract(t, readWrite, step{m[2], m[3]}, res, dir)
	compareGolden(t, filepath.Join("testdata", "golden", "conflict", "resolve_current.golden"), renderGolden(m[2]+" "+m[3], res, dir))
	if out, _ := gitCommand(dir, "", "ls-files", "-u").CombinedOutput(); len(out) != 0 {
		t.Errorf("git still lists unmerged files:\n%s", out)
	}
}

// TestGolden_OverviewSyncFailed: vault_overview reports the last git sync
// round, and says so loudly when it failed.
func TestGolden_OverviewSyncFailed(t *testing.T) {
	dir := copyExampleVault(t)
	c := newTestCore(t, dir)
	rep := `{"time":"2026-11-29T11:55:00Z","upstream":"origin/main","error":"push rejected: origin/main has commits this clone does not have yet; the next round fetches and merges them, then pushes","failures":2}`
	if err := os.WriteFile(filepath.Join(c.v.StateDir(), "git-sync.json"), []byte(rep), 0o644); err != nil {
		t.Fatal(err)
	}
	call := step{"vault_overview", `{}`}
	r, shown := runStep(t, c, readOnly, call, dir, "")
	checkContract(t, readOnly, call, r, dir)
	if !strings.Contains(r.Text, "git sync FAILED at 2026-11-29 11:55 UTC: push rejected") {
		t.Errorf("no failed sync in:\n%s", r.Text)
	}
	compareGolden(t, filepath.Join("testdata", "golden", "conflict", "overview_sync_failed.golden"), renderGolden(shown, r, dir))

	ok := `{"time":"2026-11-29T11:58:00Z","upstream":"origin/main","merged":"2 commits from origin/main (merged)","pushed":"3 commits to origin/main"}`
	if err := os.WriteFile(filepath.Join(c.v.StateDir(), "git-sync.json"), []byte(ok), 0o644); err != nil {
		t.Fatal(err)
	}
	r, shown = runStep(t, c, readOnly, call, dir, "")
	checkContract(t, readOnly, call, r, dir)
	if !strings.Contains(r.Text, "git sync, last round at 2026-11-29 11:58 UTC: merged 2 commits from origin/main (merged); pushed 3 commits to origin/main") {
		t.Errorf("no sync round in:\n%s", r.Text)
	}
	compareGolden(t, filepath.Join("testdata", "golden", "conflict", "overview_sync_ok.golden"), renderGolden(shown, r, dir))
}

// TestGolden_ConflictResolveRemovesMost: a resolution by the caller's own
// text that keeps less than half of the note counts as a delete, as a
// replace does: refused without the delete right.
func TestGolden_ConflictResolveRemovesMost(t *testing.T) {
	dir := conflictVault(t)
	c := newTestCore(t, dir)
	call := step{"resolve_conflict", `{"path":"1_Projekte/Website-Relaunch.md","take":"text","content":"# Website-Relaunch\n\nkurz.\n","change_summary":"gekürzt"}`}
	r, shown := runStep(t, c, readWrite, call, dir, "")
	if !r.IsError() || !strings.Contains(r.Text, "error code: permission_denied") {
		t.Fatalf("not refused:\n%s", r.Text)
	}
	checkContract(t, readWrite, call, r, dir)
	compareGolden(t, filepath.Join("testdata", "golden", "conflict", "err_resolve_removes_most.golden"), renderGolden(shown, r, dir))
	if res := c.Call(context.Background(), everyone, call.tool, map[string]any{"path": conflictNote, "take": "text", "content": "# Website-Relaunch\n\nkurz.\n", "change_summary": "gekürzt"}); res.IsError() || !strings.Contains(res.Text, "counted as a delete") {
		t.Errorf("with the delete right:\n%s", res.Text)
	}
}
