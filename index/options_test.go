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
// fourth page of the English tldr pages in common/ and every German one:
// each asked for with the first short option its text writes and with one
// it does not write. The option ranks but is not required: grep's page
// writes "-rI", and "grep -r" required "r" and put ast-grep, exiqgrep and
// bzgrep first, the page on grep not among the first ten (744 of 890
// first); the name without its options names the note (862 of 890
// without), the name exactly before a name but for punctuation ("clang -o":
// clang before clang++), and a name left out as a common word still names
// its note ("du -v": du is a German stop word). Pages sharing a title
// (kill on Linux and in common) count either.
func TestSearch_CommandWithOption_Tldr(t *testing.T) {
	for _, c := range []struct {
		corpus string
		step   int
	}{{"tldr-en", 4}, {"tldr-de", 1}} {
		t.Run(c.corpus, func(t *testing.T) { commandWithOption(t, c.corpus, c.step) })
	}
}

func commandWithOption(t *testing.T, corpus string, step int) {
	v, dir := copyCorpus(t, corpus)
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
	for i := 0; i < len(pages); i += step {
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
	if asked < 200 || first*100 < asked*99 {
		t.Errorf("%d of %d pages first for their name with an option (want ≥ 99 %%):\n%s", first, asked, strings.Join(misses, "\n"))
	}
}

// TestSearch_NamedCommandWithOption: the name without its options names
// the note: exactly before but for punctuation (clang before clang++,
// which holds the words more often), and also when the name is a common
// word the search leaves out (du, "you" in German), with an option the
// note does not write — unless a filter leaves it out.
func TestSearch_NamedCommandWithOption(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"common/clang.md":   "# clang\n\n- Compile: `clang {{[-o|--output]}} file`\n",
		"common/clang++.md": "# clang++\n\nclang for C++: clang clang clang.\n\n- Compile: `clang++ {{[-o|--output]}} file`\n",
		"common/du.md":      "# du\n\n- Sizes: `du {{[-h|--human-readable]}}`\n",
		"common/ls.md":      "# ls\n\n- Verbose: `ls -v`\n",
		"linux/ls.md":       "# ls\n\n- Verbose: `ls -v`\n",
	})
	ix := openIndex(t, v, Options{})
	for q, want := range map[string]string{"clang -o": "common/clang.md", "du -v": "common/du.md", "du -h": "common/du.md"} {
		if res := mustSearch(t, ix, Query{Text: q}); len(res.Hits) == 0 || res.Hits[0].Path != want {
			t.Errorf("%s: hits %v, want %s first", q, hitPaths(res), want)
		}
	}
	// A filter given beside the text still holds.
	res := mustSearch(t, ix, Query{Text: "du -v", Folder: "linux"})
	if slices.Contains(hitPaths(res), "common/du.md") {
		t.Errorf("du -v in folder linux: hits %v, want no common/du.md", hitPaths(res))
	}
}
