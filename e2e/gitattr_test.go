package e2e

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

func utf16LE(s string) string {
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = binary.LittleEndian.AppendUint16(out, u)
	}
	return string(out)
}

// A teammate's git commits "*.md binary working-tree-encoding=UTF-16LE-BOM"
// with a note it wrote as UTF-16, appending to the section an agent of the
// other clone appends to: vaultd's sync merges the note by sections all the
// same (its lines in .git/info/attributes win), the note stays UTF-8 and
// editable, nothing UTF-16 or mixed is committed, and the sync, the log's
// CLI twin and vault_overview say what .gitattributes sets.
func TestGit_TeamAttributesKeptOut(t *testing.T) {
	t.Parallel()
	bare, a, b := teamRepo(t, map[string]string{"Team/Treffen.md": meetingLog}, true)
	ben := strings.Replace(meetingLog, "- 2026-11-01 Start\n", "- 2026-11-01 Start\n\n- von Ben\n", 1)
	os.Remove(filepath.Join(b.dir, ".git", "info", "attributes")) // Ben's git is plain git
	os.WriteFile(filepath.Join(b.dir, ".gitattributes"), []byte("*.md binary working-tree-encoding=UTF-16LE-BOM\n"), 0o644)
	os.WriteFile(filepath.Join(b.dir, "Team", "Treffen.md"), []byte(utf16LE(ben)), 0o644)
	gitIn(t, b.dir, "add", ".gitattributes", "Team/Treffen.md")
	gitIn(t, b.dir, "commit", "-qm", "Ben, in UTF-16")
	gitIn(t, b.dir, "push", "-q")

	sa := serveClone(t, a)
	sa.mustOK("append_to_note", map[string]any{"path": "Team/Treffen.md", "heading": "Zeitleiste", "content": "- von Anna", "change_summary": "Anna"})
	out, code := vaultdCLI(t, a, "sync")
	if code != 0 || !strings.Contains(out, "merged 1 commit from origin/main (merged)") || !strings.Contains(out, "working-tree-encoding=UTF-16LE-BOM (not in effect here)") || !strings.Contains(out, "-merge (not in effect here)") {
		t.Fatalf("A's sync: exit %d\n%s", code, out)
	}
	got := noteText(t, a.dir, "Team/Treffen.md")
	want := strings.Replace(meetingLog, "- 2026-11-01 Start\n", "- 2026-11-01 Start\n\n- von Anna\n\n- von Ben\n", 1)
	if got != want {
		t.Errorf("merged note:\n%q\nwant (by sections, UTF-8):\n%q", got, want)
	}
	r := sa.mustOK("read_note", map[string]any{"path": "Team/Treffen.md"})
	if strings.Contains(r, "encoding:") || strings.Contains(r, "conflict") {
		t.Errorf("read_note:\n%s", r)
	}
	sa.mustOK("append_to_note", map[string]any{"path": "Team/Treffen.md", "heading": "Offen", "content": "- noch was", "change_summary": "Anna"})
	if out, code := vaultdCLI(t, a, "sync"); code != 0 || !strings.Contains(out, "pushed") {
		t.Fatalf("A's second sync: exit %d\n%s", code, out)
	}
	if got := gitIn(t, bare, "show", "main:Team/Treffen.md"); strings.ContainsRune(got, 0) || !strings.Contains(got, "- noch was") || !strings.Contains(got, "- von Ben") {
		t.Errorf("committed: %q", got)
	}
	ov := sa.mustOK("vault_overview", map[string]any{})
	wantContains(t, "vault_overview", ov,
		"git attributes the team's .gitattributes set on notes",
		"- working-tree-encoding=UTF-16LE-BOM on 1 note (Team/Treffen.md): git would write these notes to the work tree as UTF-16LE-BOM text, which vaultd shows but never edits; vaultd keeps them UTF-8 in this clone (.git/info/attributes)",
		"- -merge on 1 note (Team/Treffen.md): git does not merge them: two-sided changes stop on a conflict that keeps ours; vaultd's merge driver merges them in this clone (.git/info/attributes)")
	noMarkerCommitted(t, bare)
}

// A teammate commits a note as UTF-16 bytes (their clone keeps the bytes
// as they are): the merge driver merges nothing of it — the note stays
// ours, in conflict — and resolve_conflict takes a side whole; the UTF-16
// side, once taken, is shown decoded and never edited.
func TestGit_NotTextSideTakenWhole(t *testing.T) {
	t.Parallel()
	bare, a, b := teamRepo(t, map[string]string{"Team/Treffen.md": meetingLog}, true)
	ben := strings.Replace(meetingLog, "- 2026-11-01 Start\n", "- 2026-11-01 Start\n\n- von Ben\n", 1)
	os.WriteFile(filepath.Join(b.dir, "Team", "Treffen.md"), []byte(utf16LE(ben)), 0o644)
	gitIn(t, b.dir, "commit", "-qam", "Ben, in UTF-16")
	gitIn(t, b.dir, "push", "-q")

	sa := serveClone(t, a)
	sa.mustOK("append_to_note", map[string]any{"path": "Team/Treffen.md", "heading": "Zeitleiste", "content": "- von Anna", "change_summary": "Anna"})
	ours := noteText(t, a.dir, "Team/Treffen.md")
	out, code := vaultdCLI(t, a, "sync")
	if code != 4 || !strings.Contains(out, "in conflict: Team/Treffen.md") {
		t.Fatalf("A's sync: exit %d\n%s", code, out)
	}
	if got := noteText(t, a.dir, "Team/Treffen.md"); got != ours {
		t.Fatalf("the driver changed ours: %q", got)
	}
	r := sa.mustOK("resolve_conflict", map[string]any{"path": "Team/Treffen.md", "take": "theirs", "change_summary": "Bens Fassung"})
	wantContains(t, "resolve_conflict", r, "vaultd committed the merge as")
	if got := noteText(t, a.dir, "Team/Treffen.md"); got != utf16LE(ben) {
		t.Fatalf("theirs, taken whole: %q", got)
	}
	read := sa.mustOK("read_note", map[string]any{"path": "Team/Treffen.md"})
	wantContains(t, "read_note", read, "encoding: UTF-16 LE with a byte-order mark, not UTF-8: shown decoded, never edited", "- von Ben")
	res := sa.call("append_to_note", map[string]any{"path": "Team/Treffen.md", "content": "- mehr", "change_summary": "x"})
	if !res.IsError || !strings.Contains(res.Text, "error code: not_text") {
		t.Errorf("append to the UTF-16 note:\n%s", res.Text)
	}
	if out, code := vaultdCLI(t, a, "sync"); code != 0 || !strings.Contains(out, "pushed") {
		t.Fatalf("A's second sync: exit %d\n%s", code, out)
	}
	if got := gitIn(t, bare, "show", "main:Team/Treffen.md"); strings.Contains(got, "mehr") || !strings.Contains(got, "\x00") {
		t.Errorf("committed: %q", got)
	}
}
