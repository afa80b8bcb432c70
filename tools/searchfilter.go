package tools

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/note"
)

// searchFilter is one filter of a search: a parameter (raw "") or written
// in the query's text (raw as written: "#kunde", "space:Archiv").
type searchFilter struct {
	kind, value, raw string
}

// unknownFilter answers a search that found nothing and has a space,
// folder or tag filter naming none of the vault's: it says which, lists
// the vault's nearest, and gives the search with the nearest and without
// the filter. nil when every filter names something (or the vault cannot
// be listed): the answer is then the usual empty page.
func (c *Core) unknownFilter(caller Caller, a SearchNotesArgs) *Result {
	filters := []searchFilter{{"space", a.Space, ""}, {"folder", a.Folder, ""}, {"tag", a.Tag, ""}}
	for _, f := range index.TypedFilters(a.Query) {
		filters = append(filters, searchFilter{f.Kind, f.Value, f.Raw})
	}
	var known map[string][]string // kind → the vault's values
	for _, f := range filters {
		value := strings.Trim(strings.TrimSpace(f.value), "/")
		if f.kind == "tag" {
			value = strings.TrimPrefix(value, "#")
		}
		if value == "" {
			continue
		}
		if known == nil {
			if known = c.filterValues(); known == nil {
				return nil
			}
		}
		have := known[f.kind]
		if hasValue(have, value) {
			continue
		}
		return c.unknownFilterResult(caller, a, f, value, have)
	}
	return nil
}

// filterValues returns the vault's spaces, folders and tags (with the
// tags above them: kunde of kunde/praxis), or nil when the catalog cannot
// be read.
func (c *Core) filterValues() map[string][]string {
	entries, _, err := c.v.Catalog()
	if err != nil {
		return nil
	}
	folders, tags := map[string]bool{}, map[string]bool{}
	for _, e := range entries {
		for d := path.Dir(e.Path); d != "." && !folders[d]; d = path.Dir(d) {
			folders[d] = true
		}
		for _, t := range e.Tags {
			for t = strings.Trim(t, "/"); t != "" && !tags[t]; {
				tags[t] = true
				i := strings.LastIndexByte(t, '/')
				if i < 0 {
					break
				}
				t = t[:i]
			}
		}
	}
	return map[string][]string{"space": c.v.Spaces(), "folder": sortedKeys(folders), "tag": sortedKeys(tags)}
}

// unknownFilterResult is unknownFilter's answer for the filter f, whose
// value names none of have.
func (c *Core) unknownFilterResult(caller Caller, a SearchNotesArgs, f searchFilter, value string, have []string) *Result {
	const tool = "search_notes"
	shown := value
	if f.kind == "tag" {
		shown = "#" + value
	}
	nearest := nearestFirst(have, value)
	where := "in the text of the query"
	if f.raw == "" {
		where = "given as " + f.kind
	}
	msg := fmt.Sprintf("no %s %s in the vault (%s)", f.kind, shown, where)
	var b strings.Builder
	fmt.Fprintf(&b, "error: search: %s\nerror code: not_found\n", msg)
	data := map[string]any{"error": "not_found", "unknown_filter": f.kind, "value": value}
	what := map[string]string{"space": "spaces", "folder": "folders", "tag": "tags"}[f.kind]
	// with is the search with the filter set to v ("" leaves it out).
	with := func(v string) SearchNotesArgs {
		s := a
		s.Offset = 0
		if f.raw != "" {
			repl := ""
			if v != "" {
				repl = strings.Replace(f.raw, f.value, v, 1)
				if f.kind == "tag" && strings.HasPrefix(f.raw, "#") {
					repl = "#" + v
				}
			}
			s.Query = strings.Join(strings.Fields(strings.Replace(a.Query, f.raw, repl, 1)), " ")
		} else {
			switch f.kind {
			case "space":
				s.Space = v
			case "folder":
				s.Folder = v
			case "tag":
				s.Tag = v
			}
		}
		return s
	}
	if len(nearest) == 0 {
		fmt.Fprintf(&b, "The vault has no %s.\n", what)
	} else {
		data["closest"] = nearest
		names := nearest
		if f.kind == "tag" {
			names = make([]string, len(nearest))
			for i, t := range nearest {
				names[i] = "#" + t
			}
		}
		fmt.Fprintf(&b, "closest %s: %s\n", what, strings.Join(names, ", "))
		b.WriteString("next: " + call{tool, searchArgs(with(nearest[0]), 0)}.render(caller.Door) + "\n")
	}
	if without := with(""); strings.TrimSpace(without.Query) != "" {
		b.WriteString("without the filter: " + call{tool, searchArgs(without, 0)}.render(caller.Door))
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data,
		Err: &note.Error{Op: "search", Kind: note.ErrNotFound, Msg: msg, Alternatives: nearest, AltKind: what}}
}

// nearestFirst returns the maxAlternatives of have nearest to value in
// spelling (case left aside), nearest first.
func nearestFirst(have []string, value string) []string {
	nearest := slices.Clone(have)
	low := strings.ToLower(value)
	slices.SortStableFunc(nearest, func(x, y string) int {
		return note.Distance(low, strings.ToLower(x)) - note.Distance(low, strings.ToLower(y))
	})
	return limit(nearest, maxAlternatives)
}

// hasValue reports whether have holds value as the index compares them
// (lower-cased, NFC).
func hasValue(have []string, value string) bool {
	want := note.LinkKey(value)
	return slices.ContainsFunc(have, func(s string) bool { return note.LinkKey(s) == want })
}
