package vault

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// vaultd as git's merge driver for notes: .git/config names the command
// (merge.vaultd.driver), .gitattributes in the vault folder says which
// files it merges ("*.md merge=vaultd"). The config is per clone, the
// attributes file is shared through git: a teammate whose clone lacks the
// config gets git's own line merge, nothing worse.

// MergeDriverAttr is the line of .gitattributes that routes notes to
// vaultd's merge driver.
const MergeDriverAttr = "*.md merge=vaultd"

// DriverPlan is what installing the merge driver changes (PlanMergeDriver).
type DriverPlan struct {
	Command   string // the value of merge.vaultd.driver
	ConfigHas bool   // .git/config has it already
	// AttrHas: git already routes notes of the vault to the driver (by
	// .gitattributes here or elsewhere); otherwise MergeDriverAttr is
	// added to .gitattributes in the vault folder.
	AttrHas     bool
	AttrExists  bool // .gitattributes exists in the vault folder
	AttrTracked bool // and git tracks it: the team shares it, so changing it needs the owner's yes
	// AttrOther is the merge attribute the team's .gitattributes give notes
	// instead, as spelled there ("merge=union", "-merge" for binary), ""
	// when none.
	AttrOther string
	// InfoHas: .git/info/attributes holds vaultd's lines (gitattr.go),
	// which make the driver win in this clone over any .gitattributes
	// line and keep notes UTF-8.
	InfoHas bool
}

// Done reports whether nothing is left to change.
func (p *DriverPlan) Done() bool { return p.ConfigHas && p.AttrHas && p.InfoHas }

// PlanMergeDriver says what InstallMergeDriver would change to register
// bin (the absolute path of the vaultd binary) as the merge driver.
// Errors: the vault is not in a git repository with a work tree.
func (v *Vault) PlanMergeDriver(bin string) (*DriverPlan, error) {
	if gitDir, _ := v.repo(); gitDir == "" {
		return nil, errors.New("the vault is not inside a git repository (with a work tree); run git init or git clone first")
	}
	p := &DriverPlan{Command: shellWord(bin) + " git merge-driver %O %A %B %L %P"}
	if out, err := v.git("config", "--local", "--get", "merge.vaultd.driver"); err == nil && strings.TrimSpace(out) == p.Command {
		p.ConfigHas = true
	}
	// Which driver do the team's .gitattributes give a note? (check-attr
	// needs no such file; vaultd's own lines in .git/info/attributes do
	// not count: teammates do not have them.)
	if f, err := v.teamAttrs([]string{"vaultd-probe.md"}, "merge"); err == nil && len(f) == 3 {
		switch f[2] {
		case "vaultd":
			p.AttrHas = true
		case "unspecified":
		default:
			p.AttrOther, _, _, _ = attrMeaning("merge", f[2], false)
		}
	}
	if name, err := v.infoAttrPath(); err == nil {
		old, _ := os.ReadFile(name)
		_, p.InfoHas = infoAttrWant(old, true, v.attrPrefix())
	}
	if _, err := os.Lstat(filepath.Join(v.dir, ".gitattributes")); err == nil {
		p.AttrExists = true
		if _, err := v.git("ls-files", "--error-unmatch", "--", ".gitattributes"); err == nil {
			p.AttrTracked = true
		}
	}
	return p, nil
}

// InstallMergeDriver makes the changes of p: the driver in .git/config,
// vaultd's lines in .git/info/attributes, the line in .gitattributes
// (appended, or a new file) unless teamFile is false.
func (v *Vault) InstallMergeDriver(p *DriverPlan, teamFile bool) error {
	if !p.ConfigHas {
		if out, err := v.git("config", "--local", "merge.vaultd.name", "vaultd: merge notes by sections and properties"); err != nil {
			return fmt.Errorf("git config failed: %s", firstGitLine(out, err))
		}
		if out, err := v.git("config", "--local", "merge.vaultd.driver", p.Command); err != nil {
			return fmt.Errorf("git config failed: %s", firstGitLine(out, err))
		}
	}
	if !p.InfoHas {
		if _, err := v.keepNoteAttrs(true); err != nil {
			return err
		}
	}
	if !p.AttrHas && teamFile {
		name := filepath.Join(v.dir, ".gitattributes")
		old, err := os.ReadFile(name)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("read .gitattributes: %s", errText(err))
		}
		var b []byte
		b = append(b, old...)
		if len(b) > 0 && !bytes.HasSuffix(b, []byte("\n")) {
			b = append(b, '\n')
		}
		b = append(b, "# Notes merge section by section: vaultd git install\n"+MergeDriverAttr+"\n"...)
		if err := os.WriteFile(name, b, 0o644); err != nil {
			return fmt.Errorf("write .gitattributes: %s", errText(err))
		}
	}
	return nil
}

// shellWord quotes s for the shell git runs the driver with.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
