package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/tools"
)

// Several vaults: vaultd serve serves every --vault it is given (NAME=DIR,
// a configured NAME, or a DIR named after its folder), and the other
// commands take a configured NAME as well as a DIR. The configured set is
// a small file of NAME=DIR lines (vaultsFile): vaultd init --name appends
// to it, and vaultd serve without --vault serves it all.

// configEnv names the file of configured vaults instead of the default.
const configEnv = "VAULTD_VAULTS_FILE"

// vaultSpec is one vault to open: its name (served as), its folder and
// where both came from.
type vaultSpec struct {
	name, dir, from string
	named           bool // given a name (NAME=DIR, the vaults file): served by name
}

// vaultList is the --vault flag: repeatable.
type vaultList struct{ vals *[]string }

func (l vaultList) String() string {
	if l.vals == nil {
		return ""
	}
	return strings.Join(*l.vals, ",")
}

// Set adds a vault; the same one given again is one vault (shell
// completion parses the command line twice).
func (l vaultList) Set(s string) error {
	if !slices.Contains(*l.vals, s) {
		*l.vals = append(*l.vals, s)
	}
	return nil
}
func (l vaultList) Type() string { return "string" }

// vaultsFile is the file of configured vaults: $VAULTD_VAULTS_FILE, else
// vaultd/vaults in the user's config folder (~/.config on Linux).
func vaultsFile() string {
	if f := os.Getenv(configEnv); f != "" {
		return f
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "vaultd", "vaults")
}

// configuredVaults reads the configured vaults, in the file's order.
// A missing file is an empty set.
func configuredVaults() ([]vaultSpec, error) {
	file := vaultsFile()
	if file == "" {
		return nil, nil
	}
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []vaultSpec
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, dir, ok := strings.Cut(line, "=")
		name, dir = strings.TrimSpace(name), strings.TrimSpace(dir)
		if !ok || tools.ValidVaultName(name) != nil || dir == "" {
			return nil, fmt.Errorf("%s, line %d: %q is not NAME=DIR (a name of letters, digits, '-', '_' or '.', then the vault's folder)", file, n, line)
		}
		out = append(out, vaultSpec{name: name, dir: expandHome(dir), from: "vault " + name + " in " + file, named: true})
	}
	return out, sc.Err()
}

// configuredVault returns the folder the vaults file names name for, if
// it names it (whatever the case).
func configuredVault(name string) (dir string, ok bool, err error) {
	have, err := configuredVaults()
	if err != nil {
		return "", false, err
	}
	for _, h := range have {
		if strings.EqualFold(h.name, name) {
			return h.dir, true, nil
		}
	}
	return "", false, nil
}

// addConfiguredVault appends NAME=DIR to the configured vaults; a name
// already there is refused.
func addConfiguredVault(name, dir string) (string, error) {
	if err := tools.ValidVaultName(name); err != nil {
		return "", err
	}
	have, err := configuredVaults()
	if err != nil {
		return "", err
	}
	file := vaultsFile()
	for _, h := range have {
		if strings.EqualFold(h.name, name) {
			return "", fmt.Errorf("%s already names vault %s (%s); choose another --name", file, h.name, h.dir)
		}
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", err
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	if _, err := fmt.Fprintf(f, "%s=%s\n", name, dir); err != nil {
		f.Close()
		return "", err
	}
	return file, f.Close()
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}

var notNameChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// nameOfDir names a vault given as a folder: the folder's name, made a
// valid vault name ("Meine Notizen" → "Meine-Notizen").
func nameOfDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	n := strings.Trim(notNameChars.ReplaceAllString(filepath.Base(abs), "-"), "-.")
	if n == "" || tools.ValidVaultName(n) != nil {
		n = "vault"
	}
	return n
}

// specOf reads one --vault value: NAME=DIR, a folder, or a configured name.
func specOf(val string) (vaultSpec, error) {
	if name, dir, ok := strings.Cut(val, "="); ok && tools.ValidVaultName(name) == nil {
		return vaultSpec{name: name, dir: expandHome(dir), from: "--vault " + name + "=…", named: true}, nil
	}
	if _, err := os.Stat(val); err != nil && !strings.ContainsAny(val, `/\`) {
		conf, cerr := configuredVaults()
		if cerr != nil {
			return vaultSpec{}, cerr
		}
		for _, c := range conf {
			if strings.EqualFold(c.name, val) {
				return c, nil
			}
		}
	}
	return vaultSpec{name: nameOfDir(val), dir: val, from: "--vault"}, nil
}

// vaultSpecs are the vaults serve serves: every --vault; without one,
// $VAULTD_VAULT or the current folder, else every configured vault.
func (a *app) vaultSpecs() ([]vaultSpec, error) {
	var out []vaultSpec
	for _, v := range a.vaults {
		sp, err := specOf(v)
		if err != nil {
			return nil, err
		}
		out = append(out, sp)
	}
	if len(out) > 0 {
		return out, nil
	}
	dir, from := a.vaultDirFor()
	if from == "the current folder" && !isVault(dir) {
		if conf, err := configuredVaults(); err == nil && len(conf) > 0 {
			return conf, nil
		}
	}
	return []vaultSpec{{name: nameOfDir(dir), dir: dir, from: from}}, nil
}

// vaultFlagsOf spells specs as --vault flags, for a suggested command.
func vaultFlagsOf(specs []vaultSpec) string {
	var parts []string
	for _, s := range specs {
		parts = append(parts, "--vault "+shellQuote(s.name+"="+s.dir))
	}
	return strings.Join(parts, " ")
}

// servedVaults are the vaults serve has started, by name: what stops
// each, and its folder.
type servedVaults struct {
	mu    sync.Mutex
	stops map[string]func()
	dirs  map[string]string
	order []string
}

func (sv *servedVaults) add(sp vaultSpec, stop func()) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.stops[sp.name], sv.dirs[sp.name] = stop, sp.dir
	sv.order = append(sv.order, sp.name)
}

// remove forgets a vault and returns what stops it.
func (sv *servedVaults) remove(name string) func() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	stop := sv.stops[name]
	delete(sv.stops, name)
	delete(sv.dirs, name)
	sv.order = slices.DeleteFunc(sv.order, func(n string) bool { return n == name })
	return stop
}

// stopAll stops every vault, the last started first.
func (sv *servedVaults) stopAll() {
	sv.mu.Lock()
	order := slices.Clone(sv.order)
	sv.mu.Unlock()
	for i := len(order) - 1; i >= 0; i-- {
		if stop := sv.remove(order[i]); stop != nil {
			stop()
		}
	}
}

// removeGrace is how long a vault dropped by a reload stays open for the
// calls that were already running in it.
const removeGrace = 10 * time.Second

// reloadOnHangup reads the vaults file again on every SIGHUP: a vault
// added there is opened and served, one removed (or moved to another
// folder) is no longer served and is closed after the calls in flight.
// The others serve on untouched.
func (a *app) reloadOnHangup(ctx context.Context, cmd *cobra.Command, f serveFlags, vs *tools.Vaults, sv *servedVaults, logger *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		conf, err := configuredVaults()
		if err != nil {
			logger.Error("reload: the vaults file cannot be read; the vaults served stay as they are", "error", err.Error())
			continue
		}
		a.reload(ctx, cmd, f, vs, sv, conf, logger)
	}
}

// reload serves exactly the vaults of conf: it drops the ones no longer
// listed (or listed with another folder), then starts the new ones.
func (a *app) reload(ctx context.Context, cmd *cobra.Command, f serveFlags, vs *tools.Vaults, sv *servedVaults, conf []vaultSpec, logger *slog.Logger) {
	want := map[string]string{}
	for _, sp := range conf {
		want[sp.name] = sp.dir
	}
	sv.mu.Lock()
	have := maps.Clone(sv.dirs)
	sv.mu.Unlock()
	for name, dir := range have {
		if w, ok := want[name]; ok && w == dir {
			continue
		}
		if _, err := vs.Remove(name); err != nil {
			logger.Warn("reload: vault stays served", "vault", name, "reason", err.Error())
			continue
		}
		stop := sv.remove(name)
		logger.Info("reload: vault no longer served", "vault", name)
		time.AfterFunc(removeGrace, stop)
	}
	for _, sp := range conf {
		if have[sp.name] == sp.dir {
			continue
		}
		c, stop, err := a.startVault(ctx, cmd, f, sp, logger, nil)
		if err != nil {
			logger.Error("reload: vault not served", "vault", sp.name, "error", err.Error())
			continue
		}
		if err := vs.Add(sp.name, c); err != nil {
			logger.Error("reload: vault not served", "vault", sp.name, "error", err.Error())
			stop()
			continue
		}
		sv.add(sp, stop)
		logger.Info("reload: vault served", "vault", sp.name)
	}
}
