package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/media"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// ReadAttachmentArgs are the arguments of read_attachment.
type ReadAttachmentArgs struct {
	Path   string `json:"path" jsonschema:"vault path, file name or embed as a note writes it: '3_Ressourcen/Anhänge/plan.png', 'plan.png', '![[plan.png]]'"`
	Note   string `json:"note,omitempty" jsonschema:"the note the embed is in: a name then resolves as that note's embed does (its folder first, relative paths from it)" help:"resolve PATH as this note's embed does (its folder first, ./ and ../ from it)"`
	Offset int    `json:"offset,omitempty" jsonschema:"characters of a PDF's text to skip, for the next page" help:"character offset to continue a PDF's text"`
}

// ReadAttachmentData is read_attachment's structured answer.
type ReadAttachmentData struct {
	File     string `json:"file"`
	Kind     string `json:"kind"` // image, pdf, audio, video, canvas, base
	Type     string `json:"type"` // MIME type of the file
	Size     int64  `json:"size_bytes"`
	Modified string `json:"modified"`
	// Width and Height are an image's pixels as stored.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// Sent is the image as sent after the text (MCP image content).
	Sent *SentImage `json:"image_sent,omitempty"`
	// Pages, PagesRead, Offset, NextOffset describe a PDF's text; the text
	// itself is in the answer's text only, as read_note's content is.
	Pages      int `json:"pages,omitempty"`
	PagesRead  int `json:"pages_read,omitempty"`
	EmptyPages int `json:"pages_without_text,omitempty"`
	Offset     int `json:"offset,omitempty"`
	NextOffset int `json:"next_offset,omitempty"`
	// EmbeddedIn and LinkedFrom are the notes that use the file (at most
	// 5 together; MoreNotes counts the rest).
	EmbeddedIn []NoteRef `json:"embedded_in,omitempty"`
	LinkedFrom []NoteRef `json:"linked_from,omitempty"`
	MoreNotes  int       `json:"more_notes,omitempty"`
	// Resource is the file's MCP resource URI (resources/read gives its
	// bytes).
	// (MCP only).
	Resource string `json:"resource,omitempty"`
}

// SentImage is the picture read_attachment sends: re-encoded, scaled to
// fit media.MaxSide and media.MaxBytes, without metadata.
type SentImage struct {
	Type   string `json:"type"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Size   int    `json:"size_bytes"`
}

// maxPDFChars bounds the PDF text of one answer, as maxNoteChars a note's.
const maxPDFChars = maxNoteChars

// ReadAttachment shows one attachment: a text that stands alone (path,
// kind, size, pixels, the notes that embed it, its resource URI), and
// for an image the picture itself (Result.Images: scaled down, EXIF
// stripped), for a PDF its text (media.PDFText, paged by offset), for a
// canvas or base its JSON or YAML. The file may be named by vault path,
// by file name, or by an embed as a note writes it ("![[plan.png]]",
// "![](../img/plan.png)"), resolved as Obsidian resolves that embed —
// from the note named in note, when given.
//
// Refused, as for notes: a path through a hidden folder (.obsidian, .git,
// .trash) or a link leading into one or out of the vault, a file larger
// than vault.DefaultMaxAttachmentRead; a miss lists the closest
// attachments, each as a call.
func (c *Core) ReadAttachment(ctx context.Context, caller Caller, a ReadAttachmentArgs) *Result {
	const tool = "read_attachment"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}}}
	if a.Note != "" {
		f.args = append(f.args, arg{"note", a.Note})
	}
	target := embedTarget(a.Path)
	if target == "" {
		return c.fail(caller, f, &note.Error{Op: tool, Kind: note.ErrInvalid,
			Msg: "path is empty: give the attachment's vault path, its file name, or the embed as the note writes it (![[plan.png]])"})
	}
	from := ""
	if strings.TrimSpace(a.Note) != "" {
		n, _, err := c.v.Find(a.Note)
		if err != nil {
			fn := failure{tool: tool, path: a.Note, args: f.args, noteArg: "note"}
			if ve, ok := note.AsError(err); ok {
				cp := *ve
				cp.Op = tool
				err = &cp
			}
			return c.fail(caller, fn, err)
		}
		from = n.Path
	}
	p, res := c.attachmentPath(caller, f, target, from)
	if res != nil {
		return res
	}
	if p != target {
		f.args[0].value = p
	}
	info, b, err := c.v.ReadAttachment(p, vault.DefaultMaxAttachmentRead)
	if err != nil {
		return c.attachmentFailure(caller, f, p, err)
	}
	kind, mime, _ := vault.AttachmentKind(info.Path)
	d := ReadAttachmentData{File: info.Path, Kind: kind, Type: mime, Size: info.Size, Modified: when(info.ModTime)}
	if !caller.Door.CLI() {
		d.Resource = ResourceURI(info.Path)
	}
	r := &Result{}
	var b2 strings.Builder
	fmt.Fprintf(&b2, "attachment: %s\n", d.File)
	fmt.Fprintf(&b2, "kind: %s\n", kindText(kind, d.File))
	fmt.Fprintf(&b2, "type: %s\n", d.Type)
	fmt.Fprintf(&b2, "size: %s\n", sizeText(d.Size))
	fmt.Fprintf(&b2, "modified: %s\n", d.Modified)
	var body strings.Builder // what follows the notes: the content or why there is none
	switch kind {
	case "image":
		c.describeImage(&b2, &body, &d, r, b, caller)
	case "pdf":
		if a.Offset < 0 {
			a.Offset = 0
		}
		if res := c.describePDF(&b2, &body, &d, b, a.Offset, caller, f); res != nil {
			return res
		}
	case "canvas", "base":
		what := "Obsidian canvas (JSON Canvas: nodes and edges)"
		if kind == "base" {
			what = "Obsidian base (YAML: filters, formulas, views); vaultd does not run bases yet"
		}
		fmt.Fprintf(&body, "\n%s, its text:\n", what)
		lang := "json"
		if kind == "base" {
			lang = "yaml"
		}
		page, next := pageOf(b, 0, maxPDFChars)
		body.WriteString(fenceAs(lang, page))
		if next > 0 {
			fmt.Fprintf(&body, "(cut at %s of %s characters)\n", groupDigits(next), groupDigits(utf8.RuneCount(b)))
		}
	default:
		fmt.Fprintf(&body, "\nvaultd does not read %s files: this text is all it shows. Ask the user what it holds, or have your client open the resource below.\n", kind)
	}
	c.writeUsers(&b2, &d, info)
	b2.WriteString(body.String())
	if caller.Door.CLI() {
		fmt.Fprintf(&b2, "save a copy: vaultd attachment %s --out FILE\n", shellQuote(d.File))
	} else {
		fmt.Fprintf(&b2, "resource: %s (resources/read gives the file itself)\n", d.Resource)
		r.Resources = append(r.Resources, Resource{URI: d.Resource, Name: path.Base(d.File), MIMEType: d.Type,
			Description: fmt.Sprintf("%s, %s", kindText(kind, d.File), vault.FormatSize(d.Size))})
	}
	r.Text, r.Data = strings.TrimRight(b2.String(), "\n"), d
	return r
}

// describeImage adds an image's pixels and the picture sent.
func (c *Core) describeImage(b, body *strings.Builder, d *ReadAttachmentData, r *Result, data []byte, caller Caller) {
	if _, w, h, err := media.Config(data); err == nil {
		d.Width, d.Height = w, h
		fmt.Fprintf(b, "pixels: %d × %d\n", w, h)
	}
	switch strings.ToLower(path.Ext(d.File)) {
	case ".svg":
		fmt.Fprintf(body, "\nnot sent as an image: SVG is a drawing in text (XML), and MCP image content takes raster images; its text:\n")
		page, next := pageOf(data, 0, maxPDFChars)
		body.WriteString(fenceAs("xml", page))
		if next > 0 {
			fmt.Fprintf(body, "(cut at %s of %s characters)\n", groupDigits(next), groupDigits(utf8.RuneCount(data)))
		}
		return
	case ".bmp", ".avif":
		fmt.Fprintf(body, "\nnot sent as an image: vaultd decodes PNG, JPEG, GIF and WebP, not %s yet.\n", strings.ToUpper(strings.TrimPrefix(path.Ext(d.File), ".")))
		return
	}
	im, err := media.Prepare(data)
	if err != nil {
		fmt.Fprintf(body, "\nnot sent as an image: it could not be decoded (%s).\n", imageErrText(err))
		return
	}
	d.Sent = &SentImage{Type: im.MIMEType, Width: im.OutWidth, Height: im.OutHeight, Size: len(im.Data)}
	how := "re-encoded without metadata (EXIF, GPS)"
	if im.Scaled() {
		how = "scaled down, " + how
	}
	where := "as image content after this text"
	if caller.Door.CLI() {
		where = "to MCP clients; a terminal shows none"
	} else {
		r.Images = append(r.Images, Image{MIMEType: im.MIMEType, Data: im.Data})
	}
	fmt.Fprintf(b, "image sent: %d × %d %s, %s, %s, %s\n", im.OutWidth, im.OutHeight, im.MIMEType, sizeText(int64(len(im.Data))), how, where)
}

// imageErrText says why an image could not be decoded, without Go's
// package prefixes.
func imageErrText(err error) string {
	s := err.Error()
	for _, p := range []string{"png: ", "jpeg: ", "gif: ", "webp: ", "image: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
}

// describePDF adds a PDF's pages and a page of its text.
func (c *Core) describePDF(b, body *strings.Builder, d *ReadAttachmentData, data []byte, offset int, caller Caller, f failure) *Result {
	pdf, err := media.PDFText(data, offset+maxPDFChars+1)
	if err != nil {
		why := strings.ReplaceAll(strings.TrimPrefix(err.Error(), media.ErrPDF.Error()+": "), "%%", "%")
		fmt.Fprintf(body, "\ntext: none: the PDF cannot be read (%s); vaultd reads PDFs that are not encrypted.\n", why)
		return nil
	}
	d.Pages, d.PagesRead, d.EmptyPages = pdf.Pages, pdf.PagesRead, pdf.EmptyPages
	fmt.Fprintf(b, "pages: %d\n", pdf.Pages)
	text := []byte(pdf.Text)
	total := utf8.RuneCount(text)
	if total == 0 {
		d.PagesRead = 0
		fmt.Fprintf(body, "\ntext: none: its %s hold no text (scanned or drawn; vaultd does no OCR).\n", plural(pdf.Pages, "page", "pages"))
		return nil
	}
	if offset > 0 && offset >= total {
		last := max(0, (total-1)/maxPDFChars*maxPDFChars)
		r := c.fail(caller, f, &note.Error{Op: "read_attachment", Path: d.File, Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("offset %s is past the end: the PDF's text has %s characters; its last page starts at about %s",
				groupDigits(offset), groupDigits(total), groupDigits(last))})
		r.Text += "\nnext: " + call{"read_attachment", []arg{{"path", d.File}, {"offset", last}}}.render(caller.Door)
		return r
	}
	page, next := pageOf(text, offset, maxPDFChars)
	more := next > 0 || pdf.PagesRead < pdf.Pages
	if next == 0 && more {
		next = offset + utf8.RuneCountInString(page)
	}
	d.Offset = offset
	if more {
		d.NextOffset = next
	}
	end := offset + utf8.RuneCountInString(page)
	switch {
	case offset == 0 && !more:
		whole := "all " + plural(pdf.Pages, "page", "pages")
		if pdf.Pages == 1 {
			whole = "its one page"
		}
		fmt.Fprintf(body, "\ntext of %s (%s characters, lines as the pages set them):\n", whole, groupDigits(total))
	case pdf.PagesRead < pdf.Pages:
		fmt.Fprintf(body, "\ntext: characters %s–%s of the first %s of %d read (offset counts characters; pages marked \"--- page N ---\"):\n",
			groupDigits(offset), groupDigits(end), plural(pdf.PagesRead, "page", "pages"), pdf.Pages)
	default:
		fmt.Fprintf(body, "\ntext: characters %s–%s of %s, %s in all (offset counts characters; pages marked \"--- page N ---\"):\n",
			groupDigits(offset), groupDigits(end), groupDigits(total), plural(pdf.Pages, "page", "pages"))
	}
	body.WriteString(fenceAs("text", page))
	if pdf.EmptyPages > 0 {
		fmt.Fprintf(body, "%s of the pages read hold no text (scanned or drawn; vaultd does no OCR).\n", plural(pdf.EmptyPages, "page", "pages"))
	}
	if more {
		body.WriteString("more: " + call{"read_attachment", []arg{{"path", d.File}, {"offset", next}}}.render(caller.Door) + "\n")
	}
	return nil
}

// writeUsers lists the notes that embed or link to the attachment.
func (c *Core) writeUsers(b *strings.Builder, d *ReadAttachmentData, info vault.AttachmentInfo) {
	shown := 0
	section := func(title string, paths []string) []NoteRef {
		var refs []NoteRef
		for _, p := range paths {
			n, err := c.v.Read(p)
			if err != nil {
				continue
			}
			if shown >= maxNotesPerAttachment {
				d.MoreNotes++
				continue
			}
			if len(refs) == 0 {
				b.WriteString(title + ":\n")
			}
			shown++
			ref := refOf(n)
			refs = append(refs, ref)
			writeRef(b, ref, "  ")
		}
		return refs
	}
	d.EmbeddedIn = section("embedded in", info.Embeds)
	d.LinkedFrom = section("linked from", info.LinkedBy)
	if d.MoreNotes > 0 {
		fmt.Fprintf(b, "(and %s more)\n", plural(d.MoreNotes, "note", "notes"))
	}
	if len(info.Embeds) == 0 && len(info.LinkedBy) == 0 {
		b.WriteString("used by: no note embeds or links to it\n")
	}
}

// kindText names a kind for people: "image (PNG)", "PDF", "audio (MP3)".
func kindText(kind, p string) string {
	ext := strings.ToUpper(strings.TrimPrefix(path.Ext(p), "."))
	switch kind {
	case "pdf":
		return "PDF"
	case "canvas":
		return "canvas (Obsidian)"
	case "base":
		return "base (Obsidian)"
	case "":
		return ext
	}
	switch ext {
	case "JPG":
		ext = "JPEG"
	case "WEBP":
		ext = "WebP"
	}
	return kind + " (" + ext + ")"
}

// embedTarget takes what an agent has for an attachment — a path, a file
// name, "![[plan.png|300]]", "[[plan.png]]", "![alt](img/plan%20a.png)" —
// and returns the link target: brackets, label, size and fragment
// ("#page=3") dropped, a markdown destination percent-decoded.
func embedTarget(ref string) string {
	s := strings.TrimSpace(ref)
	s = strings.TrimPrefix(s, "!")
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") {
		t, _ := note.SplitLinkText(s)
		return t
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, ")") {
		if i := strings.Index(s, "]("); i > 0 {
			dest := strings.TrimSpace(s[i+2 : len(s)-1])
			dest = strings.TrimSuffix(strings.TrimPrefix(dest, "<"), ">")
			if j := strings.IndexAny(dest, " \t"); j > 0 && !strings.HasPrefix(strings.TrimSpace(s[i+2:]), "<") {
				dest = dest[:j] // a title: ![a](x.png "Title")
			}
			if u, err := url.PathUnescape(dest); err == nil {
				dest = u
			}
			dest, _, _ = strings.Cut(dest, "#")
			return strings.TrimSpace(dest)
		}
	}
	return s
}

// attachmentPath finds the file a reference names: the vault path it is,
// else the file the embed resolves to as Obsidian resolves it from the
// note from ("" for none: file name anywhere in the vault, shortest path
// first). Unresolved references come back as given, for ReadAttachment
// to refuse (hidden, outside) or report missing.
func (c *Core) attachmentPath(caller Caller, f failure, target, from string) (string, *Result) {
	const tool = "read_attachment"
	r, err := c.v.Resolver()
	if err != nil {
		return "", c.fail(caller, f, err)
	}
	res := r.ResolveName(from, target)
	switch res.Status {
	case note.Resolved:
		if vault.IsNote(res.Target) {
			return "", c.attachmentIsNote(caller, f, res.Target)
		}
		return res.Target, nil
	case note.Ambiguous:
		var b strings.Builder
		fmt.Fprintf(&b, "error: %s %q: %s files have this name and are equally near; name one by its path\nerror code: ambiguous\n", tool, target, groupDigits(len(res.Candidates)))
		b.WriteString("candidates, each a call to copy (their folders tell them apart):\n")
		for _, p := range res.Candidates {
			b.WriteString("- " + call{tool, []arg{{"path", p}}}.render(caller.Door) + "\n")
		}
		return "", &Result{Text: strings.TrimRight(b.String(), "\n"),
			Data: map[string]any{"error": "ambiguous", "candidates": res.Candidates},
			Err:  &note.Error{Op: tool, Path: target, Kind: note.ErrAmbiguous, Msg: "several files have this name", Alternatives: res.Candidates}}
	}
	if strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../") {
		if p, ok := note.JoinInside(note.FolderOf(from), target); ok {
			return p, nil
		}
	}
	return strings.TrimPrefix(target, "/"), nil
}

// attachmentIsNote answers a read_attachment that named a note.
func (c *Core) attachmentIsNote(caller Caller, f failure, p string) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "error: read_attachment %q: is a note, not an attachment\nerror code: invalid_path\n", p)
	b.WriteString("next: " + call{"read_note", []arg{{"path", p}}}.render(caller.Door))
	return &Result{Text: b.String(), Data: map[string]any{"error": "invalid_path"},
		Err: &note.Error{Op: "read_attachment", Path: p, Kind: note.ErrInvalidPath, Msg: "is a note, not an attachment"}}
}

// attachmentFailure renders ReadAttachment's errors: a miss with the
// closest attachments, each a call, and the listing above them; a hidden
// or outside path with where attachments are; anything else as fail does.
func (c *Core) attachmentFailure(caller Caller, f failure, p string, err error) *Result {
	const tool = "read_attachment"
	ve, ok := note.AsError(err)
	if !ok {
		return c.fail(caller, f, err)
	}
	var b strings.Builder
	data := map[string]any{"error": kindName(err)}
	fmt.Fprintf(&b, "error: %s %q: %s\nerror code: %s\n", tool, p, ve.Msg, kindName(err))
	list := call{"list_attachments", nil}
	switch {
	case errors.Is(err, note.ErrNotFound):
		var all []string
		_ = c.v.Walk(func(e vault.Entry) error {
			if !e.Note && vault.IsAttachment(e.Path) {
				all = append(all, e.Path)
			}
			return nil
		})
		closest := closestAttachments(all, p)
		if len(closest) > 0 {
			data["closest"] = closest
			b.WriteString("closest attachments, nearest first, each a call to copy:\n")
			for _, a := range closest {
				b.WriteString("- " + call{tool, []arg{{"path", a}}}.render(caller.Door) + "\n")
			}
		} else {
			fmt.Fprintf(&b, "no attachment has a name like it; the vault has %s.\n", plural(len(all), "attachment", "attachments"))
		}
		if dir := note.FolderOf(p); dir != "" && c.v.Exists(dir) {
			list.args = []arg{{"folder", dir}}
		}
		b.WriteString("all attachments: " + list.render(caller.Door) + "\n")
	case errors.Is(err, note.ErrInvalidPath):
		b.WriteString("Attachments are read from the vault's own folders, by vault path (\"/\"-separated) or by the name a note embeds; hidden folders (.obsidian, .git, .trash) and links leading out of the vault are never read.\n")
		b.WriteString("all attachments: " + list.render(caller.Door) + "\n")
	case errors.Is(err, note.ErrInvalid):
		fmt.Fprintf(&b, "vaultd reads attachments up to %s; open this one in Obsidian, or ask the user what it holds.\n", vault.FormatSize(vault.DefaultMaxAttachmentRead))
	default:
		return c.fail(caller, f, err)
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data, Err: err}
}

// ResourceURI is the MCP resource URI of a vault file: vault://note/PATH
// for a note, vault://file/PATH for an attachment, each path segment
// percent-encoded (mcpserver serves them; read_attachment names them).
func ResourceURI(p string) string {
	prefix := "vault://file/"
	if vault.IsNote(p) {
		prefix = "vault://note/"
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return prefix + strings.Join(segs, "/")
}

// closestAttachments ranks attachments by name as ClosestNotes ranks
// notes, on the names without extension ("Startseite.png" finds
// "Startseite Entwurf.png"); a name with the same extension wins a tie.
func closestAttachments(all []string, want string) []string {
	stem := func(p string) string { return strings.TrimSuffix(p, path.Ext(p)) }
	byStem := map[string][]string{}
	var stems []string
	for _, p := range all {
		s := stem(p)
		if len(byStem[s]) == 0 {
			stems = append(stems, s)
		}
		byStem[s] = append(byStem[s], p)
	}
	ext := strings.ToLower(path.Ext(want))
	var out []string
	for _, s := range vault.ClosestNotes(stems, stem(want), maxAlternatives) {
		ps := byStem[s]
		for i, p := range ps {
			if strings.ToLower(path.Ext(p)) == ext {
				ps[0], ps[i] = ps[i], ps[0]
			}
		}
		out = append(out, ps...)
	}
	return limit(out, maxAlternatives)
}

// EmbedData is an attachment a note embeds, as read_note and search hits
// name it.
type EmbedData struct {
	File string `json:"file"`
	Kind string `json:"kind"`
	Size string `json:"size"` // "48 KB", as the text says it
}

// maxEmbedsShown bounds the attachments named on one line.
const maxEmbedsShown = 8

// embedsOf lists the attachments n embeds that lead to a real file
// (vault.EmbeddedFiles), at most maxEmbedsShown, and how many more.
func (c *Core) embedsOf(n *vault.Note) ([]EmbedData, int) { return embedList(c.v.EmbeddedFiles(n)) }

// embedList is embedsOf for the files a note embeds.
func embedList(files []vault.Entry) ([]EmbedData, int) {
	var out []EmbedData
	for i, e := range files {
		if i == maxEmbedsShown {
			return out, len(files) - i
		}
		kind, _, _ := vault.AttachmentKind(e.Path)
		out = append(out, EmbedData{File: e.Path, Kind: kind, Size: vault.FormatSize(e.Size)})
	}
	return out, 0
}

// embedHint is what mayEmbed found in one version of a note, and, once
// hitEmbeds listed them, the files it embeds as of the change journal's
// mark.
type embedHint struct {
	version string
	may     bool

	listed bool
	embeds []EmbedData
	more   int
	mark   index.ChangeMark
}

// hitEmbeds lists the files the note at p (at version, the index's)
// embeds, for a search hit. The list is remembered with the note's
// version until something other than a note changes (an attachment
// added, moved or deleted; the change journal tells): a law that embeds
// images was read and parsed for every search that showed it (7 % of the
// CPU of a search load on the laws).
//
// known says the index gave the note's embed targets (index.Hit.Embeds):
// then the note is not read, and a note without embeds costs nothing
// (the searches after a start read each law they showed and parsed those
// holding "![": on 4× the laws the first ten searches of a restart took
// 0.23 s of CPU, 0.08 s without).
func (c *Core) hitEmbeds(p, version string, targets []string, known bool) ([]EmbedData, int) {
	if known && len(targets) == 0 {
		return nil, 0
	}
	if !known && !c.mayEmbed(p, version) {
		return nil, 0
	}
	if h, ok := c.embedHints.Load(p); ok && version != "" {
		eh := h.(embedHint)
		if eh.version == version && eh.listed {
			ch, err := c.Changes(eh.mark)
			if err == nil && !ch.Lost && !slices.ContainsFunc(ch.Paths, func(p string) bool { return !vault.IsNote(p) }) {
				eh.mark = ch.Next
				c.embedHints.Store(p, eh)
				return slices.Clone(eh.embeds), eh.more
			}
		}
	}
	mark, merr := c.Changes(index.ChangeMark{}) // before the listing: a change meanwhile lists again
	if known && version != "" {
		embeds, more := embedList(c.v.EmbeddedTargets(p, targets))
		if merr == nil {
			c.embedHints.Store(p, embedHint{version: version, may: true, listed: true, embeds: embeds, more: more, mark: mark.Next})
		}
		return slices.Clone(embeds), more
	}
	n, err := c.v.Read(p)
	if err != nil {
		return nil, 0
	}
	embeds, more := c.embedsOf(n)
	if merr == nil && version != "" && n.Version == version {
		c.embedHints.Store(p, embedHint{version: version, may: true, listed: true, embeds: embeds, more: more, mark: mark.Next})
	}
	return slices.Clone(embeds), more
}

// mayEmbed reports whether the note at p, at version (the index's; "" when
// unknown), may embed a file: its text holds "![". A search hit pays one
// read of the bytes for it the first time it shows a version of the note,
// and the parse that finds the embeds only when they may be there
// (parsing every hit made search_notes 2.2× slower on the laws, which
// embed nothing; reading the bytes each time, 1.12×).
func (c *Core) mayEmbed(p, version string) bool {
	if version != "" {
		if h, ok := c.embedHints.Load(p); ok && h.(embedHint).version == version {
			return h.(embedHint).may
		}
	}
	src, err := c.v.ReadFile(p)
	may := err == nil && bytes.Contains(src, []byte("!["))
	if err == nil && version != "" {
		// Keyed by the index's version: a note changed since it was
		// indexed is looked at again once the index has the change.
		c.embedHints.Store(p, embedHint{version: version, may: may})
	}
	return may
}

// byQuery puts first the attachments whose file name holds more of the
// query's words (a search for "CDN Angebot" shows "Angebot CDN.pdf" first,
// and its line's call reads that one); the others keep the note's order.
func byQuery(embeds []EmbedData, query string) {
	words := foldWords(query)
	if len(words) == 0 || len(embeds) < 2 {
		return
	}
	score := func(e EmbedData) int {
		name := strings.ToLower(path.Base(e.File))
		n := 0
		for _, w := range words {
			if len([]rune(w)) >= 3 && strings.Contains(name, w) {
				n++
			}
		}
		return n
	}
	slices.SortStableFunc(embeds, func(a, b EmbedData) int { return score(b) - score(a) })
}

// writeEmbeds writes the one line that names a note's embedded
// attachments, with kind and size, and the call that shows the first:
//
//	attachments: a/x.png (image, 48 KB), a/y.pdf (PDF, 1.2 MB); see one: read_attachment {"path": "a/x.png"}
func writeEmbeds(b *strings.Builder, embeds []EmbedData, more int, door Door) {
	writeEmbedsIndent(b, embeds, more, door, "")
}

func writeEmbedsIndent(b *strings.Builder, embeds []EmbedData, more int, door Door, indent string) {
	if len(embeds) == 0 {
		return
	}
	parts := make([]string, len(embeds))
	for i, e := range embeds {
		k := e.Kind
		if k == "pdf" {
			k = "PDF"
		}
		parts[i] = fmt.Sprintf("%s (%s, %s)", e.File, k, e.Size)
	}
	b.WriteString(indent + "attachments: " + strings.Join(parts, ", "))
	if more > 0 {
		fmt.Fprintf(b, " and %d more", more)
	}
	b.WriteString("; see one: " + call{"read_attachment", []arg{{"path", embeds[0].File}}}.render(door) + "\n")
}
