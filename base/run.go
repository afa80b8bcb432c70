package base

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Column is one column of a view's result.
type Column struct {
	ID   string // property id: "status", "file.name", "formula.ppu"
	Name string // its display name
}

// Row is one file of a view's result with its cells, one per column.
type Row struct {
	File  *File
	Cells []any
	// Group is the row's value of the view's groupBy property.
	Group any
}

// Summary is one summary of a column over the rows shown.
type Summary struct {
	Column  string // property id
	Name    string // column display name
	Summary string // "Average"
	Value   any
}

// Group is a run of rows with the same groupBy value.
type Group struct {
	Value any
	Rows  []Row
}

// RowError is a file whose filter or cells could not be evaluated.
type RowError struct {
	Path string
	Err  string
}

// Result is what a view shows.
type Result struct {
	View    *View
	Columns []Column
	// Rows are the rows after sort, group and limit, in the order shown.
	Rows []Row
	// Groups, when the view groups: Rows split by their groupBy value.
	Groups []Group
	// Matched is how many files the filters selected (before limit).
	Matched   int
	Summaries []Summary
	// Errors are the files a filter could not be evaluated on (left out)
	// and the cells that could not (left empty): the first few, and how
	// many in all.
	Errors     []RowError
	ErrorCount int
}

const maxRowErrors = 5

// Run runs view v of b over files: the base's and the view's filters, the
// columns (Order, or file.name when the view names none), sort, groupBy
// and limit, and the view's summaries over the rows shown.
func (b *Base) Run(v *View, files []*File, env *Env) *Result {
	res := &Result{View: v}
	order := v.Order
	if len(order) == 0 {
		order = []string{"file.name"}
	}
	for _, id := range order {
		res.Columns = append(res.Columns, Column{ID: id, Name: b.DisplayName(id)})
	}
	type hit struct {
		s    *scope
		keys []any
	}
	var hits []hit
	fail := func(p string, err error) {
		res.ErrorCount++
		if len(res.Errors) < maxRowErrors {
			res.Errors = append(res.Errors, RowError{Path: p, Err: err.Error()})
		}
	}
	scopes := make([]scope, len(files)) // one allocation for every row's
	for i, f := range files {
		s := &scopes[i]
		*s = scope{env: env, file: f, formulas: b.Formulas}
		ok, err := s.filter(b.Filters)
		if err == nil && ok {
			ok, err = s.filter(v.Filters)
		}
		if err != nil {
			fail(f.Path, err)
			continue
		}
		if !ok {
			continue
		}
		h := hit{s: s}
		if len(v.Sort) > 0 {
			h.keys = make([]any, len(v.Sort))
			for k, sk := range v.Sort {
				h.keys[k] = s.propValue(sk.Property)
			}
		}
		hits = append(hits, h)
	}
	res.Matched = len(hits)
	cmp := func(a, c hit) int {
		for i, k := range v.Sort {
			r := a.s.order(a.keys[i], c.keys[i])
			if k.Desc && a.keys[i] != nil && c.keys[i] != nil {
				r = -r
			}
			if r != 0 {
				return r
			}
		}
		return strings.Compare(a.s.file.Path, c.s.file.Path)
	}
	var groupOf []any
	if v.GroupBy != nil {
		groupOf = make([]any, len(hits))
		for i, h := range hits {
			groupOf[i] = h.s.propValue(v.GroupBy.Property)
		}
	}
	idx := make([]int, len(hits))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, c := hits[idx[i]], hits[idx[j]]
		if groupOf != nil {
			ga, gc := groupOf[idx[i]], groupOf[idx[j]]
			r := a.s.order(groupKey(ga), groupKey(gc))
			if v.GroupBy.Desc && ga != nil && gc != nil {
				r = -r
			}
			if r != 0 {
				return r < 0
			}
		}
		return cmp(a, c) < 0
	})
	if v.Limit > 0 && len(idx) > v.Limit {
		idx = idx[:v.Limit]
	}
	for _, i := range idx {
		h := hits[i]
		row := Row{File: h.s.file}
		for _, c := range res.Columns {
			val, err := h.s.safeProp(c.ID)
			if err != nil {
				fail(h.s.file.Path, err)
			}
			row.Cells = append(row.Cells, val)
		}
		if groupOf != nil {
			row.Group = groupOf[i]
		}
		res.Rows = append(res.Rows, row)
	}
	if groupOf != nil {
		for _, r := range res.Rows {
			if n := len(res.Groups); n > 0 && sameGroup(res.Groups[n-1].Value, r.Group) {
				res.Groups[n-1].Rows = append(res.Groups[n-1].Rows, r)
				continue
			}
			res.Groups = append(res.Groups, Group{Value: r.Group, Rows: []Row{r}})
		}
	}
	for _, cs := range v.Summaries {
		var vals []any
		col := -1
		for i, c := range res.Columns {
			if c.ID == cs.Property {
				col = i
			}
		}
		for _, r := range res.Rows {
			if col >= 0 {
				vals = append(vals, r.Cells[col])
				continue
			}
			s := &scope{env: env, file: r.File, formulas: b.Formulas}
			val, _ := s.safeProp(cs.Property)
			vals = append(vals, val)
		}
		val, err := b.summarize(cs.Summary, vals, env)
		if err != nil {
			fail("summary "+cs.Summary+" of "+cs.Property, err)
		}
		res.Summaries = append(res.Summaries, Summary{Column: cs.Property, Name: b.DisplayName(cs.Property), Summary: cs.Summary, Value: val})
	}
	return res
}

// groupKey is what rows group by: a list by its text.
func groupKey(v any) any {
	if l, ok := v.([]any); ok {
		return Text(l)
	}
	return v
}

func sameGroup(a, b any) bool {
	return Text(groupKey(a)) == Text(groupKey(b)) && (a == nil) == (b == nil)
}

// filter evaluates a filter on the scope's file.
func (s *scope) filter(f *Filter) (bool, error) {
	if f == nil {
		return true, nil
	}
	switch f.Op {
	case "expr":
		v, err := s.evalExpr(f.Expr)
		if err != nil {
			return false, err
		}
		return truthy(v), nil
	case "and":
		for _, it := range f.Items {
			ok, err := s.filter(it)
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case "or":
		for _, it := range f.Items {
			ok, err := s.filter(it)
			if err != nil {
				return false, err
			}
			if ok {
				return true, nil
			}
		}
		return false, nil
	case "not":
		for _, it := range f.Items {
			ok, err := s.filter(it)
			if err != nil {
				return false, err
			}
			if ok {
				return false, nil
			}
		}
		return true, nil
	}
	return false, fmt.Errorf("unknown filter group %q", f.Op)
}

// propValue is a property id's value for the scope's file; an error is
// an empty cell (safeProp reports it).
func (s *scope) propValue(id string) any {
	v, _ := s.safeProp(id)
	return v
}

func (s *scope) safeProp(id string) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			ee, ok := r.(*evalError)
			if !ok {
				panic(r)
			}
			if ee.expr == "" {
				ee.expr, ee.col = id, 0
			}
			v, err = nil, ee
		}
	}()
	switch {
	case strings.HasPrefix(id, "file."):
		return s.fileField(s.file, strings.TrimPrefix(id, "file."), 0), nil
	case strings.HasPrefix(id, "formula."):
		return s.formula(strings.TrimPrefix(id, "formula."), 0), nil
	case strings.HasPrefix(id, "this."):
		inner := *s
		inner.file = s.env.This
		return inner.safeProp(strings.TrimPrefix(id, "this."))
	}
	v, _ = s.file.prop(id)
	return v, nil
}

// summarize computes summary name over a column's values.
func (b *Base) summarize(name string, vals []any, env *Env) (any, error) {
	s := &scope{env: env, formulas: b.Formulas}
	var nums []float64
	var dates []Date
	for _, v := range vals {
		switch x := v.(type) {
		case float64:
			if !math.IsNaN(x) {
				nums = append(nums, x)
			}
		case Date:
			dates = append(dates, x)
		}
	}
	switch name {
	case "Average", "Sum", "Median", "Stddev":
		if len(nums) == 0 {
			return nil, nil
		}
		sum := 0.0
		for _, x := range nums {
			sum += x
		}
		mean := sum / float64(len(nums))
		switch name {
		case "Sum":
			return sum, nil
		case "Average":
			return mean, nil
		case "Median":
			sort.Float64s(nums)
			if len(nums)%2 == 1 {
				return nums[len(nums)/2], nil
			}
			return (nums[len(nums)/2-1] + nums[len(nums)/2]) / 2, nil
		}
		v := 0.0
		for _, x := range nums {
			v += (x - mean) * (x - mean)
		}
		return math.Sqrt(v / float64(len(nums))), nil
	case "Min", "Max":
		if len(nums) == 0 {
			if len(dates) > 0 {
				return b.summarize(map[string]string{"Min": "Earliest", "Max": "Latest"}[name], vals, env)
			}
			return nil, nil
		}
		m := nums[0]
		for _, x := range nums {
			if name == "Min" && x < m || name == "Max" && x > m {
				m = x
			}
		}
		return m, nil
	case "Range":
		if len(dates) > 0 && len(nums) == 0 {
			lo, hi := dates[0], dates[0]
			for _, d := range dates {
				if d.T.Before(lo.T) {
					lo = d
				}
				if d.T.After(hi.T) {
					hi = d
				}
			}
			return Duration{Ms: float64(hi.T.Sub(lo.T).Milliseconds())}, nil
		}
		if len(nums) == 0 {
			return nil, nil
		}
		lo, hi := nums[0], nums[0]
		for _, x := range nums {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		return hi - lo, nil
	case "Earliest", "Latest":
		if len(dates) == 0 {
			return nil, nil
		}
		m := dates[0]
		for _, d := range dates {
			if name == "Earliest" && d.T.Before(m.T) || name == "Latest" && d.T.After(m.T) {
				m = d
			}
		}
		return m, nil
	case "Checked", "Unchecked":
		n := 0
		for _, v := range vals {
			if x, ok := v.(bool); ok && x == (name == "Checked") {
				n++
			}
		}
		return float64(n), nil
	case "Empty", "Filled":
		n := 0
		for _, v := range vals {
			if isEmpty(v) == (name == "Empty") {
				n++
			}
		}
		return float64(n), nil
	case "Unique":
		var seen []any
		for _, v := range vals {
			if isEmpty(v) {
				continue
			}
			if !s.contains(seen, v) {
				seen = append(seen, v)
			}
		}
		return float64(len(seen)), nil
	}
	e, ok := b.Summaries[name]
	if !ok {
		return nil, fmt.Errorf("unknown summary %q", name)
	}
	list := append([]any{}, vals...)
	s.locals = map[string]any{"values": list}
	return s.evalExpr(e)
}

// NewQuery builds a base of one table view from an ad-hoc filter (an
// expression; "" keeps every note), the columns to show (property ids)
// and the sort keys: what query_notes runs.
func NewQuery(filter string, columns []string, sortKeys []SortKey, limit int) (*Base, error) {
	b := &Base{Formulas: map[string]*Expr{}, DisplayNames: map[string]string{}, Summaries: map[string]*Expr{}}
	v := &View{Type: "table", Name: "query", Limit: limit, Sort: sortKeys}
	if strings.TrimSpace(filter) != "" {
		e, err := ParseExpr(filter)
		if err != nil {
			if be, ok := err.(*Error); ok {
				be.Where = "filter"
			}
			return nil, err
		}
		v.Filters = &Filter{Op: "expr", Expr: e}
	}
	for _, c := range columns {
		v.Order = append(v.Order, propID(c))
	}
	b.Views = []*View{v}
	return b, b.check()
}
