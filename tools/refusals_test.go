package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

func TestRefusals_RulesRightsAndLimits(t *testing.T) {
	c := newTestCore(t, copyExampleVault(t))
	ctx := context.Background()
	reader := NewConnection("key:reader", Perms{Read: true}, Limits{})
	writer := NewConnection("key:writer", Perms{Read: true, Write: true}, Limits{WritesPerMinute: 1, WriteBurst: 1})
	call := func(cn *Connection, tool string, args map[string]any) *Result {
		return c.CallOn(ctx, cn, Caller{Actor: cn.Actor, Perms: cn.Perms}, tool, args)
	}
	// Answers that are no refusal are not kept: a read, a not-found.
	call(reader, "read_note", map[string]any{"path": "0_Inbox/Buchtipps.md"})
	call(reader, "read_note", map[string]any{"path": "0_Inbox/Nope.md"})
	if got, n := c.Refusals(); len(got) != 0 || n != 0 {
		t.Fatalf("refusals after a read and a miss: %v (%d)", got, n)
	}
	call(reader, "append_to_note", map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "x", "change_summary": "x"})
	call(writer, "append_to_note", map[string]any{"path": "4_Archiv/Sommerfest 2026.md", "content": "x", "change_summary": "x"})
	call(writer, "create_note", map[string]any{"path": "0_Inbox/Ohne Tags.md", "content": "# Ohne Tags\n", "change_summary": "x"})
	if r := call(writer, "append_to_note", map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "- eins", "change_summary": "x"}); r.IsError() {
		t.Fatal(r.Text)
	}
	call(writer, "append_to_note", map[string]any{"path": "0_Inbox/Buchtipps.md", "content": "- zwei", "change_summary": "x"})

	got, n := c.Refusals()
	var lines []string
	for _, r := range got {
		lines = append(lines, fmt.Sprintf("%s %s %s %s rule=%q source=%q", r.Actor, r.Tool, r.Path, r.Kind, r.Rule, r.RuleSource))
		if r.Reason == "" || strings.HasPrefix(r.Reason, "error:") || strings.Contains(r.Reason, "\n") || !r.Time.Equal(fixedNow) {
			t.Errorf("refusal %+v: want its first line without \"error:\", at the core's time", r)
		}
	}
	want := []string{
		`key:writer append_to_note 0_Inbox/Buchtipps.md rate_limit rule="" source=""`,
		`key:writer create_note 0_Inbox/Ohne Tags.md rule rule="required_properties" source="9_System/Regeln für Agenten.md"`,
		`key:writer append_to_note 4_Archiv/Sommerfest 2026.md rule rule="4_Archiv/**" source="9_System/Regeln für Agenten.md"`,
		`key:reader append_to_note 0_Inbox/Buchtipps.md permission rule="" source=""`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") || n != 4 {
		t.Errorf("refusals, newest first (%d):\n%s\nwant (4):\n%s", n, strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(got[0].Reason, "rate limited") || !strings.Contains(got[2].Reason, "is protected") {
		t.Errorf("reasons: %q, %q", got[0].Reason, got[2].Reason)
	}
}

func TestRefusals_Bounded(t *testing.T) {
	var rs refusals
	c := &Core{}
	for i := range refusalsKept + 5 {
		rs.add(Refusal{Tool: fmt.Sprint(i)})
	}
	c.refused.buf, c.refused.next, c.refused.total = rs.buf, rs.next, rs.total
	got, n := c.Refusals()
	if len(got) != refusalsKept || n != refusalsKept+5 || got[0].Tool != fmt.Sprint(refusalsKept+4) || got[len(got)-1].Tool != "5" {
		t.Errorf("after %d refusals: %d kept, total %d, newest %s, oldest %s; want %d kept, newest %d, oldest 5",
			refusalsKept+5, len(got), n, got[0].Tool, got[len(got)-1].Tool, refusalsKept, refusalsKept+4)
	}
}
