package vault

import (
	"fmt"
	"strings"
)

// gitSays renders what a failed git command said in one line, for a
// report: its statements joined with "; ", and the lists git indents under
// them (the files a merge or checkout refuses to overwrite, the hook's
// complaints) kept as ", "-separated names, at most gitSaysFiles of them —
// never cut off before the names, as the first line alone is. Hints and
// blank lines are left out; err's text when git said nothing.
func gitSays(out string, err error) string {
	var parts []string
	var list []string
	flush := func() {
		if len(list) == 0 {
			return
		}
		shown := list[:min(len(list), gitSaysFiles)]
		s := strings.Join(shown, ", ")
		if more := len(list) - len(shown); more > 0 {
			s += fmt.Sprintf(" and %d more", more)
		}
		if n := len(parts); n > 0 && strings.HasSuffix(parts[n-1], ":") {
			parts[n-1] += " " + s
		} else {
			parts = append(parts, s)
		}
		list = nil
	}
	for _, l := range strings.Split(strings.ReplaceAll(out, "\x00", " "), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "", strings.HasPrefix(t, "hint:"):
			continue
		case l[0] == ' ' || l[0] == '\t':
			list = append(list, t)
			continue
		}
		flush()
		parts = append(parts, strings.TrimSuffix(t, "."))
	}
	flush()
	if len(parts) == 0 {
		return errText(err)
	}
	s := strings.Join(parts, "; ")
	if len(s) > gitSaysMax {
		s = s[:gitSaysMax]
		for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
			s = s[:len(s)-1] // not inside a character
		}
		s = strings.TrimRight(s[:len(s)-1], " ") + "…"
	}
	return s
}

// Bounds of gitSays: the names of one list, and the whole text.
const (
	gitSaysFiles = 10
	gitSaysMax   = 900
)

// shellWords quotes names for a command line a person copies.
func shellWords(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = shellWord(n)
	}
	return strings.Join(q, " ")
}
