package note

import (
	"testing"
	"time"
)

func TestFillTemplate_CoreVariables(t *testing.T) {
	now := time.Date(2026, 12, 5, 9, 7, 3, 0, time.FixedZone("CET", 3600))
	tmpl := "---\ncreated: {{date}}\n---\n# {{title}}\n\n{{ Date }} {{TIME}} {{date:dddd, D. MMMM YYYY}} {{time:HH:mm:ss}} {{date:[KW] WW}} {{ time : h A }} {{unknown}} {{date:}}\n"
	got := FillTemplate(tmpl, TemplateVars{Title: "Gartenteich", Now: now})
	want := "---\ncreated: 2026-12-05\n---\n# Gartenteich\n\n2026-12-05 09:07 Saturday, 5. December 2026 09:07:03 KW 49 9 AM {{unknown}} 2026-12-05\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	// The Templates settings' formats, and German names.
	got = FillTemplate("{{date}} {{time}} {{date:dddd}}", TemplateVars{Now: now, DateFormat: "DD.MM.YYYY", TimeFormat: "H [Uhr]", Locale: MomentGerman})
	if want := "05.12.2026 9 Uhr Samstag"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFillTemplate_Periodic(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	now := time.Date(2026, 12, 5, 23, 59, 0, 0, berlin)
	day := time.Date(2027, 1, 31, 0, 0, 0, 0, berlin)
	tmpl := "{{date}}|{{title}}|{{time}}|{{date:YYYY-MM-DD HH:mm}}|{{date+1M:YYYY-MM-DD}}|{{date-1w:YYYY-MM-DD}}|{{date+2d}}|{{time+1h:HH:mm}}|{{yesterday}}|{{tomorrow}}|{{date+1y:YYYY}}|{{date-1q:YYYY-MM-DD}}|{{monday:YYYY-MM-DD}}"
	got := FillTemplate(tmpl, TemplateVars{Now: now, Day: day, Format: "YYYY-MM-DD"})
	// moment: Jan 31 + 1 month is Feb 28; a shift by hours crosses the day.
	want := "2027-01-31|2027-01-31|23:59|2027-01-31 23:59|2027-02-28|2027-01-24|2027-02-02|00:59|2027-01-30|2027-02-01|2028|2026-10-31|{{monday:YYYY-MM-DD}}"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A weekly note's weekdays, in the locale's weeks: en weeks start on
	// Sunday, de weeks on Monday.
	wed := time.Date(2026, 12, 2, 0, 0, 0, 0, berlin)
	w := "{{sunday:YYYY-MM-DD}} {{monday:YYYY-MM-DD}} {{saturday:ddd D}}"
	if got, want := FillTemplate(w, TemplateVars{Now: now, Day: wed, Format: "gggg-[W]ww", Week: true}), "2026-11-29 2026-11-30 Sat 5"; got != want {
		t.Errorf("en week: got %q, want %q", got, want)
	}
	if got, want := FillTemplate(w, TemplateVars{Now: now, Day: wed, Format: "gggg-[W]ww", Week: true, Locale: MomentGerman}), "2026-12-06 2026-11-30 Sa. 5"; got != want {
		t.Errorf("de week: got %q, want %q", got, want)
	}
}

func TestWithTemplate(t *testing.T) {
	tmpl := "---\ntags: [projekt]\nstatus: geplant\naliases:\n  - X\n---\n## Ziele\n\n- \n"
	for _, c := range []struct{ name, content, want string }{
		{"empty", "", tmpl},
		{"text", "Erster Gedanke.\n", "---\ntags: [projekt]\nstatus: geplant\naliases:\n  - X\n---\n## Ziele\n\n- \n\nErster Gedanke.\n"},
		{"properties", "---\nstatus: aktiv\nkunde: privat\n---\nText.\n", "---\nstatus: aktiv\nkunde: privat\ntags: [projekt]\naliases:\n  - X\n---\n## Ziele\n\n- \n\nText.\n"},
	} {
		got, err := WithTemplate([]byte(tmpl), []byte(c.content))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%s: got\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
	// Properties in content, none in the template: they stay on top.
	got, _ := WithTemplate([]byte("## Ziele\n"), []byte("---\ntags: [a]\n---\nText.\n"))
	if want := "---\ntags: [a]\n---\n## Ziele\n\nText.\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
