package tools

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// UploadAttachmentArgs are the arguments of upload_attachment.
type UploadAttachmentArgs struct {
	Name          string `json:"name" help:"the file's name in the vault (default: FILE's name)"`
	ContentBase64 string `json:"content_base64" help:"the file's bytes, base64-encoded, instead of FILE"`
	Note          string `json:"note,omitempty" jsonschema:"note to embed it in" help:"append ![[embed]] to this note"`
	Heading       string `json:"heading,omitempty" jsonschema:"section for the embed" help:"with --note: append at the end of this section"`
	ChangeSummary string `json:"change_summary"`
}

// UploadData is upload_attachment's structured answer.
type UploadData struct {
	File          string   `json:"file"`
	Size          int64    `json:"size_bytes"`
	Type          string   `json:"type"`
	Version       string   `json:"version"`
	Folder        string   `json:"folder,omitempty"`
	FolderFrom    string   `json:"folder_from"`
	Renamed       bool     `json:"renamed,omitempty"`
	ChangeID      string   `json:"change_id"`
	ChangeSummary string   `json:"change_summary"`
	Embed         string   `json:"embed,omitempty"`
	Note          *NoteRef `json:"note,omitempty"`
	NoteDetail    string   `json:"note_detail,omitempty"`
	NoteChangeID  string   `json:"note_change_id,omitempty"`
}

// UploadAttachment stores a file in the vault's attachment folder and
// optionally embeds it in a note.
func (c *Core) UploadAttachment(ctx context.Context, caller Caller, a UploadAttachmentArgs) *Result {
	const tool = "upload_attachment"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Note, args: []arg{{"name", a.Name}, {"content_base64", "…"}}, noteArg: "note"}
	if a.Note != "" {
		f.args = append(f.args, arg{"note", a.Note})
	}
	if a.Heading != "" {
		f.args = append(f.args, arg{"heading", a.Heading})
	}
	f.args = append(f.args, arg{"change_summary", a.ChangeSummary})
	limit := int64(vault.DefaultMaxAttachmentSize)
	invalid := func(msg string) *Result {
		return c.fail(caller, failure{tool: tool}, &note.Error{Op: tool, Path: strings.TrimSpace(a.Name), Kind: note.ErrInvalid, Msg: msg})
	}
	enc := strings.Join(strings.Fields(a.ContentBase64), "")
	if i := strings.Index(enc, ";base64,"); strings.HasPrefix(enc, "data:") && i > 0 {
		enc = enc[i+len(";base64,"):] // a data: URL
	}
	switch {
	case enc == "":
		return invalid("content_base64 is empty: give the file's bytes, base64-encoded")
	case int64(len(enc)) > (limit/3+1)*4+4:
		return invalid(fmt.Sprintf("the file is about %s; the limit is %s", vault.FormatSize(int64(len(enc))/4*3), vault.FormatSize(limit)))
	}
	data, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		if data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(enc, "=")); err != nil {
			if data, err = base64.URLEncoding.DecodeString(enc); err != nil {
				return invalid("content_base64 is not valid base64: " + strings.TrimPrefix(err.Error(), "illegal base64 data "))
			}
		}
	}
	rl, err := c.Rules()
	if err != nil {
		return c.fail(caller, f, err)
	}
	up := vault.Upload{Name: a.Name, Data: data, Note: a.Note, Heading: a.Heading, MaxSize: limit,
		RuleFolder: rl.Attachments, RuleSource: rl.AttachmentsSource}
	res, err := c.v.UploadAttachment(up, c.opts(caller, a.ChangeSummary, ""))
	if err != nil && res == nil {
		return c.failApp(caller, f, a.Note, err)
	}
	d := UploadData{File: res.Path, Size: res.Size, Type: res.MIME, Version: note.ShortVersion(res.Version),
		Folder: res.Folder, FolderFrom: res.FolderFrom, Renamed: res.Renamed, ChangeID: res.ChangeID,
		ChangeSummary: a.ChangeSummary, Embed: res.Embed}
	var b strings.Builder
	fmt.Fprintf(&b, "file stored (operation: %s)\n", tool)
	fmt.Fprintf(&b, "file: %s\n", d.File)
	fmt.Fprintf(&b, "size: %s\n", sizeText(d.Size))
	fmt.Fprintf(&b, "type: %s\n", d.Type)
	fmt.Fprintf(&b, "version: %s\n", d.Version)
	folder := d.Folder
	if folder == "" {
		folder = "(vault root)"
	}
	fmt.Fprintf(&b, "folder: %s — %s\n", folder, d.FolderFrom)
	if d.Renamed {
		fmt.Fprintf(&b, "renamed: a file named %s exists already there, so the upload got a free name\n", strings.TrimSpace(a.Name))
	}
	fmt.Fprintf(&b, "recorded in history as change %s: %s\n", d.ChangeID, a.ChangeSummary)
	if res.Note != nil {
		ref := refOf(res.Note.Note)
		d.Note, d.NoteDetail, d.NoteChangeID = &ref, res.Note.Detail, res.Note.ChangeID
		fmt.Fprintf(&b, "embedded as %s: %s\n", d.Embed, d.NoteDetail)
		writeRef(&b, ref, "")
		fmt.Fprintf(&b, "recorded in history as change %s\n", d.NoteChangeID)
		b.WriteString("read it back: " + call{"read_note", []arg{{"path", ref.Path}}}.render(caller.Door) + "\n")
	} else {
		fmt.Fprintf(&b, "embed it in a note with: %s\n", c.v.Obsidian().Embed(res.Link))
	}
	r := &Result{Text: strings.TrimRight(b.String(), "\n"), Data: d, Changed: true}
	if err != nil {
		// Stored, but the embed failed: an error that says where the file is.
		er := c.failApp(caller, f, a.Note, err)
		er.Text = er.Text + "\n\nThe file itself was stored:\n" + r.Text
		er.Changed = true
		return er
	}
	return r
}

// sizeText renders a size with the exact byte count: "2.1 KB (2,134 bytes)".
func sizeText(n int64) string {
	if n < 1024 {
		return vault.FormatSize(n)
	}
	return fmt.Sprintf("%s (%s bytes)", vault.FormatSize(n), groupDigits(int(n)))
}

// dropNext removes the "next:" lines of an error text.
func dropNext(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "next: ") && !strings.HasPrefix(l, "then: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// ListAttachmentsArgs are the arguments of list_attachments.
type ListAttachmentsArgs struct {
	Folder string `json:"folder,omitempty"`
	Unused bool   `json:"unused,omitempty" jsonschema:"only those no note uses" help:"only attachments no note embeds or links to"`
	Limit  int    `json:"limit,omitempty" default:"20" help:"attachments per page (at most 100)"`
	Offset int    `json:"offset,omitempty" help:"attachments to skip, for the next page"`
}

// AttachmentData is one attachment in a listing.
type AttachmentData struct {
	File       string    `json:"file"`
	Size       int64     `json:"size_bytes"`
	Modified   string    `json:"modified"`
	EmbeddedIn []NoteRef `json:"embedded_in,omitempty"`
	LinkedFrom []NoteRef `json:"linked_from,omitempty"`
	MoreNotes  int       `json:"more_notes,omitempty"`
}

// ListAttachmentsData is list_attachments' structured answer.
type ListAttachmentsData struct {
	Folder      string           `json:"folder,omitempty"`
	Total       int              `json:"total"`
	TotalBytes  int64            `json:"total_bytes"`
	Offset      int              `json:"offset,omitempty"`
	Attachments []AttachmentData `json:"attachments"`
}

// maxNotesPerAttachment bounds the notes listed under one attachment.
const maxNotesPerAttachment = 5

// ListAttachments lists the vault's attachments with their size and the
// notes that embed or link to them.
func (c *Core) ListAttachments(ctx context.Context, caller Caller, a ListAttachmentsArgs) *Result {
	const tool = "list_attachments"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Folder, args: []arg{{"folder", a.Folder}}}
	folder, err := cleanFolder(a.Folder)
	if err != nil {
		return c.fail(caller, f, err)
	}
	list, err := c.v.Attachments(folder)
	if err != nil {
		if errKind(err) == note.ErrNotFound {
			notes, _ := c.v.Notes()
			err = &note.Error{Op: "list_attachments", Path: folder, Kind: note.ErrNotFound, Msg: "no such folder",
				Alternatives: vault.ClosestNotes(c.folders(notes), folder, maxAlternatives), AltKind: "folders"}
		}
		return c.fail(caller, f, err)
	}
	if a.Unused {
		var unused []vault.AttachmentInfo
		for _, at := range list {
			if len(at.Embeds) == 0 && len(at.LinkedBy) == 0 {
				unused = append(unused, at)
			}
		}
		list = unused
	}
	// The notes that embed or link to the attachments, by path: only
	// where there are attachments (Attachments read every note for them
	// then; without any, reading them cost the first call 3.6 s over the
	// 6,636 laws).
	byPath := map[string]*vault.Note{}
	if len(list) > 0 {
		notes, err := c.v.Notes()
		if err != nil {
			return c.fail(caller, f, err)
		}
		for _, n := range notes {
			byPath[n.Path] = n
		}
	}
	lim := a.Limit
	if lim <= 0 {
		lim = 20
	}
	lim = min(lim, 100)
	off := max(a.Offset, 0)
	data := ListAttachmentsData{Folder: folder, Total: len(list), Offset: off, Attachments: []AttachmentData{}}
	for _, at := range list {
		data.TotalBytes += at.Size
	}
	page := list[min(off, len(list)):]
	if len(page) > lim {
		page = page[:lim]
	}
	var b strings.Builder
	where := "the vault"
	if folder != "" {
		where = "folder " + folder
	}
	what := "attachments"
	if a.Unused {
		what = "unused attachments (no note embeds or links to them)"
	}
	if len(list) == 0 {
		fmt.Fprintf(&b, "no %s in %s (0 files).\n", what, where)
		if !a.Unused {
			b.WriteString("Attachments are images, PDFs, audio and video files; upload_attachment adds one.\n")
		}
		return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
	}
	fmt.Fprintf(&b, "%s in %s: %s, %s\n", what, where, plural(len(list), "file", "files"), sizeText(data.TotalBytes))
	if len(page) == 0 {
		fmt.Fprintf(&b, "no attachments at offset %d; there are %d.\n", off, len(list))
	} else {
		fmt.Fprintf(&b, "showing %d–%d of %d:\n", off+1, off+len(page), len(list))
	}
	for _, at := range page {
		ad := AttachmentData{File: at.Path, Size: at.Size, Modified: when(at.ModTime)}
		fmt.Fprintf(&b, "\nfile: %s\nsize: %s\nmodified: %s\n", ad.File, sizeText(ad.Size), ad.Modified)
		shownNotes := 0
		section := func(title string, paths []string) []NoteRef {
			var refs []NoteRef
			for _, p := range paths {
				n := byPath[p]
				if n == nil {
					continue
				}
				if shownNotes >= maxNotesPerAttachment {
					ad.MoreNotes++
					continue
				}
				if len(refs) == 0 {
					b.WriteString(title + ":\n")
				}
				shownNotes++
				ref := refOf(n)
				refs = append(refs, ref)
				writeRef(&b, ref, "  ")
			}
			return refs
		}
		ad.EmbeddedIn = section("embedded in", at.Embeds)
		ad.LinkedFrom = section("linked from", at.LinkedBy)
		if ad.MoreNotes > 0 {
			fmt.Fprintf(&b, "(and %s more)\n", plural(ad.MoreNotes, "note", "notes"))
		}
		if len(at.Embeds) == 0 && len(at.LinkedBy) == 0 {
			b.WriteString("used by: no note embeds or links to it\n")
		}
		data.Attachments = append(data.Attachments, ad)
	}
	if next := off + len(page); next < len(list) {
		var args []arg
		if folder != "" {
			args = append(args, arg{"folder", folder})
		}
		if a.Unused {
			args = append(args, arg{"unused", true})
		}
		args = append(args, arg{"offset", next})
		b.WriteString("\nnext page: " + call{"list_attachments", args}.render(caller.Door) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}
