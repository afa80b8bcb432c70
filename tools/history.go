package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// ListTrashArgs are the arguments of list_trash.
type ListTrashArgs struct {
	Limit  int `json:"limit,omitempty" default:"30" help:"entries per page"`
	Offset int `json:"offset,omitempty" help:"entries to skip, for the next page"`
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
			TrashPath: e.TrashPath, OriginalPath: e.OriginalPath, Version: note.ShortVersion(e.Version),
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
	b.WriteString("\nrestore one: " + call{"restore_note", []arg{{"trash_path", data.Items[0].TrashPath}, {"change_summary", "restored from the trash"}}}.render(caller.Door))
	return &Result{Text: b.String(), Data: data}
}

// note_history and recent_changes are in reorg_history.go.

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}
