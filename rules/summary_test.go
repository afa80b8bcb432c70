package rules

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSummary(t *testing.T) {
	long := strings.Repeat("Jede Änderung braucht eine kurze Zusammenfassung, die sagt, warum. ", 15)
	tests := []struct {
		golden, vault string
	}{
		{"summary_full.golden", `
-- 9_System/Regeln für Agenten.md --
---
title: Regeln für Agenten
protected:
  - "4_Archiv/**"
  - 5_Privat
inbox: 0_Inbox
required_properties:
  - tags
---
Schreibe auf Deutsch. Verlinke verwandte Notizen mit [[Wikilinks]].

Neue Projekte kommen nach 1_Projekte/.
-- 9_System/Vorlagen.md --
---
protected: 8_Vorlagen/**
required_properties: status
---
# Vorlagen
Vorlagen liegen in 8_Vorlagen/ und werden nur gelesen.
`},
		{"summary_none.golden", `
-- 1_Projekte/Alpha.md --
# Alpha
`},
		{"summary_policy_only.golden", `
-- 9_System/Regeln.md --
---
protected: 4_Archiv/**
---
`},
		{"summary_long.golden", `
-- 9_System/A Lang.md --
` + long + `
-- 9_System/B Lang.md --
---
title: Zweite lange Notiz
---
` + long + `
-- 9_System/C Kurz.md --
Kurz.
-- 9_System/D Kurz.md --
Auch kurz.
`},
	}
	for _, tt := range tests {
		r := load(t, tt.vault)
		got := r.Summary()
		checkGolden(t, tt.golden, []byte(got))
		// The summary goes into server instructions of about 1,500
		// characters in all (AGENT-CONTRACT rule 16).
		if n := utf8.RuneCountInString(got); n > 1300 {
			t.Errorf("%s: Summary is %d characters, want at most 1300", tt.golden, n)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		s     string
		limit int
		want  string
		used  int
	}{
		{"kurz", 10, "kurz", 4},
		{"eins zwei drei", 10, "eins zwei", 9},
		{"überlänge", 4, "über", 4}, // no space near: cut inside the word, never inside a character
		{"ab cdefghijkl", 10, "ab cdefghi", 10},
	}
	for _, tt := range tests {
		got, used := truncate(tt.s, tt.limit)
		if got != tt.want || used != tt.used {
			t.Errorf("truncate(%q, %d) = %q, %d; want %q, %d", tt.s, tt.limit, got, used, tt.want, tt.used)
		}
	}
}
