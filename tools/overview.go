package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// OverviewArgs are the arguments of vault_overview (none).
type OverviewArgs struct{}

// SpaceInfo is one space in the overview.
type SpaceInfo struct {
	Name  string `json:"name"`
	Notes int    `json:"notes"`
}

// TagCount is a tag with the number of notes carrying it.
type TagCount struct {
	Tag   string `json:"tag"`
	Notes int    `json:"notes"`
}

// OverviewData is vault_overview's structured answer.
type OverviewData struct {
	Notes       int          `json:"notes"`
	Attachments int          `json:"attachments"`
	Spaces      []SpaceInfo  `json:"spaces"`
	RootNotes   int          `json:"root_notes"`
	Folders     []FolderInfo `json:"folders"`
	Rules       string       `json:"rules"`
	Recent      []ListedNote `json:"recent"`
	Tags        []TagCount   `json:"top_tags"`
	Pinned      []NoteRef    `json:"pinned,omitempty"` // bookmarked in Obsidian (.obsidian/bookmarks.json)
	// Interrupted are the multi-file changes (moves) a crash cut short in
	// the last week, as vaultd's next start finished or left them.
	Interrupted []InterruptedChange `json:"interrupted,omitempty"`
	// InConflict are the notes with unresolved merge conflicts.
	InConflict []ConflictedNote `json:"in_conflict,omitempty"`
	// AttachmentsInConflict are the attachments a merge found changed on
	// both sides (or deleted on one), with the calls that resolve them.
	AttachmentsInConflict []AttachmentConflictData `json:"attachments_in_conflict,omitempty"`
	// Sync is the last round of git sync (vaultd serve --git-sync,
	// vaultd sync), when there was one.
	Sync *SyncData `json:"git_sync,omitempty"`
	// Provisional: the counts are from the table vaultd saved, which it
	// is still comparing with the files.
	Provisional bool `json:"provisional,omitempty"`
}

// ConflictedNote is a note in conflict, as vault_overview lists it.
type ConflictedNote struct {
	NoteRef
	Conflict *ConflictData `json:"conflict"`
}

// SyncData is the last git sync round.
type SyncData struct {
	Time   string `json:"time"`
	Result string `json:"result"`
	// Attributes are the lines of the team's .gitattributes that change
	// how git stores or merges notes, and what vaultd does about each.
	Attributes []string `json:"attributes,omitempty"`
}

// overviewWait is how long vault_overview waits for the name table to take
// in what changed while no vaultd ran (a restart compares the files with
// it); past it the overview answers from the table and says so.
// 25 ms: a vault of a thousand notes catches up within it; the laws'
// comparison takes longer than any wait a first call should pay.
const overviewWait = 25 * time.Millisecond

// overviewConflicts bounds the notes in conflict vault_overview shows.
const overviewConflicts = 10

// InterruptedChange is a multi-file change a crash cut short.
type InterruptedChange struct {
	Change  string   `json:"change"`
	Ended   string   `json:"closed"`
	Detail  string   `json:"detail"`
	Pending []string `json:"pending,omitempty"`
}

// overviewInterrupted is how far back vault_overview reports changes a
// crash cut short.
const overviewInterrupted = 7 * 24 * time.Hour

const (
	overviewFolderDepth = 2
	overviewMaxFolders  = 40
	overviewRecent      = 5
	overviewTags        = 15
)

// Overview is the entry point for an agent: the spaces with note counts,
// the folder structure two levels deep, the vault's rules from 9_System/,
// the notes changed last and the most used tags.
func (c *Core) Overview(ctx context.Context, caller Caller, _ OverviewArgs) *Result {
	const tool = "vault_overview"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	f := failure{tool: tool}
	// From the name table, which knows every note's space, tags and time
	// without reading it (the 14,594 notes of a docs vault took 2.4 s to
	// list by reading them, each call).
	entries, behind, err := c.v.CatalogWithin(overviewWait)
	if err != nil {
		return c.fail(caller, f, err)
	}
	rl, err := c.Rules()
	if err != nil {
		return c.fail(caller, f, err)
	}
	var data OverviewData
	var notes []vault.NameEntry
	for _, e := range entries {
		if e.Attachment {
			data.Attachments++
		} else {
			notes = append(notes, e)
		}
	}
	data.Notes, data.Rules = len(notes), strings.TrimSpace(rl.Summary())

	spaceCount := map[string]int{}
	for _, s := range c.v.Spaces() {
		spaceCount[s] = 0
	}
	folderCount := map[string]int{}
	tagCount := map[string]int{}
	for _, n := range notes {
		if sp := note.SpaceOf(n.Path); sp == "" {
			data.RootNotes++
		} else {
			spaceCount[sp]++
		}
		parts := strings.Split(n.Path, "/")
		for depth := 2; depth <= overviewFolderDepth && depth < len(parts); depth++ {
			folderCount[strings.Join(parts[:depth], "/")]++
		}
		for _, t := range n.Tags {
			tagCount[t]++
		}
	}
	for _, s := range sortedKeys(spaceCount) {
		data.Spaces = append(data.Spaces, SpaceInfo{Name: s, Notes: spaceCount[s]})
	}
	for _, k := range sortedKeys(folderCount) {
		data.Folders = append(data.Folders, FolderInfo{Path: k, Notes: folderCount[k]})
	}
	moreFolders := 0
	if len(data.Folders) > overviewMaxFolders {
		moreFolders = len(data.Folders) - overviewMaxFolders
		data.Folders = data.Folders[:overviewMaxFolders]
	}

	sort.Slice(notes, func(i, j int) bool {
		if !notes[i].ModTime.Equal(notes[j].ModTime) {
			return notes[i].ModTime.After(notes[j].ModTime)
		}
		return notes[i].Path < notes[j].Path
	})
	refs := c.noteRefs()
	for _, n := range notes[:min(overviewRecent, len(notes))] {
		ref := refs.at(n.Path) // as it is now: its version may have moved since the table read it
		if ref.Version == goneVersion {
			continue
		}
		modified := n.ModTime
		if e, ok := c.v.Known(n.Path); ok {
			modified = e.ModTime
		}
		data.Recent = append(data.Recent, ListedNote{NoteRef: ref, Modified: when(modified)})
	}

	for t, n := range tagCount {
		data.Tags = append(data.Tags, TagCount{Tag: t, Notes: n})
	}
	sort.Slice(data.Tags, func(i, j int) bool {
		if data.Tags[i].Notes != data.Tags[j].Notes {
			return data.Tags[i].Notes > data.Tags[j].Notes
		}
		return data.Tags[i].Tag < data.Tags[j].Tag
	})
	data.Tags = data.Tags[:min(overviewTags, len(data.Tags))]

	var b strings.Builder
	if behind {
		data.Provisional = true
		b.WriteString("(counts as of vaultd's last run: it is comparing the vault with them now, so notes added since may not be counted yet)\n")
	}
	fmt.Fprintf(&b, "vault: %s, %s in %s", plural(data.Notes, "note", "notes"), plural(data.Attachments, "attachment", "attachments"), plural(len(data.Spaces), "space", "spaces"))
	if data.RootNotes > 0 {
		fmt.Fprintf(&b, " (+%s at the root)", plural(data.RootNotes, "note", "notes"))
	}
	b.WriteString("\n\nspaces:\n")
	for _, s := range data.Spaces {
		fmt.Fprintf(&b, "- %s (%s)\n", s.Name, plural(s.Notes, "note", "notes"))
	}
	if len(data.Folders) > 0 {
		b.WriteString("\nfolders:\n")
		for _, fi := range data.Folders {
			fmt.Fprintf(&b, "- %s/ (%s)\n", fi.Path, plural(fi.Notes, "note", "notes"))
		}
		if moreFolders > 0 {
			fmt.Fprintf(&b, "(%d more folders: list_notes shows any folder)\n", moreFolders)
		}
	}
	b.WriteString("\n")
	b.WriteString(data.Rules)
	b.WriteString("\n")
	var otherPins int
	data.Pinned, otherPins = c.pinnedNotes()
	if len(data.Pinned) > 0 {
		b.WriteString("\npinned (bookmarked in Obsidian):\n")
		for _, r := range data.Pinned {
			b.WriteString("\n")
			writeRef(&b, r, "")
		}
		if otherPins > 0 {
			fmt.Fprintf(&b, "(and %s that are not notes or no longer exist)\n", plural(otherPins, "bookmark", "bookmarks"))
		}
	}
	if gs, err := c.v.RecoveredGroups(c.now().Add(-overviewInterrupted)); err == nil && len(gs) > 0 {
		b.WriteString("\ninterrupted by a crash (the last 7 days):\n")
		for _, g := range gs {
			in := InterruptedChange{Change: g.ID, Ended: when(g.Ended), Detail: g.Detail, Pending: g.Pending}
			data.Interrupted = append(data.Interrupted, in)
			fmt.Fprintf(&b, "- change %s, closed %s: %s\n", in.Change, in.Ended, in.Detail)
			for _, p := range in.Pending {
				fmt.Fprintf(&b, "  pending: %s\n", p)
			}
		}
	}
	c.overviewGit(&b, &data, caller, entries)
	if len(data.Recent) > 0 {
		b.WriteString("\nrecently changed:\n")
		for _, n := range data.Recent {
			b.WriteString("\n")
			writeRef(&b, n.NoteRef, "")
			fmt.Fprintf(&b, "modified: %s\n", n.Modified)
		}
	}
	if len(data.Tags) > 0 {
		var tags []string
		for _, t := range data.Tags {
			tags = append(tags, fmt.Sprintf("#%s (%d)", t.Tag, t.Notes))
		}
		b.WriteString("\ntop tags: " + strings.Join(tags, ", ") + "\n")
	}
	b.WriteString("\nnext: ")
	if len(data.Spaces) > 0 {
		// The biggest space: the first by name may be an empty inbox.
		big := data.Spaces[0]
		for _, s := range data.Spaces {
			if s.Notes > big.Notes {
				big = s
			}
		}
		b.WriteString(call{"list_notes", []arg{{"folder", big.Name}}}.render(caller.Door))
	} else {
		b.WriteString(call{"list_notes", nil}.render(caller.Door))
	}
	b.WriteString("\n")
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// overviewGit writes the notes in conflict and the last sync round.
func (c *Core) overviewGit(b *strings.Builder, data *OverviewData, caller Caller, entries []vault.NameEntry) {
	if last, ok := c.v.LastSync(); ok {
		data.Sync = &SyncData{Time: when(last.Time), Result: last.Text()}
		if last.OK() {
			fmt.Fprintf(b, "\ngit sync, last round at %s: %s\n", data.Sync.Time, data.Sync.Result)
		} else {
			fmt.Fprintf(b, "\ngit sync FAILED at %s: %s; vaultd retries with backoff, and the owner may need to act (see the log)\n", data.Sync.Time, data.Sync.Result)
		}
		if len(last.Attributes) > 0 {
			b.WriteString("git attributes the team's .gitattributes set on notes (tell the owner; notes are read and edited as usual):\n")
			for _, a := range last.Attributes {
				data.Sync.Attributes = append(data.Sync.Attributes, a.Text())
				b.WriteString("- " + a.Text() + "\n")
			}
		}
	}
	data.AttachmentsInConflict = c.attachmentConflicts(b, caller)
	conflicts := c.v.Conflicts(entries)
	if len(conflicts) == 0 {
		return
	}
	refs := c.noteRefs()
	fmt.Fprintf(b, "\nin conflict (%s with unresolved merge conflicts; read them before relying on them):\n", plural(len(conflicts), "note", "notes"))
	for i, nc := range conflicts {
		if i == overviewConflicts {
			fmt.Fprintf(b, "(%d more notes in conflict)\n", len(conflicts)-overviewConflicts)
			break
		}
		cn := ConflictedNote{NoteRef: refs.at(nc.Path), Conflict: conflictData(nc, caller, false, nil)}
		data.InConflict = append(data.InConflict, cn)
		b.WriteString("\n")
		writeRef(b, cn.NoteRef, "")
		writeConflict(b, cn.Conflict, false, caller)
	}
}
