package base

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Values are plain Go values: nil (null), bool, float64, string, []any
// (list), map[string]any (object), Date, Duration, Link, *File and
// *Regexp. Frontmatter values come in as yaml.v3 decodes them and are
// turned into these by FromYAML.

// Date is a date, or a date and time.
type Date struct {
	T       time.Time
	HasTime bool
}

// Duration is a span: calendar months (years are 12) and milliseconds.
type Duration struct {
	Months int
	Ms     float64
}

// Link is a link to a file: the target as written, the path it resolves
// to ("" when it does not), and its display text.
type Link struct {
	Target  string
	Path    string
	Display string
}

// Regexp is a regular expression literal /…/flags.
type Regexp struct {
	Source string
	Global bool
	re     *regexp.Regexp
}

var (
	dateOnlyRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	dateTimeRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$`)
)

// FromYAML turns a decoded frontmatter value into a Value: numbers become
// float64, dates (YAML timestamps and strings written as dates, which is
// how Obsidian stores date properties) become Date, "[[links]]" become
// Link (resolved with resolve when it is not nil).
func FromYAML(v any, loc *time.Location, resolve func(target string) string) any {
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float64:
		return x
	case time.Time:
		has := x.Hour() != 0 || x.Minute() != 0 || x.Second() != 0 || x.Nanosecond() != 0
		return Date{T: x.In(loc), HasTime: has}
	case string:
		if d, ok := parseDate(x, loc); ok {
			return d
		}
		if t, ok := wikiTarget(x); ok {
			l := Link{Target: t}
			if i := strings.IndexByte(t, '|'); i >= 0 {
				l.Target, l.Display = strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+1:])
			}
			if resolve != nil {
				l.Path = resolve(l.Target)
			}
			return l
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = FromYAML(e, loc, resolve)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = FromYAML(e, loc, resolve)
		}
		return out
	}
	return fmt.Sprint(v)
}

// wikiTarget returns the inside of a value that is one [[wikilink]].
func wikiTarget(s string) (string, bool) {
	s = strings.TrimSpace(s)
	inner, ok := strings.CutPrefix(s, "[[")
	if !ok {
		return "", false
	}
	inner, ok = strings.CutSuffix(inner, "]]")
	if !ok || strings.Contains(inner, "[[") || strings.Contains(inner, "]]") || strings.TrimSpace(inner) == "" {
		return "", false
	}
	return strings.TrimSpace(inner), true
}

// parseDate reads "2026-11-29", "2026-11-29T14:30", "2026-11-29 14:30:00"
// and the same with a zone.
func parseDate(s string, loc *time.Location) (Date, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 10 || s[4] != '-' {
		return Date{}, false
	}
	if dateOnlyRe.MatchString(s) {
		t, err := time.ParseInLocation(time.DateOnly, s, loc)
		return Date{T: t}, err == nil
	}
	if !dateTimeRe.MatchString(s) {
		return Date{}, false
	}
	s2 := strings.Replace(s, " ", "T", 1)
	for _, f := range []string{"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05.999999999-0700", "2006-01-02T15:04:05-0700"} {
		if t, err := time.Parse(f, s2); err == nil {
			return Date{T: t.In(loc), HasTime: true}, true
		}
	}
	for _, f := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(f, s2, loc); err == nil {
			return Date{T: t, HasTime: true}, true
		}
	}
	return Date{}, false
}

// typeName is a value's type as isType() and messages name it.
func typeName(v any) string {
	if f, ok := v.(*File); ok && f == nil {
		return "null"
	}
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	case Date:
		return "date"
	case Duration:
		return "duration"
	case Link:
		return "link"
	case *File:
		return "file"
	case *Regexp:
		return "regexp"
	}
	return "value"
}

// truthy is JavaScript's truthiness, except that an empty list or object
// is false (as isEmpty() says): a filter on a list property with no items
// keeps nothing.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	case Duration:
		return x.Months != 0 || x.Ms != 0
	case *File:
		return x != nil
	}
	return true
}

// isEmpty: null, "", an empty list or object.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// Text renders a value as a cell shows it: numbers without a needless
// ".0", dates as YYYY-MM-DD (with HH:mm when they have a time), lists
// joined by ", ", links as [[target]], files by path, null as "".
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return numText(x)
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Text(e)
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + Text(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case Date:
		if x.HasTime {
			if x.T.Second() != 0 {
				return x.T.Format("2006-01-02 15:04:05")
			}
			return x.T.Format("2006-01-02 15:04")
		}
		return x.T.Format(time.DateOnly)
	case Duration:
		return durationText(x)
	case Link:
		if x.Display != "" {
			return "[[" + x.Target + "|" + x.Display + "]]"
		}
		return "[[" + x.Target + "]]"
	case *File:
		if x == nil {
			return "" // no file: `this` outside a base, a link to nothing
		}
		return x.Path
	case *Regexp:
		return "/" + x.Source + "/"
	}
	return fmt.Sprint(v)
}

// toString is toString(): Text, but a link's string is its target's text.
func toString(v any) string {
	if l, ok := v.(Link); ok {
		if l.Display != "" {
			return l.Display
		}
		return l.Target
	}
	return Text(v)
}

func numText(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == math.Trunc(x) && math.Abs(x) < 1e15:
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

func durationText(d Duration) string {
	var parts []string
	if d.Months != 0 {
		if d.Months%12 == 0 {
			parts = append(parts, plural(d.Months/12, "year"))
		} else {
			parts = append(parts, plural(d.Months, "month"))
		}
	}
	ms := d.Ms
	units := []struct {
		n    float64
		name string
	}{{86400000, "day"}, {3600000, "hour"}, {60000, "minute"}, {1000, "second"}}
	for _, u := range units {
		if math.Abs(ms) >= u.n {
			k := math.Trunc(ms / u.n)
			parts = append(parts, plural(int(k), u.name))
			ms -= k * u.n
		}
	}
	if ms != 0 || len(parts) == 0 {
		parts = append(parts, numText(ms)+" ms")
	}
	return strings.Join(parts, " ")
}

func plural(n int, unit string) string {
	if n == 1 || n == -1 {
		return fmt.Sprintf("%d %s", n, unit)
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// Plain turns a value into what JSON carries: strings, numbers, true or
// false, lists and objects; dates, links and files as their text.
func Plain(v any) any {
	switch x := v.(type) {
	case nil, bool, string:
		return x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return numText(x)
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Plain(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Plain(e)
		}
		return out
	}
	return Text(v)
}
