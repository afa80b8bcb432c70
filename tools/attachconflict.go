package tools

import (
	"fmt"
	"path"
	"strings"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// Attachments changed on both sides of a merge (vault/attachconflict.go):
// resolve_conflict takes ours, theirs or both for them, and
// vault_overview lists them with the calls that resolve them.

// AttachmentResolvedData is resolve_conflict's structured answer for an
// attachment.
type AttachmentResolvedData struct {
	Path          string   `json:"path"`
	Operation     string   `json:"operation"`
	Take          string   `json:"take"`
	Kept          []string `json:"kept,omitempty"`
	Trashed       []string `json:"moved_to_trash,omitempty"`
	Detail        string   `json:"detail"`
	ChangeSummary string   `json:"change_summary"`
}

// AttachmentConflictData is an attachment in conflict, for vault_overview.
type AttachmentConflictData struct {
	Path    string   `json:"path"`
	Summary string   `json:"summary"`
	Resolve []string `json:"resolve"`
}

// isAttachmentRef reports whether a resolve_conflict path names a file
// that is not a note (an extension other than .md).
func isAttachmentRef(p string) bool {
	ext := path.Ext(strings.TrimSpace(p))
	return note.IsFileExt(ext) && !strings.EqualFold(ext, ".md")
}

// resolveAttachment is resolve_conflict for an attachment.
func (c *Core) resolveAttachment(caller Caller, f failure, a ResolveConflictArgs, o vault.WriteOpts) *Result {
	// A corrected call names the attachment, a take and the summary only.
	f.args = []arg{{"path", a.Path}, {"take", a.Take}, {"change_summary", a.ChangeSummary}}
	if a.Heading != "" || a.Content != "" || a.Take == vault.TakeText {
		return c.fail(caller, f, &note.Error{Op: "resolve_conflict", Path: a.Path, Kind: note.ErrInvalid,
			Alternatives: []string{vault.TakeOurs, vault.TakeTheirs, vault.TakeBoth}, AltKind: "choices",
			Msg: "an attachment has no sections and no text to give: resolve it with take ours, theirs or both (theirs kept beside ours), without heading or content"})
	}
	res, err := c.v.ResolveAttachment(a.Path, a.Take, o)
	if err != nil {
		return c.fail(caller, f, err)
	}
	data := AttachmentResolvedData{Path: res.Path, Operation: "resolve_conflict", Take: res.Take, Kept: res.Kept, Trashed: res.Trashed,
		Detail: res.Detail, ChangeSummary: a.ChangeSummary}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (operation: resolve_conflict)\n", res.Detail)
	fmt.Fprintf(&b, "attachment: %s\ntake: %s\n", res.Path, res.Take)
	if len(res.Kept) > 0 {
		b.WriteString("kept: " + strings.Join(res.Kept, ", ") + "\n")
	}
	if len(res.Trashed) > 0 {
		b.WriteString("moved to trash: " + strings.Join(res.Trashed, ", ") + "\n")
	}
	fmt.Fprintf(&b, "change summary: %s\n", a.ChangeSummary)
	b.WriteString("attachments: " + call{"list_attachments", nil}.render(caller.Door))
	return &Result{Text: b.String(), Data: data, Changed: true}
}

// attachmentConflicts renders the attachments in conflict for
// vault_overview, with the calls that resolve each.
func (c *Core) attachmentConflicts(b *strings.Builder, caller Caller) []AttachmentConflictData {
	list := c.v.AttachmentConflicts()
	if len(list) == 0 {
		return nil
	}
	fmt.Fprintf(b, "\nattachments in conflict (%d; changed on both sides of a merge, or deleted on one; the notes embedding them show ours):\n", len(list))
	var out []AttachmentConflictData
	for _, a := range list {
		d := AttachmentConflictData{Path: a.Path, Summary: a.Text()}
		for _, take := range []string{vault.TakeOurs, vault.TakeTheirs, vault.TakeBoth} {
			d.Resolve = append(d.Resolve, call{"resolve_conflict", []arg{{"path", a.Path}, {"take", take}, {"change_summary", "attachment conflict resolved: " + take}}}.render(caller.Door))
		}
		out = append(out, d)
		b.WriteString("- " + d.Summary + "\n")
		for _, r := range d.Resolve {
			b.WriteString("  resolve: " + r + "\n")
		}
	}
	return out
}
