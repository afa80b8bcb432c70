package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/mcpserver"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// staleTempsDelay is how long after the index is ready serve looks for
// temp files a crash left.
var staleTempsDelay = 3 * time.Second // a var for tests

// serveFlags are the flags of vaultd serve.
type serveFlags struct {
	readOnly         bool
	allow            string
	logFile          string
	logLevel         string // --log-level: what goes to stderr
	writesPerMinute  int
	deletesPerMinute int
	http             string        // --http ADDR: serve over streamable HTTP instead of stdio
	noAuth           bool          // --no-auth: HTTP without access keys (loopback only)
	gitSync          time.Duration // --git-sync INTERVAL: sync with the git remote every INTERVAL
	app              bool          // vaultd app: the owner's page on loopback, keys optional, a sign-in link printed
	publicURL        string        // --public-url: the server's address as clients reach it (a TLS proxy's https address)
}

func (a *app) serveCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the vault to AI agents over MCP (stdio, or HTTP with access keys)",
		Long: `Serve the vault over the Model Context Protocol on stdin/stdout, for a
client that starts vaultd itself (Claude Code, Cursor, …):

  claude mcp add notes -- vaultd serve --vault ~/notes

The agent may read and write by default; --read-only takes writing away,
--allow read,write,delete names the rights explicitly (deleting, which
moves notes to the trash, is off unless named). Writes are rate-limited.
With --git-commit every change becomes a git commit of just the files it
touched, the change summary as message and the agent as author; while the
repository is mid-merge or mid-rebase nothing is committed and the history
says so. With --git-sync INTERVAL (e.g. 5m) vaultd also syncs with the git
remote every INTERVAL — fetch, merge (by sections, after vaultd git
install), push its own commits; it implies --git-commit. See vaultd sync
--help; vault_overview and the log report every failed round.
stdout carries protocol messages only. Over stdio, stderr gets only
warnings and errors (clients show every stderr line as an error): the
rest goes to the client as MCP log messages, as much as it asks for with
logging/setLevel. --log-level sets what stderr gets; --log-file gets
everything from info up.

With --http ADDR vaultd serves MCP over streamable HTTP at
http://ADDR/mcp to many clients at once, each with an access key
(vaultd keys create NAME --allow read,write) that sets its rights, rate
limits and name in the history. Without keys the server does not start;
--no-auth (loopback addresses only) serves without keys. On a loopback
address requests from web pages and foreign host names are refused.
SIGINT or SIGTERM stop it after the requests in flight are answered.

The same address serves the owner's page at http://ADDR/: what agents
changed (with Undo), the trash (with Restore), a note's history, and the
access keys. Sign in with a one-time link from vaultd owner link.

MCP clients that speak OAuth (claude.ai and ChatGPT connectors, Claude
Code without a key) sign in instead of sending a key: they register, the
owner approves each on the page with the rights it gets, and the page's
Connections view revokes them. Behind a TLS proxy, --public-url
https://notes.example.org names the public address, so that sign-in
addresses and Host checks use it; with --public-url the server starts
even before the vault has an access key.

Several vaultd processes on one vault share one search index: the first
owns it, the others ask it, and when it exits the next one takes over.

With --embedder (or an embedder saved by vaultd index --embedder) search
also finds notes by meaning: the index embeds every section in the
background and search_notes fuses both rankings, each hit saying whether
it matched by words, by meaning or both; until all sections are embedded
the answers say how much is covered. An embedder that cannot be loaded or
reached leaves search by words working, and the answers say why.`,
		Example: `  vaultd serve --vault ~/notes
  vaultd serve --vault ~/notes --allow read,write,delete
  vaultd serve --vault ~/notes --read-only
  vaultd serve --vault ~/notes --http 127.0.0.1:8765`,
		Args: args(0, false, "no arguments", "vaultd serve --vault DIR"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return a.serve(cmd, f)
		}),
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.readOnly, "read-only", false, "grant the agent read access only")
	fl.StringVar(&f.allow, "allow", "", "rights to grant: read, write, delete, comma-separated (default read,write)")
	fl.StringVar(&f.logFile, "log-file", "", "also append logs (info and up) to this file")
	fl.StringVar(&f.logLevel, "log-level", "", "what stderr gets: debug, info, warn or error (default: warn over stdio, info over HTTP)")
	fl.IntVar(&f.writesPerMinute, "writes-per-minute", 60, "rate limit on writes")
	fl.IntVar(&f.deletesPerMinute, "deletes-per-minute", 10, "rate limit on deletes")
	fl.StringVar(&f.http, "http", "", "serve over streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio")
	fl.BoolVar(&f.noAuth, "no-auth", false, "with --http on a loopback address: serve without access keys (local experiments, tests)")
	fl.StringVar(&f.publicURL, "public-url", "", "with --http: the address clients reach the server at, e.g. https://notes.example.org behind a TLS proxy (sign-in URLs, Host checks; default http://ADDR)")
	fl.BoolVar(&a.gitCommit, "git-commit", false, "make every change a git commit of the files it touched (summary as message, actor as author); never while a merge or rebase is in progress")
	a.addEmbedderFlag(cmd)
	fl.DurationVar(&f.gitSync, "git-sync", 0, "every INTERVAL (e.g. 5m), fetch and merge the git remote and push vaultd's commits (implies --git-commit; see vaultd sync --help)")
	return cmd
}

// parsePerms reads --read-only and --allow.
func parsePerms(readOnly bool, allow string) (tools.Perms, error) {
	if readOnly && allow != "" {
		return tools.Perms{}, usagef("vaultd serve --allow read", "--read-only and --allow cannot be combined")
	}
	if readOnly {
		return tools.Perms{Read: true}, nil
	}
	if allow == "" {
		return tools.Perms{Read: true, Write: true}, nil
	}
	var p tools.Perms
	for _, r := range strings.Split(allow, ",") {
		switch strings.TrimSpace(strings.ToLower(r)) {
		case "read":
			p.Read = true
		case "write":
			p.Write = true
		case "delete":
			p.Delete = true
		case "":
		default:
			return p, usagef("vaultd serve --allow read,write", "unknown right %q in --allow; the rights are read, write and delete", r)
		}
	}
	if p.Delete && !p.Write {
		return p, usagef("vaultd serve --allow read,write,delete", "delete needs write: --allow read,write,delete")
	}
	if (p.Write || p.Delete) && !p.Read {
		p.Read = true // writing means reading what you change
	}
	return p, nil
}

func (a *app) serve(cmd *cobra.Command, f serveFlags) error {
	perms, err := parsePerms(f.readOnly, f.allow)
	if err != nil {
		return err
	}
	var at httpAddr
	if f.http != "" {
		if at, err = checkHTTPFlags(cmd, f); err != nil {
			return err
		}
	} else if f.noAuth {
		return usagef(withGlobals(cmd, "vaultd serve --http 127.0.0.1:8765 --no-auth"), "--no-auth applies to --http only")
	}
	level := slog.LevelWarn // stdio: quiet stderr
	if f.http != "" {
		level = slog.LevelInfo
	}
	if f.logLevel != "" {
		if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
			return usagef(withGlobals(cmd, "vaultd serve --log-level info"), "--log-level %q is not a level: debug, info, warn or error", f.logLevel)
		}
	}
	var logw io.Writer = a.err
	handlers := []slog.Handler{slog.NewTextHandler(a.err, &slog.HandlerOptions{Level: level})}
	if f.logFile != "" {
		lf, err := os.OpenFile(f.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("open the log file: %w", err)
		}
		defer lf.Close()
		logw = io.MultiWriter(a.err, lf)
		handlers = append(handlers, slog.NewTextHandler(lf, &slog.HandlerOptions{Level: min(level, slog.LevelInfo)}))
	}
	clientLog := mcpserver.NewClientLog(f.http == "")
	logger := slog.New(mcpserver.Fanout(append(handlers, clientLog.Handler())...))

	if a.actor == "cli" {
		a.actor = "mcp"
	}
	if f.gitSync < 0 || f.gitSync > 0 && f.gitSync < 100*time.Millisecond {
		return usagef(withGlobals(cmd, "vaultd serve --git-sync 5m"), "--git-sync %v is too short: give an interval of 100ms or more, e.g. 5m", f.gitSync)
	}
	if f.gitSync > 0 {
		a.gitCommit = true // sync pushes vaultd's commits
	}
	a.serving = true
	defer index.ServingGC()()
	specs, err := a.vaultSpecs()
	if err != nil {
		return err
	}
	if len(specs) > 1 && a.stateDir != "" {
		return usagef("vaultd serve "+vaultFlagsOf(specs), "--state-dir names one vault's state dir; with several vaults each keeps its own (<vault>/.vaultd)")
	}
	multi := len(specs) > 1 || specs[0].named
	seen := map[string]string{}
	for _, sp := range specs {
		if err := tools.ValidVaultName(sp.name); err != nil {
			return usagef("vaultd serve --vault work=~/Arbeit --vault privat=~/Notizen", "%s", err.Error())
		}
		if other, dup := seen[strings.ToLower(sp.name)]; dup {
			return usagef("vaultd serve "+vaultFlagsOf(specs), "two vaults are named %s (%s and %s); name them apart with NAME=DIR", sp.name, other, sp.dir)
		}
		seen[strings.ToLower(sp.name)] = sp.dir
	}
	// The index opens while the server already answers (initialize never
	// waits for a big vault's index); calls that need it wait for it.
	ctx, fail := context.WithCancelCause(cmd.Context())
	defer fail(nil)
	if multi {
		// One vault's index that cannot be opened leaves the others
		// serving: that vault serves without search, and says why.
		fail = nil
	}
	sv := &servedVaults{stops: map[string]func(){}, dirs: map[string]string{}}
	defer sv.stopAll()
	var names []string
	var cores []*tools.Core
	for _, sp := range specs {
		c, stop, err := a.startVault(ctx, cmd, f, sp, logger, fail)
		if err != nil {
			return err
		}
		sv.add(sp, stop)
		names, cores = append(names, sp.name), append(cores, c)
	}
	c := cores[0]
	firstState := c.Vault().StateDir()
	a.loneVault = names[0]
	var vs *tools.Vaults
	if multi {
		if vs, err = tools.NewVaults(names, cores); err != nil {
			return usagef("vaultd serve --vault work=~/Arbeit --vault privat=~/Notizen", "%s", err.Error())
		}
		logger.Info("vaultd serves several vaults", "vaults", strings.Join(names, ", "))
		if len(a.vaults) == 0 {
			// Served from the vaults file: SIGHUP reads it again, and
			// vaults added or removed there are served or dropped without
			// a restart of the others.
			go a.reloadOnHangup(ctx, cmd, f, vs, sv, logger)
		}
	}
	if f.http != "" {
		// Access keys live with the first vault (with several: their
		// rights may name each).
		if err := openKeys(cmd, f, &at, firstState); err != nil {
			return err
		}
	}
	if f.http != "" {
		err := a.serveHTTP(ctx, f, at, c, vs, perms, logger, clientLog)
		if cause := context.Cause(ctx); cause != nil && cmd.Context().Err() == nil {
			return cause // the index could not be opened
		}
		return err
	}
	conn := tools.NewConnection(a.actor, perms, tools.Limits{
		WritesPerMinute: f.writesPerMinute, DeletesPerMinute: f.deletesPerMinute,
	})
	s := mcpserver.NewServer(c, mcpserver.ServerOptions{Logger: logger, Default: conn, ClientLog: clientLog, Vaults: vs})
	logger.Info("serving over stdio", "rights", rightsText(perms))
	err = mcpserver.ServeStdio(ctx, s, a.in, a.out, log.New(logw, "", log.LstdFlags))
	if cause := context.Cause(ctx); cause != nil && cmd.Context().Err() == nil {
		return cause // the index could not be opened
	}
	if err != nil && cmd.Context().Err() == nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// startVault opens one vault for serve and starts what keeps it: the
// recovery after a crash, the shared search index, git sync. stop ends
// them and closes the vault.
func (a *app) startVault(ctx context.Context, cmd *cobra.Command, f serveFlags, sp vaultSpec, logger *slog.Logger, fail context.CancelCauseFunc) (c *tools.Core, stop func(), err error) {
	v, err := a.openVaultAt(sp.dir, sp.from)
	if err != nil {
		return nil, nil, err
	}
	// ctx ends before anything is stopped: what waits on it (the search
	// for temp files a moment after the index is ready, the index's
	// progress in the log) gives up rather than holds the stop up. A
	// stdio client that closed the pipe waited 3.3 s for vaultd to exit
	// on 4× the laws — the delay, then a walk of the whole vault for temp
	// files — with the index still locked for the next start.
	ctx, cancel := context.WithCancel(ctx)
	var stops []func()
	stop = func() {
		cancel()
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	stops = append(stops, func() { v.Close() })
	named := a.vaultNamed
	// The first log line names the vault: on stderr over HTTP, in the
	// --log-file over stdio (whose stderr stays quiet: clients show every
	// line of it as an error).
	logger.Info("vaultd serves a vault", "vault", named, "name", sp.name, "state_dir", v.StateDir())
	// Recovery after a crash (writes to record, moves to finish,
	// leftover temp files) runs while the server already answers, so that
	// a client's initialize never waits for it (it takes a note's lock for
	// each note it records, as any writer does). The temp files are looked
	// for once the index is up to date: both walk the vault.
	recovered := make(chan struct{})
	indexed := make(chan bool, 1) // true once the index is up to date (or there is none); false: serve ends first
	go func() {
		defer close(recovered)
		rep, err := v.RecoverChanges()
		if err != nil {
			logger.Warn("recovery at start failed", "error", err)
			return
		}
		if len(rep.External)+len(rep.Completed) > 0 {
			logger.Info("recovered", "external_changes", len(rep.External), "completed_writes", len(rep.Completed))
		}
		for _, in := range rep.Interrupted { // a move cut short by a crash
			logger.Warn(in.Text, "change", in.ID)
		}
		if !<-indexed {
			return
		}
		temps, err := v.RemoveStaleTemps()
		if err != nil {
			logger.Warn("removing temp files left by a crash failed", "error", err)
		}
		if len(temps) > 0 {
			logger.Info("recovered", "removed_temp_files", len(temps))
		}
	}()
	stops = append(stops, func() { <-recovered }) // before the vault closes
	// The index is shared with the other vaultd processes on this vault
	// (another serve, a CLI search): owned here or asked of the owner.
	ixo := index.Options{Watch: true, Logger: logger}
	if err := a.embedderOptions(cmd, v.StateDir(), &ixo, false); err != nil {
		return nil, nil, err
	}
	if ixo.Embedder != nil {
		logger.Info("meaning search on", "model", ixo.Embedder.ID())
	}
	var idx *index.Shared // set by OpenIndex; read after c.WaitIndex
	// Until the index is open, names come from the table it saved.
	names := index.OpenNames(v, ixo)
	stops = append(stops, func() { names.Close() })
	ixo.Names = names // the index takes its table over
	o := tools.CoreOptions{Logger: logger, Names: names, OpenIndex: func() (tools.Index, error) {
		// The saved table first, while the client initializes: the first
		// calls need names, and opening the index beside it would slow
		// both down on a small machine (the laws' first title read: 60–150
		// ms with both at once, under 50 ms this way).
		names.Prepare()
		ix, err := index.OpenShared(v, ixo)
		if err != nil {
			if !errors.Is(err, index.ErrBusy) && fail != nil {
				fail(err) // as before the server answered: serve ends with it
				return nil, err
			}
			if !errors.Is(err, index.ErrBusy) {
				logger.Error("search disabled: the index could not be opened", "vault", sp.name, "error", err.Error())
				return nil, err
			}
			// Another vaultd process owns the index but does not answer:
			// serve everything but search and backlinks, which say why.
			logger.Warn("search disabled", "reason", err.Error())
			return nil, err
		}
		if ix.Owner() {
			logger.Info("search index: this process keeps it and shares it with other vaultd processes on the vault")
		} else {
			logger.Info("search index: shared with the vaultd process that keeps it", "pid", ix.OwnerPID())
			if m := ix.Status().Meaning.Model; ixo.Embedder != nil && m != ixo.Embedder.ID() {
				logger.Warn("meaning search: the vaultd process that keeps the index uses its own embedder until it exits", "pid", ix.OwnerPID(), "its_model", modelName(m), "this_model", ixo.Embedder.ID())
			}
		}
		idx = ix
		return ix, nil
	}}
	c, err = tools.NewCore(v, o)
	if err != nil {
		return nil, nil, err
	}
	stops = append(stops, func() {
		if c.WaitIndex() != nil {
			idx.Close()
		}
	})
	go func() {
		ix := c.WaitIndex()
		if ix != nil && idx != nil && idx.Owner() {
			// The build and the embedding at start, in the log: the laws
			// take minutes the first time.
			go logIndexProgress(ctx, idx, logger, named)
		}
		ready := ix == nil || ix.WaitReady(ctx) == nil
		if ready {
			// The temp files are looked for a moment after: that walk
			// would compete for the CPU with the calls a client sends as
			// the index gets ready (vault_overview on the laws: 150–270 ms
			// beside it, under 100 ms after).
			select {
			case <-time.After(staleTempsDelay):
			case <-ctx.Done():
				ready = false
			}
		}
		indexed <- ready
	}()
	if f.gitSync > 0 {
		syncCtx, stopSync := context.WithCancel(cmd.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			last := ""
			v.SyncEvery(syncCtx, f.gitSync, func(r *vault.SyncReport, next time.Duration) {
				// A round that waits for the same thing as the last one is
				// not logged again.
				if t := r.Text(); t != last || r.Error != "" {
					last = t
					logSync(logger, r, next)
				}
			})
		}()
		stops = append(stops, func() { stopSync(); <-done })
		logger.Info("git sync on", "vault", sp.name, "interval", f.gitSync.String())
	}
	return c, stop, nil
}

func rightsText(p tools.Perms) string {
	var r []string
	if p.Read {
		r = append(r, "read")
	}
	if p.Write {
		r = append(r, "write")
	}
	if p.Delete {
		r = append(r, "delete")
	}
	return strings.Join(r, ",")
}

// logSync logs one sync round: failures as warnings with the retry, what
// changed (or waits) as information, a round with nothing to do not at all.
func logSync(logger *slog.Logger, r *vault.SyncReport, next time.Duration) {
	switch {
	case r.Error != "":
		logger.Warn("git sync failed", "error", r.Error, "failed_rounds", r.Failures, "retry_in", next.Round(time.Second).String())
	case r.Merged != "" || r.Pushed != "" || r.Committed > 0 || r.Waiting != "" || len(r.Restored) > 0 || len(r.Attributes) > 0:
		logger.Info("git sync", "result", r.Text())
	}
	// What a teammate's .gitattributes do to notes, one line each (logged
	// again only when the round's text changes, see serve).
	for _, a := range r.Attributes {
		level := slog.LevelInfo
		if !a.Kept && (strings.HasPrefix(a.Attr, "merge") || a.Attr == "-merge" || strings.HasPrefix(a.Attr, "filter")) {
			level = slog.LevelWarn
		}
		logger.Log(context.Background(), level, "git attribute on notes", "attribute", a.Attr, "notes", a.Notes, "examples", strings.Join(a.Examples, ", "), "effect", a.Effect, "here", a.Here)
	}
}
