package vault

import (
	"time"

	"github.com/vaultd/vaultd/note"
)

// Entry is a file of the vault as seen by a walk.
type Entry struct {
	Path    string // vault-relative, slash-separated
	Size    int64
	ModTime time.Time
	Note    bool // a .md note; otherwise an attachment
}

// Note is a note read from the vault.
type Note struct {
	Path    string // vault-relative, slash-separated, NFC
	Title   string
	Space   string // first folder of Path; "" for notes at the vault root
	Version string // full hex SHA-256 of the bytes; show ShortVersion(Version)
	Aliases []string
	Tags    []string // without '#', frontmatter and inline, deduplicated, in order of appearance
	ModTime time.Time
	Size    int64
	Doc     *note.Doc // parsed content: of the text DisplayText shows when NotText is set
	// NotText says why the note's bytes are not UTF-8 text (note.CheckText),
	// nil for a UTF-8 note. Such a note is shown decoded where it can be
	// and never edited (ErrNotText).
	NotText *note.TextProblem
}

// WriteOpts carries what every write needs.
type WriteOpts struct {
	Summary string // change_summary; required, non-empty
	Actor   string // who asks: "cli", "mcp:stdio", a key name; default from Options.Actor
	// ExpectedVersion is the version (full or a prefix of ≥ 12 hex chars)
	// the caller read. Required for Replace and Delete; optional for
	// UpdateSection (rebases when the section itself is unchanged) and Append.
	ExpectedVersion string
	// Check, when set, judges this one write after the Policy and just
	// before it is published, under the note's lock, with the exact text
	// before and after (and, for a delete, the sub-notes going along): a
	// caller's own limits that depend on what the write really does. An
	// error refuses the write, leaves the note as it was, and is returned
	// as it is. Called by UpdateSection, Replace and Delete; it may be
	// called again when the write is recomputed (the note changed), and is
	// not called for a write that changes nothing.
	Check func(WriteCheck) error
	// Placed says the path is where Obsidian's own settings put the note
	// (a daily note at the vault root, as Obsidian's defaults have it):
	// the inbox rule does not move it.
	Placed bool

	group string // history group of a multi-file change (a move), set by vault itself
	// whole: the write puts back a whole text kept before (undo, a side
	// of a merge conflict from git's index), byte for byte, whatever its
	// encoding: it builds on no text (text.go).
	whole bool
}

// Result reports what a write did.
type Result struct {
	Note      *Note  // the note after the write (nil after delete)
	Before    string // version before ("" for create)
	After     string // version after ("" for delete)
	Detail    string // what changed, e.g. "section replaced", "3 lines appended"
	ChangeID  string // id of the history record
	TrashPath string // for delete: where the note now lies in the trash (vault-relative, under .trash/)
}

// Change is one record of the history log (JSONL in the state dir).
type Change struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Actor   string    `json:"actor"`
	Op      string    `json:"op"` // create, append, update_section, replace, delete, restore, external, move, update_links
	Path    string    `json:"path"`
	OldPath string    `json:"old_path,omitempty"` // restore, move: where it came from
	Summary string    `json:"summary"`
	Before  string    `json:"before,omitempty"` // version before; content kept in the object store
	After   string    `json:"after,omitempty"`
	// Group ties the records of one multi-file change together (a move and
	// the link updates it made, a delete with its sub-notes): the id of its
	// plan in groups.jsonl. Empty for single-file changes.
	Group string `json:"group,omitempty"`
	// Git says what happened in git with Options.GitCommit: "committed as
	// 1a2b3c4", or why nothing was committed. Empty without GitCommit.
	Git string `json:"git,omitempty"`
	// Intent marks the record a write appends before it publishes: what
	// it is about to do, under the ID its completed record will carry. A
	// write killed between the publish and its record is completed from
	// it at the next start (Recover), keeping its actor and summary.
	// Readers of the history skip intents (readChanges).
	Intent bool `json:"intent,omitempty"`
}

// WriteCheck describes a write about to happen, for a Policy to judge.
type WriteCheck struct {
	Op      string // create, append, update_section, replace, delete, restore
	Path    string // vault-relative target
	Content []byte // the full new content (nil for delete)
	New     bool   // the note does not exist yet
	Actor   string
	// Before is the note's current text, for WriteOpts.Check (not set for
	// a Policy).
	Before []byte
	// SubNotes are the notes that a delete takes along (the folder beside
	// the note), for WriteOpts.Check.
	SubNotes []string
}

// Policy is the vault's rules as vault enforces them on every write.
// It is declared here, where it is consumed; package rules implements it.
type Policy interface {
	// CheckWrite returns an *Error of kind ErrDenied (with Rule and
	// RuleSource set) when the write breaks a rule.
	CheckWrite(c WriteCheck) error
	// PlaceNew returns the path a new note is created at when the
	// requested path has no folder (the inbox rule); otherwise p unchanged.
	PlaceNew(p string) string
}
