package vault

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/vaultd/vaultd/note"
)

// A change that touches several files — a move that takes sub-notes along
// and updates links elsewhere, a delete that takes a note's sub-notes to
// the trash — is a group. Its plan is written to groups.jsonl in the state
// dir before any file changes, listing every step; each file then gets its
// own history record carrying the group's id (Change.Group) as it is
// written; a "done" record closes the group. A crash in between leaves a
// plan without "done": Recover then records the steps that did happen
// (checking the files) and reports the rest as pending.
const groupsFile = "groups.jsonl"

// groupRecord is one line of groups.jsonl.
type groupRecord struct {
	Event   string      `json:"event"` // "plan", "done" or "interrupted"
	ID      string      `json:"id"`
	Time    time.Time   `json:"time"`
	Op      string      `json:"op,omitempty"` // "move" or "delete"
	Actor   string      `json:"actor,omitempty"`
	Summary string      `json:"summary,omitempty"`
	From    string      `json:"from,omitempty"` // the note or folder
	To      string      `json:"to,omitempty"`
	Folder  bool        `json:"folder,omitempty"`
	Steps   []groupStep `json:"steps,omitempty"`   // plan
	Pending []string    `json:"pending,omitempty"` // done (failed steps) or interrupted
	Detail  string      `json:"detail,omitempty"`  // done: what happened, as the answer said it
	Git     string      `json:"git,omitempty"`     // done: what happened in git
}

// groupStep is one step of a plan.
type groupStep struct {
	// Op: "rename" (a note or folder moved), "trash" (moved into the
	// trash), "restore" (moved back out of it), "update_links" (a note's
	// links rewritten in place).
	Op   string `json:"op"`
	From string `json:"from,omitempty"`
	To   string `json:"to"`
	// Notes: for a folder's rename, the notes inside it (old paths), each
	// of which gets its own history record.
	Notes []string `json:"notes,omitempty"`
	// Before: for update_links, the note's version when planned.
	Before string `json:"before,omitempty"`
}

// Group is a multi-file change as the history reports it.
type Group struct {
	ID      string
	Time    time.Time
	Op      string // move, delete
	Actor   string
	Summary string
	From    string
	To      string
	Folder  bool
	Done    bool // finished (false: interrupted, or still running)
	// Interrupted: a crash cut the change short and Recover closed it
	// (finished what was left, or reported what is pending) at Ended.
	Interrupted bool
	Ended       time.Time
	Pending     []string // files a crash or a failure left unchanged
	Detail      string
	Git         string
	Steps       []groupStep
}

func (v *Vault) writeGroup(r groupRecord) error {
	r.Time = v.opts.Now().UTC()
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return v.appendJournal(groupsFile, line)
}

// groups reads groups.jsonl: every group by id, with its latest state.
func (v *Vault) groups() (map[string]*Group, error) {
	out := map[string]*Group{}
	_, err := v.readJournal(groupsFile, func(line []byte) bool {
		var r groupRecord
		if json.Unmarshal(line, &r) != nil || r.ID == "" {
			return false
		}
		g := out[r.ID]
		if g == nil {
			g = &Group{ID: r.ID}
			out[r.ID] = g
		}
		switch r.Event {
		case "plan":
			g.Time, g.Op, g.Actor, g.Summary = r.Time, r.Op, r.Actor, r.Summary
			g.From, g.To, g.Folder, g.Steps = r.From, r.To, r.Folder, r.Steps
		case "done":
			g.Done, g.Pending, g.Detail, g.Git = true, r.Pending, r.Detail, r.Git
		case "interrupted":
			g.Done, g.Pending, g.Interrupted, g.Ended = true, r.Pending, true, r.Time
			g.Detail = r.Detail
			if g.Detail == "" {
				g.Detail = interruptedText(g)
			}
		}
		return true
	})
	return out, err
}

// GroupByID returns the multi-file change with the given id.
// Errors: ErrNotFound.
func (v *Vault) GroupByID(id string) (*Group, error) {
	gs, err := v.groups()
	if err != nil {
		return nil, err
	}
	if g, ok := gs[id]; ok && g.Op != "" {
		return g, nil
	}
	return nil, &note.Error{Op: "history", Kind: note.ErrNotFound, Msg: fmt.Sprintf("no multi-file change %s is recorded", id)}
}

// Interrupted is a multi-file change that a crash cut short, as Recover
// found it.
type Interrupted struct {
	ID, Op, From, To string
	Pending          []string // files left unchanged (vault paths as they are now)
	Text             string   // "move A.md → B.md interrupted: files X, Y pending"
}

func interruptedText(g *Group) string {
	what := g.Op + " " + g.From
	if g.To != "" {
		what += " → " + g.To
	}
	if len(g.Pending) == 0 {
		return what + " was interrupted after every file was written; nothing is pending"
	}
	why := "their links or places may still be the old ones"
	if len(g.Pending) == 1 {
		why = "its links or its place may still be the old ones"
	}
	return fmt.Sprintf("%s interrupted: %s %s pending (%s)",
		what, pluralWord(len(g.Pending), "file", "files"), strings.Join(g.Pending, ", "), why)
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// recoverGroups finishes the records of groups whose process died: steps
// that happened on disk but have no history record get one now (marked as
// recorded at recovery), the rest are pending; the group is closed with an
// "interrupted" record and reported. It holds the move lock, so a group
// another live process is running is never taken for a dead one.
func (v *Vault) recoverGroups() ([]Interrupted, error) {
	unlock, err := v.lock(moveKey)
	if err != nil {
		return nil, err
	}
	defer unlock()
	gs, err := v.groups()
	if err != nil {
		return nil, err
	}
	var open []*Group
	for _, g := range gs {
		if !g.Done && g.Op != "" {
			open = append(open, g)
		}
	}
	if len(open) == 0 {
		return nil, nil
	}
	sort.Slice(open, func(i, j int) bool { return open[i].ID < open[j].ID })
	recorded := map[string]map[string]bool{} // group → "op old→new" keys
	if err := v.readChanges(func(ch Change) {
		if ch.Group == "" {
			return
		}
		if recorded[ch.Group] == nil {
			recorded[ch.Group] = map[string]bool{}
		}
		recorded[ch.Group][ch.Op+"\x00"+ch.OldPath+"\x00"+ch.Path] = true
		recorded[ch.Group][ch.Op+"\x00"+ch.Path] = true
	}); err != nil {
		return nil, err
	}
	var out []Interrupted
	for _, g := range open {
		rec := recorded[g.ID]
		var late []Change
		var pending []string
		for _, st := range g.Steps {
			switch st.Op {
			case "rename", "trash", "restore":
				notes := st.Notes
				if len(notes) == 0 && IsNote(st.From) {
					notes = []string{st.From}
				}
				for _, old := range notes {
					np := st.To + strings.TrimPrefix(old, st.From)
					op := "move"
					switch st.Op {
					case "trash":
						op = "delete"
					case "restore":
						op = "restore"
					}
					key := op + "\x00" + old + "\x00" + np
					if op == "delete" {
						key = op + "\x00" + old
					}
					if rec[key] {
						continue
					}
					_, errOld := v.root.Lstat(old)
					b, errNew := v.root.ReadFile(np)
					if errOld == nil || errNew != nil {
						pending = append(pending, old)
						continue
					}
					ch := Change{Op: op, Path: np, OldPath: old, Actor: g.Actor, Group: g.ID,
						Summary: g.Summary + " (recorded at recovery: the process was interrupted)", Before: note.Version(b), After: note.Version(b)}
					if op == "delete" {
						ch.Path, ch.OldPath, ch.After = old, "", ""
					}
					late = append(late, ch)
				}
			case "update_links":
				if rec["update_links\x00"+st.To] {
					continue
				}
				b, err := v.root.ReadFile(st.To)
				if err != nil || note.Version(b) == st.Before {
					pending = append(pending, st.To)
					continue
				}
				// Written, not recorded: the rewrite is atomic, so the note
				// holds the updated links (or a later edit by someone else).
				if err := v.storeContent(b); err != nil {
					return out, err
				}
				late = append(late, Change{Op: "update_links", Path: st.To, Actor: g.Actor, Group: g.ID,
					Summary: g.Summary + " (recorded at recovery: the process was interrupted)", Before: st.Before, After: note.Version(b)})
			}
		}
		if _, err := v.recordBatch(late); err != nil {
			return out, err
		}
		finished := ""
		if g.Op == "move" && len(pending) > 0 {
			pending, finished = v.finishMove(g)
		}
		g.Pending = pending
		text := interruptedText(g)
		if finished != "" {
			text = finished
		}
		if err := v.writeGroup(groupRecord{Event: "interrupted", ID: g.ID, Pending: pending, Detail: text}); err != nil {
			return out, err
		}
		out = append(out, Interrupted{ID: g.ID, Op: g.Op, From: g.From, To: g.To, Pending: pending, Text: text})
	}
	return out, nil
}

// finishMove completes a move a crash cut short, at the next start: renames
// not yet made are made (the user asked for the move; nothing takes their
// place meanwhile, or they stay pending), then the links that were still
// to be rewritten are rewritten, each through the write protocol with a
// history record of the group. It returns what is still pending and the
// text that says what was done.
func (v *Vault) finishMove(g *Group) ([]string, string) {
	o := WriteOpts{Summary: g.Summary + " (finished at recovery: the process was interrupted)", Actor: g.Actor, group: g.ID}
	var pending []string
	renamed := 0
	var recs []Change
	var renamedNotes []string // old and new paths of the notes renamed here
	for _, st := range g.Steps {
		if st.Op != "rename" {
			continue
		}
		_, errFrom := v.root.Lstat(st.From)
		_, errTo := v.root.Lstat(st.To)
		if errFrom != nil {
			continue // made before the crash
		}
		if errTo == nil {
			pending = append(pending, st.From) // something took its place
			continue
		}
		if dir := note.FolderOf(st.To); dir != "" {
			if err := v.root.MkdirAll(dir, 0o755); err != nil {
				pending = append(pending, st.From)
				continue
			}
		}
		if err := v.renameNoReplace(st.From, st.To); err != nil {
			pending = append(pending, st.From)
			continue
		}
		renamed++
		notes := st.Notes
		if len(notes) == 0 && IsNote(st.From) {
			notes = []string{st.From}
		}
		for _, old := range notes {
			np := st.To + strings.TrimPrefix(old, st.From)
			renamedNotes = append(renamedNotes, old, np)
			if b, err := v.root.ReadFile(np); err == nil {
				recs = append(recs, Change{Op: "move", Path: np, OldPath: old, Actor: g.Actor, Group: g.ID,
					Summary: o.Summary, Before: note.Version(b), After: note.Version(b)})
			}
		}
	}
	// The index (and whoever else follows the vault) learns of the notes
	// moved here as of any write's: no watcher has to see them.
	v.notify(renamedNotes...)
	if _, err := v.recordBatch(recs); err != nil {
		return append(pending, g.From), ""
	}
	if len(pending) > 0 {
		return pending, ""
	}

	// Every file is at its new place: what moved, by the current tree.
	var paths []string
	_ = v.Walk(func(e Entry) error {
		paths = append(paths, e.Path)
		return nil
	})
	moved := map[string]string{}
	for _, st := range g.Steps {
		if st.Op != "rename" {
			continue
		}
		for _, p := range paths {
			if p == st.To {
				moved[st.From] = p
			} else if strings.HasPrefix(p, st.To+"/") {
				moved[st.From+strings.TrimPrefix(p, st.To)] = p
			}
		}
	}
	back := make(map[string]string, len(moved))
	for o, n := range moved {
		back[n] = o
	}
	before := make([]string, 0, len(paths))
	for _, p := range paths {
		if o, ok := back[p]; ok {
			before = append(before, o)
		} else {
			before = append(before, p)
		}
	}
	rl := &relinker{before: note.NewResolver(uniqueSorted(before)), after: note.NewResolver(uniqueSorted(paths)), moved: moved}
	p := &movePlan{id: g.ID, rl: rl, src: moveSrc{path: g.From}}
	links := 0
	for _, st := range g.Steps {
		if st.Op != "update_links" || v.currentVersion(st.To) != st.Before {
			continue // rewritten before the crash, or changed since by someone
		}
		rr, err := v.relink(p, rewriteStep{old: st.From, new: st.To, before: st.Before}, o)
		if err != nil {
			pending = append(pending, st.To)
			continue
		}
		if rr != nil {
			links += rr.Links
		}
	}
	what := fmt.Sprintf("move %s → %s was interrupted by a crash and finished at the next start", g.From, g.To)
	var did []string
	if renamed > 0 {
		did = append(did, fmt.Sprintf("%d %s made", renamed, pluralWord(renamed, "rename", "renames")))
	}
	if links > 0 {
		did = append(did, fmt.Sprintf("%d %s updated", links, pluralWord(links, "link", "links")))
	}
	if len(did) > 0 {
		what += " (" + strings.Join(did, ", ") + ")"
	}
	if len(pending) > 0 {
		return pending, ""
	}
	return nil, what
}

// RecoveredGroups returns the multi-file changes that a crash cut short and
// that Recover closed at or after since, newest first.
func (v *Vault) RecoveredGroups(since time.Time) ([]*Group, error) {
	gs, err := v.groups()
	if err != nil {
		return nil, err
	}
	var out []*Group
	for _, g := range gs {
		if g.Interrupted && g.Op != "" && !g.Ended.Before(since) {
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ended.After(out[j].Ended) })
	return out, nil
}
