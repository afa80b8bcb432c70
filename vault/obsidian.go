package vault

import (
	"encoding/json"
	"regexp"
	"strings"
)

// ObsidianSettings are the settings of .obsidian/app.json that change
// what vaultd shows and writes, as Obsidian itself applies them.
type ObsidianSettings struct {
	// IgnoreFilters are "Excluded files" (userIgnoreFilters): a path
	// prefix ("4_Archiv/", "Privat/Tagebuch") or, between slashes, a
	// regular expression ("/\.excalidraw\.md$/"). Obsidian leaves matching
	// notes out of search, the graph and lists; they can still be opened.
	IgnoreFilters []string
	// UseMarkdownLinks is "Use [[Wikilinks]]" turned off: new links are
	// [text](path) instead of [[…]].
	UseMarkdownLinks bool
	// NewLinkFormat is "New link format": "shortest" (default), "relative"
	// or "absolute".
	NewLinkFormat string

	ignore []ignoreFilter
}

type ignoreFilter struct {
	raw    string
	prefix string
	re     *regexp.Regexp
}

// Obsidian reads the settings of .obsidian/app.json; a vault without it,
// or with a file that is not valid JSON, has Obsidian's defaults.
func (v *Vault) Obsidian() ObsidianSettings {
	var s ObsidianSettings
	b, err := v.root.ReadFile(".obsidian/app.json")
	if err != nil {
		return s
	}
	var app struct {
		UserIgnoreFilters []string `json:"userIgnoreFilters"`
		UseMarkdownLinks  bool     `json:"useMarkdownLinks"`
		NewLinkFormat     string   `json:"newLinkFormat"`
	}
	if json.Unmarshal(b, &app) != nil {
		return s
	}
	s.UseMarkdownLinks, s.NewLinkFormat = app.UseMarkdownLinks, app.NewLinkFormat
	for _, f := range app.UserIgnoreFilters {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if len(f) > 2 && strings.HasPrefix(f, "/") && strings.HasSuffix(f, "/") {
			re, err := regexp.Compile(f[1 : len(f)-1])
			if err != nil {
				continue // Obsidian ignores a filter it cannot compile too
			}
			s.ignore = append(s.ignore, ignoreFilter{raw: f, re: re})
		} else {
			s.ignore = append(s.ignore, ignoreFilter{raw: f, prefix: strings.TrimPrefix(f, "/")})
		}
		s.IgnoreFilters = append(s.IgnoreFilters, f)
	}
	return s
}

// Excluded returns the filter of IgnoreFilters that excludes the
// vault path p, and whether one does.
func (s ObsidianSettings) Excluded(p string) (string, bool) {
	for _, f := range s.ignore {
		if f.re != nil && f.re.MatchString(p) || f.re == nil && strings.HasPrefix(p, f.prefix) {
			return f.raw, true
		}
	}
	return "", false
}

// ExcludedFolders returns the filters that are plain folder prefixes
// ("4_Archiv/" → "4_Archiv"), which a search can count by folder.
func (s ObsidianSettings) ExcludedFolders() []string {
	var out []string
	for _, f := range s.ignore {
		if f.re == nil && strings.HasSuffix(f.prefix, "/") {
			out = append(out, strings.TrimSuffix(f.prefix, "/"))
		}
	}
	return out
}

// Hides reports whether some filter may hide paths under folder ("" is
// the whole vault): a regular expression may always; a prefix when it
// lies below folder or folder below it.
func (s ObsidianSettings) Hides(folder string) bool {
	for _, f := range s.ignore {
		if f.re != nil || folder == "" || strings.HasPrefix(f.prefix, folder+"/") || strings.HasPrefix(folder+"/", f.prefix) {
			return true
		}
	}
	return false
}

// PathPatterns returns the filters that are not folder prefixes (see
// ExcludedFolders) as regular expressions (Go syntax, without anchors)
// that match a whole vault path the filter excludes: a prefix
// "Privat/Tagebuch" as `Privat/Tagebuch.*`, an expression
// "/\.excalidraw\.md$/" as `.*(?:\.excalidraw\.md)`.
func (s ObsidianSettings) PathPatterns() []string {
	var out []string
	for _, f := range s.ignore {
		switch {
		case f.re == nil && strings.HasSuffix(f.prefix, "/"):
			// a folder: ExcludedFolders
		case f.re == nil:
			out = append(out, regexp.QuoteMeta(f.prefix)+".*")
		default:
			r := f.raw[1 : len(f.raw)-1]
			start, end := ".*", ".*"
			if strings.HasPrefix(r, "^") {
				r, start = r[1:], ""
			}
			if strings.HasSuffix(r, "$") && !strings.HasSuffix(r, `\$`) {
				r, end = r[:len(r)-1], ""
			}
			out = append(out, start+"(?:"+r+")"+end)
		}
	}
	return out
}

// Embed is the embed of link target as the vault writes new ones:
// "![[target]]", or with UseMarkdownLinks "![](target)" (spaces and
// parentheses percent-encoded).
func (s ObsidianSettings) Embed(target string) string {
	if s.UseMarkdownLinks {
		return "![](" + escapeDest(target, false) + ")"
	}
	return "![[" + target + "]]"
}
