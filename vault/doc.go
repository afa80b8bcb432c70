// Package vault is a markdown vault on disk: an Obsidian folder of .md
// notes, its attachments, and what vaultd keeps beside them in the state
// dir. It owns two things, which its files mix today:
//
//   - The folder on disk (vault.go, files.go, write.go, lock*.go, history.go,
//     trash.go, undo.go, move*.go, settle.go, git*.go, pins.go, attach.go):
//     opening a vault as an os.Root so that no path leaves it and nothing in
//     .git, .obsidian, .trash or the state dir is reachable through it; safe
//     writes (temp file, fsync, rename) under per-note locks that never
//     overwrite a change the writer did not see; the history of every
//     change with its previous text, the trash, undo, moves that rewrite
//     links, and the git clone's merges and syncs.
//   - Operations on one note's bytes, with no I/O (parse.go, sections.go,
//     edit.go, properties.go, tagedit.go, board.go, changes_diff.go,
//     merge.go, conflict.go, distance.go, names.go, resolve.go): parsing
//     frontmatter, headings, links and tags; addressing and editing
//     sections; property, tag and board edits; line diffs and three-way
//     merges. Their fuzz targets are in fuzz_test.go.
//     (properties.go, tagedit.go and board.go end in the Vault methods that
//     write their result through the folder.)
//
// Everything an agent or a person changes goes through a Vault, and every
// change is judged by its Policy (package rules implements one).
//
// vault imports no other package of vaultd and none of the big libraries
// the others own: not MCP (mcp-go), not search (bleve), not the command
// line (cobra). deps_test.go checks this.
package vault
