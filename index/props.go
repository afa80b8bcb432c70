package index

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Properties. Every top-level frontmatter property whose value is a scalar
// or a list of scalars is indexed as exact terms "prop:<key>=<value>",
// key and value lower-cased and NFC, in the keyword field props: a note
// with
//
//	status: Aktiv
//	team: [Anna, "[[Jonas Keller]]"]
//
// gets prop:status=aktiv, prop:team=anna, prop:team=[[jonas keller]] and
// prop:team=jonas keller (a link value is also indexed as its target). The
// query status=aktiv (or Query.Properties) filters on it. Nested maps and
// long texts are not indexed: nobody filters on them.
const (
	propPrefix = "prop:"
	// maxPropValue bounds an indexed value in bytes.
	maxPropValue = 200
)

// propTerm is the indexed term of one property value.
func propTerm(key, value string) string {
	return propPrefix + foldKey(strings.TrimSpace(key)) + "=" + foldKey(strings.TrimSpace(value))
}

// propertyTerms returns the terms of a note's decoded frontmatter, sorted
// and without duplicates.
func propertyTerms(fm map[string]any) []string {
	var out []string
	for k, v := range fm {
		if strings.TrimSpace(k) == "" {
			continue
		}
		var vals []any
		switch x := v.(type) {
		case []any:
			vals = x
		default:
			vals = []any{x}
		}
		for _, one := range vals {
			s, ok := propScalar(one)
			if !ok {
				continue
			}
			s = strings.TrimSpace(s)
			if s == "" || len(s) > maxPropValue {
				continue
			}
			out = append(out, propTerm(k, s))
			if t, ok := linkValue(s); ok {
				out = append(out, propTerm(k, t))
			}
		}
	}
	sort.Strings(out)
	return compactStrings(out)
}

// propScalar renders a YAML scalar as the user wrote it (as far as the
// decoded value allows); ok is false for maps, lists and null.
func propScalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "", false
		}
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format(time.DateOnly), true
		}
		return x.Format(time.RFC3339), true
	}
	return "", false
}

// linkValue returns the target of a value that is one wikilink:
// "[[Jonas Keller|Jonas]]" → "Jonas Keller".
func linkValue(s string) (string, bool) {
	inner, ok := strings.CutPrefix(s, "[[")
	if !ok {
		return "", false
	}
	inner, ok = strings.CutSuffix(inner, "]]")
	if !ok || strings.Contains(inner, "[[") || strings.Contains(inner, "]]") {
		return "", false
	}
	if i := strings.IndexByte(inner, '|'); i >= 0 {
		inner = inner[:i]
	}
	inner = strings.TrimSpace(inner)
	return inner, inner != ""
}

// propFilter is one key=value filter of a query.
type propFilter struct {
	key, value string
	// typed: written in the query's text (key=value), not given as a
	// filter of its own (Query.Properties).
	typed bool
}

func (f propFilter) term() string { return propTerm(f.key, f.value) }

// knownProperty reports whether some note of the index has the
// frontmatter property key.
func (ix *Index) knownProperty(key string) bool {
	return len(ix.dictPrefix(fProps, propPrefix+foldKey(strings.TrimSpace(key))+"=", "")) > 0
}

// hasTerm reports whether some document of the index has term in field.
func (ix *Index) hasTerm(field, term string) bool {
	if term == "" {
		return false
	}
	d, err := ix.bi.FieldDictPrefix(field, []byte(term))
	if err != nil {
		return false
	}
	defer d.Close()
	e, err := d.Next() // the term itself comes first, if it is there
	return err == nil && e != nil && e.Term == term
}

// knownTag reports whether some note has the tag (or a tag below it).
func (ix *Index) knownTag(tag string) bool {
	return ix.hasTerm(fTags, tagTerm(tag))
}

// tagTerm is the term a tag filter looks for.
func tagTerm(tag string) string {
	return foldKey(strings.Trim(strings.TrimPrefix(tag, "#"), "/"))
}

// hashTagsAsWords turns a #tag written among other words that no note has
// as a tag into a word that ranks but need not occur: a title or message
// pasted as a search ("Closes #3 …", "Ticket #N") asks for the text, and
// as a filter it found nothing. tag:x, written out, stays a filter, and so
// does a #tag with no other word.
func (ix *Index) hashTagsAsWords(pq *parsedQuery) {
	if len(pq.must) == 0 {
		return
	}
	for _, f := range pq.typed {
		if f.Kind != "tag" || !strings.HasPrefix(f.Raw, "#") || ix.knownTag(f.Value) {
			continue
		}
		if i := slices.Index(pq.tags, f.Value); i >= 0 {
			pq.tags = slices.Delete(pq.tags, i, i+1)
		}
		pq.tagsAsWords = append(pq.tagsAsWords, f.Raw)
		if words := analyzeQuery(f.Value); len(words) > 0 {
			pq.must = append(pq.must, clause{kind: kindWord, raw: f.Raw, words: words, optional: true, tag: true})
		}
	}
}

// typedPropsAsWords turns a key=value of the query's text whose key no
// note has as a property into the words as a phrase: a question about
// HTML (loading="lazy", type=button) or code (x=1) asks for the text, and
// as a filter it found nothing.
func (ix *Index) typedPropsAsWords(pq *parsedQuery) {
	words := func(fs []propFilter, into *[]clause) []propFilter {
		kept := fs[:0]
		for _, f := range fs {
			if !f.typed || ix.knownProperty(f.key) {
				kept = append(kept, f)
				continue
			}
			text := f.key + " " + f.value
			if c := (clause{kind: kindPhrase, raw: text, words: withoutNouns(analyzeQuery(text))}); len(c.words) > 0 {
				*into = append(*into, c)
			} else {
				pq.ignored = append(pq.ignored, f.key+"="+f.value)
			}
		}
		return kept
	}
	pq.props = words(pq.props, &pq.must)
	pq.noProps = words(pq.noProps, &pq.not)
}

// propToken recognizes key=value in a query token: a key of letters,
// digits, '_', '-' and '.' that starts with a letter or '_', then '=',
// then the value (possibly empty, or starting a quoted value). ok is false
// for anything else ("a==b", "=x", "https://x?a=b", "1=true").
func propToken(tok string) (key, val string, ok bool) {
	k, v, found := strings.Cut(tok, "=")
	if !found || k == "" || strings.HasPrefix(v, "=") {
		return "", "", false
	}
	for i, r := range k {
		if !unicode.IsLetter(r) && r != '_' && (i == 0 || !unicode.IsDigit(r) && r != '-' && r != '.') {
			return "", "", false // a key starts with a letter: "1=true" is no filter
		}
	}
	return k, v, true
}
