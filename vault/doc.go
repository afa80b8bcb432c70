// Package vault is a markdown vault on disk: an Obsidian folder of .md
// notes, its attachments, and what vaultd keeps beside them in the state
// dir. It owns the folder: opening a vault as an os.Root so that no path
// leaves it and nothing in .git, .obsidian, .trash or the state dir is
// reachable through it (vault.go, files.go, find.go); safe writes (temp
// file, fsync, rename) under per-note locks that never overwrite a change
// the writer did not see (write.go, lock*.go, settle.go); the history of
// every change with its previous text, the trash, undo (history.go,
// changes.go, trash.go, undo.go), moves that rewrite links (move*.go), the
// git clone's merges and syncs (git*.go, conflictresolve.go) — what a
// teammate's .gitattributes may do to notes (gitattr.go), attachments in
// conflict (attachconflict.go), the merge driver and merges computed
// outside the locks (mergedriver.go) —, pins, attachments, and the name
// table a lookup uses (nametable.go). Only UTF-8 notes are edited
// (text.go), and names that differ only in case or Unicode normalisation
// name one note each (twins.go).
//
// What is done to one note's bytes — parsing, addressing and editing
// sections, property, tag and board edits, diffs and merges — is package
// note's, with no I/O; vault reads the bytes, calls note, and writes the
// result through the folder. vault's errors are *note.Error, with note's
// kinds and vault's own (ErrExists, ErrDenied, ErrStateDir,
// ErrMergeConflict, ErrBusy, ErrNotText).
//
// Everything an agent or a person changes goes through a Vault, and every
// change is judged by its Policy (package rules implements one).
//
// vault imports note and no other package of vaultd, and none of the big
// libraries the others own: not MCP (mcp-go), not search (bleve), not the
// command line (cobra). deps_test.go checks this and the one-way order of
// every package's imports.
package vault
