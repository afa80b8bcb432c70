package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// The diff between any two versions of a note: the owner picks them on the
// note's page (two selects, a plain GET form) and sees the line diff the
// core computes (vault.LineDiff, as note_history shows it), inline or side
// by side.

// compareLines bounds a diff between two versions on the page: a huge note
// rewritten is thousands of lines, and the page says how many more there
// are.
const compareLines = 400

// compareAll bounds the diff "show all" gives: every line of any note a
// person would read in a browser.
const compareAll = 20000

// compareVersions bounds the versions offered for comparison: the newest
// ones of the note's history.
const compareVersions = 200

// versionOpt is one version of a note offered for comparison.
type versionOpt struct {
	Version string // short form
	Label   string // when, who, what
	Current bool
}

// versionsIn lists the versions of a note of c's vault, newest first:
// the text after each change and the text before the oldest one, each
// once.
func versionsIn(c Core, l *lang, p, current string) []versionOpt {
	h, err := c.Vault().NoteHistory(p, vault.HistoryQuery{Limit: compareVersions, DiffLines: -1})
	if err != nil {
		return nil
	}
	var out []versionOpt
	seen := map[string]bool{}
	add := func(v, label string) {
		v = note.ShortVersion(v)
		if v == "" || seen[v] {
			return
		}
		seen[v] = true
		out = append(out, versionOpt{Version: v, Label: label, Current: v == current})
	}
	at := func(t time.Time) string { return l.Date(t) + ", " + t.UTC().Format("15:04") + " UTC" }
	for _, e := range h.Entries {
		add(e.After, l.T("version.after", at(e.Time), l.Op(e.Op), l.WhoText(e.Actor)))
	}
	if n := len(h.Entries); n > 0 && n == h.Total {
		add(h.Entries[n-1].Before, l.T("version.first", at(h.Entries[n-1].Time)))
	}
	return out
}

// diffLine is one line of a unified diff, numbered in the old and the new
// text (0: not in that text).
type diffLine struct {
	Kind     string // "ctx", "add", "del", "hunk"
	Old, New int
	Text     string
}

// sideRow is one row of the side-by-side view: the old line left, the new
// one right; nil where the other side has no line.
type sideRow struct {
	Hunk        string
	Left, Right *diffLine
}

// parseUnified reads LineDiff's hunks ("@@ -3,4 +3,5 @@", then lines
// starting with ' ', '-' or '+'). Text that is not hunks (the texts
// differed too much for a line diff) is returned as note.
func parseUnified(text string) (lines []diffLine, note string) {
	if text != "" && !strings.HasPrefix(text, "@@") {
		return nil, strings.TrimSpace(text)
	}
	var o, n int
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case l == "":
		case strings.HasPrefix(l, "@@"):
			var a, b string
			f := strings.Fields(l)
			if len(f) >= 3 {
				a, b = f[1], f[2]
			}
			o, n = hunkStart(strings.TrimPrefix(a, "-")), hunkStart(strings.TrimPrefix(b, "+"))
			lines = append(lines, diffLine{Kind: "hunk", Text: l})
		case l[0] == '-':
			lines = append(lines, diffLine{Kind: "del", Old: o, Text: l[1:]})
			o++
		case l[0] == '+':
			lines = append(lines, diffLine{Kind: "add", New: n, Text: l[1:]})
			n++
		default:
			lines = append(lines, diffLine{Kind: "ctx", Old: o, New: n, Text: l[1:]})
			o, n = o+1, n+1
		}
	}
	return lines, ""
}

// hunkStart is the first line number of a hunk range "3,4", "3" or "2,0"
// (no lines: they would follow line 2).
func hunkStart(r string) int {
	a, cnt, _ := strings.Cut(r, ",")
	start, _ := strconv.Atoi(a)
	if cnt == "0" {
		return start + 1
	}
	return start
}

// sideBySide pairs the lines for two columns: context on both sides, a run
// of removed lines beside the run of added lines that follows it.
func sideBySide(lines []diffLine) []sideRow {
	var rows []sideRow
	for i := 0; i < len(lines); {
		l := &lines[i]
		switch l.Kind {
		case "hunk":
			rows = append(rows, sideRow{Hunk: l.Text})
			i++
		case "ctx":
			rows = append(rows, sideRow{Left: l, Right: l})
			i++
		default:
			var dels, adds []*diffLine
			for ; i < len(lines) && lines[i].Kind == "del"; i++ {
				dels = append(dels, &lines[i])
			}
			for ; i < len(lines) && lines[i].Kind == "add"; i++ {
				adds = append(adds, &lines[i])
			}
			for k := 0; k < max(len(dels), len(adds)); k++ {
				var r sideRow
				if k < len(dels) {
					r.Left = dels[k]
				}
				if k < len(adds) {
					r.Right = adds[k]
				}
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// textIn returns the stored text of a version of the note at p in c's
// vault: the note on disk when it is at that version (it may have changed
// outside vaultd and not be stored), else the content store.
func textIn(c Core, p, version string) ([]byte, error) {
	if n, err := c.Vault().Read(p); err == nil && version != "" && strings.HasPrefix(n.Version, strings.ToLower(version)) {
		return n.Doc.Src, nil
	}
	return c.Vault().Content(version)
}

// noteDiff shows the diff between two versions of a note.
func (s *Server) noteDiff(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	q := r.URL.Query()
	p, from, to := q.Get("path"), strings.TrimSpace(q.Get("from")), strings.TrimSpace(q.Get("to"))
	view := "inline"
	if q.Get("view") == "side" {
		view = "side"
	}
	data := map[string]any{"Path": p, "View": view}
	cur := s.curOf(r)
	res := cur.core.NoteHistory(r.Context(), caller(), tools.NoteHistoryArgs{Path: p, Limit: 1})
	if res.IsError() {
		var links []link
		data["Error"], links = missing(l, p, res)
		data["ErrorLinks"], data["Elsewhere"] = linksIn(links, cur.name), s.elsewhere(r, p, "/note?path=")
		s.render(w, r, http.StatusOK, "diff", data)
		return
	}
	ref := res.Data.(tools.NoteHistoryData).Note
	vs := versionsIn(cur.core, l, ref.Path, ref.Version)
	if to == "" && len(vs) > 0 {
		to = vs[0].Version
	}
	if from == "" && len(vs) > 1 {
		from = vs[1].Version
	}
	data["Note"], data["Versions"], data["From"], data["To"] = ref, vs, note.ShortVersion(from), note.ShortVersion(to)
	if from == "" || to == "" {
		data["Problem"] = l.T("diff.one_version")
		s.render(w, r, http.StatusOK, "diff", data)
		return
	}
	var texts [2][]byte
	for i, v := range []string{from, to} {
		b, err := textIn(cur.core, ref.Path, v)
		if err != nil {
			data["Problem"] = l.T("diff.not_kept", note.ShortVersion(v))
			s.render(w, r, http.StatusOK, "diff", data)
			return
		}
		texts[i] = b
	}
	limit := compareLines
	if q.Get("all") == "1" {
		limit = compareAll
	}
	d := note.LineDiff(texts[0], texts[1], limit)
	lines, note := parseUnified(d.Text)
	data["Added"], data["Removed"] = d.Added, d.Removed
	data["Lines"] = lines
	if note != "" {
		// LineDiff gives up beyond maxDiffEdits edits; its counts are then
		// the two texts' lines.
		data["TooDifferent"] = l.T("diff.too_different", d.Removed, d.Added)
	}
	if view == "side" {
		data["Rows"] = sideBySide(lines)
	}
	if d.Text == "" {
		data["Same"] = true
	}
	if more := d.Total - d.Shown; more > 0 {
		data["More"] = more
		all := r.URL.Query()
		all.Set("all", "1")
		data["AllURL"] = "/note/diff?" + all.Encode()
	}
	s.render(w, r, http.StatusOK, "diff", data)
}
