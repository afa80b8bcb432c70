package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/rules"
)

// Vaults is what one server serves: one vault, or several by name, each
// with its own core (index, rules, history, trash). With one vault every
// call goes to its core unchanged. With several, every tool takes a
// "vault" argument, a path may be written NAME:path, a call that names no
// vault is sent where its note is (or, for search and the lists, to every
// vault), and every answer names its vault in each call it suggests.
type Vaults struct {
	named bool // served by name: calls take a vault argument (Multi)
	mu    sync.Mutex
	set   atomic.Pointer[vaultSet] // replaced whole by Add and Remove
}

// vaultSet is the vaults served at one moment: a call works on the set
// it started with.
type vaultSet struct {
	names []string // in the order served
	cores map[string]*Core
}

// SingleVault serves one vault; its calls take no vault argument.
func SingleVault(c *Core) *Vaults {
	vs := &Vaults{}
	vs.set.Store(&vaultSet{names: []string{""}, cores: map[string]*Core{"": c}})
	return vs
}

// vaultName is how a served vault may be named: short, no spaces, no
// colon (NAME:path splits at the first colon).
var vaultName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$`)

// ValidVaultName says what is wrong with name as a vault's name, or nil.
func ValidVaultName(name string) error {
	if !vaultName.MatchString(name) {
		return fmt.Errorf("vault name %q: use 1 to 40 letters, digits, '-', '_' or '.', starting with a letter or digit (no spaces or colons)", name)
	}
	return nil
}

// NewVaults serves the cores by the names given, in that order, even one:
// a server of named vaults takes a vault argument in every call, and may
// gain and lose vaults while it runs (Add, Remove). Names must be valid
// (ValidVaultName) and differ in more than case.
func NewVaults(names []string, cores []*Core) (*Vaults, error) {
	if len(names) != len(cores) || len(names) == 0 {
		return nil, fmt.Errorf("vaults: %d names for %d cores", len(names), len(cores))
	}
	vs := &Vaults{named: true}
	vs.set.Store(&vaultSet{cores: map[string]*Core{}})
	for i, n := range names {
		if err := vs.Add(n, cores[i]); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// Add serves one more vault, after the others. Calls already running
// finish on the vaults they started with.
func (vs *Vaults) Add(name string, c *Core) error {
	if !vs.named {
		return errors.New("vaults: a lone vault's server serves no other")
	}
	if err := ValidVaultName(name); err != nil {
		return err
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	old := vs.set.Load()
	for _, m := range old.names {
		if strings.EqualFold(m, name) {
			return fmt.Errorf("vault name %q is given twice", name)
		}
	}
	next := &vaultSet{names: append(slices.Clone(old.names), name), cores: maps.Clone(old.cores)}
	next.cores[name] = c
	vs.set.Store(next)
	return nil
}

// Remove stops serving the named vault and returns its core, for its
// owner to close once the calls in flight are done; the last vault stays.
func (vs *Vaults) Remove(name string) (*Core, error) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	old := vs.set.Load()
	n := old.lookup(name)
	switch {
	case n == "" || !vs.named:
		return nil, fmt.Errorf("no vault %q is served", name)
	case len(old.names) == 1:
		return nil, fmt.Errorf("vault %q is the last one served", name)
	}
	next := &vaultSet{names: slices.DeleteFunc(slices.Clone(old.names), func(m string) bool { return m == n }), cores: maps.Clone(old.cores)}
	delete(next.cores, n)
	vs.set.Store(next)
	return old.cores[n], nil
}

// Multi reports whether the server serves vaults by name (calls then take
// a vault argument), however many.
func (vs *Vaults) Multi() bool { return vs.named }

// Names lists the served vaults' names in order ("" for a lone vault).
func (vs *Vaults) Names() []string { return slices.Clone(vs.set.Load().names) }

// Core returns the named vault's core (nil if none); "" is the first.
func (vs *Vaults) Core(name string) *Core {
	s := vs.set.Load()
	if name == "" {
		return s.cores[s.names[0]]
	}
	return s.cores[s.lookup(name)]
}

// First is the first vault's core: a lone vault's.
func (vs *Vaults) First() *Core { return vs.Core("") }

// lookup returns the served name equal to name but for case, or "".
func (vs *Vaults) lookup(name string) string { return vs.set.Load().lookup(name) }

func (s *vaultSet) lookup(name string) string {
	for _, n := range s.names {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	return ""
}

// PermsIn returns what caller may do in the named vault; ok is false
// where it may see nothing of it.
func (caller Caller) PermsIn(vault string) (p Perms, ok bool) {
	if caller.Vaults == nil {
		return caller.Perms, caller.Perms.Read
	}
	p = caller.PermsFor(vault)
	return p, p.Read
}

// PermsFor returns the rights caller.Vaults names for vault, matching
// names whatever their case; none where it names the vault not.
func (caller Caller) PermsFor(vault string) Perms {
	if p, ok := caller.Vaults[vault]; ok {
		return p
	}
	for n, p := range caller.Vaults {
		if strings.EqualFold(n, vault) {
			return p
		}
	}
	return Perms{}
}

// Visible lists the vaults caller may read, in order. A vault it may not
// see appears nowhere in its answers, not even in suggestions or counts.
func (vs *Vaults) Visible(caller Caller) []string {
	var out []string
	for _, n := range vs.set.Load().names {
		if _, ok := caller.PermsIn(n); ok {
			out = append(out, n)
		}
	}
	return out
}

// UnionPerms is what a connection with per-vault rights may do in some
// vault: the tools it is shown.
func UnionPerms(byVault map[string]Perms) Perms {
	var u Perms
	for _, p := range byVault {
		if p.Read {
			u.Read = true
			u.Write = u.Write || p.Write
			u.Delete = u.Delete || (p.Write && p.Delete)
		}
	}
	return u
}

// targetArgs are the arguments that name a note, file or folder in a
// vault: where a call that names no vault is sent, and the ones that may
// be written NAME:path.
var targetArgs = []string{"path", "trash_path", "folder", "note", "base", "to"}

// fanOut are the tools that, naming no vault and no note, answer for
// every vault the caller may read, one answer after another.
var fanOut = map[string]bool{
	"recent_changes": true, "list_tags": true, "list_trash": true, "query_notes": true,
	"list_notes": true, "list_attachments": true,
}

// Call runs a tool for caller: with one vault, in it; with several, in
// the vault the call names (its vault argument or a NAME: path), else
// where its note is, else in every vault (search, lists). Rights are
// checked per vault.
func (vs *Vaults) Call(ctx context.Context, caller Caller, name string, args map[string]any) *Result {
	return vs.call(ctx, nil, caller, name, args)
}

// CallOn is Call on an MCP connection: its rights per vault and its rate
// limits (Core.CallOn).
func (vs *Vaults) CallOn(ctx context.Context, cn *Connection, caller Caller, name string, args map[string]any) *Result {
	return vs.call(ctx, cn, caller, name, args)
}

func (vs *Vaults) call(ctx context.Context, cn *Connection, caller Caller, name string, args map[string]any) *Result {
	if args == nil {
		args = map[string]any{}
	}
	if cn != nil {
		caller.Vaults = cn.Vaults
	}
	if !vs.Multi() {
		return vs.run(ctx, cn, caller, "", name, args)
	}
	t, ok := toolNamed(name)
	if !ok {
		c := vs.First()
		return c.fail(caller, failure{tool: name}, &note.Error{Op: "call", Kind: note.ErrInvalid,
			Msg: fmt.Sprintf("there is no tool %q; tools: %s", name, strings.Join(ToolNames(vs.union(caller)), ", "))})
	}
	visible := vs.Visible(caller)
	if len(visible) == 0 {
		return permissionDenied(caller, name, "read")
	}
	args = cloneArgs(args)
	named, r := vs.namedVault(caller, t, args, visible)
	if r != nil {
		return r
	}
	switch {
	case named != "":
		return vs.inVault(ctx, cn, caller, named, t, args, visible)
	case len(visible) == 1:
		return vs.inVault(ctx, cn, caller, visible[0], t, args, visible)
	case name == "vault_overview":
		return vs.overview(ctx, caller, visible)
	case name == "search_notes" && str(args["path"]) == "":
		return vs.searchAll(ctx, caller, args, visible)
	}
	target, value := targetOf(t, args)
	if value == "" {
		if fanOut[name] {
			return vs.each(ctx, cn, caller, t, args, visible)
		}
		return vs.needVault(caller, t, args, visible, "")
	}
	found, alts := vs.locate(ctx, caller, t, target, value, visible)
	if pre, rest, ok := strings.Cut(value, ":"); ok && len(found) == 0 && vaultName.MatchString(pre) && rest != "" && !strings.HasPrefix(rest, " ") {
		// NAME:path with a NAME no vault here has (or one the caller may
		// not see: answered alike): the vaults there are, the path in each.
		fixed := cloneArgs(args)
		fixed[target] = rest
		return vs.wrongVault(caller, t, fixed, pre, visible, "")
	}
	if len(found) == 0 && t.perm == "read" {
		if r := vs.tryEach(ctx, cn, caller, t, args, target, value, visible); r != nil {
			return r
		}
	}
	switch {
	case len(found) == 1:
		return vs.inVault(ctx, cn, caller, found[0], t, args, visible)
	case len(found) > 1:
		return vs.ambiguous(caller, t, args, target, value, found)
	case t.name == "create_note" || t.name == "upload_attachment":
		return vs.needVault(caller, t, args, visible, "")
	}
	return vs.notFoundAnywhere(caller, t, args, target, value, visible, alts)
}

// run runs a tool in one vault's core, on the connection when there is one.
func (vs *Vaults) run(ctx context.Context, cn *Connection, caller Caller, vault, name string, args map[string]any) *Result {
	c := vs.Core(vault)
	if c == nil {
		return &Result{Text: fmt.Sprintf("error: vault %s is no longer served; nothing was done\nerror code: not_found\nnext: %s", vault, call{"vault_overview", nil}.render(caller.Door.In(""))),
			Err: &note.Error{Op: name, Kind: note.ErrNotFound, Msg: "vault " + vault + " is no longer served"}}
	}
	if cn != nil {
		return c.CallOn(ctx, cn, caller, name, args)
	}
	return c.Call(ctx, caller, name, args)
}

// inVault runs t in the named vault with the caller's rights there; the
// answer names the vault first, and every call it suggests names it. A
// note the vault does not have is looked for in the others, and the
// answer says where a close match is.
func (vs *Vaults) inVault(ctx context.Context, cn *Connection, caller Caller, vault string, t tool, args map[string]any, visible []string) *Result {
	p, _ := caller.PermsIn(vault)
	caller.Perms, caller.Door = p, caller.Door.In(vault)
	r := vs.run(ctx, cn, caller, vault, t.name, args)
	defer nameVault(r, vault)
	ve, isErr := note.AsError(r.Err)
	missing := isErr && errors.Is(r.Err, note.ErrNotFound) && isPlaceKind(ve.AltKind)
	// A folder where a note was asked for: the note may be in another
	// vault (said after the folder's own next call).
	folder := isErr && errors.Is(r.Err, note.ErrInvalidPath) && strings.Contains(ve.Msg, "is a folder")
	if missing || folder {
		if target, value := targetOf(t, args); value != "" {
			lines, there := vs.elsewhere(ctx, caller, t, args, target, value, vault, visible)
			switch {
			case there != "" && missing:
				// Another vault has it: said right after the error, and
				// its call is the next one.
				head, rest, _ := strings.Cut(r.Text, "\nerror code: ")
				code, rest, _ := strings.Cut(rest, "\n")
				rest = nextLine.ReplaceAllString(rest, "next: "+there)
				r.Text = head + "\nerror code: " + code + "\n" + strings.Join(lines, "\n") + "\n" + rest
			case len(lines) > 0:
				r.Text += "\n" + strings.Join(lines, "\n")
			}
		}
	}
	return r
}

// nameVault names the vault of an answer from one vault: its first line,
// or, for an error (whose first line is "error: …", as clients and agents
// tell errors by), the line after its error code.
func nameVault(r *Result, vault string) {
	if r.Err == nil || !strings.HasPrefix(r.Text, "error: ") {
		r.Text = "vault: " + vault + "\n" + r.Text
		return
	}
	head, rest, ok := strings.Cut(r.Text, "\nerror code: ")
	if !ok {
		r.Text = head + "\nvault: " + vault
		return
	}
	code, rest, _ := strings.Cut(rest, "\n")
	r.Text = strings.TrimRight(head+"\nerror code: "+code+"\nvault: "+vault+"\n"+rest, "\n")
}

// isPlaceKind says whether a not-found error's alternatives are notes,
// files or folders (the call's target was missing), not headings or cards.
func isPlaceKind(altKind string) bool {
	switch altKind {
	case "notes", "attachments", "folders", "spaces", "":
		return true
	}
	return false
}

// namedVault reads the vault a call names: its vault argument, or the
// NAME: before a path. Both are removed from args. A name the caller may
// not see is answered as a name that does not exist.
func (vs *Vaults) namedVault(caller Caller, t tool, args map[string]any, visible []string) (string, *Result) {
	named := ""
	if v, ok := args["vault"]; ok {
		delete(args, "vault")
		s, isStr := v.(string)
		if !isStr {
			return "", vs.wrongVault(caller, t, args, fmt.Sprint(v), visible, "must be a vault's name, a string")
		}
		if s = strings.TrimSpace(s); s != "" {
			named = vs.lookup(s)
			if named == "" || !slices.Contains(visible, named) {
				return "", vs.wrongVault(caller, t, args, s, visible, "")
			}
		}
	}
	for _, a := range targetArgs {
		s, ok := args[a].(string)
		if !ok {
			continue
		}
		n, rest := vs.inLink(s, visible)
		if n == "" {
			continue // a path with a colon, not a vault (or one the caller may not see)
		}
		if named != "" && named != n {
			return "", vs.mixedVaults(caller, t, args, named, n, a)
		}
		named, args[a] = n, rest
	}
	return named, nil
}

// inLink reads the vault a path or link names, and the rest: NAME:path,
// [[NAME:path]] (a wikilink written with its vault), or Obsidian's link to
// a note of another vault, obsidian://open?vault=V&file=PATH (V the
// vault's name here or its folder's name, as Obsidian names vaults). ""
// when it names none the caller may see.
func (vs *Vaults) inLink(s string, visible []string) (vault, rest string) {
	if u, err := url.Parse(strings.TrimSpace(s)); err == nil && u.Scheme == "obsidian" && u.Host == "open" {
		q := u.Query()
		want, file := q.Get("vault"), q.Get("file")
		if file == "" {
			return "", ""
		}
		for _, n := range visible {
			c := vs.Core(n)
			if strings.EqualFold(n, want) || c != nil && strings.EqualFold(filepath.Base(c.v.Dir()), want) {
				return n, file
			}
		}
		return "", ""
	}
	bracket := ""
	if strings.HasPrefix(s, "[[") {
		bracket, s = "[[", s[2:]
	}
	pre, rest, ok := strings.Cut(s, ":")
	if !ok || vaultName.FindString(pre) == "" {
		return "", ""
	}
	n := vs.lookup(pre)
	if n == "" || !slices.Contains(visible, n) {
		return "", ""
	}
	return n, bracket + rest
}

// targetOf returns the argument that names the call's note, file or
// folder, and its value ("" when the call names none).
func targetOf(t tool, args map[string]any) (string, string) {
	for _, a := range targetArgs {
		if a == "to" {
			continue // where a move goes, not what it moves
		}
		if s := strings.TrimSpace(str(args[a])); s != "" {
			return a, s
		}
	}
	return "", ""
}

// locate returns the vaults that hold what a call names, and for the
// others the closest names they have.
func (vs *Vaults) locate(ctx context.Context, caller Caller, t tool, target, value string, visible []string) (found []string, alts map[string][]string) {
	alts = map[string][]string{}
	for _, n := range visible {
		c := vs.Core(n)
		if c == nil {
			continue // removed meanwhile
		}
		switch {
		case target == "folder":
			if c.v.Exists(strings.Trim(value, "/")) {
				found = append(found, n)
			}
			continue
		case t.name == "create_note":
			// A new note goes where its folder is.
			if dir := path.Dir(strings.Trim(value, "/")); dir != "." && c.v.Exists(dir) {
				found = append(found, n)
			}
			continue
		case target == "trash_path":
			if r := c.ListTrash(ctx, caller, ListTrashArgs{}); r.Err == nil && strings.Contains(r.Text, value) {
				found = append(found, n)
			}
			continue
		}
		if c.v.Exists(strings.Trim(value, "/")) {
			found = append(found, n)
			continue
		}
		_, _, err := c.v.Find(value)
		if err == nil || errors.Is(err, note.ErrAmbiguous) {
			found = append(found, n)
			continue
		}
		if ve, ok := note.AsError(err); ok {
			alts[n] = limit(ve.Alternatives, 3)
		}
	}
	return found, alts
}

// tryEach runs a read tool in every vault, for a name only the tool
// itself resolves (an attachment's file name, an embed as written, a
// base's name): the one answer that is not "not found", several as an
// ambiguity, else nil.
func (vs *Vaults) tryEach(ctx context.Context, cn *Connection, caller Caller, t tool, args map[string]any, target, value string, visible []string) *Result {
	var ok []string
	var first, failed *Result
	for _, n := range visible {
		r := vs.inVault(ctx, cn, caller, n, t, cloneArgs(args), nil)
		switch {
		case r.Err == nil:
			ok = append(ok, n)
			if first == nil {
				first = r
			}
		case !errors.Is(r.Err, note.ErrNotFound) && failed == nil:
			failed = r
		}
	}
	switch {
	case len(ok) == 1:
		return first
	case len(ok) > 1:
		return vs.ambiguous(caller, t, args, target, value, ok)
	}
	return failed
}

// elsewhere says which other vaults hold what a call did not find in the
// vault it named, or the closest names there, each as a call to copy.
// there is the call in the first vault that has it, if one does.
func (vs *Vaults) elsewhere(ctx context.Context, caller Caller, t tool, args map[string]any, target, value, in string, visible []string) (lines []string, there string) {
	var others []string
	for _, n := range visible {
		if n != in {
			others = append(others, n)
		}
	}
	found, alts := vs.locate(ctx, caller, t, target, value, others)
	for _, n := range found {
		c := withArgs(t.name, args, "", "").render(caller.Door.In(n))
		lines = append(lines, fmt.Sprintf("vault %s has %q: %s", n, value, c))
		if there == "" {
			there = c
		}
	}
	if len(found) > 0 {
		return lines, there
	}
	for _, n := range others {
		for _, a := range alts[n] {
			p := stripLineHint(a)
			lines = append(lines, fmt.Sprintf("close in vault %s: %s", n, withArgs(t.name, args, target, p).render(caller.Door.In(n))))
		}
	}
	if len(lines) > 0 {
		lines = append([]string{"the other vaults:"}, lines...)
	}
	return lines, ""
}

// nextLine is an answer's "next:" line.
var nextLine = regexp.MustCompile(`(?m)^next: .*$`)

// withArgs is the call of tool with args, target set to value (if given),
// in the order the tool declares its arguments.
func withArgs(tool string, args map[string]any, target, value string) call {
	c := call{tool: tool}
	t, _ := toolNamed(tool)
	for _, a := range argsOf(t.argsType) {
		v, ok := args[a.Name]
		if a.Name == target && value != "" {
			v, ok = value, true
		}
		if ok {
			c.args = append(c.args, arg{a.Name, v})
		}
	}
	return c
}

// wrongVault answers a vault argument naming no vault the caller may see.
func (vs *Vaults) wrongVault(caller Caller, t tool, args map[string]any, given string, visible []string, why string) *Result {
	var b strings.Builder
	if why == "" {
		why = "there is no such vault"
	}
	fmt.Fprintf(&b, "error: vault %q: %s; nothing was done\nerror code: invalid_argument\n", cut(given, 60), why)
	b.WriteString("vaults: " + strings.Join(visible, ", ") + "\n")
	order := slices.Clone(visible)
	slices.SortStableFunc(order, func(x, y string) int {
		return cmp.Compare(note.Distance(strings.ToLower(given), strings.ToLower(x)), note.Distance(strings.ToLower(given), strings.ToLower(y)))
	})
	b.WriteString("Send the call again in one of them:\n")
	for _, n := range order {
		b.WriteString(withArgs(t.name, args, "", "").render(caller.Door.In(n)) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"),
		Data: map[string]any{"error": "invalid_argument", "vaults": visible},
		Err:  &note.Error{Op: t.name, Kind: note.ErrInvalid, Msg: "unknown vault " + given}}
}

// mixedVaults answers a call whose arguments name two vaults.
func (vs *Vaults) mixedVaults(caller Caller, t tool, args map[string]any, a, b, arg string) *Result {
	msg := fmt.Sprintf("the call names two vaults, %s and %s (in %q); a call works in one vault", a, b, arg)
	if t.name == "move_note" {
		msg = fmt.Sprintf("move_note moves within one vault, not from %s to %s; read the note, create it in %s, then delete it in %s", a, b, b, a)
	}
	return &Result{Text: "error: " + msg + "; nothing was done\nerror code: invalid_argument",
		Data: map[string]any{"error": "invalid_argument"},
		Err:  &note.Error{Op: t.name, Kind: note.ErrInvalid, Msg: msg}}
}

// needVault answers a call that must name a vault (a new note without a
// folder that says where, today's daily note): the call in each vault.
func (vs *Vaults) needVault(caller Caller, t tool, args map[string]any, visible []string, _ string) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "error: %s needs a vault: this server serves %d (%s); nothing was done\nerror code: invalid_argument\n",
		t.name, len(visible), strings.Join(visible, ", "))
	b.WriteString("Send the call again with the vault it is for:\n")
	for _, n := range visible {
		b.WriteString(withArgs(t.name, args, "", "").render(caller.Door.In(n)) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"),
		Data: map[string]any{"error": "invalid_argument", "vaults": visible},
		Err:  &note.Error{Op: t.name, Kind: note.ErrInvalid, Msg: "no vault named"}}
}

// ambiguous answers a name that several vaults hold: every candidate with
// its vault, each as a call (AGENT-CONTRACT rule 11).
func (vs *Vaults) ambiguous(caller Caller, t tool, args map[string]any, target, value string, found []string) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "error: %q is in %d vaults (%s); say which; nothing was done\nerror code: ambiguous\n", cut(value, 200), len(found), strings.Join(found, ", "))
	for _, n := range found {
		b.WriteString(withArgs(t.name, args, "", "").render(caller.Door.In(n)) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"),
		Data: map[string]any{"error": "ambiguous", "vaults": found},
		Err:  &note.Error{Op: t.name, Kind: note.ErrAmbiguous, Msg: value + " is in several vaults", Alternatives: found, AltKind: "vaults"}}
}

// notFoundAnywhere answers a name no vault holds: the closest names of
// each vault, nearest vaults first, each as a call.
func (vs *Vaults) notFoundAnywhere(caller Caller, t tool, args map[string]any, target, value string, visible []string, alts map[string][]string) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "error: %q is in none of the %d vaults (%s); nothing was done\nerror code: not_found\n", cut(value, 200), len(visible), strings.Join(visible, ", "))
	listed := false
	for _, n := range visible {
		for _, a := range alts[n] {
			if !listed {
				b.WriteString("closest, by vault:\n")
				listed = true
			}
			b.WriteString(fmt.Sprintf("- %s: %s\n", n, withArgs(t.name, args, target, stripLineHint(a)).render(caller.Door.In(n))))
		}
	}
	if !listed {
		fmt.Fprintf(&b, "Search for it: %s", call{"search_notes", []arg{{"query", searchWords(value)}}}.render(caller.Door))
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"),
		Data: map[string]any{"error": "not_found", "vaults": visible, "closest": alts},
		Err:  &note.Error{Op: t.name, Kind: note.ErrNotFound, Msg: value + " is in no vault", AltKind: "vaults"}}
}

// each runs t in every visible vault, one answer after another, each
// under its vault's name.
func (vs *Vaults) each(ctx context.Context, cn *Connection, caller Caller, t tool, args map[string]any, visible []string) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in each of %d vaults (%s); add \"vault\" for one\n", t.name, len(visible), strings.Join(visible, ", "))
	data := map[string]any{}
	out := &Result{}
	var errs int
	for _, n := range visible {
		r := vs.inVault(ctx, cn, caller, n, t, cloneArgs(args), visible)
		b.WriteString("\n=== " + r.Text + "\n")
		data[n] = r.Data
		out.Changed = out.Changed || r.Changed
		if r.Err != nil {
			errs++
			out.Err = r.Err
		}
	}
	if errs < len(visible) {
		out.Err = nil
	}
	out.Text, out.Data = strings.TrimRight(b.String(), "\n"), map[string]any{"vaults": data}
	return out
}

// overview lists the vaults: each one's size, spaces and rules, and the
// call that opens its overview.
func (vs *Vaults) overview(ctx context.Context, caller Caller, visible []string) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "this server serves %d vaults; name one with \"vault\" in any call, or write a path as NAME:path (e.g. %s:%s)\n",
		len(visible), visible[0], "0_Inbox/Idee.md")
	type entry struct {
		Name   string   `json:"name"`
		Notes  int      `json:"notes"`
		Spaces []string `json:"spaces"`
		Rules  string   `json:"rules,omitempty"`
	}
	var list []entry
	results := make([]*Result, len(visible))
	var wg sync.WaitGroup
	for i, n := range visible {
		wg.Go(func() {
			cl := caller
			cl.Perms, _ = caller.PermsIn(n)
			if c := vs.Core(n); c != nil {
				results[i] = c.Overview(ctx, cl, OverviewArgs{})
			} else {
				results[i] = &Result{}
			}
		})
	}
	wg.Wait()
	for i, n := range visible {
		e := entry{Name: n}
		if d, ok := results[i].Data.(OverviewData); ok {
			e.Notes = d.Notes
			for _, s := range d.Spaces {
				e.Spaces = append(e.Spaces, s.Name)
			}
		}
		if c := vs.Core(n); c != nil {
			if r, err := c.Rules(); err == nil {
				e.Rules = rulesLine(r)
			}
		}
		list = append(list, e)
		fmt.Fprintf(&b, "\n- vault: %s\n  notes: %s\n", n, groupDigits(e.Notes))
		if len(e.Spaces) > 0 {
			b.WriteString("  spaces: " + strings.Join(e.Spaces, ", ") + "\n")
		}
		if e.Rules != "" {
			b.WriteString("  rules: " + e.Rules + "\n")
		}
		b.WriteString("  overview: " + call{"vault_overview", nil}.render(caller.Door.In(n)) + "\n")
	}
	b.WriteString("\nsearch every vault: " + call{"search_notes", []arg{{"query", "…"}}}.render(caller.Door))
	return &Result{Text: b.String(), Data: map[string]any{"vaults": list}}
}

// rulesLine sums up a vault's rules for the list of vaults: the notes to
// read, what agents may not change, the inbox, what new notes need (the
// vault's own overview has them in full).
func rulesLine(r *rules.Rules) string {
	var parts []string
	if len(r.Notes) > 0 {
		var ps []string
		for _, n := range r.Notes {
			ps = append(ps, n.Path)
		}
		parts = append(parts, "read "+strings.Join(limit(ps, 3), ", "))
	} else {
		parts = append(parts, "no rules notes in 9_System/")
	}
	var ro []string
	for _, p := range r.Protected {
		ro = append(ro, p.Value)
	}
	parts = append(parts, "read-only "+strings.Join(limit(ro, 4), ", "))
	if r.Inbox != "" {
		parts = append(parts, "inbox "+r.Inbox)
	}
	if len(r.Required) > 0 {
		var req []string
		for _, p := range r.Required {
			req = append(req, p.Value)
		}
		parts = append(parts, "new notes need "+strings.Join(req, ", "))
	}
	return strings.Join(parts, "; ")
}

// searchAll searches every visible vault and merges the hits into one
// ranking: each vault's hits keep their order, and the next hit is the
// best-scored among the vaults' next ones (notes with every word before
// notes with some). Each hit names its vault.
func (vs *Vaults) searchAll(ctx context.Context, caller Caller, raw map[string]any, visible []string) *Result {
	var a SearchNotesArgs
	if err := decodeArgs(raw, &a); err != nil {
		return vs.First().fail(caller, failure{tool: "search_notes"}, &note.Error{Op: "search_notes", Kind: note.ErrInvalid, Msg: err.Error()})
	}
	if unknown := unknownArgs(raw, argNames[SearchNotesArgs]()); len(unknown) > 0 {
		return vs.First().failUnknownArgs(caller, "search_notes", raw, unknown, argNames[SearchNotesArgs]())
	}
	lim := a.Limit
	if lim <= 0 {
		lim = searchLimit
	}
	lim = min(lim, maxSearchLimit)
	off := max(a.Offset, 0)
	each := a
	each.Limit, each.Offset = off+lim, 0
	pages := make([]*searchPage, len(visible))
	early := make([]*Result, len(visible))
	var wg sync.WaitGroup
	for i, n := range visible {
		wg.Go(func() {
			cl := caller
			cl.Perms, _ = caller.PermsIn(n)
			cl.Door = cl.Door.In(n)
			if c := vs.Core(n); c != nil {
				pages[i], early[i] = c.search(ctx, cl, each)
			}
		})
	}
	wg.Wait()
	merged := &searchPage{a: a}
	merged.a.Limit, merged.a.Offset = lim, off
	// A vault where no note has every word (its page is relaxed) ranks
	// its notes after the notes with every word of the others.
	anyFull := false
	for _, p := range pages {
		if p != nil && !p.relaxed && p.data.Total > 0 {
			anyFull = true
		}
	}
	var lists [][]SearchHit
	for i, p := range pages {
		if p == nil {
			continue
		}
		d := p.data
		for j := range d.Hits {
			d.Hits[j].Vault = visible[i]
		}
		m := &merged.data
		if p.relaxed && anyFull {
			for j := range d.Hits {
				d.Hits[j].Some = true
			}
			d.Some, d.Total = d.Some+d.Total, 0
		}
		lists = append(lists, d.Hits)
		m.Total += d.Total
		m.Some += d.Some
		m.Query = d.Query
		merged.relaxed = merged.relaxed || p.relaxed && !anyFull
		merged.meaningOn = merged.meaningOn || p.meaningOn
		merged.shownBy = p.shownBy
		if d.Index != "" {
			m.Index = strings.TrimSpace(m.Index + " " + visible[i] + ": " + d.Index)
		}
		if m.Meaning == "" {
			m.Meaning = d.Meaning
		}
		for _, f := range []struct{ to, from *[]string }{{&m.Ignored, &d.Ignored}, {&m.Optional, &d.Optional}, {&m.Options, &d.Options}, {&m.WholeOnly, &d.WholeOnly}, {&m.Prefixes, &d.Prefixes}} {
			if len(*f.to) == 0 {
				*f.to = *f.from
			}
		}
		if len(m.Suggestions) == 0 {
			m.Suggestions = d.Suggestions
		}
	}
	if merged.data.Total+merged.data.Some == 0 {
		// No hits anywhere: the answer about the note the query names, if
		// a vault gave one; else the first error; else "no hits".
		for i, r := range early {
			if r != nil && r.Err == nil {
				nameVault(r, visible[i])
				return r
			}
		}
		for i, r := range early {
			if r != nil {
				nameVault(r, visible[i])
				return r
			}
		}
	}
	all := mergeHits(lists)
	if off < len(all) {
		all = all[off:]
	} else {
		all = nil
	}
	merged.data.Hits = all[:min(lim, len(all))]
	merged.data.Offset = off
	r := renderSearch(caller, merged)
	r.Text = fmt.Sprintf("searched %d vaults: %s\n", len(visible), strings.Join(visible, ", ")) + r.Text
	return r
}

// mergeHits merges ranked hit lists: at each step the best of the lists'
// next hits, notes with every word before notes with some, then by score.
func mergeHits(lists [][]SearchHit) []SearchHit {
	var out []SearchHit
	heads := make([]int, len(lists))
	for {
		best := -1
		for i, l := range lists {
			if heads[i] >= len(l) {
				continue
			}
			h := l[heads[i]]
			if best < 0 {
				best = i
				continue
			}
			b := lists[best][heads[best]]
			if b.Some && !h.Some || b.Some == h.Some && h.score > b.score {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, lists[best][heads[best]])
		heads[best]++
	}
}

// union is what caller may do in some visible vault.
func (vs *Vaults) union(caller Caller) Perms {
	if caller.Vaults == nil {
		return caller.Perms
	}
	return UnionPerms(caller.Vaults)
}

func toolNamed(name string) (tool, bool) {
	for _, t := range tools {
		if t.name == name {
			return t, true
		}
	}
	return tool{}, false
}

func cloneArgs(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
