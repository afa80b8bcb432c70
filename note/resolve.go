package note

import (
	"path"
	"sort"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// LinkStatus says what a link points at.
type LinkStatus int

const (
	// Unresolved: no file of the vault matches the link (Obsidian shows it
	// greyed out and would create the note on click).
	Unresolved LinkStatus = iota
	// Resolved: exactly one file is the link's target.
	Resolved
	// Ambiguous: several files match equally well and Obsidian's own choice
	// among them is not stable (see Resolver); Candidates lists them.
	Ambiguous
)

func (s LinkStatus) String() string {
	switch s {
	case Resolved:
		return "resolved"
	case Ambiguous:
		return "ambiguous"
	default:
		return "unresolved"
	}
}

// Resolution is where one link leads.
type Resolution struct {
	Target string // vault path of the linked file; "" unless Status is Resolved
	Status LinkStatus
	// Candidates is set when several files share the link's name and the
	// tie-break (rule 5 of Resolver) had to decide: all of them, preferred
	// first. For Resolved, Candidates[0] is Target; for Ambiguous the tied
	// files come first. nil when one file matched or an exact path won.
	Candidates []string
	// Heading is the link's fragment as written: "Heading", "H1#H2" or
	// "^block"; "" if none. Fragments never change which note a link names.
	Heading string
	// Alias is true when the note was found through a frontmatter alias
	// (ResolveAlias only; Obsidian itself never resolves links by alias).
	Alias bool
}

// Resolver resolves links the way Obsidian (1.x) does, against a fixed set
// of vault paths. Build one per vault snapshot with NewResolver; it is
// immutable afterwards and safe for concurrent use.
//
// The rules, in order (keys compare NFC-normalised and lower-cased, as
// Obsidian lower-cases paths; ".md" may be left off a note, attachments
// need their extension):
//
//  1. An empty target ([[#Heading]]) is the linking note itself.
//  2. A target starting with "./" or "../" is a path relative to the linking
//     note's folder; one starting with "/" a path from the vault root. Both
//     match that exact path only.
//  3. Any other target matching a vault path exactly wins ("Note" is
//     Note.md at the root even when the linking note's folder holds
//     another Note.md; "b/Note" is b/Note.md).
//  4. A target holding "/" that names a path relative to the linking note's
//     folder wins next (markdown links written with Obsidian's "relative
//     path to file" format).
//  5. Otherwise every file whose path ends in "/"+target is a candidate:
//     a bare name matches that file name in any folder, "b/Note" matches
//     a/b/Note.md. One candidate is the target. Among several, the one in
//     the linking note's own folder wins (an ancestor folder counts for
//     nothing), else the shortest path string (a/b/Note.md over
//     zzzz/Note.md: string length, not depth). Candidates tied on the
//     shortest length make the link Ambiguous.
//
// Rules 3, 5 and the tie-break were observed in Obsidian 1.13.7 through
// metadataCache.getFirstLinkpathDest (documented with the fixture vault in
// pvliesdonk/markdown-vault-mcp, docs/design/reference/obsidian-markdown.md,
// issues #1350 and #1358), as were "../y" resolving against the source and
// markdown destinations being looked up vault-wide after percent-decoding.
// Obsidian picks one of equally short candidates in an order that is
// neither alphabetical nor creation order, so we report such a tie
// instead of guessing. Rule 4 is ours: it only decides between candidates
// rule 5 would find anyway.
//
// Aliases never resolve links in Obsidian (a hand-typed [[AI]] with
// "aliases: [AI]" stays unresolved); ResolveAlias adds that as a
// separate, vaultd-only lookup for backlinks.
type Resolver struct {
	exact   map[string]string   // LinkKey(path) → path
	byName  map[string][]string // LinkKey(file name) → paths; notes also under the name without ".md"
	aliases map[string][]string // LinkKey(alias) → note paths (WithAliases)
}

// NewResolver indexes the vault-relative paths of all notes and
// attachments of one vault snapshot. Paths are taken as given (use
// Walk's); duplicates are ignored.
func NewResolver(paths []string) *Resolver {
	r := &Resolver{
		exact:  make(map[string]string, len(paths)),
		byName: make(map[string][]string, len(paths)),
	}
	for _, p := range paths {
		k := LinkKey(p)
		if _, dup := r.exact[k]; dup {
			// Two paths differing only in case or normalisation: keep the
			// first for exact lookups; both stay candidates by name.
			if r.exact[k] == p {
				continue
			}
		} else {
			r.exact[k] = p
		}
		name := path.Base(k)
		r.byName[name] = append(r.byName[name], p)
		if stem, ok := strings.CutSuffix(name, ".md"); ok && stem != "" {
			r.byName[stem] = append(r.byName[stem], p)
		}
	}
	return r
}

// WithAliases returns a resolver that also knows the notes' frontmatter
// aliases (note path → aliases), for ResolveAlias. The receiver is not
// changed.
func (r *Resolver) WithAliases(aliases map[string][]string) *Resolver {
	c := *r
	c.aliases = make(map[string][]string)
	// Sorted so that candidate lists come out the same on every run.
	notes := make([]string, 0, len(aliases))
	for p := range aliases {
		notes = append(notes, p)
	}
	sort.Strings(notes)
	for _, p := range notes {
		for _, a := range aliases[p] {
			k := LinkKey(strings.TrimSpace(a))
			if k == "" {
				continue
			}
			if l := c.aliases[k]; len(l) == 0 || l[len(l)-1] != p {
				c.aliases[k] = append(l, p)
			}
		}
	}
	return &c
}

// LinkKey is how link targets and paths compare: NFC, lower case (what
// Obsidian does with String.prototype.toLowerCase).
func LinkKey(s string) string { return strings.ToLower(norm.NFC.String(s)) }

// Resolve returns the file a link of the note at from points to, by
// Obsidian's rules (see Resolver). from is the linking note's vault path;
// it may be "" when there is no linking note (then folder preferences do
// not apply and [[#Heading]] stays unresolved).
func (r *Resolver) Resolve(from string, l Link) Resolution {
	target, frag := l.Target, l.Fragment
	if !l.Markdown {
		target, frag = UnescapeTablePipe(target, frag)
	}
	res := r.resolve(from, target)
	res.Heading = frag
	return res
}

// UnescapeTablePipe drops the backslash of an escaped "\|" that separated
// target (or fragment) and label: inside a table Obsidian writes
// [[Note\|Label]] and [[Note#Heading\|Label]], and a parser that splits at
// the "|" leaves the backslash behind. No vault name ends in "\" (CleanPath
// refuses backslashes), so dropping it never changes a real target.
func UnescapeTablePipe(target, frag string) (string, string) {
	if frag != "" {
		return target, strings.TrimSpace(strings.TrimSuffix(frag, `\`))
	}
	return strings.TrimSpace(strings.TrimSuffix(target, `\`)), frag
}

// ResolveName resolves a link written as text: "Note", "Note#Heading",
// "Note|Label", "folder/Note.md" or a whole "[[Note#Heading|Label]]"
// (also "![[…]]"). The label is dropped; the heading is returned in
// Resolution.Heading. Used where a caller names a note by a wikilink.
func (r *Resolver) ResolveName(from, target string) Resolution {
	t, frag := SplitLinkText(target)
	res := r.resolve(from, t)
	res.Heading = frag
	return res
}

// ResolveAlias is Resolve, and when Obsidian would leave the link
// unresolved, looks its target up among the notes' aliases (see
// WithAliases): one note → Resolved with Alias set; several → Ambiguous.
// Markdown links are never resolved by alias: they name files.
func (r *Resolver) ResolveAlias(from string, l Link) Resolution {
	res := r.Resolve(from, l)
	if res.Status != Unresolved || l.Markdown || l.Target == "" {
		return res
	}
	notes := r.aliases[LinkKey(strings.TrimSpace(l.Target))]
	switch len(notes) {
	case 0:
		return res
	case 1:
		return Resolution{Target: notes[0], Status: Resolved, Heading: l.Fragment, Alias: true}
	default:
		return Resolution{Status: Ambiguous, Candidates: append([]string(nil), notes...), Heading: l.Fragment, Alias: true}
	}
}

// SplitLinkText splits the text of a wikilink into its target and
// fragment: "[[Note#Heading|Label]]" → "Note", "Heading". Brackets (with
// or without the embed "!") and the label are optional and dropped; the
// target ends at the first "#", as in Obsidian.
func SplitLinkText(s string) (target, fragment string) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "!")
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") && len(s) >= 4 {
		s = s[2 : len(s)-2]
	}
	s, _, _ = strings.Cut(s, "|")
	target, fragment, _ = strings.Cut(s, "#")
	return UnescapeTablePipe(strings.TrimSpace(target), strings.TrimSpace(fragment))
}

func (r *Resolver) resolve(from, target string) Resolution {
	target = strings.TrimSpace(target)
	if target == "" {
		if from == "" {
			return Resolution{Status: Unresolved}
		}
		return Resolution{Target: from, Status: Resolved}
	}
	k := LinkKey(target)
	dir := LinkKey(FolderOf(from))

	switch {
	case strings.HasPrefix(k, "./") || strings.HasPrefix(k, "../") || k == "." || k == "..":
		p, ok := JoinInside(dir, k)
		if !ok {
			return Resolution{Status: Unresolved}
		}
		return r.exactOnly(p)
	case strings.HasPrefix(k, "/"):
		p, ok := JoinInside("", strings.TrimLeft(k, "/"))
		if !ok {
			return Resolution{Status: Unresolved}
		}
		return r.exactOnly(p)
	}
	if strings.Contains(k, "/.") { // "a/./b", "a/../b"
		p, ok := JoinInside("", k)
		if !ok {
			return Resolution{Status: Unresolved}
		}
		k = p
	}

	// Rule 3: the exact vault path.
	if p, ok := r.lookupExact(k); ok {
		return Resolution{Target: p, Status: Resolved}
	}
	// Rule 4: a path relative to the linking note's folder.
	if dir != "" && strings.Contains(k, "/") {
		if p, ok := r.lookupExact(dir + "/" + k); ok {
			return Resolution{Target: p, Status: Resolved}
		}
	}
	// Rule 5: path suffix / file name anywhere.
	cands := r.suffixMatches(k)
	switch len(cands) {
	case 0:
		return Resolution{Status: Unresolved}
	case 1:
		return Resolution{Target: cands[0], Status: Resolved}
	}
	return pick(cands, from)
}

// exactOnly resolves an explicit (relative or rooted) path: that file or
// nothing.
func (r *Resolver) exactOnly(k string) Resolution {
	if p, ok := r.lookupExact(k); ok {
		return Resolution{Target: p, Status: Resolved}
	}
	return Resolution{Status: Unresolved}
}

// lookupExact finds the file at key k, or the note k+".md".
func (r *Resolver) lookupExact(k string) (string, bool) {
	if p, ok := r.exact[k]; ok {
		return p, true
	}
	if !strings.HasSuffix(k, ".md") {
		if p, ok := r.exact[k+".md"]; ok {
			return p, true
		}
	}
	return "", false
}

// suffixMatches lists the files whose path is k or ends in "/"+k, with or
// without ".md" for notes, in no particular order.
func (r *Resolver) suffixMatches(k string) []string {
	var out []string
	for _, p := range r.byName[path.Base(k)] {
		pk := LinkKey(p)
		if PathHasSuffix(pk, k) || (!strings.HasSuffix(k, ".md") && strings.HasSuffix(pk, ".md") && PathHasSuffix(pk, k+".md")) {
			if len(out) == 0 || !contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func PathHasSuffix(p, suffix string) bool {
	return p == suffix || strings.HasSuffix(p, "/"+suffix)
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// pick applies Obsidian's tie-break to several candidates: the linking
// note's own folder, then the shortest path string.
func pick(cands []string, from string) Resolution {
	sortCandidates(cands)
	if from != "" {
		dir := LinkKey(FolderOf(from))
		var own []string
		for _, c := range cands {
			if LinkKey(FolderOf(c)) == dir {
				own = append(own, c)
			}
		}
		if len(own) == 1 {
			return Resolution{Target: own[0], Status: Resolved, Candidates: moveFirst(cands, own[0])}
		}
	}
	if jsLen(cands[0]) < jsLen(cands[1]) {
		return Resolution{Target: cands[0], Status: Resolved, Candidates: cands}
	}
	return Resolution{Status: Ambiguous, Candidates: cands}
}

// sortCandidates orders by Obsidian's preference: shortest path string
// first, then alphabetically so that output is stable.
func sortCandidates(c []string) {
	sort.Slice(c, func(i, j int) bool {
		li, lj := jsLen(c[i]), jsLen(c[j])
		if li != lj {
			return li < lj
		}
		return c[i] < c[j]
	})
}

func moveFirst(list []string, first string) []string {
	out := make([]string, 0, len(list))
	out = append(out, first)
	for _, e := range list {
		if e != first {
			out = append(out, e)
		}
	}
	return out
}

// jsLen is the length of s as JavaScript counts it (UTF-16 code units),
// because Obsidian compares path.length: "ü" counts 1, not 2 bytes.
func jsLen(s string) int {
	n := 0
	for _, r := range s {
		if utf16.RuneLen(r) == 2 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// JoinInside joins a folder key and a relative path and cleans the
// result; ok is false when it leaves the vault or names nothing.
func JoinInside(dir, rel string) (string, bool) {
	p := path.Clean(path.Join("/", dir, rel))
	p = strings.TrimPrefix(p, "/")
	if p == "" || p == "." {
		return "", false
	}
	// path.Join("/", …) clamps "..": detect a climb above the root by
	// counting instead.
	depth := 0
	if dir != "" {
		depth = strings.Count(dir, "/") + 1
	}
	for _, seg := range strings.Split(rel, "/") {
		switch seg {
		case "..":
			depth--
			if depth < 0 {
				return "", false
			}
		case "", ".":
		default:
			depth++
		}
	}
	return p, true
}
