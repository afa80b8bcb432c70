package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/tools"
)

func (a *app) searchCmd() *cobra.Command {
	return toolCmd(a, command[tools.SearchNotesArgs]{
		tool:  "search_notes",
		use:   "QUERY",
		short: "Search the notes (German and English word forms, compounds)",
		long: `Search the vault's full text (search_notes). All words must occur; German
and English word forms match (Häuser finds Haus) and so do parts of
compounds (Plan finds Projektplan, ranked lower). "a phrase" in quotes,
-word to exclude, proj* for a prefix. Each hit is a note with its best
matching sections; --path lists the matching sections of one note.

The first search builds the index in the state dir; later ones catch up
with what changed since.`,
		example: `  vaultd search Krankenhäuser
  vaultd search "Zeitleiste Launch" --space 1_Projekte`,
		what: "the search words (quote several)", onMissing: `vaultd search "words"`,
		index: true,
	})
}

func (a *app) backlinksCmd() *cobra.Command {
	return toolCmd(a, command[tools.GetBacklinksArgs]{
		tool:  "get_backlinks",
		use:   "NOTE",
		short: "List the notes that link to a note",
		long: `List every note that links to NOTE (get_backlinks) — by name, path, alias or
to one of its headings — with the line of each link.`,
		example: `  vaultd backlinks "Klinikverbund Nord"`,
		what:    "the note", onMissing: "vaultd list",
		index: true,
	})
}

func (a *app) indexCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "index",
		Short: "Build the search index, or bring it up to date",
		Long: `Build the vault's search index in the state dir, or catch up with the
changes since it last ran. Shows a progress bar on a terminal and plain
progress lines otherwise. A running vaultd serve keeps its index current
by itself.`,
		Example: `  vaultd index --vault ~/notes`,
		Args:    args(0, false, "no arguments", "vaultd index"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			v, err := a.openVault()
			if err != nil {
				return err
			}
			defer v.Close()
			start := time.Now()
			// A running vaultd on this vault keeps the index; then this
			// waits for it instead of opening the index a second time.
			idx, err := index.OpenShared(v, index.Options{Logger: a.quietLogger()})
			if err != nil {
				return err
			}
			defer idx.Close()
			if err := waitWithProgress(cmd.Context(), idx, a.err, true); err != nil {
				return err
			}
			st := idx.Status()
			took := time.Since(start).Round(time.Millisecond)
			if a.json {
				return writeJSON(a.out, map[string]any{"ready": true, "notes": st.Total, "indexed": st.Indexed, "ms": took.Milliseconds()})
			}
			fmt.Fprintf(a.out, "index ready: %d notes, %d (re)indexed in %s\n", st.Total, st.Indexed, took)
			return nil
		}),
	}
}

// callWithIndex is call with the search index opened (and caught up) first.
// The index is shared: when another vaultd process on the vault (a running
// serve) keeps it, the search runs there.
func (a *app) callWithIndex(cmd *cobra.Command, tool func(*tools.Core, tools.Caller) *tools.Result) error {
	v, err := a.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	idx, err := index.OpenShared(v, index.Options{Logger: a.quietLogger()})
	if err != nil {
		return err
	}
	defer idx.Close()
	if err := waitWithProgress(cmd.Context(), idx, a.err, false); err != nil {
		return err
	}
	c, err := tools.NewCore(v, tools.CoreOptions{Index: idx})
	if err != nil {
		return err
	}
	return a.print(cmd, tool(c, a.caller()))
}

// waitWithProgress waits until the index has caught up with the files. It
// shows progress on w after a second (always when verbose): a bar on a
// terminal, a line every few seconds otherwise.
func waitWithProgress(ctx context.Context, idx interface {
	WaitReady(context.Context) error
	Status() index.Status
}, w io.Writer, verbose bool) error {
	done := make(chan error, 1)
	go func() { done <- idx.WaitReady(ctx) }()
	tty := isTerminalWriter(w)
	start := time.Now()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	lastLine := time.Time{}
	shown := false
	for {
		select {
		case err := <-done:
			if shown && tty {
				fmt.Fprint(w, "\r\033[K")
			}
			return err
		case now := <-tick.C:
			if !verbose && now.Sub(start) < time.Second {
				continue
			}
			st := idx.Status()
			if !st.Building || st.Total == 0 {
				continue
			}
			shown = true
			if tty {
				fmt.Fprintf(w, "\r\033[K%s", progressBar(st.Done, st.Total, 30))
			} else if now.Sub(lastLine) >= 2*time.Second {
				fmt.Fprintf(w, "indexing: %d of %d notes\n", st.Done, st.Total)
				lastLine = now
			}
		}
	}
}

func progressBar(done, total, width int) string {
	n := width * done / max(total, 1)
	return fmt.Sprintf("indexing [%s%s] %d/%d notes", strings.Repeat("█", n), strings.Repeat("·", width-n), done, total)
}

// isTerminalWriter reports whether w is a terminal.
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// quietLogger logs only warnings and errors, to stderr: the CLI shows
// progress itself.
func (a *app) quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(a.err, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
