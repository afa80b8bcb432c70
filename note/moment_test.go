package note

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

// testdata/moment.golden is moment 2.30.1's own output (node, locales en
// and de: moment.parseZone(date).locale(loc).format(format)) for every
// token and the formats vaults use for daily and periodic notes, on the
// days around every year's turn from 2016 to 2028 (where week numbers and
// week-years change) and a spread through each year, at times and zones
// that put the hour, the fractions and the offset to the test.
func TestFormatMoment_AsMoment(t *testing.T) {
	f, err := os.Open("testdata/moment.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, bad := 0, 0
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 4)
		if len(parts) != 4 {
			t.Fatalf("bad line %q", sc.Text())
		}
		loc, when, layout, want := MomentLocales[parts[0]], parts[1], parts[2], parts[3]
		at, err := time.Parse("2006-01-02T15:04:05.000-07:00", when)
		if err != nil {
			t.Fatal(err)
		}
		n++
		if got := FormatMoment(at, layout, loc); got != want {
			bad++
			if bad <= 20 {
				t.Errorf("%s %s %q: got %q, moment %q", parts[0], when, layout, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d formats differ from moment", bad, n)
	}
	if n < 9000 {
		t.Fatalf("only %d cases read", n)
	}
}
