package note

import (
	"fmt"
	"strings"
)

// A small line diff for note_history: Myers' O((N+M)·D) algorithm ("An
// O(ND) Difference Algorithm and Its Variations", 1986) on lines, after
// trimming the common head and tail, rendered as unified-diff hunks with
// two lines of context. go.mod has no diff library, and a note's history
// needs only this much.

// maxDiffEdits bounds D: beyond it the texts are too different for a diff
// to help, and the trace would grow as D².
const maxDiffEdits = 1500

// diffContext is how many unchanged lines surround a change.
const diffContext = 2

// Diff is a bounded unified diff of two texts.
type Diff struct {
	Text    string // unified-diff hunks ("@@ -3,4 +3,5 @@" and lines), at most the lines asked for
	Added   int    // lines added
	Removed int    // lines removed
	Shown   int    // diff lines shown in Text
	Total   int    // diff lines there are (Shown < Total: cut)
}

// LineDiff compares two texts line by line. maxLines bounds the lines of
// Text (0: no bound). Identical texts give an empty Diff.
func LineDiff(a, b []byte, maxLines int) Diff {
	al, bl := splitLines(string(a)), splitLines(string(b))
	ops, ok := myers(al, bl)
	if !ok {
		return Diff{Text: fmt.Sprintf("(the texts differ too much for a line diff: %d lines before, %d after)\n", len(al), len(bl)),
			Added: len(bl), Removed: len(al)}
	}
	var d Diff
	for _, o := range ops {
		switch o.kind {
		case '+':
			d.Added++
		case '-':
			d.Removed++
		}
	}
	lines := hunks(ops, al, bl)
	d.Total = len(lines)
	if maxLines > 0 && len(lines) > maxLines {
		lines = lines[:maxLines]
	}
	d.Shown = len(lines)
	if len(lines) > 0 {
		d.Text = strings.Join(lines, "\n") + "\n"
	}
	return d
}

// splitLines splits after each "\n"; a last line without one is a line too.
// Line endings are dropped: "\r\n" vs "\n" shows as no change in the text
// (the versions still differ).
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.SplitAfter(s, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		parts[i] = strings.TrimRight(p, "\r\n")
	}
	return parts
}

// diffOp is one line of an edit script: ' ' kept, '-' removed from a, '+'
// added from b, with the line's index in a (for ' ' and '-') or b ('+').
type diffOp struct {
	kind rune
	a, b int // positions in a and b before this op
}

// myers returns the edit script from a to b; ok is false when it needs
// more than maxDiffEdits edits.
func myers(a, b []string) ([]diffOp, bool) {
	// Common head and tail first: most edits touch a few lines.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	n, m := len(ma), len(mb)
	var ops []diffOp
	for i := 0; i < pre; i++ {
		ops = append(ops, diffOp{' ', i, i})
	}
	if n > 0 || m > 0 {
		maxD := n + m
		if maxD > maxDiffEdits {
			maxD = maxDiffEdits
		}
		off := maxD + 1
		v := make([]int, 2*maxD+3)
		var trace [][]int
		found := false
		for d := 0; d <= maxD && !found; d++ {
			for k := -d; k <= d; k += 2 {
				var x int
				if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
					x = v[off+k+1]
				} else {
					x = v[off+k-1] + 1
				}
				y := x - k
				for x < n && y < m && ma[x] == mb[y] {
					x++
					y++
				}
				v[off+k] = x
				if x >= n && y >= m {
					found = true
					break
				}
			}
			trace = append(trace, append([]int(nil), v...))
		}
		if !found {
			return nil, false
		}
		// Walk the trace back from (n, m).
		var rev []diffOp
		x, y := n, m
		for d := len(trace) - 1; d > 0; d-- {
			vp := trace[d-1]
			k := x - y
			var pk int
			if k == -d || (k != d && vp[off+k-1] < vp[off+k+1]) {
				pk = k + 1
			} else {
				pk = k - 1
			}
			px := vp[off+pk]
			py := px - pk
			for x > px && y > py {
				x--
				y--
				rev = append(rev, diffOp{' ', pre + x, pre + y})
			}
			if x == px {
				y--
				rev = append(rev, diffOp{'+', pre + x, pre + y})
			} else {
				x--
				rev = append(rev, diffOp{'-', pre + x, pre + y})
			}
		}
		for x > 0 && y > 0 {
			x--
			y--
			rev = append(rev, diffOp{' ', pre + x, pre + y})
		}
		for i := len(rev) - 1; i >= 0; i-- {
			ops = append(ops, rev[i])
		}
	}
	for i := 0; i < suf; i++ {
		ops = append(ops, diffOp{' ', len(a) - suf + i, len(b) - suf + i})
	}
	return ops, true
}

// hunks renders an edit script as unified-diff hunks.
func hunks(ops []diffOp, a, b []string) []string {
	var out []string
	i := 0
	for i < len(ops) {
		// Find the next change.
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i >= len(ops) {
			break
		}
		start := max(i-diffContext, 0)
		// Extend while changes are close together.
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
				continue
			}
			if j-end > 2*diffContext {
				break
			}
		}
		stop := min(end+diffContext+1, len(ops))
		la, lb := 0, 0
		for _, o := range ops[start:stop] {
			if o.kind != '+' {
				la++
			}
			if o.kind != '-' {
				lb++
			}
		}
		out = append(out, fmt.Sprintf("@@ -%s +%s @@", hunkRange(ops[start].a, la), hunkRange(ops[start].b, lb)))
		for _, o := range ops[start:stop] {
			switch o.kind {
			case ' ':
				out = append(out, " "+a[o.a])
			case '-':
				out = append(out, "-"+a[o.a])
			case '+':
				out = append(out, "+"+b[o.b])
			}
		}
		i = stop
	}
	return out
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
