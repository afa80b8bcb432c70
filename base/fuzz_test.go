package base

import (
	"testing"
	"time"
)

// FuzzExpr: any text either parses or is an *Error with a column inside
// it, and a parsed expression evaluates on a note without panicking (an
// evaluation error is an error, never a crash).
func FuzzExpr(f *testing.F) {
	for _, s := range []string{
		`status == "aktiv" && file.hasTag("projekt")`, `due < today() + "1 week"`, `[1,2,3].map(value * 2).filter(value > 2)`,
		`if(price, price.toFixed(2) + " dollars")`, `"a:b".replace(/:/g, "-")`, `{"a": 1}.keys()`, `note["x y"].lower()`,
		`file.links.contains(link("A"))`, `-(2).abs() % 3`, `formula.x`, `this.file.name`, `values.mean().round(3)`,
		`date("2024-12-01") + "1M" - "2h"`, `"\u00e4".length`, `/[a-z]+/i.matches(title)`, `x.reduce(acc + value, 0)`,
	} {
		f.Add(s)
	}
	file := &File{Path: "a/b.md", Size: 10, MTime: testNow, CTime: testNow, Tags: []string{"projekt/x"},
		Props: map[string]any{"status": "aktiv", "price": 2.5, "tags": []any{"a", "b"}, "due": Date{T: testNow}, "x": []any{1.0, 2.0}, "title": "Abc", "x y": "Z"},
		Links: []Link{{Target: "A", Path: "A.md"}}}
	file.Prepare()
	env := &Env{Now: testNow, Loc: time.UTC, Lookup: func(string) *File { return file }, Resolve: func(_, t string) string { return t + ".md" }, This: file}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ParseExpr(src)
		if err != nil {
			be, ok := err.(*Error)
			if !ok || be.Col < 0 || be.Col > len([]rune(src))+1 || be.Msg == "" {
				t.Fatalf("ParseExpr(%q): %v", src, err)
			}
			return
		}
		s := &scope{env: env, file: file, formulas: map[string]*Expr{"x": e}, locals: map[string]any{"values": []any{1.0, 2.0}}}
		_, _ = s.evalExpr(e)
	})
}
