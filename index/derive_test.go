package index

import (
	"strings"
	"testing"
)

func TestNominal(t *testing.T) {
	for w, want := range map[string]string{
		// participles with ge-, after a separable prefix or none
		"fortgezahlt": "fortzahlung",
		"ausgezahlt":  "auszahlung",
		"angehört":    "anhörung",
		"gemeldet":    "meldung",
		"geöffnet":    "öffnung",
		"gerechnet":   "rechnung",
		"geändert":    "änderung",
		"geregelt":    "regelung",
		// inseparable prefixes: no ge-
		"verjährt":    "verjährung",
		"erstattet":   "erstattung",
		"beantragt":   "beantragung",
		"verlängert":  "verlängerung",
		"befristet":   "befristung",
		"registriert": "registrierung",
		// not a weak participle: no noun
		"kündigen":      "",
		"entlassen":     "",
		"arbeit":        "",
		"gesetz":        "",
		"recht":         "",
		"zuständigkeit": "",
		"aufenthalt":    "",
		"anstalt":       "",
		"mp3-player":    "",
		"verbot":        "", // a stem of two letters
	} {
		if got := nominal(w); got != want {
			t.Errorf("nominal(%q) = %q, want %q", w, got, want)
		}
	}
}

// A question asks with a verb where the law names the act with a noun:
// the participle finds the noun and its compounds, and the section that
// names them is among the first.
// Without the noun, the law that answers did not match at all (it never
// says "fortgezahlt" or "ausgezahlt").
func TestSearch_VerbFindsItsNoun(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"e/entgfg/index.md": "# Entgeltfortzahlungsgesetz (EntgFG)\n\n" +
			"## § 2 Entgeltzahlung an Feiertagen\n\n(1) Für die Arbeitszeit, die infolge eines gesetzlichen Feiertages ausfällt, hat der Arbeitgeber dem Arbeitnehmer das Arbeitsentgelt zu zahlen, das er ohne den Arbeitsausfall erhalten hätte.\n\n" +
			"## § 3 Anspruch auf Entgeltfortzahlung im Krankheitsfall\n\n(1) Wird ein Arbeitnehmer durch Arbeitsunfähigkeit infolge Krankheit an seiner Arbeitsleistung verhindert, ohne daß ihn ein Verschulden trifft, so hat er Anspruch auf Entgeltfortzahlung im Krankheitsfall durch den Arbeitgeber für die Zeit der Arbeitsunfähigkeit bis zur Dauer von sechs Wochen.\n",
		"s/svg/index.md": "# Soldatenversorgungsgesetz (SVG)\n\n" +
			"## § 83a Erstattung des fortgezahlten Arbeitsentgelts an den Arbeitgeber\n\n(1) Ist ein Arbeitnehmer ab dem Tag nach der Beendigung eines Wehrdienstverhältnisses arbeitsunfähig, werden dem Arbeitgeber, der auf Grund eines bereits vor dem Beginn des Wehrdienstverhältnisses bestehenden Arbeitsverhältnisses zur Fortzahlung des Arbeitsentgelts im Krankheitsfall verpflichtet ist, das fortgezahlte Arbeitsentgelt und die darauf entfallenden Beiträge zur Sozialversicherung erstattet.\n",
		"b/bbhv/index.md": "# Bundesbeihilfeverordnung (BBhV)\n\n" +
			"## § 1 Regelungsbereich\n\nDiese Verordnung regelt die Gewährung von Beihilfe in Fällen von Krankheit und Pflege.\n\n" +
			"## § 45a Organspende und andere Spenden\n\n(2) Dem Arbeitgeber der Spenderin oder des Spenders wird auf Antrag das fortgezahlte Entgelt anteilig in Höhe des Bemessungssatzes der Empfängerin oder des Empfängers erstattet.\n",
	})
	ix := openIndex(t, v, Options{})

	pq, err := parseQuery("fortgezahlt")
	if err != nil {
		t.Fatal(err)
	}
	if w := pq.must[0].words[0]; w.Noun != "fortzahlung" {
		t.Errorf("fortgezahlt: noun %q, want fortzahlung", w.Noun)
	}

	// Among the first three sections, as in the search-quality questions
	// (gesetze-questions.txt); BBhV § 45a has "fortgezahlte Entgelt" as
	// typed, and may come first.
	r := mustSearch(t, ix, Query{Text: "Wie lange wird das Entgelt bei Krankheit fortgezahlt?"})
	found := false
	for i, s := range flatSections(r) {
		if i < 3 && s.path == "e/entgfg/index.md" && strings.HasSuffix(s.heading, "§ 3 Anspruch auf Entgeltfortzahlung im Krankheitsfall") {
			found = true
		}
	}
	if !found {
		t.Errorf("want EntgFG § 3 among the first three sections\n%s", describe(r))
	}

	// A phrase in quotes and an excluded word are the words as typed.
	r = mustSearch(t, ix, Query{Text: `"Entgelt fortgezahlt"`})
	for _, h := range r.Hits {
		if h.Path == "e/entgfg/index.md" {
			t.Errorf(`"Entgelt fortgezahlt" in quotes found the EntgFG, which never says it\n%s`, describe(r))
		}
	}
	r = mustSearch(t, ix, Query{Text: "Krankheit -fortgezahlt"})
	if len(r.Hits) != 1 || r.Hits[0].Path != "e/entgfg/index.md" {
		t.Errorf("Krankheit -fortgezahlt: want the EntgFG only\n%s", describe(r))
	}
}
