package web

// The texts of the page over several vaults (vaults.go): the switcher,
// the Activity of every vault, a vault that is not served, and the vaults
// of keys and signed-in connections, in both languages; they join the
// page's texts (i18n.go) when the package starts.

func init() {
	for k, v := range enVaults {
		en.msgs[k] = v
	}
	for k, v := range deVaults {
		de.msgs[k] = v
	}
}

var enVaults = map[string]string{
	"vault.switch":          "Vaults",
	"vault.label":           "Vault:",
	"vault.all":             "All vaults",
	"vault.row":             "in the vault",
	"vault.unknown":         "There is no vault “%s” here (or it is no longer served); nothing was done. The vaults here: %s.",
	"vault.elsewhere":       "In another vault:",
	"vault.note_nowhere":    "No vault has a note “%s” (or a history of one). The vaults: %s.",
	"activity.intro_all":    "Every change to every vault, newest first, each with its vault: by agents, by you, and outside vaultd (Obsidian, git).",
	"conn.vaults":           "Vaults",
	"conn.vaults_hint":      "Every vault ticked, each with “general rights”: every vault, also those served later, with the rights chosen above. Untick a vault to keep the key out of it, or choose other rights there.",
	"conn.every_vault":      "every vault",
	"conn.not_served":       "not served now",
	"conn.rights_same":      "general rights",
	"conn.rights_in":        "Rights in the vault",
	"conn.change_vaults":    "Change vaults",
	"conn.vaults_of":        "Vaults of %s",
	"conn.vaults_set":       "%s now reaches: %s.",
	"conn.rights_per_vault": "Its rights per vault stay as set under Vaults: %s.",
	"conn.bad_vaults":       "Tick at least one vault. In each vault a connection needs read, and delete needs write.",
	"consent.vaults":        "Vaults the client may use",
	"consent.vaults_hint":   "Every vault ticked, each with “general rights”: every vault, also those served later, with the rights chosen above. Untick a vault to keep the client out of it, or choose other rights there.",
}

var deVaults = map[string]string{
	"vault.switch":          "Vaults",
	"vault.label":           "Vault:",
	"vault.all":             "Alle Vaults",
	"vault.row":             "im Vault",
	"vault.unknown":         "Einen Vault „%s“ gibt es hier nicht (oder nicht mehr); nichts wurde getan. Die Vaults hier: %s.",
	"vault.elsewhere":       "In einem anderen Vault:",
	"vault.note_nowhere":    "Kein Vault hat eine Notiz „%s“ (oder einen Verlauf davon). Die Vaults: %s.",
	"activity.intro_all":    "Jede Änderung an jedem Vault, neueste zuerst, jede mit ihrem Vault: von Agenten, von dir und außerhalb von vaultd (Obsidian, git).",
	"conn.vaults":           "Vaults",
	"conn.vaults_hint":      "Jeder Vault angehakt, jeder mit „allgemeine Rechte“: jeder Vault, auch später bediente, mit den oben gewählten Rechten. Nimm einem Vault den Haken, um den Schlüssel dort auszuschließen, oder wähle dort andere Rechte.",
	"conn.every_vault":      "jeder Vault",
	"conn.not_served":       "derzeit nicht bedient",
	"conn.rights_same":      "allgemeine Rechte",
	"conn.rights_in":        "Rechte im Vault",
	"conn.change_vaults":    "Vaults ändern",
	"conn.vaults_of":        "Vaults von %s",
	"conn.vaults_set":       "%s erreicht jetzt: %s.",
	"conn.rights_per_vault": "Die Rechte je Vault bleiben, wie unter Vaults gesetzt: %s.",
	"conn.bad_vaults":       "Hake mindestens einen Vault an. In jedem Vault braucht eine Verbindung Lesen, und Löschen braucht Schreiben.",
	"consent.vaults":        "Vaults, die der Client benutzen darf",
	"consent.vaults_hint":   "Jeder Vault angehakt, jeder mit „allgemeine Rechte“: jeder Vault, auch später bediente, mit den oben gewählten Rechten. Nimm einem Vault den Haken, um den Client dort auszuschließen, oder wähle dort andere Rechte.",
}
