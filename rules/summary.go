package rules

import (
	"fmt"
	"path"
	"strings"
	"unicode"
)

// Summary bounds. The summary goes into the server instructions, which the
// agent contract keeps at about 1,500 characters in all; the vault overview
// and the tool hints need the rest.
const (
	noteBudget  = 600 // characters of guidance shown per note
	totalBudget = 900 // characters of guidance shown in all
	minShown    = 150 // below this much budget left, a note is only named
)

// Summary is the short text agents are given about the vault's rules: the
// guidance of each rules note (at most about 600 characters each and 900
// in all, cut at a word with "…(read 9_System/X.md for the rest)"; notes past
// the budget are only named), then the enforced policy, one line per kind.
// Problems are not part of it: they are for the vault owner.
func (r *Rules) Summary() string {
	if r == nil {
		r = &Rules{Protected: []Rule{builtin}}
	}
	var b strings.Builder
	var named []string
	budget := totalBudget
	for _, n := range r.Notes {
		if n.Guidance == "" {
			continue
		}
		if budget < minShown {
			named = append(named, n.Path)
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "Rules for agents in this vault, from the notes in %s/:\n", Folder)
		}
		text, used := truncate(n.Guidance, min(noteBudget, budget))
		budget -= used
		if n.Title == stem(n.Path) {
			fmt.Fprintf(&b, "\n%s:\n%s", n.Path, text)
		} else {
			fmt.Fprintf(&b, "\n%s (%s):\n%s", n.Title, n.Path, text)
		}
		if used < len([]rune(n.Guidance)) {
			fmt.Fprintf(&b, "…(read %s for the rest)", n.Path)
		}
		b.WriteString("\n")
	}
	if len(named) > 0 {
		fmt.Fprintf(&b, "\nMore guidance in %s.\n", strings.Join(named, ", "))
	}
	if b.Len() == 0 {
		fmt.Fprintf(&b, "This vault has no guidance for agents in %s/.\n", Folder)
	}

	b.WriteString("\n")
	b.WriteString(r.Policy())
	return b.String()
}

// Policy is the enforced part of the rules only, one line per kind, headed
// "Enforced by vaultd on every write:". It is what the server instructions
// carry; the guidance itself is in Summary.
func (r *Rules) Policy() string {
	if r == nil {
		r = &Rules{Protected: []Rule{builtin}}
	}
	var b strings.Builder
	b.WriteString("Enforced by vaultd on every write:\n")
	b.WriteString("- Read-only (agents may read but not change): ")
	b.WriteString(r.protectedLine())
	b.WriteString(".\n")
	if r.Inbox != "" {
		fmt.Fprintf(&b, "- Inbox: a new note given without a folder is created in %s/ (%s).\n", r.Inbox, r.InboxSource)
	}
	if len(r.Required) > 0 {
		fmt.Fprintf(&b, "- New notes need these frontmatter properties: %s.\n", groupBySource(r.Required))
	}
	return b.String()
}

// protectedLine lists the protected globs grouped by the note declaring them,
// with the built-in rule first even when Protected was built by hand.
func (r *Rules) protectedLine() string {
	rules := []Rule{builtin}
	for _, rule := range r.Protected {
		if rule != builtin {
			rules = append(rules, rule)
		}
	}
	return groupBySource(rules)
}

// groupBySource renders rules as "a, b (source); c (other source)", keeping
// their order; the built-in source reads "built in".
func groupBySource(rules []Rule) string {
	var groups []string
	for i := 0; i < len(rules); {
		j := i
		var vals []string
		for ; j < len(rules) && rules[j].Source == rules[i].Source; j++ {
			vals = append(vals, rules[j].Value)
		}
		src := rules[i].Source
		if src == "" {
			src = "built in"
		}
		groups = append(groups, strings.Join(vals, ", ")+" ("+src+")")
		i = j
	}
	return strings.Join(groups, "; ")
}

// truncate returns s cut to at most limit characters, at the last space or
// line break before the limit when there is one in the last fifth, and the
// number of characters of s it covers.
func truncate(s string, limit int) (string, int) {
	rs := []rune(s)
	if len(rs) <= limit {
		return s, len(rs)
	}
	cut := limit
	for i := limit; i > limit*4/5; i-- {
		if unicode.IsSpace(rs[i]) {
			cut = i
			break
		}
	}
	return strings.TrimRightFunc(string(rs[:cut]), unicode.IsSpace), cut
}

// stem is a note's file name without .md.
func stem(p string) string {
	return strings.TrimSuffix(path.Base(p), path.Ext(p))
}
