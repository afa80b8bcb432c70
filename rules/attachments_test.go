package rules

import (
	"strings"
	"testing"
)

// TestLoad_Attachments: the attachments key names the folder for uploads;
// the first note in path order wins, mistakes are problems, not errors.
func TestLoad_Attachments(t *testing.T) {
	for _, tc := range []struct {
		name, archive        string
		wantFolder, wantFrom string
		wantProblem          string
	}{
		{name: "declared", archive: `
-- 9_System/Regeln.md --
---
attachments: 3_Ressourcen/Anhänge/
---
`, wantFolder: "3_Ressourcen/Anhänge", wantFrom: "9_System/Regeln.md"},
		{name: "first wins", archive: `
-- 9_System/A.md --
---
attachments: Anhänge
---
-- 9_System/B.md --
---
attachments: Dateien
---
`, wantFolder: "Anhänge", wantFrom: "9_System/A.md", wantProblem: `9_System/B.md: attachments "Dateien" conflicts with attachments "Anhänge" from 9_System/A.md`},
		{name: "outside the vault", archive: `
-- 9_System/Regeln.md --
---
attachments: ../draußen
---
`, wantProblem: `9_System/Regeln.md: attachments "../draußen" is not a folder inside the vault`},
		{name: "a list", archive: `
-- 9_System/Regeln.md --
---
attachments: [a, b]
---
`, wantProblem: "9_System/Regeln.md: attachments must be one folder name, not a list"},
		{name: "none", archive: `
-- 9_System/Regeln.md --
# Regeln
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := load(t, tc.archive)
			if r.Attachments != tc.wantFolder || r.AttachmentsSource != tc.wantFrom {
				t.Errorf("got %q from %q, want %q from %q", r.Attachments, r.AttachmentsSource, tc.wantFolder, tc.wantFrom)
			}
			got := strings.Join(r.Problems, "\n")
			if tc.wantProblem == "" && got != "" || !strings.Contains(got, tc.wantProblem) {
				t.Errorf("problems: got %q, want one containing %q", got, tc.wantProblem)
			}
		})
	}
}
