package vault

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vaultd/vaultd/note"
)

// LinkIssue is a link a move left as it was written, and why.
type LinkIssue struct {
	Path       string   // the note holding the link, at its path after the move
	Line       int      // 1-based
	Link       string   // the link as written: "[[Plan]]", "[Plan](../Plan.md)"
	Reason     string   // one sentence
	Candidates []string // for a link that matches several notes: all of them, after the move
}

// relinker rewrites links so that they keep pointing at the file they
// pointed at before a move. It knows the vault's files before and after
// the move (two Resolvers, Obsidian's rules) and which files moved.
//
// A link is rewritten only when, read by Obsidian's rules after the move,
// it would no longer lead where it led before — whether its target moved,
// the linking note moved (relative links, the own-folder preference), or a
// moved file now takes the link's name. The new target keeps the link's
// style: a bare name stays a bare name while it is still unique, a path
// stays a path (as short as it was, or longer when needed), a relative
// path is recomputed, ".md" is kept or left off as written; heading,
// block, alias label and embed "!" are kept byte for byte. Links Obsidian
// cannot resolve before the move, and links inside code, are never
// touched. A link that matched several files before the move is reported,
// not guessed.
type relinker struct {
	before, after *note.Resolver
	moved         map[string]string // old path → new path, every moved note and attachment
}

func (rl *relinker) newPath(p string) string {
	if n, ok := rl.moved[p]; ok {
		return n
	}
	return p
}

// linkEdit is one rewritten link.
type linkEdit struct {
	start, end int
	text       string
	line       int
	raw        string // as it was written
}

// rewrite returns src with the links of the note rewritten for the move:
// from0 is the note's path before the move, from1 after it. n is how many
// links changed; issues are the links that needed a change but were left
// as written. When n is 0, out is src.
func (rl *relinker) rewrite(src []byte, from0, from1 string) (out []byte, n int, issues []LinkIssue) {
	out, edits, issues := rl.rewriteEdits(src, from0, from1)
	return out, len(edits), issues
}

// rewriteEdits is rewrite, returning the edits made.
func (rl *relinker) rewriteEdits(src []byte, from0, from1 string) (out []byte, edits []linkEdit, issues []LinkIssue) {
	return rl.rewriteDoc(note.Parse(src), from0, from1)
}

// rewriteDoc is rewriteEdits on a parsed note (planning a move reuses the
// parsed notes of the vault's snapshot instead of parsing them again).
func (rl *relinker) rewriteDoc(d *note.Doc, from0, from1 string) (out []byte, edits []linkEdit, issues []LinkIssue) {
	src := d.Src
	links := append(frontmatterLinks(d), d.Links...)
	sort.SliceStable(links, func(i, j int) bool { return links[i].Start < links[j].Start })
	last := -1
	for _, l := range links {
		if l.Start < last || l.End > len(src) || l.Start >= l.End {
			continue
		}
		raw := string(src[l.Start:l.End])
		text, issue := rl.fix(l, raw, from0, from1)
		if issue != nil {
			issue.Path, issue.Line, issue.Link = from1, l.Line, oneLineLink(raw)
			issues = append(issues, *issue)
			continue
		}
		if text != "" && text != raw {
			edits = append(edits, linkEdit{l.Start, l.End, text, l.Line, raw})
			last = l.End
		}
	}
	if len(edits) == 0 {
		return src, nil, issues
	}
	var b bytes.Buffer
	b.Grow(len(src) + 32*len(edits))
	at := 0
	for _, e := range edits {
		b.Write(src[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.Write(src[at:])
	return b.Bytes(), edits, issues
}

// fix decides one link: "" and nil when it needs no change, the new link
// text, or an issue when it needed a change that cannot be made safely.
func (rl *relinker) fix(l note.Link, raw, from0, from1 string) (string, *LinkIssue) {
	res0 := rl.before.Resolve(from0, l)
	switch res0.Status {
	case note.Unresolved:
		return "", nil // dangling before: nothing to keep
	case note.Ambiguous:
		involved := false
		var cands []string
		for _, c := range res0.Candidates {
			if _, ok := rl.moved[c]; ok {
				involved = true
			}
			cands = append(cands, rl.newPath(c))
		}
		if !involved {
			return "", nil
		}
		sort.Strings(cands)
		return "", &LinkIssue{Candidates: cands,
			Reason: "the link matched several notes equally well before the move, so which one it means is unknown; it was left as written"}
	}
	t0 := res0.Target
	t1 := rl.newPath(t0)
	if res1 := rl.after.Resolve(from1, l); res1.Status == note.Resolved && res1.Target == t1 {
		return "", nil
	}
	target := rl.spell(l, from0, from1, t0, t1)
	if target == "" {
		res1 := rl.after.Resolve(from1, l)
		return "", &LinkIssue{Candidates: res1.Candidates,
			Reason: fmt.Sprintf("no way of writing the link was found that still leads to %q; it was left as written", t1)}
	}
	text, ok := replaceLinkTarget(raw, l, target)
	if !ok {
		return "", &LinkIssue{Reason: fmt.Sprintf("a reference-style link: its definition names the target; update it to %q by hand", t1)}
	}
	return text, nil
}

// spell finds the target text for a link to t1 from from1 in the style the
// link was written in, checked against the resolver after the move. "" if
// none leads to t1.
func (rl *relinker) spell(l note.Link, from0, from1, t0, t1 string) string {
	t := strings.TrimSpace(l.Target)
	if !l.Markdown {
		t, _ = note.UnescapeTablePipe(t, "")
	}
	key := note.LinkKey(t)
	isNote := IsNote(t1)
	keepExt := !isNote || strings.HasSuffix(key, ".md")
	dir0, dir1 := note.FolderOf(from0), note.FolderOf(from1)

	var cands []string
	switch {
	case strings.HasPrefix(key, "./") || strings.HasPrefix(key, "../"):
		r := relPath(dir1, t1)
		if strings.HasPrefix(key, "./") && !strings.HasPrefix(r, "../") {
			r = "./" + r
		}
		cands = append(cands, r)
		if !strings.HasPrefix(r, ".") {
			cands = append(cands, "./"+r)
		}
	case strings.HasPrefix(key, "/"):
		cands = append(cands, "/"+t1)
	case !strings.Contains(key, "/"):
		cands = append(cands, suffixes(t1, 1)...)
	default:
		segs := strings.Count(strings.Trim(key, "/"), "/") + 1
		if rl.exactBefore(key, t0) {
			cands = append(cands, t1) // a full path stays a full path
		} else if dir0 != "" {
			if p, ok := note.JoinInside(note.LinkKey(dir0), key); ok && (p == note.LinkKey(t0) || p+".md" == note.LinkKey(t0)) {
				// Written relative to the note's folder ("Sub/Note"):
				// stay relative.
				cands = append(cands, relPath(dir1, t1))
			}
		}
		cands = append(cands, suffixes(t1, segs)...)
	}
	cands = append(cands, t1) // the full path: always unique unless names differ only in case
	seen := map[string]bool{}
	for _, c := range cands {
		if !keepExt {
			c = strings.TrimSuffix(c, path.Ext(c))
		}
		if c == "" || seen[c] {
			continue
		}
		seen[c] = true
		r := rl.after.Resolve(from1, note.Link{Target: c, Markdown: l.Markdown})
		if r.Status == note.Resolved && r.Target == t1 {
			return c
		}
	}
	return ""
}

// exactBefore reports whether the link target key named t0 by its full
// vault path (rule 3), rather than relative to the note's folder.
func (rl *relinker) exactBefore(key, t0 string) bool {
	k := note.LinkKey(t0)
	return key == k || key+".md" == k
}

// suffixes lists p's path endings of at least min segments, shortest
// first: "a/b/c.md" → "c.md", "b/c.md", "a/b/c.md".
func suffixes(p string, min int) []string {
	segs := strings.Split(p, "/")
	var out []string
	for k := max(min, 1); k <= len(segs); k++ {
		out = append(out, strings.Join(segs[len(segs)-k:], "/"))
	}
	if len(out) == 0 {
		out = append(out, p)
	}
	return out
}

// relPath is the relative path from folder dir ("" for the root) to the
// vault path p: relPath("a/b", "a/c/x.md") == "../c/x.md".
func relPath(dir, p string) string {
	var ds []string
	if dir != "" {
		ds = strings.Split(dir, "/")
	}
	ps := strings.Split(p, "/")
	i := 0
	for i < len(ds) && i < len(ps)-1 && ds[i] == ps[i] {
		i++
	}
	return strings.Repeat("../", len(ds)-i) + strings.Join(ps[i:], "/")
}

// replaceLinkTarget puts target in place of the link's target in its raw
// text, keeping everything else byte for byte. ok is false for links whose
// target is not written in the link itself (reference-style markdown).
func replaceLinkTarget(raw string, l note.Link, target string) (string, bool) {
	if !l.Markdown {
		i := strings.Index(raw, "[[")
		end := strings.LastIndex(raw, "]]")
		if i < 0 || end < i+2 {
			return "", false
		}
		inner := raw[i+2 : end]
		cut := len(inner)
		if j := strings.IndexAny(inner, "#|"); j >= 0 {
			cut = j
		}
		rawT := inner[:cut]
		lead := rawT[:len(rawT)-len(strings.TrimLeft(rawT, " \t"))]
		// A table cell escapes the label's pipe: [[Note\|Label]]. The
		// backslash belongs to the pipe, not to the name.
		tail := rawT[len(strings.TrimRight(rawT, " \t\\")):]
		return raw[:i+2] + lead + target + tail + inner[cut:] + raw[end:], true
	}
	labelEnd, _ := note.MarkdownLinkEnd([]byte(raw), 0)
	if labelEnd <= 0 || labelEnd+1 >= len(raw) || raw[labelEnd+1] != '(' {
		return "", false
	}
	j := labelEnd + 2
	for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r') {
		j++
	}
	if j >= len(raw) {
		return "", false
	}
	var dest string
	var start, stop int
	bracket := raw[j] == '<'
	if bracket {
		k := strings.IndexByte(raw[j+1:], '>')
		if k < 0 {
			return "", false
		}
		start, stop = j+1, j+1+k
	} else {
		k, depth := j, 0
	scan:
		for k < len(raw) {
			switch raw[k] {
			case '\\':
				k += 2
				continue
			case ' ', '\t', '\n', '\r':
				break scan
			case '(':
				depth++
			case ')':
				if depth == 0 {
					break scan
				}
				depth--
			}
			k++
		}
		start, stop = j, min(k, len(raw))
	}
	dest = raw[start:stop]
	frag := ""
	if h := strings.IndexByte(dest, '#'); h >= 0 {
		dest, frag = dest[:h], dest[h:]
	}
	var enc string
	if bracket {
		enc = target
	} else {
		enc = escapeDest(target, hasEncodedUTF8.MatchString(dest))
	}
	return raw[:start] + enc + frag + raw[stop:], true
}

// hasEncodedUTF8 finds a percent-encoded byte of a multi-byte character:
// the link was written with its umlauts encoded, so the new one is too.
var hasEncodedUTF8 = regexp.MustCompile(`%[89a-fA-F][0-9a-fA-F]`)

// escapeDest writes a markdown link destination: spaces, parentheses,
// angle brackets and "%" percent-encoded (they would end or change the
// destination), other characters as they are, unless utf8 asks for
// non-ASCII characters to be encoded too.
func escapeDest(s string, utf8Encoded bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == ' ' || r == '(' || r == ')' || r == '<' || r == '>' || r == '%' || r == '\\':
			fmt.Fprintf(&b, "%%%02X", r)
		case utf8Encoded && r >= utf8.RuneSelf:
			buf := make([]byte, 4)
			n := utf8.EncodeRune(buf, r)
			for _, c := range buf[:n] {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// frontmatterWikilink finds [[…]] in frontmatter values, where Obsidian
// keeps links in properties ("up: \"[[Projekt]]\"").
var frontmatterWikilink = regexp.MustCompile(`!?\[\[[^\[\]\n]+\]\]`)

// frontmatterLinks returns the wikilinks in a note's frontmatter, which
// Parse does not read (it masks the frontmatter), as Links with offsets
// into the note.
func frontmatterLinks(d *note.Doc) []note.Link {
	if !d.HasFrontmatter {
		return nil
	}
	start, end := d.FrontmatterStart, d.BodyStart
	var out []note.Link
	for _, m := range frontmatterWikilink.FindAllIndex(d.Src[start:end], -1) {
		s, e := start+m[0], start+m[1]
		raw := string(d.Src[s:e])
		embed := strings.HasPrefix(raw, "!")
		inner := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(raw, "!"), "[["), "]]")
		l := note.Link{Embed: embed, Start: s, End: e, Line: bytes.Count(d.Src[:s], []byte("\n")) + 1}
		target, label, hasLabel := strings.Cut(inner, "|")
		if hasLabel {
			l.Label = strings.TrimSpace(label)
		}
		target, frag, _ := strings.Cut(target, "#")
		l.Target, l.Fragment = strings.TrimSpace(target), strings.TrimSpace(frag)
		if l.Target == "" {
			continue
		}
		out = append(out, l)
	}
	return out
}

// oneLineLink shows a link on one line, shortened when long.
func oneLineLink(raw string) string {
	s := strings.Join(strings.Fields(raw), " ")
	if utf8.RuneCountInString(s) > 120 {
		r := []rune(s)
		s = string(r[:117]) + "…"
	}
	return s
}
