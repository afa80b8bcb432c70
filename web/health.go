package web

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// The Rules and health view: the vault's rules as agents are given them,
// the calls they (and the rights and rate limits) refused lately, the
// search index's state, how large the vault is, and the last git sync
// round with what the team's .gitattributes do to notes.

// healthCore is what the view asks of the core beside Core. *tools.Core
// implements it.
type healthCore interface {
	RulesView() (tools.RulesView, error)
	InstructionsFor(tools.Perms) string
	Refusals() ([]tools.Refusal, int)
	IndexStatus() (tools.IndexState, bool, error)
}

var _ healthCore = (*tools.Core)(nil)

// refusalsShown bounds the refusals the view lists.
const refusalsShown = 50

// recentRefusals is how far back the Connections view counts a key's
// calls refused by its rate limit.
const recentRefusals = time.Hour

// refusalRow is one refused call on the view.
type refusalRow struct {
	tools.Refusal
	IsNote bool
}

// vaultSize is what the vault holds.
type vaultSize struct {
	Notes, Files         int
	NoteBytes, FileBytes int64
	NoteSize, FileSize   string
	Problem              string
}

// indexView is the index's state for the view.
type indexView struct {
	Status  tools.IndexState
	State   string // healthy, building, degraded, unhealthy, none
	Why     string // for none: why there is no index here
	Updated time.Time
	Meaning string
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	data := map[string]any{"Flash": s.takeFlash(r)}
	c := s.coreOf(r)
	hc, ok := c.(healthCore)
	if !ok {
		data["Error"] = l.T("health.unavailable")
		s.render(w, r, http.StatusOK, "health", data)
		return
	}
	// Rules, as agents get them.
	if rv, err := hc.RulesView(); err != nil {
		data["RulesError"] = err.Error()
	} else {
		data["Summary"], data["Problems"], data["RulesNotes"] = rv.Summary, rv.Problems, rv.Notes
	}
	data["Instructions"] = hc.InstructionsFor(tools.Perms{Read: true, Write: true})

	// Refusals, newest first.
	refs, total := hc.Refusals()
	rows := make([]refusalRow, 0, min(len(refs), refusalsShown))
	for _, f := range refs[:min(len(refs), refusalsShown)] {
		rows = append(rows, refusalRow{Refusal: f, IsNote: vault.IsNote(f.Path)})
	}
	data["Refusals"], data["RefusalsKept"], data["RefusalsTotal"] = rows, len(refs), total

	// The index.
	st, has, why := hc.IndexStatus()
	iv := indexView{Status: st}
	switch {
	case !has:
		iv.State = "none"
		if why != nil {
			iv.Why = why.Error()
		}
	case st.Unhealthy:
		iv.State = "unhealthy"
	case st.Merging:
		iv.State = "merging"
	case st.Building:
		iv.State = "building"
	case st.Problem != "":
		iv.State = "degraded"
	default:
		iv.State = "healthy"
	}
	iv.Updated = st.Updated
	if st.Meaning.On() {
		iv.Meaning = st.Meaning.Text()
	}
	data["Index"] = iv
	data["Size"] = vaultSizeOf(c, l)
	if last, ok := c.Vault().LastSync(); ok {
		data["Sync"] = syncView{When: last.Time, OK: last.OK(), Text: last.Text(), Attributes: last.Attributes}
	}
	s.render(w, r, http.StatusOK, "health", data)
}

// syncView is the last git sync round for the view: what it did, and what
// the team's .gitattributes do to notes.
type syncView struct {
	When       time.Time
	OK         bool
	Text       string
	Attributes []vault.AttrNotice
}

// vaultSizeOf walks c's vault (what agents can reach: no dot-folders).
func vaultSizeOf(c Core, l *lang) vaultSize {
	var vs vaultSize
	err := c.Vault().Walk(func(e vault.Entry) error {
		if e.Note {
			vs.Notes++
			vs.NoteBytes += e.Size
		} else {
			vs.Files++
			vs.FileBytes += e.Size
		}
		return nil
	})
	if err != nil {
		vs.Problem = err.Error()
	}
	vs.NoteSize, vs.FileSize = byteSize(l, vs.NoteBytes), byteSize(l, vs.FileBytes)
	return vs
}

// byteSize renders a size for people: "812 B", "4.2 KB", "17.0 MB"
// ("4,2 KB" in German).
func byteSize(l *lang, n int64) string {
	const k = 1024
	var s string
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		s = fmt.Sprintf("%.1f KB", float64(n)/k)
	case n < k*k*k:
		s = fmt.Sprintf("%.1f MB", float64(n)/(k*k))
	default:
		s = fmt.Sprintf("%.1f GB", float64(n)/(k*k*k))
	}
	if l.Code == "de" {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// rateRefusals counts, per actor, the calls refused by the rate limit
// within recentRefusals, in every vault.
func (s *Server) rateRefusals() map[string]int {
	cores := []Core{s.core}
	if s.multi() {
		cores = nil
		for _, n := range s.vaultNames() {
			if c := s.o.Vaults.Core(n); c != nil {
				cores = append(cores, c)
			}
		}
	}
	since := s.o.Now().Add(-recentRefusals)
	out := map[string]int{}
	for _, c := range cores {
		hc, ok := c.(healthCore)
		if !ok {
			continue
		}
		refs, _ := hc.Refusals()
		for _, f := range refs {
			if f.Kind == "rate_limit" && f.Time.After(since) {
				out[f.Actor]++
			}
		}
	}
	return out
}
