package vault

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

// wUpdating reports whether -update (declared in sections_test.go) asks
// for the golden files to be rewritten.
func wUpdating() bool { return *update }

// wGolden compares got with testdata/write/name, or rewrites it with -update.
func wGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	checkGolden(t, filepath.Join("testdata", "write", name), got)
}

// checkGolden compares got with the golden file p, or rewrites it with
// -update. Every golden test of this package uses it.
func checkGolden(t *testing.T, p string, got []byte) {
	t.Helper()
	if wUpdating() {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./vault -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./vault -run %s -update to accept):\n--- got\n%s\n--- want\n%s", p, t.Name(), got, want)
	}
}

// wFiles writes files (vault-relative path → content) into dir.
func wFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		// Fixture notes were saved a while ago: a text saved within the
		// last moments is waited on before a write builds on it
		// (settle.go). Other files (temp files) keep their time.
		if IsNote(p) {
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(full, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// wOpen opens a fresh vault in a temp dir holding files. Durability is off
// (tmpfs-like speed); the tests of fsync failures turn it on.
func wOpen(t *testing.T, files map[string]string) (*Vault, string) {
	t.Helper()
	dir := t.TempDir()
	wFiles(t, dir, files)
	return wOpenDir(t, dir, Options{NoSync: true, Actor: "test"}), dir
}

func wOpenDir(t *testing.T, dir string, o Options) *Vault {
	t.Helper()
	v, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func wRead(t *testing.T, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wOpts(summary string) WriteOpts { return WriteOpts{Summary: summary} }

func wVersion(t *testing.T, dir, p string) string {
	t.Helper()
	return note.Version([]byte(wRead(t, dir, p)))
}

// wTemps lists vaultd temp files left anywhere in dir.
func wTemps(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && IsTempName(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// wErr checks that err is an *Error of kind with op and path.
func wErr(t *testing.T, err error, kind error, op, path string) *note.Error {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("got error %v, want kind %q", err, kind)
	}
	e, ok := note.AsError(err)
	if !ok {
		t.Fatalf("got %T, want *vault.Error", err)
	}
	if e.Op != op || e.Path != path {
		t.Errorf("got Op %q Path %q, want %q %q (error: %v)", e.Op, e.Path, op, path, err)
	}
	return e
}

func TestWrite_CreateNew(t *testing.T) {
	v, dir := wOpen(t, nil)
	var notified []string
	v.OnChange(func(paths ...string) { notified = append(notified, paths...) })
	content := "---\ntags: [x]\n---\n# Plan\n\ntext" // no trailing newline: written as given
	res, err := v.Create("1_Projekte/Neu/Plan", []byte(content), WriteOpts{Summary: "start the plan", Actor: "mcp:stdio"})
	if err != nil {
		t.Fatal(err)
	}
	if got := wRead(t, dir, "1_Projekte/Neu/Plan.md"); got != content {
		t.Errorf("content: got %q, want %q", got, content)
	}
	if res.Note.Path != "1_Projekte/Neu/Plan.md" || res.Before != "" || res.After != note.Version([]byte(content)) ||
		res.Detail != "note created" || res.ChangeID == "" || res.Note.Title != "Plan" {
		t.Errorf("result: got %+v", res)
	}
	if strings.Join(notified, ",") != "1_Projekte/Neu/Plan.md" {
		t.Errorf("OnChange: got %q, want the new note", notified)
	}
	h, _ := v.History(HistoryFilter{})
	if len(h) != 1 || h[0].Op != "create" || h[0].Actor != "mcp:stdio" || h[0].Summary != "start the plan" || h[0].After != res.After || h[0].ID != res.ChangeID {
		t.Errorf("history: got %+v", h)
	}
	if temps := wTemps(t, dir); len(temps) != 0 {
		t.Errorf("temp files left: %q", temps)
	}
}

func TestWrite_CreateExists(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"A/Plan.md": "old\n", "A/Plan 2.md": "x"})
	_, err := v.Create("A/Plan.md", []byte("new"), wOpts("s"))
	e := wErr(t, err, ErrExists, "create", "A/Plan.md")
	if e.Current != note.ShortVersion(note.Version([]byte("old\n"))) || strings.Join(e.Alternatives, ",") != "A/Plan 3.md" {
		t.Errorf("got Current %q Alternatives %q, want the existing version and A/Plan 3.md", e.Current, e.Alternatives)
	}
	if got := wRead(t, dir, "A/Plan.md"); got != "old\n" {
		t.Errorf("existing note changed: %q", got)
	}
}

func TestWrite_CreateCaseTwins(t *testing.T) {
	v, _ := wOpen(t, map[string]string{"1_Projekte/Plan.md": "x"})
	_, err := v.Create("1_Projekte/plan.md", []byte("y"), wOpts("s"))
	e := wErr(t, err, ErrExists, "create", "1_Projekte/plan.md")
	if strings.Join(e.Alternatives, ",") != "1_Projekte/Plan.md" {
		t.Errorf("got Alternatives %q, want the existing note", e.Alternatives)
	}
	_, err = v.Create("1_projekte/Neu/Idee.md", []byte("y"), wOpts("s"))
	e = wErr(t, err, note.ErrInvalidPath, "create", "1_projekte/Neu/Idee.md")
	if strings.Join(e.Alternatives, ",") != "1_Projekte/Neu/Idee.md" {
		t.Errorf("got Alternatives %q, want the path in the existing folder", e.Alternatives)
	}
}

func TestWrite_CreateInvalidNames(t *testing.T) {
	v, _ := wOpen(t, nil)
	for _, p := range []string{"", "../x", "/etc/x", "a/.hidden/x", "a:b", "CON", "x.png", "Notiz "} {
		if _, err := v.Create(p, []byte("x"), wOpts("s")); !errors.Is(err, note.ErrInvalidPath) {
			t.Errorf("Create(%q): got %v, want ErrInvalidPath", p, err)
		} else if e, _ := note.AsError(err); e.Op != "create" {
			t.Errorf("Create(%q): got Op %q, want create", p, e.Op)
		}
	}
}

// Many writers, two handles (as two processes would have), one new note:
// exactly one create wins, and its content is what is on disk.
func TestWrite_CreateRace(t *testing.T) {
	v1, dir := wOpen(t, nil)
	v2 := wOpenDir(t, dir, Options{NoSync: true})
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := v1
			if i%2 == 1 {
				v = v2
			}
			_, errs[i] = v.Create("Inbox/Race.md", fmt.Appendf(nil, "writer %d\n", i), wOpts("race"))
		}()
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("writers %d and %d both created the note", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, ErrExists):
			t.Errorf("writer %d: got %v, want ErrExists", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no writer created the note")
	}
	if got, want := wRead(t, dir, "Inbox/Race.md"), fmt.Sprintf("writer %d\n", winner); got != want {
		t.Errorf("content: got %q, want the winner's %q", got, want)
	}
}

// A note created by another program between the check and the publish is
// never overwritten: the publish is a no-replace link.
func TestWrite_CreateNoReplacePublish(t *testing.T) {
	v, dir := wOpen(t, nil)
	v.w.hook = func(step, name string) error {
		if step == "link" {
			wFiles(t, dir, map[string]string{"Neu.md": "from Obsidian\n"})
		}
		return nil
	}
	_, err := v.Create("Neu.md", []byte("from vaultd\n"), wOpts("s"))
	wErr(t, err, ErrExists, "create", "Neu.md")
	if got := wRead(t, dir, "Neu.md"); got != "from Obsidian\n" {
		t.Errorf("got %q, want the other program's note kept", got)
	}
	if temps := wTemps(t, dir); len(temps) != 0 {
		t.Errorf("temp files left: %q", temps)
	}
}

func TestWrite_SummaryRequired(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"N.md": "## A\nx\n"})
	ver := wVersion(t, dir, "N.md")
	o := WriteOpts{Summary: " \n ", ExpectedVersion: ver}
	calls := map[string]func() error{
		"create":         func() error { _, err := v.Create("M.md", []byte("x"), o); return err },
		"append":         func() error { _, err := v.Append("N.md", "", []byte("x"), o); return err },
		"update_section": func() error { _, err := v.UpdateSection("N.md", "A", []byte("x"), o); return err },
		"replace":        func() error { _, err := v.Replace("N.md", []byte("x"), o); return err },
		"delete":         func() error { _, err := v.Delete("N.md", o); return err },
	}
	for op, call := range calls {
		err := call()
		if !errors.Is(err, note.ErrInvalid) || !strings.Contains(err.Error(), "change_summary is required") {
			t.Errorf("%s without summary: got %v, want ErrInvalid asking for change_summary", op, err)
		}
	}
	if got := wRead(t, dir, "N.md"); got != "## A\nx\n" {
		t.Errorf("note changed: %q", got)
	}
}

func TestWrite_Append(t *testing.T) {
	src := "---\ntitle: Plan\nlist:\n  - a\n---\r\n# Plan\r\n\r\n## Ziele\r\n- eins\r\n\r\n## Log\r\n"
	v, dir := wOpen(t, map[string]string{"P.md": src})
	res, err := v.Append("P", "Ziele", []byte("- zwei\n- drei"), wOpts("add goals"))
	if err != nil {
		t.Fatal(err)
	}
	want := "---\ntitle: Plan\nlist:\n  - a\n---\r\n# Plan\r\n\r\n## Ziele\r\n- eins\r\n\r\n- zwei\r\n- drei\r\n\r\n## Log\r\n"
	if got := wRead(t, dir, "P.md"); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if res.Detail != `2 lines appended to section "Plan > Ziele"` || res.Before != note.Version([]byte(src)) || res.After != note.Version([]byte(want)) {
		t.Errorf("result: got %+v", res)
	}
	if _, err := v.Append("P.md", "", []byte("end"), wOpts("s")); err != nil {
		t.Fatal(err)
	}
	if got := wRead(t, dir, "P.md"); got != want+"\r\nend\r\n" {
		t.Errorf("got %q, want one blank line then the text", got)
	}
}

func TestWrite_AppendErrors(t *testing.T) {
	v, _ := wOpen(t, map[string]string{
		"1_Projekte/Plan.md":   "# P\n## Ziele\n# Q\n## Ziele\n## Log\n",
		"1_Projekte/Plan 2.md": "x",
	})
	_, err := v.Append("1_Projekte/Plan.md", "Zeile", []byte("x"), wOpts("s"))
	e := wErr(t, err, note.ErrNotFound, "append", "1_Projekte/Plan.md")
	if e.AltKind != "headings" || len(e.Alternatives) == 0 {
		t.Errorf("got alternatives %q (%s), want the note's headings", e.Alternatives, e.AltKind)
	}
	_, err = v.Append("1_Projekte/Plan.md", "Ziele", []byte("x"), wOpts("s"))
	e = wErr(t, err, note.ErrAmbiguous, "append", "1_Projekte/Plan.md")
	if strings.Join(e.Alternatives, "|") != "P > Ziele|Q > Ziele" {
		t.Errorf("got alternatives %q, want every candidate path", e.Alternatives)
	}
	_, err = v.Append("1_Projekte/Plam.md", "", []byte("x"), wOpts("s"))
	e = wErr(t, err, note.ErrNotFound, "append", "1_Projekte/Plam.md")
	if len(e.Alternatives) == 0 || e.Alternatives[0] != "1_Projekte/Plan.md" {
		t.Errorf("got alternatives %q, want the closest notes", e.Alternatives)
	}
	_, err = v.Append("1_Projekte/Plan.md", "", []byte("x"), WriteOpts{Summary: "s", ExpectedVersion: "abc"})
	wErr(t, err, note.ErrInvalid, "append", "1_Projekte/Plan.md")
}

// A write to a note addressed with different case reaches the note, as a
// read does.
func TestWrite_AppendCaseInsensitivePath(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"Inbox/Idee.md": "a\n"})
	res, err := v.Append("inbox/idee", "", []byte("b"), wOpts("s"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Note.Path != "Inbox/Idee.md" || wRead(t, dir, "Inbox/Idee.md") != "a\n\nb\n" {
		t.Errorf("got path %q content %q", res.Note.Path, wRead(t, dir, "Inbox/Idee.md"))
	}
}

func TestWrite_UpdateSection(t *testing.T) {
	src := "---\nstatus: x\n---\n# T\n\n## Ziele\n\n- alt\n\n### Detail\n\nd\n\n## Log\n\nl\n"
	v, dir := wOpen(t, map[string]string{"T.md": src})
	res, err := v.UpdateSection("T.md", "## Ziele", []byte("- neu\n"), wOpts("rewrite goals"))
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nstatus: x\n---\n# T\n\n## Ziele\n\n- neu\n\n## Log\n\nl\n"
	if got := wRead(t, dir, "T.md"); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if res.Detail != `section "T > Ziele" replaced` || res.ChangeID == "" {
		t.Errorf("result: got %+v", res)
	}
	// The same body again changes nothing and records nothing.
	res, err = v.UpdateSection("T.md", "Ziele", []byte("- neu"), wOpts("again"))
	if err != nil {
		t.Fatal(err)
	}
	if res.ChangeID != "" || res.Before != res.After || !strings.HasPrefix(res.Detail, "nothing changed") {
		t.Errorf("no-op: got %+v", res)
	}
	if h, _ := v.History(HistoryFilter{}); len(h) != 1 {
		t.Errorf("history: got %d records, want 1", len(h))
	}
	_, err = v.UpdateSection("T.md", "Ziel", []byte("x"), wOpts("s"))
	wErr(t, err, note.ErrNotFound, "update_section", "T.md")
	_, err = v.UpdateSection("T.md", "Ziele", []byte("x\n## Neu\n"), wOpts("s"))
	wErr(t, err, note.ErrInvalid, "update_section", "T.md")
}

func TestWrite_Replace(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"R.md": "old\n"})
	if err := os.Chmod(filepath.Join(dir, "R.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := v.Replace("R.md", []byte("new\n"), wOpts("s"))
	e := wErr(t, err, note.ErrInvalid, "replace", "R.md")
	if !strings.Contains(e.Msg, "read the note first") {
		t.Errorf("got %q, want advice to read the note first", e.Msg)
	}
	stale := note.Version([]byte("older\n"))
	_, err = v.Replace("R.md", []byte("new\n"), WriteOpts{Summary: "s", ExpectedVersion: stale[:12]})
	e = wErr(t, err, note.ErrConflict, "replace", "R.md")
	if e.Expected != stale[:12] || e.Current != note.ShortVersion(note.Version([]byte("old\n"))) {
		t.Errorf("conflict: got Expected %q Current %q", e.Expected, e.Current)
	}
	cur := wVersion(t, dir, "R.md")
	res, err := v.Replace("R.md", []byte("new\n"), WriteOpts{Summary: "s", ExpectedVersion: strings.ToUpper(cur[:16])})
	if err != nil {
		t.Fatal(err)
	}
	if wRead(t, dir, "R.md") != "new\n" || res.Detail != "note replaced" {
		t.Errorf("got %q, %+v", wRead(t, dir, "R.md"), res)
	}
	fi, _ := os.Stat(filepath.Join(dir, "R.md"))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode: got %v, want 0600 kept", fi.Mode().Perm())
	}
}

// A note that is a symlink inside the vault is written through: the target
// gets the new text, the link stays a link. Links leaving the vault, folders
// and FIFOs are refused.
func TestWrite_Symlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	v, dir := wOpen(t, map[string]string{"real/Target.md": "a\n"})
	outside := filepath.Join(t.TempDir(), "Outside.md")
	os.WriteFile(outside, []byte("secret\n"), 0o644)
	if err := os.Symlink("real/Target.md", filepath.Join(dir, "Link.md")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(outside, filepath.Join(dir, "Abs.md"))
	os.Symlink("../"+filepath.Base(filepath.Dir(outside))+"/Outside.md", filepath.Join(dir, "Rel.md"))
	os.Mkdir(filepath.Join(dir, "Dir.md"), 0o755)
	if err := wMkfifo(filepath.Join(dir, "Pipe.md")); err != nil {
		t.Fatal(err)
	}

	if _, err := v.Append("Link.md", "", []byte("b"), wOpts("s")); err != nil {
		t.Fatal(err)
	}
	if got := wRead(t, dir, "real/Target.md"); got != "a\n\nb\n" {
		t.Errorf("target: got %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "Link.md")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Link.md is no longer a symlink (%v)", err)
	}
	for _, p := range []string{"Abs.md", "Rel.md", "Dir.md", "Pipe.md"} {
		_, err := v.Append(p, "", []byte("x"), wOpts("s"))
		if !errors.Is(err, note.ErrInvalidPath) {
			t.Errorf("Append(%q): got %v, want ErrInvalidPath", p, err)
		} else if strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), outside) {
			t.Errorf("Append(%q): error shows a host path: %v", p, err)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "secret\n" {
		t.Errorf("file outside the vault changed: %q", b)
	}
}

// Between the computation and the publish another program edits the note:
// an append is recomputed on the new text, a replace is a conflict, and the
// other program's edit survives either way.
func TestWrite_ChangedBeforePublish(t *testing.T) {
	v, dir := wOpen(t, map[string]string{"N.md": "## A\na\n\n## B\nb\n"})
	external := "## A\na\n\n## B\nb\nedited in Obsidian\n"
	once := func() {
		done := false
		v.w.hook = func(step, name string) error {
			if step == "recheck" && !done {
				done = true
				wFiles(t, dir, map[string]string{"N.md": external})
			}
			return nil
		}
	}
	once()
	if _, err := v.Append("N.md", "A", []byte("x"), wOpts("s")); err != nil {
		t.Fatal(err)
	}
	if got, want := wRead(t, dir, "N.md"), "## A\na\n\nx\n\n## B\nb\nedited in Obsidian\n"; got != want {
		t.Errorf("append: got %q, want %q", got, want)
	}
	once()
	cur := wVersion(t, dir, "N.md")
	_, err := v.Replace("N.md", []byte("replaced\n"), WriteOpts{Summary: "s", ExpectedVersion: cur})
	wErr(t, err, note.ErrConflict, "replace", "N.md")
	if got := wRead(t, dir, "N.md"); got != external {
		t.Errorf("replace: got %q, want the external edit kept", got)
	}
	if temps := wTemps(t, dir); len(temps) != 0 {
		t.Errorf("temp files left: %q", temps)
	}
}

// Fault injection (the one place a fake is allowed): an fsync or rename
// that fails leaves the old content, returns an error and records nothing.
func TestWrite_FaultInjection(t *testing.T) {
	for _, step := range []string{"sync", "rename"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			wFiles(t, dir, map[string]string{"N.md": "## A\nold\n"})
			v := wOpenDir(t, dir, Options{Actor: "test"}) // durability on
			v.w.hook = func(s, name string) error {
				if s == step {
					return &os.PathError{Op: step, Path: name, Err: syscall.EIO}
				}
				return nil
			}
			ver := wVersion(t, dir, "N.md")
			calls := map[string]func() (*Result, error){
				"replace": func() (*Result, error) {
					return v.Replace("N.md", []byte("new\n"), WriteOpts{Summary: "s", ExpectedVersion: ver})
				},
				"append":         func() (*Result, error) { return v.Append("N.md", "A", []byte("x"), wOpts("s")) },
				"update_section": func() (*Result, error) { return v.UpdateSection("N.md", "A", []byte("x"), wOpts("s")) },
				"delete":         func() (*Result, error) { return v.Delete("N.md", WriteOpts{Summary: "s", ExpectedVersion: ver}) },
			}
			for op, call := range calls {
				if step == "sync" && op == "delete" {
					continue // a delete writes no temp file
				}
				res, err := call()
				if err == nil || res != nil {
					t.Errorf("%s with a failing %s: got %+v, %v; want an error", op, step, res, err)
				} else if !strings.Contains(err.Error(), "input/output error") || strings.Contains(err.Error(), dir) {
					t.Errorf("%s: error %q should give the cause without host paths", op, err)
				}
				if got := wRead(t, dir, "N.md"); got != "## A\nold\n" {
					t.Errorf("%s with a failing %s: note is %q, want the old content", op, step, got)
				}
			}
			if temps := wTemps(t, dir); len(temps) != 0 {
				t.Errorf("temp files left: %q", temps)
			}
			if h, _ := v.History(HistoryFilter{}); len(h) != 0 {
				t.Errorf("history: got %+v, want no record of failed writes", h)
			}
		})
	}
	t.Run("sync-dir", func(t *testing.T) {
		dir := t.TempDir()
		wFiles(t, dir, map[string]string{"N.md": "old\n"})
		v := wOpenDir(t, dir, Options{})
		v.w.hook = func(s, name string) error {
			if s == "sync-dir" {
				return syscall.EIO
			}
			return nil
		}
		if _, err := v.Append("N.md", "", []byte("x"), wOpts("s")); err == nil {
			t.Error("append with a failing directory fsync: got success, want an error")
		}
	})
}

// OnChange subscribers run after the write is published: reading the note
// from a subscriber gives the new text (read-your-writes).
func TestWrite_OnChange(t *testing.T) {
	v, _ := wOpen(t, map[string]string{"N.md": "a\n"})
	var seen []string
	v.OnChange(func(paths ...string) {
		for _, p := range paths {
			n, err := v.Read(p)
			if err != nil {
				t.Errorf("read in subscriber: %v", err)
				continue
			}
			seen = append(seen, p+"="+strings.TrimSpace(string(n.Doc.Src)))
		}
	})
	v.Append("N.md", "", []byte("b"), wOpts("s"))
	v.Append("N.md", "missing", []byte("c"), wOpts("s")) // fails: no call
	v.Create("M.md", []byte("m"), wOpts("s"))
	sort.Strings(seen)
	if got, want := strings.Join(seen, ";"), "M.md=m;N.md=a\n\nb"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The texts agents and people see: every error and detail of the write
// side, in one golden file for review.
func TestWrite_Messages(t *testing.T) {
	v, dir := wOpen(t, map[string]string{
		"1_Projekte/Plan.md":      "# Plan\n\n## Ziele\n\n- a\n\n# Archiv\n\n## Ziele\n\n- alt\n",
		"1_Projekte/Budget.md":    "## Kosten\n\n100\n",
		"1_Projekte/Plan 2.md":    "copy\n",
		"2_Bereiche/Team/Rita.md": "Rita\n",
	})
	var b strings.Builder
	show := func(name string, res *Result, err error) {
		fmt.Fprintf(&b, "## %s\n", name)
		if err != nil {
			e, _ := note.AsError(err)
			fmt.Fprintf(&b, "error: %s\n", err)
			if e != nil {
				fmt.Fprintf(&b, "kind: %v\n", e.Kind)
				if len(e.Alternatives) > 0 {
					fmt.Fprintf(&b, "alternatives (%s): %s\n", e.AltKind, strings.Join(e.Alternatives, " | "))
				}
				if e.Expected != "" || e.Current != "" {
					fmt.Fprintf(&b, "expected: %s current: %s\n", e.Expected, e.Current)
				}
				if e.CurrentSection != "" {
					fmt.Fprintf(&b, "current section: %q\n", e.CurrentSection)
				}
			}
		} else {
			fmt.Fprintf(&b, "detail: %s\n", res.Detail)
			if res.TrashPath != "" {
				fmt.Fprintf(&b, "trash path: %s\n", res.TrashPath)
			}
		}
		b.WriteString("\n")
	}
	o := wOpts("golden")
	planV := wVersion(t, dir, "1_Projekte/Plan.md")
	stale := note.Version([]byte("stale"))

	res, err := v.Create("1_Projekte/Neu.md", []byte("# Neu\n"), o)
	show("create", res, err)
	res, err = v.Create("1_Projekte/Plan.md", []byte("x"), o)
	show("create: exists", res, err)
	res, err = v.Create("1_Projekte/plan.md", []byte("x"), o)
	show("create: case twin", res, err)
	res, err = v.Create("1_projekte/X.md", []byte("x"), o)
	show("create: folder case twin", res, err)
	res, err = v.Create("a/../../x.md", []byte("x"), o)
	show("create: outside the vault", res, err)
	res, err = v.Create("x.md", []byte("x"), WriteOpts{})
	show("create: no summary", res, err)
	res, err = v.Append("1_Projekte/Plan.md", "Ziele", []byte("x"), o)
	show("append: ambiguous heading", res, err)
	res, err = v.Append("1_Projekte/Plan.md", "Zeile", []byte("x"), o)
	show("append: missing heading", res, err)
	res, err = v.Append("1_Projekte/Plam.md", "", []byte("x"), o)
	show("append: missing note", res, err)
	res, err = v.Append("1_Projekte/Budget.md", "Kosten", []byte(" \n"), o)
	show("append: empty text", res, err)
	res, err = v.Append("1_Projekte/Plan.md", "Plan > Ziele", []byte("```\nopen fence"), o)
	show("append: unclosed fence", res, err)
	res, err = v.Append("1_Projekte/Budget.md", "Kosten", []byte("- 20\n- 30"), o)
	show("append: under heading", res, err)
	res, err = v.Append("1_Projekte/Budget.md", "", []byte("end"), o)
	show("append: end of note", res, err)
	res, err = v.Append("1_Projekte/Budget.md", "", []byte("x"), WriteOpts{Summary: "s", ExpectedVersion: "v1"})
	show("append: not a version", res, err)
	res, err = v.UpdateSection("1_Projekte/Plan.md", "Archiv > Ziele", []byte("- neu"), WriteOpts{Summary: "s", ExpectedVersion: planV})
	show("update_section", res, err)
	res, err = v.UpdateSection("1_Projekte/Plan.md", "Plan > Ziele", []byte("x\n# Top"), o)
	show("update_section: sibling heading in body", res, err)
	res, err = v.UpdateSection("1_Projekte/Plan.md", "Archiv > Ziele", []byte("- neu"), o)
	show("update_section: no change", res, err)
	wFiles(t, dir, map[string]string{"2_Bereiche/Team/Rita.md": "## Rolle\n\nLead\n"})
	res, err = v.UpdateSection("2_Bereiche/Team/Rita.md", "Rolle", []byte("x"), WriteOpts{Summary: "s", ExpectedVersion: note.Version([]byte("Rita\n"))})
	show("update_section: version unknown", res, err)
	res, err = v.Replace("1_Projekte/Budget.md", []byte("x"), o)
	show("replace: no version", res, err)
	res, err = v.Replace("1_Projekte/Budget.md", []byte("x"), WriteOpts{Summary: "s", ExpectedVersion: stale})
	show("replace: conflict", res, err)
	res, err = v.Delete("1_Projekte/Plan 2.md", o)
	show("delete: no version", res, err)
	res, err = v.Delete("1_Projekte/Plan 2.md", WriteOpts{Summary: "s", ExpectedVersion: wVersion(t, dir, "1_Projekte/Plan 2.md")})
	show("delete", res, err)
	res, err = v.Restore(".trash/1_Projekte/Plan 3.md", "", o)
	show("restore: not in trash", res, err)
	wFiles(t, dir, map[string]string{"1_Projekte/Plan 2.md": "new\n"})
	res, err = v.Restore("1_Projekte/Plan 2.md", "", o)
	show("restore: place taken", res, err)
	res, err = v.Restore(".trash/1_Projekte/Plan 2.md", "4_Archiv/Plan 2.md", o)
	show("restore", res, err)
	_, err = v.Content("0123456789ab")
	show("content: unknown version", nil, err)

	out := b.String()
	if strings.Contains(out, dir) {
		t.Errorf("messages show the host path %s", dir)
	}
	for _, bad := range []string{"%!", "<nil>", `""`, "{{", "*vault.", "*note."} {
		if strings.Contains(out, bad) {
			t.Errorf("messages contain %q", bad)
		}
	}
	wGolden(t, "messages.golden", []byte(out))
}

// The rebase table of DESIGN-NOTES.md ("Section edits when the note changed
// since it was read"), one case per row, for append and update_section: the
// caller read version V0, another program then made the change, and the
// caller's edit arrives with ExpectedVersion V0.
func TestWrite_RebaseTable(t *testing.T) {
	const v0 = "---\nstatus: draft\n---\n# Projekt\n\n## Ziele\n\n- a\n\n## Plan\n\n- p\n\n## Log\n\n- l\n"
	rows := []struct {
		name   string
		v1     string
		append error // nil = applied
		update error
	}{
		{"nothing", v0, nil, nil},
		{"other sections edited", strings.Replace(v0, "- p\n", "- p\n- q\n", 1), nil, nil},
		{"target section edited", strings.Replace(v0, "- a\n", "- a\n- b\n", 1), nil, note.ErrConflict},
		{"heading renamed", strings.Replace(v0, "## Ziele", "## Vorhaben", 1), note.ErrNotFound, note.ErrNotFound},
		{"heading deleted", strings.Replace(v0, "## Ziele\n\n- a\n\n", "", 1), note.ErrNotFound, note.ErrNotFound},
		{"heading now ambiguous", v0 + "\n# Archiv\n\n## Ziele\n\n- alt\n", note.ErrAmbiguous, note.ErrAmbiguous},
		{"heading moved, section bytes identical", strings.Replace(v0, "## Ziele\n\n- a\n\n", "", 1) + "\n## Ziele\n\n- a\n", nil, nil},
		{"frontmatter changed", strings.Replace(v0, "status: draft", "status: done\nowner: rita", 1), nil, nil},
	}
	for _, row := range rows {
		for _, op := range []string{"append", "update_section"} {
			t.Run(row.name+"/"+op, func(t *testing.T) {
				v, dir := wOpen(t, nil)
				if _, err := v.Create("P.md", []byte(v0), wOpts("start")); err != nil {
					t.Fatal(err)
				}
				wFiles(t, dir, map[string]string{"P.md": row.v1}) // the other program
				o := WriteOpts{Summary: "edit goals", ExpectedVersion: note.Version([]byte(v0))}
				var (
					err  error
					want []byte
				)
				wantErr := row.append
				if op == "append" {
					_, err = v.Append("P.md", "Ziele", []byte("- neu"), o)
					want, _, _ = note.AppendText([]byte(row.v1), "Ziele", []byte("- neu"))
				} else {
					wantErr = row.update
					_, err = v.UpdateSection("P.md", "Ziele", []byte("- neu"), o)
					if h, herr := note.Parse([]byte(row.v1)).Section("Ziele"); herr == nil {
						want, _ = note.ReplaceBody([]byte(row.v1), h, []byte("- neu"))
					}
				}
				got := wRead(t, dir, "P.md")
				if wantErr == nil {
					if err != nil {
						t.Fatalf("%s after %q: got %v, want it applied", op, row.name, err)
					}
					if got != string(want) {
						t.Errorf("%s after %q:\n got %q\nwant %q", op, row.name, got, want)
					}
					return
				}
				if !errors.Is(err, wantErr) {
					t.Fatalf("%s after %q: got %v, want %v", op, row.name, err, wantErr)
				}
				if got != row.v1 {
					t.Errorf("%s after %q changed the note on error: %q", op, row.name, got)
				}
				e, _ := note.AsError(err)
				if op == "update_section" && (e.Expected == "" || e.Current != note.ShortVersion(note.Version([]byte(row.v1)))) {
					t.Errorf("got Expected %q Current %q, want both versions", e.Expected, e.Current)
				}
				if errors.Is(err, note.ErrConflict) && e.CurrentSection != "## Ziele\n\n- a\n- b\n\n" {
					t.Errorf("got CurrentSection %q, want the section as it is now", e.CurrentSection)
				}
				if errors.Is(err, note.ErrAmbiguous) && len(e.Alternatives) != 2 {
					t.Errorf("got alternatives %q, want both candidates", e.Alternatives)
				}
			})
		}
	}
}

// When the version the caller read is unknown to the content store (the
// note was never written through vaultd), an update_section on a changed
// note cannot tell what changed: a conflict. An append still applies.
func TestWrite_RebaseUnknownVersion(t *testing.T) {
	const v0 = "## A\n\na\n\n## B\n\nb\n"
	v1 := v0 + "c\n"
	v, dir := wOpen(t, map[string]string{"N.md": v1})
	o := WriteOpts{Summary: "s", ExpectedVersion: note.Version([]byte(v0))}
	_, err := v.UpdateSection("N.md", "A", []byte("x"), o)
	e := wErr(t, err, note.ErrConflict, "update_section", "N.md")
	if e.CurrentSection != "## A\n\na\n\n" {
		t.Errorf("got CurrentSection %q", e.CurrentSection)
	}
	if _, err := v.Append("N.md", "A", []byte("x"), o); err != nil {
		t.Fatalf("append: %v", err)
	}
	if got := wRead(t, dir, "N.md"); got != "## A\n\na\n\nx\n\n## B\n\nb\nc\n" {
		t.Errorf("got %q", got)
	}
}

// checkAgentText fails on text an agent must never see (AGENT-CONTRACT 10).
func checkAgentText(t testing.TB, s string) {
	t.Helper()
	for _, bad := range []string{"%!", "%s", "%q", "{{", "<nil>", `""`, "map[", "interface {}", "[]uint8", "*vault.", "*note."} {
		if strings.Contains(s, bad) {
			t.Errorf("agent-facing text contains %q: %s", bad, s)
		}
	}
}

var update = flag.Bool("update", false, "rewrite golden files (testdata/**) from the current output")
