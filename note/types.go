package note

// Heading is one heading of a note and the section it opens.
//
// Offsets are byte offsets into the note's full source (frontmatter
// included). A section runs from Start to End: from the heading's line start
// to the line start of the next heading whose level is the same or higher
// (fewer #), or to the end of the note.
type Heading struct {
	Level     int      // 1–6
	Text      string   // heading text without markers, closing #s and trailing spaces
	Path      []string // texts of the ancestors and of this heading, outermost first
	Line      int      // 1-based line number of the heading line
	Start     int      // line start of the heading
	BodyStart int      // first byte after the heading line (after a setext underline, after its line ending)
	End       int      // end of the section (nested sub-sections included)
	OwnEnd    int      // start of the next heading of any level (the section's own text)
}

// PathString renders the heading path the way it is addressed: "Projekte > Ziele".
func (h Heading) PathString() string { return JoinHeadingPath(h.Path) }

// Link is one outgoing link of a note.
type Link struct {
	Target   string // as written, unescaped: "Note", "folder/Note.md", "diagram.png"; "" for [[#Local]]
	Fragment string // "Heading" or "^block"; "" if none
	Label    string // display text ([[Note|Label]], [text](url)); "" if none
	Embed    bool   // ![[…]] or ![](…)
	Markdown bool   // [text](target.md) rather than [[wikilink]]
	Start    int    // byte offset of the link in the source
	End      int    // byte offset just past the link
	Line     int    // 1-based line number
}
