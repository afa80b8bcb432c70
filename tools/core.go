// Package tools is the room every door of vaultd opens onto: the agent
// tools, declared once each (name, rights, annotations, description,
// arguments with their help, the command line's spelling), and the core
// that runs them over one vault. The MCP adapter (mcpserver), the vaultd
// CLI and any later door derive their tool lists, schemas, commands and
// flags from these declarations and call the same core functions.
//
// The core decodes arguments, checks rights and rate limits, calls vault,
// note, rules and index, and renders every answer as text that follows
// ../shared/AGENT-CONTRACT.md: the text carries every fact the next call
// needs (path, title, version, space, section, totals, the next call,
// spelled for the caller's door), and Result.Data carries the same facts
// for structured clients and `vaultd --json`.
//
// It must not import a door or its libraries: not mcpserver, trial or
// cmd/, not mcp-go, not cobra (vault/deps_test.go checks this).
package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/rules"
	"github.com/vaultd/vaultd/vault"
)

// Perms are the rights of one connection (or CLI invocation).
type Perms struct {
	Read, Write, Delete bool
}

// AllPerms is what the CLI, run by the vault owner, may do.
var AllPerms = Perms{Read: true, Write: true, Delete: true}

// Door says how a next call is spelled: as an MCP tool call or as a
// vaultd command line, and, where one server serves several vaults, in
// which vault (every suggested call then names it, so that it works when
// copied as it is).
type Door struct {
	cli   bool
	vault string
}

var (
	DoorMCP = Door{}
	DoorCLI = Door{cli: true}
)

// CLI reports whether calls are spelled as vaultd command lines.
func (d Door) CLI() bool { return d.cli }

// In returns the door whose calls name vault ("" for none).
func (d Door) In(vault string) Door { d.vault = vault; return d }

// Vault is the vault the door's calls name; "" where one vault is served.
func (d Door) Vault() string { return d.vault }

// Caller is who asks: the actor recorded in history, its rights, and the
// door it came through.
type Caller struct {
	Actor string // the connection: "cli", "mcp" (stdio), "key:anna", "oauth:laptop"
	// Client is the MCP client's own name (its clientInfo.name, e.g.
	// "claude-code"), when it gave one: history records it after the
	// connection ("key:anna:claude-code", "mcp:claude-code"), so that the
	// owner sees which key and which program made a change.
	Client string
	Perms  Perms
	Door   Door
	// Vaults are the caller's rights per vault where one server serves
	// several and they differ (a key for the team vault only); nil: Perms
	// in every vault. A vault missing here is one the caller may not see.
	Vaults map[string]Perms

	// charge is what the call reserved from its connection's rate limits
	// (nil for the CLI, which has none); a write that turns out to remove
	// most of a note reserves a delete on it.
	charge *charge
}

// Result is one answer. Text is what an agent (or a person) reads; Data is
// the same facts as structured content. Err is set for failures: Text then
// is the agent-facing error text and Err the domain error (for exit codes).
type Result struct {
	Text string
	Data any
	Err  error
	// Changed says the call changed the vault (a note, a file, the
	// bookmarks). Only such calls use up a connection's rate limits.
	Changed bool
	// Images are pictures the result shows (an attachment an agent asked
	// to see). A door that can carry them sends each after the text (MCP:
	// image content); the others leave them out. Text never relies on
	// them: several clients drop, strip or delay images in tool results.
	Images []Image
	// Resources are vault files the result points to (read_attachment's
	// file). A door that can carry them sends each as a link after the
	// text (MCP: resource_link content); the text names them too.
	Resources []Resource
}

// Resource is a link to a vault file as an MCP resource (ResourceURI).
type Resource struct {
	URI, Name, MIMEType, Description string
}

// Image is one picture in a result: encoded bytes (PNG or JPEG, stripped
// of metadata) and their MIME type.
type Image struct {
	MIMEType string
	Data     []byte
}

// IsError reports whether the result is a failure.
func (r *Result) IsError() bool { return r.Err != nil }

// CoreOptions configure a Core.
type CoreOptions struct {
	// Now is the clock (tests pin it). Default time.Now.
	Now func() time.Time
	// Index serves search and backlinks; nil leaves them out. The core
	// keeps it current with its own writes (read-your-writes).
	Index Index
	// IndexUnavailable says why there is no index (e.g. another process
	// owns it); search and backlinks answer with it.
	IndexUnavailable error
	// OpenIndex, given instead of Index, opens the index in the
	// background: NewCore returns at once (a server answers initialize
	// while a big vault's index opens), and what needs the index — search,
	// backlinks, name lookups, indexing the core's own writes — waits
	// until it is open. An error leaves search and backlinks out with it as
	// the reason, as IndexUnavailable does.
	OpenIndex func() (Index, error)
	// Names answers name lookups where there is no index, and until the
	// index given as OpenIndex is open (index.OpenNames: the manifest the
	// index saved, or the process that keeps it); nil: the vault walks.
	Names vault.NameSource
	// Logger receives problems worth a person's attention. Default: none.
	Logger *slog.Logger
}

// Core serves the tools over one vault.
type Core struct {
	v *vault.Vault
	// idx and noIndex are set before idxOpen closes, and read only
	// after (index, WaitIndex).
	idx     Index
	noIndex error
	idxOpen chan struct{}
	log     *slog.Logger
	now     func() time.Time

	rulesMu  sync.Mutex
	rules    *rules.Rules
	rulesSig string
	rulesErr error

	refused refusals // the latest refused calls (refusals.go)

	bases baseCatalog // what bases evaluate over (basecat.go)

	embedHints sync.Map // note path → embedHint: whether its text holds "![" (attachment.go)
}

// NewCore wraps an opened vault. It installs the vault's 9_System rules as
// the policy every write is checked against, reloading them when a rules
// note changes.
func NewCore(v *vault.Vault, o CoreOptions) (*Core, error) {
	c := &Core{v: v, idx: o.Index, noIndex: o.IndexUnavailable, idxOpen: make(chan struct{}), log: o.Logger, now: o.Now}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
	}
	if _, err := c.Rules(); err != nil {
		return nil, err
	}
	v.SetPolicy(policy{c})
	if o.Names != nil {
		v.SetNames(o.Names)
	}
	opened := func() {
		if ns, ok := c.idx.(vault.NameSource); ok {
			// Names resolve from the index's table instead of a walk of the
			// vault per call (index/names.go says why the table lives there).
			v.SetNames(ns)
		}
		close(c.idxOpen)
	}
	if o.OpenIndex == nil {
		opened()
	} else {
		// Until the index is open, o.Names answers (the index's saved
		// table), so the first calls after a start wait for nothing.
		go func() {
			ix, err := o.OpenIndex()
			if err != nil || ix == nil {
				ix, c.noIndex = nil, err
			}
			c.idx = ix
			opened()
		}()
	}
	if o.Index != nil || o.OpenIndex != nil {
		v.OnChange(func(paths ...string) {
			ix := c.index()
			if ix == nil {
				return
			}
			if err := ix.Update(paths...); err != nil {
				c.log.Warn("index update after a write failed; the watcher will catch up", "paths", paths, "error", err)
			}
		})
	}
	return c, nil
}

// index returns the search index, waiting while it opens; nil when the
// core has none.
func (c *Core) index() Index {
	<-c.idxOpen
	return c.idx
}

// WaitIndex waits until the index given as CoreOptions.OpenIndex is open
// (or failed to open) and returns it; nil when the core has none.
func (c *Core) WaitIndex() Index { return c.index() }

// ChangeJournal is an index that numbers the paths it is handed
// (index.Index, index.Shared): vaultd's writes in every process on the
// vault and what its watcher or rescans found outside vaultd.
type ChangeJournal interface {
	Changes(m index.ChangeMark) (index.Changes, error)
}

var (
	_ ChangeJournal = (*index.Index)(nil)
	_ ChangeJournal = (*index.Shared)(nil)
)

// FileWalker is an index that keeps the files other than notes its last
// walk of the vault found (index.Index; index.Shared in the process that
// keeps the index).
type FileWalker interface {
	WalkedFiles() (files []string, mark index.ChangeMark, ok bool)
}

var (
	_ FileWalker = (*index.Index)(nil)
	_ FileWalker = (*index.Shared)(nil)
)

// walked is what FileWalker.WalkedFiles returned.
type walked struct {
	files []string
	mark  index.ChangeMark
}

// walkedFiles returns the files other than notes the index's last walk
// found and the journal mark from before it, without waiting for the
// index; false when the index is not open, has not walked the vault yet,
// or is kept by another process.
func (c *Core) walkedFiles() (walked, bool) {
	select {
	case <-c.idxOpen:
	default:
		return walked{}, false
	}
	w, ok := c.idx.(FileWalker)
	if !ok {
		return walked{}, false
	}
	files, mark, ok := w.WalkedFiles()
	return walked{files, mark}, ok
}

// Errors of Changes.
var (
	// ErrIndexOpening: the index is still opening; ask again later.
	ErrIndexOpening = errors.New("the search index is still opening")
	// ErrNoJournal: the core has no index, or one without a change
	// journal; only this process's own writes are known
	// (Vault().OnChange), anything else must be looked for.
	ErrNoJournal = errors.New("no change journal: the vault is served without a search index")
)

// Changes reports the vault paths changed since mark m, from the index's
// change journal (ChangeJournal): one call, whatever the caller watches,
// without waiting for anything. Errors: ErrIndexOpening, ErrNoJournal,
// and an index owner that cannot be reached.
func (c *Core) Changes(m index.ChangeMark) (index.Changes, error) {
	select {
	case <-c.idxOpen:
	default:
		return index.Changes{}, ErrIndexOpening
	}
	j, ok := c.idx.(ChangeJournal)
	if !ok {
		return index.Changes{}, ErrNoJournal
	}
	return j.Changes(m)
}

// Vault returns the vault the core serves.
func (c *Core) Vault() *vault.Vault { return c.v }

// Rules returns the vault's rules, reloading them when a note under
// 9_System/ was added, removed or changed since the last load.
func (c *Core) Rules() (*rules.Rules, error) {
	sig := c.rulesSignature()
	c.rulesMu.Lock()
	defer c.rulesMu.Unlock()
	if c.rules != nil && sig == c.rulesSig {
		return c.rules, c.rulesErr
	}
	r, err := rules.Load(c.v.FS())
	if err != nil {
		return nil, err
	}
	c.rules, c.rulesSig, c.rulesErr = r, sig, nil
	return r, nil
}

// rulesSignature is a cheap fingerprint of 9_System/: names, sizes, mtimes.
func (c *Core) rulesSignature() string {
	var b strings.Builder
	_ = fs.WalkDir(c.v.FS(), rules.Folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			fmt.Fprintf(&b, "%s|%d|%d\n", p, fi.Size(), fi.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}

// policy adapts the reloading rules to vault.Policy.
type policy struct{ c *Core }

func (p policy) CheckWrite(w vault.WriteCheck) error {
	r, err := p.c.Rules()
	if err != nil {
		return err
	}
	return r.CheckWrite(w)
}

func (p policy) PlaceNew(path string) string {
	r, err := p.c.Rules()
	if err != nil {
		return path
	}
	return r.PlaceNew(path)
}

// need checks a right before a tool runs. The denial reads like help: which
// permission, and how the vault owner grants it.
func (c *Core) need(caller Caller, tool string, perm string) *Result {
	ok := true
	switch perm {
	case "write":
		ok = caller.Perms.Write
	case "delete":
		ok = caller.Perms.Delete && caller.Perms.Write
	default:
		ok = caller.Perms.Read
	}
	if ok {
		return nil
	}
	return permissionDenied(caller, tool, perm)
}

// SignedInActor starts the actor of a connection that signed in with
// OAuth ("oauth:NAME"); its rights are changed on the owner's page, not
// with a key.
const SignedInActor = "oauth:"

func permissionDenied(caller Caller, tool, perm string) *Result {
	grant := "vaultd serve --allow read,write"
	if perm == "delete" {
		grant = "vaultd serve --allow read,write,delete"
	}
	var b strings.Builder
	b.WriteString("error: permission denied: " + tool + " needs the " + perm + " permission, which this connection does not have.\nerror code: permission_denied\n")
	if name, ok := strings.CutPrefix(caller.Actor, SignedInActor); ok {
		// A signed-in (OAuth) connection's rights are the ones the owner
		// approved; the owner changes them on the page.
		b.WriteString("Only the vault owner can grant it: on the owner's page, Connections, tick " + perm + " for the signed-in connection \"" + name + "\".\n")
	} else {
		b.WriteString("Only the vault owner can grant it: start the server with `" + grant + "`, or use an access key created with that right (`vaultd keys create NAME --allow " + strings.TrimPrefix(grant, "vaultd serve --allow ") + "`).\n")
	}
	b.WriteString("Do not retry this call; tell the user what you wanted to change, or continue with read-only tools.")
	return &Result{
		Text: b.String(),
		Data: map[string]any{"error": "permission_denied", "tool": tool, "permission": perm},
		Err:  &note.Error{Op: tool, Kind: vault.ErrDenied, Msg: tool + " needs the " + perm + " permission"},
	}
}

// actor returns the actor recorded in history for a caller: the
// connection, then the client's own name.
func actor(caller Caller) string {
	a := caller.Actor
	if a == "" {
		a = "agent"
	}
	if caller.Client != "" {
		a += ":" + caller.Client
	}
	return a
}

// HistoryActor is the actor a call by caller is recorded as in history.
func HistoryActor(caller Caller) string { return actor(caller) }

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// errKind returns the sentinel kind of a domain error, or nil.
func errKind(err error) error {
	for _, k := range []error{note.ErrNotFound, vault.ErrExists, note.ErrConflict, note.ErrAmbiguous,
		note.ErrInvalidPath, vault.ErrDenied, note.ErrInvalid, vault.ErrBusy, vault.ErrStateDir, vault.ErrMergeConflict, vault.ErrNotText} {
		if errors.Is(err, k) {
			return k
		}
	}
	return nil
}

// notePath resolves the note a tool that changes or shows an existing note
// was given, the way read_note does (AGENT-CONTRACT: one word, one
// meaning): a path is taken at its word; a file name, title, alias or
// [[wikilink]] names the one note that has it. It returns the path, the
// heading of a [[Note#Heading]] link, and nil; or, when the name is
// ambiguous or names nothing, the error result (nothing is written).
//
// A name that is also a folder's ("Projekte", the folder, beside
// notes/Projekte.md) names the note, as it does for read_note; a folder's
// name that no note has is refused as read_note refuses it, with the call
// that lists the folder.
func (c *Core) notePath(caller Caller, f failure, ref string) (string, string, *Result) {
	return c.resolveRef(caller, f, ref, false)
}

// notePathOrFolder is notePath for move_note, which moves folders too: a
// name that is a folder's is the folder.
func (c *Core) notePathOrFolder(caller Caller, f failure, ref string) (string, string, *Result) {
	return c.resolveRef(caller, f, ref, true)
}

func (c *Core) resolveRef(caller Caller, f failure, ref string, folders bool) (string, string, *Result) {
	if strings.TrimSpace(ref) == "" || looksLikePath(ref) {
		return ref, "", nil
	}
	if folders {
		if _, ok := c.isFolder(ref); ok {
			return ref, "", nil
		}
	}
	n, heading, err := c.v.Find(ref)
	if err != nil {
		if folder, ok := c.isFolder(ref); ok && errors.Is(err, note.ErrNotFound) {
			return "", "", c.folderNotNote(caller, f, f.tool, folder) // no note has the name
		}
		if ve, ok := note.AsError(err); ok {
			cp := *ve
			cp.Op = f.tool
			err = &cp
		}
		return "", "", c.fail(caller, f, err)
	}
	return n.Path, heading, nil
}

// named says, in a write's answer, which note a name led to.
func named(ref, p string) string {
	if ref == "" || ref == p || strings.TrimSuffix(p, ".md") == ref {
		return ""
	}
	return fmt.Sprintf("named %q: the note at %s\n", ref, p)
}

// withNamed adds to a write's answer which note a name led to.
func withNamed(ref, p string, r *Result) *Result {
	if l := named(ref, p); l != "" && !r.IsError() {
		head, rest, _ := strings.Cut(r.Text, "\n")
		r.Text = head + "\n" + l + rest
	}
	return r
}
