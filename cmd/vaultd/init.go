package main

import (
	"embed"
	"errors"
	"fmt"
	"github.com/vaultd/vaultd/tools"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/rules"
	"github.com/vaultd/vaultd/vault"
)

// starter holds the notes `vaultd init` writes, as files you can review:
// starter/9_System/Regeln für Agenten.md and starter/0_Inbox/Willkommen.md.
//
//go:embed starter
var starter embed.FS

// spaces are the top-level folders of a new vault, PARA-style, numbered so
// that Obsidian and `ls` show them in this order; 9_System holds the rules.
var spaces = []string{"0_Inbox", "1_Projekte", "2_Bereiche", "3_Ressourcen", "4_Archiv", rules.Folder}

// initReport is what `vaultd init` did; --json prints it.
type initReport struct {
	Vault    string   `json:"vault"`    // host path of the vault
	Created  []string `json:"created"`  // vault-relative; folders end in "/"
	Kept     []string `json:"kept"`     // already there, left untouched (--force)
	Next     []string `json:"next"`     // commands to run next
	Problems []string `json:"problems"` // mistakes in the rules notes (--force on an existing 9_System)
}

func (a *app) initCommand() *cobra.Command {
	var force bool
	var name string
	cmd := &cobra.Command{
		Use:   "init DIR",
		Short: "Lay out a new vault: its spaces and a starter rules note",
		Long: `Lay out a new vault in DIR for someone starting from nothing: the spaces
0_Inbox, 1_Projekte, 2_Bereiche, 3_Ressourcen, 4_Archiv and 9_System, the
rules for agents in "9_System/Regeln für Agenten.md" and a welcome note in
0_Inbox. Open DIR in Obsidian as a vault, or point vaultd at it.

DIR may exist if it is empty; hidden entries such as .git or .obsidian do
not count. In a folder that has notes already, --force adds only what is
missing and never overwrites a file.

The rules note is yours to edit. Its frontmatter is enforced on every
change an agent makes:
  protected:            globs agents may read but not change (9_System/ always)
  inbox:                folder for new notes given without a folder
  required_properties:  frontmatter keys every new note must have
Its text is shown to agents as guidance.

With --name NAME the vault is added to the vaults file ($VAULTD_VAULTS_FILE,
default ~/.config/vaultd/vaults: one NAME=DIR line each), so that
--vault NAME finds it and vaultd serve without --vault serves every vault
listed there. Works on an existing vault too: vaultd init --force --name.`,
		Example: `  vaultd init ~/Notizen
  vaultd init --force .        # add the spaces and rules to the current folder
  vaultd init ~/Team --name team`,
		Args: args(1, false, "the folder to create the vault in", "vaultd init ~/Notizen"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if name != "" {
				if err := tools.ValidVaultName(name); err != nil {
					return usagef("vaultd init "+shellQuote(args[0])+" --name work", "--name: %s", err.Error())
				}
				// Refused before anything is laid out.
				if dir, taken, err := configuredVault(name); err != nil {
					return err
				} else if taken {
					return usagef("vaultd init "+shellQuote(args[0])+" --name "+shellQuote(name+"-2"), "%s already names vault %s (%s); choose another --name", vaultsFile(), name, dir)
				}
			}
			rep, err := initVault(args[0], force)
			if err != nil {
				return err
			}
			if name != "" {
				file, err := addConfiguredVault(name, rep.Vault)
				if err != nil {
					return err
				}
				rep.Next = append([]string{"vaultd --vault " + name + " overview   # named in " + file}, rep.Next...)
			}
			if a.json {
				return writeJSON(a.out, rep)
			}
			printInit(a, rep)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&force, "force", false, "add what is missing to a folder that is not empty; never overwrites")
	cmd.Flags().StringVar(&name, "name", "", "also name the vault in the vaults file, for --vault NAME and serving several vaults")
	return cmd
}

// initVault lays out a vault in dir. Without force it refuses a folder
// that has visible entries (exit 4); with force it adds what is missing and
// keeps every existing file as it is.
func initVault(dir string, force bool) (*initReport, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	shown := shellQuote(dir)
	if fi, err := os.Stat(abs); err == nil {
		if !fi.IsDir() {
			return nil, &failure{code: exitInvalid, msg: fmt.Sprintf("%s is a file, not a folder; name a new or an empty folder", dir)}
		}
		if visible := visibleEntries(abs); len(visible) > 0 && !force {
			return nil, &failure{code: exitConflict,
				msg: fmt.Sprintf("%s is not empty (%s); --force adds the spaces and rules that are missing and overwrites nothing",
					dir, listSome(visible, 3)),
				try: "vaultd init --force " + shown}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	defer root.Close()

	rep := &initReport{Vault: abs, Created: []string{}, Kept: []string{}, Problems: []string{}}
	for _, s := range spaces {
		switch err := root.Mkdir(s, 0o755); {
		case err == nil:
			rep.Created = append(rep.Created, s+"/")
		case errors.Is(err, fs.ErrExist):
			rep.Kept = append(rep.Kept, s+"/")
		default:
			return nil, err
		}
	}
	files, err := starterFiles()
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := starter.ReadFile(path.Join("starter", f))
		if err != nil {
			return nil, err
		}
		created, err := writeNew(root, f, b)
		if err != nil {
			return nil, err
		}
		if created {
			rep.Created = append(rep.Created, f)
		} else {
			rep.Kept = append(rep.Kept, f)
		}
	}
	sort.Strings(rep.Created)
	sort.Strings(rep.Kept)
	// The state dir marks the folder as a vault, so that commands run in
	// it need no --vault (vaultd never takes a folder for a vault
	// otherwise); its .gitignore keeps it out of git, as vault.Open makes it.
	if err := root.Mkdir(vault.StateDirName, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	if _, err := writeNew(root, vault.StateDirName+"/.gitignore", []byte("*\n")); err != nil {
		return nil, err
	}

	// Load the rules as the server will, so that a mistake in an existing
	// 9_System note (kept by --force) shows up now, not at the first write.
	if r, err := rules.Load(root.FS()); err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	} else {
		rep.Problems = append(rep.Problems, r.Problems...)
	}

	rep.Next = []string{
		"vaultd overview --vault " + shown,
		"vaultd read --vault " + shown + " " + shellQuote(rules.Folder+"/Regeln für Agenten.md"),
		"vaultd connect --vault " + shown + "   # the lines that connect Claude Code, Cursor, Codex and Gemini",
		"export VAULTD_VAULT=" + shellQuote(abs) + "   # then --vault can be left out (or run vaultd inside the vault's folder)",
	}
	return rep, nil
}

// starterFiles lists the embedded starter notes, vault-relative.
func starterFiles() ([]string, error) {
	var out []string
	err := fs.WalkDir(starter, "starter", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		out = append(out, strings.TrimPrefix(p, "starter/"))
		return nil
	})
	return out, err
}

// writeNew creates name with b unless it exists; it never overwrites.
func writeNew(root *os.Root, name string, b []byte) (created bool, err error) {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return false, err
	}
	return true, f.Close()
}

// visibleEntries lists the entries of dir that are not hidden: a fresh git
// repository or an Obsidian config still counts as empty.
func visibleEntries(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			name := e.Name()
			if e.IsDir() {
				name += "/"
			}
			out = append(out, name)
		}
	}
	return out
}

// listSome renders "a, b, c and 4 more".
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

func printInit(a *app, rep *initReport) {
	w := a.out
	fmt.Fprintf(w, "Vault laid out in %s\n", rep.Vault)
	if len(rep.Created) > 0 {
		fmt.Fprintln(w, "created:")
		for _, c := range rep.Created {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
	if len(rep.Kept) > 0 {
		fmt.Fprintln(w, "kept as they were:")
		for _, k := range rep.Kept {
			fmt.Fprintf(w, "  %s\n", k)
		}
	}
	if len(rep.Problems) > 0 {
		fmt.Fprintf(w, "problems in the rules notes (fix them in %s/):\n", rules.Folder)
		for _, p := range rep.Problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	fmt.Fprintln(w, "next:")
	for _, n := range rep.Next {
		fmt.Fprintf(w, "  %s\n", n)
	}
}
