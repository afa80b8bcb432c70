package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/vaultd/vaultd/keys"
)

// A key's own rate limits on the Connections view: writes and deletes a
// minute, empty for the server's (vaultd serve --writes-per-minute,
// --deletes-per-minute). They are stored with the key (keys.Limits) and
// the HTTP server applies them from the key's next request on.

// formLimits reads the "writes" and "deletes" a minute fields: empty or 0
// is the server's limit.
func formLimits(r *http.Request) (keys.Limits, error) {
	var l keys.Limits
	for _, f := range []struct {
		field, name string
		dst         *int
	}{{"writes_per_minute", "writes per minute", &l.WritesPerMinute}, {"deletes_per_minute", "deletes per minute", &l.DeletesPerMinute}} {
		v := strings.TrimSpace(r.PostFormValue(f.field))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return keys.Limits{}, fmt.Errorf("%w: %s %q is not a number; give a whole number, or leave it empty for the server's limit", keys.ErrInvalidLimits, f.name, v)
		}
		*f.dst = n
	}
	if err := l.Check(); err != nil {
		return keys.Limits{}, err
	}
	return l, nil
}

// setLimits changes a key's own rate limits.
func (s *Server) setLimits(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	lim, err := formLimits(r)
	var k keys.Key
	if err == nil {
		k, err = s.o.Keys.SetLimits(r.PostFormValue("name"), lim)
	}
	if err != nil {
		s.setFlash(r, keyRefused(l, r.PostFormValue("name"), err))
		http.Redirect(w, r, s.here(r, "/connections"), http.StatusSeeOther)
		return
	}
	s.o.Logger.Info("access key's rate limits changed on the owner's page", "name", k.Name, "limits", k.Limits.String())
	s.setFlash(r, flash{OK: true, Title: l.T("conn.limits_set", k.Name, s.limitsText(l, k.Limits))})
	http.Redirect(w, r, s.here(r, "/connections"), http.StatusSeeOther)
}

// limitsText says a key's limits in the page's language.
func (s *Server) limitsText(l *lang, own keys.Limits) string {
	d := s.o.Limits.WithDefaults()
	part := func(n, def int, key string) string {
		if n == 0 {
			return l.T(key+"_default", def)
		}
		return l.T(key, n)
	}
	return part(own.WritesPerMinute, d.WritesPerMinute, "conn.writes_min") + ", " + part(own.DeletesPerMinute, d.DeletesPerMinute, "conn.deletes_min")
}
