package tools

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadme_NamesEveryTool keeps the README's tool list true.
func TestReadme_NamesEveryTool(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range AllToolNames() {
		if !strings.Contains(string(b), "`"+name+"`") {
			t.Errorf("README.md does not name the tool %s", name)
		}
	}
}

// TestTools_ExamplesWork: every tool description's example names notes
// and folders that exist in example-vault (a new note's folder, for
// create_note; the deleted note, for restore_note), carries no placeholder,
// and every read tool's example, sent as printed, succeeds there: a model
// that copies an example does not pay a call for it.
func TestTools_ExamplesWork(t *testing.T) {
	dir := copyExampleVault(t)
	c := newTestCore(t, dir)
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		return err == nil
	}
	example := regexp.MustCompile(`Example: ([a-z_]+) (\{.*\})$`)
	for _, tl := range tools {
		m := example.FindStringSubmatch(tl.description)
		if m == nil || m[1] != tl.name {
			t.Errorf("%s: the description has no example call of itself: %q", tl.name, tl.description)
			continue
		}
		if strings.Contains(m[2], "…") {
			t.Errorf("%s: the example carries a placeholder: %s", tl.name, m[2])
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
			t.Errorf("%s: the example is not JSON: %v", tl.name, err)
			continue
		}
		for _, k := range []string{"path", "note", "folder", "trash_path", "to"} {
			v, ok := args[k].(string)
			if !ok {
				continue
			}
			switch {
			case tl.name == "create_note" && k == "path":
				if exists(v) || !exists(path.Dir(v)) {
					t.Errorf("%s: example path %s must be new, in an existing folder", tl.name, v)
				}
			case k == "trash_path":
				if !exists(strings.TrimPrefix(v, ".trash/")) {
					t.Errorf("%s: example %s is no note of example-vault that could be deleted", tl.name, v)
				}
			case !exists(strings.TrimSuffix(v, "/")):
				t.Errorf("%s: example %s %s does not exist in example-vault", tl.name, k, v)
			}
		}
		if tl.perm == "read" {
			if r := c.Call(context.Background(), readOnly, tl.name, args); r.IsError() {
				t.Errorf("%s: the example fails:\n%s", tl.name, r.Text)
			}
		}
	}
}

// TestRateLimited_Contract: the answer of a call over the connection's
// rate limit follows the agent contract (its text is pinned by the MCP
// adapter's golden rate_limited.golden).
func TestRateLimited_Contract(t *testing.T) {
	c := newTestCore(t, copyExampleVault(t))
	cn := NewConnection("mcp", Perms{Read: true, Write: true}, Limits{WritesPerMinute: 1, WriteBurst: 2})
	args := map[string]any{"path": "0_Inbox/Notiz 2026-11-18.md", "content": "- Zeile", "change_summary": "Test"}
	var last *Result
	for range 3 {
		last = c.CallAs(context.Background(), cn, "append_to_note", args)
	}
	if !last.IsError() || !strings.Contains(last.Text, "rate limited") {
		t.Fatalf("third write within the burst of 2 was not limited:\n%s", last.Text)
	}
	checkContract(t, Caller{}, step{"append_to_note", "{}"}, last, "")
}
