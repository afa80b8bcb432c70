package tools

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// NoteHistoryArgs are the arguments of note_history.
type NoteHistoryArgs struct {
	Path   string `json:"path"`
	Actor  string `json:"actor,omitempty" jsonschema:"e.g. 'outside vaultd' (Obsidian, git)" flag:"by" help:"only changes by this actor (\"cli\", \"mcp:claude-code\", \"outside vaultd\")"`
	Limit  int    `json:"limit,omitempty" help:"changes per page (default 20; with NOTE 10)"`
	Offset int    `json:"offset,omitempty" help:"changes to skip, for the next page"`
}

// RecentChangesArgs are the arguments of recent_changes.
type RecentChangesArgs struct {
	Space  string `json:"space,omitempty" jsonschema:"top-level folder" help:"only this space (top-level folder)"`
	Folder string `json:"folder,omitempty" jsonschema:"with sub-folders" help:"only at or below this folder"`
	Actor  string `json:"actor,omitempty" jsonschema:"e.g. 'outside vaultd' (Obsidian, git)" flag:"by" help:"only changes by this actor (\"cli\", \"mcp:claude-code\", \"outside vaultd\")"`
	Since  string `json:"since,omitempty" jsonschema:"2026-11-20, 2026-11-20T09:00 or 7d, 24h, 2w" help:"from this time on: 2026-11-20, 2026-11-20T09:00:00Z, 7d"`
	Until  string `json:"until,omitempty" jsonschema:"a date counts to its end" help:"before this time (a date counts to its end)"`
	Limit  int    `json:"limit,omitempty" help:"changes per page (default 20; with NOTE 10)"`
	Offset int    `json:"offset,omitempty" help:"changes to skip, for the next page"`
}

// ChangeItem is one change in an answer. What it changed is named as it is
// now (AGENT-CONTRACT rule 2): a note by its block — path, title, current
// version (goneVersion where no note is now: deleted or moved away since;
// Before and After are the change's own versions) and space — or a folder
// or another file by its path.
type ChangeItem struct {
	ID     string   `json:"id,omitempty"`
	Time   string   `json:"time"`
	Actor  string   `json:"actor"`
	Op     string   `json:"operation"`
	Note   *NoteRef `json:"note,omitempty"`
	Folder string   `json:"folder,omitempty"`
	File   string   `json:"file,omitempty"`
	// PathThen is, in note_history, where the note was when the change was
	// made, if it has moved since; the answer's note block names it now.
	PathThen string    `json:"path_then,omitempty"`
	OldPath  string    `json:"previous_path,omitempty"`
	Summary  string    `json:"summary,omitempty"`
	Before   string    `json:"before,omitempty"`
	After    string    `json:"after,omitempty"`
	External bool      `json:"external,omitempty"`
	Files    []FileRef `json:"files,omitempty"`
	FilesN   int       `json:"files_total,omitempty"`
	Detail   string    `json:"detail,omitempty"`
	Git      string    `json:"git,omitempty"`
	Diff     string    `json:"diff,omitempty"`
	DiffStat string    `json:"diff_stat,omitempty"`
	DiffNote string    `json:"diff_note,omitempty"`

	moreFiles int  // files of FilesN neither the entry's own nor listed
	inFolder  bool // Folder exists now: list_notes lists the files not listed
}

// NoteHistoryData is note_history's structured answer. Note is the note as
// it is now, or (deleted) with goneVersion.
type NoteHistoryData struct {
	Note    NoteRef      `json:"note"`
	Changes []ChangeItem `json:"changes"`
	Total   int          `json:"total"`
	Offset  int          `json:"offset"`
	// Damaged counts history lines cut off by a crash or a full disk,
	// skipped (the changes they recorded cannot be shown).
	Damaged int `json:"damaged_history_lines,omitempty"`
}

// RecentChangesData is recent_changes' structured answer.
type RecentChangesData struct {
	Filters string       `json:"filters,omitempty"`
	Changes []ChangeItem `json:"changes"`
	Total   int          `json:"total"`
	Offset  int          `json:"offset"`
	Damaged int          `json:"damaged_history_lines,omitempty"` // as in NoteHistoryData
}

// writeDamage says that damaged history lines were skipped, if any.
func writeDamage(b *strings.Builder, n int) {
	if n > 0 {
		fmt.Fprintf(b, "\nnote: %d damaged_history_lines of vaultd's history were skipped: cut off by a crash or a full disk, their changes cannot be shown. The notes themselves are whole.\n", n)
	}
}

// diffLines bounds each diff in note_history; maxFiles the other files
// listed (each a note block) for one multi-file change.
const (
	diffLines = 12
	maxFiles  = 3
)

// itemOf renders a change entry; refs names the notes it changed as they
// are now. In note_history (history set) the answer's block names the note,
// so an entry names only where the note was then, if elsewhere.
func (c *Core) itemOf(e vault.ChangeEntry, refs *noteRefs, history *NoteRef) ChangeItem {
	it := ChangeItem{ID: e.ID, Time: when(e.Time), Actor: e.Actor, Op: e.Op, OldPath: e.OldPath,
		Summary: e.Summary, Before: note.ShortVersion(e.Before), After: note.ShortVersion(e.After),
		External: e.External, Detail: e.Detail, Git: e.Git}
	switch {
	case history != nil:
		if e.Path != history.Path {
			it.PathThen = e.Path
		}
	case vault.IsNote(e.Path):
		ref := refs.at(e.Path)
		it.Note = &ref
	default:
		// A folder (a folder's move) or another file: by its path. A path
		// where nothing is now is a folder if it has no file extension.
		fi, err := fs.Stat(c.v.FS(), e.Path)
		if err == nil && fi.IsDir() || err != nil && path.Ext(e.Path) == "" {
			it.Folder, it.inFolder = e.Path, err == nil
		} else {
			it.File = e.Path
		}
	}
	if len(e.Files) > 1 {
		it.FilesN = len(e.Files)
		for _, f := range e.Files {
			switch {
			case f == e.Path: // named above
			case len(it.Files) == maxFiles:
				it.moreFiles++
			default:
				it.Files = append(it.Files, refs.fileRef(f))
			}
		}
	}
	return it
}

// writeChange renders one change as a block of "name: value" lines.
func writeChange(b *strings.Builder, it ChangeItem, door Door) {
	if it.ID != "" {
		fmt.Fprintf(b, "change: %s\n", it.ID)
	} else {
		b.WriteString("change: not recorded by vaultd, found in the files\n")
	}
	fmt.Fprintf(b, "time: %s\nactor: %s\noperation: %s\n", it.Time, it.Actor, it.Op)
	switch {
	case it.Note != nil:
		writeRef(b, *it.Note, "")
	case it.Folder != "":
		fmt.Fprintf(b, "folder: %s\n", it.Folder)
	case it.File != "":
		fmt.Fprintf(b, "file: %s\n", it.File)
	}
	if it.PathThen != "" {
		fmt.Fprintf(b, "path then: %s\n", it.PathThen)
	}
	if it.OldPath != "" {
		fmt.Fprintf(b, "previous path: %s\n", it.OldPath)
	}
	if it.Summary != "" {
		fmt.Fprintf(b, "summary: %s\n", it.Summary)
	}
	if it.Before != "" || it.After != "" {
		fmt.Fprintf(b, "versions: %s → %s\n", orNone(it.Before), orNone(it.After))
	}
	if it.FilesN > 0 {
		fmt.Fprintf(b, "files changed in all (files_total): %d", it.FilesN)
		if it.moreFiles > 0 && len(it.Files) > 0 {
			fmt.Fprintf(b, "; the first %d:", len(it.Files))
		}
		b.WriteString("\n")
		for _, f := range it.Files {
			f.write(b)
		}
		switch {
		case it.moreFiles > 0 && it.inFolder:
			fmt.Fprintf(b, "(%d more: %s lists the folder)\n", it.moreFiles, call{"list_notes", []arg{{"folder", it.Folder}}}.render(door))
		case it.moreFiles > 0:
			fmt.Fprintf(b, "(%d more not listed)\n", it.moreFiles)
		}
	}
	if it.Detail != "" {
		fmt.Fprintf(b, "detail: %s\n", it.Detail)
	}
	if it.Git != "" {
		fmt.Fprintf(b, "git: %s\n", it.Git)
	}
	if it.Diff != "" {
		fmt.Fprintf(b, "diff (%s):\n", it.DiffStat)
		b.WriteString(fenceAs("diff", it.Diff))
	} else if it.DiffNote != "" {
		fmt.Fprintf(b, "diff: %s\n", it.DiffNote)
	}
	if door.CLI() && it.ID != "" && it.Op != "external" {
		fmt.Fprintf(b, "undo: vaultd undo %s\n", it.ID)
	}
}

// fenceAs wraps text in a code fence of the given language, longer than
// any run of backticks inside.
func fenceAs(lang, s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return f + lang + "\n" + s + f + "\n"
}

// NoteHistory shows one note's changes, newest first, with a short diff of
// each.
func (c *Core) NoteHistory(ctx context.Context, caller Caller, a NoteHistoryArgs) *Result {
	const tool = "note_history"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}}}
	if a.Actor != "" {
		f.args = append(f.args, arg{"actor", a.Actor})
	}
	p := a.Path
	// A title, alias or [[link]] names the note as read_note would.
	if c2, err := note.NotePath(p); err == nil && !c.v.Exists(c2) {
		if n, _, err := c.v.Find(p); err == nil {
			p = n.Path
		}
	}
	lim := a.Limit
	if lim <= 0 {
		lim = 10
	}
	lim = min(lim, 50)
	h, err := c.v.NoteHistory(p, vault.HistoryQuery{Limit: lim, Offset: a.Offset, DiffLines: diffLines, Actor: a.Actor})
	if err != nil {
		return c.fail(caller, f, err)
	}
	refs := c.noteRefs()
	data := NoteHistoryData{Note: refs.at(h.Path), Total: h.Total, Offset: a.Offset, Changes: []ChangeItem{}}
	var b strings.Builder
	by := ""
	if a.Actor != "" {
		by = " by " + a.Actor
	}
	switch {
	case h.Total == 0:
		fmt.Fprintf(&b, "history of %s: no changes%s\n", h.Path, by)
	case len(h.Entries) == 0:
		fmt.Fprintf(&b, "history of %s: %d changes%s in all, none from offset %d on\n", h.Path, h.Total, by, a.Offset)
	case h.Total > len(h.Entries):
		fmt.Fprintf(&b, "history of %s: showing %d–%d of %d changes%s, newest first\n", h.Path, a.Offset+1, a.Offset+len(h.Entries), h.Total, by)
	default:
		fmt.Fprintf(&b, "history of %s: %s%s, newest first\n", h.Path, plural(h.Total, "change", "changes"), by)
	}
	writeRef(&b, data.Note, "")
	if !h.Exists {
		b.WriteString("The note does not exist any more; these are the changes recorded for it.\n")
	}
	for _, e := range h.Entries {
		it := c.itemOf(e.ChangeEntry, refs, &data.Note)
		it.Diff, it.DiffNote = e.Diff.Text, e.DiffNote
		if it.Diff != "" {
			it.DiffStat = fmt.Sprintf("+%d -%d lines", e.Diff.Added, e.Diff.Removed)
			if e.Diff.Shown < e.Diff.Total {
				it.DiffStat += fmt.Sprintf(", first %d of %d diff lines", e.Diff.Shown, e.Diff.Total)
			}
		}
		data.Changes = append(data.Changes, it)
		b.WriteString("\n")
		writeChange(&b, it, caller.Door)
	}
	if next := a.Offset + len(h.Entries); next < h.Total {
		args := []arg{{"path", h.Path}}
		if a.Actor != "" {
			args = append(args, arg{"actor", a.Actor})
		}
		b.WriteString("\nnext page: " + call{tool, append(args, arg{"offset", next})}.render(caller.Door) + "\n")
	}
	data.Damaged = c.v.HistoryDamage()
	writeDamage(&b, data.Damaged)
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// RecentChanges lists what changed across the vault, newest first: by
// agents, by people through vaultd, and outside vaultd.
func (c *Core) RecentChanges(ctx context.Context, caller Caller, a RecentChangesArgs) *Result {
	const tool = "recent_changes"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	var args []arg
	for _, x := range []arg{{"space", a.Space}, {"folder", a.Folder}, {"actor", a.Actor}, {"since", a.Since}, {"until", a.Until}} {
		if x.value != "" {
			args = append(args, x)
		}
	}
	f := failure{tool: tool, path: a.Folder, args: args}
	now := c.now()
	since, err := parseWhen("since", a.Since, now, false)
	if err != nil {
		return c.fail(caller, f, err)
	}
	until, err := parseWhen("until", a.Until, now, true)
	if err != nil {
		return c.fail(caller, f, err)
	}
	if a.Space != "" {
		if r := c.checkSpace(caller, f, a.Space); r != nil {
			return r
		}
	}
	lim := a.Limit
	if lim <= 0 {
		lim = 20
	}
	lim = min(lim, 100)
	q := vault.ChangeQuery{Space: a.Space, Folder: a.Folder, Actor: a.Actor, Since: since, Until: until, Limit: lim, Offset: a.Offset}
	page, total, err := c.v.RecentChanges(q)
	if err != nil {
		return c.fail(caller, f, err)
	}
	var filters []string
	for _, x := range args {
		filters = append(filters, fmt.Sprintf("%s %s", x.name, x.value))
	}
	data := RecentChangesData{Filters: strings.Join(filters, ", "), Total: total, Offset: a.Offset, Changes: []ChangeItem{}}
	var b strings.Builder
	where := "the vault"
	if data.Filters != "" {
		where += " (" + data.Filters + ")"
	}
	if total == 0 {
		fmt.Fprintf(&b, "no changes recorded or found in %s: searched vaultd's history and the notes' modification times.", where)
		if len(args) > 0 {
			b.WriteString("\nnext: " + call{tool, nil}.render(caller.Door))
		}
		return &Result{Text: b.String(), Data: data}
	}
	if len(page) == 0 {
		fmt.Fprintf(&b, "changes in %s: %d in all, none from offset %d on", where, total, a.Offset)
		return &Result{Text: b.String(), Data: data}
	}
	fmt.Fprintf(&b, "changes in %s, newest first: showing %d–%d of %d\n", where, a.Offset+1, a.Offset+len(page), total)
	refs := c.noteRefs()
	for _, e := range page {
		it := c.itemOf(e, refs, nil)
		data.Changes = append(data.Changes, it)
		b.WriteString("\n")
		writeChange(&b, it, caller.Door)
	}
	if next := a.Offset + len(page); next < total {
		b.WriteString("\nnext page: " + call{tool, append(append([]arg(nil), args...), arg{"offset", next})}.render(caller.Door) + "\n")
	}
	for _, e := range page {
		p := e.Path
		if !vault.IsNote(p) && len(e.Files) > 0 {
			p = e.Files[0] // a folder's move: one of its notes
		}
		if vault.IsNote(p) {
			b.WriteString("\none note's changes with diffs: " + call{"note_history", []arg{{"path", p}}}.render(caller.Door))
			break
		}
	}
	data.Damaged = c.v.HistoryDamage()
	writeDamage(&b, data.Damaged)
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// checkSpace answers a space filter that names no space with the spaces
// there are, nearest first.
func (c *Core) checkSpace(caller Caller, f failure, space string) *Result {
	spaces := c.v.Spaces()
	for _, s := range spaces {
		if s == space {
			return nil
		}
	}
	sorted := nearestFirst(spaces, space)
	var b strings.Builder
	fmt.Fprintf(&b, "error: %s: no space %q\nerror code: not_found\n", f.tool, space)
	if len(spaces) > 0 {
		b.WriteString("spaces: " + strings.Join(spaces, ", ") + "\n")
		b.WriteString("next: " + retryWith(f, "space", sorted[0]).render(caller.Door))
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: map[string]any{"error": "not_found", "spaces": spaces},
		Err: &note.Error{Op: f.tool, Kind: note.ErrNotFound, Msg: fmt.Sprintf("no space %q", space), Alternatives: spaces, AltKind: "spaces"}}
}

// parseWhen reads a time filter: RFC 3339, a date (its start; with end,
// the start of the next day), a date and minute, or "7d", "24h", "2w"
// before now.
func parseWhen(name, s string, now time.Time, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		if end {
			t = t.AddDate(0, 0, 1)
		}
		return t, nil
	}
	if n := len(s); n >= 2 {
		if k, err := strconv.Atoi(s[:n-1]); err == nil && k >= 0 {
			switch s[n-1] {
			case 'h':
				return now.Add(-time.Duration(k) * time.Hour), nil
			case 'd':
				return now.AddDate(0, 0, -k), nil
			case 'w':
				return now.AddDate(0, 0, -7*k), nil
			}
		}
	}
	return time.Time{}, &note.Error{Op: "recent_changes", Kind: note.ErrInvalid,
		Msg: fmt.Sprintf("%s %q is not a time: give a date (2026-11-20), a time (2026-11-20T09:00:00Z) or a span back from now (24h, 7d, 2w)", name, s)}
}
