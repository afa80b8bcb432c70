package web

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// The Activity filter: one search box (a note, by path or title), who
// (the connections by name) and since when (a few periods); space, folder
// and until folded away under "More filters".

// option is one choice of a select.
type option struct {
	Value, Label string
	Selected     bool
}

// periods are the "since" choices: ParseWhen's durations.
var periods = []string{"", "1h", "24h", "7d", "30d", "365d"}

// filterOptions fills the choices of the filter form: who (the owner, the
// CLI, outside vaultd, every key and signed-in connection, and whoever the
// listed changes name) and since when.
func (s *Server) filterOptions(r *http.Request, a tools.RecentChangesArgs, rows []row, data map[string]any) {
	l := langFor(r)
	actors := []string{Actor, "cli", vault.OutsideActor}
	if ks, err := s.o.Keys.List(); err == nil {
		for _, k := range ks {
			actors = append(actors, "key:"+k.Name)
		}
	}
	if gs, err := s.grantRows(l); err == nil {
		for _, g := range gs {
			actors = append(actors, "oauth:"+g.Name)
		}
	}
	for _, rw := range rows {
		if !rw.External {
			actors = append(actors, rw.Actor)
		}
	}
	if a.Actor != "" {
		actors = append(actors, a.Actor)
	}
	var opts []option
	seen := map[string]bool{}
	for _, act := range actors {
		if act == "" || seen[act] {
			continue
		}
		seen[act] = true
		opts = append(opts, option{Value: act, Label: l.WhoText(act), Selected: act == a.Actor})
	}
	data["Actors"] = opts

	since := strings.TrimSpace(a.Since)
	var ps []option
	for _, p := range periods {
		key := "period." + p
		if p == "" {
			key = "period.any"
		}
		ps = append(ps, option{Value: p, Label: l.T(key), Selected: p == since})
	}
	if since != "" && !slices.Contains(periods, since) {
		label := since
		if t, err := time.Parse("2006-01-02", since); err == nil {
			label = l.Date(t)
		}
		ps = append(ps, option{Value: since, Label: l.T("period.since", label), Selected: true})
	}
	data["Periods"] = ps
	data["MoreOpen"] = a.Space != "" || a.Folder != "" || a.Until != ""
}
