package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/trial"
)

// The budgeted agent (issue text): "for 10 questions about example-vault,
// a fixed policy that only reads the *text* of each response (takes the
// first path/heading it finds, follows the suggested next call on errors)
// must reach the note and section that answer the question within 4
// calls. Include questions that start from a typo'd path, a wrong space
// and an ambiguous heading."
//
// The policy is vaultd's own text-only policy (trial.Next, which vaultd
// trial --policy text runs too): it stands in for a cheap model, knows the
// question only through its starting call here, never looks at
// structuredContent, and never uses knowledge of the vault. Whatever it
// needs next must be in the text.

// budget is the number of calls a question may use, the first included.
const budget = 4

// question is one question, the agent's first call and where the answer is.
type question struct {
	text        string
	kind        string // what the first call tests
	start       trial.Call
	wantPath    string
	wantSection string // suffix of the heading path
}

func read(path, heading string) trial.Call {
	return trial.Call{Tool: "read_note", Args: map[string]any{"path": path, "heading": heading}}
}

func search(q string) trial.Call {
	return trial.Call{Tool: "search_notes", Args: map[string]any{"query": q}}
}

// questions: the starting calls are what a model that has not looked at
// the vault yet would send — the words of the question, or a path it
// guessed from them.
var questions = []question{
	{"Wann ist der Launch der neuen Website geplant?", "wrong space",
		read("3_Ressourcen/Website-Relaunch.md", "Zeitleiste"),
		"1_Projekte/Website-Relaunch.md", "Zeitleiste"},
	{"Welche Krankenhäuser gehören zum Klinikverbund Nord?", "search, inflected German",
		search("Krankenhäuser Standorte"),
		"1_Projekte/Klinikverbund Nord.md", "Standorte"},
	{"Welche Ziele hat das Team für 2027?", "ambiguous heading",
		read("2_Bereiche/Jahresplanung.md", "Ziele"),
		"2_Bereiche/Jahresplanung.md", "Projekte > Ziele"},
	{"Wie hoch ist das freigegebene Budget beim KVN?", "typo'd path",
		read("1_Projekte/Klinikverbund-Nord.md", "Budget"),
		"1_Projekte/Klinikverbund Nord.md", "Budget"},
	{"Was wurde in der Wochenrunde am 16.11. beschlossen?", "search, German date",
		search("Wochenrunde 16.11. Beschlüsse"),
		"2_Bereiche/Team/Besprechungsprotokoll.md", "Wochenrunde 2026-11-16 > Beschlüsse"},
	{"Welches Gewächshaus ist am günstigsten?", "search",
		search("Gewächshaus günstig"),
		"2_Bereiche/Garten/Gewächshaus.md", "Gewächshäuser im Vergleich"},
	{"Wie viele Häuser wurden vor dem Neubau besichtigt?", "search, inflected German",
		search("Häuser besichtigt Neubau"),
		"1_Projekte/Hausbau Lindenweg.md", "Vorgeschichte"},
	{"Welcher Designentwurf wurde gewählt?", "file name without its date",
		read("Design-Review", "Entscheidung"),
		"1_Projekte/Website-Relaunch/Besprechungen/2026-11-04 Design-Review.md", "Entscheidung"},
	{"When is the Exchange server at Kanzlei Brandt switched off?", "search, English question",
		search("Exchange server Kanzlei Brandt"),
		"1_Projekte/Kanzlei Brandt M365-Migration.md", "Zeitleiste"},
	{"How do we name Git branches?", "search, English",
		search("Git branch naming"),
		"3_Ressourcen/Git Workflow.md", "Branches"},
}

// reached reports whether a read_note answer shows the wanted note and
// section: its "path:" line is the note and its "section:" line ends with
// the wanted heading path.
func reached(q question, r result) bool {
	if r.IsError {
		return false
	}
	p, _ := field(r.Text, "path")
	sec, _ := field(r.Text, "section")
	return p == q.wantPath && (sec == q.wantSection || strings.HasSuffix(sec, " > "+q.wantSection))
}

func TestBudgetedAgent(t *testing.T) {
	t.Parallel()
	s := serve(t, copyVault(t), "", "--read-only")
	s.waitIndexed()

	var report []string
	for i, q := range questions {
		t.Run(fmt.Sprintf("Q%d", i+1), func(t *testing.T) {
			s := *s
			s.t = t
			c := q.start
			var trail []string
			var history []trial.Turn
			var last result
			used := 0
			for n := 1; n <= budget; n++ {
				r := s.call(c.Tool, c.Args)
				last = r
				history = append(history, trial.Turn{Call: c, Text: r.Text})
				trail = append(trail, fmt.Sprintf("%d. %s → %s", n, c, outcome(r)))
				if c.Tool == "read_note" && reached(q, r) {
					used = n
					break
				}
				next, done := trial.Next(q.text, budget-n, history)
				if done {
					why := "the answer offers no call to follow; the agent stops here"
					if !r.IsError && c.Tool == "read_note" {
						why = "the agent has read a section and answers from it"
					}
					trail = append(trail, "   ("+why+")")
					trail = append(trail, indent(r.Text, "   | "))
					break
				}
				if n == budget {
					trail = append(trail, "   (budget used up)")
					trail = append(trail, indent(r.Text, "   | "))
				}
				c = next
			}
			status := fmt.Sprintf("%d calls", used)
			if used == 0 {
				status = "NOT REACHED"
				t.Errorf("%q (%s): want %s, section %q within %d calls; the calls:\n%s%s",
					q.text, q.kind, q.wantPath, q.wantSection, budget, strings.Join(trail, "\n"), seenInside(q, last))
			}
			report = append(report, fmt.Sprintf("Q%-2d %-12s %-26s %s", i+1, status, q.kind, q.start))
		})
	}
	t.Logf("calls per question (budget %d):\n%s", budget, strings.Join(report, "\n"))
}

// seenInside explains a miss in which the agent read an enclosing section
// of the right note: the answer was in the text, but the call that led
// there named a section that is not the one holding it.
func seenInside(q question, r result) string {
	p, _ := field(r.Text, "path")
	sec, _ := field(r.Text, "section")
	parts := strings.Split(q.wantSection, " > ")
	if r.IsError || p != q.wantPath || !strings.Contains(r.Text, "# "+parts[len(parts)-1]+"\n") {
		return ""
	}
	return fmt.Sprintf("\nnote: the section read (%q) encloses %q, so the answer was in the text, but the search hit named the enclosing section, not the one that answers", sec, q.wantSection)
}

// outcome summarizes an answer in one line for the trail.
func outcome(r result) string {
	if r.IsError {
		code, _ := field(r.Text, "error code")
		return "error " + code
	}
	p, _ := field(r.Text, "path")
	sec, _ := field(r.Text, "section")
	if sec != "" {
		return fmt.Sprintf("%s, section %q", p, sec)
	}
	return p
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}
