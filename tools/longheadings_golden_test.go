package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// betriebsrat is a note as laws and long notes are written: paragraphs
// with a line of dashes below them (meant as a rule, read by Markdown as
// an H2 heading), among ordinary headings. The text is § 9 BetrVG's.
const betriebsrat = `# Betriebsrat

## § 9 Zahl der Betriebsratsmitglieder

Der Betriebsrat besteht in Betrieben mit in der Regel
5 bis 20 wahlberechtigten Arbeitnehmern aus einer Person,
21 bis 50 wahlberechtigten Arbeitnehmern aus 3 Mitgliedern,
51 wahlberechtigten Arbeitnehmern bis 100 Arbeitnehmern aus 5 Mitgliedern,
101 bis 200 Arbeitnehmern aus 7 Mitgliedern.
In Betrieben mit mehr als 9.000 Arbeitnehmern erhöht sich die Zahl der
Mitglieder des Betriebsrats für je angefangene weitere 3.000
Arbeitnehmer um 2 Mitglieder.
-----

Gemäß Artikel 14 Satz 2 des Reformgesetzes gilt § 9 für bestehende
Betriebsräte erst bei deren Neuwahl.

(2) Das Geschlecht, das in der Belegschaft in der Minderheit ist, muss mindestens entsprechend seinem zahlenmäßigen Verhältnis im Betriebsrat vertreten sein, wenn dieser aus mindestens drei Mitgliedern besteht.
---

## § 10 Vertretung der Minderheitsgruppen

(weggefallen)
`

// longHeadingCases: a heading of 300 characters is named by its first
// words in outlines, hits and next-section calls, and those names (with
// the ellipsis a cut path shows, too) read the section.
// The outline and search cases read the whole law (BetrVG, 176,000
// characters), where § 9's text and the paragraphs of §§ 21a, 47 and 51
// are such headings.
var longHeadingCases = []goldenCase{
	{name: "long_headings/law_outline", caller: readOnly, call: step{"read_note", `{"path":"betrvg"}`}},
	{name: "long_headings/law_search", caller: readOnly, call: step{"search_notes", `{"query":"Wie viele Mitglieder hat der Betriebsrat?","folder":"Gesetze"}`}},
	{name: "long_headings/law_search_in_note", caller: readOnly, call: step{"search_notes", `{"query":"Mitglieder Betriebsrat","path":"betrvg"}`}},
	{name: "long_headings/read_by_first_words", caller: readOnly, call: step{"read_note", `{"path":"Betriebsrat","heading":"Der Betriebsrat besteht in Betrieben mit"}`}},
	{name: "long_headings/read_cut_path", caller: readOnly, call: step{"read_note", `{"path":"Betriebsrat","heading":"Betriebsrat > (2) Das Geschlecht, das in der Belegschaft …"}`}},
	{name: "long_headings/search", caller: readOnly, call: step{"search_notes", `{"query":"Mitglieder Betriebsrat Arbeitnehmern","folder":"3_Ressourcen"}`}},
}

func TestGoldenLongHeadings(t *testing.T) {
	for _, tc := range longHeadingCases {
		t.Run(tc.name, func(t *testing.T) {
			laws := unpackLaws(t, "b/betrvg")
			law, err := os.ReadFile(filepath.Join(laws, "b", "betrvg", "index.md"))
			if err != nil {
				t.Fatal(err)
			}
			dir := copyExampleVault(t)
			writeNote(t, dir, "3_Ressourcen/Betriebsrat.md", betriebsrat)
			writeNote(t, dir, "Gesetze/b/betrvg/index.md", string(law))
			checkGoldenCall(t, newTestCore(t, dir), tc.caller, tc.call, dir, "", tc.name)
		})
	}
}
