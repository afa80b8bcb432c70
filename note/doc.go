// Package note holds the operations on one note's bytes, with no I/O: every
// function takes bytes (or a parsed Doc) and returns bytes or structure, and
// touches no file, clock or network. It owns
//
//   - parsing (parse.go): frontmatter, headings with their sections' byte
//     offsets, links, tags, title and aliases, conflict markers; a parse
//     cache keyed by the bytes' Version (parsecache.go);
//   - addressing sections by heading path, "Projekte > Ziele"
//     (sections.go), and the edits behind the writes: appending under a
//     heading, replacing a section's body (edit.go), properties
//     (properties.go), frontmatter tags (tagedit.go), Kanban board cards
//     (board.go), all leaving every byte outside the place they edit as
//     it was;
//   - line diffs (changes_diff.go), three-way merges (merge.go), git
//     conflict regions (conflict.go), edit distance (distance.go);
//   - a note's names and paths: portable, vault-relative, NFC paths
//     (names.go) and what a link's target resolves to among a set of
//     paths (resolve.go);
//   - a note's version (version.go): hex SHA-256 of its raw bytes;
//   - whether its bytes are UTF-8 text vaultd edits, and how to show them
//     when they are not: UTF-16 or UTF-32 decoded, Latin-1 with
//     replacement characters (text.go);
//   - the one domain error type, Error, with the kinds these operations
//     return (errors.go). Package vault returns the same type.
//
// Package vault owns the folder on disk and calls these; so do index,
// rules, tools and the doors. note imports no other package of vaultd and
// none of os, io/fs, path/filepath, os/exec, syscall, net/http, bleve,
// mcp-go or cobra: vault/deps_test.go checks this. Its fuzz targets
// (fuzz_test.go, merge_test.go, properties_test.go) check the round trips:
// a parse's headings sit at the offsets they claim, splitting into
// sections and joining gives back the bytes, a section edit changes no
// other byte, a property set and removed again leaves the note
// byte-identical, a merge of identical sides is identity.
package note
