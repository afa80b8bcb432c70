package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/vault"
)

// ListTrashArgs are the arguments of list_trash.
type ListTrashArgs struct {
	Limit  int `json:"limit,omitempty" jsonschema:"entries per page (default 30)"`
	Offset int `json:"offset,omitempty" jsonschema:"entries to skip, for the next page"`
}

// TrashItem is one note in the trash.
type TrashItem struct {
	TrashPath    string `json:"trash_path"`
	OriginalPath string `json:"original_path"`
	Version      string `json:"version"`
	Deleted      string `json:"deleted"`
	Actor        string `json:"actor"`
	Summary      string `json:"summary"`
}

// ListTrashData is list_trash's structured answer.
type ListTrashData struct {
	Items  []TrashItem `json:"items"`
	Total  int         `json:"total"`
	Offset int         `json:"offset"`
}

// ListTrash lists deleted notes, newest first.
func (c *Core) ListTrash(ctx context.Context, caller Caller, a ListTrashArgs) *Result {
	const tool = "list_trash"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	entries, err := c.v.Trash()
	if err != nil {
		return c.fail(caller, failure{tool: tool}, err)
	}
	lim := a.Limit
	if lim <= 0 {
		lim = 30
	}
	data := ListTrashData{Total: len(entries), Offset: a.Offset}
	page := entries[min(max(a.Offset, 0), len(entries)):]
	page = page[:min(lim, len(page))]
	for _, e := range page {
		data.Items = append(data.Items, TrashItem{
			TrashPath: e.TrashPath, OriginalPath: e.OriginalPath, Version: vault.ShortVersion(e.Version),
			Deleted: when(e.DeletedAt), Actor: e.Actor, Summary: e.Summary,
		})
	}
	var b strings.Builder
	if data.Total == 0 {
		b.WriteString("the trash is empty: 0 notes deleted through vaultd.")
		return &Result{Text: b.String(), Data: data}
	}
	fmt.Fprintf(&b, "trash: showing %d–%d of %d, newest first\n", a.Offset+1, a.Offset+len(data.Items), data.Total)
	for _, it := range data.Items {
		fmt.Fprintf(&b, "\ntrash path: %s\noriginal path: %s\nversion: %s\ndeleted: %s by %s\nsummary: %s\n",
			it.TrashPath, it.OriginalPath, it.Version, it.Deleted, it.Actor, it.Summary)
	}
	if next := a.Offset + len(data.Items); next < data.Total {
		b.WriteString("\nnext page: " + call{tool, []arg{{"offset", next}}}.render(caller.Door) + "\n")
	}
	b.WriteString("\nrestore one: " + call{"restore_note", []arg{{"trash_path", data.Items[0].TrashPath}, {"change_summary", "…"}}}.render(caller.Door))
	return &Result{Text: b.String(), Data: data}
}

// HistoryArgs are the arguments of the history command.
type HistoryArgs struct {
	Path  string `json:"path,omitempty" jsonschema:"one note's history; empty for the whole vault"`
	Actor string `json:"actor,omitempty" jsonschema:"only changes by this actor"`
	Limit int    `json:"limit,omitempty" jsonschema:"changes to show (default 20)"`
}

// ChangeItem is one history record.
type ChangeItem struct {
	ID      string `json:"id"`
	Time    string `json:"time"`
	Actor   string `json:"actor"`
	Op      string `json:"operation"`
	Path    string `json:"path"`
	Summary string `json:"summary"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
}

// HistoryData is the history's structured answer.
type HistoryData struct {
	Path    string       `json:"path,omitempty"`
	Changes []ChangeItem `json:"changes"`
}

// History lists recorded changes, newest first.
func (c *Core) History(ctx context.Context, caller Caller, a HistoryArgs) *Result {
	const tool = "note_history"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}}}
	p := ""
	if a.Path != "" {
		cp, err := vault.NotePath(a.Path)
		if err != nil {
			return c.fail(caller, f, err)
		}
		p = cp
	}
	lim := a.Limit
	if lim <= 0 {
		lim = 20
	}
	changes, err := c.v.History(vault.HistoryFilter{Path: p, Actor: a.Actor, Limit: lim})
	if err != nil {
		return c.fail(caller, f, err)
	}
	data := HistoryData{Path: p}
	for _, ch := range changes {
		data.Changes = append(data.Changes, ChangeItem{
			ID: ch.ID, Time: when(ch.Time), Actor: ch.Actor, Op: ch.Op, Path: ch.Path, Summary: ch.Summary,
			Before: vault.ShortVersion(ch.Before), After: vault.ShortVersion(ch.After),
		})
	}
	var b strings.Builder
	where := "the vault"
	if p != "" {
		where = p
	}
	if len(data.Changes) == 0 {
		fmt.Fprintf(&b, "no changes recorded for %s.", where)
		return &Result{Text: b.String(), Data: data}
	}
	fmt.Fprintf(&b, "changes to %s, newest first (%d shown):\n", where, len(data.Changes))
	for _, ch := range data.Changes {
		fmt.Fprintf(&b, "\nchange: %s\ntime: %s\nactor: %s\noperation: %s\npath: %s\nsummary: %s\n", ch.ID, ch.Time, ch.Actor, ch.Op, ch.Path, ch.Summary)
		if ch.Before != "" || ch.After != "" {
			fmt.Fprintf(&b, "versions: %s → %s\n", orNone(ch.Before), orNone(ch.After))
		}
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}
