package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A merge stopped on a picture both sides changed: vault_overview lists it
// with the calls that resolve it, and resolve_conflict takes a side.
func TestGolden_AttachmentConflict(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_SYSTEM", "/dev/null")
	for _, tc := range []struct {
		name string
		call step
	}{
		{"overview", step{"vault_overview", `{}`}},
		{"resolve_both", step{"resolve_conflict", `{"path":"3_Ressourcen/Netzplan.png","take":"both","change_summary":"beide Netzpläne behalten"}`}},
		{"resolve_theirs", step{"resolve_conflict", `{"path":"3_Ressourcen/Netzplan.png","take":"theirs","change_summary":"Jonas' Netzplan"}`}},
		{"err_take_text", step{"resolve_conflict", `{"path":"3_Ressourcen/Netzplan.png","take":"text","content":"x","change_summary":"x"}`}},
		{"err_no_conflict", step{"resolve_conflict", `{"path":"3_Ressourcen/Anderes.png","take":"ours","change_summary":"x"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyExampleVault(t)
			pic := filepath.Join(dir, "3_Ressourcen", "Netzplan.png")
			write := func(s string) {
				if err := os.WriteFile(pic, []byte("\x89PNG\r\n\x1a\n"+s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("base")
			os.WriteFile(filepath.Join(dir, "3_Ressourcen", "Anderes.png"), []byte("\x89PNG\r\n\x1a\nx"), 0o644)
			gitT(t, dir, "", "init", "-q", "-b", "main")
			gitT(t, dir, "Lena Hoffmann|2026-11-20T09:00:00Z", "add", "-A")
			gitT(t, dir, "Lena Hoffmann|2026-11-20T09:00:00Z", "commit", "-q", "-m", "Vault angelegt")
			gitT(t, dir, "", "checkout", "-q", "-b", "jonas")
			write("jonas")
			gitT(t, dir, "mcp:jonas|2026-11-27T16:30:00Z", "commit", "-q", "-am", "Netzplan neu")
			gitT(t, dir, "", "checkout", "-q", "main")
			write("lena")
			gitT(t, dir, "mcp:lena|2026-11-28T08:15:00Z", "commit", "-q", "-am", "Netzplan ergänzt")
			if out, err := gitCommand(dir, "mcp:lena|2026-11-28T09:00:00Z", "merge", "jonas").CombinedOutput(); err == nil {
				t.Fatalf("the merge did not stop:\n%s", out)
			}
			c := newTestCore(t, dir)
			checkGoldenCall(t, c, readWrite, tc.call, dir, "", filepath.Join("attachment_conflict", tc.name))
		})
	}
}
