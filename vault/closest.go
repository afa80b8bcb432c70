package vault

import (
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// The closest notes to a name that matched nothing, ranked by what a person
// meant (AGENT-CONTRACT rule 21):
//
//  1. a name that is the typed words but for punctuation and case
//     ("Array.prototype.filter" for "Array.prototype.filter()"), or that
//     starts with them at a word boundary ("Grundgesetz" for "Grundgesetz
//     für die Bundesrepublik Deutschland", "StVO" for the folder
//     "stvo_2013"), shortest first;
//  2. a name a few slips away (a letter left out, added, changed, or two
//     swapped: "fliter" for "filter"), nearest first;
//  3. a name whose start is a few slips away ("Grundgestez");
//  4. a name that holds every typed word ("Gesetz zur Änderung des
//     Grundgesetzes" holds none of "Grundgesetz": it is not listed);
//  5. a note in the folder the reference names, when it names one.
//
// A note's names are its titles, aliases and file name (a folder note's
// folder name). Within a rank, a note in the folder the reference names
// (or one ending in it) comes first: "array/fliter" puts Array's filter
// before the other notes named filter. A typed name that holds another
// (the typo "fliter" holds the folder names "li" and "te") is no reason
// to list it.

// closeRank is a candidate's rank (above); lower is nearer.
type closeRank int

const (
	rankStarts closeRank = iota + 1
	rankSpelling
	rankStartSpelling
	rankContains
	rankFolder
)

// closeName is one name of a note as the ranking compares it.
type closeName struct {
	entry int    // index in NameTable.paths
	what  string // "title", "alias", "file name", "folder name"
	name  string // as written
	loose string // note.LooseKey(name)
	runes []rune // of loose
}

// Closest is one of the closest notes: its path and why it is listed.
type Closest struct {
	Path string
	// Why names what made it close, for the agent to choose by: `title
	// "Grundgesetz für die Bundesrepublik Deutschland"`, `folder name
	// "stvo_2013"`, `in the folder you named`.
	Why  string
	rank closeRank
	// score orders within a rank: extra letters (1), slips (2, 3), extra
	// words (4).
	score int
	// inFolder says the note is in the folder the reference names.
	inFolder bool
	// affix is how many letters the name and the typed name share at
	// their start and their end: among names as many slips away, the one
	// a person was typing ("writ" is write, not wait; "relad" reload, not
	// read).
	affix int
	// part says the name matched a part of the typed name only (without
	// what looked like a file extension, or the last part of a path):
	// within a rank it comes after the names that match all of it
	// ("Mermaid.js" is "Mermaid.js Helper" before the note Mermaid).
	part bool
}

// spellingLimit is how many slips a typed name of n letters may hold and
// still find a name: none for short names, where one slip makes another
// word ("bgb", "ao"), then one per four letters, at most three.
func spellingLimit(n int) int {
	switch {
	case n <= 3:
		return 0
	case n <= 5:
		return 1
	case n <= 11:
		return 2
	}
	return 3
}

// closestNames ranks the table's notes for target (see above), at most n.
func (t *NameTable) closestNames(target string, n int) []Closest {
	target = strings.TrimSpace(target)
	ref := strings.Trim(note.LinkKey(target), "/")
	// The typed name: the last part of a path (a folder note's folder
	// name for ".../x/index.md"), else the whole reference. A title may
	// hold slashes, so the whole reference is tried too.
	typed := []string{note.LooseKey(target)}
	if ext := path.Ext(ref); ext != "" && !strings.EqualFold(ext, ".md") && !strings.Contains(ext, " ") && !allDigits(ext[1:]) {
		// "Alpha.png" names no note; the note "Alpha" may be meant.
		typed = append(typed, note.LooseKey(strings.TrimSuffix(path.Base(ref), ext)))
	}
	folder := ""
	if strings.Contains(ref, "/") {
		p := ref
		if path.Ext(p) == "" {
			p += ".md"
		}
		typed = append(typed, note.LooseKey(note.NoteName(p)))
		folder = note.FolderOf(p)
		if f := note.FolderNoteFolder(p); f != "" {
			folder = note.FolderOf(f)
		}
	}
	typed = slices.Compact(typed)

	best := make(map[int]Closest)
	consider := func(c Closest, entry int) {
		if old, ok := best[entry]; !ok || nearer(c, old) {
			best[entry] = c
		}
	}
	var sp note.Speller
	for i, k := range typed {
		if k == "" {
			continue
		}
		tk := typedKey{k: k, runes: []rune(k), words: strings.Fields(k)}
		tk.lim = spellingLimit(len(tk.runes))
		for _, nm := range t.loose {
			c, ok := rankName(&sp, tk, nm)
			if ok {
				c.part = i > 0
				consider(c, nm.entry)
			}
		}
	}
	if folder != "" {
		fk := note.LinkKey(folder)
		for i, p := range t.paths {
			// A folder note's folder is its name: the folder it is in
			// is the one above (x/Array/filter/index.md is in x/Array).
			in := note.FolderOf(p)
			if f := note.FolderNoteFolder(p); f != "" {
				in = note.FolderOf(f)
			}
			if note.PathHasSuffix(note.LinkKey(in), fk) {
				if c, ok := best[i]; ok {
					c.inFolder = true
					best[i] = c
				} else if note.LinkKey(in) == fk {
					name := note.NoteName(p)
					d := note.Distance(typed[len(typed)-1], note.LooseKey(name))
					consider(Closest{Why: "in the folder you named", rank: rankFolder, score: d, inFolder: true}, i)
				}
			}
		}
	}
	out := make([]Closest, 0, len(best))
	for i, c := range best {
		c.Path = t.paths[i]
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.inFolder != b.inFolder {
			return a.inFolder
		}
		if a.part != b.part {
			return !a.part
		}
		if a.score != b.score {
			return a.score < b.score
		}
		if a.affix != b.affix {
			return a.affix > b.affix
		}
		if len(a.Path) != len(b.Path) {
			return len(a.Path) < len(b.Path)
		}
		return a.Path < b.Path
	})
	return out[:min(n, len(out))]
}

// nearer reports whether a ranks before b for the same note.
func nearer(a, b Closest) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.part != b.part {
		return !a.part
	}
	return a.score < b.score
}

// allDigits reports whether s is digits only ("02" of "03.02" is no file
// extension).
func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// typedKey is a typed name as rankName compares it.
type typedKey struct {
	k     string // note.LooseKey of what was typed
	runes []rune
	words []string
	lim   int // spellingLimit
}

// rankName ranks one name for the typed key; ok false when the name is not
// close.
func rankName(sp *note.Speller, tk typedKey, nm closeName) (Closest, bool) {
	k, nk, lim, words := tk.k, nm.loose, tk.lim, tk.words
	if nk == "" {
		return Closest{}, false
	}
	if strings.HasPrefix(nk, k) && (len(nk) == len(k) || nk[len(k)] == ' ') {
		return Closest{Why: nm.why(), rank: rankStarts, score: len(nk) - len(k)}, true
	}
	if lim > 0 {
		if d, ok := sp.Within(tk.runes, nm.runes, lim); ok {
			return Closest{Why: nm.why(), rank: rankSpelling, score: d, affix: affix(tk.runes, nm.runes)}, true
		}
		if d, ok := sp.PrefixWithin(tk.runes, nm.runes, lim); ok {
			return Closest{Why: nm.why(), rank: rankStartSpelling, score: d, affix: affix(tk.runes, nm.runes[:min(len(nm.runes), len(tk.runes)+lim)])}, true
		}
	}
	if len(words) > 0 && len(k) >= 3 && strings.Contains(nk, words[0]) {
		nw := strings.Fields(nk)
		all := true
		for _, w := range words {
			if !slices.Contains(nw, w) {
				all = false
				break
			}
		}
		if all {
			return Closest{Why: nm.why(), rank: rankContains, score: len(nw) - len(words)}, true
		}
	}
	return Closest{}, false
}

// affix counts the runes a and b share at their start and at their end
// (each at most the shorter's length).
func affix(a, b []rune) int {
	n := min(len(a), len(b))
	pre := 0
	for pre < n && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < n-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre + suf
}

func (nm closeName) why() string { return nm.what + " " + strconv.Quote(nm.name) }

// looseNames lists every name of every note for closestNames.
func looseNames(notes []NameEntry) []closeName {
	var out []closeName
	for i, e := range notes {
		seen := map[string]bool{}
		add := func(what, name string) {
			k := note.LooseKey(name)
			if k == "" || seen[k] {
				return
			}
			seen[k] = true
			out = append(out, closeName{entry: i, what: what, name: name, loose: k, runes: []rune(k)})
		}
		eachName(e, add)
	}
	return out
}

// eachName calls fn with each name of the note e and what it is: its
// titles, its aliases, and its file name or, for a folder note, its
// folder's name.
func eachName(e NameEntry, fn func(what, name string)) {
	for _, s := range e.Titles {
		fn("title", s)
	}
	for _, s := range e.Aliases {
		fn("alias", s)
	}
	if f := note.FolderNoteFolder(e.Path); f != "" {
		fn("folder name", path.Base(f))
	} else {
		fn("file name", strings.TrimSuffix(path.Base(e.Path), path.Ext(e.Path)))
	}
}
