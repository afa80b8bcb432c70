// Package rules reads a vault's rules for agents from the notes in its
// 9_System/ folder and enforces them on every write, as a vault.Policy.
//
// # The rules notes
//
// Every note under 9_System/ (in sub-folders too) is a rules note. Its body
// text is guidance: agents are shown it (see Rules.Summary) and are expected
// to follow it. Its frontmatter may in addition declare policy, which vaultd
// enforces whatever the agent does:
//
//	---
//	title: Regeln für Agenten
//	protected:            # globs agents may read but not write; 9_System/** is always protected
//	  - "4_Archiv/**"
//	inbox: 0_Inbox        # folder for new notes whose path has no folder
//	required_properties:  # frontmatter keys every NEW note must have
//	  - tags
//	attachments: 3_Ressourcen/Anhänge  # folder for uploaded files
//	---
//	Body text: guidance for agents.
//
// protected and required_properties take a list or a single value
// ("protected: 4_Archiv"). The keys are written in lower case, exactly as
// above; any other properties are the note's own and are left alone.
//
// The frontmatter is the block between a first line "---" and the next line
// "---" or "..."; a note that opens with "---" but never closes it has no
// frontmatter.
//
// # Protected paths
//
// A protected glob is matched against the vault-relative path of every note
// a write touches, ignoring case and Unicode normalisation: "*" matches
// within one folder or file name, "?" one character, and "**" any number of
// folders, none included. A glob that names a folder covers everything in
// it, so "4_Archiv", "4_Archiv/" and "4_Archiv/**" mean the same. Globs start
// at the vault root: "*.md" is the notes at the top level, "**/Entwurf.md"
// every note of that name. Agents may read protected notes but not create,
// append to, edit, replace, delete, restore or move them. 9_System/** is
// always protected: agents never change their own rules.
//
// # The inbox
//
// When an agent creates a note without naming a folder ("Notiz.md"), it is
// created in the inbox folder ("0_Inbox/Notiz.md"). Without an inbox such
// notes land at the top of the vault.
//
// # Attachments
//
// Uploaded files (images, PDFs, audio, video) go to the folder Obsidian's own
// setting names ("Default location for new attachments", attachmentFolderPath
// in .obsidian/app.json). When that is not set, the attachments folder a rules
// note declares is used; without either, a file goes next to the note it is
// embedded in. As with the inbox, the first note in path order that declares
// a folder sets it, and a later, different one is reported as a problem.
//
// # Required properties
//
// A new note must have every required property as a frontmatter key; its
// value may be anything, even empty. Writes to existing notes are not
// checked, so notes that predate the rule stay editable.
//
// # Several rules notes
//
// The declarations of all rules notes add up: a path is protected when any
// note protects it, and a new note needs every property any note requires.
// Notes are taken in path order (byte order of their vault-relative paths);
// the first note that declares an inbox sets it, and a later, different
// inbox is reported as a problem and ignored.
//
// # Mistakes
//
// A mistake in a rules note — YAML that does not parse, a list where one
// folder belongs, a glob outside the vault, a second inbox — never stops
// vaultd. It is reported in Rules.Problems, naming the note, for the vault
// owner to fix; the rest of the rules apply meanwhile. A note whose
// frontmatter does not parse declares nothing until it is fixed; its
// guidance is still shown.
//
// rules imports note and vault only: not index, tools, a door, or the big
// libraries (mcp-go, bleve, cobra).
package rules
