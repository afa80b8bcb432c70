package vault

import "errors"

// The kinds of *note.Error that only the folder on disk causes; the kinds
// that operations on a note's text return too (note.ErrNotFound,
// note.ErrInvalid, …) are package note's. Callers test both alike with
// errors.Is.
var (
	ErrExists = errors.New("already exists")
	ErrDenied = errors.New("denied by vault rules")
	// ErrStateDir: the state dir (history, content store, index) cannot
	// be written — full or read-only. Writes are refused with it before
	// anything is published.
	ErrStateDir = errors.New("state dir unavailable")
	// ErrMergeConflict: the note holds unresolved merge conflicts, and
	// the change would keep (or add) conflict markers. Resolve them first
	// (ResolveConflict).
	ErrMergeConflict = errors.New("unresolved merge conflict")
)
