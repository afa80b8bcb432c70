package vault_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/rules"
	"github.com/vaultd/vaultd/vault"
)

// The vault's rules (package rules, the real Policy) apply to every write:
// the inbox places new notes without a folder, protected paths and missing
// required properties are refused before anything is published.
func TestWrite_Policy(t *testing.T) {
	dir := t.TempDir()
	for p, data := range map[string]string{
		"9_System/Regeln.md": "---\ninbox: 0_Inbox\nprotected:\n  - 4_Archiv/**\nrequired_properties:\n  - tags\n---\nBe kind.\n",
		"4_Archiv/Alt.md":    "## Log\n\nalt\n",
		"1_Projekte/Plan.md": "## Log\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644)
	}
	v, err := vault.Open(dir, vault.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	r, err := rules.Load(v.FS())
	if err != nil {
		t.Fatal(err)
	}
	v.SetPolicy(r)
	o := vault.WriteOpts{Summary: "policy test"}

	res, err := v.Create("Idee", []byte("---\ntags: [idee]\n---\nx\n"), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Note.Path != "0_Inbox/Idee.md" {
		t.Errorf("inbox: got %q, want 0_Inbox/Idee.md", res.Note.Path)
	}

	denied := map[string]func() error{
		"create without tags":   func() error { _, err := v.Create("1_Projekte/Neu.md", []byte("x\n"), o); return err },
		"create in the archive": func() error { _, err := v.Create("4_Archiv/Neu.md", []byte("---\ntags: []\n---\n"), o); return err },
		"append to the archive": func() error { _, err := v.Append("4_Archiv/Alt.md", "Log", []byte("x"), o); return err },
		"update the archive": func() error {
			_, err := v.UpdateSection("4_Archiv/Alt.md", "Log", []byte("x"), o)
			return err
		},
		"replace the rules": func() error {
			n, _ := v.Read("9_System/Regeln.md")
			_, err := v.Replace("9_System/Regeln.md", []byte("---\n---\n"), vault.WriteOpts{Summary: "s", ExpectedVersion: n.Version})
			return err
		},
		"delete from the archive": func() error {
			n, _ := v.Read("4_Archiv/Alt.md")
			_, err := v.Delete("4_Archiv/Alt.md", vault.WriteOpts{Summary: "s", ExpectedVersion: n.Version})
			return err
		},
	}
	for name, call := range denied {
		err := call()
		if !errors.Is(err, vault.ErrDenied) {
			t.Errorf("%s: got %v, want ErrDenied", name, err)
			continue
		}
		if e, _ := note.AsError(err); e.Rule == "" || e.Op == "" || e.Path == "" {
			t.Errorf("%s: got %+v, want Op, Path and Rule set", name, e)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "1_Projekte/Neu.md")); !os.IsNotExist(err) {
		t.Errorf("a denied create left a note: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "4_Archiv/Alt.md")); string(b) != "## Log\n\nalt\n" {
		t.Errorf("a protected note changed: %q", b)
	}

	// A note deleted before the rule cannot be restored into the archive.
	n, _ := v.Read("1_Projekte/Plan.md")
	if _, err := v.Delete("1_Projekte/Plan.md", vault.WriteOpts{Summary: "s", ExpectedVersion: n.Version}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Restore("1_Projekte/Plan.md", "4_Archiv/Plan.md", o); !errors.Is(err, vault.ErrDenied) {
		t.Errorf("restore into the archive: got %v, want ErrDenied", err)
	}
	if _, err := v.Restore("1_Projekte/Plan.md", "", o); err != nil {
		t.Errorf("restore to where it was: %v", err)
	}
}

// WriteOpts.Check judges one write on its exact text, under the note's
// lock: it sees the text before and after (and a delete's sub-notes), and
// its error refuses the write, is returned as it is, and leaves the files
// as they were.
func TestWrite_Check(t *testing.T) {
	dir := t.TempDir()
	for p, data := range map[string]string{
		"Plan.md":           "# Plan\n\n## Ziele\n\nviele Worte hier\n",
		"Projekt.md":        "# Projekt\n",
		"Projekt/Teil 1.md": "eins\n",
		"Projekt/Teil 2.md": "zwei\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644)
	}
	v, err := vault.Open(dir, vault.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	refuse := errors.New("refused by the caller")
	var seen []vault.WriteCheck
	o := vault.WriteOpts{Summary: "check test", Check: func(w vault.WriteCheck) error {
		seen = append(seen, w)
		return refuse
	}}
	plan, _ := v.Read("Plan.md")
	o.ExpectedVersion = plan.Version
	if _, err := v.UpdateSection("Plan.md", "Ziele", []byte("kurz"), o); err != refuse {
		t.Errorf("update_section: got %v, want the Check's error as it is", err)
	}
	if _, err := v.Replace("Plan.md", []byte("neu\n"), o); err != refuse {
		t.Errorf("replace: got %v, want the Check's error", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "Plan.md")); string(b) != "# Plan\n\n## Ziele\n\nviele Worte hier\n" {
		t.Errorf("Plan.md changed by refused writes: %q", b)
	}
	proj, _ := v.Read("Projekt.md")
	o.ExpectedVersion = proj.Version
	if _, err := v.Delete("Projekt.md", o); err != refuse {
		t.Errorf("delete: got %v, want the Check's error", err)
	}
	for _, p := range []string{"Projekt.md", "Projekt/Teil 1.md", "Projekt/Teil 2.md"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s after a refused delete: %v", p, err)
		}
	}
	if len(seen) != 3 {
		t.Fatalf("Check was called %d times, want 3: %+v", len(seen), seen)
	}
	if w := seen[0]; w.Op != "update_section" || string(w.Before) != "# Plan\n\n## Ziele\n\nviele Worte hier\n" || string(w.Content) != "# Plan\n\n## Ziele\n\nkurz\n" {
		t.Errorf("update_section's check: op %q, before %q, content %q", w.Op, w.Before, w.Content)
	}
	if w := seen[1]; w.Op != "replace" || string(w.Content) != "neu\n" || len(w.Before) == 0 {
		t.Errorf("replace's check: op %q, before %q, content %q", w.Op, w.Before, w.Content)
	}
	if w := seen[2]; w.Op != "delete" || w.Path != "Projekt.md" || len(w.SubNotes) != 2 || w.SubNotes[0] != "Projekt/Teil 1.md" {
		t.Errorf("delete's check: op %q, path %q, sub-notes %v", w.Op, w.Path, w.SubNotes)
	}
	// Without an error the write goes through.
	o.Check = func(vault.WriteCheck) error { return nil }
	if _, err := v.Delete("Projekt.md", o); err != nil {
		t.Errorf("delete with a Check that allows it: %v", err)
	}
}
