package web

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/mcpserver"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// flash is a message shown once on the next page: the outcome of an
// action (Post/Redirect/Get, so that a reload repeats nothing).
type flash struct {
	OK     bool
	Title  string
	Text   string
	Detail string   // the core's full answer, for a refusal (English page only)
	Also   []action // follow-up actions (restore under a free name, undo the newer change first)
	Links  []link   // ways forward that are pages (the note's history, the trash)
}

// action is a one-button form.
type action struct {
	Path   string
	Label  string
	Quote  string // what someone wrote, shown after the label as theirs (not translated)
	Fields map[string]string
}

func (s *Server) setFlash(r *http.Request, f flash) {
	if sess, ok := r.Context().Value(ownerKey{}).(*session); ok {
		s.mu.Lock()
		sess.flash = append(sess.flash, f)
		s.mu.Unlock()
	}
}

func (s *Server) takeFlash(r *http.Request) []flash {
	sess, ok := r.Context().Value(ownerKey{}).(*session)
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := sess.flash
	sess.flash = nil
	return f
}

// back redirects to the page the form came from (a path on this page
// only), or to fallback.
func back(w http.ResponseWriter, r *http.Request, fallback string) {
	http.Redirect(w, r, backTo(r, fallback), http.StatusSeeOther)
}

// backTo is the form's "back" field when it is a path on this page, else
// fallback.
func backTo(r *http.Request, fallback string) string {
	to := r.PostFormValue("back")
	// Browsers read "/\\host" as "//host": no backslashes, no scheme, no host.
	if u, err := url.Parse(to); to == "" || err != nil || u.Host != "" || u.Scheme != "" || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(to, "//") || strings.ContainsAny(to, "\\\r\n\t") {
		return fallback
	}
	return to
}

// undoneHow names how an undo undid its change, for the message: the
// text written back, the note back to the trash or out of it, moved back.
func undoneHow(op string) string {
	switch op {
	case "replace", "delete", "restore", "create", "move":
		return op
	}
	return "other"
}

// row is one change in the Activity list or a note's history.
type row struct {
	tools.ChangeItem
	When     time.Time
	Path     string // the note (or folder, file) it changed, as it is now
	Undoable bool
	// Vault is the vault of the change, where the page serves several:
	// its links and Undo go there.
	Vault string
	// The diff of the change, cut at diffLines; Cut when there is more.
	Lines          []diffLine
	TooDifferent   bool
	Added, Removed int
	Cut            bool
}

// day is the changes of one day, for the list grouped by day.
type day struct {
	Key   string // 2006-01-02, UTC
	Label string
	Rows  []row
}

// itemTime reads the time a ChangeItem gives ("2006-01-02 15:04 UTC").
func itemTime(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04 MST", s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// rowOf is a change of the request's vault as the page shows it.
func (s *Server) rowOf(r *http.Request, it tools.ChangeItem) row {
	cur := s.curOf(r)
	return s.rowIn(cur.core, cur.name, it)
}

// rowIn is a change of the vault named vault ("": the lone one), whose
// core is c, as the page shows it.
func (s *Server) rowIn(c Core, vault string, it tools.ChangeItem) row {
	rw := row{ChangeItem: it, When: itemTime(it.Time), Undoable: it.ID != "" && it.Op != "external", Vault: vault}
	switch {
	case it.Note != nil:
		rw.Path = it.Note.Path
	case it.Folder != "":
		rw.Path = it.Folder
	default:
		rw.Path = it.File
	}
	d := diffIn(c, it.Before, it.After)
	var txt string
	rw.Lines, txt = parseUnified(d.Text)
	rw.TooDifferent = txt != ""
	rw.Added, rw.Removed, rw.Cut = d.Added, d.Removed, d.Shown < d.Total
	return rw
}

// byDay groups rows, newest first, by their day (UTC: the page's script
// regroups them by the browser's days).
func byDay(l *lang, rows []row, now time.Time) []day {
	var out []day
	for _, rw := range rows {
		k := rw.When.UTC().Format("2006-01-02")
		if len(out) == 0 || out[len(out)-1].Key != k {
			out = append(out, day{Key: k, Label: l.Day(rw.When, now)})
		}
		out[len(out)-1].Rows = append(out[len(out)-1].Rows, rw)
	}
	return out
}

// activity lists the changes, newest first, filtered: of the request's
// vault, or of every vault (allActivity).
func (s *Server) activity(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	offset, _ := strconv.Atoi(q.Get("offset"))
	a := tools.RecentChangesArgs{Space: q.Get("space"), Folder: q.Get("folder"), Actor: q.Get("actor"),
		Since: q.Get("since"), Until: q.Get("until"), Limit: activityPage, Offset: max(offset, 0)}
	cur := s.curOf(r)
	data := map[string]any{"Filter": a, "Flash": s.takeFlash(r), "Back": r.URL.RequestURI(), "NoteFilter": q.Get("note")}
	if cur.all {
		s.allActivity(w, r, a, data)
		return
	}
	data["Spaces"] = cur.core.Vault().Spaces()
	if strings.TrimSpace(q.Get("note")) != "" {
		s.noteActivity(w, r, a, data)
		return
	}
	res := cur.core.RecentChanges(r.Context(), caller(), a)
	if res.IsError() {
		data["Error"] = filterRefused(langFor(r), a, res)
		s.filterOptions(r, a, nil, data)
		s.render(w, r, http.StatusOK, "activity", data)
		return
	}
	rc := res.Data.(tools.RecentChangesData)
	rows := make([]row, 0, len(rc.Changes))
	for _, it := range rc.Changes {
		rows = append(rows, s.rowOf(r, it))
	}
	data["Rows"], data["Days"], data["Total"], data["Offset"] = rows, byDay(langFor(r), rows, s.o.Now()), rc.Total, a.Offset
	s.filterOptions(r, a, rows, data)
	data["From"], data["To"] = a.Offset+1, a.Offset+len(rows)
	if next := a.Offset + len(rows); next < rc.Total {
		v := q
		v.Set("offset", strconv.Itoa(next))
		data["Next"] = "/?" + v.Encode()
	}
	s.render(w, r, http.StatusOK, "activity", data)
}

// diffLines bounds a change's diff on the page.
const diffLines = 60

// diffIn is the line diff between two stored versions in c's vault, as
// note_history shows it; empty when either text is not stored (a create
// has no before).
func diffIn(c Core, before, after string) note.Diff {
	if after == "" && before == "" {
		return note.Diff{}
	}
	var b, a []byte
	var err error
	if before != "" {
		if b, err = c.Vault().Content(before); err != nil {
			return note.Diff{}
		}
	}
	if after != "" {
		if a, err = c.Vault().Content(after); err != nil {
			return note.Diff{}
		}
	}
	return note.LineDiff(b, a, diffLines)
}

// latest answers the newest change's id and time, for the live refresh.
func (s *Server) latest(w http.ResponseWriter, r *http.Request) {
	if s.curOf(r).all {
		s.latestAll(w, r)
		return
	}
	res := s.coreOf(r).RecentChanges(r.Context(), caller(), tools.RecentChangesArgs{Limit: 1})
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if res.IsError() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	rc := res.Data.(tools.RecentChangesData)
	if len(rc.Changes) == 0 {
		fmt.Fprint(w, "0")
		return
	}
	c := rc.Changes[0]
	fmt.Fprintf(w, "%d %s %s %s", rc.Total, c.ID, c.Time, c.After)
}

// undo reverts one change through the core's Undo: exactly `vaultd undo`.
func (s *Server) undo(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	id := r.PostFormValue("change")
	cur := s.curOf(r)
	home := s.here(r, "/")
	res := cur.core.Undo(r.Context(), caller(), tools.UndoArgs{Change: id, ChangeSummary: r.PostFormValue("summary")})
	if res.IsError() {
		s.setFlash(r, flashIn(undoRefused(l, backTo(r, home), res), cur.name))
	} else {
		d := res.Data.(tools.UndoData)
		f := flash{OK: true, Title: l.T("undo.done_" + undoneHow(d.Operation))}
		if d.Note != nil {
			f.Text = d.Note.Path
		} else if d.Folder != "" {
			f.Text = d.Folder
		}
		if d.ChangeID != "" {
			f.Also = append(f.Also, action{Path: "/undo", Label: l.T("undo.again"), Fields: map[string]string{"change": d.ChangeID, "back": backTo(r, home)}})
		}
		s.setFlash(r, flashIn(f, cur.name))
	}
	back(w, r, home)
}

// trash lists the deleted notes.
func (s *Server) trash(w http.ResponseWriter, r *http.Request) {
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	res := s.coreOf(r).ListTrash(r.Context(), caller(), tools.ListTrashArgs{Limit: 100, Offset: max(offset, 0)})
	data := map[string]any{"Flash": s.takeFlash(r), "Back": r.URL.RequestURI()}
	if res.IsError() {
		data["Error"] = langFor(r).T("trash.failed")
	} else {
		d := res.Data.(tools.ListTrashData)
		data["Items"], data["Total"] = d.Items, d.Total
		if next := d.Offset + len(d.Items); next < d.Total {
			data["Next"] = s.here(r, "/trash?offset="+strconv.Itoa(next))
		}
	}
	s.render(w, r, http.StatusOK, "trash", data)
}

// restore brings a note back from the trash (with its sub-notes) through
// the core's RestoreNote. A taken name is refused by the core with free
// names, offered as buttons.
func (s *Server) restore(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	tp, to := r.PostFormValue("trash_path"), r.PostFormValue("to")
	cur := s.curOf(r)
	res := cur.core.RestoreNote(r.Context(), caller(), tools.RestoreArgs{TrashPath: tp, To: to, ChangeSummary: "restored from the trash on the owner's page"})
	if res.IsError() {
		s.setFlash(r, flashIn(restoreRefused(l, tp, res), cur.name))
	} else {
		d := res.Data.(tools.WriteData)
		s.setFlash(r, flash{OK: true, Title: l.T("restore.done", d.Note.Path)})
	}
	back(w, r, s.here(r, "/trash"))
}

// emptyDays reads the "older than N days" field.
func emptyDays(v string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return n, err == nil && n >= 0 && n <= 36500
}

// emptyConfirm names how many notes emptying would delete for good, and
// asks.
func (s *Server) emptyConfirm(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	days, ok := emptyDays(r.URL.Query().Get("days"))
	if !ok {
		http.Redirect(w, r, s.here(r, "/trash"), http.StatusSeeOther)
		return
	}
	plan, err := s.coreOf(r).EmptyTrashPlan(tools.EmptyTrashArgs{OlderThan: strconv.Itoa(days) + "d"})
	data := map[string]any{"Days": days, "Count": len(plan), "Plan": plan[:min(len(plan), 50)], "Flash": s.takeFlash(r)}
	if err != nil {
		data["Error"] = l.T("empty.failed")
	}
	s.render(w, r, http.StatusOK, "empty", data)
}

// empty deletes for good the notes older than N days, only if the count
// the owner confirmed is still the count.
func (s *Server) empty(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	days, ok := emptyDays(r.PostFormValue("days"))
	confirmed, err := strconv.Atoi(r.PostFormValue("count"))
	if !ok || err != nil {
		http.Redirect(w, r, s.here(r, "/trash"), http.StatusSeeOther)
		return
	}
	c := s.coreOf(r)
	a := tools.EmptyTrashArgs{OlderThan: strconv.Itoa(days) + "d"}
	plan, err := c.EmptyTrashPlan(a)
	if err == nil && len(plan) != confirmed {
		s.setFlash(r, flash{Title: l.T("empty.changed", len(plan))})
		http.Redirect(w, r, s.here(r, "/trash/empty?days="+strconv.Itoa(days)), http.StatusSeeOther)
		return
	}
	res := c.EmptyTrash(r.Context(), caller(), a)
	if res.IsError() {
		s.setFlash(r, flash{Title: l.T("empty.refused"), Text: l.T("empty.failed"), Detail: detailFor(l, res.Text)})
	} else {
		d := res.Data.(tools.EmptyTrashData)
		s.setFlash(r, flash{OK: true, Title: l.T("empty.done", d.RemovedTotal, d.Kept)})
	}
	http.Redirect(w, r, s.here(r, "/trash"), http.StatusSeeOther)
}

// note shows a note's history across moves, with diffs and a restore
// button for each earlier version.
func (s *Server) note(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	offset, _ := strconv.Atoi(q.Get("offset"))
	p := q.Get("path")
	cur := s.curOf(r)
	res := cur.core.NoteHistory(r.Context(), caller(), tools.NoteHistoryArgs{Path: p, Limit: 50, Offset: max(offset, 0)})
	data := map[string]any{"Path": p, "Flash": s.takeFlash(r), "Back": r.URL.RequestURI()}
	if res.IsError() {
		var links []link
		data["Error"], links = missing(langFor(r), p, res)
		data["ErrorLinks"], data["Elsewhere"] = linksIn(links, cur.name), s.elsewhere(r, p, "/note?path=")
		s.render(w, r, http.StatusOK, "note", data)
		return
	}
	d := res.Data.(tools.NoteHistoryData)
	rows := make([]row, 0, len(d.Changes))
	for _, it := range d.Changes {
		rw := s.rowOf(r, it)
		if rw.Path == "" {
			rw.Path = d.Note.Path // the answer names the note once, not per change
		}
		rows = append(rows, rw)
	}
	data["Note"], data["Days"], data["Total"] = d.Note, byDay(langFor(r), rows, s.o.Now()), d.Total
	data["Exists"] = cur.core.Vault().Exists(d.Note.Path)
	if vs := versionsIn(cur.core, langFor(r), d.Note.Path, d.Note.Version); len(vs) > 1 {
		data["Versions"], data["To"], data["From"] = vs, vs[0].Version, vs[1].Version
	}
	if next := d.Offset + len(d.Changes); next < d.Total {
		data["Next"] = s.here(r, "/note?path="+url.QueryEscape(d.Note.Path)+"&offset="+strconv.Itoa(next))
	}
	s.render(w, r, http.StatusOK, "note", data)
}

// restoreVersion makes the text of a note as it was before or after one
// of its changes its text again, as a new change (replace_note with the
// version the page showed as current, so a change made meanwhile is not
// overwritten).
func (s *Server) restoreVersion(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	p, ver, cur := r.PostFormValue("path"), r.PostFormValue("version"), r.PostFormValue("current")
	side := "after"
	if r.PostFormValue("side") == "before" {
		side = "before"
	}
	in := s.curOf(r)
	history := s.here(r, "/note?path="+url.QueryEscape(p))
	b, err := in.core.Vault().Content(ver)
	if err != nil {
		s.setFlash(r, flash{Title: l.T("note.refused"), Text: l.T("note.not_kept")})
		back(w, r, history)
		return
	}
	summary := "restored the text as it was " + side + " a change on the owner's page"
	res := in.core.ReplaceNote(r.Context(), caller(), tools.ReplaceArgs{Path: p, Content: string(b), ChangeSummary: summary, ExpectedVersion: cur})
	if res.IsError() {
		s.setFlash(r, flashIn(versionRefused(l, p, res), in.name))
	} else {
		d := res.Data.(tools.WriteData)
		f := flash{OK: true, Title: l.T("note.restored_" + side), Text: d.Note.Path}
		if d.ChangeID != "" {
			f.Also = append(f.Also, action{Path: "/undo", Label: l.T("undo.again"), Fields: map[string]string{"change": d.ChangeID, "back": backTo(r, s.here(r, "/"))}})
		}
		s.setFlash(r, flashIn(f, in.name))
	}
	back(w, r, history)
}

// keyRow is one access key in the Connections view.
type keyRow struct {
	keys.Key
	RightsText string
	// Writes and Deletes are the limits a minute its connection has: its
	// own, or the server's.
	Writes, Deletes int
	LimitsText      string // the same, in words, saying whose they are
	Refused         int    // its calls refused by the rate limit within recentRefusals
	// With several vaults: the key's vaults with its rights in each (none:
	// every vault), and the form that changes them.
	InVaults []vaultRight
	Choices  []vaultChoice
}

// clientLine is one copy-ready line for a client.
type clientLine struct {
	Client, Line string
}

// connections lists the access keys.
func (s *Server) connections(w http.ResponseWriter, r *http.Request) {
	s.renderConnections(w, r, http.StatusOK, map[string]any{"Flash": s.takeFlash(r)})
}

func (s *Server) renderConnections(w http.ResponseWriter, r *http.Request, status int, data map[string]any) {
	ks, err := s.o.Keys.List()
	if err != nil {
		s.o.Logger.Error("owner's page: the key store is unreadable", "error", err)
		data["Error"] = langFor(r).T("conn.store_failed")
	}
	lg, refused := langFor(r), s.rateRefusals()
	rows := make([]keyRow, 0, len(ks))
	for _, k := range ks {
		l := mcpserver.KeyLimits(s.o.Limits, k.Limits)
		kr := keyRow{Key: k, RightsText: k.Rights.String(), Writes: l.WritesPerMinute, Deletes: l.DeletesPerMinute,
			LimitsText: s.limitsText(lg, k.Limits), Refused: refused["key:"+k.Name]}
		if s.multi() {
			kr.InVaults, kr.Choices = vaultRights(lg, k.Vaults), s.vaultChoices(k.Vaults)
		}
		rows = append(rows, kr)
	}
	data["Keys"] = rows
	if s.multi() {
		if _, ok := data["NewVaults"]; !ok {
			data["NewVaults"] = s.vaultChoices(nil)
		}
	}
	grants, err := s.grantRows(lg)
	if err != nil {
		s.o.Logger.Error("owner's page: the sign-in store is unreadable", "error", err)
		data["Error"] = langFor(r).T("conn.store_failed")
	}
	data["Grants"], data["SignIn"] = grants, s.o.OAuth != nil
	data["Defaults"] = s.o.Limits.WithDefaults()
	s.render(w, r, status, "connections", data)
}

// mcpURL is where clients connect: Options.MCPURL, or this page's address.
func (s *Server) mcpURL(r *http.Request) string {
	if s.o.MCPURL != "" {
		return s.o.MCPURL
	}
	return scheme(r) + "://" + r.Host + mcpserver.HTTPPath
}

// ClientLines are the copy-ready lines that connect Claude Code, Cursor,
// Codex and Gemini with a key.
func ClientLines(mcpURL, secret string) []clientLine {
	return []clientLine{
		{"Claude Code", fmt.Sprintf("claude mcp add --transport http notes %s --header \"Authorization: Bearer %s\"", mcpURL, secret)},
		{"Cursor (~/.cursor/mcp.json)", fmt.Sprintf("{\"mcpServers\": {\"notes\": {\"url\": \"%s\", \"headers\": {\"Authorization\": \"Bearer %s\"}}}}", mcpURL, secret)},
		// Codex reads the key from the variable each time it connects, so
		// the export belongs in the shell's profile, not before one command.
		{"Codex CLI", fmt.Sprintf("export VAULTD_KEY=%s\ncodex mcp add notes --url %s --bearer-token-env-var VAULTD_KEY", secret, mcpURL)},
		{"Gemini CLI", fmt.Sprintf("gemini mcp add --scope user --transport http notes %s --header \"Authorization: Bearer %s\"", mcpURL, secret)},
	}
}

// formRights reads the rights checkboxes: read always, delete only with
// write.
func formRights(r *http.Request) keys.Rights {
	rt := keys.Rights{Read: true, Write: r.PostFormValue("write") != "", Delete: r.PostFormValue("delete") != ""}
	if rt.Delete {
		rt.Write = true
	}
	return rt
}

// createKey makes an access key and shows its secret once, in this
// response only (it is kept nowhere).
func (s *Server) createKey(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	name := strings.TrimSpace(r.PostFormValue("name"))
	lim, err := formLimits(r)
	var vaults map[string]keys.Rights
	if err == nil {
		vaults, err = formVaults(r)
	}
	var secret string
	var k keys.Key
	if err == nil {
		secret, k, err = s.o.Keys.CreateWithOptions(name, formRights(r), keys.CreateOptions{Limits: lim, Vaults: vaults}, s.o.Now())
	}
	if err != nil {
		data := map[string]any{"Flash": []flash{keyRefused(l, name, err)}, "NewName": name}
		if s.multi() && len(r.PostForm["vaults_listed"]) > 0 {
			data["NewVaults"] = formChoices(r, s.vaultChoices(nil))
		}
		s.renderConnections(w, r, http.StatusUnprocessableEntity, data)
		return
	}
	attrs := []any{"name", k.Name, "rights", k.Rights.String(), "limits", k.Limits.String()}
	if s.multi() {
		attrs = append(attrs, "vaults", cmp.Or(keys.VaultsString(k.Vaults), "every vault"))
	}
	s.o.Logger.Info("access key created on the owner's page", attrs...)
	s.renderConnections(w, r, http.StatusOK, map[string]any{"Created": k.Name, "Secret": secret, "Lines": ClientLines(s.mcpURL(r), secret)})
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	k, err := s.o.Keys.Revoke(r.PostFormValue("name"))
	if err != nil {
		s.setFlash(r, keyRefused(l, r.PostFormValue("name"), err))
	} else {
		s.o.Logger.Info("access key revoked on the owner's page", "name", k.Name)
		if s.o.Revoked != nil {
			s.o.Revoked()
		}
		s.setFlash(r, flash{OK: true, Title: l.T("conn.revoked", k.Name)})
	}
	http.Redirect(w, r, s.here(r, "/connections"), http.StatusSeeOther)
}

func (s *Server) setRights(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	k, err := s.o.Keys.SetRights(r.PostFormValue("name"), formRights(r))
	if err != nil {
		s.setFlash(r, keyRefused(l, r.PostFormValue("name"), err))
	} else {
		if s.o.Revoked != nil {
			s.o.Revoked()
		}
		f := flash{OK: true, Title: l.T("conn.rights_set", k.Name, l.Rights(k.Rights.Read, k.Rights.Write, k.Rights.Delete))}
		if s.multi() && len(k.Vaults) > 0 {
			f.Text = l.T("conn.rights_per_vault", vaultsText(l, k.Vaults))
		}
		s.setFlash(r, f)
	}
	http.Redirect(w, r, s.here(r, "/connections"), http.StatusSeeOther)
}

// entryData is one change for the "change" template: the page and the row.
type entryData struct {
	P page
	R row
}

// diffData is a diff for the "udiff" template.
type diffData struct {
	L     *lang
	Lines []diffLine
}

// hunkText says where a hunk of a diff is: "@@ -3,4 +3,5 @@" → "lines
// 3–7".
func hunkText(l *lang, h string) string {
	f := strings.Fields(h)
	if len(f) < 3 {
		return ""
	}
	a, cnt, _ := strings.Cut(strings.TrimPrefix(f[2], "+"), ",")
	start, _ := strconv.Atoi(a)
	n := 1
	if cnt != "" {
		n, _ = strconv.Atoi(cnt)
	}
	switch {
	case n <= 0:
		return l.T("diff.after_line", start)
	case n == 1:
		return l.T("diff.line", start)
	}
	return l.T("diff.lines", start, start+n-1)
}

// funcs are the templates' helpers.
var funcs = map[string]any{
	"entry":     func(p page, r row) entryData { return entryData{p, r} },
	"trashTime": itemTime,
	"inTrash":   func(p string) bool { return strings.HasPrefix(p, vault.TrashDir+"/") },
	"difftable": func(l *lang, lines []diffLine) diffData { return diffData{l, lines} },
	"hunk":      hunkText,
	"basenote":  func(r baseRow, vault string) baseNote { return baseNote{r, vault} },
	"choices":   choicesFor,
	"vaultsof":  vaultsOf,
}
