package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
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
		check: func(*cobra.Command, []string, *tools.SearchNotesArgs) error {
			a.meaningWait = cliMeaningWait
			return nil
		},
	})
}

// cliMeaningWait bounds how long a CLI search waits for search by meaning
// to catch up (a new embedder embeds the whole vault: vaultd index).
const cliMeaningWait = 10 * time.Second

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
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Build the search index, or bring it up to date",
		Long: `Build the vault's search index in the state dir, or catch up with the
changes since it last ran. Shows its progress on stderr — the vault first,
then a bar on a terminal or a line every 5 s otherwise, with the rate, the
time elapsed and the time left. A running vaultd serve keeps its index
current by itself.

With an embedder (--embedder, saved in the state dir for later runs) it
then embeds every section not embedded yet, for search by meaning, with
its own progress: static:DIR loads a model2vec folder (model.safetensors
and tokenizer.json) in process; openai:URL#MODEL asks an OpenAI-compatible
/v1/embeddings endpoint (Ollama, llama.cpp server, LM Studio), with
@DIMENSIONS after the model for models that shorten their vectors.
--embedder none turns search by meaning off again.`,
		Example: `  vaultd index --vault ~/notes
  vaultd index --embedder static:models/potion-multilingual-128M
  vaultd index --embedder 'openai:http://localhost:11434/v1#bge-m3'`,
		Args: args(0, false, "no arguments", "vaultd index"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			v, err := a.openVault()
			if err != nil {
				return err
			}
			defer v.Close()
			start := time.Now()
			idx, o, err := a.openIndex(cmd, v, true)
			if err != nil {
				return err
			}
			defer idx.Close()
			st := idx.Status()
			took := time.Since(start).Round(time.Millisecond)
			if o.Embedder != nil && st.Meaning.Model != o.Embedder.ID() {
				fmt.Fprintf(a.err, "the vaultd process %d keeps this vault's index with %s; restart it to use %s\n", idx.OwnerPID(), modelName(st.Meaning.Model), o.Embedder.ID())
			}
			ms := waitForMeaning(cmd.Context(), idx, a.err, true, 0, a.vaultNamed)
			embedTook := time.Since(start).Round(time.Millisecond) - took
			if a.json {
				out := map[string]any{"ready": true, "notes": st.Total, "indexed": st.Indexed, "ms": took.Milliseconds()}
				if ms.On() {
					out["meaning"] = map[string]any{"model": ms.Model, "sections": ms.Total, "embedded": ms.Done, "problem": ms.Problem, "ms": embedTook.Milliseconds()}
				}
				if err := writeJSON(a.out, out); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(a.out, "index ready: %d notes, %d (re)indexed in %s\n", st.Total, st.Indexed, took)
				if ms.On() && ms.Problem == "" {
					fmt.Fprintf(a.out, "meaning search ready: %d sections embedded with %s in %s\n", ms.Done, ms.Model, embedTook)
				}
			}
			if ms.Problem != "" {
				return fmt.Errorf("meaning search is not available: %s; search by words works (vaultd search)", ms.Problem)
			}
			return cmd.Context().Err()
		}),
	}
	a.addEmbedderFlag(cmd)
	return cmd
}

// modelName names an embedder ID for people: "no embedder" for none.
func modelName(id string) string {
	if id == "" {
		return "no embedder"
	}
	return id
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
	idx, _, err := a.openIndex(cmd, v, false)
	if err != nil {
		return err
	}
	defer idx.Close()
	// A search waits a while for search by meaning to catch up; what is
	// missing after that the answer says (vaultd index shows it through).
	if a.meaningWait > 0 {
		waitForMeaning(cmd.Context(), idx, a.err, false, a.meaningWait, a.vaultNamed)
	}
	c, err := tools.NewCore(v, tools.CoreOptions{Index: idx})
	if err != nil {
		return err
	}
	return a.print(cmd, tool(c, a.caller()))
}

// openIndex opens the search index of v and waits until it has caught up
// with the files. The index is shared: when a running vaultd on this vault
// keeps it, this waits for that one instead of opening it a second time.
// indexCmd is set for vaultd index, which refuses a bad --embedder
// (embedderOptions' strict) and always shows its progress
// (waitWithProgress' verbose). It returns the options the index was
// opened with; the caller closes the index.
func (a *app) openIndex(cmd *cobra.Command, v *vault.Vault, indexCmd bool) (*index.Shared, index.Options, error) {
	o := index.Options{Logger: a.quietLogger()}
	if err := a.embedderOptions(cmd, v.StateDir(), &o, indexCmd); err != nil {
		return nil, o, err
	}
	idx, err := index.OpenShared(v, o)
	if err != nil {
		return nil, o, err
	}
	if err := waitWithProgress(cmd.Context(), idx, a.err, indexCmd, a.vaultNamed); err != nil {
		idx.Close()
		return nil, o, err
	}
	return idx, o, nil
}

// waitWithProgress waits until the index has caught up with the files,
// reporting its progress on w (see progress): from the start when
// verbose (vaultd index), else once it has taken a second. vault names
// the vault for the report's first line.
func waitWithProgress(ctx context.Context, idx interface {
	WaitReady(context.Context) error
	Status() index.Status
}, w io.Writer, verbose bool, vault string) error {
	done := make(chan error, 1)
	go func() { done <- idx.WaitReady(ctx) }()
	delay := time.Second
	if verbose {
		delay = 0
	}
	var p *progress
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if p != nil {
				p.finish()
			}
			return err
		case <-tick.C:
			st := idx.Status()
			if !st.Building || st.Total == 0 {
				continue
			}
			if p == nil {
				p = newProgress(w, fmt.Sprintf("indexing %s: %s notes", vault, thousands(st.Total)), "indexing", "notes", delay)
			}
			phase := ""
			if st.Merging {
				// Every note is in; the count stands still for the
				// merge (~11 s for the 166 MB of the laws).
				phase = "merging the index into one segment"
			}
			p.setPhase(phase)
			p.update(st.Done, st.Total)
		}
	}
}

// isTTY reports whether f, a reader or writer, is a terminal (false when
// that cannot be told).
func isTTY(f any) bool {
	yes, err := charDevice(f)
	return err == nil && yes
}

// quietLogger logs only warnings and errors, to stderr: the CLI shows
// progress itself.
func (a *app) quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(a.err, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
