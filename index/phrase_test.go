package index

import (
	"context"
	"reflect"
	"testing"
)

// TestPhraseSections counts, by section, where the query's words stand
// as a phrase: in a section's text and in its heading, in order and next
// to each other, a stop word of the query standing for any word; the
// words apart, reversed or split over two sections count for nothing.
func TestPhraseSections(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"Gesetz.md": "Vorweg: Urlaub der Arbeitnehmer.\n\n" + // section 0: apart
			"## Erster Teil\n\nDer Arbeitnehmer Urlaub ist geregelt. Arbeitnehmer Urlaub zweimal.\n\n" + // 1: twice
			"## Arbeitnehmer Urlaub im Heading\n\nText ohne die Wörter.\n\n" + // 2: in the heading (and in the text, which holds the heading line)
			"## Dritter Teil\n\nJeder Arbeitnehmer\n\n## Urlaub\n\nsteht woanders.\n\n" + // 3, 4: split over two sections
			"## Würde\n\nDie Würde des Menschen und die Würde eines Menschen, aber Menschen Würde nicht.\n", // 5
	})
	ix := openIndex(t, v, Options{})
	count := func(text string) map[int]int {
		t.Helper()
		pq, err := buildQuery(Query{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		ix.decompound(pq, false)
		ix.boundParts(pq)
		ids := []string{"Gesetz.md"}
		byID, err := ix.noteFields(context.Background(), ids)
		if err != nil || byID["Gesetz.md"] == nil {
			t.Fatalf("noteFields: %v", err)
		}
		d := byID["Gesetz.md"]
		got, err := ix.phraseSections(context.Background(), pq, ids, []meta{metaOf(fieldString(d, fVersion), fieldString(d, fMeta))})
		if err != nil {
			t.Fatal(err)
		}
		return got["Gesetz.md"]
	}
	if got, want := count("Arbeitnehmer Urlaub"), map[int]int{1: 2, 2: 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("Arbeitnehmer Urlaub: phrases by section %v, want %v", got, want)
	}
	if got, want := count("Würde des Menschen"), map[int]int{5: 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("Würde des Menschen: phrases by section %v, want %v", got, want)
	}
	if got := count("Urlaub Arbeitnehmer"); len(got) != 0 {
		t.Errorf("Urlaub Arbeitnehmer (reversed everywhere): %v, want none", got)
	}
}
