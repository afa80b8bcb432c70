package tools

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/vaultd/vaultd/note"
)

// copyTree copies a read-only corpus into a temp dir (../shared is
// mounted read-only).
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// scanned is a note's frontmatter as a direct scan of its file reads it.
type scanned struct {
	path string
	fm   map[string]any
}

// scanFrontmatter reads every note's frontmatter straight from the files,
// with yaml.v3 and nothing of vaultd but the fence split.
func scanFrontmatter(t *testing.T, dir string) []scanned {
	t.Helper()
	var out []scanned
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != dir {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		s := scanned{path: filepath.ToSlash(rel)}
		if y, _, _, ok := note.SplitFrontmatter(b); ok {
			_ = yaml.Unmarshal(y, &s.fm)
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// prop looks a key up as Obsidian does: case-insensitively.
func (s scanned) prop(k string) (any, bool) {
	if v, ok := s.fm[k]; ok {
		return v, true
	}
	for mk, v := range s.fm {
		if strings.EqualFold(mk, k) {
			return v, true
		}
	}
	return nil, false
}

// filterCase is a filter and the direct predicate that selects the same
// notes from their frontmatter.
type filterCase struct {
	filter string
	want   func(s scanned) bool
}

// propertyCases derives filters from the vault's own frontmatter: for
// every key, a presence test; for every scalar text, number or true/false
// value, an equality; for every text item of a list, contains(); for
// every number, a comparison at that value.
func propertyCases(notes []scanned) []filterCase {
	seen := map[string]bool{}
	var out []filterCase
	add := func(c filterCase) {
		if !seen[c.filter] {
			seen[c.filter] = true
			out = append(out, c)
		}
	}
	for _, n := range notes {
		for k, v := range n.fm {
			key := k
			ref := "note[" + strconv.Quote(key) + "]"
			add(filterCase{"file.hasProperty(" + strconv.Quote(key) + ")", func(s scanned) bool { _, ok := s.prop(key); return ok }})
			switch x := v.(type) {
			case string:
				if strings.HasPrefix(x, "[[") || isDateText(x) || strings.ContainsAny(x, "\n\\") {
					continue // links and dates compare by what they name (conformance tests cover them)
				}
				val := x
				add(filterCase{ref + " == " + strconv.Quote(val), func(s scanned) bool { got, _ := s.prop(key); str, ok := got.(string); return ok && str == val }})
				add(filterCase{ref + ".contains(" + strconv.Quote(firstWord(val)) + ")", func(s scanned) bool {
					got, _ := s.prop(key)
					switch g := got.(type) {
					case string:
						return !isDateText(g) && !strings.HasPrefix(g, "[[") && strings.Contains(g, firstWord(val))
					case []any:
						for _, e := range g {
							if e == firstWord(val) {
								return true
							}
						}
					}
					return false
				}})
			case bool:
				b := x
				add(filterCase{ref + " == " + strconv.FormatBool(b), func(s scanned) bool { got, _ := s.prop(key); g, ok := got.(bool); return ok && g == b }})
			case int, float64:
				f := num(x)
				add(filterCase{ref + " == " + strconv.FormatFloat(f, 'f', -1, 64), func(s scanned) bool { got, _ := s.prop(key); return isNum(got) && num(got) == f }})
				add(filterCase{ref + " > " + strconv.FormatFloat(f, 'f', -1, 64), func(s scanned) bool { got, _ := s.prop(key); return isNum(got) && num(got) > f }})
			case []any:
				for _, e := range x {
					str, ok := e.(string)
					if !ok || strings.HasPrefix(str, "[[") || isDateText(str) || strings.ContainsAny(str, "\n\\") {
						continue
					}
					item := str
					add(filterCase{ref + ".contains(" + strconv.Quote(item) + ")", func(s scanned) bool {
						got, _ := s.prop(key)
						switch g := got.(type) {
						case []any:
							for _, e := range g {
								if e == item {
									return true
								}
							}
						case string:
							return !isDateText(g) && !strings.HasPrefix(g, "[[") && strings.Contains(g, item)
						}
						return false
					}})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].filter < out[j].filter })
	return out
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return s
}

func isDateText(s string) bool {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	_, err := time.Parse(time.DateOnly, s[:10])
	return err == nil
}

func isNum(v any) bool {
	switch v.(type) {
	case int, float64:
		return true
	}
	return false
}

func num(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// TestBases_FilterIsFrontmatterScan: for filters derived from the
// vault's own properties, query_notes answers exactly the notes a direct
// scan of their frontmatter selects — over the example vault and a copy
// of the English Obsidian help vault.
func TestBases_FilterIsFrontmatterScan(t *testing.T) {
	for _, src := range []string{"../example-vault", "../../shared/corpora/obsidian-help-en"} {
		if _, err := os.Stat(src); err != nil {
			t.Logf("skipping %s: %v", src, err)
			continue
		}
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir := copyTree(t, src)
			c := newTestCore(t, dir)
			notes := scanFrontmatter(t, dir)
			cases := propertyCases(notes)
			if len(cases) < 20 {
				t.Fatalf("only %d filters derived from %s", len(cases), src)
			}
			for _, fc := range cases {
				r := c.Invoke(context.Background(), Caller{Actor: "test", Perms: AllPerms, Door: DoorCLI}, "query_notes", QueryNotesArgs{Filter: fc.filter, Limit: 100000})
				if r.IsError() {
					t.Errorf("%s: %s", fc.filter, r.Text)
					continue
				}
				d := r.Data.(BaseViewData)
				var got []string
				for _, row := range d.Rows {
					got = append(got, row.Path)
				}
				var want []string
				for _, n := range notes {
					if fc.want(n) {
						want = append(want, n.path)
					}
				}
				sort.Strings(got)
				sort.Strings(want)
				if fmt.Sprint(got) != fmt.Sprint(want) || d.ErrorsAll > 0 {
					t.Errorf("%s: rows %v (errors %v), a scan of the frontmatter selects %v", fc.filter, got, d.Errors, want)
				}
			}
			t.Logf("%d filters over %d notes agree with the scan", len(cases), len(notes))
		})
	}
}
