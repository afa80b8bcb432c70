package tools

import (
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/vault"
)

// ExcludedData says what Obsidian's "Excluded files" (userIgnoreFilters
// in .obsidian/app.json) left out of a search or listing: the filters and
// how many notes they hid. Reads by path still return those notes, and a
// search or listing that names a place inside an excluded folder shows it.
type ExcludedData struct {
	Filters []string `json:"filters"`
	Notes   int      `json:"notes"`
	// Folder is an excluded folder that held hidden notes: the place to
	// name to see them ("" when only other filters hid notes).
	Folder string `json:"folder,omitempty"`
}

// exclusions is how Obsidian's "Excluded files" apply to a search or
// listing of named ("" is the whole vault; else the space or folder the
// caller named): none when named lies inside what a filter excludes (what
// the caller named wins, AGENT-CONTRACT rule 5).
type exclusions struct {
	ob       vault.ObsidianSettings
	folders  []string // excluded folders, for the index
	patterns []string // the other filters as path patterns, for the index
	on       bool
}

func (c *Core) exclusionsFor(named ...string) exclusions {
	ob := c.v.Obsidian()
	x := exclusions{ob: ob, on: len(ob.IgnoreFilters) > 0}
	for _, n := range named {
		n = strings.Trim(strings.TrimSpace(n), "/")
		if n == "" {
			continue
		}
		if _, ex := ob.Excluded(n + "/"); ex {
			x.on = false
		}
	}
	if x.on {
		x.folders = ob.ExcludedFolders()
		for _, p := range ob.PathPatterns() {
			if index.PathPatternOK(p) {
				x.patterns = append(x.patterns, p)
			}
		}
	}
	return x
}

// hides reports whether the note at p is left out.
func (x exclusions) hides(p string) bool {
	if !x.on {
		return false
	}
	_, ex := x.ob.Excluded(p)
	return ex
}

// folderOf returns the excluded folder p lies in ("" if a filter other
// than a folder hides it).
func (x exclusions) folderOf(p string) string {
	for _, f := range x.folders {
		if strings.HasPrefix(strings.ToLower(p), strings.ToLower(f)+"/") {
			return f
		}
	}
	return ""
}

// data is the ExcludedData for n hidden notes, the first of them at
// first; nil when none was hidden.
func (x exclusions) data(n int, first string) *ExcludedData {
	if n <= 0 {
		return nil
	}
	return &ExcludedData{Filters: x.ob.IgnoreFilters, Notes: n, Folder: x.folderOf(first)}
}

// writeExcluded writes the line that says what the filters hid, and the
// call that shows it: more is that call (nil when there is none).
func writeExcluded(b *strings.Builder, d *ExcludedData, what string, more *call, caller Caller) {
	if d == nil {
		return
	}
	quoted := make([]string, len(d.Filters))
	for i, f := range d.Filters {
		quoted[i] = `"` + f + `"`
	}
	fmt.Fprintf(b, "left out: %s %s, hidden by Obsidian's \"Excluded files\" (userIgnoreFilters %s in .obsidian/app.json); reading them by path works\n",
		plural(d.Notes, "note", "notes"), what, strings.Join(quoted, ", "))
	if more != nil {
		b.WriteString("to see them: " + more.render(caller.Door) + "\n")
	}
}
