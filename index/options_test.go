package index

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSearch_CommandWithOption_Tldr: a command's name with an option
// ("grep -r", "git commit -m") finds the command's page first, over every
// fourth page of the tldr pages in common/: each asked for with the first
// short option its text writes and with one it does not write. The option
// ranks but is not required: grep's page writes "-rI", and "grep -r"
// required "r" and put ast-grep, exiqgrep and bzgrep first, the page on
// grep not among the first ten (744 of 890 first); and the name without
// its options names the note (862 of 890 without). Pages sharing a title
// (kill on Linux and in common) count either.
func TestSearch_CommandWithOption_Tldr(t *testing.T) {
	v, dir := copyCorpus(t, "tldr-en")
	ix := openIndex(t, v, Options{})
	option := regexp.MustCompile(`\{\{\[-([A-Za-z0-9]{1,2})\|`)
	titled := map[string][]string{}
	var pages []string
	err := filepath.WalkDir(filepath.Join(dir, "common"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		pages = append(pages, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	title := func(text string) string {
		first, _, _ := strings.Cut(text, "\n")
		return strings.TrimPrefix(first, "# ")
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			titled[title(string(b))] = append(titled[title(string(b))], filepath.ToSlash(rel))
		}
		return nil
	})
	asked, first := 0, 0
	var misses []string
	for i := 0; i < len(pages); i += 4 {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(pages[i])))
		if err != nil {
			t.Fatal(err)
		}
		m := option.FindStringSubmatch(string(b))
		name := title(string(b))
		if m == nil {
			continue
		}
		// Its own option, and one it does not write (as "grep -r").
		qs := []string{name + " -" + m[1]}
		for _, o := range []string{"r", "v", "f", "a", "l", "n", "x", "q"} {
			if !strings.Contains(string(b), "-"+o) {
				qs = append(qs, name+" -"+o)
				break
			}
		}
		for _, q := range qs {
			asked++
			r := mustSearch(t, ix, Query{Text: q})
			if len(r.Hits) > 0 && slices.Contains(titled[name], r.Hits[0].Path) {
				first++
				continue
			}
			misses = append(misses, fmt.Sprintf("%q (%s) → %v", q, pages[i], hitPaths(r)[:min(3, len(r.Hits))]))
		}
	}
	t.Logf("%d of %d pages first", first, asked)
	if asked < 600 || first*100 < asked*99 {
		t.Errorf("%d of %d pages first for their name with an option (want ≥ 99 %%):\n%s", first, asked, strings.Join(misses, "\n"))
	}
}
