package index

import (
	"slices"
	"strings"
	"testing"
)

// TestParseQuery_QuestionSyntax: a question typed as it is asked searches
// its subject; the words that make it a question (the question word, a
// degree word right after it, "dauert" after "wie lange", "gibt" beside
// "es", "ab" or "seit" before one, the modal verbs) are left out and reported without their
// punctuation, and the same words elsewhere are searched.
func TestParseQuery_QuestionSyntax(t *testing.T) {
	for _, c := range []struct{ q, words, ignored string }{
		{"Wie lange dauert die Amtszeit des Betriebsrats?", "Amtszeit Betriebsrats?", "Wie lange dauert die des"},
		{"Wie viele Stunden darf ein Arbeitnehmer täglich arbeiten?", "Stunden Arbeitnehmer täglich arbeiten?", "Wie viele darf ein"},
		{"Darf eine Schwangere nachts arbeiten?", "Schwangere nachts arbeiten?", "Darf eine"},
		{"Wie hoch ist das Budget?", "Budget?", "Wie hoch ist das"},
		{"How long does the warranty last?", "warranty", "How long does the last"},
		{"Welche Kündigungsfristen gibt es?", "Kündigungsfristen", "Welche gibt es"},
		{"Gibt es eine Probezeit?", "Probezeit?", "Gibt es eine"},
		{"Probezeit gibt Auskunft", "Probezeit gibt Auskunft", ""},
		{"Wie lange wird die Frist dauern?", "Frist", "Wie lange wird die dauern"},
		{"how many days of leave", "days leave", "how many of"},
		{"minutes from May", "minutes May", "from"},
		{"Ab wann ist man volljährig?", "volljährig?", "Ab wann ist man"},
		{"Seit welchem Jahr gilt die Regel?", "Jahr gilt Regel?", "Seit welchem die"},
		{"since when is the API deprecated", "API deprecated", "since when is the"},
		// Not after a question word: words like any other.
		{"lange Nacht der Museen", "lange Nacht Museen", "der"},
		{"Dauer der Amtszeit", "Dauer Amtszeit", "der"},
		{"hoch wie ein Haus", "hoch Haus", "wie ein"},
		{"Arbeitszeit dauert", "Arbeitszeit dauert", ""},
		{"ab Montag geschlossen", "ab Montag geschlossen", ""},
		{"seit 2020 im Amt", "seit 2020 Amt", "im"},
		// Excluded words stay excluded.
		{"Wie -lange Amtszeit", "Amtszeit", "Wie"},
	} {
		pq, err := parseQuery(c.q)
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		var words []string
		for _, m := range pq.must {
			words = append(words, m.raw)
		}
		if got := strings.Join(words, " "); got != c.words {
			t.Errorf("%q: searched %q, want %q", c.q, got, c.words)
		}
		if got := strings.Join(pq.ignored, " "); got != c.ignored {
			t.Errorf("%q: left out %q, want %q", c.q, got, c.ignored)
		}
	}
}

// A word the query repeats, in the same or another form, counts once: twice
// "key" made every note titled "… key" outrank the page that holds every
// word of the question (tldr: "get the public key from a private key with
// ssh-keygen" put tlmgr-key, gh-gpg-key and gh-ssh-key before ssh-keygen).
func TestSearch_RepeatedWordCountsOnce(t *testing.T) {
	pq, err := parseQuery("public key from a private key, keys and KEY")
	if err != nil {
		t.Fatal(err)
	}
	var terms []string
	for _, c := range pq.must {
		terms = append(terms, c.words[0].Term)
	}
	if got := strings.Join(terms, " "); got != "public kei privat" {
		t.Errorf("clauses = %q, want each word once: %q", got, "public kei privat")
	}

	v, _ := newVault(t, map[string]string{
		"common/tlmgr-key.md":  "# tlmgr key\n\n> Manage GPG keys used to verify TeX Live databases.\n\n- List all keys:\n\n`tlmgr key list`\n\n- Add a key from a specific file:\n\n`sudo tlmgr key add {{path/to/key.gpg}}`\n",
		"common/gh-gpg-key.md": "# gh gpg-key\n\n> Manage GPG keys registered with the authorized GitHub account.\n\n- List GPG keys:\n\n`gh gpg-key list`\n\n- Add a GPG key:\n\n`gh gpg-key add {{path/to/key_file}}`\n",
		"common/salt-key.md":   "# salt-key\n\n> Manage salt minion keys.\n\n- List all keys:\n\n`salt-key {{[-L|--list-all]}}`\n\n- Print fingerprints of all public keys:\n\n`salt-key {{[-F|--finger]}}`\n",
		"common/ssh-keygen.md": "# ssh-keygen\n\n> Generate SSH keys used for authentication, password-less logins, and other things.\n\n" +
			"- Generate a key interactively:\n\n`ssh-keygen`\n\n" +
			"- Remove the keys of a host from the `known_hosts` file:\n\n`ssh-keygen -R {{remote_host}}`\n\n" +
			"- Change the password of a key:\n\n`ssh-keygen -p -f {{~/.ssh/OpenSSH_private_key}}`\n\n" +
			"- Retrieve public key from private key:\n\n`ssh-keygen -y -f {{~/.ssh/OpenSSH_private_key}}`\n",
	})
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "How do I get the public key from a private key with ssh-keygen?", Some: true})
	if len(r.Hits) == 0 || r.Hits[0].Path != "common/ssh-keygen.md" {
		t.Errorf("first hit: want common/ssh-keygen.md\n%s", describe(r))
	}
}

// Among notes with some of the words, the note that holds most of them
// comes first, though others have one of them in their title: "docker
// logs", "git log" and "kubectl logs" outranked journalctl, which holds
// five of the six words ("2 days", not "two").
func TestSearch_SomeWordsMostWordsFirst(t *testing.T) {
	page := func(title, desc string, items ...string) string {
		s := "# " + title + "\n\n> " + desc + "\n> More information: <https://example.org/" + strings.ReplaceAll(title, " ", "-") + ">.\n"
		for _, it := range items {
			s += "\n- " + it + ":\n\n`" + title + " {{arg}}`\n"
		}
		return s
	}
	v, _ := newVault(t, map[string]string{
		"common/docker-logs.md":  page("docker logs", "This command is an alias of `docker container logs`.", "View documentation for the original command"),
		"common/kubectl-logs.md": page("kubectl logs", "Show logs for containers in a pod.", "Show logs for a single-container pod", "Show logs for the specified container in a pod", "Stream logs"),
		"common/git-log.md":      page("git log", "Show a history of commits.", "Show the sequence of commits starting from the current one", "Show commits between two dates (yyyy-mm-dd)", "Show only commits whose messages include a given string"),
		"common/hub-delete.md":   page("hub delete", "Delete an existing repository on GitHub.", "Delete a personal repository", "Delete an organization repository"),
		"linux/journalctl.md": page("journalctl", "Query the systemd journal.",
			"Show all messages with priority level 3 (errors) from this boot",
			"Show the latest `n` lines and follow new messages (like `tail --follow` for traditional syslog)",
			"Show all messages by a specific unit",
			"Show logs for a given unit since the last time it started",
			"Filter messages within a time range (either timestamp or placeholders like \"yesterday\")",
			"Delete journal logs which are older than 2 days",
			"Output the logs in JSON format"),
	})
	ix := openIndex(t, v, Options{})
	r := mustSearch(t, ix, Query{Text: "How to delete journal logs older than two days?", Some: true})
	if len(r.Hits) == 0 || r.Hits[0].Path != "linux/journalctl.md" {
		t.Errorf("first hit: want linux/journalctl.md\n%s", describe(r))
	}
}

// A permalink or slug property names the note like an alias: each note of
// the German Obsidian help has an English permalink, which is how an
// English question reaches it ("configuration folder" →
// Konfigurationsordner). A note named by the words as a phrase comes
// before notes whose text has the phrase.
func TestSearch_PermalinkNamesTheNote(t *testing.T) {
	for _, c := range []struct {
		fm   map[string]any
		want string
	}{
		{map[string]any{"permalink": "configuration-folder"}, "configuration folder"},
		{map[string]any{"permalink": "plugins/daily-notes"}, "daily notes"},
		{map[string]any{"Slug": "/blog/graph_view.html"}, "graph view"},
		{map[string]any{"permalink": "/2024/11/"}, ""},
		{map[string]any{"permalink": 42}, ""},
		{map[string]any{"publish": true}, ""},
	} {
		if got := slugName(c.fm); got != c.want {
			t.Errorf("slugName(%v) = %q, want %q", c.fm, got, c.want)
		}
	}

	v, _ := newVault(t, map[string]string{
		"Dateien/Konfigurationsordner.md":   "---\npermalink: configuration-folder\n---\nDer Konfigurationsordner enthält alle Einstellungsdateien des Vaults.\n\n## Mobil\n\nAuf Android und iOS liegt er im Vault-Ordner.\n",
		"Import/Notion.md":                  "---\npermalink: import/notion\n---\nExportiere aus Notion. The export folder holds a configuration file for each page.\n",
		"Erweiterungen/Tägliche Notizen.md": "---\npermalink: plugins/daily-notes\n---\nTägliche Notizen öffnet eine Notiz für das heutige Datum.\n\n## Vorlage\n\nWähle eine Vorlage.\n",
		"Suchen.md":                         "---\npermalink: plugins/search\n---\n# Suchen\n\nBeispiel: `path:\"Daily notes/2022-07\"` findet die Notizen eines Monats.\n",
		"Eigenschaften.md":                  "---\npermalink: properties\n---\n# Eigenschaften\n\nEin Datum verknüpft die Notiz mit daily notes, wie in Daily notes beschrieben.\n",
	})
	ix := openIndex(t, v, Options{})
	for q, want := range map[string]string{
		"configuration folder": "Dateien/Konfigurationsordner.md",
		"daily notes":          "Erweiterungen/Tägliche Notizen.md",
	} {
		r := mustSearch(t, ix, Query{Text: q, Some: true})
		if len(r.Hits) == 0 || r.Hits[0].Path != want {
			t.Errorf("%q: first hit: want %s\n%s", q, want, describe(r))
		}
	}
}

// TestSearch_UnknownPropertyIsText: key=value in a query is a property
// filter only where some note has the property; otherwise it is text
// (an HTML attribute in a question, loading="lazy"), searched as a phrase.
func TestSearch_UnknownPropertyIsText(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"web/img.md":    "# img\n\nMit `loading=\"lazy\"` lädt der Browser das Bild erst, wenn es sichtbar wird.\n",
		"web/iframe.md": "# iframe\n\nAuch iframes kennen das Attribut loading.\n",
		"p/a.md":        "---\nstatus: aktiv\n---\n# A\n\nlazy loading\n",
	})
	ix := openIndex(t, v, Options{})
	res := mustSearch(t, ix, Query{Text: `loading="lazy" Bild`})
	if len(res.Hits) != 1 || res.Hits[0].Path != "web/img.md" {
		t.Errorf(`loading="lazy" Bild: hits %v, want web/img.md (the attribute as text)`, hitPaths(res))
	}
	// A property some note has stays a filter.
	res = mustSearch(t, ix, Query{Text: "status=aktiv lazy"})
	if len(res.Hits) != 1 || res.Hits[0].Path != "p/a.md" {
		t.Errorf("status=aktiv lazy: hits %v, want p/a.md", hitPaths(res))
	}
}

// TestSearch_OptionIsNoExclusion: "-l" and "--all" in a question are a
// command's options, not words to exclude, also with the sentence's comma
// after one; "-Archiv" still excludes.
func TestSearch_OptionIsNoExclusion(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"common/crontab.md": "# crontab\n\n- List the jobs: `crontab -l`\n",
		"common/ls.md":      "# ls\n\n- All files: `ls --all`\n",
		"Archiv/crontab.md": "# crontab (alt)\n\nArchiv.\n",
	})
	ix := openIndex(t, v, Options{})
	if res := mustSearch(t, ix, Query{Text: "crontab -l"}); len(res.Hits) == 0 || res.Hits[0].Path != "common/crontab.md" {
		t.Errorf("crontab -l: hits %v, want common/crontab.md first", hitPaths(res))
	}
	if res := mustSearch(t, ix, Query{Text: "ls --all"}); len(res.Hits) != 1 || res.Hits[0].Path != "common/ls.md" {
		t.Errorf("ls --all: hits %v, want common/ls.md", hitPaths(res))
	}
	if res := mustSearch(t, ix, Query{Text: "crontab -l,"}); len(res.Hits) == 0 || res.Hits[0].Path != "common/crontab.md" {
		t.Errorf("crontab -l,: hits %v, want common/crontab.md first", hitPaths(res))
	}
	if res := mustSearch(t, ix, Query{Text: "crontab -Archiv"}); len(res.Hits) != 1 || res.Hits[0].Path != "common/crontab.md" {
		t.Errorf("crontab -Archiv: hits %v, want common/crontab.md only", hitPaths(res))
	}
}

// TestParseQuery_DashBeforeNoWord: a "-" before what is no word (titles
// and usages pasted as searches) is text that ranks, not an exclusion;
// before a word, a phrase, a prefix or a property it excludes.
func TestParseQuery_DashBeforeNoWord(t *testing.T) {
	for _, q := range []string{"apt-get install -y/-Y", "CSS -webkit- prefixes", "Set -1=true, in config",
		"grep -e'x'", "ls -(a)", "curl -H:x", "sed -i.bak/"} {
		pq, err := parseQuery(q)
		if err != nil {
			t.Errorf("%q: %v", q, err)
			continue
		}
		if len(pq.not)+len(pq.noProps) > 0 || len(pq.props) > 0 {
			t.Errorf("%q: excludes %v %v, filters %v; want the dashed text ranked", q, pq.not, pq.noProps, pq.props)
		}
	}
	for q, want := range map[string]string{"Garten -Archiv": "not", "Garten -e-mail": "not", "Garten -Gemüse.": "not",
		"Garten -proj*": "not", "Garten -\"alter Plan\"": "not", "Garten -status=erledigt": "noProps", "Garten -O'Brien": "not", "Garten -v1.2": "not"} {
		pq, err := parseQuery(q)
		if err != nil {
			t.Errorf("%q: %v", q, err)
			continue
		}
		if got := map[bool]string{len(pq.not) == 1: "not", len(pq.noProps) == 1: "noProps"}[true]; got != want {
			t.Errorf("%q: not %v, noProps %v; want one exclusion in %s", q, pq.not, pq.noProps, want)
		}
	}
	if pq, err := parseQuery("1=true"); err != nil || len(pq.props) != 0 {
		t.Errorf(`"1=true": %+v, %v; want no property filter (a key starts with a letter)`, pq, err)
	}
}

// TestSearch_HashTagNoNoteHas: a #tag that no note has, among other words,
// is searched as a word that ranks (a pasted title: "Closes #3"); a tag
// some note has, tag:x written out, and a #tag alone stay filters.
func TestSearch_HashTagNoNoteHas(t *testing.T) {
	v, _ := newVault(t, map[string]string{
		"a.md": "---\ntags: [kunde/praxis]\n---\n# Plan\n\nBackup am Samstag.\n",
		"b.md": "# Ticket\n\nCloses #3: Backup repariert.\n",
		"c.md": "# Notiz\n\nBackup ohne Nummer.\n",
	})
	ix := openIndex(t, v, Options{})
	for _, c := range []struct {
		q     string
		first string
		total int
		words []string
	}{
		{"Backup #kunde", "a.md", 1, nil},
		{"Backup #kunde/praxis", "a.md", 1, nil},
		{"Backup #3", "b.md", 3, []string{"#3"}},
		{"Backup tag:3", "", 0, nil},
		{"#nichtda", "", 0, nil},
	} {
		res := mustSearch(t, ix, Query{Text: c.q})
		first := ""
		if len(res.Hits) > 0 {
			first = res.Hits[0].Path
		}
		if first != c.first || res.Total != c.total || !slices.Equal(res.TagsAsWords, c.words) {
			t.Errorf("%q: first %q of %d, tags as words %v; want %q of %d, %v", c.q, first, res.Total, res.TagsAsWords, c.first, c.total, c.words)
		}
	}
}
