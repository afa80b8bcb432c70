package rules

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// checkVault has a protected archive, an inbox and required properties from
// two notes, and a protected folder pattern with a wildcard.
const checkVault = `
-- 9_System/Regeln für Agenten.md --
---
title: Regeln für Agenten
protected:
  - "4_Archiv/**"
inbox: 0_Inbox
required_properties:
  - tags
---
Archivierte Notizen nicht ändern.
-- 9_System/Zusatz.md --
---
protected: 1_Projekte/*/Abgeschlossen
required_properties: [status, tags]
---
-- 1_Projekte/Alpha.md --
# Alpha
`

func TestCheckWrite(t *testing.T) {
	r := load(t, checkVault)
	const good = "---\ntags: [projekt]\nstatus:\n---\n# Neu\n"
	tests := []struct {
		name    string
		c       vault.WriteCheck
		blocked bool
	}{
		// Protected paths, every operation.
		{"archive append", vault.WriteCheck{Op: "append", Path: "4_Archiv/Alt.md", Content: []byte("x")}, true},
		{"archive update_section", vault.WriteCheck{Op: "update_section", Path: "4_Archiv/2023/Alt.md", Content: []byte("x")}, true},
		{"archive replace", vault.WriteCheck{Op: "replace", Path: "4_Archiv/Alt.md", Content: []byte(good)}, true},
		{"archive delete", vault.WriteCheck{Op: "delete", Path: "4_Archiv/Alt.md"}, true},
		{"archive restore", vault.WriteCheck{Op: "restore", Path: "4_Archiv/Alt.md", Content: []byte("x"), New: true}, true},
		{"archive move", vault.WriteCheck{Op: "move", Path: "4_Archiv/Neu.md", New: true}, true},
		{"archive create", vault.WriteCheck{Op: "create", Path: "4_Archiv/Neu.md", Content: []byte(good), New: true}, true},
		{"archive case and NFD", vault.WriteCheck{Op: "append", Path: "4_archiv/" + uDecomposed + "bersicht.md", Content: []byte("x")}, true},
		{"archive folder itself", vault.WriteCheck{Op: "move", Path: "4_Archiv"}, true},
		{"rules note replace", vault.WriteCheck{Op: "replace", Path: "9_System/Regeln für Agenten.md", Content: []byte(good)}, true},
		{"rules note create", vault.WriteCheck{Op: "create", Path: "9_System/Neu.md", Content: []byte(good), New: true}, true},
		{"rules folder other case", vault.WriteCheck{Op: "delete", Path: "9_system/Regeln für Agenten.md"}, true},
		{"wildcard folder", vault.WriteCheck{Op: "update_section", Path: "1_Projekte/Alpha/Abgeschlossen/Bericht.md", Content: []byte("x")}, true},
		// Required properties on new notes.
		{"create without frontmatter", vault.WriteCheck{Op: "create", Path: "0_Inbox/Notiz.md", Content: []byte("# Notiz\n"), New: true}, true},
		{"create missing one", vault.WriteCheck{Op: "create", Path: "0_Inbox/Notiz.md", Content: []byte("---\ntags: [a]\n---\n"), New: true}, true},
		{"create missing both", vault.WriteCheck{Op: "create", Path: "0_Inbox/Notiz.md", Content: []byte("---\ntitle: Notiz\n---\n"), New: true}, true},
		{"create empty frontmatter", vault.WriteCheck{Op: "create", Path: "0_Inbox/Notiz.md", Content: []byte("---\n---\nText"), New: true}, true},
		{"create key in other case", vault.WriteCheck{Op: "create", Path: "0_Inbox/Notiz.md", Content: []byte("---\nTags: [a]\nStatus: neu\n---\n"), New: true}, true},
		{"create invalid YAML", vault.WriteCheck{Op: "create", Path: "0_Inbox/Notiz.md", Content: []byte("---\ntags: [a\nstatus: neu\n---\n"), New: true}, true},
		{"create unclosed frontmatter", vault.WriteCheck{Op: "create", Path: "0_Inbox/Notiz.md", Content: []byte("---\ntags: [a]\nstatus: neu\n"), New: true}, true},
		{"create empty", vault.WriteCheck{Op: "create", Path: "0_Inbox/Notiz.md", New: true}, true},
		{"append creates a note", vault.WriteCheck{Op: "append", Path: "0_Inbox/Log.md", Content: []byte("- Eintrag\n"), New: true}, true},
		// Allowed.
		{"create with all properties", vault.WriteCheck{Op: "create", Path: "0_Inbox/Notiz.md", Content: []byte(good), New: true}, false},
		{"create with BOM and CRLF", vault.WriteCheck{Op: "create", Path: "Notiz.md", Content: []byte("\ufeff---\r\nstatus: neu\r\ntags: []\r\n---\r\n"), New: true}, false},
		{"create with aliased values", vault.WriteCheck{Op: "create", Path: "Notiz.md", Content: []byte("---\ntags: &t [a]\nstatus: *t\n---\n"), New: true}, false},
		{"append to existing", vault.WriteCheck{Op: "append", Path: "1_Projekte/Alpha.md", Content: []byte("# Alpha\nmehr\n")}, false},
		{"replace existing without frontmatter", vault.WriteCheck{Op: "replace", Path: "1_Projekte/Alpha.md", Content: []byte("# Alpha\n")}, false},
		{"delete", vault.WriteCheck{Op: "delete", Path: "1_Projekte/Alpha.md"}, false},
		{"restore old note", vault.WriteCheck{Op: "restore", Path: "1_Projekte/Beta.md", Content: []byte("# Beta\n"), New: true}, false},
		{"move to a new path", vault.WriteCheck{Op: "move", Path: "2_Bereiche/Alpha.md", Content: []byte("# Alpha\n"), New: true}, false},
		{"create attachment", vault.WriteCheck{Op: "create", Path: "Anhänge/Bild.png", Content: []byte{0x89, 'P', 'N', 'G'}, New: true}, false},
		{"archive look-alike", vault.WriteCheck{Op: "append", Path: "4_Archiv-Neu/Alt.md", Content: []byte("x")}, false},
		{"project not finished", vault.WriteCheck{Op: "append", Path: "1_Projekte/Alpha/Offen/Plan.md", Content: []byte("x")}, false},
	}
	var out strings.Builder
	for _, tt := range tests {
		err := r.CheckWrite(tt.c)
		fmt.Fprintf(&out, "== %s: %s %s\n", tt.name, tt.c.Op, tt.c.Path)
		if err == nil {
			if tt.blocked {
				t.Errorf("%s: CheckWrite(%s %q) = nil, want ErrDenied", tt.name, tt.c.Op, tt.c.Path)
			}
			out.WriteString("allowed\n\n")
			continue
		}
		if !tt.blocked {
			t.Errorf("%s: CheckWrite(%s %q) = %v, want nil", tt.name, tt.c.Op, tt.c.Path, err)
		}
		if !errors.Is(err, vault.ErrDenied) {
			t.Errorf("%s: errors.Is(%v, vault.ErrDenied) = false, want true", tt.name, err)
		}
		e, ok := note.AsError(err)
		if !ok {
			t.Fatalf("%s: got %T, want *vault.Error", tt.name, err)
		}
		if e.Op != tt.c.Op || e.Path != tt.c.Path || e.Rule == "" || !strings.Contains(e.Msg, `"`+e.Rule+`"`) {
			t.Errorf("%s: got Op %q, Path %q, Rule %q, Msg %q; want Op %q, Path %q and the rule named in Msg",
				tt.name, e.Op, e.Path, e.Rule, e.Msg, tt.c.Op, tt.c.Path)
		}
		if e.RuleSource != "" && !strings.Contains(e.Msg, e.RuleSource) {
			t.Errorf("%s: Msg %q does not name RuleSource %q", tt.name, e.Msg, e.RuleSource)
		}
		src := e.RuleSource
		if src == "" {
			src = "(built in)"
		}
		fmt.Fprintf(&out, "denied: %s\nrule: %s, from %s\n", err, e.Rule, src)
		if len(e.Alternatives) > 0 {
			fmt.Fprintf(&out, "%s: %s\n", e.AltKind, strings.Join(e.Alternatives, ", "))
		}
		out.WriteString("\n")
	}
	checkGolden(t, "checkwrite.golden", []byte(out.String()))
}

func TestCheckWrite_Alternatives(t *testing.T) {
	r := load(t, checkVault)
	err := r.CheckWrite(vault.WriteCheck{Op: "create", Path: "Notiz.md", Content: []byte("---\ntitle: x\n---\n"), New: true})
	e, ok := note.AsError(err)
	if !ok {
		t.Fatalf("CheckWrite: got %v, want a *vault.Error", err)
	}
	if want := []string{"tags", "status"}; !reflect.DeepEqual(e.Alternatives, want) || e.AltKind != "properties" {
		t.Errorf("got Alternatives %q (%s), want %q (properties)", e.Alternatives, e.AltKind, want)
	}
	if e.Rule != "required_properties" || e.RuleSource != regeln {
		t.Errorf("got Rule %q from %q, want %q from %q", e.Rule, e.RuleSource, "required_properties", regeln)
	}
}

func TestPlaceNew(t *testing.T) {
	r := load(t, checkVault)
	tests := []struct{ in, want string }{
		{"Notiz.md", "0_Inbox/Notiz.md"},
		{"Grüne Ideen.md", "0_Inbox/Grüne Ideen.md"},
		{"1_Projekte/Notiz.md", "1_Projekte/Notiz.md"},
		{"0_Inbox/Notiz.md", "0_Inbox/Notiz.md"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := r.PlaceNew(tt.in); got != tt.want {
			t.Errorf("PlaceNew(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	none := load(t, "-- 9_System/R.md --\n---\nprotected: 4_Archiv\n---\n")
	if got := none.PlaceNew("Notiz.md"); got != "Notiz.md" {
		t.Errorf("without an inbox: PlaceNew(%q) = %q, want it unchanged", "Notiz.md", got)
	}
}

// A nil *Rules is a vault without rules notes: 9_System/ is still protected.
func TestNilRules(t *testing.T) {
	var r *Rules
	if err := r.CheckWrite(vault.WriteCheck{Op: "replace", Path: "9_System/R.md"}); !errors.Is(err, vault.ErrDenied) {
		t.Errorf("nil Rules: CheckWrite on 9_System/R.md = %v, want ErrDenied", err)
	}
	if err := r.CheckWrite(vault.WriteCheck{Op: "create", Path: "Notiz.md", New: true}); err != nil {
		t.Errorf("nil Rules: CheckWrite on Notiz.md = %v, want nil", err)
	}
	if got := r.PlaceNew("Notiz.md"); got != "Notiz.md" {
		t.Errorf("nil Rules: PlaceNew = %q, want it unchanged", got)
	}
	if !strings.Contains(r.Summary(), "9_System/** (built in)") {
		t.Errorf("nil Rules: Summary lacks the built-in rule:\n%s", r.Summary())
	}
}

// Every golden text is agent- or owner-facing: none may hold an unfilled
// template, a Go type or a host path (AGENT-CONTRACT rule 10).
func TestGoldens_NoPlaceholders(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.golden"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	bad := []string{"%!", "%s", "%v", "%q", "%d", "{{", "<nil>", `""`, "''", "*vault.", "*note.", "*rules.", "yaml.Node", "/tmp/", "/home/", "/root/", os.TempDir()}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			if strings.Contains(string(data), b) {
				t.Errorf("%s contains %q", f, b)
			}
		}
	}
}
