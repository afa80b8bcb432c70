package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

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
	case len(a.vaults) > 0:
		if sp, err := specOf(a.vaults[0]); err == nil {
			return sp.dir, sp.from
		}
		return a.vaults[0], "--vault"
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
	if len(a.vaults) > 1 {
		return nil, usagef("vaultd --vault "+shellQuote(a.vaults[0])+" overview", "only vaultd serve works on several vaults at once; name one --vault")
	}
	if len(a.vaults) == 1 {
		if _, err := specOf(a.vaults[0]); err != nil {
			return nil, &failure{code: exitError, msg: err.Error(), err: err}
		}
	}
	dir, from := a.vaultDirFor()
	return a.openVaultAt(dir, from)
}

// openVaultAt checks and opens the vault folder dir (named by from).
func (a *app) openVaultAt(dir, from string) (*vault.Vault, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f := &failure{code: exitNotFound, err: err,
			msg: fmt.Sprintf("vault folder %s (from %s) does not exist: the vault must be a folder that exists — your Obsidian vault's folder, or a new vault made with vaultd init", dir, from),
			try: "vaultd init " + shellQuote(dir)}
		if conf, _ := configuredVaults(); from == "--vault" && !strings.ContainsAny(dir, `/\`) && len(conf) > 0 {
			// A name, maybe: the names the vaults file has.
			var names []string
			for _, c := range conf {
				names = append(names, c.name)
			}
			f.msg += fmt.Sprintf(", and %s names no vault %s; it names %s", vaultsFile(), dir, strings.Join(names, ", "))
			f.try = "vaultd --vault " + shellQuote(conf[0].name) + " overview"
		}
		return nil, f
	case err != nil:
		return nil, err
	case !fi.IsDir():
		return nil, &failure{code: exitInvalid,
			msg: fmt.Sprintf("vault %s (from %s) is a file, not a folder", dir, from),
			try: "vaultd --vault " + shellQuote(filepath.Dir(dir)) + " overview"}
	}
	if from == "the current folder" && !isVault(dir) {
		// vaultd never guesses a vault: a command typed in the wrong folder
		// would index whatever .md files it holds (issue 32: 70,128 of
		// them in a shared temp folder, 447 MB of state) and leave a state
		// dir behind.
		return nil, notAVault(dir)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		a.vaultNamed = abs + " (from " + from + ")"
	} else {
		a.vaultNamed = dir + " (from " + from + ")"
	}
	o := vault.Options{StateDir: a.stateDir, Actor: a.actor, NoSync: a.noSync, GitCommit: a.gitCommit}
	if !a.serving {
		o.Progress = a.changeProgress
		o.ReadNotes = a.readNotesTip(dir)
	}
	v, err := vault.Open(dir, o)
	if err != nil {
		// The folder is there (checked above): what failed is the state
		// dir — missing parent, not writable, a file — an error of the
		// setup (exit 1), not a note that was not found (exit 3), even when
		// its cause is a missing path.
		return nil, &failure{code: exitError, msg: err.Error(), err: err}
	}
	return v, nil
}

// isVault reports whether dir is a vault without being named one: it
// holds .obsidian/ (Obsidian made it a vault) or vaultd's state dir
// .vaultd/ (vaultd init made it one, or vaultd was pointed at it before).
// Notes alone do not make a vault: any folder may hold .md files.
func isVault(dir string) bool {
	for _, marker := range []string{".obsidian", vault.StateDirName} {
		if fi, err := os.Stat(filepath.Join(dir, marker)); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// notAVault is the refusal for a current folder that is not a vault
// (exit 2, a usage error): what the folder holds, the vaults vaultd can
// see (a folder above that is one, Obsidian's list of vaults), and the
// command typed again with --vault, ready to run.
func notAVault(dir string) *failure {
	wd, err := filepath.Abs(dir)
	if err != nil {
		wd = dir
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the current folder %s is not a vault, and vaultd does not guess one: it has no .obsidian/ (an Obsidian vault) and no %s/ (a vault made by vaultd init or used before)", wd, vault.StateDirName)
	if notes, others := folderHolds(wd); notes+others == 0 {
		b.WriteString(" and is empty")
	} else {
		fmt.Fprintf(&b, "; it holds %s and %s", plural(notes, "note"), plural(others, "other entry"))
	}
	candidates := knownVaults(wd)
	again := commandAgain()
	if len(candidates) > 0 {
		b.WriteString("\nvaults found:")
		for _, c := range candidates {
			fmt.Fprintf(&b, "\n- vaultd --vault %s %s  (%s)", shellQuote(c.dir), again, c.why)
		}
	}
	fmt.Fprintf(&b, "\nname your vault: vaultd --vault /path/to/your/vault %s  (or once: export %s=/path/to/your/vault)", again, vaultEnv)
	b.WriteString("\nmake this folder a vault: vaultd init --force .")
	// The first vault found is the likeliest fix; without one there is
	// no command to run as printed, only the two ways above.
	try := ""
	if len(candidates) > 0 {
		try = "vaultd --vault " + shellQuote(candidates[0].dir) + " " + again
	}
	return &failure{code: exitUsage, msg: b.String(), try: try}
}

// folderHolds counts dir's notes and its other visible entries (its own
// level only: the folder may be huge).
func folderHolds(dir string) (notes, others int) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".md"):
			notes++
		default:
			others++
		}
	}
	return notes, others
}

func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	if strings.HasSuffix(one, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(one, "y"))
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// vaultCandidate is a vault vaultd can see from a folder that is not one.
type vaultCandidate struct{ dir, why string }

// knownVaults lists the vaults worth suggesting, nearest first, at most
// 5: the folders above wd that are vaults (isVault), then the vaults
// Obsidian has open or had open (its obsidian.json in the user's config
// folder) that exist.
func knownVaults(wd string) []vaultCandidate {
	var out []vaultCandidate
	seen := map[string]bool{}
	add := func(dir, why string) {
		if !seen[dir] && len(out) < 5 {
			seen[dir] = true
			out = append(out, vaultCandidate{dir, why})
		}
	}
	for d := filepath.Dir(wd); ; d = filepath.Dir(d) {
		if isVault(d) {
			add(d, "a folder above this one")
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, d := range obsidianVaults() {
		add(d, "in Obsidian's list of vaults")
	}
	return out
}

// obsidianVaults are the vault folders in Obsidian's own list
// (obsidian.json in its config folder: ~/.config/obsidian on Linux,
// ~/Library/Application Support/obsidian on macOS, %APPDATA%\obsidian on
// Windows), the open one first, then by last opened; folders that no
// longer exist are left out.
func obsidianVaults() []string {
	cfg, err := os.UserConfigDir()
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(cfg, "obsidian", "obsidian.json"))
	if err != nil {
		return nil
	}
	var doc struct {
		Vaults map[string]struct {
			Path string `json:"path"`
			TS   int64  `json:"ts"`
			Open bool   `json:"open"`
		} `json:"vaults"`
	}
	if json.Unmarshal(b, &doc) != nil {
		return nil
	}
	type entry struct {
		path string
		ts   int64
		open bool
	}
	var es []entry
	for _, v := range doc.Vaults {
		if fi, err := os.Stat(v.Path); err == nil && fi.IsDir() {
			es = append(es, entry{v.Path, v.TS, v.Open})
		}
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].open != es[j].open {
			return es[i].open
		}
		if es[i].ts != es[j].ts {
			return es[i].ts > es[j].ts
		}
		return es[i].path < es[j].path
	})
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.path
	}
	return out
}

// commandAgain is the command line this process was started with, minus
// "vaultd", each argument shell-quoted: the command to run again with
// --vault.
func commandAgain() string {
	var parts []string
	for _, a := range os.Args[1:] {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
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

// readNotesTip says once, on stderr, that a vault never indexed finds
// names by reading every note (each command does it again) and how to
// stop that; lookups that took under a second pass in silence.
func (a *app) readNotesTip(dir string) func(notes int, took time.Duration) {
	var told bool
	return func(notes int, took time.Duration) {
		if told || took < time.Second {
			return
		}
		told = true
		cmd := "vaultd index --vault " + shellQuote(dir)
		if a.stateDir != "" {
			cmd += " --state-dir " + shellQuote(a.stateDir)
		}
		fmt.Fprintf(a.err, "vaultd: this vault has no index yet, so names were looked up by reading all %s notes (%.1f s); run  %s  once (or keep vaultd serve running) and they answer at once\n",
			thousands(notes), took.Seconds(), cmd)
	}
}
