package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/text/language"
)

// lang is one language of the page's texts.
type lang struct {
	Code string
	msgs map[string]string
}

// T returns the text for key; with args, key's text is a format.
func (l *lang) T(key string, args ...any) string {
	m, ok := l.msgs[key]
	if !ok {
		m, ok = en.msgs[key]
	}
	if !ok {
		return key
	}
	if len(args) > 0 {
		return fmt.Sprintf(m, args...)
	}
	return m
}

var matcher = language.NewMatcher([]language.Tag{language.English, language.German})

// LangCookie keeps the language the owner picked on the page (the
// footer's switch); without it the browser's Accept-Language decides.
const LangCookie = "vaultd_lang"

// langFor picks English or German: the owner's pick, else the browser's
// Accept-Language.
func langFor(r *http.Request) *lang {
	if c, err := r.Cookie(LangCookie); err == nil {
		switch c.Value {
		case "de":
			return de
		case "en":
			return en
		}
	}
	tags, _, _ := language.ParseAcceptLanguage(r.Header.Get("Accept-Language"))
	_, i, conf := matcher.Match(tags...)
	if i == 1 && conf != language.No {
		return de
	}
	return en
}

var en = &lang{Code: "en", msgs: map[string]string{
	"title":                  "vaultd — your vault",
	"nav.activity":           "Activity",
	"nav.trash":              "Trash",
	"nav.connections":        "Connections",
	"signout":                "Sign out",
	"signin.title":           "Sign in",
	"signin.intro":           "This page belongs to the vault's owner. Sign in with a one-time link: run this on the machine with the vault, and open the link it prints (good for 15 minutes, once).",
	"signin.button":          "Sign in",
	"signin.confirm":         "Sign in to this vault's page with the link you opened?",
	"error.link_invalid":     "This sign-in link is unknown, was used already or has expired. Ask for a new one on the machine with the vault:",
	"refused.title":          "Refused",
	"refused.not_signed_in":  "You are not signed in (or your sign-in expired). Sign in again with a new link.",
	"refused.cross_site":     "This request did not come from this page (another site, or a form without this page's security token), so nothing was changed. Go back to the page and try again there.",
	"refused.bad_form":       "The form could not be read. Go back and try again.",
	"refused.not_found":      "There is no such page here.",
	"refused.back":           "Back to the page",
	"activity.title":         "Activity",
	"activity.intro":         "Every change to the vault, newest first: by agents, by you, and outside vaultd (Obsidian, git).",
	"activity.none":          "No changes match.",
	"activity.showing":       "Showing %d–%d of %d changes",
	"filter.space":           "Space",
	"filter.folder":          "Folder",
	"filter.actor":           "Who",
	"filter.since":           "Since",
	"filter.until":           "Until",
	"filter.apply":           "Filter",
	"filter.any":             "any",
	"filter.hint":            "e.g. 7d, 24h, 2026-11-20",
	"col.when":               "When",
	"col.who":                "Who",
	"col.what":               "What",
	"col.note":               "Note",
	"col.summary":            "Summary",
	"external":               "outside vaultd",
	"undo":                   "Undo",
	"undo.done":              "Undone: %s",
	"undo.refused":           "Not undone",
	"history":                "History",
	"more":                   "Older changes",
	"live":                   "Updates live",
	"trash.title":            "Trash",
	"trash.intro":            "Notes deleted through vaultd, newest first. Restore puts a note back where it was, with the sub-notes that went along.",
	"trash.empty_state":      "The trash is empty.",
	"trash.deleted":          "Deleted",
	"trash.from":             "From",
	"trash.why":              "Why",
	"restore":                "Restore",
	"restore.done":           "Restored: %s",
	"restore.refused":        "Not restored",
	"restore.as":             "Restore as %s",
	"empty.title":            "Empty the trash",
	"empty.older":            "Delete for good the notes deleted more than this many days ago",
	"empty.days":             "days",
	"empty.check":            "Continue",
	"empty.confirm":          "This deletes %d notes for good. Their texts stay in vaultd's history.",
	"empty.none":             "No note in the trash is older than that.",
	"empty.yes":              "Delete %d notes for good",
	"empty.changed":          "The trash changed since you confirmed: now %d notes would go. Confirm again.",
	"empty.done":             "Emptied: %d notes deleted for good, %d kept.",
	"cancel":                 "Cancel",
	"note.title":             "History of %s",
	"note.gone":              "The note does not exist any more; these are the changes recorded for it.",
	"note.version":           "Version",
	"note.restore":           "Restore this version",
	"note.restored":          "Restored version %s: %s",
	"note.refused":           "Not restored",
	"note.current":           "current",
	"note.path_then":         "then at %s",
	"diff":                   "Diff",
	"conn.title":             "Connections",
	"conn.intro":             "Access keys let agents connect to this vault over HTTP, each with its own rights. Deleting (moving notes to the trash) is off unless you turn it on.",
	"conn.none":              "No access keys yet.",
	"conn.name":              "Name",
	"conn.rights":            "Rights",
	"conn.created":           "Created",
	"conn.last_used":         "Last used",
	"conn.never":             "never",
	"conn.revoke":            "Revoke",
	"conn.change":            "Change rights",
	"conn.create":            "Create an access key",
	"conn.create_button":     "Create key",
	"conn.read":              "read",
	"conn.write":             "write",
	"conn.delete":            "delete",
	"conn.secret":            "The key %s was created. Its secret is shown only now — vaultd keeps just its hash. Copy the line for your client:",
	"conn.revoked":           "Revoked %s: its clients are refused from their next request, and their open streams are closed.",
	"conn.rights_set":        "%s now has the rights %s.",
	"conn.failed":            "Not done",
	"conn.name_hint":         "letters, digits, . _ -",
	"consent.title":          "Connect a client to this vault",
	"consent.continue":       "Continue to the connection request",
	"consent.refused":        "This sign-in request cannot be approved, and nothing was sent to the client:",
	"consent.intro":          "%s asks to connect to this vault as an MCP client. Approve only if you started this connection yourself.",
	"consent.client":         "Client",
	"consent.redirect":       "Returns to",
	"consent.resource":       "Connects to",
	"consent.warning":        "The client acts with the rights you choose here until you revoke it under Connections. Deleting (moving notes to the trash) is off unless you turn it on.",
	"consent.name":           "Name of the connection (the history shows who made a change by this name)",
	"consent.approve":        "Approve",
	"consent.deny":           "Refuse",
	"consent.bad_name":       "The name %q cannot be used: give 1–40 letters, digits, '.', '_' or '-', starting with a letter or digit.",
	"consent.failed":         "The connection could not be stored; see vaultd's log.",
	"consent.untrusted":      "It would return to %s, the address of a client you have not approved a connection of, so this page does not send your browser there: anyone can register a client with any address. If you started this connection yourself, start it again from the client.",
	"consent.denied":         "You refused the connection of %s. The client was not told: its address %s is not one of a client you approved, so this page does not send your browser there. You can close this page.",
	"authz.repeated":         "The sign-in request names %s more than once; nothing was sent to the client, start the connection again from it.",
	"authz.no_client":        "The sign-in request names no client (client_id is missing); start the connection again from your client.",
	"authz.store":            "The server cannot read its sign-in store; see vaultd's log.",
	"authz.unknown_client":   "The client %q is not registered with this vault (or was dropped); start the connection again from your client, so that it registers.",
	"authz.no_redirect":      "The sign-in request of %q names no redirect address, and the client registered several (%s); nothing was sent to any.",
	"authz.bad_redirect":     "The sign-in request of %q names the redirect address %q, which the client did not register (it registered %s); nothing was sent there.",
	"authz.response_type":    "response_type %q is not supported; vaultd offers only code.",
	"authz.no_challenge":     "code_challenge is missing: vaultd requires PKCE with S256.",
	"authz.challenge_method": "code_challenge_method %q is refused; vaultd accepts only S256.",
	"authz.bad_challenge":    "code_challenge is not an S256 challenge (43 characters of base64url).",
	"authz.resource":         "resource %q is not served here; this server signs in only for %s.",
	"signin.consent":         "A client waits for your approval: once you are signed in, you return to it.",
	"grant.title":            "Signed-in connections",
	"grant.intro":            "Clients that signed in (OAuth: claude.ai, ChatGPT, Claude Code without a key) and that you approved. Revoking refuses them from their next request and closes their open streams.",
	"grant.client":           "Client",
	"grant.granted":          "Granted",
	"grant.none":             "No signed-in connections yet.",
	"grant.gone":             "This connection does not exist any more (revoked already?).",
}}

var de = &lang{Code: "de", msgs: map[string]string{
	"title":                  "vaultd — dein Vault",
	"nav.activity":           "Aktivität",
	"nav.trash":              "Papierkorb",
	"nav.connections":        "Verbindungen",
	"signout":                "Abmelden",
	"signin.title":           "Anmelden",
	"signin.intro":           "Diese Seite gehört dem Besitzer des Vaults. Melde dich mit einem Einmal-Link an: führe dies auf dem Rechner mit dem Vault aus und öffne den Link, den es ausgibt (15 Minuten gültig, einmal).",
	"signin.button":          "Anmelden",
	"signin.confirm":         "Mit dem geöffneten Link bei der Seite dieses Vaults anmelden?",
	"error.link_invalid":     "Dieser Anmelde-Link ist unbekannt, schon benutzt oder abgelaufen. Einen neuen bekommst du auf dem Rechner mit dem Vault:",
	"refused.title":          "Abgelehnt",
	"refused.not_signed_in":  "Du bist nicht angemeldet (oder die Anmeldung ist abgelaufen). Melde dich mit einem neuen Link wieder an.",
	"refused.cross_site":     "Diese Anfrage kam nicht von dieser Seite (eine andere Website oder ein Formular ohne das Sicherheitstoken dieser Seite); nichts wurde geändert. Geh zurück zur Seite und versuche es dort.",
	"refused.bad_form":       "Das Formular war nicht lesbar. Geh zurück und versuche es noch einmal.",
	"refused.not_found":      "Diese Seite gibt es hier nicht.",
	"refused.back":           "Zurück zur Seite",
	"activity.title":         "Aktivität",
	"activity.intro":         "Jede Änderung am Vault, neueste zuerst: von Agenten, von dir und außerhalb von vaultd (Obsidian, git).",
	"activity.none":          "Keine passenden Änderungen.",
	"activity.showing":       "Änderungen %d–%d von %d",
	"filter.space":           "Bereich",
	"filter.folder":          "Ordner",
	"filter.actor":           "Wer",
	"filter.since":           "Seit",
	"filter.until":           "Bis",
	"filter.apply":           "Filtern",
	"filter.any":             "alle",
	"filter.hint":            "z. B. 7d, 24h, 2026-11-20",
	"col.when":               "Wann",
	"col.who":                "Wer",
	"col.what":               "Was",
	"col.note":               "Notiz",
	"col.summary":            "Zusammenfassung",
	"external":               "außerhalb von vaultd",
	"undo":                   "Rückgängig",
	"undo.done":              "Rückgängig gemacht: %s",
	"undo.refused":           "Nicht rückgängig gemacht",
	"history":                "Verlauf",
	"more":                   "Ältere Änderungen",
	"live":                   "Aktualisiert sich live",
	"trash.title":            "Papierkorb",
	"trash.intro":            "Über vaultd gelöschte Notizen, neueste zuerst. Wiederherstellen legt eine Notiz zurück, wo sie war, mit den Unternotizen, die mitgingen.",
	"trash.empty_state":      "Der Papierkorb ist leer.",
	"trash.deleted":          "Gelöscht",
	"trash.from":             "Von",
	"trash.why":              "Warum",
	"restore":                "Wiederherstellen",
	"restore.done":           "Wiederhergestellt: %s",
	"restore.refused":        "Nicht wiederhergestellt",
	"restore.as":             "Als %s wiederherstellen",
	"empty.title":            "Papierkorb leeren",
	"empty.older":            "Notizen endgültig löschen, die vor mehr als so vielen Tagen gelöscht wurden",
	"empty.days":             "Tage",
	"empty.check":            "Weiter",
	"empty.confirm":          "Damit werden %d Notizen endgültig gelöscht. Ihre Texte bleiben im Verlauf von vaultd.",
	"empty.none":             "Keine Notiz im Papierkorb ist so alt.",
	"empty.yes":              "%d Notizen endgültig löschen",
	"empty.changed":          "Der Papierkorb hat sich seit der Bestätigung geändert: jetzt wären es %d Notizen. Bitte noch einmal bestätigen.",
	"empty.done":             "Geleert: %d Notizen endgültig gelöscht, %d behalten.",
	"cancel":                 "Abbrechen",
	"note.title":             "Verlauf von %s",
	"note.gone":              "Die Notiz gibt es nicht mehr; dies sind die für sie aufgezeichneten Änderungen.",
	"note.version":           "Version",
	"note.restore":           "Diese Version wiederherstellen",
	"note.restored":          "Version %s wiederhergestellt: %s",
	"note.refused":           "Nicht wiederhergestellt",
	"note.current":           "aktuell",
	"note.path_then":         "damals unter %s",
	"diff":                   "Unterschiede",
	"conn.title":             "Verbindungen",
	"conn.intro":             "Mit Zugangsschlüsseln verbinden sich Agenten über HTTP mit diesem Vault, jeder mit eigenen Rechten. Löschen (Notizen in den Papierkorb legen) ist aus, solange du es nicht einschaltest.",
	"conn.none":              "Noch keine Zugangsschlüssel.",
	"conn.name":              "Name",
	"conn.rights":            "Rechte",
	"conn.created":           "Erstellt",
	"conn.last_used":         "Zuletzt benutzt",
	"conn.never":             "nie",
	"conn.revoke":            "Widerrufen",
	"conn.change":            "Rechte ändern",
	"conn.create":            "Zugangsschlüssel erstellen",
	"conn.create_button":     "Schlüssel erstellen",
	"conn.read":              "lesen",
	"conn.write":             "schreiben",
	"conn.delete":            "löschen",
	"conn.secret":            "Der Schlüssel %s wurde erstellt. Sein Geheimnis wird nur jetzt gezeigt — vaultd behält nur seinen Hash. Kopiere die Zeile für deinen Client:",
	"conn.revoked":           "%s widerrufen: seine Clients werden ab ihrer nächsten Anfrage abgewiesen, ihre offenen Streams geschlossen.",
	"conn.rights_set":        "%s hat jetzt die Rechte %s.",
	"conn.failed":            "Nicht erledigt",
	"conn.name_hint":         "Buchstaben, Ziffern, . _ -",
	"consent.title":          "Einen Client mit diesem Vault verbinden",
	"consent.continue":       "Weiter zur Verbindungsanfrage",
	"consent.refused":        "Diese Anmeldeanfrage kann nicht erlaubt werden; an den Client wurde nichts geschickt:",
	"consent.intro":          "%s möchte sich als MCP-Client mit diesem Vault verbinden. Erlaube es nur, wenn du diese Verbindung selbst begonnen hast.",
	"consent.client":         "Client",
	"consent.redirect":       "Kehrt zurück zu",
	"consent.resource":       "Verbindet sich mit",
	"consent.warning":        "Der Client handelt mit den Rechten, die du hier wählst, bis du ihn unter Verbindungen widerrufst. Löschen (Notizen in den Papierkorb legen) ist aus, solange du es nicht einschaltest.",
	"consent.name":           "Name der Verbindung (der Verlauf nennt unter diesem Namen, wer etwas geändert hat)",
	"consent.approve":        "Erlauben",
	"consent.deny":           "Ablehnen",
	"consent.bad_name":       "Der Name %q geht nicht: 1–40 Buchstaben, Ziffern, '.', '_' oder '-', am Anfang ein Buchstabe oder eine Ziffer.",
	"consent.failed":         "Die Verbindung konnte nicht gespeichert werden; siehe das Log von vaultd.",
	"consent.untrusted":      "Sie würde zu %s zurückkehren, der Adresse eines Clients, dessen Verbindung du noch nicht erlaubt hast; darum schickt diese Seite deinen Browser nicht dorthin: jeder kann einen Client mit jeder Adresse registrieren. Wenn du diese Verbindung selbst begonnen hast, beginne sie im Client noch einmal.",
	"consent.denied":         "Du hast die Verbindung von %s abgelehnt. Der Client wurde nicht benachrichtigt: seine Adresse %s gehört keinem Client, den du erlaubt hast, darum schickt diese Seite deinen Browser nicht dorthin. Du kannst diese Seite schließen.",
	"authz.repeated":         "Die Anmeldeanfrage nennt %s mehr als einmal; an den Client wurde nichts geschickt, beginne die Verbindung dort noch einmal.",
	"authz.no_client":        "Die Anmeldeanfrage nennt keinen Client (client_id fehlt); beginne die Verbindung im Client noch einmal.",
	"authz.store":            "Der Server kann seinen Anmeldespeicher nicht lesen; siehe das Log von vaultd.",
	"authz.unknown_client":   "Der Client %q ist bei diesem Vault nicht registriert (oder wurde entfernt); beginne die Verbindung im Client noch einmal, damit er sich registriert.",
	"authz.no_redirect":      "Die Anmeldeanfrage von %q nennt keine Rückkehradresse, und der Client hat mehrere registriert (%s); an keine wurde etwas geschickt.",
	"authz.bad_redirect":     "Die Anmeldeanfrage von %q nennt die Rückkehradresse %q, die der Client nicht registriert hat (registriert: %s); dorthin wurde nichts geschickt.",
	"authz.response_type":    "response_type %q wird nicht unterstützt; vaultd bietet nur code.",
	"authz.no_challenge":     "code_challenge fehlt: vaultd verlangt PKCE mit S256.",
	"authz.challenge_method": "code_challenge_method %q wird abgelehnt; vaultd nimmt nur S256.",
	"authz.bad_challenge":    "code_challenge ist keine S256-Challenge (43 Zeichen base64url).",
	"authz.resource":         "resource %q wird hier nicht bedient; dieser Server meldet nur für %s an.",
	"signin.consent":         "Ein Client wartet auf deine Erlaubnis: sobald du angemeldet bist, kommst du zu ihm zurück.",
	"grant.title":            "Angemeldete Verbindungen",
	"grant.intro":            "Clients, die sich angemeldet haben (OAuth: claude.ai, ChatGPT, Claude Code ohne Schlüssel) und die du erlaubt hast. Widerrufen weist sie ab ihrer nächsten Anfrage ab und schließt ihre offenen Streams.",
	"grant.client":           "Client",
	"grant.granted":          "Erlaubt am",
	"grant.none":             "Noch keine angemeldeten Verbindungen.",
	"grant.gone":             "Diese Verbindung gibt es nicht mehr (schon widerrufen?).",
}}

// setLang keeps the language the owner picked (a year, this page only)
// and goes back to the page the switch was on.
func (s *Server) setLang(w http.ResponseWriter, r *http.Request) {
	to := r.URL.Query().Get("to")
	if to != "de" && to != "en" {
		to = ""
	}
	c := &http.Cookie{Name: LangCookie, Value: to, Path: "/", MaxAge: 365 * 24 * 3600, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: scheme(r) == "https"}
	if to == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
	next := "/"
	if ref, err := url.Parse(r.Header.Get("Referer")); err == nil && strings.EqualFold(ref.Host, r.Host) && strings.HasPrefix(ref.Path, "/") && !strings.HasPrefix(ref.Path, "//") {
		next = ref.RequestURI()
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}
