package note

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Dates as Obsidian writes them: the daily and periodic notes' file names
// and the Templates variables are moment.js formats ("YYYY-MM-DD",
// "gggg-[W]ww", "dddd, D. MMMM YYYY"), in the locale of Obsidian's
// language. FormatMoment follows moment 2.29's format() token for token,
// for its English and German locales.

// MomentLocale is the part of a moment.js locale that formatting reads.
type MomentLocale struct {
	Name                                 string
	Months, MonthsShort                  [12]string
	Weekdays, WeekdaysShort, WeekdaysMin [7]string // Sunday first
	LT, LTS, L, LL, LLL, LLLL            string
	ordinal                              func(n int, token string) string
	dow, doy                             int // first day of the week; with doy, which week is week 1
}

// MomentEnglish is moment's default locale "en".
var MomentEnglish = &MomentLocale{
	Name:          "en",
	Months:        [12]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	MonthsShort:   [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"},
	Weekdays:      [7]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"},
	WeekdaysShort: [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"},
	WeekdaysMin:   [7]string{"Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"},
	LT:            "h:mm A", LTS: "h:mm:ss A", L: "MM/DD/YYYY", LL: "MMMM D, YYYY",
	LLL: "MMMM D, YYYY h:mm A", LLLL: "dddd, MMMM D, YYYY h:mm A",
	ordinal: func(n int, _ string) string {
		s := "th"
		if n%100 < 11 || n%100 > 13 {
			switch n % 10 {
			case 1:
				s = "st"
			case 2:
				s = "nd"
			case 3:
				s = "rd"
			}
		}
		return strconv.Itoa(n) + s
	},
	dow: 0, doy: 6,
}

// MomentGerman is moment's locale "de".
var MomentGerman = &MomentLocale{
	Name:          "de",
	Months:        [12]string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
	MonthsShort:   [12]string{"Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sep.", "Okt.", "Nov.", "Dez."},
	Weekdays:      [7]string{"Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"},
	WeekdaysShort: [7]string{"So.", "Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa."},
	WeekdaysMin:   [7]string{"So", "Mo", "Di", "Mi", "Do", "Fr", "Sa"},
	LT:            "HH:mm", LTS: "HH:mm:ss", L: "DD.MM.YYYY", LL: "D. MMMM YYYY",
	LLL: "D. MMMM YYYY HH:mm", LLLL: "dddd, D. MMMM YYYY HH:mm",
	ordinal: func(n int, _ string) string { return strconv.Itoa(n) + "." },
	dow:     1, doy: 4,
}

// MomentLocales are the locales FormatMoment knows, by name.
var MomentLocales = map[string]*MomentLocale{"en": MomentEnglish, "de": MomentGerman}

// momentLong expands the localized tokens (LT, LTS, L … LLLL, l … llll)
// first, as moment does; momentToken then splits the format.
var (
	momentLong  = regexp.MustCompile(`(\[[^\[]*\])|(\\)?(LTS|LT|LL?L?L?|l{1,4})`)
	momentToken = regexp.MustCompile(`(\[[^\[]*\])|(\\)?([Hh]mm(ss)?|Mo|MM?M?M?|Do|DDDo|DD?D?D?|ddd?d?|do?|w[o|w]?|W[o|W]?|Qo?|N{1,5}|YYYYYY|YYYYY|YYYY|YY|y{2,4}|yo?|gg(ggg?)?|GG(GGG?)?|e|E|a|A|hh?|HH?|kk?|mm?|ss?|S{1,9}|x|X|zz?|ZZ?|.)`)
	momentShort = regexp.MustCompile(`(\[[^\]]*\])|(MMMM|MM|DD|dddd)`)
)

func (l *MomentLocale) long(tok string) (string, bool) {
	switch tok {
	case "LT":
		return l.LT, true
	case "LTS":
		return l.LTS, true
	case "L":
		return l.L, true
	case "LL":
		return l.LL, true
	case "LLL":
		return l.LLL, true
	case "LLLL":
		return l.LLLL, true
	case "l", "ll", "lll", "llll":
		// moment derives the short forms from the long ones: MMMM → MMM,
		// MM → M, DD → D, dddd → ddd.
		f, _ := l.long(strings.ToUpper(tok))
		return momentShort.ReplaceAllStringFunc(f, func(m string) string {
			if strings.HasPrefix(m, "[") {
				return m
			}
			return m[1:]
		}), true
	}
	return "", false
}

// FormatMoment formats t with the moment.js format layout in locale loc
// (English when nil), as moment(t).format(layout) does in t's zone:
// text in [brackets] and characters that are not tokens are written as
// they are.
func FormatMoment(t time.Time, layout string, loc *MomentLocale) string {
	if loc == nil {
		loc = MomentEnglish
	}
	// Localized formats may name others (LLL holds LT in some locales):
	// expanded up to five times, as moment does.
	for range 5 {
		expanded := momentLong.ReplaceAllStringFunc(layout, func(m string) string {
			if f, ok := loc.long(m); ok {
				return f
			}
			return m
		})
		if expanded == layout {
			break
		}
		layout = expanded
	}
	var b strings.Builder
	for _, m := range momentToken.FindAllString(layout, -1) {
		if s, ok := momentFormatToken(t, m, loc); ok {
			b.WriteString(s)
			continue
		}
		// Not a token: [text] without its brackets, anything else without
		// its backslashes (moment's removeFormattingTokens).
		if len(m) >= 2 && m[0] == '[' && m[len(m)-1] == ']' {
			b.WriteString(m[1 : len(m)-1])
		} else {
			b.WriteString(strings.ReplaceAll(m, `\`, ""))
		}
	}
	return b.String()
}

func pad(n, width int) string {
	s := strconv.Itoa(abs(n))
	for len(s) < width {
		s = "0" + s
	}
	if n < 0 {
		s = "-" + s
	}
	return s
}

// momentWeek is moment's weekOfYear: the week of t and its week-year
// when weeks start on dow and week 1 is the week holding January's
// (7+dow-doy)th day. ISO weeks are dow 1, doy 4.
func momentWeek(t time.Time, dow, doy int) (week, year int) {
	// moment's firstWeekOffset and weeksInYear, with floor division.
	offset := func(year int) int {
		fwd := 7 + dow - doy
		jan := time.Date(year, time.January, fwd, 0, 0, 0, 0, time.UTC)
		fwdlw := (7 + int(jan.Weekday()) - dow) % 7
		return -fwdlw + fwd - 1
	}
	weeksIn := func(year int) int {
		days := time.Date(year, time.December, 31, 0, 0, 0, 0, time.UTC).YearDay()
		return (days - offset(year) + offset(year+1)) / 7
	}
	y := t.Year()
	n := t.YearDay() - offset(y) - 1
	week = n/7 + 1
	if n < 0 && n%7 != 0 {
		week-- // floor
	}
	switch {
	case week < 1:
		return week + weeksIn(y-1), y - 1
	case week > weeksIn(y):
		return week - weeksIn(y), y + 1
	}
	return week, y
}

func momentFormatToken(t time.Time, tok string, l *MomentLocale) (string, bool) {
	wd := int(t.Weekday())
	h12 := func() int {
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		return h
	}
	switch tok {
	case "M":
		return strconv.Itoa(int(t.Month())), true
	case "Mo":
		return l.ordinal(int(t.Month()), "M"), true
	case "MM":
		return pad(int(t.Month()), 2), true
	case "MMM":
		return l.MonthsShort[t.Month()-1], true
	case "MMMM":
		return l.Months[t.Month()-1], true
	case "Q":
		return strconv.Itoa((int(t.Month())-1)/3 + 1), true
	case "Qo":
		return l.ordinal((int(t.Month())-1)/3+1, "Q"), true
	case "D":
		return strconv.Itoa(t.Day()), true
	case "Do":
		return l.ordinal(t.Day(), "D"), true
	case "DD":
		return pad(t.Day(), 2), true
	case "DDD":
		return strconv.Itoa(t.YearDay()), true
	case "DDDo":
		return l.ordinal(t.YearDay(), "DDD"), true
	case "DDDD":
		return pad(t.YearDay(), 3), true
	case "d":
		return strconv.Itoa(wd), true
	case "do":
		return l.ordinal(wd, "d"), true
	case "dd":
		return l.WeekdaysMin[wd], true
	case "ddd":
		return l.WeekdaysShort[wd], true
	case "dddd":
		return l.Weekdays[wd], true
	case "e":
		return strconv.Itoa((wd + 7 - l.dow) % 7), true
	case "E":
		if wd == 0 {
			return "7", true
		}
		return strconv.Itoa(wd), true
	case "w", "wo", "ww":
		w, _ := momentWeek(t, l.dow, l.doy)
		return numberForm(tok, w, l, "w"), true
	case "W", "Wo", "WW":
		w, _ := momentWeek(t, 1, 4)
		return numberForm(tok, w, l, "W"), true
	case "gg", "gggg", "ggggg":
		_, y := momentWeek(t, l.dow, l.doy)
		return yearForm(tok, y), true
	case "GG", "GGGG", "GGGGG":
		_, y := momentWeek(t, 1, 4)
		return yearForm(tok, y), true
	case "YY":
		return pad(t.Year()%100, 2), true
	case "YYYY":
		if t.Year() <= 9999 {
			return pad(t.Year(), 4), true
		}
		return "+" + strconv.Itoa(t.Year()), true
	case "YYYYY":
		return pad(t.Year(), 5), true
	case "YYYYYY":
		if t.Year() < 0 {
			return pad(t.Year(), 6), true
		}
		return "+" + pad(t.Year(), 6), true
	case "Y":
		if t.Year() <= 9999 {
			return strconv.Itoa(t.Year()), true
		}
		return "+" + strconv.Itoa(t.Year()), true
	case "y", "yyyy":
		return strconv.Itoa(t.Year()), true
	case "yy":
		return pad(t.Year()%100, 2), true
	case "yyy":
		return pad(t.Year(), 3), true
	case "yo":
		return l.ordinal(t.Year(), "y"), true
	case "N", "NN", "NNN":
		return "AD", true
	case "NNNN":
		return "Anno Domini", true
	case "NNNNN":
		return "AD", true
	case "a":
		if t.Hour() >= 12 {
			return "pm", true
		}
		return "am", true
	case "A":
		if t.Hour() >= 12 {
			return "PM", true
		}
		return "AM", true
	case "H":
		return strconv.Itoa(t.Hour()), true
	case "HH":
		return pad(t.Hour(), 2), true
	case "h":
		return strconv.Itoa(h12()), true
	case "hh":
		return pad(h12(), 2), true
	case "k":
		return strconv.Itoa(kHour(t)), true
	case "kk":
		return pad(kHour(t), 2), true
	case "hmm":
		return strconv.Itoa(h12()) + pad(t.Minute(), 2), true
	case "hmmss":
		return strconv.Itoa(h12()) + pad(t.Minute(), 2) + pad(t.Second(), 2), true
	case "Hmm":
		return strconv.Itoa(t.Hour()) + pad(t.Minute(), 2), true
	case "Hmmss":
		return strconv.Itoa(t.Hour()) + pad(t.Minute(), 2) + pad(t.Second(), 2), true
	case "m":
		return strconv.Itoa(t.Minute()), true
	case "mm":
		return pad(t.Minute(), 2), true
	case "s":
		return strconv.Itoa(t.Second()), true
	case "ss":
		return pad(t.Second(), 2), true
	case "X":
		return strconv.FormatInt(t.Unix(), 10), true
	case "x":
		return strconv.FormatInt(t.UnixMilli(), 10), true
	case "Z", "ZZ":
		_, off := t.Zone()
		sign := "+"
		if off < 0 {
			sign, off = "-", -off
		}
		sep := ":"
		if tok == "ZZ" {
			sep = ""
		}
		return sign + pad(off/3600, 2) + sep + pad(off%3600/60, 2), true
	case "z", "zz":
		// Deprecated in moment and empty without moment-timezone.
		return "", true
	}
	if tok[0] == 'S' && strings.Trim(tok, "S") == "" {
		// Fractions of a second, cut (not rounded) to len(tok) digits.
		ms := fmt.Sprintf("%09d", t.Nanosecond())
		if len(tok) <= 3 {
			return ms[:len(tok)], true
		}
		// moment keeps milliseconds only; the rest are zeros.
		return ms[:3] + strings.Repeat("0", len(tok)-3), true
	}
	return "", false
}

func kHour(t time.Time) int {
	if t.Hour() == 0 {
		return 24
	}
	return t.Hour()
}

func numberForm(tok string, n int, l *MomentLocale, base string) string {
	switch len(tok) {
	case 1:
		return strconv.Itoa(n)
	}
	if tok[1] == 'o' {
		return l.ordinal(n, base)
	}
	return pad(n, 2)
}

func yearForm(tok string, y int) string {
	switch len(tok) {
	case 2:
		return pad(y%100, 2)
	case 4:
		return pad(y, 4)
	}
	return pad(y, 5)
}
