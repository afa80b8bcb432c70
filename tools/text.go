package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// Notes that are not UTF-8 text (vault/text.go): every answer that names
// one says so in its note block (NoteRef.Encoding), read_note shows its
// text decoded where it can, and a refused write says what is wrong, that
// nothing changed, and what a person can do — an agent cannot fix the
// encoding through any tool.

// encodingText is the "encoding:" line of a note that is not UTF-8 text.
func encodingText(p *note.TextProblem) string {
	if p == nil {
		return ""
	}
	switch {
	case p.LFS:
		return "a Git LFS pointer file, not the note's text: shown as it is, never edited"
	case p.BOM && p.Decodable():
		return p.Encoding + " with a byte-order mark, not UTF-8: shown decoded, never edited"
	case p.Guessed:
		return p.Encoding + " without a byte-order mark (told by its NUL bytes), not UTF-8: shown decoded, never edited"
	case p.BOM:
		return p.Encoding + " with a byte-order mark, not UTF-8: shown with � for each byte that is not UTF-8, never edited"
	case p.NUL:
		return fmt.Sprintf("holds a NUL byte (line %d, column %d), not text: shown with ␀ for it, never edited", p.Line, p.Column)
	}
	return fmt.Sprintf("not UTF-8 (byte 0x%02X at line %d, column %d): shown with � for each byte that is not UTF-8, never edited", p.Byte, p.Line, p.Column)
}

// personFix says what a person can do about bytes that are not UTF-8
// text at vault path p (the note itself, or with isNew the text given).
func personFix(p *note.TextProblem, path string, isNew bool) string {
	q := shellQuote(path)
	if isNew {
		switch {
		case p.Decodable():
			return fmt.Sprintf("convert the text to UTF-8 (iconv -f %s -t UTF-8 FILE > FILE.utf8) and give that", iconvName(p))
		case p.NUL:
			return "remove the NUL bytes from the text (tr -d '\\000' < FILE > FILE.txt) and give that"
		}
		return "convert the text to UTF-8 (iconv -f WINDOWS-1252 -t UTF-8 FILE > FILE.utf8, if it is Latin-1 or Windows-1252) and give that"
	}
	switch {
	case p.LFS:
		return "fetch the note's text with git lfs pull (git-lfs must be installed), or keep notes out of Git LFS: a .gitattributes line such as \"*.md filter=lfs\" puts them there"
	case p.Decodable():
		return fmt.Sprintf("convert the note to UTF-8 — in an editor, save it with the encoding UTF-8; or, in the vault folder: iconv -f %s -t UTF-8 %s > note.tmp && mv note.tmp %s. If git wrote it so (a working-tree-encoding line in .gitattributes), vaultd sync keeps notes UTF-8 in this clone from its next round on",
			iconvName(p), q, q)
	case p.NUL:
		return fmt.Sprintf("remove the NUL bytes — they come from a broken save or a file that is not a note: tr -d '\\000' < %s > note.tmp && mv note.tmp %s, in the vault folder, after checking the text", q, q)
	}
	return fmt.Sprintf("convert the note to UTF-8 from the encoding it was saved in (most likely Windows-1252 or Latin-1) — in an editor, reopen it with that encoding and save it as UTF-8; or, in the vault folder: iconv -f WINDOWS-1252 -t UTF-8 %s > note.tmp && mv note.tmp %s", q, q)
}

// iconvName is iconv's name of an encoding CheckText named: with a
// byte-order mark, iconv reads the order from it.
func iconvName(p *note.TextProblem) string {
	name := strings.ReplaceAll(p.Encoding, " ", "")
	if p.BOM {
		return strings.TrimSuffix(strings.TrimSuffix(name, "LE"), "BE")
	}
	return name
}

// writeNotText adds to a refused write's error what is wrong with the
// bytes and what a person can do; ve is the error (kind ErrNotText).
func writeNotText(b *strings.Builder, data map[string]any, ve *note.Error, caller Caller) {
	var te *vault.TextError
	if !errors.As(ve, &te) {
		return
	}
	if !te.New {
		data["encoding"] = encodingText(te.Problem)
		b.WriteString("encoding: " + encodingText(te.Problem) + "\n")
	}
	fix := personFix(te.Problem, ve.Path, te.New)
	var say string
	switch {
	case caller.Door.CLI() && te.New:
		say = "To write it: " + fix + "."
	case caller.Door.CLI():
		say = "To edit it: " + fix + "."
	case te.New:
		say = "Send the text as UTF-8 text: a JSON string without NUL characters."
	default:
		say = "Retrying will not help, and no tool edits this note while it is not UTF-8; read_note shows its text. Tell the user, who can " + fix + "."
	}
	data["fix"] = say
	b.WriteString(say + "\n")
}

// notTextReadHint closes read_note's answer for a note that is not UTF-8
// text, in place of the ways to change it.
func notTextReadHint(n *vault.Note, caller Caller) string {
	how := n.NotText.Shown()
	if caller.Door.CLI() {
		return fmt.Sprintf("The text above is %s. vaultd edits only UTF-8 notes and refuses every change to this one; to edit it, %s.\n", how, personFix(n.NotText, n.Path, false))
	}
	return fmt.Sprintf("The text above is %s. vaultd edits only UTF-8 notes: every change to this one is refused. Tell the user, who can %s.\n", how, personFix(n.NotText, n.Path, false))
}
