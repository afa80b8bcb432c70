package web

import (
	"fmt"
	"net/http"

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

// langFor picks English or German by the browser's Accept-Language.
func langFor(r *http.Request) *lang {
	tags, _, _ := language.ParseAcceptLanguage(r.Header.Get("Accept-Language"))
	_, i, conf := matcher.Match(tags...)
	if i == 1 && conf != language.No {
		return de
	}
	return en
}

var en = &lang{Code: "en", msgs: map[string]string{
	"title":                 "vaultd — your vault",
	"nav.activity":          "Activity",
	"nav.trash":             "Trash",
	"nav.connections":       "Connections",
	"signout":               "Sign out",
	"signin.title":          "Sign in",
	"signin.intro":          "This page belongs to the vault's owner. Sign in with a one-time link: run this on the machine with the vault, and open the link it prints (good for 15 minutes, once).",
	"signin.button":         "Sign in",
	"signin.confirm":        "Sign in to this vault's page with the link you opened?",
	"error.link_invalid":    "This sign-in link is unknown, was used already or has expired. Ask for a new one with: vaultd owner link",
	"refused.title":         "Refused",
	"refused.not_signed_in": "You are not signed in (or your sign-in expired). Sign in again with a new link.",
	"refused.cross_site":    "This request did not come from this page (another site, or a form without this page's security token), so nothing was changed. Go back to the page and try again there.",
	"refused.bad_form":      "The form could not be read. Go back and try again.",
	"refused.not_found":     "There is no such page here.",
	"refused.back":          "Back to the page",
	"activity.title":        "Activity",
	"activity.intro":        "Every change to the vault, newest first: by agents, by you, and outside vaultd (Obsidian, git).",
	"activity.none":         "No changes match.",
	"activity.showing":      "Showing %d–%d of %d changes",
	"filter.space":          "Space",
	"filter.folder":         "Folder",
	"filter.actor":          "Who",
	"filter.since":          "Since",
	"filter.until":          "Until",
	"filter.apply":          "Filter",
	"filter.any":            "any",
	"filter.hint":           "e.g. 7d, 24h, 2026-11-20",
	"col.when":              "When",
	"col.who":               "Who",
	"col.what":              "What",
	"col.note":              "Note",
	"col.summary":           "Summary",
	"external":              "outside vaultd",
	"undo":                  "Undo",
	"undo.done":             "Undone: %s",
	"undo.refused":          "Not undone",
	"history":               "History",
	"more":                  "Older changes",
	"live":                  "Updates live",
	"trash.title":           "Trash",
	"trash.intro":           "Notes deleted through vaultd, newest first. Restore puts a note back where it was, with the sub-notes that went along.",
	"trash.empty_state":     "The trash is empty.",
	"trash.deleted":         "Deleted",
	"trash.from":            "From",
	"trash.why":             "Why",
	"restore":               "Restore",
	"restore.done":          "Restored: %s",
	"restore.refused":       "Not restored",
	"restore.as":            "Restore as %s",
	"empty.title":           "Empty the trash",
	"empty.older":           "Delete for good the notes deleted more than this many days ago",
	"empty.days":            "days",
	"empty.check":           "Continue",
	"empty.confirm":         "This deletes %d notes for good. Their texts stay in vaultd's history.",
	"empty.none":            "No note in the trash is older than that.",
	"empty.yes":             "Delete %d notes for good",
	"empty.changed":         "The trash changed since you confirmed: now %d notes would go. Confirm again.",
	"empty.done":            "Emptied: %d notes deleted for good, %d kept.",
	"cancel":                "Cancel",
	"note.title":            "History of %s",
	"note.gone":             "The note does not exist any more; these are the changes recorded for it.",
	"note.version":          "Version",
	"note.restore":          "Restore this version",
	"note.restored":         "Restored version %s: %s",
	"note.refused":          "Not restored",
	"note.current":          "current",
	"note.path_then":        "then at %s",
	"diff":                  "Diff",
	"conn.title":            "Connections",
	"conn.intro":            "Access keys let agents connect to this vault over HTTP, each with its own rights. Deleting (moving notes to the trash) is off unless you turn it on.",
	"conn.none":             "No access keys yet.",
	"conn.name":             "Name",
	"conn.rights":           "Rights",
	"conn.created":          "Created",
	"conn.last_used":        "Last used",
	"conn.never":            "never",
	"conn.revoke":           "Revoke",
	"conn.change":           "Change rights",
	"conn.create":           "Create an access key",
	"conn.create_button":    "Create key",
	"conn.read":             "read",
	"conn.write":            "write",
	"conn.delete":           "delete",
	"conn.secret":           "The key %s was created. Its secret is shown only now — vaultd keeps just its hash. Copy the line for your client:",
	"conn.revoked":          "Revoked %s: its clients are refused from their next request, and their open streams are closed.",
	"conn.rights_set":       "%s now has the rights %s.",
	"conn.failed":           "Not done",
	"conn.name_hint":        "letters, digits, . _ -",
}}

var de = &lang{Code: "de", msgs: map[string]string{
	"title":                 "vaultd — dein Vault",
	"nav.activity":          "Aktivität",
	"nav.trash":             "Papierkorb",
	"nav.connections":       "Verbindungen",
	"signout":               "Abmelden",
	"signin.title":          "Anmelden",
	"signin.intro":          "Diese Seite gehört dem Besitzer des Vaults. Melde dich mit einem Einmal-Link an: führe dies auf dem Rechner mit dem Vault aus und öffne den Link, den es ausgibt (15 Minuten gültig, einmal).",
	"signin.button":         "Anmelden",
	"signin.confirm":        "Mit dem geöffneten Link bei der Seite dieses Vaults anmelden?",
	"error.link_invalid":    "Dieser Anmelde-Link ist unbekannt, schon benutzt oder abgelaufen. Einen neuen gibt: vaultd owner link",
	"refused.title":         "Abgelehnt",
	"refused.not_signed_in": "Du bist nicht angemeldet (oder die Anmeldung ist abgelaufen). Melde dich mit einem neuen Link wieder an.",
	"refused.cross_site":    "Diese Anfrage kam nicht von dieser Seite (eine andere Website oder ein Formular ohne das Sicherheitstoken dieser Seite); nichts wurde geändert. Geh zurück zur Seite und versuche es dort.",
	"refused.bad_form":      "Das Formular war nicht lesbar. Geh zurück und versuche es noch einmal.",
	"refused.not_found":     "Diese Seite gibt es hier nicht.",
	"refused.back":          "Zurück zur Seite",
	"activity.title":        "Aktivität",
	"activity.intro":        "Jede Änderung am Vault, neueste zuerst: von Agenten, von dir und außerhalb von vaultd (Obsidian, git).",
	"activity.none":         "Keine passenden Änderungen.",
	"activity.showing":      "Änderungen %d–%d von %d",
	"filter.space":          "Bereich",
	"filter.folder":         "Ordner",
	"filter.actor":          "Wer",
	"filter.since":          "Seit",
	"filter.until":          "Bis",
	"filter.apply":          "Filtern",
	"filter.any":            "alle",
	"filter.hint":           "z. B. 7d, 24h, 2026-11-20",
	"col.when":              "Wann",
	"col.who":               "Wer",
	"col.what":              "Was",
	"col.note":              "Notiz",
	"col.summary":           "Zusammenfassung",
	"external":              "außerhalb von vaultd",
	"undo":                  "Rückgängig",
	"undo.done":             "Rückgängig gemacht: %s",
	"undo.refused":          "Nicht rückgängig gemacht",
	"history":               "Verlauf",
	"more":                  "Ältere Änderungen",
	"live":                  "Aktualisiert sich live",
	"trash.title":           "Papierkorb",
	"trash.intro":           "Über vaultd gelöschte Notizen, neueste zuerst. Wiederherstellen legt eine Notiz zurück, wo sie war, mit den Unternotizen, die mitgingen.",
	"trash.empty_state":     "Der Papierkorb ist leer.",
	"trash.deleted":         "Gelöscht",
	"trash.from":            "Von",
	"trash.why":             "Warum",
	"restore":               "Wiederherstellen",
	"restore.done":          "Wiederhergestellt: %s",
	"restore.refused":       "Nicht wiederhergestellt",
	"restore.as":            "Als %s wiederherstellen",
	"empty.title":           "Papierkorb leeren",
	"empty.older":           "Notizen endgültig löschen, die vor mehr als so vielen Tagen gelöscht wurden",
	"empty.days":            "Tage",
	"empty.check":           "Weiter",
	"empty.confirm":         "Damit werden %d Notizen endgültig gelöscht. Ihre Texte bleiben im Verlauf von vaultd.",
	"empty.none":            "Keine Notiz im Papierkorb ist so alt.",
	"empty.yes":             "%d Notizen endgültig löschen",
	"empty.changed":         "Der Papierkorb hat sich seit der Bestätigung geändert: jetzt wären es %d Notizen. Bitte noch einmal bestätigen.",
	"empty.done":            "Geleert: %d Notizen endgültig gelöscht, %d behalten.",
	"cancel":                "Abbrechen",
	"note.title":            "Verlauf von %s",
	"note.gone":             "Die Notiz gibt es nicht mehr; dies sind die für sie aufgezeichneten Änderungen.",
	"note.version":          "Version",
	"note.restore":          "Diese Version wiederherstellen",
	"note.restored":         "Version %s wiederhergestellt: %s",
	"note.refused":          "Nicht wiederhergestellt",
	"note.current":          "aktuell",
	"note.path_then":        "damals unter %s",
	"diff":                  "Unterschiede",
	"conn.title":            "Verbindungen",
	"conn.intro":            "Mit Zugangsschlüsseln verbinden sich Agenten über HTTP mit diesem Vault, jeder mit eigenen Rechten. Löschen (Notizen in den Papierkorb legen) ist aus, solange du es nicht einschaltest.",
	"conn.none":             "Noch keine Zugangsschlüssel.",
	"conn.name":             "Name",
	"conn.rights":           "Rechte",
	"conn.created":          "Erstellt",
	"conn.last_used":        "Zuletzt benutzt",
	"conn.never":            "nie",
	"conn.revoke":           "Widerrufen",
	"conn.change":           "Rechte ändern",
	"conn.create":           "Zugangsschlüssel erstellen",
	"conn.create_button":    "Schlüssel erstellen",
	"conn.read":             "lesen",
	"conn.write":            "schreiben",
	"conn.delete":           "löschen",
	"conn.secret":           "Der Schlüssel %s wurde erstellt. Sein Geheimnis wird nur jetzt gezeigt — vaultd behält nur seinen Hash. Kopiere die Zeile für deinen Client:",
	"conn.revoked":          "%s widerrufen: seine Clients werden ab ihrer nächsten Anfrage abgewiesen, ihre offenen Streams geschlossen.",
	"conn.rights_set":       "%s hat jetzt die Rechte %s.",
	"conn.failed":           "Nicht erledigt",
	"conn.name_hint":        "Buchstaben, Ziffern, . _ -",
}}
