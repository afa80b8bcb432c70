package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/embed"
	"github.com/vaultd/vaultd/index"
)

// embedderFlagHelp is the --embedder flag's help, the same on every command.
const embedderFlagHelp = "search by meaning too: static:DIR (a model2vec folder), openai:URL#MODEL[@DIMS] (an OpenAI-compatible endpoint) or none; saved in the state dir for later runs"

// addEmbedderFlag adds --embedder to cmd.
func (a *app) addEmbedderFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&a.embedderFlag, "embedder", "", embedderFlagHelp)
}

// embedderOptions sets o's embedder: the one --embedder names (saved as
// embedder.json in the state dir once it loads, or removed by none), else
// the one saved there. A configuration that cannot be parsed is a usage error; one that
// cannot be loaded (a missing model folder) is an error when strict (vaultd
// index: the owner is at the terminal), else o.EmbedderError: the index
// searches by words and says so.
func (a *app) embedderOptions(cmd *cobra.Command, stateDir string, o *index.Options, strict bool) error {
	var c embed.Config
	fromFlag := false
	if f := cmd.Flags().Lookup("embedder"); f != nil && f.Changed {
		fromFlag = true
		var err error
		if c, err = embed.ParseFlag(a.embedderFlag); err != nil {
			return usagef(withGlobals(cmd, "vaultd "+cmd.Name()+" --embedder static:"+filepath.Join("models", "potion-multilingual-128M")), "--embedder %q: %s", a.embedderFlag, strings.TrimPrefix(err.Error(), embed.ErrConfig.Error()+": "))
		}
		if c.Kind == embed.KindStatic {
			abs, err := filepath.Abs(c.Path)
			if err == nil {
				c.Path = abs // the saved configuration holds from any directory
			}
		}
	} else {
		var err error
		if c, err = embed.ReadConfig(stateDir); err != nil {
			if strict {
				return fmt.Errorf("%w; run vaultd index --embedder again, or --embedder none", err)
			}
			o.EmbedderError = err
			return nil
		}
	}
	e, err := embed.Open(c)
	if err != nil {
		if strict {
			return fmt.Errorf("the embedder cannot be loaded: %w; give another with --embedder, or --embedder none", err)
		}
		o.EmbedderError = fmt.Errorf("the embedder cannot be loaded: %w", err)
		return nil
	}
	if fromFlag {
		// Saved once it loads: a mistyped folder leaves the saved
		// embedder as it was.
		if err := saveEmbedderConfig(stateDir, c); err != nil {
			return err
		}
	}
	if e != nil {
		o.Embedder = e
	}
	return nil
}

// saveEmbedderConfig writes c as the state dir's embedder.json; the zero
// Config removes it.
func saveEmbedderConfig(stateDir string, c embed.Config) error {
	if c.Kind == "" {
		err := os.Remove(filepath.Join(stateDir, embed.ConfigFile))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	return embed.WriteConfig(stateDir, c)
}

// waitForMeaning waits until every section has a vector (or limit has
// passed, if > 0), reporting its progress on w (see progress): from the
// start when verbose, else once it has taken a second. vault names the
// vault for the report's first line. It returns the last status seen.
func waitForMeaning(ctx context.Context, idx interface{ Status() index.Status }, w io.Writer, verbose bool, limit time.Duration, vault string) index.MeaningStatus {
	start := time.Now()
	delay := time.Second
	if verbose {
		delay = 0
	}
	var p *progress
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		st := idx.Status().Meaning
		if !st.On() || st.Problem != "" || st.Complete() || ctx.Err() != nil || limit > 0 && time.Since(start) > limit {
			if p != nil {
				p.finish()
			}
			return st
		}
		if st.Total > 0 {
			if p == nil {
				p = newProgress(w, fmt.Sprintf("embedding %s with %s for search by meaning: %s sections", vault, st.Model, thousands(st.Total)), "embedding", "sections", delay)
			}
			p.update(st.Done, st.Total)
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
}
