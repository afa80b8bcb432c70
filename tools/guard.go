package tools

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// A rogue agent's reach (issue 10 item 7). The delete limit must bound
// destruction, so two writes that destroy as much as a delete are treated
// as one:
//
//   - A replace_note or update_section whose new note keeps less than half
//     of the old note's words removes most of the note. It counts as a
//     delete: a connection without the delete right is refused (a
//     write-only key can edit, not wipe), and one with it spends a delete
//     of its budget besides the write. Small notes (under
//     destructiveMinWords words) are exempt: there is little to lose, and
//     rewriting a stub is ordinary editing.
//   - A delete_note that would take more than subNotesHandful sub-notes
//     along (the folder "X/" beside "X.md") must say how many in
//     with_sub_notes, so that one delete cannot take a folder of 300 notes
//     by surprise. A count that is given must match.
//
// Both are decided inside the vault's write, under the note's lock, on the
// exact text (vault.WriteOpts.Check), so a note that changes meanwhile is
// judged as it is when it is written. Everything stays restorable: the old
// text is in the history, trashed notes are in the trash.
const (
	destructiveMinWords = 20
	subNotesHandful     = 5
	// subNotesShown bounds the sub-notes a refused delete lists; list_notes
	// pages through all of them.
	subNotesShown = 10
)

// countWords counts the words of a text: runs between spaces that hold a
// letter or a digit (list markers, rules and table pipes are not words).
func countWords(b []byte) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(string(b)) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			m[w]++
		}
	}
	return m
}

// wordsKept returns how many of before's words after still has (each
// word as often as it occurs in both) and how many words before has.
func wordsKept(before, after []byte) (kept, total int) {
	old, now := countWords(before), countWords(after)
	for w, n := range old {
		total += n
		kept += min(n, now[w])
	}
	return kept, total
}

// removesMost reports whether a write from before to after removes most of
// a note that is not small.
func removesMost(kept, total int) bool {
	return total >= destructiveMinWords && kept*2 < total
}

// editGuard judges one replace or section update by a caller. Safe for
// concurrent use: the vault may call check again when it recomputes.
type editGuard struct {
	caller Caller
	tool   string

	mu          sync.Mutex
	kept, total int
	destructive bool
	reserved    bool // a delete is reserved on the caller's charge
}

// destructiveEdit refuses a write that removes most of a note: the
// connection has no delete right, or its deletes are used up (wait > 0).
type destructiveEdit struct {
	path        string
	kept, total int
	wait        time.Duration
}

func (e *destructiveEdit) Error() string {
	return fmt.Sprintf("%q: the new text keeps %d of the note's %d words", e.path, e.kept, e.total)
}

// check is the vault.WriteOpts.Check of the write.
func (g *editGuard) check(w vault.WriteCheck) error {
	kept, total := wordsKept(w.Before, w.Content)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.kept, g.total, g.destructive = kept, total, removesMost(kept, total)
	if !g.destructive {
		return nil
	}
	if !g.caller.Perms.Delete || !g.caller.Perms.Write {
		return &destructiveEdit{path: w.Path, kept: kept, total: total}
	}
	if !g.reserved {
		if ok, wait := g.caller.charge.takeDelete(time.Now()); !ok {
			return &destructiveEdit{path: w.Path, kept: kept, total: total, wait: wait}
		}
		g.reserved = true
	}
	return nil
}

// settle gives back a delete reserved by a first computation that a
// recomputation no longer found destructive.
func (g *editGuard) settle() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.reserved && !g.destructive && g.caller.charge != nil {
		g.caller.charge.giveDelete(time.Now())
		g.reserved = false
	}
}

// opts returns the write options with the guard installed.
func (g *editGuard) opts(o vault.WriteOpts) vault.WriteOpts {
	o.Check = g.check
	return o
}

// refused renders a write the guard stopped, or returns nil for any other
// error.
func (g *editGuard) refused(c *Core, f failure, err error) *Result {
	var de *destructiveEdit
	if !errors.As(err, &de) {
		return nil
	}
	what := "this replace"
	switch g.tool {
	case "update_section":
		what = "this section update"
	case "resolve_conflict":
		what = "this resolution"
	}
	removal := fmt.Sprintf("%s keeps %d of the note's %d words", what, de.kept, de.total)
	if de.wait > 0 {
		r := g.caller.charge.cn.rateLimited("deletes", de.wait, removal+", and removing most of a note counts as a delete; ")
		if n, rerr := c.v.Read(de.path); rerr == nil {
			r.Text += "\nnote:\n"
			var b strings.Builder
			writeRef(&b, refOf(n), "  ")
			r.Text += strings.TrimRight(b.String(), "\n")
			r.Data.(map[string]any)["note"] = refOf(n)
		}
		return r
	}
	var b strings.Builder
	fmt.Fprintf(&b, "error: permission denied: %s %q: %s; removing most of a note counts as a delete, which needs the delete permission, and this connection does not have it.\nerror code: permission_denied\n", g.tool, de.path, removal)
	switch g.tool {
	case "update_section":
		b.WriteString("Nothing was changed. Keep the text you are not changing: replace a smaller section (one without the note's other sections below it), or add with append_to_note.\n")
	case "resolve_conflict":
		b.WriteString("Nothing was changed. Keep what both sides wrote: resolve with take ours, theirs or both, or give a text that keeps the rest of the note (with heading, only that section's body).\n")
	default:
		b.WriteString("Nothing was changed. Keep the text you are not changing: send the whole note back with your edits (read it first), change one section with update_section, or add with append_to_note.\n")
	}
	if name, ok := strings.CutPrefix(g.caller.Actor, SignedInActor); ok {
		b.WriteString("Only the vault owner can grant the delete permission: on the owner's page, Connections, tick delete for the signed-in connection \"" + name + "\". Do not retry this call.\n")
	} else {
		b.WriteString("Only the vault owner can grant the delete permission: `vaultd serve --allow read,write,delete`, or an access key created with it (`vaultd keys create NAME --allow read,write,delete`). Do not retry this call.\n")
	}
	data := map[string]any{"error": "permission_denied", "tool": g.tool, "permission": "delete", "words_before": de.total, "words_kept": de.kept}
	next := call{"read_note", []arg{{"path", de.path}}}
	if n, rerr := c.v.Read(de.path); rerr == nil {
		data["note"] = refOf(n)
		b.WriteString("note:\n")
		writeRef(&b, refOf(n), "  ")
		next = call{"read_note", []arg{{"path", n.Path}}}
	}
	b.WriteString("next: " + next.render(g.caller.Door))
	return &Result{Text: b.String(), Data: data,
		Err: &note.Error{Op: g.tool, Path: de.path, Kind: vault.ErrDenied, Msg: removal + "; that needs the delete permission"}}
}

// counted adds to a successful write's answer that it counted as a delete.
func (g *editGuard) counted(r *Result) *Result {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.destructive || !r.Changed {
		return r
	}
	d, ok := r.Data.(WriteData)
	if !ok {
		return r
	}
	kept := g.kept
	d.CountedAs, d.WordsBefore, d.WordsKept = "delete", g.total, &kept
	r.Data = d
	r.Text += fmt.Sprintf("\ncounted as a delete: the new text keeps %d of the note's %d words; the old text stays in the history: %s",
		g.kept, g.total, call{"note_history", []arg{{"path", d.Note.Path}}}.render(g.caller.Door))
	return r
}

// deleteGuard asks a delete that takes more than a handful of sub-notes
// along to name their number.
type deleteGuard struct {
	given int // with_sub_notes; 0: not given
}

// unconfirmedSubNotes refuses a delete whose sub-notes were not counted.
type unconfirmedSubNotes struct {
	path     string
	subNotes []string
	given    int
}

func (e *unconfirmedSubNotes) Error() string {
	return fmt.Sprintf("%q has %d sub-notes; with_sub_notes is %d", e.path, len(e.subNotes), e.given)
}

func (g deleteGuard) check(w vault.WriteCheck) error {
	n := len(w.SubNotes)
	if g.given == n || g.given == 0 && n <= subNotesHandful {
		return nil
	}
	return &unconfirmedSubNotes{path: w.Path, subNotes: w.SubNotes, given: g.given}
}

// refused renders a delete the guard stopped, or returns nil for any other
// error.
func (g deleteGuard) refused(c *Core, caller Caller, a DeleteArgs, err error) *Result {
	var us *unconfirmedSubNotes
	if !errors.As(err, &us) {
		return nil
	}
	n := len(us.subNotes)
	folder := strings.TrimSuffix(us.path, ".md")
	name, confirm, move := "with_sub_notes", fmt.Sprintf("send the same call with \"with_sub_notes\": %d", n), "move_note"
	if caller.Door.CLI() {
		name, confirm, move = "--with-sub-notes", fmt.Sprintf("run the same command with --with-sub-notes %d", n), "vaultd move"
	}
	var b strings.Builder
	switch {
	case n == 0:
		fmt.Fprintf(&b, "error: delete %q: %s is %d, but the note has no sub-notes (no folder %s/ beside it)\n", us.path, name, us.given, folder)
	case us.given == 0:
		fmt.Fprintf(&b, "error: delete %q: the note has %s in %s/ that would go to the trash with it; a delete that takes more than %d sub-notes along must name their number in %s\n",
			us.path, plural(n, "sub-note", "sub-notes"), folder, subNotesHandful, name)
	default:
		fmt.Fprintf(&b, "error: delete %q: %s is %d, but the note has %s in %s/ that would go to the trash with it\n",
			us.path, name, us.given, plural(n, "sub-note", "sub-notes"), folder)
	}
	b.WriteString("error code: sub_notes_unconfirmed\n")
	data := map[string]any{"error": "sub_notes_unconfirmed", "sub_note_count": n}
	if us.given != 0 {
		data["with_sub_notes"] = us.given
	}
	shown := limit(us.subNotes, subNotesShown)
	if n > 0 {
		data["sub_notes"] = shown
		fmt.Fprintf(&b, "sub-notes: %d (showing %d, by path)\n", n, len(shown))
		for _, p := range shown {
			b.WriteString("- " + p + "\n")
		}
	}
	b.WriteString("Nothing was changed. ")
	if n == 0 {
		fmt.Fprintf(&b, "Leave %s out to delete the note alone.\n", name)
	} else {
		fmt.Fprintf(&b, "To delete the note with its %s, make sure the user wants that, then %s. To keep them, move the folder %s/ elsewhere first (%s), then delete the note.\n",
			plural(n, "sub-note", "sub-notes"), confirm, folder, move)
	}
	next := call{"read_note", []arg{{"path", us.path}}}
	if n > 0 {
		// Every sub-note, paged, with its path, title and version.
		next = call{"list_notes", []arg{{"folder", folder}, {"sort", "changed"}}}
	}
	if nt, rerr := c.v.Read(us.path); rerr == nil {
		data["note"] = refOf(nt)
		b.WriteString("note:\n")
		writeRef(&b, refOf(nt), "  ")
	}
	b.WriteString("next: " + next.render(caller.Door))
	return &Result{Text: b.String(), Data: data,
		Err: &note.Error{Op: "delete", Path: us.path, Kind: note.ErrInvalid, Msg: us.Error()}}
}
