package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// namesLaws are the laws of the German federal law corpus
// (../shared/corpora/gesetze.tar.xz) the name goldens copy: folder notes,
// each x/<abbreviation>/index.md with a frontmatter Title and an H1.
var namesLaws = []string{"k/kschg", "t/tierschg"}

var lawsUnpacked struct {
	sync.Mutex
	dirs map[string]string
}

// gesetzeLaws unpacks namesLaws once per test run (4 s: xz reads the
// whole archive) and returns the folder holding gesetze/<law>/index.md;
// the test is skipped where the corpus is absent.
func gesetzeLaws(t *testing.T) string { return unpackLaws(t, namesLaws...) }

// unpackLaws unpacks the laws (x/name) once per test run and set of laws.
func unpackLaws(t *testing.T, laws ...string) string {
	t.Helper()
	var archive string
	for _, c := range []string{os.Getenv("VAULTD_CORPORA"), filepath.Join("..", "..", "shared", "corpora"), filepath.Join("..", "shared", "corpora")} {
		if p := filepath.Join(c, "gesetze.tar.xz"); c != "" {
			if _, err := os.Stat(p); err == nil {
				archive = p
				break
			}
		}
	}
	if archive == "" {
		t.Skip("gesetze.tar.xz not found (set VAULTD_CORPORA to the corpora folder)")
	}
	o := &lawsUnpacked
	o.Lock()
	defer o.Unlock()
	key := strings.Join(laws, " ")
	if dir, ok := o.dirs[key]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "vaultd-laws-")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-xJf", archive, "-C", dir}
	for _, l := range laws {
		args = append(args, "gesetze/"+l+"/index.md")
	}
	if out, err := exec.Command("tar", args...).CombinedOutput(); err != nil {
		t.Fatalf("unpack %s: %v\n%s", archive, err, out)
	}
	if o.dirs == nil {
		o.dirs = map[string]string{}
	}
	o.dirs[key] = filepath.Join(dir, "gesetze")
	return o.dirs[key]
}

// namesVault is example-vault with two laws as folder notes under
// Gesetze/ and a folder note without a title.
func namesVault(t *testing.T) string {
	t.Helper()
	laws := gesetzeLaws(t)
	dir := copyExampleVault(t)
	for _, l := range namesLaws {
		b, err := os.ReadFile(filepath.Join(laws, l, "index.md"))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, "Gesetze", filepath.FromSlash(l), "index.md")
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeNote(t, dir, "3_Ressourcen/Hausmeister/README.md", "Wer wann kommt: Dienstag und Freitag, Telefon 0711 4711.\n")
	return dir
}

func writeNote(t *testing.T, dir, p, content string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// namesCases are the names real vaults use (issue 11 item 2): folder
// notes by folder name and path, frontmatter Title and H1, closest notes
// by folder name and through the index, and a missed heading answered by
// the sections that hold its words.
var namesCases = []goldenCase{
	{name: "names/folder_name", caller: readOnly, call: step{"read_note", `{"path":"kschg","heading":"§ 1a"}`}},
	{name: "names/folder_path", caller: readOnly, call: step{"read_note", `{"path":"Gesetze/t/tierschg","heading":"§ 1"}`}},
	{name: "names/frontmatter_title", caller: readOnly, call: step{"read_note", `{"path":"kündigungsschutzgesetz","heading":"§ 4"}`}},
	{name: "names/h1_title", caller: readOnly, call: step{"read_note", `{"path":"Kündigungsschutzgesetz (KSchG)","heading":"§ 10"}`}},
	{name: "names/folder_note_untitled", caller: readOnly, call: step{"read_note", `{"path":"Hausmeister"}`}},
	{name: "names/err_wrong_folder", caller: readOnly, call: step{"read_note", `{"path":"Gesetze/a/kschg/index.md"}`}},
	{name: "names/err_typo_folder", caller: readOnly, call: step{"read_note", `{"path":"Gesetze/k/kshg/index.md"}`}},
	{name: "names/err_name_found_by_search", caller: readOnly, call: step{"read_note", `{"path":"Tierhalter"}`}},
	{name: "names/err_english_word", caller: readOnly, call: step{"read_note", `{"path":"linking"}`}},
	{name: "names/err_heading_by_search", caller: readOnly, call: step{"read_note", `{"path":"kschg","heading":"Weiterbeschäftigung"}`}},
	{name: "names/err_update_heading_by_search", caller: readWrite, call: step{"update_section", `{"path":"kschg","heading":"Weiterbeschäftigung","content":"x","change_summary":"x"}`}},
	{name: "names/search_for_a_name", caller: readOnly, call: step{"search_notes", `{"query":"Kündigungsschtzgesetz"}`}},
	{name: "names/search_path_in_question", caller: readOnly, call: step{"search_notes", `{"query":"Wann gilt Gesetze/k/kschg/index.md für Kleinbetriebe?"}`}},
	{name: "names/search_path_alone", caller: readOnly, call: step{"search_notes", `{"query":"Gesetze/t/tierschg/index.md"}`}},
	{name: "names/title_but_for_punctuation", caller: readOnly, call: step{"read_note", `{"path":"Kündigungsschutzgesetz KSchG","heading":"§ 23"}`}},
	{name: "names/write_by_folder_name", caller: readWrite, call: step{"append_to_note", `{"path":"tierschg","content":"Notiz: siehe § 1.","change_summary":"Hinweis"}`}},
}

func TestGoldenNames(t *testing.T) {
	for _, tc := range namesCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := namesVault(t)
			checkGoldenCall(t, newTestCore(t, dir), tc.caller, tc.call, dir, "", tc.name)
		})
	}
}
