package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultd/vaultd/trial"
)

// TestGoClient_AgentSession walks the session an agent has on a fresh
// vault: look around, search with an inflected German word, read the
// section the first hit names, append under that heading, read it back,
// lose a race with a stale version, re-read, and replace.
func TestGoClient_AgentSession(t *testing.T) {
	t.Parallel()
	vault := copyVault(t)
	s := serve(t, vault, mcp.LATEST_LEGACY_PROTOCOL_VERSION)

	if s.init.ServerInfo.Name != "vaultd" {
		t.Errorf("initialize: server name %q, want vaultd", s.init.ServerInfo.Name)
	}
	wantContains(t, "instructions", s.init.Instructions, "vault_overview", "1_Projekte", "4_Archiv")

	ov := s.mustOK("vault_overview", map[string]any{})
	wantContains(t, "vault_overview", ov, "spaces:", "- 1_Projekte (", "- 2_Bereiche (", "9_System/Regeln für Agenten.md", "next: list_notes")

	// A real agent takes seconds between calls; the test waits for the
	// index here so that the search below is complete.
	s.waitIndexed()

	// "Krankenhäuser" is the plural of Krankenhaus; the notes use
	// Krankenhaus, Krankenhäuser and Krankenhäusern.
	sr := s.mustOK("search_notes", map[string]any{"query": "Krankenhäuser"})
	wantContains(t, "search Krankenhäuser", sr, "path: 1_Projekte/Klinikverbund Nord.md")
	if _, after, ok := strings.Cut(sr, "\n\npath: "); !ok || !strings.Contains(strings.SplitN(after, "\n\n", 2)[0], "Krankenh") {
		t.Errorf("search Krankenhäuser: the first hit does not show a Krankenhaus word:\n%s", sr)
	}
	readLine, ok := field(sr, "read")
	if !ok {
		t.Fatalf("search Krankenhäuser: no read: line in:\n%s", sr)
	}
	next, ok := trial.ParseCall(readLine)
	if !ok || next.Tool != "read_note" {
		t.Fatalf("search Krankenhäuser: read: line %q is not a read_note call", readLine)
	}
	path, _ := next.Args["path"].(string)
	heading, _ := next.Args["heading"].(string)
	if path == "" || heading == "" {
		t.Fatalf("search Krankenhäuser: the first hit's read: line %q names no path and section", readLine)
	}

	// Read the section the hit points to.
	rd := s.mustOK("read_note", next.Args)
	if got := mustField(t, rd, "path"); got != path {
		t.Errorf("read_note %v: path %q, want %q", next.Args, got, path)
	}
	// The hit names the section by the shortest heading that names it
	// alone; read_note answers with its full heading path.
	section := mustField(t, rd, "section")
	if section != heading && !strings.HasSuffix(section, " > "+heading) {
		t.Errorf("read_note %v: section %q, want %q or a path ending in it", next.Args, section, heading)
	}
	if sec := fencedContent(t, rd); !strings.Contains(sec, "Krankenh") {
		t.Errorf("read_note %v: the section does not contain the search word:\n%s", next.Args, rd)
	}
	v1 := mustField(t, rd, "version")

	// Append under that heading.
	line := "- 2026-11-30: Checkliste mit der IT des Klinikverbunds durchgesprochen (e2e)"
	ap := s.mustOK("append_to_note", map[string]any{
		"path": path, "heading": heading, "content": line,
		"change_summary": "Abstimmung mit dem Klinikverbund ergänzt",
	})
	wantContains(t, "append_to_note", ap, "(operation: append)", "section: "+section, "path: "+path,
		"previous version: "+v1, "recorded in history as change", "read it back: read_note")
	v2 := mustField(t, ap, "version")
	if v2 == v1 {
		t.Errorf("append_to_note: version stayed %s, want a new one:\n%s", v1, ap)
	}

	// Read back: the line is in the section, with the new version.
	back := s.mustOK("read_note", map[string]any{"path": path, "heading": heading})
	if got := mustField(t, back, "version"); got != v2 {
		t.Errorf("read back: version %s, want %s (from the append)", got, v2)
	}
	if !strings.Contains(fencedContent(t, back), line) {
		t.Errorf("read back: the appended line %q is not in the section:\n%s", line, back)
	}

	// replace_note with the version read before the append: a conflict
	// that names both versions and the call to re-read.
	stale := s.call("replace_note", map[string]any{
		"path": path, "content": "# ersetzt\n", "change_summary": "neu gegliedert", "expected_version": v1,
	})
	if !stale.IsError {
		t.Fatalf("replace_note with stale version %s: got success, want a conflict:\n%s", v1, stale.Text)
	}
	wantContains(t, "replace_note stale", stale.Text, "error code: conflict",
		"expected version: "+v1, "current version: "+v2, "next: read_note")
	if b, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(path))); err != nil || strings.Contains(string(b), "# ersetzt") {
		t.Errorf("replace_note stale: the file was changed (err %v)", err)
	}

	// Re-read the whole note and replace it with the current version.
	whole := s.mustOK("read_note", map[string]any{"path": path})
	if _, long := field(whole, "showing characters"); long {
		t.Fatalf("read_note %s: the note is paged; the test needs a note that fits one answer", path)
	}
	cur := mustField(t, whole, "version")
	if cur != v2 {
		t.Errorf("re-read: version %s, want %s", cur, v2)
	}
	content := fencedContent(t, whole)
	onDisk, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	if content != string(onDisk) {
		t.Errorf("re-read: the fenced content differs from the file on disk\ngot:\n%s\nwant:\n%s", content, onDisk)
	}
	newContent := content + "\n## Nachtrag\n\nNeu gegliedert im e2e-Test.\n"
	rp := s.mustOK("replace_note", map[string]any{
		"path": path, "content": newContent, "change_summary": "Nachtrag angefügt", "expected_version": cur,
	})
	wantContains(t, "replace_note", rp, "(operation: replace)", "path: "+path, "previous version: "+cur)
	if v3 := mustField(t, rp, "version"); v3 == cur {
		t.Errorf("replace_note: version stayed %s", cur)
	}
	if b, _ := os.ReadFile(filepath.Join(vault, filepath.FromSlash(path))); string(b) != newContent {
		t.Errorf("replace_note: file on disk\ngot:\n%s\nwant:\n%s", b, newContent)
	}

	// Deleting is off unless named: not listed, and refused like help.
	names := toolNames(s.tools())
	if want := sortedUnion(readTools, without(writeTools, "delete_note")); !slices.Equal(names, want) {
		t.Errorf("tools/list with default rights:\ngot  %v\nwant %v", names, want)
	}
	del := s.call("delete_note", map[string]any{"path": path, "change_summary": "weg", "expected_version": "0"})
	if !del.IsError {
		t.Fatalf("delete_note without the delete right: got success:\n%s", del.Text)
	}
	wantContains(t, "delete_note denied", del.Text, "delete permission", "vaultd serve --allow read,write,delete")
}

// TestGoClient_DeleteToTrash: with --allow read,write,delete a deleted
// note lands in <vault>/.trash/ under its own relative path, list_trash
// shows it, and restore_note brings it back.
func TestGoClient_DeleteToTrash(t *testing.T) {
	t.Parallel()
	vault := copyVault(t)
	s := serve(t, vault, mcp.LATEST_LEGACY_PROTOCOL_VERSION, "--allow", "read,write,delete")
	const path = "2_Bereiche/Garten/Gartenjahr 2026.md"
	orig, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}

	if tr := s.mustOK("list_trash", map[string]any{}); !strings.Contains(tr, "trash is empty") {
		t.Errorf("list_trash before deleting: want an empty trash, got:\n%s", tr)
	}
	rd := s.mustOK("read_note", map[string]any{"path": path})
	v := mustField(t, rd, "version")
	del := s.mustOK("delete_note", map[string]any{
		"path": path, "change_summary": "Gartenjahr abgeschlossen, Inhalte stehen im Gewächshaus-Plan", "expected_version": v,
	})
	wantContains(t, "delete_note", del, "(operation: delete)", "path: "+path, "version: "+v,
		"trash path: .trash/"+path, "undo: restore_note")

	if _, err := os.Stat(filepath.Join(vault, filepath.FromSlash(path))); !os.IsNotExist(err) {
		t.Errorf("after delete_note: %s still exists (stat err %v)", path, err)
	}
	trashed, err := os.ReadFile(filepath.Join(vault, ".trash", filepath.FromSlash(path)))
	if err != nil {
		t.Fatalf("after delete_note: want the note at .trash/%s: %v", path, err)
	}
	if string(trashed) != string(orig) {
		t.Errorf("the trashed copy differs from the note")
	}

	tr := s.mustOK("list_trash", map[string]any{})
	wantContains(t, "list_trash", tr, "showing 1–1 of 1", "trash path: .trash/"+path, "original path: "+path,
		"version: "+v, "restore one: restore_note")

	gone := s.call("read_note", map[string]any{"path": path})
	if !gone.IsError || !strings.Contains(gone.Text, "error code: not_found") {
		t.Errorf("read_note of the deleted note: want not_found, got:\n%s", gone.Text)
	}

	rs := s.mustOK("restore_note", map[string]any{"trash_path": ".trash/" + path, "change_summary": "doch noch gebraucht"})
	wantContains(t, "restore_note", rs, "(operation: restore)", "path: "+path)
	if b, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(path))); err != nil || string(b) != string(orig) {
		t.Errorf("after restore_note: the note is not back as it was (err %v)", err)
	}
}

// TestGoClient_ReadOnly: --read-only lists exactly the read tools, and a
// write tool called anyway answers with help, not a protocol error. This
// session lets the client negotiate the modern protocol era.
func TestGoClient_ReadOnly(t *testing.T) {
	t.Parallel()
	vault := copyVault(t)
	s := serve(t, vault, "", "--read-only")
	if s.init.ProtocolVersion != mcp.LATEST_PROTOCOL_VERSION {
		t.Errorf("negotiated protocol version %s, want the modern era %s", s.init.ProtocolVersion, mcp.LATEST_PROTOCOL_VERSION)
	}

	if got := toolNames(s.tools()); !slices.Equal(got, readTools) {
		t.Errorf("tools/list with --read-only:\ngot  %v\nwant %v", got, readTools)
	}
	r := s.call("create_note", map[string]any{
		"path": "0_Inbox/Neu.md", "content": "---\ntags: [idee]\n---\n# Neu\n", "change_summary": "Idee festgehalten",
	})
	if !r.IsError {
		t.Fatalf("create_note with --read-only: got success, want a permission error:\n%s", r.Text)
	}
	wantContains(t, "create_note with --read-only", r.Text, "write permission", "vaultd serve --allow", "error code: permission_denied")
	if _, err := os.Stat(filepath.Join(vault, "0_Inbox", "Neu.md")); !os.IsNotExist(err) {
		t.Errorf("create_note with --read-only created the note (stat err %v)", err)
	}
	// Reading still works.
	s.mustOK("read_note", map[string]any{"path": "Website-Relaunch", "heading": "Zeitleiste"})
}

// TestGoClient_ToolAnnotations: every tool sets all four hints, openWorld
// is false (a local vault), readOnly is true exactly for read tools
// (AGENT-CONTRACT rule 15), and the list is sorted.
func TestGoClient_ToolAnnotations(t *testing.T) {
	t.Parallel()
	s := serve(t, copyVault(t), mcp.LATEST_LEGACY_PROTOCOL_VERSION, "--allow", "read,write,delete")
	tools := s.tools()
	if got, want := toolNames(tools), sortedUnion(readTools, writeTools); !slices.Equal(got, want) {
		t.Errorf("tools/list with every right:\ngot  %v\nwant %v", got, want)
	}
	for _, tl := range tools {
		a := tl.Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations %s, want all four hints set", tl.Name, jsonOf(a))
			continue
		}
		if *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint true, want false", tl.Name)
		}
		if want := slices.Contains(readTools, tl.Name); *a.ReadOnlyHint != want {
			t.Errorf("%s: readOnlyHint %v, want %v", tl.Name, *a.ReadOnlyHint, want)
		}
		if slices.Contains(readTools, tl.Name) && *a.DestructiveHint {
			t.Errorf("%s: a read tool claims destructiveHint", tl.Name)
		}
		if !strings.Contains(tl.Description, "Example: "+tl.Name) {
			t.Errorf("%s: description shows no example call: %q", tl.Name, tl.Description)
		}
	}
}

// TestGoClient_RateLimit: --writes-per-minute 2 with the default burst of
// 10 lets 10 writes through, then answers "rate limited" with when to
// retry, and changes nothing.
func TestGoClient_RateLimit(t *testing.T) {
	t.Parallel()
	vault := copyVault(t)
	s := serve(t, vault, mcp.LATEST_LEGACY_PROTOCOL_VERSION, "--writes-per-minute", "2")
	const path = "0_Inbox/Buchtipps.md"
	ok, limited := 0, 0
	var limitedText string
	for i := range 14 {
		r := s.call("append_to_note", map[string]any{
			"path": path, "content": fmt.Sprintf("- Tipp %d (e2e)", i), "change_summary": fmt.Sprintf("Buchtipp %d ergänzt", i),
		})
		switch {
		case !r.IsError:
			ok++
		case strings.Contains(r.Text, "rate limited"):
			limited++
			limitedText = r.Text
		default:
			t.Fatalf("append %d: unexpected error:\n%s", i, r.Text)
		}
	}
	if ok != 10 || limited != 4 {
		t.Errorf("14 appends with --writes-per-minute 2: %d succeeded and %d were rate limited, want 10 and 4", ok, limited)
	}
	if limited > 0 {
		wantContains(t, "rate-limited append", limitedText, "rate limited", "retry after", "error code: rate_limited", "2 writes per minute")
	}
	b, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "(e2e)"); n != ok {
		t.Errorf("the note holds %d appended lines, want %d (one per successful append)", n, ok)
	}
	// Reads are not limited.
	s.mustOK("read_note", map[string]any{"path": path})
}

func toolNames(ts []mcp.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func sortedUnion(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

func without(s []string, drop string) []string {
	return slices.DeleteFunc(slices.Clone(s), func(x string) bool { return x == drop })
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
