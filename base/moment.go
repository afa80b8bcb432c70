package base

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// momentTokens are the moment.js format tokens FormatMoment knows, longest
// first so that "YYYY" wins over "YY".
var momentTokens = []string{
	"YYYY", "YY", "Q",
	"MMMM", "MMM", "MM", "Mo", "M",
	"DDDD", "DDD", "Do", "DD", "D",
	"dddd", "ddd", "dd", "do", "d",
	"E", "e",
	"WW", "W", "ww", "w", "GGGG", "gggg",
	"HH", "H", "hh", "h", "kk", "k",
	"mm", "m", "ss", "s",
	"SSS", "SS", "S",
	"A", "a",
	"ZZ", "Z",
	"X", "x",
}

// FormatMoment formats t with a moment.js format string (English names):
// YYYY-MM-DD, DD.MM.YYYY, dddd, MMMM Do, HH:mm, [literal text] and the
// other tokens above.
func FormatMoment(t time.Time, f string) string {
	var b strings.Builder
	for i := 0; i < len(f); {
		if f[i] == '[' {
			if j := strings.IndexByte(f[i:], ']'); j > 0 {
				b.WriteString(f[i+1 : i+j])
				i += j + 1
				continue
			}
		}
		matched := false
		for _, tok := range momentTokens {
			if strings.HasPrefix(f[i:], tok) {
				b.WriteString(momentToken(t, tok))
				i += len(tok)
				matched = true
				break
			}
		}
		if !matched {
			b.WriteByte(f[i])
			i++
		}
	}
	return b.String()
}

func ordinal(n int) string {
	suf := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suf = "st"
		case 2:
			suf = "nd"
		case 3:
			suf = "rd"
		}
	}
	return strconv.Itoa(n) + suf
}

func momentToken(t time.Time, tok string) string {
	pad := func(n, w int) string { return fmt.Sprintf("%0*d", w, n) }
	isoY, isoW := t.ISOWeek()
	h12 := t.Hour() % 12
	if h12 == 0 {
		h12 = 12
	}
	switch tok {
	case "YYYY":
		return pad(t.Year(), 4)
	case "YY":
		return pad(t.Year()%100, 2)
	case "Q":
		return strconv.Itoa((int(t.Month())-1)/3 + 1)
	case "MMMM":
		return t.Month().String()
	case "MMM":
		return t.Month().String()[:3]
	case "MM":
		return pad(int(t.Month()), 2)
	case "Mo":
		return ordinal(int(t.Month()))
	case "M":
		return strconv.Itoa(int(t.Month()))
	case "DDDD":
		return pad(t.YearDay(), 3)
	case "DDD":
		return strconv.Itoa(t.YearDay())
	case "Do":
		return ordinal(t.Day())
	case "DD":
		return pad(t.Day(), 2)
	case "D":
		return strconv.Itoa(t.Day())
	case "dddd":
		return t.Weekday().String()
	case "ddd":
		return t.Weekday().String()[:3]
	case "dd":
		return t.Weekday().String()[:2]
	case "do":
		return ordinal(int(t.Weekday()))
	case "d", "e":
		return strconv.Itoa(int(t.Weekday()))
	case "E":
		wd := int(t.Weekday())
		if wd == 0 {
			wd = 7
		}
		return strconv.Itoa(wd)
	case "WW", "ww":
		return pad(isoW, 2)
	case "W", "w":
		return strconv.Itoa(isoW)
	case "GGGG", "gggg":
		return pad(isoY, 4)
	case "HH":
		return pad(t.Hour(), 2)
	case "H":
		return strconv.Itoa(t.Hour())
	case "hh":
		return pad(h12, 2)
	case "h":
		return strconv.Itoa(h12)
	case "kk":
		return pad(t.Hour()+1, 2)
	case "k":
		return strconv.Itoa(t.Hour() + 1)
	case "mm":
		return pad(t.Minute(), 2)
	case "m":
		return strconv.Itoa(t.Minute())
	case "ss":
		return pad(t.Second(), 2)
	case "s":
		return strconv.Itoa(t.Second())
	case "SSS":
		return pad(t.Nanosecond()/1e6, 3)
	case "SS":
		return pad(t.Nanosecond()/1e7, 2)
	case "S":
		return strconv.Itoa(t.Nanosecond() / 1e8)
	case "A":
		if t.Hour() < 12 {
			return "AM"
		}
		return "PM"
	case "a":
		if t.Hour() < 12 {
			return "am"
		}
		return "pm"
	case "ZZ":
		return t.Format("-0700")
	case "Z":
		return t.Format("-07:00")
	case "X":
		return strconv.FormatInt(t.Unix(), 10)
	case "x":
		return strconv.FormatInt(t.UnixMilli(), 10)
	}
	return tok
}

// relative renders t against now the way moment's fromNow does: "a few
// seconds ago", "5 minutes ago", "in 2 days", "a year ago".
func relative(t, now time.Time) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	sec := d.Seconds()
	var s string
	switch min, hrs, days := sec/60, sec/3600, sec/86400; {
	case sec < 45:
		s = "a few seconds"
	case sec < 90:
		s = "a minute"
	case min < 45:
		s = fmt.Sprintf("%d minutes", int(math.Round(min)))
	case min < 90:
		s = "an hour"
	case hrs < 22:
		s = fmt.Sprintf("%d hours", int(math.Round(hrs)))
	case hrs < 36:
		s = "a day"
	case days < 26:
		s = fmt.Sprintf("%d days", int(math.Round(days)))
	case days < 45:
		s = "a month"
	case days < 320:
		s = fmt.Sprintf("%d months", int(math.Round(days/30.4)))
	case days < 548:
		s = "a year"
	default:
		s = fmt.Sprintf("%d years", int(math.Round(days/365.25)))
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}
