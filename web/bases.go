package web

import (
	"context"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// The Bases view: the vault's Obsidian bases (.base files and notes
// holding ```base blocks) with their views and row counts, and one view
// as the owner sees it in Obsidian — its columns, rows, groups,
// summaries, filter and the errors the core reports. Every view is run by
// the core's QueryBase, the very call behind the query_base tool and
// `vaultd base run`: the page evaluates nothing itself.

// basesCore is what the view asks of the core beside Core. *tools.Core
// implements it.
type basesCore interface {
	Bases() (files, notes []string, err error)
	QueryBase(context.Context, tools.Caller, tools.QueryBaseArgs) *tools.Result
}

var _ basesCore = (*tools.Core)(nil)

// baseRows is how many rows a view's page shows (query_base's default).
const baseRows = 50

// baseItem is one base on the list.
type baseItem struct {
	Path  string
	Name  string // the file's name without .base (a note: its name)
	Note  bool   // a note holding ```base blocks
	Views []tools.BaseViewItem
	Error string // why the core cannot run it (its words, in English)
}

// baseRow is one row of a view as the page shows it.
type baseRow struct {
	Path, Name, Folder string
	IsNote             bool
	Cells              []baseCell
}

// baseNote is a row's note for the "basenote" template, with the vault
// its link goes to ("" for a lone vault).
type baseNote struct {
	Row   baseRow
	Vault string
}

// baseCell is a row's value in one column.
type baseCell struct{ Column, Value string }

// baseGroup is the rows of this page in one group of a grouped view (a
// view without groupBy has one, unnamed).
type baseGroup struct {
	Value string
	None  bool // the rows without a value
	Total int  // the group's rows in the whole view
	Rows  []baseRow
}

// baseFoot is the summaries under one column.
type baseFoot struct{ Items []tools.BaseSummaryRow }

// bases lists the vault's bases with their views and row counts.
func (s *Server) bases(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	data := map[string]any{"Flash": s.takeFlash(r)}
	bc, ok := s.coreOf(r).(basesCore)
	if !ok {
		data["Error"] = l.T("bases.unavailable")
		s.render(w, r, http.StatusOK, "bases", data)
		return
	}
	files, notes, err := bc.Bases()
	if err != nil {
		s.o.Logger.Error("owner's page: the bases cannot be listed", "error", err)
		data["Error"] = l.T("bases.failed")
		s.render(w, r, http.StatusOK, "bases", data)
		return
	}
	items := make([]baseItem, 0, len(files)+len(notes))
	for _, p := range append(files, notes...) {
		it := baseItem{Path: p, Name: strings.TrimSuffix(path.Base(p), path.Ext(p)), Note: vault.IsNote(p)}
		res := bc.QueryBase(r.Context(), caller(), tools.QueryBaseArgs{Base: p, Limit: 1})
		switch d := res.Data.(type) {
		case tools.BaseViewsData:
			it.Views = d.Views
		case tools.BaseViewData:
			it.Views = []tools.BaseViewItem{{Name: d.View, Type: d.Type, Rows: d.Total}}
		default:
			it.Error = coreReason(res)
		}
		items = append(items, it)
	}
	data["Bases"] = items
	s.render(w, r, http.StatusOK, "bases", data)
}

// baseView shows one view of a base, a page of baseRows rows at a time.
// A base or view that does not exist answers 404 with what exists
// instead; a base that cannot be run shows the core's error.
func (s *Server) baseView(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	q := r.URL.Query()
	p, view := q.Get("path"), q.Get("view")
	offset, _ := strconv.Atoi(q.Get("offset"))
	offset = max(offset, 0)
	data := map[string]any{"Flash": s.takeFlash(r), "Path": p, "View": view}
	bc, ok := s.coreOf(r).(basesCore)
	if !ok {
		data["Error"] = l.T("bases.unavailable")
		s.render(w, r, http.StatusOK, "base", data)
		return
	}
	// The base's views first (the tabs): this also finds the base, or
	// says why not.
	list := bc.QueryBase(r.Context(), caller(), tools.QueryBaseArgs{Base: p, Limit: 1})
	var views []tools.BaseViewItem
	switch d := list.Data.(type) {
	case tools.BaseViewsData:
		p, views = d.Base, d.Views
	case tools.BaseViewData:
		p, views = d.Base, []tools.BaseViewItem{{Name: d.View, Type: d.Type, Rows: d.Total}}
	default:
		s.baseRefused(w, r, data, list)
		return
	}
	data["Path"], data["Views"] = p, views
	if view == "" && len(views) > 0 {
		view = views[0].Name
	}
	data["View"] = view
	res := bc.QueryBase(r.Context(), caller(), tools.QueryBaseArgs{Base: p, View: view, Limit: baseRows, Offset: offset})
	d, ok := res.Data.(tools.BaseViewData)
	if !ok {
		s.baseRefused(w, r, data, res)
		return
	}
	data["Data"] = d
	data["Groups"] = baseGroups(d)
	data["Foot"], data["FootRest"] = baseFeet(d)
	data["Cols"] = len(d.Columns) + 1
	data["Layout"] = "table"
	if d.Type == "cards" || d.Type == "list" {
		data["Layout"] = d.Type
	}
	data["From"], data["To"] = d.Offset+1, d.Offset+len(d.Rows)
	page := func(off int) string {
		return s.here(r, "/base?path="+url.QueryEscape(p)+"&view="+url.QueryEscape(view)+"&offset="+strconv.Itoa(off))
	}
	if n := d.Offset + len(d.Rows); n < d.Total && len(d.Rows) > 0 {
		data["Next"] = page(n)
	}
	if d.Offset > 0 {
		data["Prev"] = page(max(d.Offset-baseRows, 0))
		data["First"] = page(0)
	}
	s.render(w, r, http.StatusOK, "base", data)
}

// baseRefused shows why a base or view cannot be shown: not found (404,
// with the bases or views there are, as links), or a base the core cannot
// run (its error, which Obsidian shows too).
func (s *Server) baseRefused(w http.ResponseWriter, r *http.Request, data map[string]any, res *tools.Result) {
	l := langFor(r)
	m, _ := res.Data.(map[string]any)
	status := http.StatusOK
	switch {
	case m["error"] == "not_found" && m["views"] != nil:
		status = http.StatusNotFound
		base, _ := m["base"].(string)
		data["Path"] = base
		data["Missing"] = l.T("bases.no_view", base, data["View"])
		var links []link
		names, _ := m["views"].([]string)
		for _, v := range names {
			links = append(links, link{"/base?path=" + url.QueryEscape(base) + "&view=" + url.QueryEscape(v), v})
		}
		data["Instead"], data["InsteadTitle"] = linksIn(links, s.curOf(r).name), l.T("bases.its_views")
	case m["error"] == "not_found":
		status = http.StatusNotFound
		data["Missing"] = l.T("bases.no_base", data["Path"])
		var links []link
		names, _ := m["bases"].([]string)
		for _, b := range names {
			links = append(links, link{"/base?path=" + url.QueryEscape(b), b})
		}
		data["Instead"], data["InsteadTitle"] = linksIn(links, s.curOf(r).name), l.T("bases.the_bases")
	default:
		if b, ok := m["base"].(string); ok && b != "" {
			data["Path"] = b
		}
		data["Broken"] = coreReason(res)
		if p, _ := data["Path"].(string); p != "" {
			file, _, _ := strings.Cut(p, " (base block")
			data["BrokenFile"] = file
		}
	}
	s.render(w, r, status, "base", data)
}

// coreReason is what the core says is wrong, without its "error:
// query_base:" prefix and the lines for agents: the base's parse error
// with its expression and column, or an unknown function.
func coreReason(res *tools.Result) string {
	if m, ok := res.Data.(map[string]any); ok {
		if why, ok := m["reason"].(string); ok && why != "" {
			return why
		}
	}
	first, _, _ := strings.Cut(res.Text, "\n")
	return strings.TrimPrefix(first, "error: query_base: ")
}

// baseGroups splits a page's rows by their group, each with its total in
// the whole view.
func baseGroups(d tools.BaseViewData) []baseGroup {
	var out []baseGroup
	for _, rd := range d.Rows {
		row := baseRow{Path: rd.Path, IsNote: vault.IsNote(rd.Path), Folder: path.Dir(rd.Path)}
		row.Name = path.Base(rd.Path)
		if row.IsNote {
			row.Name = strings.TrimSuffix(row.Name, path.Ext(row.Name))
		}
		if row.Folder == "." {
			row.Folder = ""
		}
		for i, c := range rd.Cells {
			col := ""
			if i < len(d.Columns) {
				col = d.Columns[i]
			}
			row.Cells = append(row.Cells, baseCell{Column: col, Value: c})
		}
		if len(out) == 0 || d.GroupBy != "" && out[len(out)-1].Value != rd.Group {
			g := baseGroup{Value: rd.Group, None: rd.Group == "", Total: len(d.Rows)}
			if d.GroupBy != "" {
				for _, gd := range d.Groups {
					if gd.Value == rd.Group {
						g.Total = gd.Rows
					}
				}
			}
			out = append(out, g)
		}
		out[len(out)-1].Rows = append(out[len(out)-1].Rows, row)
	}
	return out
}

// baseFeet places the summaries under their columns, as Obsidian shows
// them; those of a column the table does not show (the note's name) go
// under the first.
func baseFeet(d tools.BaseViewData) (feet []baseFoot, rest []tools.BaseSummaryRow) {
	feet = make([]baseFoot, len(d.Columns))
	for _, sm := range d.Summaries {
		placed := false
		for i, c := range d.Columns {
			if c == sm.Column {
				feet[i].Items = append(feet[i].Items, sm)
				placed = true
				break
			}
		}
		if !placed {
			rest = append(rest, sm)
		}
	}
	return feet, rest
}

// Rows says how many rows: "1 row", "4 rows".
func (l *lang) Rows(n int) string {
	if n == 1 {
		return l.T("bases.one_row")
	}
	return l.T("bases.rows", n)
}

// ViewType names a view's type; a type vaultd shows as a table names
// that too.
func (l *lang) ViewType(t string) string {
	switch t {
	case "table", "cards", "list":
		return l.T("bases.type." + t)
	}
	return l.T("bases.type_other", t)
}

// SummaryName names one of Obsidian's built-in summaries in the page's
// language; a formula of the base keeps its name, marked as the owner's.
func (l *lang) SummaryName(name string) template.HTML {
	if _, ok := en.msgs["bases.sum."+name]; ok {
		return template.HTML(template.HTMLEscapeString(l.T("bases.sum." + name)))
	}
	return template.HTML(`<span translate="no">` + template.HTMLEscapeString(name) + `</span>`)
}
