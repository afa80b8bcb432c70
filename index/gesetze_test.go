package index

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/vault"
)

// The German federal laws (../shared/corpora/gesetze.tar.xz): 6,636 notes
// of up to 2.2 MB and 2,787 sections, every one a folder x/kuerzel/index.md.
// The questions (testdata/gesetze-questions.txt) were written from reading
// the laws, in other words than the paragraph that answers uses: other
// word forms, compounds that occur nowhere, a stop word that is also a
// noun, a paragraph's topic. The paragraph that answers must be among the
// first three sections of the answer (hits in order, each hit's sections
// in order).
//
// A build of the whole corpus takes about a minute on two cores, so `go
// test` (make test) runs the questions on a part of it: the laws that
// answer plus 230 others as distractors (the 10 largest, 2 MB each, and
// every 30th of the rest; 21 MB in all). With VAULTD_GESETZE=full (make
// stress) they run on all 6,636 laws; with VAULTD_GESETZE_STATE=dir the
// index is kept in dir between runs.

// gesetzeQuestion is a question and the sections that answer it (any one
// suffices): "path#heading", the heading a suffix of the section's path.
type gesetzeQuestion struct {
	q       string
	kind    string
	answers []string
}

// gesetzeQuestions are read from testdata/gesetze-questions.txt (the
// bench asks them too).
func gesetzeQuestions(t testing.TB) []gesetzeQuestion {
	b, err := os.ReadFile(filepath.Join("testdata", "gesetze-questions.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []gesetzeQuestion
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, " | ")
		if len(f) < 3 {
			t.Fatalf("testdata/gesetze-questions.txt: %q is not query | kind | answer…", line)
		}
		out = append(out, gesetzeQuestion{q: f[0], kind: f[1], answers: f[2:]})
	}
	return out
}

// gesetzeLaws are the laws the questions need.
var gesetzeLaws = []string{"b/bgb", "g/gg", "s/stgb", "o/owig_1968", "b/beeg", "b/burlg", "k/kschg", "s/stvg", "e/entgfg", "t/tzbfg", "s/stvo_2013", "b/betrvg", "m/muschg_2018"}

// gesetzeIndex unpacks the corpus (all of it, or the questions' laws and
// the distractors) into a temp dir and indexes it.
func gesetzeIndex(t *testing.T) (*Index, string) {
	t.Helper()
	full := os.Getenv("VAULTD_GESETZE") == "full"
	dir := unpackGesetze(t)
	if !full {
		// Keep the questions' laws and 230 others: the 10 largest and
		// every 30th of the rest.
		laws, err := filepath.Glob(filepath.Join(dir, "*", "*"))
		if err != nil || len(laws) < 1000 {
			t.Fatalf("unpacked %s: %d laws (%v)", dir, len(laws), err)
		}
		size := func(p string) int64 {
			fi, err := os.Stat(filepath.Join(p, "index.md"))
			if err != nil {
				return 0
			}
			return fi.Size()
		}
		sort.Slice(laws, func(i, j int) bool { return size(laws[i]) > size(laws[j]) })
		keep := map[string]bool{}
		for _, l := range gesetzeLaws {
			keep[filepath.Join(dir, filepath.FromSlash(l))] = true
		}
		for i, l := range laws {
			if i < 10 || i%30 == 0 {
				keep[l] = true
			}
		}
		for _, l := range laws {
			if !keep[l] {
				if err := os.RemoveAll(l); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	state := os.Getenv("VAULTD_GESETZE_STATE")
	if state == "" {
		state = t.TempDir()
	} else {
		state = filepath.Join(state, map[bool]string{true: "full", false: "part"}[full])
	}
	v, err := vault.Open(dir, vault.Options{StateDir: state, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	ix, err := Open(v, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := ix.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed %d notes in %s", ix.Status().Total, time.Since(start).Round(time.Millisecond))
	return ix, dir
}

// unpackGesetze unpacks the laws into a temp dir and returns their folder;
// it skips the test when the archive is not found.
func unpackGesetze(t testing.TB) string {
	t.Helper()
	var archive string
	for _, c := range []string{os.Getenv("VAULTD_CORPORA"), filepath.Join("..", "..", "shared", "corpora"), filepath.Join("..", "shared", "corpora")} {
		if c == "" {
			continue
		}
		if p := filepath.Join(c, "gesetze.tar.xz"); fileExists(p) {
			archive = p
			break
		}
	}
	if archive == "" {
		t.Skip("gesetze.tar.xz not found (set VAULTD_CORPORA to the corpora folder)")
	}
	tmp := t.TempDir()
	if out, err := exec.Command("tar", "-xJf", archive, "-C", tmp).CombinedOutput(); err != nil {
		t.Fatalf("unpack %s: %v\n%s", archive, err, out)
	}
	return filepath.Join(tmp, "gesetze")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestQuality_Gesetze: the paragraph that answers is among the first three
// sections.
func TestQuality_Gesetze(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an index of the laws")
	}
	ix, dir := gesetzeIndex(t)
	t.Run("refs of the BGB's 2,787 headings", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(dir, "b", "bgb", "index.md"))
		if err != nil {
			t.Fatal(err)
		}
		checkRefs(t, "b/bgb/index.md", b)
	})
	for _, q := range gesetzeQuestions(t) {
		t.Run(q.q, func(t *testing.T) {
			r := mustSearch(t, ix, Query{Text: q.q})
			secs := flatSections(r)
			rank := -1
			for i, s := range secs[:min(3, len(secs))] {
				for _, a := range q.answers {
					p, h, _ := strings.Cut(a, "#")
					if s.path == p && (s.heading == h || strings.HasSuffix(s.heading, " > "+h)) {
						rank = i
					}
				}
			}
			if rank < 0 {
				var got []string
				for i, s := range secs[:min(8, len(secs))] {
					got = append(got, fmt.Sprintf("%d. %s [%s]", i+1, s.path, s.heading))
				}
				t.Errorf("search %q (%s): want %s among the first 3 sections; got (%d notes):\n%s",
					q.q, q.kind, strings.Join(q.answers, " or "), r.Total, strings.Join(got, "\n"))
			}
		})
	}
}

type flatSection struct{ path, heading string }

// flatSections lists the sections of the hits in the order shown.
func flatSections(r *Results) []flatSection {
	var out []flatSection
	for _, h := range r.Hits {
		for _, s := range h.Sections {
			out = append(out, flatSection{h.Path, s.Heading})
		}
	}
	return out
}
