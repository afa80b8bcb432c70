package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// The secrets each hidden folder holds in the test vault; no answer of any
// tool may show one.
var hiddenSecrets = map[string]string{
	".git/config":                "[remote \"origin\"]\n\turl = https://x:ghp_GITSECRET@example.invalid/v.git\n",
	".git/hooks/pre-commit.png":  "HOOKSECRET",
	".obsidian/plugins/p/x.md":   "# OBSIDIANSECRET\n",
	".trash/Alt/Gelöscht.md":     "# TRASHSECRET\n",
	".vaultd/keys.json":          `{"keys":[{"name":"KEYSECRET"}]}`,
	".vaultd/notes/Zustand.md":   "# STATESECRET\n",
	".hidden/Geheim/Notiz.md":    "# DOTSECRET\n",
	".obsidian/snippets/css.png": "CSSSECRET",
}

// hiddenLinks are links a shared git vault could carry, each into a hidden
// folder or the state dir, as files and as folders, direct and chained.
var hiddenLinks = map[string]string{
	"Geteilt/Einstellungen.md": "../.git/config",
	"Geteilt/Git":              "../.git",
	"Geteilt/Hooks":            "../.git/hooks",
	"Geteilt/Zustand":          "../.vaultd",
	"Geteilt/Schlüssel.md":     "../.vaultd/keys.json",
	"Geteilt/Obsidian":         "../.obsidian",
	"Geteilt/Papierkorb":       "../.trash",
	"Geteilt/Gelöscht.md":      "../.trash/Alt/Gelöscht.md",
	"Geteilt/Versteckt":        "../.hidden/Geheim",
	"Geteilt/Kette.md":         "Einstellungen.md",
	"Geteilt/Tief/Unten.md":    "../../.git/config",
	"Geteilt/Umweg":            "Tief/..",
	"Geteilt/Schleife":         "Git/..", // leads to the root through .git
	"Geteilt/Bild.png":         "../.obsidian/snippets/css.png",
}

// hiddenPayloads are the paths every tool is called with: the links, and
// paths below the folder links.
var hiddenPayloads = []string{
	"Geteilt/Einstellungen.md", "Geteilt/Einstellungen", "Geteilt/Kette.md", "Geteilt/Tief/Unten.md",
	"Geteilt/Schlüssel.md", "Geteilt/Gelöscht.md", "Geteilt/Bild.png",
	"Geteilt/Git/config", "Geteilt/Git/Neu.md", "Geteilt/Git/hooks/pre-commit.png", "Geteilt/Hooks/pre-commit.png",
	"Geteilt/Zustand/keys.json", "Geteilt/Zustand/notes/Zustand.md", "Geteilt/Zustand/Neu.md", "Geteilt/Zustand/history.jsonl",
	"Geteilt/Obsidian/plugins/p/x.md", "Geteilt/Obsidian/Neu.md", "Geteilt/Papierkorb/Alt/Gelöscht.md",
	"Geteilt/Versteckt/Notiz.md", "Geteilt/Versteckt/Neu.md", "Geteilt/Schleife/Geteilt/Einstellungen.md",
	"Geteilt/Git/", "Geteilt/Zustand/", "Geteilt/Versteckt/", "Geteilt/Obsidian/", "Geteilt/Papierkorb/",
}

// pathArgs are the arguments that name a note, a folder or a file.
var pathArgs = []string{"path", "folder", "to", "trash_path", "note", "name", "space"}

// baseArgs gives every tool the other arguments it needs, so that only the
// path decides whether it succeeds.
func baseArgs(tool string, version string) map[string]any {
	a := map[string]any{"change_summary": "Test über Links", "expected_version": version}
	switch tool {
	case "append_to_note", "create_note", "replace_note":
		a["content"] = "PWNED"
	case "update_section":
		a["content"], a["heading"] = "PWNED", "remote \"origin\""
	case "set_properties":
		a["properties"] = map[string]any{"pwned": true}
	case "add_tags", "remove_tags":
		a["tags"] = []any{"pwned"}
	case "move_card":
		a["card"], a["to_column"] = "x", "y"
	case "add_card":
		a["column"], a["text"] = "x", "PWNED"
	case "upload_attachment":
		a["content_base64"] = "UFdORUQ="
		a["name"] = "pwned.png"
	case "move_note":
		a["to"] = "1_Projekte/Gezogen.md"
	case "restore_note":
		a["trash_path"] = ".trash/Gibt es nicht.md" // see the restore check below
	}
	return a
}

// TestHiddenLinks_EveryTool: links planted in a shared vault into .git,
// .obsidian, .trash, the state dir and another hidden folder are never
// followed — by any tool, for any path argument, nor by the index: no
// answer shows a secret, nothing in those folders changes, and no write
// through a link succeeds.
func TestHiddenLinks_EveryTool(t *testing.T) {
	dir := copyExampleVault(t)
	writeFiles(t, dir, hiddenSecrets)
	for p, target := range hiddenLinks {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, full); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	// The state dir is the vault's own .vaultd, as by default.
	v, err := vault.Open(dir, vault.Options{NoSync: true, Actor: "test", Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	idx, err := index.Open(v, index.Options{Dir: filepath.Join(t.TempDir(), "index"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	if err := idx.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	c, err := NewCore(v, CoreOptions{Now: func() time.Time { return fixedNow }, Index: idx})
	if err != nil {
		t.Fatal(err)
	}

	hidden := []string{".git", ".obsidian", ".trash", ".hidden", ".vaultd/keys.json", ".vaultd/notes"}
	before := hiddenTree(t, dir, hidden)
	leak := func(what, text string) {
		t.Helper()
		for p, s := range hiddenSecrets {
			marker := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "# "))
			if strings.Contains(s, "ghp_") {
				marker = "ghp_GITSECRET"
			} else if strings.Contains(s, "KEYSECRET") {
				marker = "KEYSECRET"
			}
			if strings.Contains(text, marker) {
				t.Errorf("%s shows the secret of %s:\n%s", what, p, text)
			}
		}
	}
	secretVersion := note.ShortVersion(note.Version([]byte(hiddenSecrets[".git/config"])))
	calls := 0
	for _, tl := range tools {
		props := toolProperties(t, tl)
		for _, arg := range pathArgs {
			if !props[arg] {
				continue
			}
			for _, p := range hiddenPayloads {
				args := baseArgs(tl.name, secretVersion)
				args[arg] = p
				if tl.name == "upload_attachment" && arg == "name" {
					args[arg] = strings.TrimSuffix(p, "/") + "/pwned.png"
				}
				r := c.Call(context.Background(), everyone, tl.name, args)
				calls++
				js, _ := json.Marshal(r.Data)
				what := tl.name + " " + arg + "=" + p
				leak(what, r.Text)
				leak(what+" (structured)", string(js))
				if tl.perm != "read" && !r.IsError() && arg != "space" {
					t.Errorf("%s: a write through a link into a hidden folder succeeded:\n%s", what, r.Text)
				}
			}
		}
	}
	// A note in the trash may be restored (list_trash shows it), but never
	// to a path through a link.
	for _, p := range hiddenPayloads {
		if strings.Count(p, "/") < 2 && !strings.HasSuffix(p, "/") {
			continue // Geteilt/X/Zurück.md: X is no link
		}
		r := c.Call(context.Background(), everyone, "restore_note", map[string]any{
			"trash_path": ".trash/Alt/Gelöscht.md", "to": strings.TrimSuffix(p, "/") + "/Zurück.md", "change_summary": "zurück"})
		if !r.IsError() {
			t.Errorf("restore_note to %s/Zurück.md through a link succeeded:\n%s", p, r.Text)
		}
	}
	// Searching for the secrets finds nothing; listing shows no link.
	for _, q := range []string{"ghp_GITSECRET", "OBSIDIANSECRET", "TRASHSECRET", "STATESECRET", "DOTSECRET", "KEYSECRET", "origin"} {
		r := c.Call(context.Background(), readOnly, "search_notes", map[string]any{"query": q})
		if strings.Contains(r.Text, "Geteilt/") || strings.Contains(r.Text, "example.invalid") || strings.Contains(r.Text, "# ") {
			t.Errorf("search_notes %s shows a link into a hidden folder:\n%s", q, r.Text)
		}
	}
	for _, args := range []map[string]any{{"folder": "Geteilt"}, {"sort": "changed", "limit": 100}, {}} {
		r := c.Call(context.Background(), readOnly, "list_notes", args)
		leak("list_notes", r.Text)
		for p := range hiddenLinks {
			if strings.HasSuffix(p, ".md") && strings.Contains(r.Text, p) {
				t.Errorf("list_notes %v lists the link %s:\n%s", args, p, r.Text)
			}
		}
	}
	after := hiddenTree(t, dir, hidden)
	if strings.Join(before, "\n") != strings.Join(after, "\n") {
		t.Errorf("hidden folders changed:\nbefore:\n%s\nafter:\n%s", strings.Join(before, "\n"), strings.Join(after, "\n"))
	}
	t.Logf("%d calls with %d payloads through %d links: no secret shown, nothing hidden changed", calls, len(hiddenPayloads), len(hiddenLinks))
}

// toolProperties returns the names of a tool's arguments.
func toolProperties(t *testing.T, tl tool) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, a := range argsOf(tl.argsType) {
		out[a.Name] = true
	}
	return out
}

// hiddenTree lists every file below the given vault paths with a hash of
// its content, sorted.
func hiddenTree(t *testing.T, dir string, roots []string) []string {
	t.Helper()
	var out []string
	for _, r := range roots {
		_ = filepath.WalkDir(filepath.Join(dir, filepath.FromSlash(r)), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			sum := sha256.Sum256(b)
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel)+" "+hex.EncodeToString(sum[:6]))
			return nil
		})
	}
	sort.Strings(out)
	return out
}
