package web

import (
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"time"

	"github.com/vaultd/vaultd/vault"
)

// What the history records in its own words — actors ("key:laptop",
// "mcp:claude-code", "cli"), operations ("update_section") and the
// summaries and details vaultd writes itself ("undo of change …") — said
// in the page's language. The history keeps them as they are (agents and
// the CLI read them); the page translates them when it shows them.

// clientNames are the names MCP clients send in their clientInfo (lower
// case, spaces as '-', as the history records them), by prefix, and how
// people call them.
var clientNames = []struct{ prefix, name string }{
	{"claude-code", "Claude Code"},
	{"claude-ai", "Claude"},
	{"claude", "Claude"},
	{"cursor", "Cursor"},
	{"codex", "Codex"},
	{"gemini", "Gemini CLI"},
	{"visual-studio-code", "VS Code"},
	{"vscode", "VS Code"},
	{"windsurf", "Windsurf"},
	{"chatgpt", "ChatGPT"},
	{"openai", "ChatGPT"},
	{"zed", "Zed"},
	{"cline", "Cline"},
	{"goose", "Goose"},
	{"mcp-inspector", "MCP Inspector"},
	{"inspector", "MCP Inspector"},
}

// ClientName is the name people know an MCP client by, from the name it
// sends ("claude-code" → "Claude Code"); an unknown one as it is.
func ClientName(sent string) string {
	s := strings.ToLower(strings.TrimSpace(sent))
	for _, c := range clientNames {
		if strings.HasPrefix(s, c.prefix) {
			return c.name
		}
	}
	return sent
}

// actorParts splits a recorded actor into its kind ("key", "oauth",
// "mcp", or the whole actor), the connection's name and the client's:
// "key:laptop:claude-code" → key, laptop, claude-code; "mcp:cursor" →
// mcp, "", cursor. Key and connection names never hold ':' or '/'
// (keys.ValidName), so what follows the name is the client.
func actorParts(actor string) (kind, name, client string) {
	kind, rest, ok := strings.Cut(actor, ":")
	if !ok {
		return actor, "", ""
	}
	switch kind {
	case "mcp":
		return kind, "", strings.TrimSpace(rest)
	case "key", "oauth":
		i := strings.IndexAny(rest, ":/ (")
		if i < 0 {
			return kind, rest, ""
		}
		return kind, rest[:i], strings.Trim(rest[i:], ":/ ()")
	}
	return actor, "", ""
}

// Who names the actor of a change for people: "Claude Code via key
// ‘laptop’", "you (on this page)", "outside vaultd"; names the owner gave
// and names clients sent are marked translate="no".
func (l *lang) Who(actor string) template.HTML {
	named := func(s string) string { return `<span translate="no">` + template.HTMLEscapeString(s) + `</span>` }
	kind, name, client := actorParts(actor)
	switch kind {
	case "owner", "cli", "trial":
		return l.html("who." + kind)
	case "external", vault.OutsideActor:
		return l.html("who.outside")
	case "mcp":
		if client == "" {
			return l.html("who.stdio")
		}
		return l.html("who.client_stdio", named(ClientName(client)))
	case "key", "oauth":
		conn := string(l.html("who."+kind, named(name)))
		if client == "" {
			return template.HTML(conn)
		}
		return l.html("who.via", named(ClientName(client)), conn)
	}
	if actor == "" {
		return l.html("who.unknown")
	}
	return template.HTML(named(actor))
}

// html is the text of key, escaped, with args — HTML already — put in
// for its %s verbs.
func (l *lang) html(key string, args ...string) template.HTML {
	marks := make([]any, len(args))
	for i := range args {
		marks[i] = fmt.Sprintf("\x01%d\x01", i)
	}
	out := template.HTMLEscapeString(l.T(key, marks...))
	for i, a := range args {
		out = strings.Replace(out, fmt.Sprintf("\x01%d\x01", i), a, 1)
	}
	return template.HTML(out)
}

// WhoText is Who as plain text (for option labels and titles).
func (l *lang) WhoText(actor string) string {
	return unescape(tagRE.ReplaceAllString(string(l.Who(actor)), ""))
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

func unescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&amp;", "&").Replace(s)
}

// Op is a change's operation in words: "update_section" → "section
// edited". An operation the page does not know is "changed".
func (l *lang) Op(op string) string {
	if m, ok := l.msgs["op."+op]; ok {
		return m
	}
	return l.T("op.other")
}

// ops are the operations the history records (vault.ChangeEntry.Op); each
// has its words in both languages (i18n_test checks).
var ops = []string{"create", "append", "update_section", "replace", "delete", "restore", "move", "rename",
	"update_links", "external", "set_properties", "resolve_conflict", "upload_attachment", "pin", "unpin"}

// summaryRules recognise the change summaries and details vaultd writes
// itself; each match is said with the message key and the groups it
// captured (translated in turn where the group is itself a summary: key
// ending in "~").
var summaryRules = []struct {
	re  *regexp.Regexp
	key string
}{
	{regexp.MustCompile(`^undo of change \S+: (.*)$`), "sum.undo~"},
	{regexp.MustCompile(`^undo of change \S+$`), "sum.undo_plain"},
	{regexp.MustCompile(`^restored from the trash on the owner's page$`), "sum.restored_trash"},
	{regexp.MustCompile(`^restored version \S+ on the owner's page$`), "sum.restored_version"},
	{regexp.MustCompile(`^restored the text as it was (before|after) a change on the owner's page$`), "sum.restored_text_"},
	{regexp.MustCompile(`^saved by another program at the moment of a vaultd write`), "sum.saved_by_other"},
	{regexp.MustCompile(`^changed outside vaultd right after a write$`), "sum.outside_after_write"},
	{regexp.MustCompile(`^merge conflict resolved: both sides kept$`), "sum.conflict_both"},
	{regexp.MustCompile(`^back to UTF-8 as committed`), "sum.utf8"},
	{regexp.MustCompile(`^changed outside vaultd (since|after) its last recorded change`), "detail.outside"},
	{regexp.MustCompile(`^not changed through vaultd( yet)?; modified at this time$`), "detail.never_recorded"},
	{regexp.MustCompile(`^appeared here outside vaultd after vaultd last saw this path$`), "detail.appeared"},
	{regexp.MustCompile(`^part of the (\w+) of (.+) \(change \S+\)$`), "detail.part_of"},
	{regexp.MustCompile(`^moved to trash as `), "detail.to_trash"},
}

// Summary says a change summary or detail vaultd wrote itself in the
// page's language, and reports whether all of it is vaultd's; a summary an
// agent or a person wrote is theirs and comes back as it is — also inside
// one of vaultd's ("undo of change …: <theirs>" → "undone: <theirs>").
func (l *lang) Summary(s string) (string, bool) {
	return l.summary(s, false)
}

// SummaryHTML is Summary for templates: what vaultd wrote in the page's
// language, what someone else wrote marked translate="no" (it is theirs,
// in whatever language they wrote it).
func (l *lang) SummaryHTML(s string) template.HTML {
	h, _ := l.summary(s, true)
	return template.HTML(h)
}

func (l *lang) summary(s string, html bool) (string, bool) {
	esc, theirs := func(x string) string { return x }, func(x string) string { return x }
	if html {
		esc = template.HTMLEscapeString
		theirs = func(x string) string { return `<span translate="no">` + template.HTMLEscapeString(x) + `</span>` }
	}
	s = strings.TrimSpace(s)
	for _, r := range summaryRules {
		m := r.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		switch r.key {
		case "sum.undo~":
			if strings.TrimSpace(m[1]) == "" {
				return esc(l.T("sum.undo_plain")), true
			}
			inner, ok := l.summary(m[1], html)
			if html {
				return string(l.html("sum.undo", inner)), ok
			}
			return l.T("sum.undo", inner), ok
		case "sum.restored_text_":
			return esc(l.T("sum.restored_text_" + m[1])), true
		case "detail.part_of":
			if html {
				return string(l.html("detail.part_of", esc(l.Op(m[1])), theirs(m[2]))), true
			}
			return l.T("detail.part_of", l.Op(m[1]), m[2]), true
		}
		return esc(l.T(r.key)), true
	}
	return theirs(s), false
}

// Detail is a change's detail (what a multi-file change did, how an
// outside change was found) in the page's language; none for one the page
// does not recognise on a page that is not English (the core writes them
// in English).
func (l *lang) Detail(s string) template.HTML {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	h, ok := l.summary(s, true)
	if !ok && l.Code != "en" {
		return ""
	}
	return template.HTML(h)
}

// Rights says a key's rights in words: "read, write".
func (l *lang) Rights(read, write, del bool) string {
	var out []string
	for _, r := range []struct {
		on  bool
		key string
	}{{read, "conn.read"}, {write, "conn.write"}, {del, "conn.delete"}} {
		if r.on {
			out = append(out, l.T(r.key))
		}
	}
	return strings.Join(out, ", ")
}

// months are the month names for the dates the page writes itself.
var months = map[string][12]string{
	"en": {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	"de": {"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
}

// Date is a day in words, as UTC: "5 December 2026" / "5. Dezember 2026".
func (l *lang) Date(t time.Time) string {
	t = t.UTC()
	return l.T("date.day", t.Day(), months[l.Code][t.Month()-1], t.Year())
}

// Day is the heading of a day of changes, seen from now (UTC, the server
// renders; the page's script regroups by the browser's days): "Today",
// "Yesterday", or the date.
func (l *lang) Day(t, now time.Time) string {
	d := t.UTC().Truncate(24 * time.Hour)
	today := now.UTC().Truncate(24 * time.Hour)
	switch today.Sub(d) {
	case 0:
		return l.T("day.today")
	case 24 * time.Hour:
		return l.T("day.yesterday")
	}
	return l.Date(t)
}

// Time is a <time> element for t: the clock time in UTC with the zone
// named (the script turns it into a relative time in the browser's zone,
// with the exact local time on hover).
func (l *lang) Time(t time.Time) template.HTML {
	u := t.UTC()
	exact := l.Date(u) + ", " + u.Format("15:04:05") + " UTC"
	return template.HTML(fmt.Sprintf(`<time datetime="%s" title="%s">%s</time>`,
		u.Format(time.RFC3339), template.HTMLEscapeString(exact), template.HTMLEscapeString(u.Format("15:04")+" UTC")))
}

// DateTime is a <time> element for t with its date: for lists that are
// not grouped by day.
func (l *lang) DateTime(t time.Time) template.HTML {
	if t.IsZero() {
		return ""
	}
	u := t.UTC()
	exact := l.Date(u) + ", " + u.Format("15:04:05") + " UTC"
	return template.HTML(fmt.Sprintf(`<time datetime="%s" title="%s" data-rel>%s</time>`,
		u.Format(time.RFC3339), template.HTMLEscapeString(exact), template.HTMLEscapeString(l.Date(u)+", "+u.Format("15:04")+" UTC")))
}
