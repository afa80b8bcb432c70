package vault

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/vaultd/vaultd/note"
)

// ActorMatches reports whether a change recorded as actor is one of want:
// the same actor, or one of its clients. An MCP connection records the
// client's own name after its own ("key:anna:claude-code",
// "mcp:cursor"), so "key:anna" selects every client of that key and "mcp"
// every client over stdio.
func ActorMatches(actor, want string) bool {
	return actor == want || strings.HasPrefix(actor, want+":")
}

// OutsideActor is the actor of changes made outside vaultd (Obsidian, git,
// a sync tool, an editor), found in the files or recorded by Recover.
const OutsideActor = "outside vaultd"

// ChangeQuery selects changes for RecentChanges. Zero fields select all.
type ChangeQuery struct {
	Space  string // changes to notes in this space (top-level folder)
	Folder string // changes to notes at or below this folder
	// Actor: changes by this actor; OutsideActor (or "external") selects
	// the changes made outside vaultd.
	Actor        string
	Since, Until time.Time // at or after Since, before Until
	Limit        int       // page size; default 20
	Offset       int       // entries to skip
}

// ChangeEntry is one change as the history reports it.
type ChangeEntry struct {
	// ID is the history record's id; for a multi-file change, its group
	// id (every record of it carries it); "" for a change found only in
	// the files.
	ID            string
	Time          time.Time
	Actor         string
	Op            string // create, append, update_section, replace, delete, restore, move, update_links, external
	Path          string // the note (after the change); for a group the main note or folder
	OldPath       string // a move's or a restore's origin
	Summary       string
	Before, After string // versions
	// External: made outside vaultd. Found in the files when ID is "":
	// a note modified after vaultd's last record of it, or never recorded.
	External bool
	Group    string   // the multi-file change this record belongs to
	Files    []string // for a group entry: every note it touched, sorted
	Detail   string   // for a group: what it did; for an external change: how it was found
	Git      string   // what happened in git, with --git-commit

	seq int // position of its (last) record in the history; -1 for one found in the files
}

// RecentChanges lists what changed across the vault, newest first: every
// change recorded in the history — a multi-file change (a move with its
// link updates, a delete with its sub-notes) as one entry — and the changes
// made outside vaultd, found from the files: a note modified after its last
// history record (and now at another version) or never recorded at all
// gets an "external" entry at its modification time, actor OutsideActor.
// total counts every match; the page is q.Offset, q.Limit.
//
// Errors: ErrInvalidPath (q.Folder is not a vault path); a failure reading
// the history.
func (v *Vault) RecentChanges(q ChangeQuery) (page []ChangeEntry, total int, err error) {
	folder := ""
	if strings.TrimSpace(q.Folder) != "" {
		if folder, err = note.CleanPath(strings.TrimRight(strings.TrimSpace(q.Folder), "/")); err != nil {
			return nil, 0, withOp(err, "history", "")
		}
	}
	recs, err := v.allChanges()
	if err != nil {
		return nil, 0, err
	}
	groups, err := v.groups()
	if err != nil {
		return nil, 0, err
	}
	var all []ChangeEntry
	byGroup := map[string]int{} // group id → index in all
	for seq, ch := range recs {
		if ch.Group == "" {
			e := entryOf(ch)
			e.seq = seq
			all = append(all, e)
			continue
		}
		i, ok := byGroup[ch.Group]
		if !ok {
			e := ChangeEntry{ID: ch.Group, Time: ch.Time, Actor: ch.Actor, Op: ch.Op, Path: ch.Path,
				OldPath: ch.OldPath, Summary: stripRecovered(ch.Summary), Group: ch.Group}
			if g := groups[ch.Group]; g != nil && g.Op != "" {
				e.Time, e.Op, e.Summary, e.Detail, e.Git = g.Time, g.Op, g.Summary, g.Detail, g.Git
				e.Path, e.OldPath = g.To, g.From
				if g.Op == "delete" {
					e.Path, e.OldPath = g.From, ""
				}
			}
			all = append(all, e)
			i = len(all) - 1
			byGroup[ch.Group] = i
		}
		all[i].seq = seq
		all[i].Files = append(all[i].Files, ch.Path)
		if ch.Path == all[i].Path && (ch.Op == "move" || ch.Op == "delete" || ch.Op == "restore") {
			all[i].Before, all[i].After = ch.Before, ch.After
		}
	}
	for i := range all {
		all[i].Files = uniqueSorted(all[i].Files)
	}
	ext, err := v.externalChanges(recs)
	if err != nil {
		return nil, 0, err
	}
	all = append(all, ext...)

	outside := q.Actor == OutsideActor || strings.EqualFold(q.Actor, "external")
	under := func(p string) bool {
		return p != "" && (folder == "" || p == folder || strings.HasPrefix(p, folder+"/"))
	}
	inSpace := func(p string) bool { return p != "" && (q.Space == "" || note.SpaceOf(p) == q.Space) }
	var out []ChangeEntry
	for _, e := range all {
		if q.Actor != "" && (outside && !e.External || !outside && !ActorMatches(e.Actor, q.Actor)) {
			continue
		}
		if !q.Since.IsZero() && e.Time.Before(q.Since) || !q.Until.IsZero() && !e.Time.Before(q.Until) {
			continue
		}
		if q.Space != "" || folder != "" {
			hit := false
			for _, p := range append([]string{e.Path, e.OldPath}, e.Files...) {
				if under(p) && inSpace(p) {
					hit = true
					break
				}
			}
			if !hit {
				continue
			}
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.After(out[j].Time)
		}
		// Records of the same instant (a pinned clock, a fast batch) in
		// the order they were written, newest first.
		if out[i].seq != out[j].seq {
			return out[i].seq > out[j].seq
		}
		return out[i].Path < out[j].Path
	})
	total = len(out)
	lim := q.Limit
	if lim <= 0 {
		lim = 20
	}
	out = out[min(max(q.Offset, 0), len(out)):]
	out = out[:min(lim, len(out))]
	for i := range out {
		if out[i].External && out[i].ID == "" && out[i].After == "" {
			out[i].After = v.currentVersion(out[i].Path)
		}
	}
	return out, total, nil
}

func entryOf(ch Change) ChangeEntry {
	e := ChangeEntry{ID: ch.ID, Time: ch.Time, Actor: ch.Actor, Op: ch.Op, Path: ch.Path, OldPath: ch.OldPath,
		Summary: ch.Summary, Before: ch.Before, After: ch.After, Git: ch.Git, Group: ch.Group}
	if ch.Op == "external" {
		e.External, e.Actor = true, OutsideActor
	}
	return e
}

// stripRecovered drops the note Recover adds to a summary.
func stripRecovered(s string) string {
	s, _, _ = strings.Cut(s, " (recorded at recovery")
	return s
}

// allChanges reads every history record, oldest first.
func (v *Vault) allChanges() ([]Change, error) {
	var out []Change
	err := v.readChanges(func(ch Change) { out = append(out, ch) })
	return out, err
}

// lastRecords returns, for each note path, the newest record that left a
// note there (a move away or a delete leaves none: the path is dropped).
func lastRecords(recs []Change) map[string]Change {
	last := map[string]Change{}
	for _, ch := range recs {
		if ch.Path == "" {
			continue
		}
		if ch.Op == "move" && ch.OldPath != "" && ch.OldPath != ch.Path {
			delete(last, ch.OldPath)
		}
		if ch.After == "" {
			delete(last, ch.Path)
			continue
		}
		last[ch.Path] = ch
	}
	return last
}

// externalTolerance absorbs the gap between a write's publish (the file's
// modification time) and its history record's time.
const externalTolerance = 2 * time.Second

// externalChanges finds the notes changed outside vaultd: modified after
// their last record and now at another version, or never recorded.
func (v *Vault) externalChanges(recs []Change) ([]ChangeEntry, error) {
	last := lastRecords(recs)
	everRecorded := map[string]bool{}
	for _, ch := range recs {
		everRecorded[ch.Path] = true
	}
	var out []ChangeEntry
	found := v.firstOpen() // notes untouched since then are how vaultd found the vault
	err := v.Walk(func(e Entry) error {
		if !e.Note {
			return nil
		}
		rec, ok := last[e.Path]
		switch {
		case !ok && !everRecorded[e.Path] && !found.IsZero() && !e.ModTime.After(found):
			return nil
		case !ok:
			detail := "not changed through vaultd; modified at this time"
			if everRecorded[e.Path] {
				detail = "appeared here outside vaultd after vaultd last saw this path"
			}
			out = append(out, ChangeEntry{Time: e.ModTime.UTC(), Actor: OutsideActor, Op: "external", Path: e.Path,
				External: true, Detail: detail, seq: -1})
		case e.ModTime.After(rec.Time.Add(externalTolerance)):
			cur := v.currentVersion(e.Path)
			if cur == "" || cur == rec.After {
				return nil
			}
			out = append(out, ChangeEntry{Time: e.ModTime.UTC(), Actor: OutsideActor, Op: "external", Path: e.Path,
				External: true, Before: rec.After, After: cur, seq: -1,
				Detail: fmt.Sprintf("changed outside vaultd after its last recorded change (%s)", rec.ID)})
		}
		return nil
	})
	return out, err
}

// HistoryQuery pages a note's history.
type HistoryQuery struct {
	Limit     int // entries per page; default 10
	Offset    int
	DiffLines int    // diff lines per entry; default 12, negative: no diffs
	Actor     string // only changes by this actor (OutsideActor: made outside vaultd)
}

// NoteHistory is one note's history.
type NoteHistory struct {
	Path    string // the note, as asked (its current path)
	Exists  bool
	Current string         // its version now; "" when it does not exist
	Entries []HistoryEntry // newest first: the page
	Total   int
}

// HistoryEntry is one change of a note, with what it changed.
type HistoryEntry struct {
	ChangeEntry
	Diff     note.Diff // Before → After, bounded; empty when the text did not change
	DiffNote string    // why there is no diff, when there is none
}

// NoteHistory returns a note's changes, newest first, with a short diff of
// each: the changes recorded at its path and, across moves, at the paths
// it had before; and, on top, a change made outside vaultd since the last
// record (the current text differs from what vaultd last wrote or saw), or
// for a note vaultd never recorded, its modification. The texts come from
// the content store; a version whose text was never kept gets a DiffNote.
//
// Errors (*Error, Op "history"): ErrInvalidPath; ErrNotFound (no such note
// and no history for that path; Alternatives the closest notes).
func (v *Vault) NoteHistory(p string, q HistoryQuery) (*NoteHistory, error) {
	const op = "history"
	c, err := v.notePath(strings.TrimSpace(p))
	if err != nil {
		return nil, withOp(err, op, "")
	}
	if _, err := v.root.Lstat(c); err != nil {
		if m := v.matchFolded(c, false); len(m) == 1 {
			c = m[0].canon
		}
	}
	recs, err := v.allChanges()
	if err != nil {
		return nil, err
	}
	h := &NoteHistory{Path: c}
	var b []byte
	if n, err := v.read(c); err == nil {
		h.Exists, h.Current, b = true, n.Version, n.Doc.Src
	}
	// Newest first, following the note back through its moves.
	paths := map[string]bool{c: true}
	var mine []Change
	for i := len(recs) - 1; i >= 0; i-- {
		ch := recs[i]
		switch {
		case paths[ch.Path]:
			mine = append(mine, ch)
			if ch.Op == "move" && ch.OldPath != "" && ch.OldPath != ch.Path {
				delete(paths, ch.Path) // before the move, another note may have been here
				paths[ch.OldPath] = true
			}
		case ch.Op == "move" && paths[ch.OldPath]:
			// The note that was here before moved away: older records
			// at this path are that note's.
			delete(paths, ch.OldPath)
		}
	}
	if !h.Exists && len(mine) == 0 {
		return nil, v.notFound(op, c)
	}
	groups, _ := v.groups()
	var all []HistoryEntry
	if h.Exists {
		fi, _ := v.root.Stat(c)
		switch {
		case len(mine) == 0:
			all = append(all, HistoryEntry{ChangeEntry: ChangeEntry{Time: fi.ModTime().UTC(), Actor: OutsideActor,
				Op: "external", Path: c, External: true, After: h.Current,
				Detail: "not changed through vaultd yet; modified at this time"},
				DiffNote: "vaultd has no earlier text of this note"})
		case mine[0].After != h.Current:
			e := HistoryEntry{ChangeEntry: ChangeEntry{Time: fi.ModTime().UTC(), Actor: OutsideActor,
				Op: "external", Path: c, External: true, Before: mine[0].After, After: h.Current,
				Detail: "changed outside vaultd since its last recorded change"}}
			e.Diff, e.DiffNote = v.diffOf(mine[0].After, b, q.DiffLines)
			all = append(all, e)
		}
	}
	for _, ch := range mine {
		e := HistoryEntry{ChangeEntry: entryOf(ch)}
		if g := groups[ch.Group]; g != nil && ch.Group != "" {
			e.Detail = fmt.Sprintf("part of the %s of %s (change %s)", g.Op, g.From, g.ID)
		}
		all = append(all, e)
	}
	if a := strings.TrimSpace(q.Actor); a != "" {
		outside := a == OutsideActor || strings.EqualFold(a, "external")
		kept := all[:0]
		for _, e := range all {
			if outside && e.External || !outside && ActorMatches(e.Actor, a) {
				kept = append(kept, e)
			}
		}
		all = kept
	}
	h.Total = len(all)
	lim := q.Limit
	if lim <= 0 {
		lim = 10
	}
	all = all[min(max(q.Offset, 0), len(all)):]
	h.Entries = all[:min(lim, len(all))]
	// Diffs for the page only: a note may have thousands of changes.
	for i := range h.Entries {
		if e := &h.Entries[i]; e.ID != "" {
			e.Diff, e.DiffNote = v.entryDiff(e.ChangeEntry, q.DiffLines)
		}
	}
	return h, nil
}

// entryDiff is what a recorded change did to the text.
func (v *Vault) entryDiff(ch ChangeEntry, lines int) (note.Diff, string) {
	switch {
	case ch.Op == "delete":
		return note.Diff{}, "moved to the trash"
	case ch.Op == "restore":
		return note.Diff{}, "restored from " + ch.OldPath
	case ch.Op == "move" && ch.Before == ch.After:
		return note.Diff{}, "moved from " + ch.OldPath + "; the text did not change"
	}
	var after []byte
	if ch.After != "" {
		b, err := v.Content(ch.After)
		if err != nil {
			return note.Diff{}, fmt.Sprintf("the text of version %s is not kept", note.ShortVersion(ch.After))
		}
		after = b
	}
	return v.diffOf(ch.Before, after, lines)
}

// diffOf diffs the stored text of version before ("" for none: a new
// note) against after.
func (v *Vault) diffOf(before string, after []byte, lines int) (note.Diff, string) {
	if lines < 0 {
		return note.Diff{}, ""
	}
	if lines == 0 {
		lines = 12
	}
	var old []byte
	if before != "" {
		b, err := v.Content(before)
		if err != nil {
			return note.Diff{}, fmt.Sprintf("the text of version %s is not kept, so no diff can be shown", note.ShortVersion(before))
		}
		old = b
	}
	// A text that is not UTF-8 is diffed as it is shown (text.go), and
	// the diff says so.
	pOld, pNew := note.CheckText(old), note.CheckText(after)
	shownOld, _ := note.DisplayText(old, pOld)
	shownNew, _ := note.DisplayText(after, pNew)
	d := note.LineDiff(shownOld, shownNew, lines)
	enc := func(p *note.TextProblem) string {
		if p == nil {
			return "UTF-8"
		}
		if p.Encoding != "" {
			return p.Encoding
		}
		return "bytes that are not UTF-8 text"
	}
	switch {
	case (pOld != nil || pNew != nil) && enc(pOld) != enc(pNew) && old != nil:
		msg := fmt.Sprintf("the text went from %s to %s (shown decoded where it can be)", enc(pOld), enc(pNew))
		if d.Text == "" {
			msg = fmt.Sprintf("the same text, from %s to %s", enc(pOld), enc(pNew))
		}
		return d, msg
	case d.Text == "":
		return d, "the lines are the same (only line endings or nothing changed)"
	}
	return d, ""
}
