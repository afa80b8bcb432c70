package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/keys"
)

func TestOwnerLink_PrintsAOneTimeLink(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Note.md"), []byte("# Note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "", "--vault", dir, "owner", "link", "--url", "https://notes.example.org/")
	if code != 0 {
		t.Fatalf("vaultd owner link: exit %d\n%s%s", code, out, errOut)
	}
	m := regexp.MustCompile(`https://notes\.example\.org/signin\?token=(vdo_[A-Za-z0-9_-]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no sign-in link in:\n%s", out)
	}
	s := keys.Open(filepath.Join(dir, ".vaultd"))
	if err := s.UseLink(m[1], time.Now()); err != nil {
		t.Fatalf("the printed link does not sign in: %v", err)
	}
	if err := s.UseLink(m[1], time.Now()); err == nil {
		t.Fatal("the printed link signs in twice")
	}
	_, errOut, code = runCLI(t, "", "--vault", dir, "owner", "link", "--url", "notes.example.org")
	if code != exitUsage || !strings.Contains(errOut, "not a web address") {
		t.Errorf("--url without scheme: exit %d\n%s", code, errOut)
	}
	_, errOut, code = runCLI(t, "", "--vault", dir, "app", "--addr", "0.0.0.0:8765")
	if code != exitUsage || !strings.Contains(errOut, "this machine only") {
		t.Errorf("vaultd app on a network address: exit %d\n%s", code, errOut)
	}
}
