package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// vaultd as git's merge driver (`vaultd git merge-driver %O %A %B %L %P`),
// and how a sync keeps a long merge from holding the notes' locks.
//
// A note both sides changed is merged by note.Merge, which on a 20 MB
// note takes tens of seconds. A sync round runs git's merge under the
// locks of the notes it rewrites and under git's own lock, so that no
// write lands in a file while git rewrites it — and every write to those
// notes waited that long. So the round first has git compute the merge
// without touching the work tree or taking any lock (git merge-tree),
// with the driver keeping each result in the state dir (MergeCacheEnv);
// then, under the locks, git merges for real and the driver finds every
// result computed: the locks are held for copying files, not for merging.
// A note that changed meanwhile (HEAD moved) has no result yet: the round
// computes again outside the locks, and after mergeRedos such rounds
// leaves the merge to the next one.

// Environment of the merge driver, set by the sync for both of its git
// runs: MergeCacheEnv the folder of computed results, MergeTheirsEnv the
// label of theirs in conflict markers (git names the branch merged in only
// for git merge, not git merge-tree, and both must write the same text).
const (
	MergeCacheEnv  = "VAULTD_MERGE_CACHE"
	MergeTheirsEnv = "VAULTD_MERGE_THEIRS"
)

// mergeCacheDir, in the state dir, holds the merge driver's results of a
// sync round's merge; the round removes it when it is done.
const mergeCacheDir = "merge-cache"

// MergeFiles is the merge driver: it merges the note at path (for
// messages) from the files git passes — base, ours, theirs — writes the
// result to ours and returns it. markerSize is git's %L (0: 7). With
// MergeCacheEnv set, a result computed before for the same three texts
// and labels is taken instead of merging again (cached), and a new one is
// kept.
func MergeFiles(basePath, oursPath, theirsPath string, markerSize int, path string) (res note.MergeResult, cached bool, err error) {
	base, err := os.ReadFile(basePath)
	if err != nil {
		return res, false, err
	}
	ours, err := os.ReadFile(oursPath)
	if err != nil {
		return res, false, err
	}
	theirs, err := os.ReadFile(theirsPath)
	if err != nil {
		return res, false, err
	}
	o := note.MergeOptions{OursLabel: "HEAD", TheirsLabel: theirsLabel(), MarkerSize: markerSize}
	dir := os.Getenv(MergeCacheEnv)
	key := mergeKey(base, ours, theirs, o)
	res, cached = cachedMerge(dir, key)
	if !cached {
		res = note.Merge(base, ours, theirs, o)
		storeMerge(dir, key, res)
	}
	return res, cached, os.WriteFile(oursPath, res.Text, 0o644)
}

// theirsLabel names the branch merged in: MergeTheirsEnv, else as git
// names it for its own markers (git merge sets GITHEAD_<commit>=<name>
// for the heads it merges), else "theirs".
func theirsLabel() string {
	if l := os.Getenv(MergeTheirsEnv); l != "" {
		return l
	}
	var names []string
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "GITHEAD_") && v != "" {
			names = append(names, v)
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return "theirs"
}

// mergeKey identifies a merge by its inputs.
func mergeKey(base, ours, theirs []byte, o note.MergeOptions) string {
	h := sha256.New()
	for _, b := range [][]byte{base, ours, theirs, []byte(o.OursLabel), []byte(o.TheirsLabel), []byte(strconv.Itoa(o.MarkerSize))} {
		fmt.Fprintf(h, "%d:", len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// A cached result is a JSON line (conflicts, sections, the NotText
// reason) and the merged text after it.
type cachedHead struct {
	Conflicts int      `json:"conflicts"`
	Sections  []string `json:"sections,omitempty"`
	NotText   string   `json:"not_text,omitempty"`
}

func cachedMerge(dir, key string) (note.MergeResult, bool) {
	if dir == "" {
		return note.MergeResult{}, false
	}
	b, err := os.ReadFile(filepath.Join(dir, key))
	if err != nil {
		return note.MergeResult{}, false
	}
	line, text, ok := bytes.Cut(b, []byte("\n"))
	var h cachedHead
	if !ok || json.Unmarshal(line, &h) != nil {
		return note.MergeResult{}, false
	}
	return note.MergeResult{Text: text, Conflicts: h.Conflicts, Sections: h.Sections, NotText: h.NotText}, true
}

func storeMerge(dir, key string, res note.MergeResult) {
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	head, err := json.Marshal(cachedHead{Conflicts: res.Conflicts, Sections: res.Sections, NotText: res.NotText})
	if err != nil {
		return
	}
	b := append(append(head, '\n'), res.Text...)
	tmp := filepath.Join(dir, key+".tmp"+strconv.Itoa(os.Getpid()))
	if os.WriteFile(tmp, b, 0o644) != nil {
		os.Remove(tmp)
		return
	}
	if os.Rename(tmp, filepath.Join(dir, key)) != nil {
		os.Remove(tmp)
	}
}

// clearMergeCache removes what a round's merge driver kept.
func (v *Vault) clearMergeCache() {
	if err := os.RemoveAll(filepath.Join(v.stateDir, mergeCacheDir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return
	}
}
