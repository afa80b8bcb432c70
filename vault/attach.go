package vault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/vaultd/vaultd/note"
)

// Attachments are the files notes embed: images, PDFs, audio, video. An
// upload goes where Obsidian would put a pasted file (see
// AttachmentFolder), never overwrites a file (a free name is chosen the way
// Obsidian does: "name 1.png"), and is checked twice: by its extension
// against an allow-list, and by its content, so that a renamed executable
// or HTML page does not slip in as "photo.png".

// DefaultMaxAttachmentSize bounds an upload: 10 MB, more than a phone photo
// or a scanned contract, far less than what would bloat a git-synced vault.
const DefaultMaxAttachmentSize = 10 << 20

// attachmentType is an allowed file type: its family, MIME type, and how
// its content is recognised.
type attachmentType struct {
	kind  string // image, pdf, audio, video
	mime  string
	check func(b []byte, sniffed string) bool
}

func sniffed(want ...string) func([]byte, string) bool {
	return func(_ []byte, got string) bool {
		for _, w := range want {
			if got == w {
				return true
			}
		}
		return false
	}
}

func prefix(p string) func([]byte, string) bool {
	return func(b []byte, _ string) bool { return bytes.HasPrefix(b, []byte(p)) }
}

// isoMedia recognises ISO base media files (MP4, MOV, M4A, 3GP, AVIF):
// a box whose type is "ftyp" (QuickTime files may start with other boxes).
func isoMedia(brands ...string) func([]byte, string) bool {
	return func(b []byte, _ string) bool {
		if len(b) < 12 {
			return false
		}
		box := string(b[4:8])
		if box != "ftyp" {
			return len(brands) == 0 && (box == "moov" || box == "mdat" || box == "wide" || box == "free" || box == "skip")
		}
		if len(brands) == 0 {
			return true
		}
		for _, br := range brands {
			if string(b[8:12]) == br {
				return true
			}
		}
		return false
	}
}

var attachmentTypes = map[string]attachmentType{
	".png":  {"image", "image/png", sniffed("image/png")},
	".jpg":  {"image", "image/jpeg", sniffed("image/jpeg")},
	".jpeg": {"image", "image/jpeg", sniffed("image/jpeg")},
	".gif":  {"image", "image/gif", sniffed("image/gif")},
	".bmp":  {"image", "image/bmp", sniffed("image/bmp")},
	".webp": {"image", "image/webp", sniffed("image/webp")},
	".avif": {"image", "image/avif", isoMedia("avif", "avis")},
	".svg":  {"image", "image/svg+xml", func(b []byte, _ string) bool { return isSVG(b) }},
	".pdf":  {"pdf", "application/pdf", prefix("%PDF-")},
	".mp3":  {"audio", "audio/mpeg", sniffed("audio/mpeg")},
	".wav":  {"audio", "audio/wav", sniffed("audio/wave")},
	".m4a":  {"audio", "audio/mp4", isoMedia()},
	".ogg":  {"audio", "audio/ogg", sniffed("application/ogg")},
	".flac": {"audio", "audio/flac", prefix("fLaC")},
	".3gp":  {"audio", "audio/3gpp", isoMedia()},
	".webm": {"video", "video/webm", sniffed("video/webm")},
	".mp4":  {"video", "video/mp4", isoMedia()},
	".mov":  {"video", "video/quicktime", isoMedia()},
	".mkv":  {"video", "video/x-matroska", prefix("\x1a\x45\xdf\xa3")},
	".ogv":  {"video", "video/ogg", sniffed("application/ogg")},
}

// AllowedAttachmentExts lists the extensions an upload may have, sorted.
func AllowedAttachmentExts() []string {
	out := make([]string, 0, len(attachmentTypes))
	for e := range attachmentTypes {
		out = append(out, e)
	}
	sort.Strings(out)
	return out
}

// isSVG recognises an SVG document: UTF-8 text whose first element, after
// an XML declaration, comments and a doctype, is <svg.
func isSVG(b []byte) bool {
	b = b[:min(len(b), 4096)]
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a BOM
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	for {
		b = bytes.TrimLeft(b, " \t\r\n")
		switch {
		case bytes.HasPrefix(b, []byte("<?")):
			i := bytes.Index(b, []byte("?>"))
			if i < 0 {
				return false
			}
			b = b[i+2:]
		case bytes.HasPrefix(b, []byte("<!--")):
			i := bytes.Index(b, []byte("-->"))
			if i < 0 {
				return false
			}
			b = b[i+3:]
		case bytes.HasPrefix(b, []byte("<!")):
			i := bytes.IndexByte(b, '>')
			if i < 0 {
				return false
			}
			b = b[i+1:]
		default:
			return len(b) > 4 && strings.EqualFold(string(b[:4]), "<svg") && strings.ContainsRune(" \t\r\n>", rune(b[4]))
		}
	}
}

// AttachmentFolder says where a new attachment goes, the way Obsidian
// decides it, and why:
//
//  1. .obsidian/app.json's attachmentFolderPath, when set: "/" is the
//     vault root, "./" the folder of the note, "./sub" a folder "sub" next
//     to the note, anything else a folder of the vault;
//  2. else the vault's rule (rules: "attachments: FOLDER" in a 9_System
//     note), given as ruleFolder and ruleSource;
//  3. else next to the note — the vault root when no note is given.
//
// note is the vault path of the note the file belongs to, or "".
//
// Errors: ErrInvalid when app.json is not valid JSON or its folder is not a
// folder inside the vault.
func (v *Vault) AttachmentFolder(notePath, ruleFolder, ruleSource string) (folder, from string, err error) {
	noteDir := note.FolderOf(notePath)
	if b, err := v.root.ReadFile(".obsidian/app.json"); err == nil {
		var app struct {
			Folder *string `json:"attachmentFolderPath"`
		}
		if err := json.Unmarshal(b, &app); err != nil {
			return "", "", &note.Error{Kind: note.ErrInvalid, Msg: ".obsidian/app.json is not valid JSON, so the attachment folder cannot be read from it; fix it in Obsidian (Settings → Files and links)"}
		}
		if app.Folder != nil && strings.TrimSpace(*app.Folder) != "" {
			raw := strings.TrimSpace(*app.Folder)
			from = fmt.Sprintf("set by Obsidian's setting attachmentFolderPath %q in .obsidian/app.json", raw)
			switch {
			case raw == "/":
				return "", from, nil
			case raw == "." || raw == "./":
				return noteDir, from, nil
			case strings.HasPrefix(raw, "./"):
				folder = path.Join(noteDir, strings.TrimPrefix(raw, "./"))
			default:
				folder = strings.Trim(raw, "/")
			}
			c, err := note.CleanPath(folder)
			if err != nil {
				return "", "", &note.Error{Kind: note.ErrInvalid, Msg: fmt.Sprintf("%s does not name a folder inside the vault; fix it in Obsidian (Settings → Files and links)", from)}
			}
			return c, from, nil
		}
	}
	if strings.TrimSpace(ruleFolder) != "" {
		c, err := note.CleanPath(ruleFolder)
		if err != nil {
			return "", "", &note.Error{Kind: note.ErrInvalid, Msg: fmt.Sprintf("the rule attachments %q in %s does not name a folder inside the vault", ruleFolder, ruleSource)}
		}
		return c, fmt.Sprintf("set by the rule attachments: %s in %s", c, ruleSource), nil
	}
	if notePath != "" {
		return noteDir, "next to the note " + notePath + ", since no attachment folder is set", nil
	}
	return "", "the vault root, since no attachment folder is set and no note was given", nil
}

// Upload is a file to store as an attachment.
type Upload struct {
	Name string // file name with extension, "Grundriss.png"; no folder
	Data []byte
	// Note, when set, is the note the file belongs to: "./" attachment
	// folders are relative to it, and an embed ![[…]] is appended to it
	// (under Heading, when set) in the same call.
	Note    string
	Heading string
	MaxSize int64 // 0 means DefaultMaxAttachmentSize
	// RuleFolder and RuleSource are the vault's attachments rule, if any
	// (package rules reads it; vault does not read 9_System itself).
	RuleFolder, RuleSource string
}

// UploadResult reports what UploadAttachment did.
type UploadResult struct {
	Path       string // where the file is now
	Size       int64
	Kind       string // image, pdf, audio, video
	MIME       string
	Folder     string // "" is the vault root
	FolderFrom string // why that folder, in words
	Renamed    bool   // a file had the name already; a free name was chosen
	Version    string // hex SHA-256 of the file
	ChangeID   string
	Link       string  // the link target as the vault's newLinkFormat asks (default: the shortest that resolves: "Grundriss.png", else its path)
	Embed      string  // "![[Grundriss.png]]" (or "![](Grundriss.png)" with useMarkdownLinks) when appended to a note
	Note       *Result // the append to the note, when Note was set
}

// UploadAttachment stores u.Data as a new file in the attachment folder
// (AttachmentFolder) through the write protocol: never over an existing
// file — when the name is taken, the first free "name 1.ext", "name 2.ext"
// is used, as Obsidian does —, checked with Policy.CheckWrite, recorded in
// history as "upload_attachment". With u.Note set, the note is checked
// first (it must exist and the rules must allow appending to it), and after
// the upload "![[name.ext]]" (the shortest link that resolves to the file,
// else its full path) is appended to it as a separate recorded write.
//
// Errors (*Error, Op "upload_attachment"): ErrInvalid (empty summary,
// empty file, larger than the limit, an extension not allowed, content that
// does not match the extension, a bad attachment folder setting);
// ErrInvalidPath (a name with a folder or that Windows cannot store);
// ErrNotFound (the note); ErrDenied (the rules, for the file or the note).
// When the file was stored but the embed failed, the result is returned
// with the error, which says where the file is.
func (v *Vault) UploadAttachment(u Upload, o WriteOpts) (*UploadResult, error) {
	const op = "upload_attachment"
	name := strings.TrimSpace(u.Name)
	o, err := v.writeOpts(op, name, o)
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(name, `/\`) {
		return nil, &note.Error{Op: op, Path: name, Kind: note.ErrInvalidPath,
			Msg: fmt.Sprintf("give a file name only, such as %s; the folder comes from the vault's attachment settings", path.Base(strings.ReplaceAll(name, `\`, "/")))}
	}
	c, err := note.CleanPath(name)
	if err != nil {
		return nil, withOp(err, op, "")
	}
	ext := strings.ToLower(path.Ext(c))
	typ, ok := attachmentTypes[ext]
	if !ok {
		shown := ext
		if shown == "" {
			shown = "no extension"
		}
		return nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("files with %s cannot be uploaded; allowed are images, PDFs, audio and video: %s", shown, strings.Join(AllowedAttachmentExts(), " "))}
	}
	limit := u.MaxSize
	if limit <= 0 {
		limit = DefaultMaxAttachmentSize
	}
	switch {
	case len(u.Data) == 0:
		return nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalid, Msg: "the file is empty"}
	case int64(len(u.Data)) > limit:
		return nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("the file is %s (%d bytes); the limit is %s (%d bytes)", FormatSize(int64(len(u.Data))), len(u.Data), FormatSize(limit), limit)}
	}
	sn, _, _ := strings.Cut(http.DetectContentType(u.Data), ";")
	if !typ.check(u.Data, sn) {
		looks := sn
		if isSVG(u.Data) {
			looks = "image/svg+xml"
		}
		return nil, &note.Error{Op: op, Path: c, Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("the content is not %s (%s): it looks like %s; give the file its real extension", typ.mime, ext, looks)}
	}

	var owner *Note
	if strings.TrimSpace(u.Note) != "" {
		nc, err := note.NotePath(u.Note)
		if err != nil {
			return nil, withOp(err, op, "")
		}
		if nc, _, err = v.existing(op, nc); err != nil {
			return nil, err
		}
		if owner, err = v.read(nc); err != nil {
			return nil, withOp(err, op, nc)
		}
		if pol := v.Policy(); pol != nil {
			if err := pol.CheckWrite(WriteCheck{Op: "append", Path: owner.Path, Content: owner.Doc.Src, Actor: o.Actor}); err != nil {
				return nil, withOp(err, op, owner.Path)
			}
		}
		if u.Heading != "" {
			if _, err := owner.Doc.Section(u.Heading); err != nil {
				return nil, withOp(err, op, owner.Path)
			}
		}
	}
	notePath := ""
	if owner != nil {
		notePath = owner.Path
	}
	folder, from, err := v.AttachmentFolder(notePath, u.RuleFolder, u.RuleSource)
	if err != nil {
		return nil, withOp(err, op, c)
	}
	target := c
	if folder != "" {
		target = folder + "/" + c
	}
	target, err = v.checkFolderCase(op, target)
	if err != nil {
		return nil, err
	}

	res := &UploadResult{Kind: typ.kind, MIME: typ.mime, Folder: folder, FolderFrom: from, Size: int64(len(u.Data))}
	var wr *Result
	for attempt := 0; ; attempt++ {
		cand := v.freeAttachmentName(target)
		unlock, err := v.lock(noteKey(cand))
		if err != nil {
			return nil, ioErr(op, cand, "could not lock the file", err)
		}
		wr, err = v.create(op, cand, u.Data, o, v.Policy())
		unlock()
		if errors.Is(err, ErrExists) && attempt < 20 {
			continue // taken between the check and the publish: try the next name
		}
		if err != nil {
			if wr == nil {
				return nil, err
			}
		}
		v.notifyIfChanged(wr, cand)
		res.Path, res.Renamed = cand, cand != target
		res.Version, res.ChangeID = wr.After, wr.ChangeID
		if err != nil {
			return res, err
		}
		break
	}
	// The link as Obsidian would write it (Settings → Files and links):
	// "New link format" shortest (the name, when no other file has it),
	// relative to the note, or absolute; "Use [[Wikilinks]]" off writes
	// a markdown embed.
	ob := v.Obsidian()
	res.Link = res.Path
	switch ob.NewLinkFormat {
	case "absolute":
	case "relative":
		if owner != nil {
			res.Link = relPath(note.FolderOf(notePath), res.Path)
		}
	default:
		if r, err := v.Resolver(); err == nil {
			if rr := r.ResolveName(notePath, path.Base(res.Path)); rr.Status == note.Resolved && rr.Target == res.Path {
				res.Link = path.Base(res.Path)
			}
		}
	}
	if owner == nil {
		return res, nil
	}
	res.Embed = ob.Embed(res.Link)
	nr, err := v.Append(owner.Path, u.Heading, []byte(res.Embed), WriteOpts{Summary: o.Summary, Actor: o.Actor})
	res.Note = nr
	if err != nil {
		e, ok := note.AsError(err)
		if !ok {
			e = &note.Error{Err: err, Msg: errText(err)}
		}
		cp := *e
		cp.Op, cp.Path = op, owner.Path
		cp.Msg = fmt.Sprintf("the file was stored as %s, but the embed could not be appended to the note: %s", res.Path, e.Msg)
		return res, &cp
	}
	return res, nil
}

// freeAttachmentName returns p when no file takes it (also under another
// case), else the first free "name 1.ext", "name 2.ext", … in its folder,
// the names Obsidian gives a pasted file whose name is taken.
func (v *Vault) freeAttachmentName(p string) string {
	free := func(c string) bool {
		if _, err := v.root.Lstat(c); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
		_, taken := v.findCaseInsensitive(c)
		return !taken
	}
	if free(p) {
		return p
	}
	dir, base := path.Split(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for n := 1; ; n++ {
		if c := fmt.Sprintf("%s%s %d%s", dir, stem, n, ext); free(c) {
			return c
		}
	}
}

// FormatSize renders a file size for people: "512 bytes", "2.1 KB", "10 MB".
func FormatSize(n int64) string {
	switch {
	case n < 1024:
		if n == 1 {
			return "1 byte"
		}
		return fmt.Sprintf("%d bytes", n)
	case n < 1024*1024:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1024)) + " KB"
	default:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1024*1024))) + " MB"
	}
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// AttachmentInfo is one attachment and the notes that use it.
type AttachmentInfo struct {
	Path     string
	Size     int64
	ModTime  time.Time
	Embeds   []string // notes that embed it (![[…]], ![](…)), sorted
	LinkedBy []string // notes that link to it without embedding, sorted
}

// Attachments lists the vault's attachments below folder ("" for all),
// sorted by path, with the notes that embed or link to each — links are
// resolved as Obsidian resolves them (Resolver).
//
// Errors: ErrInvalidPath; ErrNotFound when the folder does not exist.
func (v *Vault) Attachments(folder string) ([]AttachmentInfo, error) {
	var list []AttachmentInfo
	if err := v.WalkDir(folder, func(e Entry) error {
		if !e.Note {
			list = append(list, AttachmentInfo{Path: e.Path, Size: e.Size, ModTime: e.ModTime})
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, nil
	}
	at := make(map[string]int, len(list))
	for i, a := range list {
		at[a.Path] = i
	}
	s, err := v.snapshot()
	if err != nil {
		return nil, err
	}
	for _, n := range s.notes {
		seenE, seenL := map[int]bool{}, map[int]bool{}
		for _, l := range n.Doc.Links {
			r := s.resolver.Resolve(n.Path, l)
			i, ok := at[r.Target]
			if r.Status != note.Resolved || !ok {
				continue
			}
			if l.Embed && !seenE[i] {
				seenE[i] = true
				list[i].Embeds = append(list[i].Embeds, n.Path)
			} else if !l.Embed && !seenL[i] {
				seenL[i] = true
				list[i].LinkedBy = append(list[i].LinkedBy, n.Path)
			}
		}
	}
	for i := range list {
		sort.Strings(list[i].Embeds)
		sort.Strings(list[i].LinkedBy)
	}
	return list, nil
}

// DefaultMaxAttachmentRead bounds what ReadAttachment reads into memory:
// 25 MiB, above DefaultMaxAttachmentSize so that every upload can be read
// back, and above what phones and scanners write for one photo or a
// typical PDF.
const DefaultMaxAttachmentRead = 25 << 20

// ReadAttachment reads the attachment at p (exact vault path) with what
// Attachments lists for it: size, time, the notes that embed or link to it.
// It reaches the file as every read does (os.Root, the link rules of
// files.go), and refuses by name any path through a dot-folder
// (.obsidian, .git, .trash, the state dir), which Walk never lists.
//
// Errors: ErrInvalidPath for a dot-folder or dot-file, a file that is not
// an attachment (notes have Read), a link leading into a hidden folder or
// out of the vault; ErrNotFound; ErrInvalid when the file is larger than
// limit (0 means DefaultMaxAttachmentRead), with the size in the message.
func (v *Vault) ReadAttachment(p string, limit int64) (AttachmentInfo, []byte, error) {
	c, err := v.cleanPath(p)
	if err != nil {
		return AttachmentInfo{}, nil, err
	}
	for _, name := range strings.Split(c, "/") {
		if skipName(name) {
			return AttachmentInfo{}, nil, &note.Error{Path: c, Kind: note.ErrInvalidPath, Msg: "hidden folders and files (" + name + ") are not part of the vault agents see", Err: fs.ErrPermission}
		}
	}
	if !IsAttachment(c) {
		return AttachmentInfo{}, nil, &note.Error{Path: c, Kind: note.ErrInvalidPath, Msg: "not an attachment (" + attachmentExtList() + ")"}
	}
	if limit <= 0 {
		limit = DefaultMaxAttachmentRead
	}
	fi, err := v.root.Stat(c)
	if errors.Is(err, fs.ErrNotExist) {
		return AttachmentInfo{}, nil, &note.Error{Path: c, Kind: note.ErrNotFound, Msg: "no such attachment", Err: err}
	}
	if err != nil {
		return AttachmentInfo{}, nil, err
	}
	if !fi.Mode().IsRegular() {
		return AttachmentInfo{}, nil, &note.Error{Path: c, Kind: note.ErrInvalidPath, Msg: "not a regular file"}
	}
	if fi.Size() > limit {
		return AttachmentInfo{}, nil, &note.Error{Path: c, Kind: note.ErrInvalid, Msg: "is " + FormatSize(fi.Size()) + ", more than the " + FormatSize(limit) + " vaultd reads"}
	}
	b, err := v.root.ReadFile(c)
	if err != nil {
		return AttachmentInfo{}, nil, err
	}
	info := AttachmentInfo{Path: c, Size: int64(len(b)), ModTime: fi.ModTime()}
	dir := path.Dir(c)
	if dir == "." {
		dir = ""
	}
	if list, err := v.Attachments(dir); err == nil {
		for _, a := range list {
			if a.Path == c {
				info.Embeds, info.LinkedBy = a.Embeds, a.LinkedBy
			}
		}
	}
	return info, b, nil
}

// attachmentExtList names the extensions IsAttachment accepts, sorted.
func attachmentExtList() string {
	out := make([]string, 0, len(attachmentExts))
	for e := range attachmentExts {
		out = append(out, e)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// AttachmentKind names what an attachment is by its extension: its family
// (image, pdf, audio, video; canvas and base for Obsidian's own JSON and
// YAML files) and MIME type. ok is false for a file IsAttachment does not
// accept.
func AttachmentKind(p string) (kind, mime string, ok bool) {
	ext := strings.ToLower(path.Ext(p))
	if t, ok := attachmentTypes[ext]; ok {
		return t.kind, t.mime, true
	}
	switch ext {
	case ".canvas":
		return "canvas", "application/json", true
	case ".base":
		return "base", "application/yaml", true
	}
	return "", "", false
}

// embedNames is the name table EmbeddedFiles resolves a bare file name
// in: the NameSource's as it is, not waiting for another program's
// changes to be taken in (a search shows its hits' embeds). While the
// source has no table yet (a first build; a vault never indexed), a table
// of the attachments alone from a walk that reads no file: the vault's
// snapshot parses every note, seconds on the laws, which made each search
// during their first build take 8 s. Without a source, the snapshot.
func (v *Vault) embedNames() *NameTable {
	if src := v.nameSource(); src != nil {
		if t, _ := src.Names(); t != nil {
			return t
		}
		var files []NameEntry
		if err := v.Walk(func(e Entry) error {
			if !e.Note {
				files = append(files, NameEntry{Path: e.Path, Attachment: true, Size: e.Size, ModTime: e.ModTime})
			}
			return nil
		}); err != nil {
			return nil
		}
		return NewNameTable(files)
	}
	s, err := v.snapshot()
	if err != nil {
		return nil
	}
	return s.names
}

// EmbeddedFiles lists the attachments note n embeds (![[…]], ![](…)) that
// lead to a file, each once, in the order the note embeds them, with its
// size: the embed resolved as Obsidian resolves it — a "./", "../" or "/"
// path exactly, else the vault path, else the same path from the note's
// folder, else the one attachment of that name in the vault (a name
// several files share is left out rather than guessed). Embeds of notes,
// of missing files, through hidden folders or links leading into one or
// out of the vault are left out. It reads no file, only their metadata
// (one stat each): read_note and search hits call it for every note shown.
func (v *Vault) EmbeddedFiles(n *Note) []Entry {
	var targets []string
	for _, l := range n.Doc.Links {
		if t := strings.TrimSpace(l.Target); l.Embed && Embeddable(t) {
			targets = append(targets, t)
		}
	}
	return v.EmbeddedTargets(n.Path, targets)
}

// Embeddable reports whether an embed's target as written (trimmed) may
// lead to an attachment: EmbeddedFiles looks only such targets up.
func Embeddable(target string) bool {
	return target != "" && !IsNote(target) && IsAttachment(target)
}

// EmbeddedTargets is EmbeddedFiles for the note at p whose embeds have the
// targets given (as written, trimmed, each Embeddable, in the note's
// order): the search index keeps them, so that a search hit needs not
// read its note.
func (v *Vault) EmbeddedTargets(p string, targets []string) []Entry {
	var out []Entry
	seen := map[string]bool{}
	var names *NameTable
	dir := note.FolderOf(p)
	for _, target := range targets {
		var cands []string
		switch {
		case strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../"):
			if p, ok := note.JoinInside(dir, target); ok {
				cands = append(cands, p)
			}
		case strings.HasPrefix(target, "/"):
			cands = append(cands, strings.TrimLeft(target, "/"))
		default:
			cands = append(cands, target)
			if dir != "" {
				cands = append(cands, dir+"/"+target)
			}
		}
		found := false
		for _, p := range cands {
			if e, ok := v.attachmentEntry(p); ok {
				found = true
				if !seen[e.Path] {
					seen[e.Path] = true
					out = append(out, e)
				}
				break
			}
		}
		if found || strings.HasPrefix(target, ".") || strings.HasPrefix(target, "/") {
			continue
		}
		if names == nil {
			if names = v.embedNames(); names == nil {
				continue
			}
		}
		if p := names.attachment(target); p != "" {
			if e, ok := v.attachmentEntry(p); ok && !seen[e.Path] {
				seen[e.Path] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// attachmentEntry stats the attachment at p as ReadAttachment reaches it;
// false for a dot-folder on the way, a link into one or out of the vault,
// a missing or irregular file.
func (v *Vault) attachmentEntry(p string) (Entry, bool) {
	c, err := note.CleanPath(p)
	if err != nil || !IsAttachment(c) {
		return Entry{}, false
	}
	for _, name := range strings.Split(c, "/") {
		if skipName(name) {
			return Entry{}, false
		}
	}
	fi, err := v.root.Stat(c)
	if err != nil || !fi.Mode().IsRegular() {
		return Entry{}, false
	}
	return Entry{Path: c, Size: fi.Size(), ModTime: fi.ModTime()}, true
}
