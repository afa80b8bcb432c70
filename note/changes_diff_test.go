package note

import (
	"strings"
	"testing"
)

func TestLineDiff_Hunks(t *testing.T) {
	cases := []struct {
		name, a, b, want string
		added, removed   int
	}{
		{"same", "a\nb\n", "a\nb\n", "", 0, 0},
		{"append", "a\nb\n", "a\nb\nc\n", "@@ -1,2 +1,3 @@\n a\n b\n+c\n", 1, 0},
		{"change middle", "1\n2\n3\n4\n5\n6\n7\n", "1\n2\n3\nvier\n5\n6\n7\n", "@@ -2,5 +2,5 @@\n 2\n 3\n-4\n+vier\n 5\n 6\n", 1, 1},
		{"create", "", "x\ny\n", "@@ -0,0 +1,2 @@\n+x\n+y\n", 2, 0},
		{"delete all", "x\n", "", "@@ -1 +0,0 @@\n-x\n", 0, 1},
		{"two hunks", "a\n1\n2\n3\n4\n5\n6\n7\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\nB\n", "@@ -1,3 +1,3 @@\n-a\n+A\n 1\n 2\n@@ -7,3 +7,3 @@\n 6\n 7\n-b\n+B\n", 2, 2},
		{"crlf only", "a\r\nb\r\n", "a\nb\n", "", 0, 0},
		{"interleaved", "a\nb\nc\n", "b\nc\nd\n", "@@ -1,3 +1,3 @@\n-a\n b\n c\n+d\n", 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := LineDiff([]byte(tc.a), []byte(tc.b), 0)
			if d.Text != tc.want || d.Added != tc.added || d.Removed != tc.removed {
				t.Errorf("LineDiff(%q, %q):\n got %q +%d -%d\nwant %q +%d -%d", tc.a, tc.b, d.Text, d.Added, d.Removed, tc.want, tc.added, tc.removed)
			}
		})
	}
}

func TestLineDiff_BoundedAndLarge(t *testing.T) {
	var a, b strings.Builder
	for i := range 3000 {
		a.WriteString("line\n")
		if i%10 != 0 {
			b.WriteString("line\n")
		} else {
			b.WriteString("other\n")
		}
	}
	d := LineDiff([]byte(a.String()), []byte(b.String()), 12)
	if d.Shown != 12 || d.Total <= 12 || strings.Count(d.Text, "\n") != 12 {
		t.Errorf("bounded: shown %d of %d, %d lines", d.Shown, d.Total, strings.Count(d.Text, "\n"))
	}
	var c strings.Builder
	for i := range 4000 {
		c.WriteString(strings.Repeat("x", i%7) + "\n")
	}
	d = LineDiff([]byte(c.String()), []byte(strings.ToUpper(c.String())+"y\n"), 10)
	if !strings.Contains(d.Text, "differ too much") && d.Total == 0 {
		t.Errorf("large: %+v", d)
	}
}
