package index

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrBadQuery is the kind of every error about the query text itself. The
// error's text is written for the person or agent who typed the query and is
// meant to be shown verbatim: it says what is wrong in plain words and shows
// valid syntax.
var ErrBadQuery = errors.New("bad search query")

// QueryError is returned (wrapped as *QueryError, matching ErrBadQuery) when
// the query text cannot be understood.
type QueryError struct {
	Query string // the query as given
	Msg   string // what is wrong, one sentence
}

// querySyntax is appended to every query error.
const querySyntax = `Write words (all must occur), "an exact phrase" in double quotes, -word to exclude, ` +
	`proj* for words starting with "proj", and optionally tag:name, space:name, folder:path ` +
	`or property=value (a frontmatter property). ` +
	`Example: Projektplan "offene Fragen" -Archiv tag:projekt status=aktiv`

func (e *QueryError) Error() string {
	return fmt.Sprintf("cannot search for %q: %s. %s", e.Query, e.Msg, querySyntax)
}

func (e *QueryError) Unwrap() error { return ErrBadQuery }

type clauseKind int

const (
	kindWord clauseKind = iota
	kindPhrase
	kindPrefix
)

// clause is one positive or negative part of a parsed query.
type clause struct {
	kind  clauseKind
	raw   string  // as typed, without quotes, '-' and '*'
	words []qword // analyzed (for kindPrefix: the full analysis of raw)
	// parts of a compound no note has (kindWord; set by Index.decompound)
	parts []string
	// optional: a homograph or a command's option among other words: it
	// ranks, but need not occur
	optional bool
	// option: typed as a command's option ("-r", "--all"; isFlag)
	option bool
	// tag: a #tag no note has, searched as a word (hashTagsAsWords)
	tag bool
	// wholeOnly: the word is searched without its compounds and longer
	// forms (kindWord; set by Index.boundParts)
	wholeOnly bool
}

// parsedQuery is the user's query after parsing; building the bleve query
// from it cannot fail on syntax.
type parsedQuery struct {
	must    []clause
	not     []clause
	tags    []string
	spaces  []string
	folders []string
	props   []propFilter // key=value: only notes with the property value
	noProps []propFilter // -key=value: not notes with it
	paths   []string     // only these notes (Query.Path)
	// notFolders: not the notes in these folders (Query.NotFolders)
	notFolders []string
	// notPaths: not the notes whose path matches (Query.NotPaths)
	notPaths []string
	any      bool     // OR between the words
	ignored  []string // words dropped as too common (stop words) or as a question's syntax
	relaxed  bool     // searched with any of the words, as no note had all
	// wholeOnly: words searched without their compounds (boundParts), as typed
	wholeOnly []string
	// seq is the query's words in the order typed, positioned with gaps
	// for stop words, when the query is plain words only (else nil).
	seq []qword
	// typed are the filters written in the query's text, as written.
	typed []QueryFilter
	// tagsAsWords are the #tags of the text that no note has, searched
	// as words instead (tagsAsWords).
	tagsAsWords []string
}

// A QueryFilter is a filter written in a query's text: its kind ("tag",
// "space" or "folder"), its value and the text that wrote it ("#kunde",
// "space:1_Projekte", `folder:"Erste Schritte"`).
type QueryFilter struct {
	Kind, Value, Raw string
}

// TypedFilters returns the tag, space and folder filters written in the
// query text q (nil when it does not parse).
func TypedFilters(q string) []QueryFilter {
	pq, err := parseQuery(q)
	if err != nil {
		return nil
	}
	return pq.typed
}

func (p *parsedQuery) empty() bool { return len(p.must) == 0 }

// filtered reports whether the query has a positive filter (tag, space,
// folder, property, note).
func (p *parsedQuery) filtered() bool {
	return len(p.tags)+len(p.spaces)+len(p.folders)+len(p.props)+len(p.paths) > 0
}

// hasDate reports whether a positive clause holds a date.
func (p *parsedQuery) hasDate() bool {
	for _, c := range p.must {
		for _, w := range c.words {
			if len(w.Alt) > 0 || strings.ContainsRune(w.Term, '-') {
				return true
			}
		}
	}
	return false
}

// anyOf reports whether any word suffices (OR, or relaxed).
func (p *parsedQuery) anyOf() bool { return p.any || p.relaxed }

// required returns the clauses a note must match (all, unless anyOf).
func (p *parsedQuery) required() []clause {
	var out []clause
	for _, c := range p.must {
		if !c.optional {
			out = append(out, c)
		}
	}
	return out
}

// optionalWords returns the optional words (homographs) as typed.
func (p *parsedQuery) optionalWords() []string {
	var out []string
	for _, c := range p.must {
		if c.optional && !c.option && !c.tag {
			out = append(out, c.raw)
		}
	}
	return out
}

// onlyOptions reports whether the words a note must have are all
// commands' options (the query's other words left out as too common).
func (p *parsedQuery) onlyOptions() bool {
	req := p.required()
	return len(req) > 0 && !slices.ContainsFunc(req, func(c clause) bool { return !c.option })
}

// options returns the commands' options as typed ("-r", "--all"); with
// rankingOnly, those that count for ranking only (not the query's only
// words).
func (p *parsedQuery) options(rankingOnly bool) []string {
	var out []string
	for _, c := range p.must {
		if c.option && (c.optional || !rankingOnly) {
			out = append(out, "-"+c.raw)
		}
	}
	return out
}

// phraseWords returns the words as a phrase (for the ranking boost), nil
// unless the query is two or more plain words.
func (p *parsedQuery) phraseWords() []qword {
	if len(p.seq) < 2 {
		return nil
	}
	return p.seq
}

// needsMembership reports whether a section that matches one of the words
// may belong to a note that does not match the query: always but for a
// single word without filters or exclusions.
func (p *parsedQuery) needsMembership() bool {
	return len(p.must) != 1 || p.must[0].kind != kindWord || p.filtered() || len(p.not)+len(p.noProps)+len(p.notFolders)+len(p.notPaths) > 0 || p.relaxed
}

// parseQuery parses the query language:
//
//	word         a word; inflections and (for words of ≥ 4 letters) compounds match too,
//	             and for a German verb form its noun (fortgezahlt: Fortzahlung)
//	"a phrase"   the words in this order; no word parts, no nouns
//	-word        exclude notes with the word; -"a phrase" likewise
//	-r, --all    a command's option (one or two letters or digits, or a
//	             second dash; isFlag): ranks, but need not occur; so does
//	             a "-" before what is no word (-webkit-, -y/-Y; excludable)
//	proj*        words starting with proj (at least 2 letters before *)
//	#tag, tag:x  only notes with the tag (or a tag below it: x/y)
//	space:x      only notes in the space (top-level folder) x
//	folder:x/y   only notes in folder x/y or below it
//	key=value    only notes whose frontmatter property key has the value
//	             (or, for a list, contains it): status=aktiv; case-insensitive,
//	             exact otherwise; -key=value excludes such notes
//	OR           between words: any word suffices (default: all)
//
// Filter values may be quoted: folder:"Erste Schritte", status="in Arbeit".
// Dates in words are matched in every spelling: 16.11. finds 2026-11-16 and
// 16.11.2026 (see dates.go).
// isFlag reports whether tok, after a "-", reads as a command's option
// rather than a word to exclude: one or two letters or digits ("l", "rf",
// "9"), or a second dash ("-all" of "--all"); punctuation after it is the
// sentence's ("ls -l, then sort").
func isFlag(tok string) bool {
	if strings.HasPrefix(tok, "-") {
		return len(tok) > 1
	}
	tok = strings.TrimRightFunc(tok, unicode.IsPunct)
	n := 0
	for _, r := range tok {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
		n++
	}
	return n > 0 && n <= 2
}

// excludable reports whether tok, after a "-", is something to exclude: a
// filter or property (-status=done), or a word — letters and digits, with
// "-", "'", "." or "_" inside it, "*" at its end (-proj*), and the
// sentence's punctuation after it. Anything else ("webkit-", "y/-Y",
// "1=true,") is text from a title or a command's usage, not an exclusion.
func excludable(tok string) bool {
	if _, _, ok := filterToken(tok); ok {
		return true
	}
	if _, _, ok := propToken(tok); ok {
		return true
	}
	tok = strings.TrimRight(tok, ".,;:!?)")
	tok = strings.TrimSuffix(tok, "*")
	last := ' '
	for i, r := range tok {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
		case i > 0 && strings.ContainsRune("-'’._", r):
		default:
			return false
		}
		last = r
	}
	return unicode.IsLetter(last) || unicode.IsDigit(last)
}

func parseQuery(q string) (*parsedQuery, error) {
	p := &parsedQuery{}
	bad := func(format string, a ...any) error {
		return &QueryError{Query: q, Msg: fmt.Sprintf(format, a...)}
	}
	plain, pos := true, 0 // see parsedQuery.seq
	var last []string     // the bare words so far, lower-cased (questionSyntax)
	s := q
	for {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			break
		}
		at := s // the token's text starts here (typed)
		neg := false
		if s[0] == '-' {
			plain = false
			neg = true
			s = s[1:]
			if s == "" || startsWithSpace(s) {
				continue // a lone "-" is punctuation, not an operator
			}
		}
		if s[0] == '"' || strings.HasPrefix(s, "“") || strings.HasPrefix(s, "„") {
			plain = false
			_, size := utf8.DecodeRuneInString(s)
			s = s[size:]
			end := strings.IndexAny(s, "\"“”")
			if end < 0 {
				return nil, bad("a quote is not closed; add the closing \" after the phrase")
			}
			text := s[:end]
			_, size = utf8.DecodeRuneInString(s[end:])
			s = s[end+size:]
			if strings.TrimSpace(text) == "" {
				continue
			}
			if strings.Contains(text, "*") {
				return nil, bad("* does not work inside a phrase (%q); use it at the end of a single word", text)
			}
			c := clause{kind: kindPhrase, raw: text, words: withoutNouns(analyzeQuery(text))}
			if len(c.words) == 0 {
				p.ignored = append(p.ignored, text)
				continue
			}
			if neg {
				p.not = append(p.not, c)
			} else {
				p.must = append(p.must, c)
			}
			continue
		}
		// A bare token runs to the next space; filter values may be quoted.
		tok, rest := cutToken(s)
		s = rest
		option := false
		if neg && (isFlag(tok) || !excludable(tok)) {
			// A command's option in a question ("crontab -l", "ls
			// --all"), not a word to exclude: a note on the command
			// holds "-l", and excluding "l" dropped it. It ranks but
			// need not occur: the page on grep writes "-rI", not "-r",
			// and "grep -r" left it out of the first ten (tldr pages)
			// behind pages holding both words, ast-grep first.
			// So is a "-" before what is no word: "-webkit-", "-y/-Y",
			// "-1=true," in a pasted title or a command's usage.
			neg, option = false, true
		}
		if name, val, ok := filterToken(tok); ok && !option {
			plain = false
			if strings.HasPrefix(val, "\"") {
				v, r2, ok := cutQuoted(tok[strings.IndexByte(tok, ':')+1:] + s)
				if !ok {
					return nil, bad("a quote is not closed; add the closing \" after the phrase")
				}
				val, s = v, r2
			}
			val = strings.TrimSpace(val)
			if val == "" {
				return nil, bad("%s: needs a value, for example %s:projekt", name, name)
			}
			if neg {
				return nil, bad("-%s: cannot be excluded; filter on what you want instead", name)
			}
			switch name {
			case "tag":
				val = strings.TrimPrefix(val, "#")
				p.tags = append(p.tags, val)
			case "space":
				p.spaces = append(p.spaces, val)
			case "folder":
				p.folders = append(p.folders, val)
			}
			p.typed = append(p.typed, QueryFilter{Kind: name, Value: val, Raw: strings.TrimSpace(at[:len(at)-len(s)])})
			continue
		}
		if key, val, ok := propToken(strings.TrimPrefix(tok, "+")); ok && !option {
			if strings.HasPrefix(val, "\"") {
				v, r2, ok := cutQuoted(val + s)
				if !ok {
					return nil, bad("a quote is not closed; add the closing \" after the value")
				}
				val, s = v, r2
			}
			val = strings.TrimSpace(val)
			if val == "" {
				return nil, bad("%s= needs a value, for example %s=aktiv", key, key)
			}
			plain = false
			f := propFilter{key: key, value: val, typed: true}
			if neg {
				p.noProps = append(p.noProps, f)
			} else {
				p.props = append(p.props, f)
			}
			continue
		}
		if strings.HasPrefix(tok, "#") && len(tok) > 1 && !neg {
			plain = false
			p.tags = append(p.tags, tok[1:])
			p.typed = append(p.typed, QueryFilter{Kind: "tag", Value: tok[1:], Raw: tok})
			continue
		}
		if tok == "OR" || tok == "|" {
			plain = false
			p.any = true
			continue
		}
		if tok == "AND" || tok == "&" || tok == "+" {
			plain = false
			continue
		}
		tok = strings.TrimPrefix(tok, "+")
		if i := strings.IndexByte(tok, '*'); i >= 0 {
			if i != len(tok)-1 {
				return nil, bad("* works only at the end of a word, as in proj*; %q has it elsewhere", tok)
			}
			stem := tok[:i]
			words := analyzeQuery(stem)
			folded := ""
			if len(words) == 1 {
				folded = words[0].Folded
			}
			if len(words) > 1 {
				return nil, bad("* works on a single word; %q is several words", tok)
			}
			if utf8.RuneCountInString(folded) < 2 {
				if len(words) == 0 && strings.TrimSpace(stem) != "" && utf8.RuneCountInString(stem) >= 2 {
					// A stop word with *: search it unanalyzed ("die*" → dienst).
					folded = foldKey(stem)
				} else {
					return nil, bad("%q is too short for *; put at least 2 letters before it, as in pr*", tok)
				}
			}
			plain = false
			c := clause{kind: kindPrefix, raw: stem, words: []qword{{Term: termOf(words), Stem: folded, Folded: folded}}}
			if neg {
				p.not = append(p.not, c)
			} else {
				p.must = append(p.must, c)
			}
			continue
		}
		bare := trimPunct(tok)
		lower := strings.ToLower(bare)
		next, _ := cutToken(strings.TrimLeftFunc(s, unicode.IsSpace))
		next = strings.ToLower(trimPunct(next))
		syntax := !neg && questionSyntax(lower, last, next)
		last = append(last, lower)
		if syntax {
			p.ignored = append(p.ignored, bare)
			pos++
			continue
		}
		words := analyzeQuery(tok)
		if len(words) == 0 {
			if bare != "" {
				p.ignored = append(p.ignored, bare)
				pos++
			}
			continue
		}
		c := clause{kind: kindWord, raw: tok, words: words, optional: option || len(words) == 1 && words[0].Optional, option: option}
		if len(words) > 1 {
			c.kind = kindPhrase // "e-mail", "Hans-Peter": the parts in order
		}
		if plain && !neg {
			for _, w := range words {
				w.Pos = pos + w.Pos
				p.seq = append(p.seq, w)
			}
			pos += words[len(words)-1].Pos
		}
		if neg || c.kind == kindPhrase {
			c.words = withoutNouns(c.words) // exactly the words typed
		}
		if neg {
			p.not = append(p.not, c)
		} else {
			p.must = append(p.must, c)
		}
	}
	if !plain {
		p.seq = nil
	}
	p.must = uniqueClauses(p.must)
	if len(p.required()) == 0 {
		// Only homographs or options: they are the words searched for.
		for i := range p.must {
			p.must[i].optional = false
		}
	}
	if len(p.must) == 0 && len(p.not)+len(p.noProps) > 0 && !p.filtered() {
		// Only exclusions: every other note matches, which is rarely meant.
		return nil, bad("it only excludes words; add at least one word to search for")
	}
	return p, nil
}

// withoutNouns returns ws without the nouns of verb forms (nominal): a
// phrase in quotes or an excluded word is meant as typed.
func withoutNouns(ws []qword) []qword {
	for i := range ws {
		ws[i].Noun, ws[i].NounStem = "", ""
	}
	return ws
}

// uniqueClauses drops the clauses that repeat an earlier one's analyzed
// words ("public key from a private key", "key … keys"): each would count
// the same matches again, and a note titled "key" outranked the note that
// holds every word of the question.
func uniqueClauses(cs []clause) []clause {
	seen := make(map[string]bool, len(cs))
	return slices.DeleteFunc(cs, func(c clause) bool {
		var b strings.Builder
		b.WriteByte(byte(c.kind))
		if c.optional {
			b.WriteByte('?')
		}
		for _, w := range c.words {
			b.WriteByte(0)
			b.WriteString(w.Term)
		}
		k := b.String()
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
}

func termOf(words []qword) string {
	if len(words) == 1 {
		return words[0].Term
	}
	return ""
}

func startsWithSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// cutToken returns the text up to the next white space.
func cutToken(s string) (tok, rest string) {
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// cutQuoted cuts a "quoted" value from the start of s.
func cutQuoted(s string) (val, rest string, ok bool) {
	if !strings.HasPrefix(s, "\"") {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], '"')
	if end < 0 {
		return "", s, false
	}
	return s[1 : 1+end], s[2+end:], true
}

// filterToken recognizes tag:x, space:x and folder:x (case-insensitive name).
func filterToken(tok string) (name, val string, ok bool) {
	n, v, found := strings.Cut(tok, ":")
	if !found {
		return "", "", false
	}
	switch strings.ToLower(n) {
	case "tag", "tags":
		return "tag", v, true
	case "space":
		return "space", v, true
	case "folder", "path", "in":
		return "folder", v, true
	}
	return "", "", false
}

// trimPunct returns the word w without the punctuation around it ("es?"
// → "es"): "" if it has no letter or digit.
func trimPunct(w string) string {
	return strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
