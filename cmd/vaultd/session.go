package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// vaultEnv names the environment variable that gives the vault when
// --vault is not set.
const vaultEnv = "VAULTD_VAULT"

// vaultDirFor returns the vault folder: --vault, else $VAULTD_VAULT, else
// the current folder; and where it came from, for messages.
func (a *app) vaultDirFor() (dir, from string) {
	switch {
	case a.vaultDir != "":
		return a.vaultDir, "--vault"
	case os.Getenv(vaultEnv) != "":
		return os.Getenv(vaultEnv), "$" + vaultEnv
	}
	return ".", "the current folder"
}

// openCore opens the vault and the core every command shares. The caller
// closes the vault. Names are looked up in the index's saved table, or
// asked of the vaultd process that keeps the index (index.OpenNames): a
// command that names a note by its title reads that note, not the vault.
func (a *app) openCore() (*tools.Core, *vault.Vault, error) {
	v, err := a.openVault()
	if err != nil {
		return nil, nil, err
	}
	names := index.OpenNames(v, index.Options{})
	v.OnClose(func() { names.Close() })
	c, err := tools.NewCore(v, tools.CoreOptions{Names: names})
	if err != nil {
		v.Close()
		return nil, nil, err
	}
	return c, v, nil
}

// openVault checks and opens the vault folder.
func (a *app) openVault() (*vault.Vault, error) {
	dir, from := a.vaultDirFor()
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &failure{code: exitNotFound, err: err,
			msg: fmt.Sprintf("vault folder %s (from %s) does not exist: the vault must be a folder that exists — your Obsidian vault's folder, or a new vault made with vaultd init", dir, from),
			try: "vaultd init " + shellQuote(dir)}
	case err != nil:
		return nil, err
	case !fi.IsDir():
		return nil, &failure{code: exitInvalid,
			msg: fmt.Sprintf("vault %s (from %s) is a file, not a folder", dir, from),
			try: "vaultd --vault " + shellQuote(filepath.Dir(dir)) + " overview"}
	}
	if from == "the current folder" && !looksLikeVault(dir) {
		// Running vaultd in the wrong folder would leave a .vaultd state dir
		// behind; say what to do instead.
		wd, _ := os.Getwd()
		return nil, &failure{code: exitUsage,
			msg: fmt.Sprintf("the current folder %s has no notes, so it is probably not your vault; name the vault with --vault DIR or $%s, or start one with: vaultd init DIR", wd, vaultEnv)}
	}
	v, err := vault.Open(dir, vault.Options{StateDir: a.stateDir, Actor: a.actor, NoSync: a.noSync, GitCommit: a.gitCommit})
	if err != nil {
		// The folder is there (checked above): what failed is the state
		// dir — missing parent, not writable, a file — an error of the
		// setup (exit 1), not a note that was not found (exit 3), even when
		// its cause is a missing path.
		return nil, &failure{code: exitError, msg: err.Error(), err: err}
	}
	return v, nil
}

// looksLikeVault reports whether dir holds an Obsidian config, a vaultd
// state dir, or a note within two folder levels.
func looksLikeVault(dir string) bool {
	for _, marker := range []string{".obsidian", vault.StateDirName} {
		if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
			return true
		}
	}
	for _, pattern := range []string{"*.md", "*/*.md", "*/*/*.md"} {
		if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) > 0 {
			return true
		}
	}
	return false
}

// caller is who the CLI acts as: the vault owner, with every permission,
// recorded in history as --actor; next calls are spelled as commands.
func (a *app) caller() tools.Caller {
	return tools.Caller{Actor: a.actor, Perms: tools.AllPerms, Door: tools.DoorCLI}
}

// call opens the core, runs one tool through it and prints the result:
// its text, or with --json its data.
func (a *app) call(cmd *cobra.Command, tool func(*tools.Core, tools.Caller) *tools.Result) error {
	c, v, err := a.openCore()
	if err != nil {
		return err
	}
	defer v.Close()
	return a.print(cmd, tool(c, a.caller()))
}

// print writes a result: its text, or with --json its data; a failure
// becomes the command's error.
func (a *app) print(cmd *cobra.Command, res *tools.Result) error {
	if res.Err != nil {
		f := domainFailure(res, globalFlags(cmd))
		if a.content != nil {
			f.try = a.content.fillContent(f.try)
		}
		if f.try != "" && !a.knownCommand(f.try) {
			// The core may suggest a command or flag this CLI does not have
			// (search, backlinks); a suggestion that fails is worse than none.
			f.try = ""
		}
		return f
	}
	if a.csv && !a.json {
		if ok, err := a.writeCSV(res.Data); ok {
			return err
		}
	}
	if a.json {
		data := res.Data
		if data == nil {
			data = map[string]string{"text": res.Text}
		}
		return writeJSON(a.out, data)
	}
	text := res.Text
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err := fmt.Fprint(a.out, text)
	return err
}

// knownCommand reports whether a "vaultd NAME --flag …" line names a
// command of this binary and only flags it has.
func (a *app) knownCommand(line string) bool {
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "vaultd" {
		return false
	}
	for _, c := range a.root.Commands() {
		if c.Name() != f[1] {
			continue
		}
		for _, w := range f[2:] {
			name, ok := strings.CutPrefix(w, "--")
			if !ok {
				continue
			}
			name, _, _ = strings.Cut(name, "=")
			if c.Flags().Lookup(name) == nil && c.InheritedFlags().Lookup(name) == nil {
				return false
			}
		}
		return true
	}
	return false
}
