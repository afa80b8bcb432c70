package main

import (
	"strings"

	"github.com/vaultd/vaultd/tools"
)

// domainFailure turns a failed core result into the CLI's error report.
//
// The core already speaks to the CLI door: its text names the wrong part,
// lists what exists instead and ends with "next: vaultd …", the command to
// run. The CLI keeps that text as it is — one text for agents and people —
// and changes only its frame: "error: " becomes "vaultd: ", and the
// "next:" line becomes the closing "try:" line, with the global flags the
// user gave (--vault, --state-dir, --actor) so that it runs against the same
// vault.
func domainFailure(res *tools.Result, globals []string) *failure {
	text := strings.TrimRight(res.Text, "\n")
	if text == "" {
		text = res.Err.Error()
	}
	text = strings.TrimPrefix(text, "error: ")
	try := ""
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if cmd, ok := strings.CutPrefix(lines[i], "next: vaultd "); ok {
			try = "vaultd " + cmd
			if len(globals) > 0 {
				try += " " + strings.Join(quoteAll(globals), " ")
			}
			lines = append(lines[:i], lines[i+1:]...)
			break
		}
	}
	return &failure{code: codeOf(res.Err), msg: strings.Join(lines, "\n"), try: try, err: res.Err}
}

// shellQuote quotes a word for a POSIX shell when it needs it, the way the
// core spells suggested commands: 'single quotes', so that $ and ` stay.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shellQuote(s)
	}
	return out
}
