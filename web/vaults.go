package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/vaultd/vaultd/keys"
	"github.com/vaultd/vaultd/tools"
)

// The page over several vaults (vaultd serve --vault work=… --vault
// team=…): a switcher in the header names every vault, the current one
// marked; every link and form carries the vault it is about (a "vault"
// parameter: query or hidden field), and every view works on that
// vault's core. A request naming a vault that is not served is refused
// with the vaults there are. Activity also shows every vault's changes at
// once, newest first, each row naming its vault. Access keys and
// signed-in connections may be limited to some vaults, each with its
// rights (keys.Key.Vaults, keys.Grant.Vaults). With one vault none of it
// shows: the page is as it always was.

// allVaults is the "vault" of the Activity of every vault (no vault's
// name: names start with a letter or digit).
const allVaults = "*"

// vaultKey is the context key of the request's vault (current).
type vaultKey struct{}

// current is the vault a request works on.
type current struct {
	name string // as served; "" for a lone vault
	core Core
	all  bool // the Activity of every vault (core: the first vault's)
}

// vaultLink is one entry of the header's vault switcher.
type vaultLink struct {
	Name, Href string
	Current    bool
	All        bool // the Activity of every vault
}

// multi reports whether the page serves vaults by name.
func (s *Server) multi() bool { return s.o.Vaults != nil && s.o.Vaults.Multi() }

// vaultNames are the vaults served now, in order; nil for a lone vault.
func (s *Server) vaultNames() []string {
	if !s.multi() {
		return nil
	}
	return s.o.Vaults.Names()
}

// lookupVault returns the served vault named name (without regard to
// case) and its core, or "" and nil.
func (s *Server) lookupVault(name string) (string, Core) {
	for _, n := range s.vaultNames() {
		if strings.EqualFold(n, name) {
			if c := s.o.Vaults.Core(n); c != nil {
				return n, c
			}
		}
	}
	return "", nil
}

// withVault resolves the request's vault — its "vault" parameter, else the
// first vault — into its context. A GET's query is made to name it, so
// that the addresses the page builds from it (Back, the next page) keep
// it. allVaults is the Activity's only: elsewhere it is the first vault.
// ok is false for a vault that is not served.
func (s *Server) withVault(r *http.Request) (*http.Request, bool) {
	if !s.multi() {
		return r, true
	}
	given := strings.TrimSpace(r.FormValue("vault"))
	var cur current
	switch {
	case given == allVaults && (r.URL.Path == "/" || r.URL.Path == "/activity/latest"):
		names := s.vaultNames()
		cur = current{name: names[0], core: s.o.Vaults.Core(names[0]), all: true}
	case given == "" || given == allVaults:
		names := s.vaultNames()
		cur.name, cur.core = s.lookupVault(names[0])
	default:
		cur.name, cur.core = s.lookupVault(given)
	}
	if cur.core == nil {
		return r, false
	}
	r = r.WithContext(context.WithValue(r.Context(), vaultKey{}, cur))
	param := cur.name
	if cur.all {
		param = allVaults
	}
	if q := r.URL.Query(); (r.Method == http.MethodGet || r.Method == http.MethodHead) && q.Get("vault") != param {
		q.Set("vault", param)
		u := *r.URL
		u.RawQuery = q.Encode()
		r.URL = &u
	}
	return r, true
}

// curOf is the request's vault: for a lone vault, its core.
func (s *Server) curOf(r *http.Request) current {
	if cur, ok := r.Context().Value(vaultKey{}).(current); ok {
		return cur
	}
	return current{core: s.core}
}

// coreOf is the core of the request's vault.
func (s *Server) coreOf(r *http.Request) Core { return s.curOf(r).core }

// unknownVault refuses a request naming a vault that is not served, with
// the vaults that are (the header's switcher leads to each).
func (s *Server) unknownVault(w http.ResponseWriter, r *http.Request) {
	given := strings.TrimSpace(r.FormValue("vault"))
	names := s.vaultNames()
	s.o.Logger.Warn("owner's page: request refused", "path", r.URL.Path, "method", r.Method, "status", http.StatusNotFound, "reason", "unknown_vault", "vault", given)
	var links []link
	for _, n := range names {
		links = append(links, link{Href: "/?" + url.Values{"vault": {n}}.Encode(), Label: n})
	}
	s.render(w, r, http.StatusNotFound, "refused", map[string]any{"Why": "unknown_vault",
		"Text": langFor(r).html("vault.unknown", theirs(cut(given, 60)), theirs(strings.Join(names, ", "))), "Vaults": links})
}

// theirs is a name the owner gave (a vault's, a note's) in a text of the
// page: escaped, and marked as not to be translated.
func theirs(s string) string {
	return `<span translate="no">` + template.HTMLEscapeString(s) + `</span>`
}

// cut shortens s to n runes, marking the cut.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// inVault returns href (a path on this page) with the vault as its
// "vault" parameter; href as it is for a lone vault ("") or when it names
// a vault already.
func inVault(href, vault string) string {
	if vault == "" {
		return href
	}
	u, err := url.Parse(href)
	if err != nil || u.Host != "" || u.Scheme != "" {
		return href
	}
	q := u.Query()
	if q.Get("vault") != "" {
		return href
	}
	sep := "?"
	if u.RawQuery != "" {
		sep = "&"
	} else if strings.HasSuffix(href, "?") {
		sep = ""
	}
	return href + sep + url.Values{"vault": {vault}}.Encode()
}

// here is href in the request's vault (allVaults on the Activity of every
// vault).
func (s *Server) here(r *http.Request, href string) string {
	cur := s.curOf(r)
	if cur.all {
		return inVault(href, allVaults)
	}
	return inVault(href, cur.name)
}

// flashIn makes a flash's ways forward — buttons and links — act in the
// vault (nothing for a lone vault).
func flashIn(f flash, vault string) flash {
	if vault == "" {
		return f
	}
	for i, a := range f.Also {
		fields := make(map[string]string, len(a.Fields)+1)
		for k, v := range a.Fields {
			fields[k] = v
		}
		fields["vault"] = vault
		f.Also[i].Fields = fields
	}
	f.Links = linksIn(f.Links, vault)
	return f
}

// linksIn is links in the vault.
func linksIn(links []link, vault string) []link {
	for i := range links {
		links[i].Href = inVault(links[i].Href, vault)
	}
	return links
}

// switcher is the header's vault switcher: every vault, each at the view
// the page shows (its list, for a view of one note or base), and the
// Activity of every vault.
func (s *Server) switcher(r *http.Request, p page) []vaultLink {
	view := "/"
	switch r.URL.Path {
	case "/trash", "/trash/empty":
		view = "/trash"
	case "/bases", "/base":
		view = "/bases"
	case "/health", "/connections":
		view = r.URL.Path
	}
	var out []vaultLink
	for _, n := range s.vaultNames() {
		out = append(out, vaultLink{Name: n, Href: inVault(view, n), Current: !p.All && n == p.Vault})
	}
	return append(out, vaultLink{Name: p.L.T("vault.all"), Href: inVault("/", allVaults), Current: p.All, All: true})
}

// vaultChange is one change of the Activity of every vault.
type vaultChange struct {
	vault string
	core  Core
	it    tools.ChangeItem
}

// newer reports whether change a was made after b: by time, then by id
// (ids start with the time to the microsecond).
func newer(a, b tools.ChangeItem) bool {
	ta, tb := itemTime(a.Time), itemTime(b.Time)
	if !ta.Equal(tb) {
		return ta.After(tb)
	}
	return a.ID > b.ID
}

// changesOf reads the first n changes of one vault matching a (the core
// answers at most 100 a call), and how many match in all.
func changesOf(ctx context.Context, c Core, a tools.RecentChangesArgs, n int) ([]tools.ChangeItem, int, *tools.Result) {
	var out []tools.ChangeItem
	total := 0
	for len(out) < n {
		b := a
		b.Offset, b.Limit = len(out), min(100, n-len(out))
		res := c.RecentChanges(ctx, caller(), b)
		if res.IsError() {
			return nil, 0, res
		}
		d := res.Data.(tools.RecentChangesData)
		out, total = append(out, d.Changes...), d.Total
		if len(d.Changes) == 0 || len(out) >= d.Total {
			break
		}
	}
	return out, total, nil
}

// mergeChanges merges the vaults' changes, each list newest first, into
// one list newest first.
func mergeChanges(lists [][]vaultChange) []vaultChange {
	var out []vaultChange
	heads := make([]int, len(lists))
	for {
		best := -1
		for i, l := range lists {
			if heads[i] < len(l) && (best < 0 || newer(l[heads[i]].it, lists[best][heads[best]].it)) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, lists[best][heads[best]])
		heads[best]++
	}
}

// allActivity is the Activity of every vault: their changes merged,
// newest first, each row naming its vault, with its note links and Undo
// going to that vault. The filters apply in each vault; a vault where one
// cannot (a space it does not have) is left out, and only when every
// vault refuses is the refusal shown. A note filter goes to the vault
// that has the note.
func (s *Server) allActivity(w http.ResponseWriter, r *http.Request, a tools.RecentChangesArgs, data map[string]any) {
	l := langFor(r)
	names := s.vaultNames()
	var spaces []string
	for _, n := range names {
		if c := s.o.Vaults.Core(n); c != nil {
			for _, sp := range c.Vault().Spaces() {
				if !slices.Contains(spaces, sp) {
					spaces = append(spaces, sp)
				}
			}
		}
	}
	slices.Sort(spaces)
	data["Spaces"] = spaces
	if given := strings.TrimSpace(r.URL.Query().Get("note")); given != "" {
		for _, n := range names {
			c := s.o.Vaults.Core(n)
			if c == nil {
				continue
			}
			if res := c.NoteHistory(r.Context(), caller(), tools.NoteHistoryArgs{Path: given, Limit: 1}); !res.IsError() {
				q := r.URL.Query()
				q.Set("vault", n)
				q.Del("offset")
				http.Redirect(w, r, "/?"+q.Encode(), http.StatusSeeOther)
				return
			}
		}
		data["Error"] = l.html("vault.note_nowhere", theirs(given), theirs(strings.Join(names, ", ")))
		s.filterOptions(r, a, nil, data)
		s.render(w, r, http.StatusOK, "activity", data)
		return
	}
	need := a.Offset + activityPage
	var lists [][]vaultChange
	var refused *tools.Result
	total := 0
	for _, n := range names {
		c := s.o.Vaults.Core(n)
		if c == nil {
			continue // no longer served
		}
		items, t, res := changesOf(r.Context(), c, a, need)
		if res != nil {
			refused = cmp.Or(refused, res)
			continue
		}
		total += t
		list := make([]vaultChange, 0, len(items))
		for _, it := range items {
			list = append(list, vaultChange{vault: n, core: c, it: it})
		}
		lists = append(lists, list)
	}
	if len(lists) == 0 && refused != nil {
		data["Error"] = filterRefused(l, a, refused)
		s.filterOptions(r, a, nil, data)
		s.render(w, r, http.StatusOK, "activity", data)
		return
	}
	merged := mergeChanges(lists)
	merged = merged[min(a.Offset, len(merged)):]
	merged = merged[:min(activityPage, len(merged))]
	rows := make([]row, 0, len(merged))
	for _, vc := range merged {
		rows = append(rows, s.rowIn(vc.core, vc.vault, vc.it))
	}
	data["Rows"], data["Days"], data["Total"], data["Offset"] = rows, byDay(l, rows, s.o.Now()), total, a.Offset
	s.filterOptions(r, a, rows, data)
	data["From"], data["To"] = a.Offset+1, a.Offset+len(rows)
	if next := a.Offset + len(rows); next < total && len(rows) > 0 {
		q := r.URL.Query()
		q.Set("offset", strconv.Itoa(next))
		data["Next"] = "/?" + q.Encode()
	}
	s.render(w, r, http.StatusOK, "activity", data)
}

// latestAll is /activity/latest for every vault: each vault's newest
// change, so that a change in any of them refreshes the list.
func (s *Server) latestAll(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	var parts []string
	for _, n := range s.vaultNames() {
		c := s.o.Vaults.Core(n)
		if c == nil {
			continue
		}
		res := c.RecentChanges(r.Context(), caller(), tools.RecentChangesArgs{Limit: 1})
		if res.IsError() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		rc := res.Data.(tools.RecentChangesData)
		if len(rc.Changes) == 0 {
			parts = append(parts, n+" 0")
			continue
		}
		ch := rc.Changes[0]
		parts = append(parts, fmt.Sprintf("%s %d %s %s %s", n, rc.Total, ch.ID, ch.Time, ch.After))
	}
	fmt.Fprint(w, strings.Join(parts, "; "))
}

// vaultChoice is one vault on a form that limits a key or a signed-in
// connection to some vaults.
type vaultChoice struct {
	Name   string
	On     bool   // ticked: the connection may use the vault
	Rights string // its rights there as ParseRights reads them; "": the connection's
	Served bool   // false: a vault the key names that is not served now
}

// rightsChoices are the rights a vault may be given on the forms.
var rightsChoices = []keys.Rights{{Read: true}, {Read: true, Write: true}, {Read: true, Write: true, Delete: true}}

// vaultChoices are the vaults of the forms that limit a key or a
// connection, ticked as v has them (nil: every vault, with the
// connection's rights): those served, then those v names that are not.
func (s *Server) vaultChoices(v map[string]keys.Rights) []vaultChoice {
	var out []vaultChoice
	served := s.vaultNames()
	rightsIn := func(n string) (string, bool) {
		for k, r := range v {
			if strings.EqualFold(k, n) {
				return r.String(), true
			}
		}
		return "", false
	}
	for _, n := range served {
		c := vaultChoice{Name: n, On: v == nil, Served: true}
		if v != nil {
			c.Rights, c.On = rightsIn(n)
		}
		out = append(out, c)
	}
	var others []string
	for k := range v {
		if !slices.ContainsFunc(served, func(n string) bool { return strings.EqualFold(n, k) }) {
			others = append(others, k)
		}
	}
	slices.Sort(others)
	for _, k := range others {
		out = append(out, vaultChoice{Name: k, On: true, Rights: v[k].String()})
	}
	return out
}

// errNoVault is a form that limits a connection to no vault at all.
var errNoVault = fmt.Errorf("%w: no vault ticked; tick at least one", keys.ErrInvalidVaults)

// formVaults reads the vaults a form limits a key or a connection to:
// each vault the form listed ("vaults_listed"), ticked ("vaults") or not,
// with its rights ("rights_in_NAME": "" for the connection's). Every vault
// ticked with the connection's rights is nil: every vault, also those
// served later. A form without the vaults (a lone vault) is nil too.
// Errors match keys.ErrInvalidVaults.
func formVaults(r *http.Request) (map[string]keys.Rights, error) {
	listed := r.PostForm["vaults_listed"]
	if len(listed) == 0 {
		return nil, nil
	}
	on := r.PostForm["vaults"]
	out := map[string]keys.Rights{}
	every := true
	for _, n := range listed {
		if !slices.Contains(on, n) {
			every = false
			continue
		}
		var rt keys.Rights
		if v := strings.TrimSpace(r.PostFormValue("rights_in_" + n)); v != "" {
			p, err := keys.ParseRights(v)
			if err != nil {
				return nil, fmt.Errorf("%w: vault %s: %v", keys.ErrInvalidVaults, n, err)
			}
			rt, every = p, false
		}
		out[n] = rt
	}
	switch {
	case every:
		return nil, nil
	case len(out) == 0:
		return nil, errNoVault
	}
	return out, keys.CheckVaults(filled(out))
}

// filled is v with zero rights read, for CheckVaults (the store gives
// them the connection's rights).
func filled(v map[string]keys.Rights) map[string]keys.Rights {
	out := make(map[string]keys.Rights, len(v))
	for n, r := range v {
		if r == (keys.Rights{}) {
			r = keys.Rights{Read: true}
		}
		out[n] = r
	}
	return out
}

// vaultRight is one vault of a connection and its rights there, for the
// lists of keys and connections.
type vaultRight struct{ Name, Rights string }

// vaultRights says a connection's vaults: nil for every vault.
func vaultRights(l *lang, v map[string]keys.Rights) []vaultRight {
	var out []vaultRight
	for _, n := range sortedKeys(v) {
		r := v[n]
		out = append(out, vaultRight{Name: n, Rights: l.Rights(r.Read, r.Write, r.Delete)})
	}
	return out
}

func sortedKeys(v map[string]keys.Rights) []string {
	out := make([]string, 0, len(v))
	for n := range v {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// vaultsText says a connection's vaults in words, for a message.
func vaultsText(l *lang, v map[string]keys.Rights) string {
	if len(v) == 0 {
		return l.T("conn.every_vault")
	}
	var parts []string
	for _, vr := range vaultRights(l, v) {
		parts = append(parts, vr.Name+": "+vr.Rights)
	}
	return strings.Join(parts, "; ")
}

// setKeyVaults changes the vaults of an access key (keys.Store.SetVaults).
func (s *Server) setKeyVaults(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	name := r.PostFormValue("name")
	v, err := formVaults(r)
	var k keys.Key
	if err == nil {
		k, err = s.o.Keys.SetVaults(name, v)
	}
	if err != nil {
		s.setFlash(r, keyRefused(l, name, err))
	} else {
		s.o.Logger.Info("access key's vaults changed on the owner's page", "name", k.Name, "vaults", cmp.Or(keys.VaultsString(k.Vaults), "every vault"))
		if s.o.Revoked != nil {
			s.o.Revoked()
		}
		s.setFlash(r, flash{OK: true, Title: l.T("conn.vaults_set", k.Name, vaultsText(l, k.Vaults))})
	}
	http.Redirect(w, r, s.here(r, "/connections"), http.StatusSeeOther)
}

// setGrantVaults changes the vaults of a signed-in connection
// (keys.Store.SetGrantVaults).
func (s *Server) setGrantVaults(w http.ResponseWriter, r *http.Request) {
	l := langFor(r)
	v, err := formVaults(r)
	var g keys.Grant
	if err == nil {
		g, err = s.o.Keys.SetGrantVaults(r.PostFormValue("grant"), v, s.o.Now())
	}
	switch {
	case errors.Is(err, keys.ErrInvalidVaults):
		s.setFlash(r, keyRefused(l, "", err))
	case err != nil:
		s.setFlash(r, flash{Title: l.T("conn.failed"), Text: grantErrText(l, err)})
	default:
		s.o.Logger.Info("signed-in connection's vaults changed on the owner's page", "name", g.Name, "vaults", cmp.Or(keys.VaultsString(g.Vaults), "every vault"))
		if s.o.Revoked != nil {
			s.o.Revoked()
		}
		s.setFlash(r, flash{OK: true, Title: l.T("conn.vaults_set", g.Name, vaultsText(l, g.Vaults))})
	}
	http.Redirect(w, r, s.here(r, "/connections"), http.StatusSeeOther)
}

// formChoices are choices as the form r had them, to show it again after
// a refusal.
func formChoices(r *http.Request, choices []vaultChoice) []vaultChoice {
	on := r.PostForm["vaults"]
	for i := range choices {
		choices[i].On = slices.Contains(on, choices[i].Name)
		choices[i].Rights = r.PostFormValue("rights_in_" + choices[i].Name)
	}
	return choices
}

// choicesData is the "vaultchoices" template's: the vaults, and the
// rights a vault may be given.
type choicesData struct {
	L       *lang
	Choices []vaultChoice
	Rights  []option
}

func choicesFor(l *lang, cs []vaultChoice) choicesData {
	d := choicesData{L: l, Choices: cs}
	for _, r := range rightsChoices {
		d.Rights = append(d.Rights, option{Value: r.String(), Label: l.Rights(r.Read, r.Write, r.Delete)})
	}
	return d
}

// vaultsOfData is the "vaultsof" template's: a key's or connection's
// vaults in the Connections view, and the form that changes them (posted
// to Action with Field=ID).
type vaultsOfData struct {
	P                       page
	In                      []vaultRight
	Choices                 []vaultChoice
	Action, Field, ID, Name string
}

func vaultsOf(p page, in []vaultRight, cs []vaultChoice, action, field, id, name string) vaultsOfData {
	return vaultsOfData{P: p, In: in, Choices: cs, Action: action, Field: field, ID: id, Name: name}
}

// elsewhere links a note the request's vault does not have to the other
// vaults that have it (or its history), each at prefix (the note's
// history, "/note?path=", or its Activity, "/?note=") and its path there.
func (s *Server) elsewhere(r *http.Request, given, prefix string) []link {
	cur := s.curOf(r)
	var out []link
	for _, n := range s.vaultNames() {
		c := s.o.Vaults.Core(n)
		if n == cur.name || c == nil {
			continue
		}
		res := c.NoteHistory(r.Context(), caller(), tools.NoteHistoryArgs{Path: given, Limit: 1})
		if res.IsError() {
			continue
		}
		out = append(out, link{Href: inVault(prefix+url.QueryEscape(res.Data.(tools.NoteHistoryData).Note.Path), n), Label: n})
	}
	return out
}
