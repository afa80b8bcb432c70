package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/vault"
)

// Notes and attachments as MCP resources, so that a client's @-mentions
// and resource pickers reach the vault:
//
//	vault://note/1_Projekte/Website-Relaunch.md   a note: its markdown, with its version in _meta
//	vault://file/3_Ressourcen/Anh%C3%A4nge/x.svg  an attachment: a blob with its MIME type
//
// Each path segment is percent-encoded. resources/list pages the notes and
// then the attachments, resourcePage at a time, leaving out what Obsidian's
// "Excluded files" exclude; resources/read takes any path, excluded or
// not, as read_note does.
const (
	noteURIPrefix = "vault://note/"
	fileURIPrefix = "vault://file/"
	noteTemplate  = "vault://note/{+path}"
	fileTemplate  = "vault://file/{+path}"

	// resourcePage is how many resources one resources/list page holds.
	resourcePage = 100
	// maxBlob bounds an attachment read as a resource (uploads are at
	// most 10 MB too).
	maxBlob = 10 << 20
)

// NoteURI is the resource URI of a note or attachment at vault path p.
func NoteURI(p string) string { return tools.ResourceURI(p) }

// pathOfURI returns the vault path a vault:// URI names, and whether it
// names a note (else an attachment).
func pathOfURI(uri string) (p string, note bool, ok bool) {
	rest, isNote := strings.CutPrefix(uri, noteURIPrefix)
	if !isNote {
		var isFile bool
		if rest, isFile = strings.CutPrefix(uri, fileURIPrefix); !isFile {
			return "", false, false
		}
	}
	p, err := url.PathUnescape(rest)
	if err != nil || p == "" {
		return "", false, false
	}
	return p, isNote, true
}

// mimeOf is the MIME type of a vault file by its extension.
func mimeOf(p string) string {
	ext := strings.ToLower(path.Ext(p))
	switch ext {
	case ".md":
		return "text/markdown"
	case ".svg":
		return "image/svg+xml"
	case ".m4a":
		return "audio/mp4"
	case ".webm":
		return "video/webm"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		t, _, _ = strings.Cut(t, ";")
		return t
	}
	return "application/octet-stream"
}

// listCursor encodes a resources/list position. mcp-go decodes the cursor
// as base64 before the hook sees it, so it stays valid base64.
func listCursor(offset int) mcp.Cursor {
	return mcp.Cursor(base64.StdEncoding.EncodeToString([]byte("vaultd:" + strconv.Itoa(offset))))
}

func cursorOffset(c mcp.Cursor) int {
	b, err := base64.StdEncoding.DecodeString(string(c))
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "vaultd:"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// listedFiles are the notes, then the attachments, of resources/list: in
// path order, without dot-folders and without what Obsidian excludes.
func listedFiles(c *tools.Core) []vault.Entry {
	ob := c.Vault().Obsidian()
	var notes, files []vault.Entry
	_ = c.Vault().Walk(func(e vault.Entry) error {
		if _, excluded := ob.Excluded(e.Path); excluded {
			return nil
		}
		if e.Note {
			notes = append(notes, e)
		} else if isAttachment(e.Path) {
			files = append(files, e)
		}
		return nil
	})
	return append(notes, files...)
}

func isAttachment(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	for _, e := range vault.AllowedAttachmentExts() {
		if ext == e {
			return true
		}
	}
	return false
}

// ResourcePage is one page of resources/list: the resources and the
// cursor of the next page ("" on the last).
func ResourcePage(c *tools.Core, cursor mcp.Cursor) ([]mcp.Resource, mcp.Cursor) {
	all := listedFiles(c)
	off := min(cursorOffset(cursor), len(all))
	end := min(off+resourcePage, len(all))
	out := make([]mcp.Resource, 0, end-off)
	for _, e := range all[off:end] {
		r := mcp.NewResource(NoteURI(e.Path), e.Path,
			mcp.WithMIMEType(mimeOf(e.Path)),
			mcp.WithResourceDescription(resourceDescription(e)))
		sz := e.Size
		r.Size = &sz
		out = append(out, r)
	}
	var next mcp.Cursor
	if end < len(all) {
		next = listCursor(end)
	}
	return out, next
}

func resourceDescription(e vault.Entry) string {
	space := note.SpaceOf(e.Path)
	if space == "" {
		space = "the vault root"
	}
	what := "note"
	if !e.Note {
		what = "attachment"
	}
	return fmt.Sprintf("%s in %s, %s, modified %s", what, space, vault.FormatSize(e.Size), e.ModTime.UTC().Format("2006-01-02 15:04 UTC"))
}

// ReadResource returns the contents of a vault:// URI: a note's markdown
// (its path, title, version and space in _meta) or an attachment's bytes.
// An unknown note is an error that names the closest notes and the call
// that finds one (AGENT-CONTRACT rule 9).
func ReadResource(c *tools.Core, uri string) ([]mcp.ResourceContents, error) {
	p, isNote, ok := pathOfURI(uri)
	if !ok {
		return nil, fmt.Errorf("%q is not a vaultd resource: notes are %s<path> (e.g. %s), attachments %s<path>; resources/list lists them",
			uri, noteURIPrefix, NoteURI(exampleNote(c)), fileURIPrefix)
	}
	if isNote {
		n, err := c.Vault().Read(p)
		if err != nil {
			return nil, resourceError(c, uri, p, err)
		}
		meta := map[string]any{"path": n.Path, "title": n.Title, "version": note.ShortVersion(n.Version), "space": n.Space}
		if f, excluded := c.Vault().Obsidian().Excluded(n.Path); excluded {
			meta["excluded_by_obsidian"] = f
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/markdown", Text: string(n.Doc.Src), Meta: meta}}, nil
	}
	if !isAttachment(p) {
		return nil, fmt.Errorf("%s is not an attachment vaultd serves (images, PDFs, audio, video: %s)", p, strings.Join(vault.AllowedAttachmentExts(), ", "))
	}
	b, err := c.Vault().ReadFile(p)
	if err != nil {
		return nil, resourceError(c, uri, p, err)
	}
	if len(b) > maxBlob {
		return nil, fmt.Errorf("%s is %s, more than the %s a resource read returns", p, vault.FormatSize(int64(len(b))), vault.FormatSize(maxBlob))
	}
	return []mcp.ResourceContents{mcp.BlobResourceContents{URI: uri, MIMEType: mimeOf(p), Blob: base64.StdEncoding.EncodeToString(b),
		Meta: map[string]any{"path": p, "size": len(b)}}}, nil
}

// resourceError is a read's failure as the resource-not-found error mcp-go
// sends (-32002), its message naming what exists instead.
func resourceError(c *tools.Core, uri, p string, err error) error {
	msg := fmt.Sprintf("no resource %s: %s", uri, err.Error())
	if ve, ok := note.AsError(err); ok && len(ve.Alternatives) > 0 {
		var alts []string
		for _, a := range tools.Closest(ve.Alternatives) {
			if vault.IsNote(a) {
				alts = append(alts, NoteURI(a))
			}
		}
		if len(alts) > 0 {
			msg += "; closest: " + strings.Join(alts, ", ")
		}
	}
	if errors.Is(err, note.ErrNotFound) || errors.Is(err, note.ErrInvalidPath) {
		return fmt.Errorf("%w: %s", server.ErrResourceNotFound, msg)
	}
	return errors.New(msg)
}

// exampleNote is a note of this vault to show in messages.
func exampleNote(c *tools.Core) string {
	// The walk stops at the first note: the server is made before it
	// answers initialize, and a walk of the whole vault took 200 ms of
	// that on the 6,636 laws.
	first := "Notiz.md"
	_ = c.Vault().Walk(func(e vault.Entry) error {
		if !e.Note {
			return nil
		}
		first = e.Path
		return fs.SkipAll
	})
	return first
}

// CompleteNotePath completes a note path for a prompt or resource
// argument: the folders (ending in "/") and notes that start with prefix,
// case-insensitive, at most 100, folders first; the total counts all.
func CompleteNotePath(c *tools.Core, prefix string) *mcp.Completion {
	ob := c.Vault().Obsidian()
	lower := strings.ToLower(strings.TrimPrefix(prefix, "/"))
	seen := map[string]bool{}
	var dirs, notes []string
	for _, p := range c.Vault().NotePaths() {
		if !strings.HasPrefix(strings.ToLower(p), lower) {
			continue
		}
		if _, excluded := ob.Excluded(p); excluded {
			// Left out as Obsidian leaves them out, unless the prefix
			// already names an excluded place.
			if _, named := ob.Excluded(prefix); !named {
				continue
			}
		}
		rest := p[len(lower):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			d := p[:len(lower)+i+1]
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
			continue
		}
		notes = append(notes, p)
	}
	sort.Strings(dirs)
	sort.Strings(notes)
	return completion(append(dirs, notes...))
}

// CompleteHeading completes a heading of the note at notePath: its
// headings' texts that start with prefix (case-insensitive), in order.
// An unknown note completes to nothing.
func CompleteHeading(c *tools.Core, notePath, prefix string) *mcp.Completion {
	n, _, err := c.Vault().Find(notePath)
	if err != nil || n.Doc == nil {
		return completion(nil)
	}
	lower := strings.ToLower(prefix)
	seen := map[string]bool{}
	var out []string
	for _, h := range n.Doc.Headings {
		if !seen[h.Text] && strings.HasPrefix(strings.ToLower(h.Text), lower) {
			seen[h.Text] = true
			out = append(out, h.Text)
		}
	}
	return completion(out)
}

func completion(values []string) *mcp.Completion {
	if values == nil {
		values = []string{}
	}
	out := &mcp.Completion{Values: values, Total: len(values)}
	if len(values) > 100 {
		out.Values, out.HasMore = values[:100], true
	}
	return out
}

// completions answers completion/complete for vaultd's prompts and
// resource templates; anything else completes to an empty list.
type completions struct {
	c      *tools.Core
	vs     *tools.Vaults
	connOf func(context.Context) *tools.Connection
}

func (p completions) CompletePromptArgument(rctx context.Context, prompt string, a mcp.CompleteArgument, ctx mcp.CompleteContext) (*mcp.Completion, error) {
	pr, ok := promptByName(prompt)
	if !ok {
		return completion(nil), nil
	}
	if p.vs != nil && p.vs.Multi() {
		return p.completeInVault(rctx, pr, a, ctx), nil
	}
	switch argKind(pr, a.Name) {
	case "path":
		return CompleteNotePath(p.c, a.Value), nil
	case "heading":
		return CompleteHeading(p.c, ctx.Arguments["path"], a.Value), nil
	case "space":
		var out []string
		for _, s := range p.c.Vault().Spaces() {
			if strings.HasPrefix(strings.ToLower(s), strings.ToLower(a.Value)) {
				out = append(out, s)
			}
		}
		return completion(out), nil
	}
	return completion(nil), nil
}

// completeInVault completes a prompt's argument where the server serves
// several vaults: the vault's name among those the connection may read;
// a path as NAME:path; a heading or space in the vault the other
// arguments name.
func (p completions) completeInVault(rctx context.Context, pr prompt, a mcp.CompleteArgument, ctx mcp.CompleteContext) *mcp.Completion {
	visible := visibleTo(p.vs, p.connOf(rctx))
	kind := argKind(pr, a.Name)
	if a.Name == "vault" {
		kind = "vault"
	}
	named := func() (*tools.Core, string) {
		if n, rest, ok := splitVault(p.vs, visible, ctx.Arguments["path"]); ok {
			return p.vs.Core(n), rest
		}
		for _, n := range visible {
			if strings.EqualFold(n, ctx.Arguments["vault"]) {
				return p.vs.Core(n), ctx.Arguments["path"]
			}
		}
		if len(visible) == 1 {
			return p.vs.Core(visible[0]), ctx.Arguments["path"]
		}
		return nil, ""
	}
	switch kind {
	case "vault":
		var out []string
		for _, n := range visible {
			if strings.HasPrefix(strings.ToLower(n), strings.ToLower(a.Value)) {
				out = append(out, n)
			}
		}
		return completion(out)
	case "path":
		return completeInVaults(p.vs, visible, a.Value, true)
	case "heading":
		if c, path := named(); c != nil {
			return CompleteHeading(c, path, a.Value)
		}
	case "space":
		if c, _ := named(); c != nil {
			var out []string
			for _, s := range c.Vault().Spaces() {
				if strings.HasPrefix(strings.ToLower(s), strings.ToLower(a.Value)) {
					out = append(out, s)
				}
			}
			return completion(out)
		}
	}
	return completion(nil)
}

func (p completions) CompleteResourceArgument(ctx context.Context, uri string, a mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if (uri == noteTemplate || uri == fileTemplate) && a.Name == "path" && p.vs != nil && p.vs.Multi() {
		return completeInVaults(p.vs, visibleTo(p.vs, p.connOf(ctx)), a.Value, uri == noteTemplate), nil
	}
	if (uri == noteTemplate || uri == fileTemplate) && a.Name == "path" {
		if uri == noteTemplate {
			return CompleteNotePath(p.c, a.Value), nil
		}
		var out []string
		for _, e := range listedFiles(p.c) {
			if !e.Note && strings.HasPrefix(strings.ToLower(e.Path), strings.ToLower(a.Value)) {
				out = append(out, e.Path)
			}
		}
		return completion(out), nil
	}
	return completion(nil), nil
}

// addResources registers the two resource templates and makes
// resources/list page the vaults the connection may read
// (hooks.AfterListResources fills the page: mcp-go lists only resources
// registered one by one).
func addResources(vs *tools.Vaults, s *server.MCPServer, hooks *server.Hooks, connOf func(context.Context) *tools.Connection) {
	c := vs.First()
	read := func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		if !vs.Multi() {
			return ReadResource(c, req.Params.URI)
		}
		return readInVaults(vs, visibleTo(vs, connOf(ctx)), req.Params.URI)
	}
	example := NoteURI(exampleNote(c))
	if vs.Multi() {
		example = NoteURI(vs.Names()[0] + ":" + exampleNote(c))
	}
	s.AddResourceTemplate(mcp.NewResourceTemplate(noteTemplate, "note",
		mcp.WithTemplateTitle("A note of the vault"),
		mcp.WithTemplateDescription("A note's markdown by its vault path, e.g. "+example+" (each path segment percent-encoded); _meta carries its path, title, version and space. resources/list lists the notes."),
		mcp.WithTemplateMIMEType("text/markdown")), read)
	s.AddResourceTemplate(mcp.NewResourceTemplate(fileTemplate, "attachment",
		mcp.WithTemplateTitle("An attachment of the vault"),
		mcp.WithTemplateDescription("An image, PDF, audio or video file of the vault by its path, as a blob with its MIME type (at most 10 MB).")), read)
	hooks.AddAfterListResources(func(ctx context.Context, _ any, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		if res == nil || req == nil {
			return
		}
		if !vs.Multi() {
			res.Resources, res.NextCursor = ResourcePage(c, req.Params.Cursor)
			return
		}
		res.Resources, res.NextCursor = resourcePageIn(vs, visibleTo(vs, connOf(ctx)), req.Params.Cursor)
	})
}
