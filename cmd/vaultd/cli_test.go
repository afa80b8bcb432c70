package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/rules"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// runCLI runs vaultd in-process with stdin and returns stdout, stderr and
// the exit code.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// The exit codes are a contract with scripts: the help and the README must
// both show the same table.
func TestHelp_ExitCodes(t *testing.T) {
	out, _, code := runCLI(t, "", "--help")
	if code != 0 {
		t.Fatalf("vaultd --help: got exit %d, want 0", code)
	}
	if !strings.Contains(out, exitCodesHelp) {
		t.Errorf("vaultd --help does not show the exit codes; got:\n%s", out)
	}
	// The README links the reference, which lists them.
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "(docs/reference.md)") || !strings.Contains(string(ref), "## Errors and exit codes") {
		t.Errorf("README.md does not link docs/reference.md, or it has no \"Errors and exit codes\"")
	}
	if !strings.Contains(string(ref), exitCodesHelp) {
		t.Errorf("docs/reference.md does not show the exit codes as `vaultd --help` does; want it to contain:\n%s", exitCodesHelp)
	}
}

// The starter rules note must say what `vaultd init` promises, parse
// without problems, and be short enough to reach agents whole.
func TestInit_StarterRules(t *testing.T) {
	sub, err := fs.Sub(starter, "starter")
	if err != nil {
		t.Fatal(err)
	}
	r, err := rules.Load(sub)
	if err != nil {
		t.Fatalf("rules.Load(starter): %v", err)
	}
	if len(r.Problems) > 0 {
		t.Errorf("starter rules have problems: %q", r.Problems)
	}
	if r.Inbox != "0_Inbox" {
		t.Errorf("inbox: got %q, want %q", r.Inbox, "0_Inbox")
	}
	var globs []string
	for _, p := range r.Protected {
		globs = append(globs, p.Value)
	}
	if !strings.Contains(strings.Join(globs, " "), "4_Archiv/**") {
		t.Errorf("protected: got %q, want 4_Archiv/** among them", globs)
	}
	if len(r.Notes) != 1 || r.Notes[0].Title != "Regeln für Agenten" {
		t.Fatalf("rules notes: got %+v, want one titled %q", r.Notes, "Regeln für Agenten")
	}
	if s := r.Summary(); strings.Contains(s, "for the rest") {
		t.Errorf("the starter guidance is cut in the summary agents get; shorten it:\n%s", s)
	}
}

func TestShellQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1_Projekte/Alpha.md", "1_Projekte/Alpha.md"},
		{"0_Inbox/Notiz 2026-11-18.md", "'0_Inbox/Notiz 2026-11-18.md'"},
		{"Kundenübersicht", "Kundenübersicht"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"", "''"},
	} {
		if got := shellQuote(tc.in); got != tc.want {
			t.Errorf("shellQuote(%q): got %s, want %s", tc.in, got, tc.want)
		}
	}
}

// A domain error keeps the core's text; only the frame changes.
func TestDomainFailure_Frame(t *testing.T) {
	res := &tools.Result{
		Text: "error: read \"1_Projekte/Plan.md\": no such note\nclosest notes:\n- 1_Projekte/Website-Relaunch/Projektplan.md\nnext: vaultd read 1_Projekte/Website-Relaunch/Projektplan.md",
		Err:  &note.Error{Op: "read", Path: "1_Projekte/Plan.md", Kind: note.ErrNotFound},
	}
	f := domainFailure(res, []string{"--vault", "my vault"})
	if f.code != exitNotFound {
		t.Errorf("code: got %d, want %d", f.code, exitNotFound)
	}
	wantMsg := "read \"1_Projekte/Plan.md\": no such note\nclosest notes:\n- 1_Projekte/Website-Relaunch/Projektplan.md"
	if f.msg != wantMsg {
		t.Errorf("msg: got %q, want %q", f.msg, wantMsg)
	}
	wantTry := "vaultd read 1_Projekte/Website-Relaunch/Projektplan.md --vault 'my vault'"
	if f.try != wantTry {
		t.Errorf("try: got %q, want %q", f.try, wantTry)
	}
	var b bytes.Buffer
	printFailure(&b, f)
	want := "vaultd: " + wantMsg + "\ntry: " + wantTry + "\n"
	if b.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestCodeOf(t *testing.T) {
	for _, tc := range []struct {
		kind error
		want int
	}{
		{note.ErrNotFound, exitNotFound},
		{vault.ErrExists, exitConflict},
		{note.ErrConflict, exitConflict},
		{note.ErrAmbiguous, exitConflict},
		{vault.ErrDenied, exitDenied},
		{note.ErrInvalidPath, exitInvalid},
		{note.ErrInvalid, exitInvalid},
		{errors.New("disk on fire"), exitError},
	} {
		err := error(&note.Error{Op: "read", Kind: tc.kind})
		if got := codeOf(err); got != tc.want {
			t.Errorf("codeOf(%v): got %d, want %d", tc.kind, got, tc.want)
		}
	}
}

// Content comes from exactly one place; an empty pipe is not content.
func TestContent_Sources(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/in.md"
	if err := os.WriteFile(file, []byte("from file"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string // content, or the error text
		code  int
	}{
		{"flag", []string{"--content", "from flag"}, "ignored", "from flag", 0},
		{"empty flag", []string{"--content", ""}, "", "", 0},
		{"file", []string{"--file", file}, "", "from file", 0},
		{"file dash", []string{"--file", "-"}, "from stdin", "from stdin", 0},
		{"pipe", nil, "from stdin", "from stdin", 0},
		{"empty pipe", nil, "", "content missing", exitUsage},
		{"both", []string{"--content", "a", "--file", file}, "", "not both", exitUsage},
		{"missing file", []string{"--file", dir + "/nope.md"}, "", "cannot read --file", exitNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &app{}
			cmd := a.createCmd()
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			var in contentFlags
			in.content, _ = cmd.Flags().GetString("content")
			in.file, _ = cmd.Flags().GetString("file")
			got, err := in.read(cmd, strings.NewReader(tc.stdin))
			if tc.code == 0 {
				if err != nil || got != tc.want {
					t.Errorf("args %q stdin %q: got %q, %v; want %q", tc.args, tc.stdin, got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || codeOf(err) != tc.code {
				t.Errorf("args %q stdin %q: got %q, %v (exit %d); want an error with %q, exit %d",
					tc.args, tc.stdin, got, err, codeOf(err), tc.want, tc.code)
			}
		})
	}
}
