package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tourSections are the README sections whose ```sh blocks make up the
// tour: run in order on a fresh copy of example-vault, they must work as
// written (issue: "the README must run as written").
var tourSections = []string{
	"## A tour on the example vault",
	"## Reorganising, history and undo",
	"## Properties, tags, pins, boards, attachments",
	"## Bases: saved views without Obsidian",
}

// expectExit marks a README line that fails on purpose: `# exits N`.
var expectExit = regexp.MustCompile(`\s+# exits (\d+)$`)

// tourLine is one command of the tour, with its README line number.
type tourLine struct {
	n    int
	text string
}

// readmeTour extracts the tour's commands from README.md: every line of
// every ```sh block in sections, in order; a line ending in "\" goes on
// with the next.
func readmeTour(t *testing.T, sections ...string) []tourLine {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []tourLine
	in, block := false, false
	var cont *tourLine
	for i, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "## "):
			in = false
			for _, s := range sections {
				if l == s {
					in = true
				}
			}
		case in && !block && l == "```sh":
			block = true
		case block && l == "```":
			block = false
		case block:
			if cont != nil {
				cont.text += "\n" + l
			} else {
				out = append(out, tourLine{n: i + 1, text: l})
				cont = &out[len(out)-1]
			}
			if !strings.HasSuffix(l, `\`) {
				cont = nil
			}
		}
	}
	return out
}

// TestReadmeTour runs the README's tour as a new user would: one shell,
// the commands in order, in the repository (the tour starts with make
// build and copies example-vault), HOME and TMPDIR in temp dirs. Any
// non-zero exit fails, unless the README marks the line "# exits N" and
// it exits N.
func TestReadmeTour(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("the tour is a bash session; no bash here")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("the tour starts with make build; no make here")
	}
	lines := readmeTour(t, tourSections...)
	if len(lines) < 30 {
		t.Fatalf("the README tour has %d commands; the sections %q were not found", len(lines), tourSections)
	}
	runReadmeLines(t, lines, t.TempDir())
	t.Logf("the README tour ran %d commands", len(lines))
}

// TestReadmeOwnVault runs the README's "Use it with your own Obsidian
// vault" as written (issue 32: the README had no path for someone who
// already has a vault), with HOME in a temp dir holding a copy of the
// example vault where the README puts one (~/Documents/MyVault) and
// ~/.local/bin on PATH, as most shells have it once it exists: make
// install, cd into the vault, overview, connect. The lines connect prints
// name the installed binary and the vault by absolute paths.
func TestReadmeOwnVault(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("the README's lines are a bash session; no bash here")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("the README's lines start with make install; no make here")
	}
	const section = "## Use it with your own Obsidian vault"
	lines := readmeTour(t, section)
	if len(lines) < 3 {
		t.Fatalf("README section %q has %d commands, want make install, a cd into the vault and vaultd connect", section, len(lines))
	}
	home := t.TempDir()
	vault := filepath.Join(home, "Documents", "MyVault")
	if err := os.MkdirAll(filepath.Dir(vault), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(copyVault(t), vault); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(home, ".local", "bin")
	out := runReadmeLines(t, lines, home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, want := range []string{
		"installed " + filepath.Join(bin, "vaultd"),
		"1_Projekte",
		"claude mcp add notes -- " + filepath.Join(bin, "vaultd") + " serve --vault " + vault,
		"codex mcp add notes -- " + filepath.Join(bin, "vaultd") + " serve --vault " + vault,
		"gemini mcp add --scope user notes " + filepath.Join(bin, "vaultd") + " serve --vault " + vault,
		`{"mcpServers": {"notes": {"command": "` + filepath.Join(bin, "vaultd") + `"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the README's own-vault lines printed no %q:\n%s", want, tail(out, 60))
		}
	}
}

// runReadmeLines runs README lines as a new user would: one shell, the
// commands in order, in the repository, HOME as given and TMPDIR in a
// temp dir. Any non-zero exit fails, unless the README marks the line
// "# exits N" and it exits N. It returns what the shell printed.
func runReadmeLines(t *testing.T, lines []tourLine, home string, extraEnv ...string) string {
	t.Helper()
	var script strings.Builder
	for _, l := range lines {
		cmd, want := l.text, "0"
		if m := expectExit.FindStringSubmatch(cmd); m != nil {
			cmd, want = strings.TrimSuffix(cmd, m[0]), m[1]
		}
		fmt.Fprintf(&script, "echo %s\n%s\nrc=$?\nif [ $rc -ne %s ]; then echo \"README.md:%d exited $rc, want %s (the command above)\" >&2; exit 1; fi\n",
			shellQuote("$ "+cmd), cmd, want, l.n, want)
	}
	tmp := t.TempDir()
	// No deadline of its own: the tour is bounded by what it runs (go
	// test's -timeout catches a hang), and a cold or loaded machine must
	// not fail it. Go's caches stay where they are (they live under HOME
	// by default): a new HOME would download every module, and the pinned
	// toolchain, again.
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", script.String())
	cmd.Dir = repoRoot
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "VAULTD_") && !strings.HasPrefix(e, "HOME=") && !strings.HasPrefix(e, "TMPDIR=") {
			env = append(env, e)
		}
	}
	for _, name := range []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOENV"} {
		if v := goEnv(t, name); v != "" {
			env = append(env, name+"="+v)
		}
	}
	cmd.Env = append(append(env, "HOME="+home, "TMPDIR="+tmp, "NO_COLOR=1"), extraEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the README's commands failed (%v):\n%s", err, tail(out.String(), 60))
	}
	return out.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// goEnv is what go env says of name for this test's environment ("" if
// it cannot tell).
func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Logf("go env %s: %v", name, err)
		return ""
	}
	return strings.TrimSpace(string(out))
}
