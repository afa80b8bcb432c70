package note

import (
	"bytes"
	"strings"
)

// A three-way merge of one note by sections, for git's merge driver
// (`vaultd git merge-driver`). git's own merge compares lines: two people
// appending to the same meeting log on two machines touch the same lines
// (the end of the section) and get a conflict although both entries
// should simply be kept. This merge compares what people edit — sections
// and properties:
//
//   - the note is cut into its frontmatter and its sections' own texts
//     (each heading up to the next heading of any level; the text before
//     the first heading is one more piece), each known by its heading path
//     with levels (and its number among equal paths);
//   - a piece changed on one side only takes that side; a piece deleted on
//     one side and unchanged on the other goes; a piece added on one side
//     comes in after the piece it follows there;
//   - a piece both sides extended at its end (appends under the same
//     heading) keeps both additions, ours first, then theirs; so does a
//     piece both sides only added lines to, anywhere (earlier merges of
//     appends interleave the two sides' lines);
//   - a piece both sides changed otherwise is merged line by line (diff3);
//     what still overlaps stays a conflict between git's usual markers, so
//     that every git tool understands it;
//   - frontmatter properties merge the same way, property by property.
//
// Every byte of a piece taken whole is copied as it was. When the pieces
// cannot be matched up — the sections were reordered differently on both
// sides, or a side already holds conflict markers — the whole note is
// merged line by line instead. Merge is pure: no files, no git.

// MergeOptions label the conflict markers.
type MergeOptions struct {
	OursLabel   string // after "<<<<<<< "; default "ours"
	TheirsLabel string // after ">>>>>>> "; default "theirs"
	MarkerSize  int    // default 7, git's conflict-marker-size
}

// MergeResult is a merged note.
type MergeResult struct {
	Text []byte
	// Conflicts is the number of regions left between conflict markers;
	// Sections names where they are, as Conflict.Where does.
	Conflicts int
	Sections  []string
	// NotText is set when a side is not UTF-8 text (CheckText) and the
	// sides differ: nothing is merged, Text is ours as it was, and the
	// note counts as one conflict, for a person to take a side whole. It
	// says which side and what it is.
	NotText string
}

// Merge merges ours and theirs, two versions of a note, from their common
// base (see above). merge(base, a, a), merge(base, base, a) and
// merge(base, a, base) are a, byte for byte.
func Merge(base, ours, theirs []byte, o MergeOptions) MergeResult {
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(theirs, base):
		return MergeResult{Text: ours}
	case bytes.Equal(ours, base):
		return MergeResult{Text: theirs}
	}
	// Sections and lines of UTF-16, Latin-1 or an LFS pointer are not
	// what they seem in bytes: merged as UTF-8 they would mix or cut the
	// texts. Only a side taken whole is safe.
	for _, side := range []struct {
		name string
		b    []byte
	}{{"ours", ours}, {"theirs", theirs}, {"the common base", base}} {
		if p := CheckText(side.b); p != nil {
			return MergeResult{Text: ours, Conflicts: 1, NotText: side.name + " is " + p.String()}
		}
	}
	m := &merger{o: o, eol: "\n"}
	if m.o.OursLabel == "" {
		m.o.OursLabel = "ours"
	}
	if m.o.TheirsLabel == "" {
		m.o.TheirsLabel = "theirs"
	}
	if m.o.MarkerSize <= 0 {
		m.o.MarkerSize = markerLen
	}
	if isCRLF(ours) {
		m.eol = "\r\n"
	}
	out, ok := m.byPieces(base, ours, theirs)
	if !ok {
		m.conflicts, m.where = 0, nil
		out = m.value(base, ours, theirs, "the whole note")
	}
	// A result that parses into conflicts the merge did not make (a side's
	// text completing a marker region with another's) is counted as git
	// would see it.
	if n := len(FindConflicts(out)); n > m.conflicts {
		m.conflicts = n
	}
	return MergeResult{Text: out, Conflicts: m.conflicts, Sections: m.where}
}

type merger struct {
	o         MergeOptions
	eol       string
	conflicts int
	where     []string
}

// piece is one part of a note: its key and its bytes.
type piece struct {
	key  string
	text []byte
	// first is the piece's first line (a section's heading line, a
	// property's key line): two sides that both add a piece starting with
	// the same line have added under the same heading.
	first []byte
	where string // for people: the section's path, or "the frontmatter"
}

// split cuts a note into its head (BOM and frontmatter, fences included)
// and its body pieces. ok is false for a note that already holds conflict
// markers.
func split(src []byte) (head []byte, body []piece, d *Doc, ok bool) {
	d = Parse(src)
	if len(d.Conflicts) > 0 {
		return nil, nil, d, false
	}
	bodyStart := 0
	switch {
	case d.HasFrontmatter:
		bodyStart = d.BodyStart
	case d.BOM:
		bodyStart = len(bom)
	}
	head = src[:bodyStart]
	end := len(src)
	if len(d.Headings) > 0 {
		end = d.Headings[0].Start
	}
	body = append(body, piece{key: "\x00preamble", text: src[bodyStart:end], where: "the text before the first heading"})
	seen := map[string]int{}
	var a *addresser
	for i, h := range d.Headings {
		var k strings.Builder
		for _, j := range append(d.ancestors(i), i) {
			g := d.Headings[j]
			k.WriteString(levelPrefix(g))
			k.WriteByte('\x00')
		}
		key := k.String()
		seen[key]++
		key += strings.Repeat("+", seen[key]-1)
		if a == nil {
			a = d.addresser()
		}
		text := src[h.Start:h.OwnEnd]
		body = append(body, piece{key: key, text: text, first: firstLine(text), where: a.address(i)})
	}
	return head, body, d, true
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1]
	}
	return b
}

// byPieces merges by frontmatter properties and sections; ok is false
// when the pieces cannot be matched up.
func (m *merger) byPieces(base, ours, theirs []byte) ([]byte, bool) {
	hb, bb, _, ok1 := split(base)
	ho, bo, _, ok2 := split(ours)
	ht, bt, _, ok3 := split(theirs)
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	head, ok := m.head(hb, ho, ht)
	if !ok {
		return nil, false
	}
	body, ok := m.pieces(bb, bo, bt)
	if !ok {
		return nil, false
	}
	out := append([]byte(nil), head...)
	return m.join(out, body), true
}

// join appends the pieces to out, giving a piece that ends without a line
// ending one when another follows it.
func (m *merger) join(out []byte, parts [][]byte) []byte {
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		if len(out) > 0 && out[len(out)-1] != '\n' && !bytes.Equal(out, bom) {
			out = append(out, m.eol...)
		}
		out = append(out, p...)
	}
	return out
}

// head merges the BOM and frontmatter: as a whole when only one side
// changed it, else property by property.
func (m *merger) head(hb, ho, ht []byte) ([]byte, bool) {
	switch {
	case bytes.Equal(ho, ht), bytes.Equal(ht, hb):
		return ho, true
	case bytes.Equal(ho, hb):
		return ht, true
	}
	pb, okb := fmPieces(hb)
	po, oko := fmPieces(ho)
	pt, okt := fmPieces(ht)
	if !okb || !oko || !okt {
		return m.value(hb, ho, ht, "the frontmatter"), true
	}
	// Fences (and BOM) from the side that has them, ours first.
	open, closing := fmFences(ho)
	if open == nil {
		open, closing = fmFences(ht)
	}
	props, ok := m.pieces(pb, po, pt)
	if !ok {
		return m.value(hb, ho, ht, "the frontmatter"), true
	}
	out := append([]byte(nil), open...)
	out = m.join(out, props)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, m.eol...)
	}
	return append(out, closing...), true
}

// fmPieces cuts a head (BOM and frontmatter) into its properties: the
// lines before the first property, then each property with the lines up to
// the next. A head without frontmatter has none; ok is false when the
// frontmatter cannot be read as properties.
func fmPieces(head []byte) ([]piece, bool) {
	if _, _, _, has := SplitFrontmatter(head); !has {
		return []piece{{key: "\x00lead"}}, true
	}
	fm, err := parseFM(head)
	if err != nil || !fm.has {
		return nil, false
	}
	out := []piece{{key: "\x00lead", where: "the frontmatter"}}
	first := fm.end
	if len(fm.entries) > 0 {
		first = fm.entries[0].start
	}
	out[0].text = head[fm.start:first]
	for i, e := range fm.entries {
		end := fm.end
		if i+1 < len(fm.entries) {
			end = fm.entries[i+1].start
		}
		text := head[e.start:end]
		out = append(out, piece{key: "\x00prop\x00" + e.key, text: text, first: firstLine(text), where: "the frontmatter"})
	}
	return out, true
}

// fmFences returns the opening fence line (BOM included) and the closing
// fence line to the end of head; nil without frontmatter.
func fmFences(head []byte) (open, closing []byte) {
	y, start, end, ok := SplitFrontmatter(head)
	if !ok {
		return nil, nil
	}
	yamlStart := start + bytes.IndexByte(head[start:], '\n') + 1
	yamlEnd := yamlStart + len(y)
	return head[:yamlStart], head[yamlEnd:end]
}

// pieces merges three sequences of keyed pieces. ok is false when both
// sides reordered the pieces they share, differently.
func (m *merger) pieces(pb, po, pt []piece) ([][]byte, bool) {
	ib, io, it := indexPieces(pb), indexPieces(po), indexPieces(pt)
	common := func(seq []piece) []string {
		var out []string
		for _, p := range seq {
			_, b := ib[p.key]
			_, o := io[p.key]
			_, t := it[p.key]
			if b && o && t {
				out = append(out, p.key)
			}
		}
		return out
	}
	cb, co, ct := common(pb), common(po), common(pt)
	skel, other := po, pt
	switch {
	case equalStrings(co, cb):
		if !equalStrings(ct, cb) {
			skel, other = pt, po // only theirs reordered: follow it
		}
	case !equalStrings(ct, cb) && !equalStrings(ct, co):
		return nil, false
	}
	// The order: the skeleton's pieces, and those only the other side has
	// after the piece they follow there — and after what only the
	// skeleton added at that place, so that at one place ours come first.
	order := make([]string, 0, len(skel)+len(other))
	inSkel, inOther := map[string]bool{}, map[string]bool{}
	for _, p := range skel {
		inSkel[p.key] = true
	}
	for _, p := range other {
		inOther[p.key] = true
	}
	after := map[string][]string{} // key in both → the other's keys to insert after it
	var lead []string
	prev := ""
	for _, p := range other {
		if inSkel[p.key] {
			prev = p.key
			continue
		}
		if prev == "" {
			lead = append(lead, p.key)
		} else {
			after[prev] = append(after[prev], p.key)
		}
	}
	var waiting []string
	for _, p := range skel {
		if inOther[p.key] {
			order = append(order, waiting...)
			waiting = nil
		}
		order = append(order, p.key)
		waiting = append(waiting, after[p.key]...)
	}
	order = append(order, waiting...)
	order = append(lead, order...)
	var out [][]byte
	for _, k := range order {
		b, inB := ib[k]
		o, inO := io[k]
		t, inT := it[k]
		where := firstNonEmpty(pieceWhere(po, io, k), pieceWhere(pt, it, k), pieceWhere(pb, ib, k))
		switch {
		case inB && inO && inT:
			out = append(out, m.value(pb[b].text, po[o].text, pt[t].text, where))
		case !inB && inO && inT:
			ot, tt := po[o].text, pt[t].text
			switch {
			case bytes.Equal(ot, tt):
				out = append(out, ot)
			case len(po[o].first) > 0 && bytes.Equal(bytes.TrimRight(po[o].first, "\r\n"), bytes.TrimRight(pt[t].first, "\r\n")):
				// Both added the same heading (or property): what each
				// wrote under it is an append to that line.
				out = append(out, m.value(po[o].first, ot, tt, where))
			default:
				out = append(out, m.conflict(ot, tt, where))
			}
		case inO && !inT && !inB, inT && !inO && !inB:
			if inO {
				out = append(out, po[o].text)
			} else {
				out = append(out, pt[t].text)
			}
		case inB && inO && !inT: // theirs deleted it
			if !bytes.Equal(pb[b].text, po[o].text) {
				out = append(out, m.conflict(po[o].text, nil, where))
			}
		case inB && inT && !inO: // ours deleted it
			if !bytes.Equal(pb[b].text, pt[t].text) {
				out = append(out, m.conflict(nil, pt[t].text, where))
			}
		}
	}
	return out, true
}

func indexPieces(ps []piece) map[string]int {
	m := make(map[string]int, len(ps))
	for i, p := range ps {
		m[p.key] = i
	}
	return m
}

func pieceWhere(ps []piece, idx map[string]int, k string) string {
	if i, ok := idx[k]; ok {
		return ps[i].where
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// value merges three versions of one piece (or of the whole note): one
// side's change wins over no change; additions at the end on both sides
// are both kept, ours first; anything else is merged line by line, and
// what overlaps becomes a conflict.
func (m *merger) value(b, o, t []byte, where string) []byte {
	switch {
	case bytes.Equal(o, t), bytes.Equal(t, b):
		return o
	case bytes.Equal(o, b):
		return t
	}
	lb, lo, lt := mergeLines(b), mergeLines(o), mergeLines(t)
	if out, ok := m.appends(lb, lo, lt); ok {
		return out
	}
	if out, ok := m.inserts(lb, lo, lt); ok {
		return out
	}
	return m.diff3(lb, lo, lt, where)
}

// inserts merges two sides that only added lines, anywhere, keeping every
// line of the base: at each place, the lines ours added, then those theirs
// added (once when they are the same). This is how appends to one section
// merge after earlier merges interleaved both sides' lines: the base of
// the next merge is then no longer a prefix of both. ok is false when a
// side removed or changed a line.
func (m *merger) inserts(lb, lo, lt [][]byte) ([]byte, bool) {
	mo, ok1 := matchLines(lb, lo)
	mt, ok2 := matchLines(lb, lt)
	if !ok1 || !ok2 {
		return nil, false
	}
	for i := range lb {
		if mo[i] < 0 || mt[i] < 0 {
			return nil, false
		}
	}
	var out []byte
	emit := func(ls [][]byte) {
		for _, l := range ls {
			if len(out) > 0 && out[len(out)-1] != '\n' {
				out = append(out, m.eol...)
			}
			out = append(out, l...)
		}
	}
	oFrom, tFrom := 0, 0
	for i := 0; i <= len(lb); i++ {
		oTo, tTo := len(lo), len(lt)
		if i < len(lb) {
			oTo, tTo = mo[i], mt[i]
		}
		ao, at := lo[oFrom:oTo], lt[tFrom:tTo]
		emit(ao)
		if !sameLines(ao, at) {
			emit(at)
		}
		if i < len(lb) {
			emit(lo[oTo : oTo+1])
			oFrom, tFrom = oTo+1, tTo+1
		}
	}
	return out, true
}

// mergeLines splits text after each "\n"; a last line without one is a
// line too.
func mergeLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// lineText is a line without its line ending: lines compare by it.
func lineText(l []byte) string {
	return string(bytes.TrimRight(l, "\r\n"))
}

func blankLine(l []byte) bool { return len(bytes.TrimSpace(l)) == 0 }

// bodyTail splits lines into the body and the blank lines that end it.
func bodyTail(ls [][]byte) (body, tail [][]byte) {
	n := len(ls)
	for n > 0 && blankLine(ls[n-1]) {
		n--
	}
	return ls[:n], ls[n:]
}

// appends merges two sides that both only added lines at the end of the
// base's text (before its closing blank lines): ours whole, then the lines
// theirs added, then the closing blank lines. ok is false otherwise.
func (m *merger) appends(lb, lo, lt [][]byte) ([]byte, bool) {
	bb, tb := bodyTail(lb)
	bo, to := bodyTail(lo)
	bt, tt := bodyTail(lt)
	if !extends(bb, bo) || !extends(bb, bt) {
		return nil, false
	}
	added := bt[len(bb):]
	if len(bo) == len(bb) && len(added) == 0 {
		return nil, false // neither added a line: only blank lines or line endings differ
	}
	// Both added the same lines: they are there once (as git's own merge
	// takes an identical change once).
	if sameLines(bo[len(bb):], added) {
		added = nil
	}
	tail := to
	if sameLines(to, tb) {
		tail = tt
	}
	var out []byte
	for _, l := range bo {
		out = append(out, l...)
	}
	for _, l := range added {
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, m.eol...)
		}
		out = append(out, l...)
	}
	for _, l := range tail {
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, m.eol...)
		}
		out = append(out, l...)
	}
	return out, true
}

// extends reports whether side starts with every line of base.
func extends(base, side [][]byte) bool {
	if len(side) < len(base) {
		return false
	}
	return sameLines(base, side[:len(base)])
}

func sameLines(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if lineText(a[i]) != lineText(b[i]) {
			return false
		}
	}
	return true
}

// diff3 merges line by line: between the lines all three versions keep,
// a stretch only one side changed takes that side; a stretch both changed
// alike is taken once; anything else is a conflict.
func (m *merger) diff3(lb, lo, lt [][]byte, where string) []byte {
	mo, ok1 := matchLines(lb, lo)
	mt, ok2 := matchLines(lb, lt)
	if !ok1 || !ok2 {
		return m.conflict(joinLines(lo), joinLines(lt), where)
	}
	var out []byte
	emit := func(ls [][]byte) {
		for _, l := range ls {
			if len(out) > 0 && out[len(out)-1] != '\n' {
				out = append(out, m.eol...)
			}
			out = append(out, l...)
		}
	}
	i, j, k := 0, 0, 0
	for i < len(lb) || j < len(lo) || k < len(lt) {
		// Lines kept by all three.
		if i < len(lb) && mo[i] == j && mt[i] == k {
			emit(lo[j : j+1])
			i, j, k = i+1, j+1, k+1
			continue
		}
		// The next base line both sides keep.
		ni, nj, nk := len(lb), len(lo), len(lt)
		for x := i; x < len(lb); x++ {
			if mo[x] >= j && mt[x] >= k {
				ni, nj, nk = x, mo[x], mt[x]
				break
			}
		}
		sb, so, st := lb[i:ni], lo[j:nj], lt[k:nk]
		switch {
		case sameLines(so, sb):
			emit(st)
		case sameLines(st, sb), sameLines(so, st):
			emit(so)
		default:
			// Lines both changed alike at the edges stay outside the
			// markers, as git's merge does.
			pre := 0
			for pre < len(so) && pre < len(st) && lineText(so[pre]) == lineText(st[pre]) {
				pre++
			}
			suf := 0
			for suf < len(so)-pre && suf < len(st)-pre && lineText(so[len(so)-1-suf]) == lineText(st[len(st)-1-suf]) {
				suf++
			}
			emit(so[:pre])
			c := m.conflict(joinLines(so[pre:len(so)-suf]), joinLines(st[pre:len(st)-suf]), where)
			emit([][]byte{c})
			emit(so[len(so)-suf:])
		}
		i, j, k = ni, nj, nk
	}
	return out
}

// matchLines maps each line of a to the line of b it is kept as, or -1,
// by a shortest edit script; ok is false when the texts differ too much
// for one (maxDiffEdits).
func matchLines(a, b [][]byte) ([]int, bool) {
	as, bs := make([]string, len(a)), make([]string, len(b))
	for i, l := range a {
		as[i] = lineText(l)
	}
	for i, l := range b {
		bs[i] = lineText(l)
	}
	ops, ok := myers(as, bs)
	if !ok {
		return nil, false
	}
	out := make([]int, len(a))
	for i := range out {
		out[i] = -1
	}
	for _, op := range ops {
		if op.kind == ' ' {
			out[op.a] = op.b
		}
	}
	return out, true
}

func joinLines(ls [][]byte) []byte {
	var out []byte
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}

// conflict renders one conflict region with git's markers, and counts it.
func (m *merger) conflict(ours, theirs []byte, where string) []byte {
	m.conflicts++
	if where == "" {
		where = "the text before the first heading"
	}
	if len(m.where) == 0 || m.where[len(m.where)-1] != where {
		m.where = append(m.where, where)
	}
	size := m.o.MarkerSize
	var out []byte
	out = append(out, strings.Repeat("<", size)+" "+m.o.OursLabel+m.eol...)
	out = append(out, ours...)
	if len(ours) > 0 && ours[len(ours)-1] != '\n' {
		out = append(out, m.eol...)
	}
	out = append(out, strings.Repeat("=", size)+m.eol...)
	out = append(out, theirs...)
	if len(theirs) > 0 && theirs[len(theirs)-1] != '\n' {
		out = append(out, m.eol...)
	}
	return append(out, strings.Repeat(">", size)+" "+m.o.TheirsLabel+m.eol...)
}
