package note

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// TemplateVars are what the variables of an Obsidian template stand for
// when a note is made from it.
type TemplateVars struct {
	// Title is the new note's name: its file name without ".md".
	Title string
	// Now is the moment the note is made, in the vault's time zone.
	Now time.Time
	// DateFormat and TimeFormat format {{date}} and {{time}} (the
	// Templates settings; "YYYY-MM-DD" and "HH:mm" when empty).
	DateFormat, TimeFormat string
	// Locale names months and weekdays (English when nil).
	Locale *MomentLocale
	// Day, for a daily or periodic note, is the day it is for, and
	// Format its file name's format: as Obsidian's daily notes do,
	// {{date}} and {{title}} are then the file name, {{time}} the current
	// time as HH:mm, {{date:FORMAT}} and {{time:FORMAT}} that day at the
	// current time of day (shifted with {{date+1d:FORMAT}}: y, q, M or m
	// months and minutes as moment spells them, w, d, h, s),
	// {{yesterday}} and {{tomorrow}} the days beside it.
	Day    time.Time
	Format string
	// Week, for a weekly note, also fills {{monday:FORMAT}} …
	// {{sunday:FORMAT}} with that weekday of the note's week (weeks of
	// Locale), as the Periodic Notes plugin does.
	Week bool
}

var (
	templateTitle = regexp.MustCompile(`(?i){{\s*title\s*}}`)
	// The Templates plugin: {{date}}, {{time}}, {{date:FORMAT}},
	// {{time:FORMAT}}.
	templateDateTime = regexp.MustCompile(`(?i){{\s*(date|time)\s*(?::(.*?))?}}`)
	// Daily notes: the same with a shift, and yesterday and tomorrow.
	periodicDateTime = regexp.MustCompile(`(?i){{\s*(date|time)\s*(([+-]\d+)([yqmwdhs]))?\s*(:.+?)?}}`)
	periodicDate     = regexp.MustCompile(`(?i){{\s*date\s*}}`)
	periodicTime     = regexp.MustCompile(`(?i){{\s*time\s*}}`)
	periodicNext     = regexp.MustCompile(`(?i){{\s*tomorrow\s*}}`)
	periodicPrev     = regexp.MustCompile(`(?i){{\s*yesterday\s*}}`)
	weekdayVar       = regexp.MustCompile(`(?i){{\s*(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s*:(.*?)}}`)
)

// FillTemplate replaces a template's variables as Obsidian does when it
// makes a note from it; every other byte stays as it is.
func FillTemplate(text string, v TemplateVars) string {
	if v.Format != "" {
		return fillPeriodic(text, v)
	}
	df, tf := v.DateFormat, v.TimeFormat
	if df == "" {
		df = "YYYY-MM-DD"
	}
	if tf == "" {
		tf = "HH:mm"
	}
	text = templateDateTime.ReplaceAllStringFunc(text, func(m string) string {
		g := templateDateTime.FindStringSubmatch(m)
		layout := strings.TrimSpace(g[2])
		if layout == "" {
			layout = df
			if strings.EqualFold(g[1], "time") {
				layout = tf
			}
		}
		return FormatMoment(v.Now, layout, v.Locale)
	})
	return templateTitle.ReplaceAllLiteralString(text, v.Title)
}

func fillPeriodic(text string, v TemplateVars) string {
	name := FormatMoment(v.Day, v.Format, v.Locale)
	// The day at the current time of day.
	at := time.Date(v.Day.Year(), v.Day.Month(), v.Day.Day(), v.Now.Hour(), v.Now.Minute(), v.Now.Second(), 0, v.Day.Location())
	text = periodicDate.ReplaceAllLiteralString(text, name)
	text = periodicTime.ReplaceAllLiteralString(text, FormatMoment(v.Now, "HH:mm", v.Locale))
	text = templateTitle.ReplaceAllLiteralString(text, name)
	text = periodicDateTime.ReplaceAllStringFunc(text, func(m string) string {
		g := periodicDateTime.FindStringSubmatch(m)
		t := at
		if g[2] != "" {
			n, _ := strconv.Atoi(g[3])
			t = addMoment(t, n, g[4])
		}
		if g[5] != "" {
			return FormatMoment(t, strings.TrimSpace(g[5][1:]), v.Locale)
		}
		return FormatMoment(t, v.Format, v.Locale)
	})
	if v.Week {
		loc := v.Locale
		if loc == nil {
			loc = MomentEnglish
		}
		days := []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
		text = weekdayVar.ReplaceAllStringFunc(text, func(m string) string {
			g := weekdayVar.FindStringSubmatch(m)
			want := 0
			for i, d := range days {
				if strings.EqualFold(d, g[1]) {
					want = i
				}
			}
			// moment's date.weekday(n): the day n of the locale's week.
			cur := (int(v.Day.Weekday()) + 7 - loc.dow) % 7
			idx := (want + 7 - loc.dow) % 7
			return FormatMoment(v.Day.AddDate(0, 0, idx-cur), strings.TrimSpace(g[2]), loc)
		})
	}
	text = periodicPrev.ReplaceAllLiteralString(text, FormatMoment(v.Day.AddDate(0, 0, -1), v.Format, v.Locale))
	return periodicNext.ReplaceAllLiteralString(text, FormatMoment(v.Day.AddDate(0, 0, 1), v.Format, v.Locale))
}

// addMoment is moment's add(n, unit) for the one-letter units: months
// keep the day where it exists and end on the month's last day where it
// does not (Jan 31 + 1M is Feb 28), as moment does.
func addMoment(t time.Time, n int, unit string) time.Time {
	months := func(k int) time.Time {
		first := time.Date(t.Year(), t.Month()+time.Month(k), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
		last := first.AddDate(0, 1, -1).Day()
		return first.AddDate(0, 0, min(t.Day(), last)-1)
	}
	switch unit {
	case "y":
		return months(12 * n)
	case "Y":
		return months(12 * n)
	case "q", "Q":
		return months(3 * n)
	case "M":
		return months(n)
	case "w", "W":
		return t.AddDate(0, 0, 7*n)
	case "d", "D":
		return t.AddDate(0, 0, n)
	case "h", "H":
		return t.Add(time.Duration(n) * time.Hour)
	case "m":
		return t.Add(time.Duration(n) * time.Minute)
	case "s", "S":
		return t.Add(time.Duration(n) * time.Second)
	}
	return t
}

// WithTemplate is a new note made of a filled template and the text the
// caller gave: the template's text, then the given text after a blank
// line. When both have properties the note has one frontmatter, as when
// Obsidian inserts a template into a note with properties: the given
// text's properties, then the template's properties it does not have,
// each with its own YAML lines.
func WithTemplate(tmpl, content []byte) ([]byte, error) {
	t, c := Parse(tmpl), Parse(content)
	if len(bytes.TrimSpace(content)) == 0 {
		return tmpl, nil
	}
	eol := "\n"
	if t.CRLF {
		eol = "\r\n"
	}
	join := func(a, b []byte) []byte {
		a = bytes.TrimRight(a, "\r\n")
		b = bytes.TrimLeft(b, "\r\n")
		if len(a) == 0 {
			return b
		}
		out := append(append([]byte{}, a...), eol+eol...)
		return append(out, b...)
	}
	if !c.HasFrontmatter || !t.HasFrontmatter {
		if c.HasFrontmatter {
			// The given properties go first, above the template's text.
			fm := content[:c.BodyStart]
			return append(append([]byte{}, fm...), join(tmpl, content[c.BodyStart:])...), nil
		}
		return join(tmpl, content), nil
	}
	if t.FrontmatterErr != nil {
		return nil, &Error{Kind: ErrInvalid, Msg: "the template's properties are not valid YAML: " + t.FrontmatterErr.Error()}
	}
	if c.FrontmatterErr != nil {
		return nil, &Error{Kind: ErrInvalid, Msg: "the properties in content are not valid YAML: " + c.FrontmatterErr.Error()}
	}
	have := map[string]bool{}
	for k := range c.Frontmatter {
		have[k] = true
	}
	var extra []byte
	for _, blk := range topLevelBlocks(t.FrontmatterRaw) {
		if !have[blk.key] {
			extra = append(extra, blk.lines...)
		}
	}
	fm := bytes.TrimRight(c.FrontmatterRaw, "\r\n")
	var b bytes.Buffer
	b.WriteString("---" + eol)
	if len(fm) > 0 {
		b.Write(fm)
		b.WriteString(eol)
	}
	b.Write(extra)
	if len(extra) > 0 && !bytes.HasSuffix(extra, []byte("\n")) {
		b.WriteString(eol)
	}
	b.WriteString("---" + eol)
	b.Write(join(tmpl[t.BodyStart:], content[c.BodyStart:]))
	out := b.Bytes()
	if d := Parse(out); d.FrontmatterErr != nil {
		return nil, &Error{Kind: ErrInvalid, Msg: "the template's properties and those in content do not make valid YAML together: " + d.FrontmatterErr.Error()}
	}
	return out, nil
}

type keyBlock struct {
	key   string
	lines []byte
}

// topLevelBlocks splits a frontmatter into its top-level keys, each with
// its lines (a key's line and the indented or list lines below it).
func topLevelBlocks(fm []byte) []keyBlock {
	var out []keyBlock
	for _, line := range bytes.SplitAfter(fm, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		trimmed := bytes.TrimRight(line, "\r\n")
		top := len(trimmed) > 0 && trimmed[0] != ' ' && trimmed[0] != '\t' && trimmed[0] != '-' && trimmed[0] != '#'
		if top {
			if k, _, ok := bytes.Cut(trimmed, []byte(":")); ok {
				key := strings.Trim(strings.TrimSpace(string(k)), `"'`)
				out = append(out, keyBlock{key: key, lines: append([]byte{}, line...)})
				continue
			}
		}
		if len(out) > 0 {
			out[len(out)-1].lines = append(out[len(out)-1].lines, line...)
		}
	}
	return out
}
