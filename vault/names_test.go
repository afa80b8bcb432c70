package vault

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/vaultd/vaultd/note"
)

// symlinkVault builds root/vault and root/vault-evil (a look-alike sibling
// holding a secret) and plants symlinks inside the vault that point out of
// it, plus one that stays inside.
func symlinkVault(t *testing.T) (v *Vault, root, evil string, secret []byte) {
	t.Helper()
	root = t.TempDir()
	dir := filepath.Join(root, "vault")
	evil = filepath.Join(root, "vault-evil")
	secret = []byte("# Secret\nthe password is hunter2\n")
	for _, d := range []string{dir, evil, filepath.Join(dir, "sub"), filepath.Join(evil, "inner")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(evil, "secret.md"), secret, 0o644))
	must(os.WriteFile(filepath.Join(evil, "inner", "secret.md"), secret, 0o644))
	must(os.WriteFile(filepath.Join(dir, "real.md"), []byte("# Real\n"), 0o644))
	links := map[string]string{
		"link.md":        "../vault-evil/secret.md",
		"abs.md":         filepath.Join(evil, "secret.md"),
		"evil":           "../vault-evil",
		"evilabs":        evil,
		"sub/deep.md":    "../../vault-evil/secret.md",
		"sub/up":         "..",            // stays inside
		"inside.md":      "real.md",       // stays inside
		"loop.md":        "loop.md",       // a loop
		"dangling.md":    "nowhere.md",    // points at nothing
		"vault-evil":     "../vault-evil", // the look-alike name inside the vault
		"sub/evil2":      "../../vault-evil/inner",
		"proc.md":        "/proc/self/environ",
		"etc":            "/etc",
		"Übersicht.md":   "../vault-evil/secret.md",
		"sub/hosts.md":   "/etc/hosts",
		"twice.md":       "sub/deep.md", // inside, then out
		"1_Projekte":     "../vault-evil/inner",
		"inner-rel.md":   "sub/../../vault-evil/secret.md",
		"dotdot-dir/x":   "../../vault-evil", // created below in a real folder
		"state-link.md":  ".vaultd/../../vault-evil/secret.md",
		"trailing.md":    "../vault-evil/secret.md/",
		"attachment.png": "../vault-evil/secret.md",
	}
	for name, target := range links {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(os.MkdirAll(filepath.Dir(p), 0o755))
		must(os.Symlink(target, p))
	}
	v, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, root, evil, secret
}

// TestNames_SymlinksLeavingTheVault: reads through symlinks that leave the
// vault are refused, walks skip them, and no byte of the secret outside is
// returned; symlinks that stay inside still work.
func TestNames_SymlinksLeavingTheVault(t *testing.T) {
	v, root, evil, secret := symlinkVault(t)
	outside := treeSnapshot(t, evil)
	leak := func(what string, b []byte) {
		t.Helper()
		if bytes.Contains(b, []byte("hunter2")) {
			t.Errorf("%s returned the secret from outside the vault", what)
		}
	}
	escaping := []string{
		"link.md", "abs.md", "evil/secret.md", "evilabs/secret.md", "sub/deep.md", "vault-evil/secret.md",
		"sub/evil2/secret.md", "proc.md", "etc/hosts", "etc/passwd", "Übersicht.md", "U\u0308bersicht.md",
		"sub/hosts.md", "twice.md", "1_Projekte/secret.md", "inner-rel.md", "dotdot-dir/x/secret.md",
		"state-link.md", "trailing.md", "sub/up/link.md", "loop.md", "dangling.md",
	}
	for _, p := range escaping {
		n, err := v.Read(p)
		if err == nil {
			leak("Read("+p+")", n.Doc.Src)
			t.Errorf("Read(%q): got the note %q, want an error", p, n.Path)
		} else {
			checkPathError(t, p, err, root)
		}
		b, err := v.ReadFile(p)
		if err == nil {
			leak("ReadFile("+p+")", b)
			t.Errorf("ReadFile(%q): got %d bytes, want an error", p, len(b))
		}
		if v.Exists(p) && !strings.HasPrefix(p, "loop") && !strings.HasPrefix(p, "dangling") {
			// Exists may see the link itself; it must not follow it out.
			if _, err := v.root.Stat(p); err == nil {
				t.Errorf("Exists(%q) followed a symlink out of the vault", p)
			}
		}
	}
	// Links that stay inside are followed.
	for _, p := range []string{"inside.md", "sub/up/real.md", "sub/up/inside.md"} {
		n, err := v.Read(p)
		if err != nil || !strings.HasPrefix(string(n.Doc.Src), "# Real") {
			t.Errorf("Read(%q) through a symlink inside the vault: got %v, want the note", p, err)
		}
	}
	var walked []string
	err := v.Walk(func(e Entry) error {
		walked = append(walked, e.Path)
		b, err := v.ReadFile(e.Path)
		if err == nil {
			leak("Walk entry "+e.Path, b)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	for _, p := range walked {
		if p != "real.md" && p != "inside.md" {
			t.Errorf("Walk listed %q, which leaves the vault or is no note (walked %q)", p, walked)
		}
	}
	for _, d := range []string{"evil", "evilabs", "vault-evil", "sub/evil2", "1_Projekte", "etc"} {
		err := v.WalkDir(d, func(e Entry) error {
			t.Errorf("WalkDir(%q) listed %q outside the vault", d, e.Path)
			return nil
		})
		if err == nil {
			t.Errorf("WalkDir(%q): got no error for a folder outside the vault", d)
		} else if strings.Contains(err.Error(), root) {
			t.Errorf("WalkDir(%q): error %q shows a host path", d, err)
		}
	}
	for _, raw := range hostileNames {
		p := expandEvil(raw, evil)
		if _, err := v.Read(p); err == nil {
			t.Errorf("Read(%q): got a note, want ErrInvalidPath", p)
		}
		if b, err := v.ReadFile(p); err == nil {
			leak("ReadFile("+p+")", b)
			t.Errorf("ReadFile(%q): got %d bytes, want ErrInvalidPath", p, len(b))
		}
		if v.Exists(p) {
			t.Errorf("Exists(%q): got true", p)
		}
		if err := v.WalkDir(p, func(Entry) error { return nil }); err == nil && strings.TrimSpace(p) != "" && strings.Trim(p, "./") != "" {
			t.Errorf("WalkDir(%q): got no error", p)
		}
	}
	sameTree(t, "outside the vault", outside, treeSnapshot(t, evil))
	if !bytes.Equal(nmRead(t, filepath.Join(evil, "secret.md")), secret) {
		t.Errorf("the secret outside the vault changed")
	}
}

// TestNames_WritesStayInside: every write with a hostile name is refused
// with ErrInvalidPath, writes through symlinks that leave the vault are
// refused, and nothing outside the vault (nor anything in it) changes.
func TestNames_WritesStayInside(t *testing.T) {
	v, root, evil, secret := symlinkVault(t)
	before := treeSnapshot(t, root, filepath.Join(v.Dir(), StateDirName))
	o := WriteOpts{Summary: "hostile write test"}
	ov := WriteOpts{Summary: "hostile write test", ExpectedVersion: note.Version(secret)}
	for _, raw := range hostileNames {
		p := expandEvil(raw, evil)
		if _, err := v.Create(p, []byte("pwned\n"), o); !errors.Is(err, note.ErrInvalidPath) {
			t.Errorf("Create(%q): got %v, want ErrInvalidPath", p, err)
		} else {
			checkPathError(t, p, err, root)
		}
		if _, err := v.Replace(p, []byte("pwned\n"), ov); !errors.Is(err, note.ErrInvalidPath) {
			t.Errorf("Replace(%q): got %v, want ErrInvalidPath", p, err)
		} else {
			checkPathError(t, p, err, root)
		}
	}
	// Through the planted symlinks.
	for _, p := range []string{
		"link.md", "abs.md", "evil/secret.md", "evil/new.md", "evilabs/new.md", "sub/deep.md", "vault-evil/new.md",
		"sub/evil2/new.md", "sub/evil2/secret.md", "1_Projekte/new.md", "1_Projekte/secret.md", "Übersicht.md",
		"twice.md", "inner-rel.md", "trailing.md", "dangling.md", "loop.md", "sub/up/link.md", "etc/new.md",
	} {
		if _, err := v.Create(p, []byte("pwned\n"), o); err == nil {
			t.Errorf("Create(%q) through a symlink out of the vault succeeded", p)
		} else if strings.Contains(err.Error(), root) {
			t.Errorf("Create(%q): error %q shows a host path", p, err)
		}
		if _, err := v.Replace(p, []byte("pwned\n"), ov); err == nil {
			t.Errorf("Replace(%q) through a symlink out of the vault succeeded", p)
		} else if strings.Contains(err.Error(), root) {
			t.Errorf("Replace(%q): error %q shows a host path", p, err)
		}
		if _, err := v.Append(p, "", []byte("pwned\n"), o); err == nil {
			t.Errorf("Append(%q) through a symlink out of the vault succeeded", p)
		}
		if _, err := v.UpdateSection(p, "Secret", []byte("pwned\n"), o); err == nil {
			t.Errorf("UpdateSection(%q) through a symlink out of the vault succeeded", p)
		}
		if _, err := v.Delete(p, ov); err == nil {
			t.Errorf("Delete(%q) through a symlink out of the vault succeeded", p)
		}
	}
	after := treeSnapshot(t, root, filepath.Join(v.Dir(), StateDirName))
	outsideOnly := func(m map[string]string) map[string]string {
		out := map[string]string{}
		for p, r := range m {
			if !strings.HasPrefix(p, v.Dir()+string(filepath.Separator)) && p != v.Dir() {
				out[p] = r
			}
		}
		return out
	}
	sameTree(t, "outside the vault", outsideOnly(before), outsideOnly(after))
	sameTree(t, "the vault", before, after)
	if !bytes.Equal(nmRead(t, filepath.Join(evil, "secret.md")), secret) {
		t.Errorf("the secret outside the vault changed")
	}
}

// TestNames_NFC: "Übersicht.md" is found however it was typed and however
// it is stored (macOS and some tools store decomposed names).
func TestNames_NFC(t *testing.T) {
	composed, decomposed := "Übersicht", "U\u0308bersicht"
	if composed == decomposed || norm.NFC.String(decomposed) != composed {
		t.Fatal("test strings are not two forms of one name")
	}
	for _, c := range []struct{ onDisk, folder string }{{composed, "Ärger"}, {decomposed, "A\u0308rger"}} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, c.folder), 0o755); err != nil {
			t.Fatal(err)
		}
		body := []byte("# " + c.onDisk + "\n")
		for _, p := range []string{c.onDisk + ".md", c.folder + "/" + c.onDisk + ".md"} {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		v, err := Open(dir, Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, typed := range []string{composed, decomposed, composed + ".md", decomposed + ".md",
			"Ärger/" + composed, "A\u0308rger/" + decomposed + ".md", "Ärger/" + decomposed, "A\u0308rger/" + composed} {
			n, err := v.Read(typed)
			if err != nil {
				t.Errorf("on disk %+q, typed %+q: got %v, want the note", c.onDisk, typed, err)
				continue
			}
			if !bytes.Equal(n.Doc.Src, body) {
				t.Errorf("on disk %+q, typed %+q: read %q", c.onDisk, typed, n.Doc.Src)
			}
			if !norm.NFC.IsNormalString(n.Path) {
				t.Errorf("on disk %+q, typed %+q: Note.Path %+q is not NFC", c.onDisk, typed, n.Path)
			}
			if n.Title != composed {
				t.Errorf("on disk %+q, typed %+q: title %+q, want %+q", c.onDisk, typed, n.Title, composed)
			}
		}
		var walked []string
		_ = v.Walk(func(e Entry) error { walked = append(walked, e.Path); return nil })
		for _, p := range walked {
			if !norm.NFC.IsNormalString(p) {
				t.Errorf("on disk %+q: Walk gave %+q, not NFC", c.onDisk, p)
			}
		}
		v.Close()
	}
}

// TestNames_FIFO: a FIFO named like a note must not hang a read (opening a
// FIFO for reading blocks until a writer appears).
func TestNames_FIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	v, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	done := make(chan error, 1)
	go func() { _, err := v.Read("pipe.md"); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, note.ErrInvalidPath) {
			t.Errorf("Read of a FIFO: got %v, want ErrInvalidPath", err)
		}
	case <-time.After(30 * time.Second): // a hang on the FIFO is forever; a loaded machine is only slow
		// Unblock the reader so the test can end.
		if f, err := os.OpenFile(filepath.Join(dir, "pipe.md"), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Errorf("Read of a FIFO hung")
	}
	_ = v.Walk(func(e Entry) error {
		if e.Path == "pipe.md" {
			t.Errorf("Walk listed the FIFO")
		}
		return nil
	})
}

// TestNames_FIFOWritesDoNotHang: a FIFO named like a note hangs no write
// that meets it — create onto it, move to it, restore to it, edit it —
// and none of them opens it.
func TestNames_FIFOWritesDoNotHang(t *testing.T) {
	dir := t.TempDir()
	wFiles(t, dir, map[string]string{"A.md": "# A\n", "B.md": "# B\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	v := wOpenDir(t, dir, Options{NoSync: true})
	if _, err := v.Delete("B.md", WriteOpts{Summary: "weg", ExpectedVersion: note.Version([]byte("# B\n"))}); err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"create onto it": func() error { _, err := v.Create("pipe.md", []byte("x"), wOpts("neu")); return err },
		"move to it": func() error {
			_, err := v.Move("A.md", "pipe.md", WriteOpts{Summary: "um", ExpectedVersion: note.Version([]byte("# A\n"))})
			return err
		},
		"restore to it": func() error { _, err := v.Restore(".trash/B.md", "pipe.md", wOpts("zurück")); return err },
		"append to it":  func() error { _, err := v.Append("pipe.md", "", []byte("x"), wOpts("mehr")); return err },
		"replace it": func() error {
			_, err := v.Replace("pipe.md", []byte("x"), WriteOpts{Summary: "neu", ExpectedVersion: "000000000000"})
			return err
		},
		"delete it": func() error {
			_, err := v.Delete("pipe.md", WriteOpts{Summary: "weg", ExpectedVersion: "000000000000"})
			return err
		},
		"move it": func() error {
			_, err := v.Move("pipe.md", "Neu.md", WriteOpts{Summary: "um", ExpectedVersion: "000000000000"})
			return err
		},
	}
	for name, call := range calls {
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: succeeded, want an error", name)
			}
		case <-time.After(30 * time.Second): // a hang on the FIFO is forever; a loaded machine is only slow
			if f, err := os.OpenFile(filepath.Join(dir, "pipe.md"), os.O_RDWR, 0); err == nil {
				f.Close() // unblock the hung call
			}
			t.Errorf("%s: hung on the FIFO", name)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "pipe.md")); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced or removed: %v", err)
	}
}

// TestNames_DecomposedFolderGetsNoTwin: writing "Ärger/Neu.md" into a
// folder stored decomposed (as macOS leaves it) writes into that folder —
// no second, identical-looking folder appears — and history names it in
// NFC. A folder that differs in case is refused, and the message says case.
func TestNames_DecomposedFolderGetsNoTwin(t *testing.T) {
	dir := t.TempDir()
	nfd := "A\u0308rger"
	wFiles(t, dir, map[string]string{nfd + "/Alt.md": "# Alt\n", "Trash.md": "# T\n"})
	v := wOpenDir(t, dir, Options{NoSync: true})
	res, err := v.Create("Ärger/Neu.md", []byte("# Neu\n"), wOpts("neu"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Note.Path != "Ärger/Neu.md" {
		t.Errorf("reported path %q, want it in NFC", res.Note.Path)
	}
	if _, err := v.Delete("Trash.md", WriteOpts{Summary: "weg", ExpectedVersion: note.Version([]byte("# T\n"))}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Restore(".trash/Trash.md", "Ärger/Zurück.md", wOpts("zurück")); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var folders []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			folders = append(folders, e.Name())
		}
	}
	if len(folders) != 1 || folders[0] != nfd {
		t.Errorf("folders %+q: want only the decomposed one", folders)
	}
	for _, n := range []string{"Neu.md", "Zurück.md", "Alt.md"} {
		if _, err := os.Stat(filepath.Join(dir, nfd, n)); err != nil {
			t.Errorf("%s is not in the decomposed folder: %v", n, err)
		}
	}
	h, _ := v.History(HistoryFilter{})
	for _, ch := range h {
		if ch.Path != norm.NFC.String(ch.Path) {
			t.Errorf("history records %+q, not NFC", ch.Path)
		}
	}
	if _, err := v.Create("ärger/X.md", []byte("# X\n"), wOpts("neu")); err == nil || !strings.Contains(err.Error(), "differs only in case") {
		t.Errorf("a case twin folder: got %v, want the case refusal", err)
	}
	// A note stored decomposed is the note itself, not a case twin.
	wFiles(t, dir, map[string]string{"U\u0308bersicht.md": "# Ü\n"})
	_, err = v.Create("Übersicht.md", []byte("# neu\n"), wOpts("neu"))
	if !errors.Is(err, ErrExists) || strings.Contains(err.Error(), "case") {
		t.Errorf("create over a decomposed twin: got %v, want ErrExists without a word of case", err)
	}
}

// hostileNames are vault paths that must be refused by CleanPath (and so by
// NotePath and every read and write): they leave the vault, name something
// that is not a note of the vault, or cannot travel to Windows or macOS.
// Entries with "{evil}" get the host path of a sibling folder "vault-evil"
// (a look-alike of the vault's own folder) at test time.
var hostileNames = []string{
	// traversal
	"..", "../", "../x.md", "../../etc/passwd", "a/../../x.md", "a/b/../../../x.md", "./../x.md",
	"..//x.md", "x/..", "x/../..", "a/./../../b.md", "1_Projekte/../../x.md", "a/b/c/../../../../x",
	// Windows separators and UNC
	`..\x.md`, `a\..\..\x.md`, `\\server\share\x.md`, `\x.md`, `a\b.md`, `\\?\C:\x.md`, `\\.\PhysicalDrive0`,
	// absolute, drive letters, home folder, URLs
	"/etc/passwd", "/", "//", "///x.md", "/tmp/x.md", "/x/../y.md", "C:\\x.md", "C:/x.md", "c:x.md", "Z:",
	"~", "~/x.md", "~/.ssh/id_rsa", "file:///etc/passwd", "file:x.md", "FILE:x.md", "http://evil.example/x.md",
	"{evil}", "{evil}/secret.md", "{evil}/../vault/x.md",
	// the look-alike sibling "vault-evil/"
	"../vault-evil/secret.md", "../vault-evil", "..//vault-evil/secret.md", "./../vault-evil/secret.md",
	"a/../../vault-evil/secret.md", "../vault-evil/../vault/x.md", "../vault/../vault-evil/secret.md",
	// NUL, control characters, invalid UTF-8
	"a\x00.md", "\x00", "a.md\x00.txt", "\x00/x.md", "x\n.md", "x\r.md", "x\t.md", "\x1b[31mred.md", "x\x7f.md",
	"x\u0085.md", "x\u009b.md", "\xff.md", "a/\xc3.md", "\xed\xa0\x80.md", "\xc0\xae\xc0\xae/x.md",
	// look-alikes of dots: read as ".." or hidden names
	"\u2025", "\u2025/x.md", "\uff0e\uff0e/x.md", "\u2024\u2024", "\u2026/x.md", "\ufe52git/config", "\uff0egit/config", "a/\u2025/x.md",
	// invisible formatting characters (look-alike names)
	"\u202egpj.md", "x\u200b.md", "\ufeffx.md", "x\u00ad.md", "x\u2066.md", "x\u200e.md", "a\u2060b.md",
	// hidden files and folders, the state dir, the trash
	".obsidian/app.json", ".git/config", ".git/hooks/pre-commit", ".vaultd/history.jsonl", ".vaultd/../x.md",
	".trash/x.md", ".env", "a/.hidden.md", ".md", "...", "....", ".../x.md", ". ./x.md",
	// names Windows reserves
	"CON", "con.md", "CON.md", "nul.md", "NUL", "aux.txt.md", "PRN.md", "COM1.md", "com9.md", "LPT1.md",
	"lpt9.md", "COM0.md", "LPT0.md", "COM¹.md", "LPT³.md", "CONIN$.md", "conout$.md", "a/CON/b.md", "con .md",
	"Nul.tar.md",
	// characters Windows or macOS cannot store
	"a<b.md", "a>b.md", "a:b.md", `a"b.md`, "a|b.md", "a?b.md", "a*b.md", "Ordner:/x.md",
	// trailing dots and spaces, leading spaces
	"note.", "note ", "folder./x.md", "folder /x.md", " lead.md", "a/ b.md",
	// empty
	"", " ", "\t", ".", "./", "./.", "././",
	// too long
	strings.Repeat("a", 256) + ".md", strings.Repeat("ä", 130) + ".md", strings.Repeat("abcdefgh/", 120) + "x.md",
}

// notePathOnly are accepted as files by CleanPath but are not notes.
var notePathOnly = []string{"x.txt", "bild.png", "tool.exe", "archive.tar.gz", "a/b.pdf", "x.MD.bak"}

func expandEvil(name, evil string) string { return strings.ReplaceAll(name, "{evil}", evil) }

func TestNames_Hostile(t *testing.T) {
	if n := len(hostileNames); n < 100 {
		t.Fatalf("only %d hostile names; the issue asks for at least 100", n)
	}
	t.Logf("%d hostile names, %d more that are files but not notes", len(hostileNames), len(notePathOnly))
	root := t.TempDir()
	evil := filepath.Join(root, "vault-evil")
	for _, raw := range hostileNames {
		p := expandEvil(raw, evil)
		for _, f := range []struct {
			name string
			fn   func(string) (string, error)
		}{{"CleanPath", note.CleanPath}, {"NotePath", note.NotePath}} {
			got, err := f.fn(p)
			if err == nil {
				t.Errorf("%s(%q): got %q, want ErrInvalidPath", f.name, p, got)
				continue
			}
			if !errors.Is(err, note.ErrInvalidPath) {
				t.Errorf("%s(%q): got %v, want ErrInvalidPath", f.name, p, err)
			}
			checkPathError(t, p, err, root)
		}
	}
	for _, p := range notePathOnly {
		if _, err := note.CleanPath(p); err != nil {
			t.Errorf("CleanPath(%q): got %v, want it accepted (an attachment)", p, err)
		}
		got, err := note.NotePath(p)
		if !errors.Is(err, note.ErrInvalidPath) {
			t.Errorf("NotePath(%q): got %q, %v; want ErrInvalidPath", p, got, err)
			continue
		}
		if !strings.Contains(err.Error(), ".md") {
			t.Errorf("NotePath(%q): %q does not say notes are .md files", p, err)
		}
	}
}

// checkPathError: a clear one-line message, no host path, nothing an agent
// must not see.
func checkPathError(t *testing.T, input string, err error, hostDirs ...string) {
	t.Helper()
	msg := err.Error()
	e, ok := note.AsError(err)
	if !ok {
		t.Errorf("input %q: error %T %q is not a *vault.Error", input, err, msg)
		return
	}
	if e.Msg == "" || strings.ContainsAny(msg, "\n\r") || !utf8Valid(msg) {
		t.Errorf("input %q: unclear message %q", input, msg)
	}
	hostDirs = append(hostDirs, os.TempDir()+string(filepath.Separator))
	if home, err := os.UserHomeDir(); err == nil && len(home) > 1 {
		hostDirs = append(hostDirs, home)
	}
	for _, h := range hostDirs {
		if strings.Contains(msg, h) {
			t.Errorf("input %q: message %q shows the host path %q", input, msg, h)
		}
	}
	checkAgentText(t, msg)
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\ufffd") == s }

// snapshot records every file and folder under dir (not following
// symlinks) with its mode, size, mtime and a hash of its content.
func treeSnapshot(t *testing.T, dir string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		for _, s := range skip {
			if p == s {
				return filepath.SkipDir
			}
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rec := fi.Mode().String() + " " + fi.ModTime().Format(time.RFC3339Nano)
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rec += " " + note.Version(b)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			rec += " -> " + target
		}
		out[p] = rec
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s: %s disappeared", what, p)
		} else if a != b {
			t.Errorf("%s: %s changed: %s → %s", what, p, b, a)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s appeared", what, p)
		}
	}
}

func nmRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
