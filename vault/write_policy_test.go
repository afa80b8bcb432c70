package vault_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

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
		if e, _ := vault.AsError(err); e.Rule == "" || e.Op == "" || e.Path == "" {
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
