package tools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// DailyNoteArgs are the arguments of open_daily_note.
type DailyNoteArgs struct {
	Date          string `json:"date,omitempty" jsonschema:"today (default), yesterday, tomorrow, 2026-12-05, or days from today: -1, +2" help:"DATE: today (default), yesterday, tomorrow, 2026-12-05, or days from today: -1, +2"`
	Period        string `json:"period,omitempty" jsonschema:"day (default), week, month, quarter or year" help:"day (default), week, month, quarter or year: the periodic note holding the date"`
	ChangeSummary string `json:"change_summary,omitempty" jsonschema:"recorded if the note is created" help:"recorded in the history when the note is created (default: \"daily note for DATE\")"`
}

// DailyNoteData is open_daily_note's structured answer.
type DailyNoteData struct {
	Period   string `json:"period"`
	Date     string `json:"date"` // YYYY-MM-DD
	Created  bool   `json:"created"`
	Template string `json:"template,omitempty"`
	Setting  string `json:"setting_from"`
	ChangeID string `json:"change_id,omitempty"`
	// The note as read_note answers it (note, content, outline …).
	ReadNoteData
}

// OpenDailyNote opens the daily (or weekly, monthly …) note of a date as
// Obsidian's "Open today's daily note" does: it reads it, and when it
// does not exist yet makes it from the configured template first.
func (c *Core) OpenDailyNote(ctx context.Context, caller Caller, a DailyNoteArgs) *Result {
	const tool = "open_daily_note"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, args: []arg{{"date", a.Date}, {"period", a.Period}}}
	period, err := parsePeriod(a.Period)
	if err != nil {
		return c.fail(caller, f, err)
	}
	set, ok, err := c.v.PeriodicNotes(period)
	if err != nil {
		return c.fail(caller, f, err)
	}
	if !ok {
		return c.fail(caller, f, &note.Error{Op: "open " + string(period) + " note", Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("this vault has no %s notes: the Periodic Notes plugin (.obsidian/plugins/periodic-notes) does not enable them; daily notes: %s", periodAdj(period),
				call{tool, nonEmpty([]arg{{"date", a.Date}})}.render(caller.Door))})
	}
	now := c.now()
	day, err := parseDay(a.Date, now)
	if err != nil {
		return c.fail(caller, f, err)
	}
	loc := c.periodicLocale(set, now)
	name := note.FormatMoment(day, set.Format, loc)
	p := path.Join(set.Folder, name+".md")
	data := DailyNoteData{Period: string(period), Date: day.Format("2006-01-02"), Setting: set.From}
	var head strings.Builder
	what := fmt.Sprintf("%s note for %s", periodAdj(period), note.FormatMoment(day, "dddd, YYYY-MM-DD", loc))
	if c.v.Exists(p) {
		fmt.Fprintf(&head, "the %s: %s (it exists; named by %s)\n", what, p, set.From)
	} else {
		content, tplNote := c.fillPeriodic(set, day, now, loc)
		summary := a.ChangeSummary
		if strings.TrimSpace(summary) == "" {
			summary = fmt.Sprintf("%s note for %s", periodAdj(period), data.Date)
		}
		o := c.opts(caller, summary, "")
		o.Placed = true
		res, err := c.v.Create(p, []byte(content), o)
		switch {
		case errors.Is(err, vault.ErrExists):
			// Made meanwhile (Obsidian opened the day too): it is read,
			// never overwritten.
			fmt.Fprintf(&head, "the %s: %s (made meanwhile by another program; named by %s)\n", what, p, set.From)
		case err != nil:
			return changedBy(c.fail(caller, failure{tool: tool, path: p, args: f.args}, err), res)
		default:
			data.Created, data.ChangeID = true, res.ChangeID
			fmt.Fprintf(&head, "created the %s: %s (recorded in history as change %s: %s)\n", what, p, res.ChangeID, summary)
			switch {
			case set.Template == "":
				head.WriteString("template: none set (" + set.From + "), so it starts empty, as in Obsidian\n")
			case tplNote == "":
				fmt.Fprintf(&head, "template: %s (from %s) does not exist, so it starts empty, as in Obsidian\n", set.Template, set.From)
			default:
				data.Template = tplNote
				fmt.Fprintf(&head, "template: %s (from %s), its variables filled\n", tplNote, set.From)
			}
		}
	}
	r := c.ReadNote(ctx, caller, ReadNoteArgs{Path: p})
	if r.IsError() {
		r.Text = head.String() + r.Text
		r.Changed = data.Created
		return r
	}
	if d, ok := r.Data.(ReadNoteData); ok {
		data.ReadNoteData = d
	}
	return &Result{Text: head.String() + r.Text, Data: data, Changed: data.Created}
}

// fillPeriodic is the text of a new periodic note: its template with the
// variables filled, or "" without one. tpl is the template's path when it
// was read.
func (c *Core) fillPeriodic(set vault.PeriodicSetting, day, now time.Time, loc *note.MomentLocale) (text, tpl string) {
	if set.Template == "" {
		return "", ""
	}
	n, err := c.v.Read(set.Template)
	if err != nil {
		return "", ""
	}
	vars := note.TemplateVars{Now: now, Locale: loc, Day: day, Format: set.Format, Week: set.Period == vault.Week}
	return note.FillTemplate(string(n.Doc.Src), vars), n.Path
}

// periodicLocale is the moment.js locale the vault's periodic notes are
// named in. Obsidian names them in the language of its interface, which
// the vault does not record: where the format holds names of months or
// weekdays, the locale whose names the notes of the last weeks carry
// wins (English when none do).
func (c *Core) periodicLocale(set vault.PeriodicSetting, now time.Time) *note.MomentLocale {
	if !localeDependent(set.Format) {
		return note.MomentEnglish
	}
	best, bestN := note.MomentEnglish, 0
	for _, loc := range []*note.MomentLocale{note.MomentEnglish, note.MomentGerman} {
		n := 0
		for d := range 28 {
			day := now.AddDate(0, 0, -d)
			if c.v.Exists(path.Join(set.Folder, note.FormatMoment(day, set.Format, loc)+".md")) {
				n++
			}
		}
		if n > bestN {
			best, bestN = loc, n
		}
	}
	return best
}

// localeDependent says whether a moment format writes words or weeks of
// a locale (month and weekday names, ordinals, locale weeks, L formats).
var localeTokens = regexp.MustCompile(`\[[^\]]*\]|MMM|ddd?d?|Do|DDDo|Mo|Qo|wo?|ww|gg|e|L|l`)

func localeDependent(format string) bool {
	for _, m := range localeTokens.FindAllString(format, -1) {
		if !strings.HasPrefix(m, "[") {
			return true
		}
	}
	return false
}

func parsePeriod(s string) (vault.Period, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "day", "daily", "tag", "täglich":
		return vault.Day, nil
	case "week", "weekly", "woche":
		return vault.Week, nil
	case "month", "monthly", "monat":
		return vault.Month, nil
	case "quarter", "quarterly", "quartal":
		return vault.Quarter, nil
	case "year", "yearly", "jahr":
		return vault.Year, nil
	}
	return "", &note.Error{Op: "open periodic note", Kind: note.ErrInvalid,
		Msg: fmt.Sprintf("period %q is not one of day, week, month, quarter, year", s)}
}

var relativeDays = regexp.MustCompile(`^([+-])\s*(\d{1,4})\s*(d|days?|tage?n?)?$`)

// parseDay reads a date argument relative to now (in now's zone).
func parseDay(s string, now time.Time) (time.Time, error) {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "today", "heute":
		return today, nil
	case "yesterday", "gestern":
		return today.AddDate(0, 0, -1), nil
	case "tomorrow", "morgen":
		return today.AddDate(0, 0, 1), nil
	}
	if m := relativeDays.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[2])
		if m[1] == "-" {
			n = -n
		}
		return today.AddDate(0, 0, n), nil
	}
	for _, layout := range []string{"2006-01-02", "02.01.2006", "2.1.2006"} {
		if t, err := time.ParseInLocation(layout, s, now.Location()); err == nil {
			return t, nil
		}
	}
	return time.Time{}, &note.Error{Op: "open daily note", Kind: note.ErrInvalid,
		Msg: fmt.Sprintf("date %q is not a date vaultd reads: give today, yesterday, tomorrow, a date as %s, or days from today as -1 or +2", s, today.Format("2006-01-02"))}
}

func periodAdj(p vault.Period) string {
	return map[vault.Period]string{vault.Day: "daily", vault.Week: "weekly", vault.Month: "monthly", vault.Quarter: "quarterly", vault.Year: "yearly"}[p]
}

// fromTemplate is the text of a note create_note makes from a template:
// the template named in a (a note of the templates folder by name, or a
// note by path) with Obsidian's Templates variables filled, and a's
// content below it. from is the template's path.
func (c *Core) fromTemplate(caller Caller, f failure, a CreateNoteArgs) (text []byte, from string, r *Result) {
	ts, err := c.v.Templates()
	if err != nil {
		return nil, "", c.fail(caller, f, err)
	}
	tp, r := c.templateNote(caller, f, ts, a.Template)
	if r != nil {
		return nil, "", r
	}
	n, err := c.v.Read(tp)
	if err != nil {
		return nil, "", c.fail(caller, f, err)
	}
	now := c.now()
	day, _, _ := c.v.PeriodicNotes(vault.Day)
	title := strings.TrimSuffix(path.Base(a.Path), path.Ext(a.Path))
	filled := note.FillTemplate(string(n.Doc.Src), note.TemplateVars{
		Title: title, Now: now, DateFormat: ts.DateFormat, TimeFormat: ts.TimeFormat,
		Locale: c.periodicLocale(day, now),
	})
	text, err = note.WithTemplate([]byte(filled), []byte(a.Content))
	if err != nil {
		return nil, "", c.fail(caller, f, &note.Error{Op: "create", Path: a.Path, Kind: note.ErrInvalid,
			Msg: err.Error() + "; give content without properties, or set them after with set_properties"})
	}
	return text, tp, nil
}

// templateNote finds the template name names: a note of the templates
// folder by its name (any case, with or without ".md"), else a note by
// path. Not found, the answer lists the templates there are.
func (c *Core) templateNote(caller Caller, f failure, ts vault.TemplateSettings, name string) (string, *Result) {
	name = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(name), "[["), "]]"))
	if strings.HasPrefix(name, ".") || strings.Contains(name, "/.") {
		return "", c.fail(caller, f, &note.Error{Op: "create", Path: f.path, Kind: note.ErrInvalidPath,
			Msg: fmt.Sprintf("template %q is in a hidden folder (.obsidian, .trash, .git), which vaultd never reads for agents; templates are notes of the vault", name)})
	}
	var list []string
	if ts.Folder != "" {
		_ = c.v.WalkDir(ts.Folder, func(e vault.Entry) error {
			if e.Note {
				list = append(list, e.Path)
			}
			return nil
		})
	}
	key := note.HeadingKey(strings.TrimSuffix(name, ".md"))
	for _, p := range list {
		if note.HeadingKey(strings.TrimSuffix(path.Base(p), ".md")) == key || note.HeadingKey(strings.TrimSuffix(p, ".md")) == key {
			return p, nil
		}
	}
	p := name
	if !strings.HasSuffix(strings.ToLower(p), ".md") {
		p += ".md"
	}
	if vault.IsNote(p) && c.v.Exists(p) {
		return p, nil
	}
	var b strings.Builder
	if ts.Folder == "" {
		b.WriteString("no template folder is set in Obsidian (Settings → Templates → Template folder location, .obsidian/templates.json), and no note " + name + " exists; give the template's path")
	} else if len(list) == 0 {
		b.WriteString("the templates folder " + ts.Folder + " holds no notes, and no note " + name + " exists")
	} else {
		b.WriteString(fmt.Sprintf("no template %q in %s; templates there: ", name, ts.Folder))
		for i, p := range list {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strings.TrimSuffix(path.Base(p), ".md"))
		}
	}
	e := &note.Error{Op: "create", Path: f.path, Kind: note.ErrNotFound, Msg: b.String()}
	r := c.fail(caller, f, e)
	if len(list) > 0 {
		var args []arg
		for _, x := range f.args {
			if x.name == "template" {
				x.value = strings.TrimSuffix(path.Base(list[0]), ".md")
			}
			args = append(args, x)
		}
		r.Text += "\nnext: " + call{"create_note", nonEmpty(args)}.render(caller.Door)
	}
	return "", r
}

// nonEmpty drops the arguments with no value from a suggested call.
func nonEmpty(args []arg) []arg {
	var out []arg
	for _, a := range args {
		if s, ok := a.value.(string); ok && s == "" {
			continue
		}
		out = append(out, a)
	}
	return out
}
