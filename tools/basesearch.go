package tools

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/vaultd/vaultd/base"
	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/vault"
)

// A saved view is how the owner already looks at a part of the vault (a
// reading list, open tasks, projects by status). search_notes shows one
// when the question names it — the base by its file name, or a view by
// its name — or when the best hit is a note that embeds it
// (![[Leseliste.base#Noch nicht gelesen]]): its rows, so that "what's on
// my reading list that I haven't read" is answered by the search itself,
// with the exact query_base call for the rest.

// SavedViewData is a saved view a search answer shows.
type SavedViewData struct {
	Base    string        `json:"base"`
	View    string        `json:"view"`
	Type    string        `json:"type"`
	Total   int           `json:"total"`
	Columns []string      `json:"columns"`
	Rows    []BaseRowData `json:"rows"`
	Call    string        `json:"call"`
}

// Bounds: views one answer shows, rows of each.
const (
	searchViews    = 2
	searchViewRows = 10
)

// viewRef names a view of a base file.
type viewRef struct{ base, view string }

// savedViews finds the views a search for query shows: those the query
// names, else those the first hit embeds. It costs a pass over the
// catalog when the vault has no base; only a view to show builds the
// base set.
func (c *Core) savedViews(caller Caller, query string, hits []SearchHit) (top []SavedViewData, inHit []SavedViewData) {
	bases := c.baseFileList()
	if len(bases) == 0 {
		return nil, nil
	}
	words := foldWords(query)
	var named []viewRef
	for _, p := range bases {
		stem := strings.TrimSuffix(path.Base(p), path.Ext(p))
		if containsWords(words, foldWords(stem)) {
			named = append(named, viewRef{base: p})
		}
	}
	var embedded []viewRef
	if len(hits) > 0 && !hits[0].Some {
		embedded = c.embeddedViews(hits[0].Path, bases)
	}
	if len(named) == 0 && len(embedded) == 0 {
		return nil, nil
	}
	set, err := c.baseSet(false)
	if err != nil {
		return nil, nil
	}
	load := func(p string) *loadedBase {
		if vault.IsNote(p) { // a note with ```base blocks
			lb, res := c.findBase(caller, set.baseFiles(), p)
			if res != nil {
				return nil
			}
			lb.this = set.byPath[lb.path]
			return lb
		}
		src, err := c.v.ReadFile(p)
		if err != nil {
			return nil
		}
		b, err := base.Parse(src)
		if err != nil {
			return nil
		}
		return &loadedBase{path: p, this: set.byPath[p], b: b, src: string(src)}
	}
	run := func(lb *loadedBase, v *base.View) SavedViewData {
		out := c.runView(set, lb, v)
		data, _ := renderView(caller, lb, out, len(set.files), 0, searchViewRows, func(int) call { return call{} })
		return SavedViewData{Base: lb.path, View: v.Name, Type: v.Type, Total: data.Total, Columns: data.Columns, Rows: data.Rows,
			Call: call{"query_base", []arg{{"base", lb.path}, {"view", v.Name}}}.render(caller.Door)}
	}
	// Views the query names by their words, most words first; else, for
	// a base the query names, the views the hit embeds or its first.
	pick := func(lb *loadedBase, fallback []string) []*base.View {
		var out []*base.View
		for _, v := range lb.b.Views {
			if containsWords(words, foldWords(v.Name)) {
				out = append(out, v)
			}
		}
		sort.SliceStable(out, func(i, j int) bool { return len(foldWords(out[i].Name)) > len(foldWords(out[j].Name)) })
		if len(out) > 0 {
			return out[:1]
		}
		for _, name := range fallback {
			if v := lb.b.View(name); v != nil {
				out = append(out, v)
			}
		}
		if len(out) == 0 && len(lb.b.Views) > 0 {
			out = lb.b.Views[:1]
		}
		return out
	}
	shown := map[viewRef]bool{}
	if len(embedded) > 0 {
		byBase := map[string][]string{}
		var order []string
		for _, e := range embedded {
			if _, ok := byBase[e.base]; !ok {
				order = append(order, e.base)
			}
			byBase[e.base] = append(byBase[e.base], e.view)
		}
		for _, p := range order {
			lb := load(p)
			if lb == nil {
				continue
			}
			// Embedded, `this` is the embedding note (Bases syntax.md).
			lb.this = set.byPath[hits[0].Path]
			for _, v := range pick(lb, byBase[p]) {
				if len(inHit) < searchViews && !shown[viewRef{p, v.Name}] {
					shown[viewRef{p, v.Name}] = true
					inHit = append(inHit, run(lb, v))
				}
			}
		}
	}
	for _, n := range named {
		if len(top)+len(inHit) >= searchViews {
			break
		}
		lb := load(n.base)
		if lb == nil {
			continue
		}
		for _, v := range pick(lb, nil) {
			if !shown[viewRef{n.base, v.Name}] && len(top)+len(inHit) < searchViews {
				shown[viewRef{n.base, v.Name}] = true
				top = append(top, run(lb, v))
			}
		}
	}
	return top, inHit
}

// embeddedViews are the views the note at p embeds: ![[X.base]] (its first
// view, "") and ![[X.base#View]]; its own ```base blocks count as a base
// named by the note's path.
func (c *Core) embeddedViews(p string, bases []string) []viewRef {
	if !vault.IsNote(p) {
		return nil
	}
	n, err := c.v.Read(p)
	if err != nil || n.Doc == nil {
		return nil
	}
	var out []viewRef
	if len(base.Blocks(n.Doc.Src)) > 0 {
		out = append(out, viewRef{base: p}) // its own ```base blocks
	}
	for _, l := range n.Doc.Links {
		if !strings.EqualFold(path.Ext(l.Target), ".base") {
			continue
		}
		key := strings.ToLower(l.Target)
		for _, b := range bases {
			if strings.ToLower(b) == key || strings.ToLower(path.Base(b)) == path.Base(key) {
				out = append(out, viewRef{base: b, view: l.Fragment})
				break
			}
		}
	}
	return out
}

// foldWords are the lower-cased words of s (letters and digits).
func foldWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// containsWords reports whether every word of want is among words.
func containsWords(words, want []string) bool {
	if len(want) == 0 {
		return false
	}
	for _, w := range want {
		found := false
		for _, x := range words {
			if x == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// writeSavedView writes a saved view in a search answer: what it is, its
// rows as a table (at most searchViewRows) and the call that runs it.
func writeSavedView(b *strings.Builder, v SavedViewData, caller Caller) {
	fmt.Fprintf(b, "saved view: %q of %s (%s), ", v.View, v.Base, v.Type)
	switch {
	case v.Total == 0:
		b.WriteString("0 rows\n")
	case len(v.Rows) < v.Total:
		fmt.Fprintf(b, "rows 1–%d of %d\n", len(v.Rows), v.Total)
	default:
		fmt.Fprintf(b, "%s\n", plural(v.Total, "row", "rows"))
	}
	if len(v.Rows) > 0 {
		b.WriteString("| path")
		for _, c := range v.Columns {
			b.WriteString(" | " + cell(c))
		}
		b.WriteString(" |\n|---")
		for range v.Columns {
			b.WriteString("|---")
		}
		b.WriteString("|\n")
		for _, r := range v.Rows {
			b.WriteString("| " + r.Path)
			for _, c := range r.Cells {
				b.WriteString(" | " + strings.ReplaceAll(c, "|", `\|`))
			}
			b.WriteString(" |\n")
		}
	}
	b.WriteString("view: " + v.Call + "\n")
}

// baseFileList lists the vault's .base files, sorted: from a walk of the
// vault, looked at again only when the index's change journal says something
// other than a note changed since (a search costs one lock then, not a
// copy of the catalog). A note's change cannot add or remove a .base
// file: relisting for it made every search of the HTTP load on the laws
// wait for the catalog to take in the last write (268 ms a search
// instead of 28).
func (c *Core) baseFileList() []string {
	cat := &c.bases
	cat.mu.Lock()
	defer cat.mu.Unlock()
	if cat.listed {
		ch, err := c.Changes(cat.listMark)
		if err == nil && !ch.Lost && !slices.ContainsFunc(ch.Paths, func(p string) bool { return !vault.IsNote(p) }) {
			cat.listMark = ch.Next
			return cat.list
		}
	}
	if !cat.listed {
		// The first list: what the index's walk of the vault found, when
		// this process keeps the index (the changes since come from its
		// journal, as above).
		if w, ok := c.walkedFiles(); ok {
			var bases []string
			for _, p := range w.files {
				if strings.EqualFold(path.Ext(p), ".base") {
					bases = append(bases, p)
				}
			}
			cat.list, cat.listMark, cat.listed = bases, w.mark, true
			return bases
		}
	}
	// The files as they are, by a walk that reads none of them: the
	// catalog waits for an index that is behind, and while a vault is
	// indexed the first time it parsed every note (each search during
	// the laws' first build took 8 s).
	mark, err := c.Changes(index.ChangeMark{})
	var bases []string
	if werr := c.v.Walk(func(e vault.Entry) error {
		if !e.Note && strings.EqualFold(path.Ext(e.Path), ".base") {
			bases = append(bases, e.Path)
		}
		return nil
	}); werr != nil {
		return nil
	}
	sort.Strings(bases)
	cat.list, cat.listMark, cat.listed = bases, mark.Next, err == nil
	return bases
}
