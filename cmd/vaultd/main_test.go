package main

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vaultd/vaultd/embed/embedtest"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script/*.txtar from what vaultd prints")

// TestMain lets the test binary run as "vaultd" inside the scripts: the
// scripts exec the real command line, exit codes included.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"vaultd": main})
}

// fixedTime is the modification time every file of a script's vault gets
// before the script runs, so that "modified:" lines and "recently changed"
// orders are the same on every run.
var fixedTime = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// TestScript runs the CLI scripts in testdata/script. Each builds its vault
// from the files in its txtar archive; every script also gets a copy of the
// repository's example-vault in $WORK/example-vault. Run with -update to
// rewrite the expected outputs (cmp) after a deliberate change, then review
// the diff.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			if err := copyDir(filepath.Join("..", "..", "example-vault"), filepath.Join(env.WorkDir, "example-vault")); err != nil {
				return err
			}
			return touchAll(env.WorkDir, fixedTime)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":     cmdExits,
			"tinymodel": cmdTinyModel,
		},
	})
}

// cmdExits runs a command and checks its exit code:
//
//	exits 3 vaultd read Nope.md
//
// Its stdout and stderr are then checked as after exec.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("exits cannot be negated; name the exit code")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: code %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with code %d, want %d", args[1], got, want)
	}
}

// cmdTinyModel writes the tiny static-embedding model of embedtest (the
// model2vec format: model.safetensors, tokenizer.json) into a folder:
//
//	tinymodel $WORK/model
func cmdTinyModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tinymodel DIR")
	}
	ts.Check(embedtest.WriteModel(ts.MkAbs(args[0])))
}

// copyDir copies the regular files and folders below src to dst.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == ".vaultd" {
				return fs.SkipDir // a state dir left by `make run`
			}
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// touchAll sets the modification time of every file below dir.
func touchAll(dir string, t time.Time) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, t, t)
	})
}
