package tools

import (
	"context"
	"strings"
	"testing"
)

// TestArgSizes: a string argument other than content is refused beyond
// 4,096 bytes, before the tool runs; content may be long.
func TestArgSizes(t *testing.T) {
	c := newTestCore(t, copyExampleVault(t))
	r := c.Call(context.Background(), readOnly, "search_notes", map[string]any{"query": strings.Repeat("a", 5000)})
	if !r.IsError() || !strings.Contains(r.Text, `argument "query" is 5,000 bytes long; it takes at most 4,096`) {
		t.Errorf("a 5,000-byte query: got\n%s", r.Text)
	}
	r = c.Call(context.Background(), readWrite, "create_note", map[string]any{"path": "0_Inbox/Lang.md",
		"content": "---\ntags: [lang]\n---\n" + strings.Repeat("Wort ", 2000), "change_summary": "lang"})
	if r.IsError() {
		t.Errorf("a 10 KB note: %s", r.Text)
	}
}
