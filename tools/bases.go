package tools

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vaultd/vaultd/base"
	"github.com/vaultd/vaultd/note"
)

// QueryBaseArgs are the arguments of query_base.
type QueryBaseArgs struct {
	Base   string `json:"base" jsonschema:"the .base file: path or name; or a note with base blocks"`
	View   string `json:"view,omitempty" jsonschema:"the view's name; without it: the base's views with their row counts" help:"the view to run (without it: list the views)"`
	Limit  int    `json:"limit,omitempty" default:"50" help:"rows per page"`
	Offset int    `json:"offset,omitempty" help:"rows to skip, for the next page"`
}

// QueryNotesArgs are the arguments of query_notes.
type QueryNotesArgs struct {
	Filter     string `json:"filter" jsonschema:"a Bases expression over a note's properties, e.g. status == \"aktiv\" && file.hasTag(\"projekt\")"`
	Properties string `json:"properties,omitempty" jsonschema:"columns to show, comma-separated: status, file.mtime, due" help:"columns to show, comma-separated (status, file.mtime)"`
	Sort       string `json:"sort,omitempty" jsonschema:"comma-separated properties, each optionally followed by desc: due, file.mtime desc" help:"sort by these properties, comma-separated, each optionally with desc"`
	Limit      int    `json:"limit,omitempty" default:"50" help:"rows per page"`
	Offset     int    `json:"offset,omitempty" help:"rows to skip, for the next page"`
}

// BaseViewData is query_base's and query_notes' structured answer for
// one view: its columns, the rows of this page with their cells as shown,
// the summaries and how many rows there are.
type BaseViewData struct {
	Base   string `json:"base,omitempty"`
	View   string `json:"view,omitempty"`
	Type   string `json:"type,omitempty"`
	Filter string `json:"filter,omitempty"`
	// Columns are the view's columns but those the path carries
	// (file.name, file.path, file.basename), by display name.
	Columns   []string         `json:"columns"`
	Rows      []BaseRowData    `json:"rows"`
	Total     int              `json:"total"`   // rows the view shows (after its limit)
	Matched   int              `json:"matched"` // files its filters select
	Files     int              `json:"files"`   // files it was run over
	Offset    int              `json:"offset"`
	Summaries []BaseSummaryRow `json:"summaries,omitempty"`
	// GroupBy, for a view with groupBy, is the property's display name,
	// and Groups every group of the view (not only this page's) with its
	// row count, in the view's order.
	GroupBy string          `json:"group_by,omitempty"`
	Groups  []BaseGroupData `json:"groups,omitempty"`
	Errors  []string        `json:"errors,omitempty"`
	// Values, for an empty answer of query_notes: the values the notes
	// have for the properties the filter reads.
	Values    []string `json:"values_instead,omitempty"`
	ErrorsAll int      `json:"errors_total,omitempty"`
	Next      string   `json:"next,omitempty"`
}

// BaseRowData is one row: the file's path, its group, its cells.
type BaseRowData struct {
	Path  string   `json:"path"`
	Group string   `json:"group,omitempty"`
	Cells []string `json:"cells"`
}

// BaseGroupData is one group of a grouped view: its value as shown
// (empty: the rows without one) and how many rows it has.
type BaseGroupData struct {
	Value string `json:"value"`
	Rows  int    `json:"rows"`
}

// BaseSummaryRow is one summary of a column.
type BaseSummaryRow struct {
	Column  string `json:"column"`
	Summary string `json:"summary"`
	Value   string `json:"value"`
}

// BaseViewsData lists a base's views.
type BaseViewsData struct {
	Base  string         `json:"base"`
	Views []BaseViewItem `json:"views"`
}

// BaseViewItem is one view of a base with its row count.
type BaseViewItem struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Rows int    `json:"rows"`
	Call string `json:"call"`
}

// Bounds of a view's page.
const (
	baseRowsDefault = 50
	baseRowsMax     = 200
	baseCellRunes   = 80
)

// loadedBase is a base found in the vault: where it is, what `this` is
// there, and its parse.
type loadedBase struct {
	path string
	this *base.File
	b    *base.Base
	src  string // what it was parsed from: the file, or the note's version
	// links says its text may look at links (readsLinks): the set it
	// runs over reads the notes whole.
	links bool
}

// readsLinks says whether a base's text may look at a note's links,
// embeds or backlinks. It is a guess by words ("links" is in backlinks
// and linksTo, "hasLink" in file.hasLink): a set reads the notes whole
// when it is true, and makes links on first use when it is not (a base
// that reaches links another way only pays a second reading).
func readsLinks(texts ...string) bool {
	for _, t := range texts {
		if strings.Contains(t, "links") || strings.Contains(t, "embeds") || strings.Contains(t, "hasLink") {
			return true
		}
	}
	return false
}

// QueryBase runs a saved Bases view by name.
func (c *Core) QueryBase(ctx context.Context, caller Caller, a QueryBaseArgs) *Result {
	const tool = "query_base"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	lb, res := c.findBase(caller, c.baseFileList(), a.Base)
	if res != nil {
		return res
	}
	set, err := c.baseSet(lb.links)
	if err != nil {
		return c.fail(caller, failure{tool: tool}, err)
	}
	lb.this = set.byPath[lb.path]
	if strings.TrimSpace(a.View) == "" && len(lb.b.Views) > 1 {
		return c.listViews(caller, set, lb)
	}
	v := lb.b.Views[0]
	if strings.TrimSpace(a.View) != "" {
		v = lb.b.View(strings.TrimSpace(a.View))
		if v == nil {
			return c.viewNotFound(caller, lb, a.View)
		}
	}
	out := c.runView(set, lb, v)
	data, text := renderView(caller, lb, out, len(set.files), a.Offset, a.Limit, func(off int) call {
		args := []arg{{"base", lb.path}, {"view", v.Name}}
		if a.Limit > 0 && a.Limit != baseRowsDefault {
			args = append(args, arg{"limit", a.Limit})
		}
		return call{tool, append(args, arg{"offset", off})}
	})
	return &Result{Text: text, Data: data}
}

// QueryNotes runs an ad-hoc filter over the notes' properties.
func (c *Core) QueryNotes(ctx context.Context, caller Caller, a QueryNotesArgs) *Result {
	const tool = "query_notes"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	var cols []string
	for _, p := range strings.Split(a.Properties, ",") {
		if p = strings.TrimSpace(p); p != "" {
			cols = append(cols, p)
		}
	}
	var keys []base.SortKey
	for _, s := range strings.Split(a.Sort, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		k := base.SortKey{Property: s}
		if p, ok := strings.CutPrefix(s, "-"); ok {
			k = base.SortKey{Property: strings.TrimSpace(p), Desc: true}
		} else if f := strings.Fields(s); len(f) > 1 && (strings.EqualFold(f[len(f)-1], "desc") || strings.EqualFold(f[len(f)-1], "asc")) {
			k = base.SortKey{Property: strings.Join(f[:len(f)-1], " "), Desc: strings.EqualFold(f[len(f)-1], "desc")}
		}
		keys = append(keys, k)
	}
	if len(cols) == 0 {
		cols = []string{"file.name"}
		for _, k := range keys {
			cols = append(cols, k.Property)
		}
	}
	if strings.TrimSpace(a.Filter) == "" {
		return c.baseFail(caller, tool, "filter is empty: give an expression over the notes' properties",
			call{tool, []arg{{"filter", `file.hasTag("projekt")`}}}, nil)
	}
	b, err := base.NewQuery(a.Filter, cols, keys, 0)
	if err != nil {
		return c.baseFail(caller, tool, err.Error(), call{}, nil)
	}
	set, err := c.baseSet(readsLinks(a.Filter, a.Properties, a.Sort))
	if err != nil {
		return c.fail(caller, failure{tool: tool}, err)
	}
	notes := make([]*base.File, 0, set.notes)
	for _, f := range set.files {
		if f.Ext() == "md" {
			notes = append(notes, f)
		}
	}
	out := b.Run(b.Views[0], notes, set.env(c.now(), nil))
	lb := &loadedBase{b: b}
	var hints []string
	var try *call
	if len(out.Rows) == 0 && out.ErrorCount == 0 {
		hints, try = c.filterHints(a, b.Views[0].Filters.Expr, notes)
	}
	data, text := renderView(caller, lb, out, len(notes), a.Offset, a.Limit, func(off int) call {
		first := a
		first.Offset = 0
		return call{tool, append(queryNotesArgs(first), arg{"offset", off})}
	})
	if len(hints) > 0 {
		data.Values = hints
		text += "\nWhat the notes have instead:\n- " + strings.Join(hints, "\n- ")
		if try != nil {
			text += "\ntry: " + try.render(caller.Door)
		} else if props := b.Views[0].Filters.Expr.Properties(); len(props) > 0 {
			text += "\ntry: " + call{tool, []arg{{"filter", "file.hasProperty(" + jsonText(props[0]) + ")"}, {"properties", props[0]}}}.render(caller.Door)
		}
	}
	return &Result{Text: text, Data: data}
}

// queryNotesArgs are a's arguments as a call spells them.
func queryNotesArgs(a QueryNotesArgs) []arg {
	args := []arg{{"filter", a.Filter}}
	if a.Properties != "" {
		args = append(args, arg{"properties", a.Properties})
	}
	if a.Sort != "" {
		args = append(args, arg{"sort", a.Sort})
	}
	if a.Limit > 0 && a.Limit != baseRowsDefault {
		args = append(args, arg{"limit", a.Limit})
	}
	if a.Offset > 0 {
		args = append(args, arg{"offset", a.Offset})
	}
	return args
}

// filterHints says, for a filter that selects no note, what the notes
// have instead: for each folder of file.inFolder and tag of file.hasTag
// that the vault does not have, the closest it has; for the first
// properties it reads, their values (propertyValues), and for one no note
// has, the closest property names. try is the filter with the first
// unknown name replaced by its nearest (nil when there is none).
func (c *Core) filterHints(a QueryNotesArgs, expr *base.Expr, notes []*base.File) (hints []string, try *call) {
	retry := func(old, repl string, word bool) {
		if try != nil {
			return
		}
		f := a.Filter
		if word {
			f = regexp.MustCompile(`\b`+regexp.QuoteMeta(old)+`\b`).ReplaceAllLiteralString(f, repl)
		} else {
			for _, q := range []string{`"`, `'`} {
				f = strings.Replace(f, q+old+q, q+repl+q, 1)
			}
		}
		if f != a.Filter {
			next := a
			next.Filter, next.Offset = f, 0
			try = &call{"query_notes", queryNotesArgs(next)}
		}
	}
	known := c.filterValues()
	for _, k := range []struct{ fn, kind, what string }{{"inFolder", "folder", "no such folder"}, {"hasTag", "tag", "no note has the tag"}} {
		for _, v := range expr.FileCalls(k.fn) {
			value := strings.Trim(strings.TrimSpace(v), "/")
			if k.kind == "tag" {
				value = strings.TrimPrefix(value, "#")
			}
			if value == "" || known == nil || hasValue(known[k.kind], value) {
				continue
			}
			nearest := nearestFirst(known[k.kind], value)
			shown := slices.Clone(nearest)
			if k.kind == "tag" {
				for i := range shown {
					shown[i] = "#" + shown[i]
				}
			}
			h := fmt.Sprintf("file.%s(%s): %s", k.fn, jsonText(v), k.what)
			if len(nearest) > 0 {
				h += "; closest: " + strings.Join(shown, ", ")
				retry(v, nearest[0], false)
			}
			hints = append(hints, h)
		}
	}
	props := expr.Properties()
	values := propertyValues(props, notes)
	var names []string // the notes' property names
	seen := map[string]bool{}
	for _, f := range notes {
		for k := range f.Props {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	slices.Sort(names)
	for i, p := range props[:min(len(props), 2)] {
		if strings.HasSuffix(values[i], " has it") && len(names) > 0 { // none of the notes has it
			nearest := nearestFirst(names, p)
			values[i] += "; closest property names: " + strings.Join(nearest, ", ")
			retry(p, nearest[0], true)
		}
	}
	return append(hints, values...), try
}

// propertyValues says, for the first properties a filter reads (at most
// 2), which values the notes have, most frequent first (at most 6), and
// how many notes have it: what an empty answer offers instead.
func propertyValues(props []string, notes []*base.File) []string {
	var out []string
	for _, p := range props[:min(len(props), 2)] {
		counts := map[string]int{}
		have := 0
		for _, f := range notes {
			v, ok := f.Props[p]
			if !ok {
				for k, x := range f.Props {
					if strings.EqualFold(k, p) {
						v, ok = x, true
					}
				}
			}
			if !ok {
				continue
			}
			have++
			items, isList := v.([]any)
			if !isList {
				items = []any{v}
			}
			for _, it := range items {
				if t := cellText(it, DoorMCP); t != "" {
					counts[t]++
				}
			}
		}
		if have == 0 {
			out = append(out, fmt.Sprintf("%s: none of %s has it", p, plural(len(notes), "note", "notes")))
			continue
		}
		vals := sortedKeys(counts)
		sort.SliceStable(vals, func(i, j int) bool { return counts[vals[i]] > counts[vals[j]] })
		var parts []string
		for i, v := range vals {
			if i == 6 {
				parts = append(parts, fmt.Sprintf("%d more", len(vals)-6))
				break
			}
			parts = append(parts, fmt.Sprintf("%s (%d)", v, counts[v]))
		}
		out = append(out, fmt.Sprintf("%s: %s of %s have it: %s", p, groupDigits(have), plural(len(notes), "note", "notes"), strings.Join(parts, ", ")))
	}
	return out
}

// baseFail is a query that cannot run as written: what is wrong (with the
// expression and column), and a call to try.
func (c *Core) baseFail(caller Caller, tool, msg string, try call, data map[string]any) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "error: %s: %s\nerror code: invalid_argument\n", tool, msg)
	b.WriteString("Expressions are Obsidian's Bases syntax: properties bare or as note.x, file.name/path/folder/ext/size/ctime/mtime/tags/links/backlinks, file.hasTag(\"x\"), file.inFolder(\"x\"), file.hasLink(\"x\"), ==, !=, <, >, &&, ||, !, date arithmetic such as due < today() + \"1 week\", and functions such as contains(), lower(), isEmpty(), round().\n")
	if try.tool != "" {
		b.WriteString("try: " + try.render(caller.Door) + "\n")
	}
	if data == nil {
		data = map[string]any{}
	}
	data["error"] = "invalid_argument"
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data, Err: &note.Error{Op: tool, Kind: note.ErrInvalid, Msg: msg}}
}

// findBase finds the base ref names: a .base file by path or name
// (case-insensitive, with or without .base), or a note holding ```base
// blocks.
func (c *Core) findBase(caller Caller, all []string, ref string) (*loadedBase, *Result) {
	const tool = "query_base"
	ref = strings.TrimSpace(strings.TrimPrefix(strings.TrimSuffix(strings.TrimSpace(ref), "]]"), "[["))
	ref, _, _ = strings.Cut(ref, "#")
	if ref == "" {
		return nil, c.basesList(caller, all, "base is empty: name a .base file")
	}
	key := strings.ToLower(strings.TrimSuffix(ref, ".base"))
	var found string
	for _, p := range all {
		if strings.EqualFold(p, ref) || strings.ToLower(strings.TrimSuffix(p, path.Ext(p))) == key {
			found = p
			break
		}
	}
	if found == "" {
		var named []string
		for _, p := range all {
			stem := strings.ToLower(strings.TrimSuffix(path.Base(p), path.Ext(p)))
			if stem == path.Base(key) {
				named = append(named, p)
			}
		}
		if len(named) == 1 {
			found = named[0]
		} else if len(named) > 1 {
			return nil, c.basesList(caller, named, fmt.Sprintf("%q names %d bases; give the path", ref, len(named)))
		}
	}
	if found != "" {
		src, err := c.v.ReadFile(found)
		if err != nil {
			return nil, c.fail(caller, failure{tool: tool}, err)
		}
		b, err := base.Parse(src)
		if err != nil {
			return nil, c.brokenBase(caller, found, err)
		}
		return &loadedBase{path: found, b: b, src: string(src), links: readsLinks(string(src))}, nil
	}
	// A note with base blocks.
	if n, _, err := c.v.Find(ref); err == nil {
		blocks := base.Blocks(n.Doc.Src)
		if len(blocks) == 0 {
			return nil, c.basesList(caller, all, fmt.Sprintf("the note %s holds no base block (```base)", n.Path))
		}
		merged := &base.Base{}
		links := false
		for i, bl := range blocks {
			links = links || readsLinks(string(bl))
			b, err := base.Parse(bl)
			if err != nil {
				return nil, c.brokenBase(caller, fmt.Sprintf("%s (base block %d)", n.Path, i+1), err)
			}
			if i == 0 {
				merged = b
				continue
			}
			// Each block filters on its own: it becomes views carrying its
			// filters.
			for _, v := range b.Views {
				v.Filters = andFilters(b.Filters, v.Filters)
				merged.Views = append(merged.Views, v)
			}
		}
		return &loadedBase{path: n.Path, b: merged, src: n.Version, links: links}, nil
	}
	return nil, c.basesList(caller, closestBases(all, key), fmt.Sprintf("no base %q in the vault", ref))
}

func andFilters(a, b *base.Filter) *base.Filter {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return &base.Filter{Op: "and", Items: []*base.Filter{a, b}}
}

// closestBases orders the bases by how much of key their name shares.
func closestBases(all []string, key string) []string {
	type cand struct {
		p string
		d int
	}
	var cs []cand
	for _, p := range all {
		stem := strings.ToLower(strings.TrimSuffix(path.Base(p), path.Ext(p)))
		d := note.Distance(stem, path.Base(key))
		if strings.Contains(stem, path.Base(key)) || strings.Contains(path.Base(key), stem) {
			d = 0
		}
		cs = append(cs, cand{p, d})
	}
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && (cs[j].d < cs[j-1].d || cs[j].d == cs[j-1].d && cs[j].p < cs[j-1].p); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.p
	}
	return out
}

// basesList is the error for a base that was not found: the bases there
// are, as calls.
func (c *Core) basesList(caller Caller, cands []string, msg string) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "error: query_base: %s\nerror code: not_found\n", msg)
	if len(cands) == 0 {
		b.WriteString("The vault has no .base file. Filter the notes' properties directly instead:\n")
		b.WriteString("try: " + call{"query_notes", []arg{{"filter", `file.hasTag("projekt")`}, {"properties", "status, file.mtime"}}}.render(caller.Door) + "\n")
	} else {
		fmt.Fprintf(&b, "The vault's bases (%d):\n", len(cands))
		for i, p := range cands {
			if i == 5 {
				fmt.Fprintf(&b, "(%d more)\n", len(cands)-5)
				break
			}
			b.WriteString("- " + call{"query_base", []arg{{"base", p}}}.render(caller.Door) + "\n")
		}
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: map[string]any{"error": "not_found", "bases": cands},
		Err: &note.Error{Op: "query_base", Kind: note.ErrNotFound, Msg: msg}}
}

// brokenBase is a base that cannot be read: its error, with the
// expression and column.
func (c *Core) brokenBase(caller Caller, p string, err error) *Result {
	var be *base.Error
	msg := err.Error()
	if errors.As(err, &be) {
		msg = be.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "error: query_base: the base %s cannot be run: %s\nerror code: invalid_argument\n", p, msg)
	b.WriteString("The base file itself is wrong (Obsidian shows the same error); tell the user. Meanwhile the notes' properties can be filtered directly:\n")
	b.WriteString("try: " + call{"query_notes", []arg{{"filter", `file.hasTag("projekt")`}, {"properties", "status, file.mtime"}}}.render(caller.Door))
	return &Result{Text: b.String(), Data: map[string]any{"error": "invalid_argument", "base": p, "reason": msg},
		Err: &note.Error{Op: "query_base", Path: p, Kind: note.ErrInvalid, Msg: msg}}
}

// viewNotFound lists the views of the base as calls.
func (c *Core) viewNotFound(caller Caller, lb *loadedBase, view string) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "error: query_base: the base %s has no view %q\nerror code: not_found\n", lb.path, view)
	fmt.Fprintf(&b, "Its views (%d):\n", len(lb.b.Views))
	var names []string
	for _, v := range lb.b.Views {
		names = append(names, v.Name)
		b.WriteString("- " + call{"query_base", []arg{{"base", lb.path}, {"view", v.Name}}}.render(caller.Door) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: map[string]any{"error": "not_found", "base": lb.path, "views": names},
		Err: &note.Error{Op: "query_base", Path: lb.path, Kind: note.ErrNotFound, Msg: "no view " + view}}
}

// listViews answers a base named without a view: its views, each with its
// type, row count and the call that runs it.
func (c *Core) listViews(caller Caller, set *baseSet, lb *loadedBase) *Result {
	data := BaseViewsData{Base: lb.path}
	var b strings.Builder
	fmt.Fprintf(&b, "base: %s\nviews: %d (run one with its call)\n", lb.path, len(lb.b.Views))
	for _, v := range lb.b.Views {
		out := c.runView(set, lb, v)
		cl := call{"query_base", []arg{{"base", lb.path}, {"view", v.Name}}}.render(caller.Door)
		data.Views = append(data.Views, BaseViewItem{Name: v.Name, Type: v.Type, Rows: len(out.Rows), Call: cl})
		fmt.Fprintf(&b, "- %s (%s): %s\n  view: %s\n", quote(v.Name), v.Type, plural(len(out.Rows), "row", "rows"), cl)
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// renderView renders one page of a view's result as a compact table: the
// path of each row, the view's columns, the summaries, "rows 1–50 of 212"
// and the call for the next page.
func renderView(caller Caller, lb *loadedBase, out *base.Result, files, offset, limit int, next func(int) call) (BaseViewData, string) {
	one, many := "file", "files"
	if lb.path == "" {
		one, many = "note", "notes" // query_notes runs over notes only
	}
	if limit <= 0 {
		limit = baseRowsDefault
	}
	if !caller.Door.CLI() {
		limit = min(limit, baseRowsMax) // a person at the command line may ask for all (--csv)
	}
	offset = max(offset, 0)
	v := out.View
	data := BaseViewData{Base: lb.path, Filter: lb.b.FilterText(v), Total: len(out.Rows), Matched: out.Matched, Files: files, Offset: offset,
		Columns: []string{}, Rows: []BaseRowData{}}
	if lb.path != "" {
		data.View, data.Type = v.Name, v.Type
	}
	var shown []int // the columns shown (not those the path carries)
	for i, col := range out.Columns {
		if col.ID != "file.name" && col.ID != "file.path" && col.ID != "file.basename" {
			shown = append(shown, i)
			data.Columns = append(data.Columns, col.Name)
		}
	}
	var b strings.Builder
	if lb.path != "" {
		fmt.Fprintf(&b, "base: %s\nview: %s (%s)\n", lb.path, v.Name, v.Type)
	}
	if data.Filter != "" {
		b.WriteString("filter: " + data.Filter + "\n")
	} else {
		b.WriteString("filter: none (every file of the vault)\n")
	}
	rows := out.Rows[min(offset, len(out.Rows)):]
	if len(rows) > limit {
		rows = rows[:limit]
	}
	switch {
	case len(out.Rows) == 0:
		fmt.Fprintf(&b, "rows: 0: the filter selects none of the %s.\n", plural(files, one, many))
		if len(data.Columns) > 0 {
			b.WriteString("columns: " + strings.Join(data.Columns, ", ") + "\n")
		}
	case len(rows) == 0:
		fmt.Fprintf(&b, "rows: none at offset %d; the view has %s.\n", offset, plural(len(out.Rows), "row", "rows"))
	default:
		fmt.Fprintf(&b, "rows %d–%d of %d", offset+1, offset+len(rows), len(out.Rows))
		if out.Matched > len(out.Rows) {
			fmt.Fprintf(&b, " (the view's limit of %d; its filter selects %d)", v.Limit, out.Matched)
		}
		fmt.Fprintf(&b, " (of %s)\n", plural(files, one, many))
	}
	header := func() {
		b.WriteString("| path")
		for _, i := range shown {
			b.WriteString(" | " + cell(out.Columns[i].Name))
		}
		b.WriteString(" |\n|---")
		for range shown {
			b.WriteString("|---")
		}
		b.WriteString("|\n")
	}
	grouped := v.GroupBy != nil
	if grouped && len(out.Groups) > 0 {
		data.GroupBy = lb.b.DisplayName(v.GroupBy.Property)
		at := map[string]int{} // groups shown alike are one
		for _, gr := range out.Groups {
			g := oneLine(base.Text(gr.Value))
			if i, ok := at[g]; ok {
				data.Groups[i].Rows += len(gr.Rows)
				continue
			}
			at[g] = len(data.Groups)
			data.Groups = append(data.Groups, BaseGroupData{Value: g, Rows: len(gr.Rows)})
		}
		var gs []string
		for _, g := range data.Groups {
			name := g.Value
			if name == "" {
				name = "(none)"
			}
			gs = append(gs, fmt.Sprintf("%s (%s)", name, plural(g.Rows, "row", "rows")))
		}
		fmt.Fprintf(&b, "groups by %s: %s\n", data.GroupBy, strings.Join(gs, ", "))
	}
	lastGroup := "\x00"
	if !grouped && len(rows) > 0 {
		header()
	}
	for _, r := range rows {
		rd := BaseRowData{Path: r.File.Path, Cells: make([]string, 0, len(shown))}
		for _, i := range shown {
			rd.Cells = append(rd.Cells, cellText(r.Cells[i], caller.Door))
		}
		if grouped {
			rd.Group = oneLine(base.Text(r.Group))
			if rd.Group != lastGroup {
				lastGroup = rd.Group
				g := rd.Group
				if g == "" {
					g = "(none)"
				}
				count := 0
				for _, gr := range data.Groups {
					if gr.Value == rd.Group {
						count = gr.Rows
					}
				}
				fmt.Fprintf(&b, "\n%s: %s (%s)\n", lb.b.DisplayName(v.GroupBy.Property), g, plural(count, "row", "rows"))
				header()
			}
		}
		b.WriteString("| " + cell(r.File.Path))
		for _, c := range rd.Cells {
			b.WriteString(" | " + strings.ReplaceAll(c, "|", `\|`))
		}
		b.WriteString(" |\n")
		data.Rows = append(data.Rows, rd)
	}
	if len(out.Summaries) > 0 {
		b.WriteString("summaries:")
		for i, s := range out.Summaries {
			val := cellText(s.Value, caller.Door)
			if f, ok := s.Value.(float64); ok && f != math.Trunc(f) {
				val = strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
			}
			if val == "" {
				val = "(none)"
			}
			data.Summaries = append(data.Summaries, BaseSummaryRow{Column: s.Name, Summary: s.Summary, Value: val})
			sep := " "
			if i > 0 {
				sep = "; "
			}
			fmt.Fprintf(&b, "%s%s %s = %s", sep, s.Name, s.Summary, val)
		}
		b.WriteString("\n")
	}
	if out.ErrorCount > 0 {
		fmt.Fprintf(&b, "not evaluated: %s (left out, or their cells left empty):\n", plural(out.ErrorCount, "file", "files"))
		for _, e := range out.Errors {
			line := e.Path + ": " + e.Err
			data.Errors = append(data.Errors, line)
			b.WriteString("- row: " + line + "\n")
		}
		data.ErrorsAll = out.ErrorCount
	}
	if n := offset + len(rows); n < len(out.Rows) {
		cl := next(n).render(caller.Door)
		data.Next = cl
		b.WriteString("next: " + cl + "\n")
	}
	if len(rows) > 0 {
		cl := call{"read_note", []arg{{"path", rows[0].File.Path}}}
		if rows[0].File.Ext() == "md" {
			b.WriteString("read a row: " + cl.render(caller.Door) + "\n")
		}
	}
	return data, strings.TrimRight(b.String(), "\n")
}

// cellText renders a value as a table cell shows it: on one line, cut
// to baseCellRunes for an agent (a person's CSV keeps it whole).
func cellText(v any, door Door) string {
	s := oneLine(base.Text(v))
	if !door.CLI() && utf8.RuneCountInString(s) > baseCellRunes {
		s = cut(s, baseCellRunes)
	}
	return s
}

// cell renders a header cell: | escaped.
func cell(s string) string { return strings.ReplaceAll(oneLine(s), "|", `\|`) }

// viewKey names one run of a view: over which set, of which base text,
// which view, with what as this, on which day (today() moves daily).
type viewKey struct {
	set  *baseSet
	src  string
	view string
	this string
	day  string
}

// maxViewResults bounds the results kept (a set change drops them all).
const maxViewResults = 32

// runView runs view v of lb over the set, or answers the result of the
// same run on the same set: a set is immutable, so a view whose filters,
// formulas and summaries do not read the clock (now(), relative(),
// random()) gives the same rows until the vault or the day changes.
func (c *Core) runView(set *baseSet, lb *loadedBase, v *base.View) *base.Result {
	now := c.now()
	if lb.src == "" || lb.b.UsesClock() {
		return lb.b.Run(v, set.files, set.env(now, lb.this))
	}
	k := viewKey{set: set, src: lb.src, view: v.Name, day: now.In(set.loc).Format("2006-01-02")}
	if lb.this != nil {
		k.this = lb.this.Path
	}
	cat := &c.bases
	cat.mu.Lock()
	out, ok := cat.results[k]
	cat.mu.Unlock()
	if ok {
		return out
	}
	out = lb.b.Run(v, set.files, set.env(now, lb.this))
	cat.mu.Lock()
	if cat.results == nil || len(cat.results) >= maxViewResults {
		cat.results = map[viewKey]*base.Result{}
	}
	for old := range cat.results {
		if old.set != set {
			delete(cat.results, old) // of a set no longer current
		}
	}
	cat.results[k] = out
	cat.mu.Unlock()
	return out
}

// Bases lists the vault's bases, sorted by path: its .base files, then
// the notes holding ```base blocks. query_base runs either by its path.
func (c *Core) Bases() (files, notes []string, err error) {
	set, err := c.baseSet(false)
	if err != nil {
		return nil, nil, err
	}
	return slices.Clone(set.bases), slices.Clone(set.blocks), nil
}
