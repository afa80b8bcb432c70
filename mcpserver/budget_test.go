package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/tools"
)

func versionOf(t *testing.T, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, p))
	if err != nil {
		t.Fatal(err)
	}
	return note.ShortVersion(note.Version(b))
}

// TestBudget_RefusedCallsCostNothing (issue 11 item 8): calls that change
// nothing — stale version, missing summary, unknown note, a rule's denial,
// a write that changes nothing — leave the budgets as they were, and every
// write answer says what is left.
func TestBudget_RefusedCallsCostNothing(t *testing.T) {
	cn := tools.NewConnection("mcp", tools.AllPerms, tools.Limits{WritesPerMinute: 1, WriteBurst: 1, DeletesPerMinute: 1, DeleteBurst: 1})
	cl, _, dir := connect(t, cn)
	const note = "0_Inbox/Notiz 2026-11-18.md"
	refused := []struct {
		tool string
		args map[string]any
	}{
		{"delete_note", map[string]any{"path": note, "change_summary": "weg", "expected_version": "000000000000"}},
		{"delete_note", map[string]any{"path": note, "expected_version": versionOf(t, dir, note)}},
		{"delete_note", map[string]any{"path": "0_Inbox/Gibtsnicht.md", "change_summary": "weg", "expected_version": "000000000000"}},
		{"delete_note", map[string]any{"path": "4_Archiv/Gartenhaus Bau 2025.md", "change_summary": "alt", "expected_version": versionOf(t, dir, "4_Archiv/Gartenhaus Bau 2025.md")}},
		{"replace_note", map[string]any{"path": note, "content": "x", "change_summary": "neu", "expected_version": "000000000000"}},
		{"append_to_note", map[string]any{"path": "9_System/Schreibstil.md", "content": "- mehr", "change_summary": "Regel"}},
		{"create_note", map[string]any{"path": "0_Inbox/X.md", "content": "# X\n"}},
	}
	for _, c := range refused {
		res := callTool(t, cl, c.tool, c.args)
		text := resultText(res)
		if !res.IsError || strings.Contains(text, "rate limited") {
			t.Fatalf("%s %v: got isError=%v\n%s\nwant a refusal other than the rate limit", c.tool, c.args, res.IsError, text)
		}
		if !strings.HasSuffix(text, "budget: 1 write, 1 delete left now (1 writes and 1 deletes a minute)") {
			t.Errorf("%s after a refusal: the budget line is missing or changed:\n%s", c.tool, text)
		}
	}
	// A write that changes nothing costs nothing either.
	same, _ := os.ReadFile(filepath.Join(dir, note))
	if res := callTool(t, cl, "replace_note", map[string]any{"path": note, "content": string(same), "change_summary": "gleich", "expected_version": versionOf(t, dir, note)}); res.IsError ||
		!strings.Contains(resultText(res), "budget: 1 write, 1 delete left now") {
		t.Fatalf("a replace with the same text:\n%s", resultText(res))
	}
	// The first real delete after all that goes through, and says what is left.
	res := callTool(t, cl, "delete_note", map[string]any{"path": note, "change_summary": "erledigt", "expected_version": versionOf(t, dir, note)})
	if text := resultText(res); res.IsError || !strings.Contains(text, "budget: 0 writes, 0 deletes left now") {
		t.Fatalf("the first valid delete after refused ones:\n%s", text)
	}
	if st := res.StructuredContent.(map[string]any)["budget"].(map[string]any); st["deletes_left"] != float64(0) || st["writes_left"] != float64(0) {
		t.Errorf("structured budget %v, want 0 writes and 0 deletes left", st)
	}
	res = callTool(t, cl, "append_to_note", map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "- mehr", "change_summary": "mehr"})
	if !res.IsError || !strings.Contains(resultText(res), "rate limited") {
		t.Errorf("a write over the budget: got\n%s\nwant rate limited", resultText(res))
	}
}

// TestBudget_ConcurrentCallsReserve: a budget of one delete lets exactly
// one of many concurrent deletes through; the others are refused as rate
// limited, not after deleting.
func TestBudget_ConcurrentCallsReserve(t *testing.T) {
	cn := tools.NewConnection("mcp", tools.AllPerms, tools.Limits{WritesPerMinute: 1000, WriteBurst: 100, DeletesPerMinute: 1, DeleteBurst: 1})
	cl, _, dir := connect(t, cn)
	notes := []string{"0_Inbox/Notiz 2026-11-18.md", "0_Inbox/Buchtipps.md", "0_Inbox/Anruf Stadtwerke.md", "0_Inbox/Idee Wissensdatenbank.md",
		"3_Ressourcen/Glossar.md", "3_Ressourcen/Shell Snippets.md", "3_Ressourcen/Git Workflow.md", "3_Ressourcen/Obsidian Setup.md"}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, limited := 0, 0
	for _, p := range notes {
		v := versionOf(t, dir, p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := callTool(t, cl, "delete_note", map[string]any{"path": p, "change_summary": "weg", "expected_version": v})
			mu.Lock()
			defer mu.Unlock()
			switch text := resultText(res); {
			case !res.IsError:
				ok++
			case strings.Contains(text, "rate limited"):
				limited++
			default:
				t.Errorf("delete %s: %s", p, text)
			}
		}()
	}
	wg.Wait()
	if ok != 1 || limited != len(notes)-1 {
		t.Errorf("%d concurrent deletes with a budget of one: %d went through, %d rate limited; want 1 and %d", len(notes), ok, limited, len(notes)-1)
	}
	trashed, _ := filepath.Glob(filepath.Join(dir, ".trash", "*", "*.md"))
	if len(trashed) != 1 {
		t.Errorf("%d notes in the trash, want 1: %v", len(trashed), trashed)
	}
}

// TestBudget_RemovingMostCountsAsDelete (issue 10 item 7): a replace that
// keeps under half of a note's words spends a delete; ordinary edits do
// not; a refused one gives it back.
func TestBudget_RemovingMostCountsAsDelete(t *testing.T) {
	cn := tools.NewConnection("mcp", tools.AllPerms, tools.Limits{WritesPerMinute: 1000, WriteBurst: 100, DeletesPerMinute: 1, DeleteBurst: 1})
	cl, _, dir := connect(t, cn)
	const note = "0_Inbox/Buchtipps.md"
	orig, _ := os.ReadFile(filepath.Join(dir, note))
	// An ordinary edit: most words stay.
	edited := strings.Replace(string(orig), "Buchtipps", "Buchempfehlungen", 1)
	if res := callTool(t, cl, "replace_note", map[string]any{"path": note, "content": edited, "change_summary": "Titel", "expected_version": versionOf(t, dir, note)}); res.IsError ||
		strings.Contains(resultText(res), "counted as a delete") || !strings.Contains(resultText(res), "1 delete left now") {
		t.Fatalf("an ordinary replace:\n%s", resultText(res))
	}
	// A destructive one with a stale version: refused, nothing spent.
	if res := callTool(t, cl, "replace_note", map[string]any{"path": note, "content": "", "change_summary": "leer", "expected_version": "000000000000"}); !res.IsError ||
		!strings.Contains(resultText(res), "1 delete left now") {
		t.Fatalf("a destructive replace with a stale version:\n%s", resultText(res))
	}
	res := callTool(t, cl, "replace_note", map[string]any{"path": note, "content": "", "change_summary": "leer", "expected_version": versionOf(t, dir, note)})
	if text := resultText(res); res.IsError || !strings.Contains(text, "counted as a delete: the new text keeps 0 of the note's") || !strings.Contains(text, "0 deletes left now") {
		t.Fatalf("emptying the note:\n%s", text)
	}
	// The delete budget is spent: the next destructive edit is refused,
	// and so is a delete.
	const other = "0_Inbox/Anruf Stadtwerke.md"
	res = callTool(t, cl, "replace_note", map[string]any{"path": other, "content": "weg", "change_summary": "leer", "expected_version": versionOf(t, dir, other)})
	if text := resultText(res); !res.IsError || !strings.Contains(text, "rate limited: this replace keeps 0 of the note's") || !strings.Contains(text, "counts as a delete") {
		t.Fatalf("a second destructive replace over the delete budget:\n%s", text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, other)); len(b) < 100 {
		t.Errorf("the refused replace changed %s: %q", other, b)
	}
	res = callTool(t, cl, "delete_note", map[string]any{"path": other, "change_summary": "weg", "expected_version": versionOf(t, dir, other)})
	if !res.IsError || !strings.Contains(resultText(res), "rate limited") {
		t.Errorf("a delete after the budget went to a replace:\n%s", resultText(res))
	}
}
