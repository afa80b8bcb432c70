package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTypeScriptSDK_Vaults: one `vaultd serve` for three vaults — work (a
// copy of example-vault), privat (a small vault written here, whose rules
// protect Finanzen/) and team (a git clone) — driven by the official MCP
// TypeScript SDK through ts/vaults-session.mjs, the way an agent works
// across them. Over stdio: every tool takes "vault"; vault_overview lists
// the three; a search without vault finds hits in several vaults and each
// hit's "read:" call works when sent as printed; NAME:path reads and
// writes; the errors for a wrong vault name, a note held by another vault,
// a name two vaults hold and a name none holds each lead to the note by
// sending the call they suggest; resources/list names every note as
// vault://note/NAME:path and one reads; each vault's rules apply to its own
// writes only. Over HTTP: a key limited to team (read) sees team alone — in
// vault_overview, search, resources/list and tools/list — and naming
// another vault is answered as a vault that does not exist, without a word
// of its notes. Afterwards the files on disk show exactly the writes that
// went through.
func TestTypeScriptSDK_Vaults(t *testing.T) {
	tsdir := filepath.Join(repoRoot, "e2e", "ts")
	// Install before t.Parallel, as TestHTTP_TypeScriptSDK does: the
	// TypeScript tests share node_modules.
	npmCI(t, tsdir)
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found on PATH (%v): the TypeScript SDK tests need Node ≥ 20 and npm", err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git not found on PATH (%v): the team vault is a git clone", err)
	}

	root := t.TempDir()
	work := copyVault(t) // without example-vault's .vaultd and .trash

	privat := filepath.Join(root, "privat")
	writeVaultFiles(t, privat, map[string]string{
		"9_System/Regeln.md":      "---\ntitle: Regeln\nprotected:\n  - \"Finanzen/**\"\n---\n# Regeln\n\nAgenten dürfen lesen. Finanzen ändern nur Menschen.\n",
		"Zugangsdaten.md":         "# Zugangsdaten\n\nNichts Geheimes hier: die Zugangsdaten stehen im Passwortmanager.\n",
		"Finanzen/Steuer 2026.md": "# Steuer 2026\n\n## Belege\n\n- Handwerkerrechnung Dach\n- Spendenquittung Tierheim\n\n## Fristen\n\nAbgabe bis Ende Juli.\n",
		"Garten/Hochbeet.md":      "# Hochbeet\n\nIm März Salat säen, im Mai Tomaten setzen.\n",
		"Reisen/Sommerurlaub.md":  "# Sommerurlaub\n\nFähre nach Bornholm buchen, Ferienhaus in Gudhjem.\n",
	})

	// team: a repository with one commit, cloned as a team member would.
	seed := filepath.Join(root, "team-seed")
	writeVaultFiles(t, seed, map[string]string{
		"Zugangsdaten.md":           "# Zugangsdaten\n\nDer Zugang zum Teamkalender läuft über das Firmenkonto; Zugangsdaten gibt die IT aus.\n",
		"Onboarding/Erste Woche.md": "# Erste Woche\n\n## Ablauf\n\nLaptop abholen, Konten anlegen.\n",
		"Onboarding/Checkliste.md":  "# Checkliste\n\n- [ ] Schlüssel\n- [ ] Telefonliste\n",
		"Finanzen/Budget.md":        "# Budget\n\nTeamevent: 800 Euro im Jahr.\n",
	})
	gitIn(t, seed, "init", "-q", "-b", "main")
	gitIn(t, seed, "add", "-A")
	gitIn(t, seed, "commit", "-q", "-m", "Teamvault angelegt")
	team := filepath.Join(root, "team")
	gitIn(t, root, "clone", "-q", seed, team)
	gitIn(t, team, "config", "user.name", "Team Test")
	gitIn(t, team, "config", "user.email", "team@example.org")
	// .obsidian/ makes each folder a vault (git does not keep an empty one).
	for _, d := range []string{privat, team} {
		if err := os.MkdirAll(filepath.Join(d, ".obsidian"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	steuerBefore := vaultFile(t, privat, "Finanzen/Steuer 2026.md")
	regelnBefore := vaultFile(t, work, "9_System/Schreibstil.md")

	cmd := exec.Command(node, "vaults-session.mjs", "--bin", vaultdBin, "--work", work, "--privat", privat, "--team", team)
	cmd.Dir = tsdir
	cmd.Env = append(os.Environ(), gitEnv...)
	cmd.Env = append(cmd.Env,
		"VAULTD_VAULTS_FILE="+filepath.Join(root, "no-vaults-file"), // the user's vaults file stays out
		"TMPDIR="+t.TempDir(),
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if err != nil || !regexp.MustCompile(`^ts-sdk vaults: [1-9][0-9]* passed, 0 failed$`).MatchString(last) {
		t.Fatalf("node vaults-session.mjs: %v; last line %q, want \"ts-sdk vaults: N passed, 0 failed\"\n%s", err, last, out.String())
	}
	t.Log(last)

	// The disk holds what the session wrote, each in its own vault.
	wantContains(t, "team:Onboarding/Erste Woche.md on disk", vaultFile(t, team, "Onboarding/Erste Woche.md"),
		"Laptop abholen, Konten anlegen.", "- Zqxvaults: Schlüssel am Empfang abholen (ts-vaults)")
	wantContains(t, "team:Finanzen/Budget.md on disk", vaultFile(t, team, "Finanzen/Budget.md"),
		"- Zqxbudget: Weihnachtsfeier 300 Euro (ts-vaults)")
	wantContains(t, "privat:Reisen/Packliste Herbst.md on disk", vaultFile(t, privat, "Reisen/Packliste Herbst.md"), "Regenjacke")
	if got := vaultFile(t, privat, "Finanzen/Steuer 2026.md"); got != steuerBefore {
		t.Errorf("privat:Finanzen/Steuer 2026.md (protected by privat's rules) changed:\n%s", got)
	}
	if got := vaultFile(t, work, "9_System/Schreibstil.md"); got != regelnBefore {
		t.Errorf("work:9_System/Schreibstil.md (built-in read-only) changed:\n%s", got)
	}
	for _, p := range []string{filepath.Join(work, "0_Inbox", "Packliste Herbst.md"), filepath.Join(work, "Packliste Herbst.md")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists (%v): work requires tags on new notes, the create was refused", p, err)
		}
	}
	for _, d := range []string{work, privat} {
		if _, err := os.Stat(filepath.Join(d, "Onboarding", "Erste Woche.md")); !os.IsNotExist(err) {
			t.Errorf("the append to team:Onboarding/Erste Woche.md reached %s (%v)", d, err)
		}
	}
	// git sees the appends as changes of the clone's tracked notes.
	status := gitIn(t, team, "status", "--porcelain", "--", "Onboarding", "Finanzen")
	wantContains(t, "git status of the team clone", status, "Onboarding/Erste Woche.md", "Finanzen/Budget.md")
}

// writeVaultFiles writes files (vault-relative path → text) under dir.
func writeVaultFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// vaultFile reads a vault-relative file.
func vaultFile(t *testing.T, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
