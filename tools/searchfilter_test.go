package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSearch_UnknownFilter_Corpora: over the example vault and both
// Obsidian helps, a search that finds nothing answers with the usual empty
// page for every tag, space and folder the vault has — given as a
// parameter or written in the query — and, for each of them with a letter
// added (a value no note has), names the filter, lists that value among
// the closest, and its next call searches with the nearest without error.
func TestSearch_UnknownFilter_Corpora(t *testing.T) {
	eachVaultCopy(t, func(t *testing.T, dir string) {
		c, _ := newTestCoreIndex(t, dir)
		ctx := context.Background()
		known := c.filterValues()
		checked := 0
		for _, kind := range []string{"tag", "space", "folder"} {
			have := known[kind]
			if len(have) == 0 {
				t.Fatalf("no %s in the vault", kind)
			}
			for _, value := range have {
				if strings.ContainsAny(value, " \"") {
					continue // written in a query, it needs quotes
				}
				for _, typed := range []bool{false, true} {
					search := func(v string) SearchNotesArgs {
						a := SearchNotesArgs{Query: "Zzyzxq"}
						switch {
						case typed && kind == "tag":
							a.Query += " tag:" + v
						case typed:
							a.Query += " " + kind + ":" + v
						case kind == "tag":
							a.Tag = v
						case kind == "space":
							a.Space = v
						default:
							a.Folder = v
						}
						return a
					}
					if r := c.Invoke(ctx, readOnly, "search_notes", search(value)); r.Err != nil {
						t.Errorf("%s %q (typed %v) exists: %s", kind, value, typed, r.Text)
						continue
					}
					wrong := value + "q"
					if slices.ContainsFunc(have, func(s string) bool { return strings.EqualFold(s, wrong) }) {
						continue
					}
					r := c.Invoke(ctx, readOnly, "search_notes", search(wrong))
					d, _ := r.Data.(map[string]any)
					closest, _ := d["closest"].([]string)
					if r.Err == nil || d["unknown_filter"] != kind || !slices.Contains(closest, value) && len(closest) < maxAlternatives {
						t.Errorf("%s %q (typed %v): %s", kind, wrong, typed, r.Text)
						continue
					}
					if again := c.Invoke(ctx, readOnly, "search_notes", search(closest[0])); again.Err != nil {
						t.Errorf("%s %q: the search with the nearest, %q, failed: %s", kind, wrong, closest[0], again.Text)
					}
					checked++
				}
			}
		}
		t.Logf("%d unknown filters answered", checked)
	})
}

// TestQueryNotes_UnknownName_Corpora: over the example vault and both
// Obsidian helps, a query_notes filter that selects nothing names none of
// the vault's folders and tags as unknown, and for each of them with a
// letter added says there is no such folder or tag, with the right one
// among the closest and a try whose filter runs.
func TestQueryNotes_UnknownName_Corpora(t *testing.T) {
	eachVaultCopy(t, func(t *testing.T, dir string) {
		c, _ := newTestCoreIndex(t, dir)
		ctx := context.Background()
		known := c.filterValues()
		checked := 0
		for _, k := range []struct{ kind, fn, what string }{{"folder", "inFolder", "no such folder"}, {"tag", "hasTag", "no note has the tag"}} {
			for _, value := range known[k.kind] {
				if strings.ContainsAny(value, "\"\\") {
					continue
				}
				filter := func(v string) string {
					return `file.name == "zzyzxq" || file.` + k.fn + `("` + v + `") && file.name == "zzyzxq"`
				}
				r := c.Invoke(ctx, readOnly, "query_notes", QueryNotesArgs{Filter: filter(value)})
				if r.Err != nil || strings.Contains(r.Text, k.what) {
					t.Errorf("%s %q exists: %s", k.kind, value, r.Text)
					continue
				}
				wrong := value + "q"
				if hasValue(known[k.kind], wrong) {
					continue
				}
				r = c.Invoke(ctx, readOnly, "query_notes", QueryNotesArgs{Filter: filter(wrong)})
				shown := value
				if k.kind == "tag" {
					shown = "#" + value
				}
				line := fmt.Sprintf("file.%s(%q): %s; closest: ", k.fn, wrong, k.what)
				i := strings.Index(r.Text, line)
				var closest []string
				if i >= 0 {
					closest = strings.Split(strings.SplitN(r.Text[i+len(line):], "\n", 2)[0], ", ")
				}
				if !slices.Contains(closest, shown) {
					t.Errorf("%s %q: %s", k.kind, wrong, r.Text)
					continue
				}
				nearest := strings.TrimPrefix(closest[0], "#")
				if !strings.Contains(r.Text, "\ntry: query_notes") || !strings.Contains(r.Text, nearest) {
					t.Errorf("%s %q: no try with %s: %s", k.kind, wrong, nearest, r.Text)
				}
				if again := c.Invoke(ctx, readOnly, "query_notes", QueryNotesArgs{Filter: filter(nearest)}); again.Err != nil {
					t.Errorf("%s %q: the filter with the nearest failed: %s", k.kind, wrong, again.Text)
				}
				checked++
			}
		}
		t.Logf("%d unknown folders and tags answered", checked)
	})
}
