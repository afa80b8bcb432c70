package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A question asks with a verb where a text names the act with a noun:
// "Wie lange wird das Entgelt fortgezahlt?" is answered by "§ 3 Anspruch
// auf Entgeltfortzahlung", "Wann verjährt der Anspruch?" by "Verjährung",
// "Ist die Wohnung vermietet?" by "Vermietung". German derives that noun
// from the verb's stem with -ung, so a query word that is a verb's
// participle (or its third person, which is written alike for most verbs
// with a prefix) also stands for that noun: nominal returns it. The noun
// counts as the word itself, and its compounds as the word's compounds
// ("Entgeltfortzahlung" ends in "fortzahlung").
//
// Only forms that are plainly verbs are derived:
//
//	[separable prefix] ge STEM (e)t     fortgezahlt → Fortzahlung, gemeldet → Meldung
//	inseparable prefix STEM (e)t        verjährt → Verjährung, erstattet → Erstattung
//	STEM iert                           registriert → Registrierung
//
// with a STEM of at least three letters. A strong verb's participle
// (entlassen) or an infinitive (kündigen) needs no noun: its stem already
// starts the noun, which the word's longer forms match. A word that looks
// like a participle and is not one (Gehalt → "Halung", Bericht →
// "Berichung") derives a noun no note has, which matches nothing.

// separablePrefixes come before "ge" in a participle (fortgezahlt,
// angemeldet, zurückgezahlt).
var separablePrefixes = []string{
	"ab", "an", "auf", "aus", "bei", "ein", "fest", "fort", "frei", "her", "hin", "los",
	"mit", "nach", "vor", "weg", "weiter", "zu", "zurück", "zusammen", "dar", "um",
	"wieder", "gegen", "teil", "statt", "voraus",
}

// inseparablePrefixes make a participle without "ge" (beantragt,
// verlängert, erstattet).
var inseparablePrefixes = []string{"be", "emp", "ent", "er", "miss", "ver", "zer"}

// minVerbStem is the shortest verb stem (in letters) a noun is derived
// from: shorter ones are mostly not verbs ("Gebet", "Verbot").
const minVerbStem = 3

// nominal returns the -ung noun of a lower-cased German verb form, or ""
// when w is not one (see above).
func nominal(w string) string {
	if utf8.RuneCountInString(w) < 6 || strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) {
		return ""
	}
	if stem, ok := strings.CutSuffix(w, "iert"); ok {
		if utf8.RuneCountInString(stem) >= minVerbStem {
			return stem + "ierung"
		}
		return ""
	}
	stem := verbStem(w)
	if stem == "" {
		return ""
	}
	for _, p := range separablePrefixes {
		if rest, ok := strings.CutPrefix(stem, p+"ge"); ok && utf8.RuneCountInString(rest) >= minVerbStem {
			return p + rest + "ung"
		}
	}
	if rest, ok := strings.CutPrefix(stem, "ge"); ok && utf8.RuneCountInString(rest) >= minVerbStem {
		return rest + "ung"
	}
	for _, p := range inseparablePrefixes {
		if rest, ok := strings.CutPrefix(stem, p); ok && utf8.RuneCountInString(rest) >= minVerbStem {
			return stem + "ung"
		}
	}
	return ""
}

// verbStem cuts a weak participle's ending: -et after t, d or a consonant
// before n or m (gemeldet, erstattet, geöffnet, gerechnet), else -t
// (gezahlt, geändert). "" if w does not end in t.
func verbStem(w string) string {
	r := []rune(w)
	n := len(r)
	if r[n-1] != 't' {
		return ""
	}
	if n >= 4 && r[n-2] == 'e' {
		before := r[n-3]
		if before == 't' || before == 'd' || ((before == 'n' || before == 'm') && !vowel(r[n-4])) {
			return string(r[:n-2])
		}
	}
	return string(r[:n-1])
}

func vowel(r rune) bool { return strings.ContainsRune("aeiouäöüy", r) }
