package rules

import (
	"path"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Match reports whether the vault-relative path name is covered by the glob
// pattern, the way a protected rule is applied.
//
// Both are compared segment by segment on their slash-separated form, after
// Unicode NFC normalisation and lower-casing, so "4_archiv/ü.md" (with a
// decomposed ü) is covered by "4_Archiv/Ü.md". In a pattern, "*" matches any
// run of characters within one segment (never a '/'), "?" exactly one
// character other than '/', and "**" as a whole segment any number of
// segments, none included. Every other character stands for itself ("**"
// inside a longer segment acts as "*"; backslashes are read as slashes,
// since Obsidian forbids them in names). A pattern that matches a folder
// covers everything under it, so "4_Archiv", "4_Archiv/" and "4_Archiv/**"
// all protect 4_Archiv/Alt.md, and "4_Archiv/*" protects 4_Archiv/2023/Alt.md
// too; gitignore treats folders the same way. Patterns are anchored at the vault root:
// "*.md" covers only notes at the top level, "**/Entwurf.md" covers that name
// in every folder.
//
// An empty pattern, or one with a ".." segment, matches nothing; Load reports
// such patterns as problems.
func Match(pattern, name string) bool {
	pat, ok := splitPattern(pattern)
	if !ok {
		return false
	}
	segs, ok := splitName(name)
	if !ok {
		return false
	}
	m := matcher{pat: pat, name: segs}
	return m.match(0, 0)
}

// fold is the form in which patterns and paths are compared.
//
// Lower-casing before NFC keeps a decomposed capital (U+0055 U+0308) and a
// composed one (U+00DC) equal: both lower to u+U+0308 or ü, which NFC makes ü.
func fold(s string) string {
	return norm.NFC.String(strings.ToLower(s))
}

// splitPattern turns a pattern into folded segments, dropping empty and "."
// segments and collapsing runs of "**". It fails for an empty pattern and for
// one that climbs out of the vault with "..".
func splitPattern(pattern string) ([]string, bool) {
	pattern = strings.ReplaceAll(pattern, `\`, "/")
	var segs []string
	for _, s := range strings.Split(fold(pattern), "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return nil, false
		case "**":
			if len(segs) > 0 && segs[len(segs)-1] == "**" {
				continue
			}
		}
		segs = append(segs, s)
	}
	return segs, len(segs) > 0
}

// splitName turns a vault-relative path into folded segments. A path that
// cleans to the vault root or above it names no note and matches nothing.
func splitName(name string) ([]string, bool) {
	name = path.Clean("/" + name)[1:]
	if name == "" {
		return nil, false
	}
	return strings.Split(fold(name), "/"), true
}

// matcher matches pattern segments against path segments. A pattern that is
// used up while path segments remain has matched a folder of the path, which
// covers the rest (see Match).
type matcher struct {
	pat, name []string
	// failed memoises (pattern index, name index) pairs known not to
	// match. Without it a pattern with several "**" is exponential in the
	// depth of the path, and the path comes from an agent.
	failed []bool
}

func (m *matcher) match(pi, ni int) bool {
	for pi < len(m.pat) {
		if m.pat[pi] == "**" {
			if m.failed == nil {
				m.failed = make([]bool, (len(m.pat)+1)*(len(m.name)+1))
			}
			key := pi*(len(m.name)+1) + ni
			if m.failed[key] {
				return false
			}
			for k := ni; k <= len(m.name); k++ {
				if m.match(pi+1, k) {
					return true
				}
			}
			m.failed[key] = true
			return false
		}
		if ni == len(m.name) || !matchSegment(m.pat[pi], m.name[ni]) {
			return false
		}
		pi++
		ni++
	}
	// The pattern is used up: it matched the whole path, or a folder of it
	// (ni > 0), which covers everything inside.
	return ni > 0 || len(m.name) == 0
}

// matchSegment matches one segment against a pattern segment with '*' and '?'.
// It is the usual greedy matcher that remembers the last star: each star only
// ever moves forward, so the cost is at most len(pat)*len(s).
func matchSegment(pat, s string) bool {
	var (
		pi, si         int
		starPi, starSi = -1, 0
	)
	for si < len(s) {
		if pi < len(pat) {
			switch pat[pi] {
			case '*':
				for pi < len(pat) && pat[pi] == '*' {
					pi++
				}
				starPi, starSi = pi, si
				continue
			case '?':
				_, n := utf8.DecodeRuneInString(s[si:])
				pi++
				si += n
				continue
			default:
				pr, pn := utf8.DecodeRuneInString(pat[pi:])
				sr, sn := utf8.DecodeRuneInString(s[si:])
				if pr == sr {
					pi += pn
					si += sn
					continue
				}
			}
		}
		if starPi < 0 {
			return false
		}
		// Let the last star swallow one more character and retry.
		_, n := utf8.DecodeRuneInString(s[starSi:])
		starSi += n
		pi, si = starPi, starSi
	}
	for pi < len(pat) && pat[pi] == '*' {
		pi++
	}
	return pi == len(pat)
}
