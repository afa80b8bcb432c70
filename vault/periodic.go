package vault

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// Periodic notes as Obsidian makes them: the core Daily notes plugin
// (.obsidian/daily-notes.json) and, for weeks, months, quarters and years,
// the Periodic Notes community plugin
// (.obsidian/plugins/periodic-notes/data.json), whose daily settings win
// over the core plugin's when it is enabled; the core Templates plugin's
// folder and formats (.obsidian/templates.json).

// Period is one kind of periodic note.
type Period string

const (
	Day     Period = "day"
	Week    Period = "week"
	Month   Period = "month"
	Quarter Period = "quarter"
	Year    Period = "year"
)

// Periods are the periods in order.
var Periods = []Period{Day, Week, Month, Quarter, Year}

// PeriodicSetting is where a period's notes live and how they are named.
type PeriodicSetting struct {
	Period   Period
	Folder   string // vault folder, "" for the root
	Format   string // moment.js format of the file name (may hold "/")
	Template string // vault path of the template note, "" for none
	// From says where the setting comes from, for answers: ".obsidian/
	// daily-notes.json", "Obsidian's defaults", …
	From string
}

// Defaults of Obsidian's daily notes and of the Periodic Notes plugin.
var periodDefaults = map[Period]string{
	Day: "YYYY-MM-DD", Week: "gggg-[W]ww", Month: "YYYY-MM", Quarter: "YYYY-[Q]Q", Year: "YYYY",
}

// TemplateSettings are the core Templates plugin's settings.
type TemplateSettings struct {
	Folder     string // "" when not set
	DateFormat string // "YYYY-MM-DD" by default
	TimeFormat string // "HH:mm" by default
}

// Templates reads .obsidian/templates.json. A missing file is Obsidian's
// defaults; a file that is not valid JSON is an error naming it.
func (v *Vault) Templates() (TemplateSettings, error) {
	s := TemplateSettings{DateFormat: "YYYY-MM-DD", TimeFormat: "HH:mm"}
	var raw struct {
		Folder     string `json:"folder"`
		DateFormat string `json:"dateFormat"`
		TimeFormat string `json:"timeFormat"`
	}
	found, err := v.obsidianJSON(".obsidian/templates.json", "Settings → Templates", &raw)
	if err != nil || !found {
		return s, err
	}
	if s.Folder, err = cleanSettingFolder(raw.Folder, ".obsidian/templates.json"); err != nil {
		return s, err
	}
	if strings.TrimSpace(raw.DateFormat) != "" {
		s.DateFormat = raw.DateFormat
	}
	if strings.TrimSpace(raw.TimeFormat) != "" {
		s.TimeFormat = raw.TimeFormat
	}
	return s, nil
}

// PeriodicNotes returns the setting of period p, and whether the vault
// has periodic notes of that kind at all: daily notes always (Obsidian's
// defaults when nothing is configured), the others only where the
// Periodic Notes plugin enables them.
func (v *Vault) PeriodicNotes(p Period) (PeriodicSetting, bool, error) {
	type one struct {
		Enabled  bool   `json:"enabled"`
		Folder   string `json:"folder"`
		Format   string `json:"format"`
		Template string `json:"template"`
	}
	var plugin map[string]one
	const pluginFile = ".obsidian/plugins/periodic-notes/data.json"
	hasPlugin, err := v.obsidianJSON(pluginFile, "the Periodic Notes plugin's settings", &plugin)
	if err != nil {
		return PeriodicSetting{}, false, err
	}
	if hasPlugin && !v.pluginEnabled("periodic-notes") {
		hasPlugin = false
	}
	key := map[Period]string{Day: "daily", Week: "weekly", Month: "monthly", Quarter: "quarterly", Year: "yearly"}[p]
	set := func(o one, from string) (PeriodicSetting, bool, error) {
		s := PeriodicSetting{Period: p, Format: o.Format, From: from}
		if strings.TrimSpace(s.Format) == "" {
			s.Format = periodDefaults[p]
		}
		var err error
		if s.Folder, err = cleanSettingFolder(o.Folder, from); err != nil {
			return s, false, err
		}
		if t := strings.TrimSpace(o.Template); t != "" {
			s.Template = templatePath(t)
		}
		return s, true, nil
	}
	if o, ok := plugin[key]; hasPlugin && ok && o.Enabled {
		return set(o, pluginFile)
	}
	if p != Day {
		return PeriodicSetting{Period: p, Format: periodDefaults[p]}, false, nil
	}
	var core one
	found, err := v.obsidianJSON(".obsidian/daily-notes.json", "Settings → Daily notes", &core)
	if err != nil {
		return PeriodicSetting{}, false, err
	}
	if !found {
		return set(one{}, "Obsidian's defaults (no .obsidian/daily-notes.json)")
	}
	return set(core, ".obsidian/daily-notes.json")
}

// pluginEnabled says whether community plugin id is on in
// .obsidian/community-plugins.json (a vault without the file: on, as the
// plugin's settings are there).
func (v *Vault) pluginEnabled(id string) bool {
	var ids []string
	found, err := v.obsidianJSON(".obsidian/community-plugins.json", "", &ids)
	if err != nil || !found {
		return true
	}
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// obsidianJSON reads one of Obsidian's settings files into out; found is
// false when the vault has none.
func (v *Vault) obsidianJSON(name, where string, out any) (found bool, err error) {
	b, err := v.root.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, out); err != nil {
		msg := fmt.Sprintf("%s is not valid JSON (%v)", name, err)
		if where != "" {
			msg += "; fix it in Obsidian (" + where + ")"
		}
		return true, &note.Error{Kind: note.ErrInvalid, Msg: msg}
	}
	return true, nil
}

// cleanSettingFolder reads a folder setting of the file from: "/" and ""
// are the root; a folder outside the vault or hidden is refused.
func cleanSettingFolder(f, from string) (string, error) {
	f = strings.Trim(strings.TrimSpace(f), "/")
	if f == "" {
		return "", nil
	}
	c, err := note.CleanPath(f)
	if err == nil && (hiddenPath(c) || c == ".") {
		err = errors.New("hidden")
	}
	if err != nil {
		return "", &note.Error{Kind: note.ErrInvalidPath, Msg: fmt.Sprintf("the folder %q set in %s is not a folder of the vault's notes (hidden folders and paths outside the vault are not); fix it in Obsidian's settings", f, from)}
	}
	return c, nil
}

// templatePath is a template setting as a note path: Obsidian stores it
// without ".md" ("9_System/Vorlagen/Tag").
func templatePath(t string) string {
	t = strings.Trim(t, "/")
	if !strings.HasSuffix(strings.ToLower(t), ".md") {
		t += ".md"
	}
	return t
}
