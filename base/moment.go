package base

import (
	"fmt"
	"math"
	"time"

	"github.com/vaultd/vaultd/note"
)

// FormatMoment formats t with a moment.js format string as moment's
// default English locale writes it (YYYY-MM-DD, DD.MM.YYYY, dddd, MMMM Do,
// HH:mm, [literal text] …): Obsidian's date format() and the daily notes
// share note.FormatMoment, checked against moment's own output.
func FormatMoment(t time.Time, f string) string {
	return note.FormatMoment(t, f, note.MomentEnglish)
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
