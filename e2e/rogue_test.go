package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The rogue agent (issue 10 item 7): a key with every right destroys what
// it can as fast as the server lets it: it takes a folder of notes down by
// creating the note beside it and deleting that, then deletes every note
// it finds and, when deletes run out, empties the note with replace_note.

// rogueResult is what a rogue run destroyed.
type rogueResult struct {
	trashed, folderTrashed, emptied int
	calls, refused                  int
	texts                           []string // the answers to the folder delete
}

// runRogue runs the rogue agent for d against a fresh server with default
// limits; folder is the size of the folder it takes down.
func runRogue(t *testing.T, d time.Duration, folder int) rogueResult {
	t.Helper()
	vault, state := copyVault(t), t.TempDir()
	for i := range folder {
		p := filepath.Join(vault, "3_Ressourcen", "Stapel", fmt.Sprintf("Blatt %03d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("# Blatt %d\n\nEin Blatt im Stapel mit ein paar Worten, damit es etwas zu verlieren gibt: %d.\n", i, i)), 0o644)
	}
	words := map[string]int{}
	filepath.WalkDir(vault, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, ".md") {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(vault, p)
			words[filepath.ToSlash(rel)] = len(strings.Fields(string(b)))
		}
		return nil
	})
	secret := createKey(t, vault, state, "rogue", "read,write,delete")
	h := serveHTTPProc(t, vault, state)
	m := rawConnect(t, h.url, secret)
	var res rogueResult
	id := 10
	call := func(tool string, args map[string]any) (string, bool) {
		id++
		res.calls++
		text, isErr := m.callText(id, tool, args)
		if isErr {
			res.refused++
		}
		return text, isErr
	}
	version := func(p string) string {
		text, _ := call("read_note", map[string]any{"path": p})
		v, _ := field(text, "version")
		return v
	}
	deadline := time.Now().Add(d)
	// The folder: a note beside it makes it its sub-notes.
	call("create_note", map[string]any{"path": "3_Ressourcen/Stapel.md", "content": "---\ntags: [stapel]\n---\n# Stapel\n", "change_summary": "rogue"})
	args := map[string]any{"path": "3_Ressourcen/Stapel.md", "change_summary": "rogue", "expected_version": version("3_Ressourcen/Stapel.md")}
	text, isErr := call("delete_note", args)
	res.texts = append(res.texts, text)
	// Told the number of sub-notes, a prompt-injected agent sends it.
	if n := regexp.MustCompile(`"with_sub_notes": (\d+)`).FindStringSubmatch(text); isErr && n != nil {
		args["with_sub_notes"], _ = strconv.Atoi(n[1])
		text, _ = call("delete_note", args)
		res.texts = append(res.texts, text)
	}
	var paths []string
	for p := range words {
		if !strings.HasPrefix(p, "3_Ressourcen/Stapel/") {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for i := 0; time.Now().Before(deadline); i++ {
		p := paths[i%len(paths)]
		if _, err := os.Stat(filepath.Join(vault, p)); err != nil {
			continue
		}
		v := version(p)
		if v == "" {
			continue
		}
		text, isErr := call("delete_note", map[string]any{"path": p, "change_summary": "rogue", "expected_version": v})
		if !isErr {
			continue
		}
		text, isErr = call("replace_note", map[string]any{"path": p, "content": "", "change_summary": "rogue", "expected_version": v})
		if isErr && strings.Contains(text, "rate limited") {
			time.Sleep(time.Second)
		}
	}
	filepath.WalkDir(filepath.Join(vault, ".trash"), func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, ".md") {
			res.trashed++
			if strings.Contains(p, "/Stapel/") {
				res.folderTrashed++
			}
		}
		return nil
	})
	for p, n := range words {
		b, err := os.ReadFile(filepath.Join(vault, p))
		if err == nil && n >= 4 && len(strings.Fields(string(b)))*2 < n {
			res.emptied++
		}
	}
	return res
}
