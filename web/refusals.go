package web

import (
	"errors"
	"net/url"
	"strings"

	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// Refusals in the owner's words: the core's errors are written for agents
// and the CLI, in English, with change ids and commands. The page says
// what happened in the browser's language and offers the way forward as
// buttons and links; the core's own text is kept as a detail on the
// English page only.

// link is a way forward that is a plain link.
type link struct {
	Href, Label string
}

// sinceChange is one change made after the one the owner wanted undone,
// as the core lists it ("ID 2026-12-05 08:07 by ACTOR: OP PATH — SUMMARY").
type sinceChange struct {
	ID, Actor, Op, Path, Summary string
}

// parseSince reads one line of an undo conflict's Alternatives.
func parseSince(s string) (sinceChange, bool) {
	id, rest, ok := strings.Cut(s, " ")
	if !ok {
		return sinceChange{}, false
	}
	_, rest, ok = strings.Cut(rest, " by ")
	if !ok {
		return sinceChange{}, false
	}
	actor, rest, ok := strings.Cut(rest, ": ")
	if !ok {
		return sinceChange{}, false
	}
	op, rest, _ := strings.Cut(rest, " ")
	p, sum, _ := strings.Cut(rest, " — ")
	return sinceChange{ID: id, Actor: actor, Op: op, Path: p, Summary: sum}, true
}

// detailFor is the core's own answer, kept for the English page (it is in
// English); other languages do without it.
func detailFor(l *lang, text string) string {
	if l.Code != "en" {
		return ""
	}
	return text
}

// undoRefused explains a refused undo and offers the way forward: the
// newer change to undo first, the note's history, the trash.
func undoRefused(l *lang, back string, res *tools.Result) flash {
	f := flash{Title: l.T("undo.refused"), Detail: detailFor(l, res.Text)}
	ve, ok := note.AsError(res.Err)
	if !ok {
		f.Text = l.T("undo.failed")
		return f
	}
	history := func() {
		if ve.Path != "" {
			f.Links = append(f.Links, link{"/note?path=" + url.QueryEscape(ve.Path), l.T("refusal.history")})
		}
	}
	msg := ve.Msg
	switch {
	case ve.AltKind == "changes" && errors.Is(res.Err, note.ErrConflict) && len(ve.Alternatives) > 0:
		f.Text = l.T("undo.newer", len(ve.Alternatives))
		if c, ok := parseSince(ve.Alternatives[0]); ok {
			a := action{Path: "/undo", Label: l.T("undo.newer_button", l.Op(c.Op), l.WhoText(c.Actor)), Fields: map[string]string{"change": c.ID, "back": back}}
			// The newer change's summary: in words when vaultd wrote it,
			// else as its author wrote it (quoted, not translated).
			if sum, ours := l.Summary(c.Summary); ours {
				a.Label = l.T("undo.newer_button_summary", l.Op(c.Op), l.WhoText(c.Actor), sum)
			} else {
				a.Quote = theirsOf(c.Summary)
			}
			f.Also = append(f.Also, a)
		}
		history()
	case errors.Is(res.Err, note.ErrConflict):
		f.Text = l.T("undo.outside")
		history()
	case strings.Contains(msg, "no longer in the trash"):
		f.Text = l.T("undo.not_in_trash")
		f.Links = append(f.Links, link{"/trash", l.T("refusal.trash")})
	case strings.Contains(msg, "is no longer at"):
		f.Text = l.T("undo.gone")
		f.Links = append(f.Links, link{"/trash", l.T("refusal.trash")})
		history()
	case errors.Is(res.Err, note.ErrNotFound) && ve.Path == "":
		f.Text = l.T("undo.unknown")
		f.Links = append(f.Links, link{"/", l.T("refusal.reload")})
	case strings.Contains(msg, "no earlier text"):
		f.Text = l.T("undo.no_before")
		history()
	case strings.Contains(msg, "was not kept"):
		f.Text = l.T("undo.not_kept")
		history()
	case strings.Contains(msg, "cannot be undone"):
		f.Text = l.T("undo.not_undoable")
	case errors.Is(res.Err, vault.ErrExists):
		f.Text = l.T("undo.taken", ve.Path)
		history()
	default:
		f.Text = l.T("undo.failed")
		history()
	}
	return f
}

// restoreRefused explains a refused restore from the trash; a taken name
// comes with buttons that restore under a free one.
func restoreRefused(l *lang, tp string, res *tools.Result) flash {
	f := flash{Title: l.T("restore.refused"), Detail: detailFor(l, res.Text)}
	ve, ok := note.AsError(res.Err)
	switch {
	case ok && errors.Is(res.Err, vault.ErrExists):
		f.Text = l.T("restore.taken", ve.Path)
		if ve.AltKind != "notes" {
			for _, alt := range ve.Alternatives[:min(len(ve.Alternatives), 3)] {
				f.Also = append(f.Also, action{Path: "/trash/restore", Label: l.T("restore.as", alt), Fields: map[string]string{"trash_path": tp, "to": alt}})
			}
		}
		if ve.Path != "" {
			f.Links = append(f.Links, link{"/note?path=" + url.QueryEscape(ve.Path), l.T("refusal.existing")})
		}
	case ok && errors.Is(res.Err, note.ErrNotFound):
		f.Text = l.T("restore.gone")
	default:
		f.Text = l.T("restore.failed")
	}
	return f
}

// versionRefused explains a refused restore of an earlier text.
func versionRefused(l *lang, p string, res *tools.Result) flash {
	f := flash{Title: l.T("note.refused"), Detail: detailFor(l, res.Text)}
	switch {
	case errors.Is(res.Err, note.ErrConflict):
		f.Text = l.T("note.changed_since")
	case errors.Is(res.Err, note.ErrNotFound):
		f.Text = l.T("note.not_there")
		f.Links = append(f.Links, link{"/trash", l.T("refusal.trash")})
	default:
		f.Text = l.T("note.failed")
	}
	return f
}

// keyRefused explains a refused change to the access keys.
func keyRefused(l *lang, name string, err error) flash {
	f := flash{Title: l.T("conn.failed"), Detail: detailFor(l, err.Error())}
	switch {
	case errors.Is(err, keys.ErrInvalidName):
		f.Text = l.T("conn.bad_name", name)
	case errors.Is(err, keys.ErrExists):
		f.Text = l.T("conn.exists", name)
	case errors.Is(err, keys.ErrNotFound):
		f.Text = l.T("conn.not_found", name)
	case errors.Is(err, keys.ErrInvalidLimits):
		f.Text = l.T("conn.bad_limits", keys.MaxPerMinute)
	case errors.Is(err, keys.ErrInvalidVaults):
		f.Text = l.T("conn.bad_vaults")
	case errors.Is(err, keys.ErrInvalid):
		f.Text = l.T("conn.bad_rights")
	case errors.Is(err, keys.ErrBusy):
		f.Text = l.T("conn.busy")
	default:
		f.Text = l.T("conn.store_failed")
	}
	return f
}

// filterRefused explains why the Activity list could not be filtered.
func filterRefused(l *lang, a tools.RecentChangesArgs, res *tools.Result) string {
	ve, _ := note.AsError(res.Err)
	msg := ""
	if ve != nil {
		msg = ve.Msg
	}
	switch {
	case a.Space != "" && strings.Contains(res.Text, "no space"):
		return l.T("filter.bad_space", a.Space)
	case strings.HasPrefix(msg, "since "):
		return l.T("filter.bad_when", a.Since)
	case strings.HasPrefix(msg, "until "):
		return l.T("filter.bad_when", a.Until)
	case a.Folder != "" && errors.Is(res.Err, note.ErrNotFound):
		return l.T("filter.bad_folder", a.Folder)
	}
	return l.T("filter.failed")
}

// missing explains a note the page was asked about that is not there
// (and has no history), with the closest notes as links.
func missing(l *lang, given string, res *tools.Result) (string, []link) {
	var links []link
	if ve, ok := note.AsError(res.Err); ok && errors.Is(res.Err, note.ErrNotFound) {
		for _, alt := range ve.Alternatives[:min(len(ve.Alternatives), 5)] {
			if ve.AltKind == "" || ve.AltKind == "notes" {
				links = append(links, link{"/note?path=" + url.QueryEscape(alt), alt})
			}
		}
		return l.T("note.unknown", given), links
	}
	return l.T("note.failed_history", given), nil
}

// theirsOf is what someone wrote in a summary, without what vaultd wrote
// around it ("undo of change …: <theirs>").
func theirsOf(s string) string {
	for {
		m := summaryRules[0].re.FindStringSubmatch(strings.TrimSpace(s))
		if m == nil {
			return s
		}
		s = m[1]
	}
}
