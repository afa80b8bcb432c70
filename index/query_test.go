package index

import (
	"strings"
	"testing"
)

// TestParseQuery_QuestionSyntax: a question typed as it is asked searches
// its subject; the words that make it a question (the question word, a
// degree word right after it, "dauert" after "wie lange", "gibt" beside
// "es", "ab" or "seit" before one, the modal verbs) are left out and reported without their
// punctuation, and the same words elsewhere are searched.
func TestParseQuery_QuestionSyntax(t *testing.T) {
	for _, c := range []struct{ q, words, ignored string }{
		{"Wie lange dauert die Amtszeit des Betriebsrats?", "Amtszeit Betriebsrats?", "Wie lange dauert die des"},
		{"Wie viele Stunden darf ein Arbeitnehmer täglich arbeiten?", "Stunden Arbeitnehmer täglich arbeiten?", "Wie viele darf ein"},
		{"Darf eine Schwangere nachts arbeiten?", "Schwangere nachts arbeiten?", "Darf eine"},
		{"Wie hoch ist das Budget?", "Budget?", "Wie hoch ist das"},
		{"How long does the warranty last?", "warranty", "How long does the last"},
		{"Welche Kündigungsfristen gibt es?", "Kündigungsfristen", "Welche gibt es"},
		{"Gibt es eine Probezeit?", "Probezeit?", "Gibt es eine"},
		{"Probezeit gibt Auskunft", "Probezeit gibt Auskunft", ""},
		{"Wie lange wird die Frist dauern?", "Frist", "Wie lange wird die dauern"},
		{"how many days of leave", "days leave", "how many of"},
		{"minutes from May", "minutes May", "from"},
		{"Ab wann ist man volljährig?", "volljährig?", "Ab wann ist man"},
		{"Seit welchem Jahr gilt die Regel?", "Jahr gilt Regel?", "Seit welchem die"},
		{"since when is the API deprecated", "API deprecated", "since when is the"},
		// Not after a question word: words like any other.
		{"lange Nacht der Museen", "lange Nacht Museen", "der"},
		{"Dauer der Amtszeit", "Dauer Amtszeit", "der"},
		{"hoch wie ein Haus", "hoch Haus", "wie ein"},
		{"Arbeitszeit dauert", "Arbeitszeit dauert", ""},
		{"ab Montag geschlossen", "ab Montag geschlossen", ""},
		{"seit 2020 im Amt", "seit 2020 Amt", "im"},
		// Excluded words stay excluded.
		{"Wie -lange Amtszeit", "Amtszeit", "Wie"},
	} {
		pq, err := parseQuery(c.q)
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		var words []string
		for _, m := range pq.must {
			words = append(words, m.raw)
		}
		if got := strings.Join(words, " "); got != c.words {
			t.Errorf("%q: searched %q, want %q", c.q, got, c.words)
		}
		if got := strings.Join(pq.ignored, " "); got != c.ignored {
			t.Errorf("%q: left out %q, want %q", c.q, got, c.ignored)
		}
	}
}
