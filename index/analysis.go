package index

import (
	"slices"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/registry"
)

// The text analysis, one analyzer for German and English at once.
//
// Every text field (title, aliases, headings, body) goes through one chain:
//
//	unicode words (tokenize.go) → lower case → drop German and English stop words →
//	fold umlauts and ß (normalize_de: Häuser→hauser, Straße→strasse) →
//	German light stemmer (hauser→haus, projekte→projekt, tabellen→tabell) →
//	Porter stemmer (linking→link, tabell→tabel, haus→hau)
//
// Both stemmers run on every word, so a note needs no language tag and a
// query needs no language guess: query words go through the same chain.
// Double stemming conflates a little more than either stemmer alone, which
// is acceptable for notes.
//
// Compounds (Krankenhäuser ⊃ häuser, Projektplan ⊃ plan). German puts the
// head of a compound last, so a word part is found by its suffix: for every
// word of at least minPartWord letters the analyzer also emits, at the same
// position, a "part token": partMark + the reversed German stem
// (krankenhäuser → krankenhaus → "~suahneknark"). A query word's part query
// is then a prefix query on those tokens ("~suah" for häuser), which the term
// dictionary answers as a range scan instead of a scan of every term, and
// costs one extra token per long word instead of the dozens of an n-gram
// field. The modifier end (Projekt → Projektplan) is a prefix query on the
// ordinary terms. Both kinds of part match get a small boost so that they
// rank below whole-word and stem matches (see search.go).
const (
	analyzerText    = "vaultd_text"
	analyzerKeyword = "vaultd_keyword"

	partMark = "~" // never produced by the unicode tokenizer

	// minPartWord is the shortest German stem (in letters) that gets a part
	// token: a compound has at least two parts of ≥ 3 letters.
	minPartWord = 6
	// minPartQuery is the shortest query stem that is searched as a word
	// part; shorter ones ("an", "bus") would match far too many words.
	minPartQuery = 4
)

func init() {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(registry.RegisterAnalyzer(analyzerText, func(map[string]any, *registry.Cache) (analysis.Analyzer, error) {
		return newTextAnalyzer(), nil
	}))
	must(registry.RegisterAnalyzer(analyzerKeyword, func(map[string]any, *registry.Cache) (analysis.Analyzer, error) {
		return keywordAnalyzer{}, nil
	}))
}

// textAnalyzer implements the chain described above.
type textAnalyzer struct {
	tok   analysis.Tokenizer
	lower analysis.TokenFilter
	norm  analysis.TokenFilter
	light analysis.TokenFilter
	stop  analysis.TokenMap
}

// homographs are stop words that are also nouns worth finding: Würde
// (dignity) beside würde (would), Weg (way) beside weg (away), IT beside
// it. They are indexed like any word (in the 166 MB of laws: 2,175
// "würde", 879 "weg"); a query counts them for ranking only when it has
// other words ("Würde des Menschen" finds the notes on Menschen, those with
// Würde first) and searches them when they are its only words ("Würde").
var homographs = map[string]bool{"würde": true, "weg": true, "it": true}

// questionWords are the question words the stop lists lack (they have
// wie, was, wo, welche, when, why, what …): a question typed as it is
// asked ("Wann ist der Launch geplant?") would otherwise need a note that
// says "wann". With them the contractions of a preposition and an article
// the German list lacks (it has zum, im, vom): "beim KVN" is about the
// KVN. They are indexed like any word, and left out of queries as stop
// words are.
var questionWords = map[string]bool{
	"beim": true, "ans": true, "aufs": true, "fürs": true, "übers": true, "durchs": true, "ums": true,
	"wann": true, "warum": true, "wieso": true, "weshalb": true, "weswegen": true,
	"wer": true, "wem": true, "wen": true, "wessen": true, "inwiefern": true,
	"woher": true, "wohin": true, "wofür": true, "womit": true, "wozu": true, "wodurch": true,
	"worüber": true, "worauf": true, "woran": true, "worin": true, "wovon": true, "wovor": true,
	"whose": true,
	// The modal verbs' forms the lists lack (they have kann, muss, soll,
	// will): "Darf eine Schwangere nachts arbeiten?" asks about
	// Schwangere and Nachtarbeit, whatever verb the answer uses.
	"darf": true, "darfst": true, "dürfen": true, "dürft": true, "dürfte": true, "dürften": true,
	"musst": true, "müssen": true, "müsst": true, "müsste": true, "müssten": true,
	"sollen": true, "sollst": true, "sollt": true, "sollten": true,
	"kannst": true, "könnt": true, "könnten": true, "möchte": true, "möchten": true,
	// Not "may": it is a month too.
	"must": true, "might": true, "shall": true,
}

// degreeWords make a question of "wie" and "how" before them: "Wie
// lange", "Wie viele", "How often" ask for a figure that the answer
// gives in other words ("vier Jahre", "acht Stunden"), so a query leaves
// them out, as it does the question word. Only right after it: "lange"
// on its own is a word like any other. durationVerbs are left out after
// "wie lange" and "how long" for the same reason ("Wie lange dauert die
// Amtszeit?" is answered by "Die Amtszeit beträgt vier Jahre"), wherever
// the question puts them.
var (
	degreeWords = map[string]bool{
		"lange": true, "lang": true, "viele": true, "vielen": true, "oft": true, "häufig": true,
		"hoch": true, "weit": true, "alt": true, "groß": true, "gross": true, "schnell": true,
		"spät": true, "früh": true, "teuer": true, "schwer": true,
		"long": true, "many": true, "much": true, "often": true, "far": true, "high": true,
		"old": true, "big": true, "large": true, "late": true, "soon": true, "fast": true,
	}
	durationVerbs = map[string]bool{
		"dauert": true, "dauern": true, "dauerte": true, "währt": true,
		"take": true, "takes": true, "last": true, "lasts": true,
	}
)

// timePreps before a question word ask for a time, as the question word
// does: "Ab wann ist man volljährig?", "Seit wann gilt die Regel?",
// "Since when …". The prepositions the stop lists have (bis, von, until)
// are left out anyway.
var (
	timePreps      = map[string]bool{"ab": true, "seit": true, "since": true, "till": true}
	askingForWords = map[string]bool{
		"wann": true, "welche": true, "welcher": true, "welchem": true, "welchen": true, "welches": true,
		"when": true, "which": true, "what": true,
	}
)

// existVerbs say that something exists with "es" beside them: "Gibt es
// eine Probezeit?", "welche Fristen es gibt" ask for the Probezeit and the
// Fristen.
var existVerbs = map[string]bool{"gibt": true, "gab": true, "gäbe": true}

// questionSyntax reports whether the query word w (lower-cased) is part
// of a question's syntax beside the words before it, last (lower-cased,
// the nearest last), and the word after it, next: see degreeWords,
// timePreps and existVerbs.
func questionSyntax(w string, last []string, next string) bool {
	n := len(last)
	at := func(i int, words ...string) bool { // last[i] is one of words
		return i >= 0 && slices.Contains(words, last[i])
	}
	switch {
	case w == "gibts":
		return true
	case existVerbs[w]:
		return next == "es" || at(n-1, "es")
	case degreeWords[w]:
		return at(n-1, "wie", "how")
	case timePreps[w]:
		return askingForWords[next]
	case durationVerbs[w]:
		// Anywhere after "wie lange": "Wie lange wird die Frist dauern?",
		// "How long does the warranty last?".
		for i := 1; i < n; i++ {
			if at(i-1, "wie", "how") && at(i, "lange", "lang", "long") {
				return true
			}
		}
	}
	return false
}

var stopWords = func() analysis.TokenMap {
	m := analysis.NewTokenMap()
	if err := m.LoadBytes(de.GermanStopWords); err != nil {
		panic(err)
	}
	if err := m.LoadBytes(en.EnglishStopWords); err != nil {
		panic(err)
	}
	return m
}()

func newTextAnalyzer() *textAnalyzer {
	return &textAnalyzer{
		tok:   wordTokenizer{},
		lower: lowercase.NewLowerCaseFilter(),
		norm:  de.NewGermanNormalizeFilter(),
		light: de.NewGermanLightStemmerFilter(),
		stop:  stopWords,
	}
}

// Analyze returns the index tokens of input: the stems, the part tokens and
// the date tokens.
//
// What a lower-cased word becomes (folded, stemmed twice, its part token)
// depends on the word alone, and the words of a text repeat: the result is
// remembered per word (stems), which halves the analyzer's share of a
// build.
func (a *textAnalyzer) Analyze(input []byte) analysis.TokenStream {
	ts := a.tok.Tokenize(input)
	ts = a.lower.Filter(ts)
	ts = dates(input, ts)
	out := make(analysis.TokenStream, 0, len(ts)+len(ts)/2)
	for _, t := range ts {
		if isDateToken(t) {
			out = append(out, t)
			continue
		}
		st, ok := stems.get(t.Term)
		if !ok {
			st = a.stem(t.Term)
			stems.put(t.Term, st)
		}
		if st.stop {
			continue
		}
		if st.part != nil {
			out = append(out, &analysis.Token{Term: st.part, Start: t.Start, End: t.End, Position: t.Position, Type: t.Type})
		}
		t.Term = st.term
		out = append(out, t)
	}
	return out
}

// stemmed is what one lower-cased word becomes in the index. Its slices
// are shared by every token of the word and never changed.
type stemmed struct {
	stop bool   // a stop word (not a homograph): no token
	term []byte // folded, German light stem, Porter stem
	part []byte // partMark + reversed German stem; nil if none
}

// stem runs the chain after lower-casing on one word.
func (a *textAnalyzer) stem(lower []byte) stemmed {
	if _, stop := a.stop[string(lower)]; stop && !homographs[string(lower)] {
		return stemmed{stop: true}
	}
	one := analysis.TokenStream{{Term: slices.Clone(lower)}}
	a.light.Filter(a.norm.Filter(one))
	st := stemmed{part: partToken(one[0].Term)}
	st.term = slices.Clip(porterStem(one[0].Term))
	return st
}

// stemCache remembers stemmed per word, for every analysis (index and
// queries alike). When full it keeps what it has: the words met first
// are mostly the frequent ones, and a start over would stem them again.
// Full, it no longer changes, and is read without the lock (two
// analyzing goroutines taking the read lock for every token of a build
// cost more than the lookups).
type stemCache struct {
	mu   sync.RWMutex
	m    map[string]stemmed
	full atomic.Bool // set once m has maxStems words, after the last write
}

// maxStems bounds the remembered words (about 5 MB). A larger cache is
// slower: the laws have more words than it holds, so it fills either way,
// and the collector scans every entry in each cycle of a build. Builds of
// the laws in-process, interleaved: 2^16 words 49.9–52.0 s of CPU, 2^17
// 53.2–54.1 s (three runs each); 2^18 5 s more than 2^17 (two each).
const maxStems = 1 << 16

var stems = stemCache{m: make(map[string]stemmed)}

func (c *stemCache) get(w []byte) (stemmed, bool) {
	if c.full.Load() {
		st, ok := c.m[string(w)]
		return st, ok
	}
	c.mu.RLock()
	st, ok := c.m[string(w)]
	c.mu.RUnlock()
	return st, ok
}

func (c *stemCache) put(w []byte, st stemmed) {
	c.mu.Lock()
	if len(c.m) < maxStems {
		c.m[string(w)] = st
		if len(c.m) == maxStems {
			c.full.Store(true)
		}
	}
	c.mu.Unlock()
}

var porterFilter = porter.NewPorterStemmer()

func porterStem(term []byte) []byte {
	one := analysis.TokenStream{{Term: term}}
	return porterFilter.Filter(one)[0].Term
}

// partToken returns partMark + the reversed stem, or nil when the stem is too
// short or is not all letters (numbers, "mp3").
func partToken(stem []byte) []byte {
	n := 0
	for _, r := range string(stem) {
		if !unicode.IsLetter(r) {
			return nil
		}
		n++
	}
	if n < minPartWord {
		return nil
	}
	return append([]byte(partMark), reverseRunes(stem)...)
}

func reverseRunes(b []byte) []byte {
	out := make([]byte, len(b))
	i := len(out)
	for len(b) > 0 {
		_, size := utf8.DecodeRune(b)
		i -= size
		copy(out[i:], b[:size])
		b = b[size:]
	}
	return out
}

// qword is one analyzed query word.
type qword struct {
	Term   string // full analysis (as indexed): "hau" for Häuser
	Stem   string // German stem before Porter: "haus"
	Folded string // lower-cased and folded, unstemmed: "hauser"
	Pos    int    // position in its phrase (stop words leave gaps)
	// Optional is set for a homograph (see homographs): it counts for
	// ranking, and must occur only when the query has no other words.
	Optional bool
	// Alt are further index terms that count as the word itself (a date's
	// other spellings, see dates.go).
	Alt []string
	// Noun is the index term of the noun a verb form stands for
	// (fortgezahlt: Fortzahlung, see nominal), NounStem its German stem;
	// "" if none.
	Noun, NounStem string
}

// terms returns Term, Alt and Noun: the terms that are the word.
func (w qword) terms() []string {
	ts := w.exact()
	if w.Noun != "" {
		ts = append(ts, w.Noun)
	}
	return ts
}

// exact returns Term and Alt: the word as typed, without its noun.
func (w qword) exact() []string {
	return append([]string{w.Term}, w.Alt...)
}

// nounBoost is how much a verb form's noun counts against the word itself
// (see nominal): as much as a compound holding the word. A text that names
// the act with the noun is about it, but one with the verb as asked is
// nearer the question; at the word's own weight the noun in a heading
// ("§ 1751 … Verpflichtung zum Unterhalt") put the section that answers
// "Wer ist zum Unterhalt verpflichtet?" (§ 1601 Unterhaltsverpflichtete)
// further down.
const nounBoost = partBoost

// partStems returns the German stems whose compounds count as the word's
// (partOK words): its own and its noun's.
func (w qword) partStems() []string {
	if w.NounStem != "" {
		return []string{w.Stem, w.NounStem}
	}
	return []string{w.Stem}
}

// Letters reports whether the stem is all letters.
func (w qword) letters() bool {
	for _, r := range w.Stem {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// partOK reports whether the word is searched as a word part.
func (w qword) partOK() bool {
	return utf8.RuneCountInString(w.Stem) >= minPartQuery && w.letters()
}

var queryAnalyzer = newTextAnalyzer()

// analyzeQuery analyzes query text the way the index analyzes fields. Stop
// words are dropped (their positions are kept as gaps).
func analyzeQuery(s string) []qword {
	a := queryAnalyzer
	ts := a.tok.Tokenize([]byte(s))
	ts = a.lower.Filter(ts)
	ts = dates([]byte(s), ts)
	var out []qword
	for _, t := range ts {
		switch t.Type {
		case tokDate:
			d := string(t.Term)
			w := qword{Term: d, Stem: d, Folded: d, Pos: t.Position}
			if len(d) == len("2026-11-16") {
				w.Alt = []string{yearless + d[5:]} // the same day written without a year
			}
			out = append(out, w)
			continue
		case tokDateExtra:
			continue // indexed for other spellings; the query needs only its own
		}
		_, stop := a.stop[string(t.Term)]
		homograph := homographs[string(t.Term)]
		if (stop && !homograph) || questionWords[string(t.Term)] {
			continue
		}
		one := analysis.TokenStream{{Term: append([]byte(nil), t.Term...)}}
		one = a.norm.Filter(one)
		folded := string(one[0].Term)
		one = a.light.Filter(one)
		stem := string(one[0].Term)
		w := qword{Term: string(porterStem([]byte(stem))), Stem: stem, Folded: folded, Pos: t.Position, Optional: homograph}
		if n := nominal(string(t.Term)); n != "" {
			nw := analysis.TokenStream{{Term: []byte(n)}}
			nw = a.light.Filter(a.norm.Filter(nw))
			nstem := string(nw[0].Term)
			if term := string(porterStem([]byte(nstem))); term != w.Term {
				w.Noun, w.NounStem = term, nstem
			}
		}
		out = append(out, w)
	}
	return out
}

// keywordAnalyzer indexes the whole value as one lower-cased token (tags,
// spaces, folders: matched exactly but case-insensitively, as Obsidian does).
type keywordAnalyzer struct{}

func (keywordAnalyzer) Analyze(input []byte) analysis.TokenStream {
	return analysis.TokenStream{{Term: []byte(foldKey(string(input))), Start: 0, End: len(input), Position: 1, Type: analysis.AlphaNumeric}}
}
