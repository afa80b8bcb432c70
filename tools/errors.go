package tools

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// maxAlternatives is how many candidates an error lists (AGENT-CONTRACT
// rule 9: at most ~5, nearest first) — except ambiguity, which lists every
// candidate (rule 11).
const maxAlternatives = 5

// failure describes what a tool was asked, so that its error can suggest a
// next call that differs from the failed one.
type failure struct {
	tool string
	path string // the note path or reference the caller gave
	args []arg  // the failed call's arguments, to build corrected calls
	note *vault.Note
	// noteArg is the argument that names the note ("" means "path").
	noteArg string
}

// fail renders a domain error as an agent-facing error result: the wrong
// part, what exists instead, and the next call (AGENT-CONTRACT rules 8–13).
func (c *Core) fail(caller Caller, f failure, err error) *Result {
	var b strings.Builder
	data := map[string]any{"error": kindName(err)}
	ve, ok := note.AsError(err)
	if !ok {
		// Not a domain error: an I/O failure. Say so plainly; host paths
		// must not leak, so only the kind of failure is shown.
		b.WriteString("error: " + f.tool + " failed: " + scrubHostPaths(scrubHostPaths(err.Error(), c.v.Dir()), c.v.StateDir()) + "\nerror code: failed\n")
		if caller.Door.CLI() {
			b.WriteString("The vault was not changed by this command. If it fails again, check the vault folder and the state dir (--state-dir).")
		} else {
			b.WriteString("The vault was not changed by this call. Try again once; if it fails again, tell the user.")
		}
		return &Result{Text: b.String(), Data: data, Err: err}
	}
	fmt.Fprintf(&b, "error: %s\nerror code: %s\n", ve.Error(), kindName(err))
	var next []call
	switch {
	case errors.Is(err, note.ErrConflict):
		data["expected_version"] = note.ShortVersion(ve.Expected)
		data["current_version"] = note.ShortVersion(ve.Current)
		fmt.Fprintf(&b, "expected version: %s\ncurrent version: %s\n", note.ShortVersion(ve.Expected), note.ShortVersion(ve.Current))
		if ve.CurrentSection != "" {
			b.WriteString("The section as it is now:\n")
			b.WriteString(fence(ve.CurrentSection))
		}
		b.WriteString("Someone changed the note after you read it. Re-read it, merge your change into the current text, and retry with the current version.\n")
		next = append(next, call{"read_note", []arg{{"path", ve.Path}}})
	case errors.Is(err, note.ErrAmbiguous):
		data["candidates"] = ve.Alternatives
		name := "heading"
		if ve.AltKind == "notes" {
			name = "path" // several notes share the name: pick one by its path
			if f.noteArg != "" {
				name = f.noteArg
			}
			why := c.titlesOf(ve.Alternatives)
			for i, a := range ve.Alternatives {
				if tw := vault.TwinNote(a); tw != "" {
					why[i] = strings.TrimPrefix(why[i]+"; "+tw, "; ")
				}
			}
			b.WriteString("candidates, each a call to copy (their paths tell them apart):\n")
			writeCandidates(&b, caller.Door, f, name, ve.Alternatives, why)
		} else {
			b.WriteString("candidates (name one by its full path):\n")
			for _, a := range ve.Alternatives {
				b.WriteString("- " + a + "\n")
			}
		}
		if len(ve.Alternatives) > 0 {
			next = append(next, retryWith(f, name, stripLineHint(ve.Alternatives[0])))
		}
	case errors.Is(err, note.ErrNotFound) && ve.AltKind == "headings":
		alts := limit(ve.Alternatives, 12)
		data["headings"] = alts
		if secs := c.missedHeadingSections(f, ve); len(secs) > 0 {
			// No heading is like the one asked for: the sections whose
			// text holds its words are the better guess.
			data["matching_sections"] = secs
			b.WriteString("no heading is like it; sections whose text has its words:\n")
			for _, a := range secs {
				b.WriteString("- " + a + "\n")
			}
			next = append(next, retryWith(f, "heading", secs[0]))
		}
		if len(ve.Alternatives) == 0 {
			b.WriteString("The note has no headings: read it whole, or append without a heading.\n")
			next = append(next, call{"read_note", []arg{{"path", ve.Path}}})
		} else {
			b.WriteString("headings in this note, nearest first:\n")
			for _, a := range alts {
				b.WriteString("- " + a + "\n")
			}
			if more := len(ve.Alternatives) - len(alts); more > 0 {
				fmt.Fprintf(&b, "(%d more; read_note without a heading shows the full outline)\n", more)
			}
			next = append(next, retryWith(f, "heading", stripLineHint(alts[0])))
		}
	case errors.Is(err, note.ErrNotFound) && ve.AltKind == "conflict sections":
		data["sections_in_conflict"] = ve.Alternatives
		if len(ve.Alternatives) > 0 {
			b.WriteString("sections in conflict:\n")
			for _, a := range ve.Alternatives {
				b.WriteString("- " + a + "\n")
			}
			next = append(next, retryWith(f, "heading", ve.Alternatives[0]))
		} else {
			b.WriteString("No section holds a conflict: they are in the frontmatter or before the first heading; resolve them for the whole note, without heading.\n")
			next = append(next, withoutArg(f, "heading"))
		}
	case errors.Is(err, note.ErrInvalid) && ve.AltKind == "choices":
		data["choices"] = ve.Alternatives
		b.WriteString("choices: " + strings.Join(ve.Alternatives, ", ") + "\n")
		if f.tool == "resolve_conflict" {
			next = append(next, retryWith(f, "take", vault.TakeBoth))
		}
	case errors.Is(err, note.ErrNotFound):
		alts := limit(ve.Alternatives, maxAlternatives)
		var why []string
		if ve.AltKind == "notes" {
			alts, why = c.closestBySearch(f.path, ve)
		}
		if len(alts) > 0 {
			data["closest"] = alts
			what, argName := "notes", "path"
			if f.noteArg != "" {
				argName = f.noteArg
			}
			switch ve.AltKind {
			case "folders":
				what, argName = "folders", "folder"
			case "attachments":
				what = "attachments in conflict" // resolve_conflict on a file
			}
			if ve.AltKind == "notes" {
				// Every candidate is a call (rule 21): an agent that
				// followed the first and found nothing reaches the rest.
				data["closest_why"] = why
				b.WriteString("closest notes, nearest first, each a call to copy:\n")
				writeCandidates(&b, caller.Door, f, argName, alts, why)
			} else {
				b.WriteString("closest " + what + ":\n")
				for _, a := range alts {
					b.WriteString("- " + a + "\n")
				}
			}
			next = append(next, retryWith(f, argName, alts[0]))
		}
		spaces := c.v.Spaces()
		data["spaces"] = spaces
		if len(spaces) > 0 {
			b.WriteString("spaces: " + strings.Join(spaces, ", ") + "\n")
		}
		if len(alts) == 0 {
			if words := searchWords(f.path); words != "" {
				next = append(next, call{"search_notes", []arg{{"query", words}}})
			} else {
				next = append(next, call{"vault_overview", nil})
			}
		}
	case errors.Is(err, vault.ErrDenied):
		if ve.Rule != "" {
			data["rule"] = ve.Rule
			src := ve.RuleSource
			if src == "" {
				src = "built in"
			}
			data["rule_source"] = src
			fmt.Fprintf(&b, "rule: %s (%s)\n", ve.Rule, src)
		}
		if len(ve.Alternatives) > 0 {
			data["missing"] = ve.Alternatives
		}
		switch {
		case !caller.Door.CLI():
			b.WriteString("This is the vault owner's rule; do not try to work around it. Choose a path the rules allow, or tell the user.\n")
		case ve.RuleSource != "":
			// At a terminal the person is the vault's owner: say where the
			// rule is and how to make the change anyway.
			fmt.Fprintf(&b, "This is a rule of your vault, in %s; vaultd keeps it for every change made through it, from the command line too. Make this change in Obsidian or an editor, or change the rule in that note.\n", ve.RuleSource)
		default:
			b.WriteString("vaultd never changes the rules notes in 9_System itself, from the command line neither: edit them in Obsidian or an editor.\n")
		}
		if ve.RuleSource != "" {
			next = append(next, call{"read_note", []arg{{"path", ve.RuleSource}}})
		} else if caller.Door.CLI() && ve.Path != "" && c.v.Exists(ve.Path) {
			next = append(next, call{"read_note", []arg{{"path", ve.Path}}})
		}
	case errors.Is(err, vault.ErrExists):
		if len(ve.Alternatives) > 0 {
			data["free_name"] = ve.Alternatives[0]
			fmt.Fprintf(&b, "free name: %s\n", ve.Alternatives[0])
		}
		next = append(next, call{"read_note", []arg{{"path", ve.Path}}})
	case errors.Is(err, vault.ErrMergeConflict) && ve.Path != "":
		if nc := c.v.ConflictAt(ve.Path); nc != nil {
			cd := conflictData(nc, caller, false, nil)
			data["conflict"] = cd
			writeConflict(&b, cd, false, caller)
			next = append(next, call{"read_note", []arg{{"path", ve.Path}}})
		}
	case errors.Is(err, vault.ErrNotText):
		writeNotText(&b, data, ve, caller)
		if c.v.Exists(ve.Path) {
			next = append(next, call{"read_note", []arg{{"path", ve.Path}}})
		}
	case errors.Is(err, vault.ErrBusy):
		data["retry_after_seconds"] = 3
		b.WriteString("retry after: 3 seconds\nNothing was changed. Another program (an editor, git, a sync tool) is saving this note right now; wait 3 seconds, then send the same call again.\n")
	case errors.Is(err, vault.ErrStateDir):
		if caller.Door.CLI() {
			b.WriteString("vaultd's state dir (history and index) is full or not writable: free space there or fix it, or give another one with --state-dir. Reading still works.\n")
		} else {
			b.WriteString("Retrying will not help yet. Tell the user: vaultd's state dir (history and index) is full or not writable; the vault owner must free space there or fix it. Reading still works.\n")
		}
	case errors.Is(err, note.ErrInvalidPath):
		b.WriteString("Paths are relative to the vault and use \"/\", e.g. 1_Projekte/Website-Relaunch.md.\n")
		if spaces := c.v.Spaces(); len(spaces) > 0 {
			b.WriteString("spaces: " + strings.Join(spaces, ", ") + "\n")
		}
	}
	if f.note != nil && (!errors.Is(err, note.ErrNotFound) || ve.AltKind == "headings" || ve.AltKind == "conflict sections") {
		b.WriteString("note:\n")
		writeRef(&b, refOf(f.note), "  ")
	}
	for _, n := range next {
		if sameCall(n, f) {
			continue
		}
		for _, l := range suggest(caller.Door, f, n) {
			b.WriteString(l + "\n")
		}
		break
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data, Err: err}
}

// suggest renders a suggested call (AGENT-CONTRACT rule 18). A read, and
// a write whose arguments are all short and the caller's own (a move, a
// pin, tags), is the call itself. A write that carries text (append,
// update, replace, create, upload, a card) is never suggested as a call —
// its content cannot be repeated, and a placeholder followed literally
// would be written — but as the read that shows what the corrected write
// would change, and in words: which arguments to change, the caller's
// other arguments as they were.
//
// On the command line the whole command is suggested, its content as "…":
// the CLI puts the user's own --content or --file back in its place.
func suggest(door Door, f failure, n call) []string {
	if toolPerm(n.tool) == "read" || !carriesText(n) {
		return []string{"next: " + n.render(door)}
	}
	if door.CLI() {
		cp := call{tool: n.tool}
		for _, a := range n.args {
			if a.name == "content" {
				a.value = "…"
			}
			cp.args = append(cp.args, a)
		}
		return []string{"next: " + cp.render(door)}
	}
	var changed []string
	for _, a := range n.args {
		if v, ok := argOf(f.args, a.name); !ok || fmt.Sprint(v) != fmt.Sprint(a.value) {
			switch a.name {
			case "content", "content_base64", "text":
				changed = append(changed, a.name+" (the text you sent)")
			default:
				changed = append(changed, fmt.Sprintf("%s %s", a.name, quoteValue(a.value)))
			}
		}
	}
	lines := []string{"next: " + readFor(n).render(door)}
	if len(changed) > 0 {
		lines = append(lines, fmt.Sprintf("then: send %s again with %s, your other arguments as they were", n.tool, strings.Join(changed, " and ")))
	}
	return lines
}

// carriesText reports whether a call carries text to write.
func carriesText(n call) bool {
	for _, a := range n.args {
		switch a.name {
		case "content", "content_base64", "text":
			return true
		}
	}
	switch n.tool {
	case "append_to_note", "update_section", "replace_note", "create_note", "upload_attachment", "add_card":
		return true
	}
	return false
}

// readFor is the read that shows what a write call would change.
func readFor(n call) call {
	get := func(name string) (any, bool) { return argOf(n.args, name) }
	switch n.tool {
	case "move_card", "add_card":
		if p, ok := get("path"); ok {
			return call{"read_board", []arg{{"path", p}}}
		}
	case "restore_note":
		return call{"list_trash", nil}
	case "upload_attachment":
		if p, ok := get("note"); ok && fmt.Sprint(p) != "" {
			return call{"read_note", []arg{{"path", p}}}
		}
		return call{"list_attachments", nil}
	}
	if p, ok := get("path"); ok {
		args := []arg{{"path", p}}
		if h, ok := get("heading"); ok && fmt.Sprint(h) != "" {
			args = append(args, arg{"heading", h})
		}
		return call{"read_note", args}
	}
	return call{"vault_overview", nil}
}

func argOf(args []arg, name string) (any, bool) {
	for _, a := range args {
		if a.name == name {
			return a.value, true
		}
	}
	return nil, false
}

// quoteValue renders an argument value as in a call: strings quoted.
func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// toolPerm is the right a tool needs; "" for no such tool.
func toolPerm(name string) string { return toolPerms[name] }

// toolPerms is filled from tools at start (tools' handlers render errors,
// so the table cannot be computed from tools in its initializer).
var toolPerms = map[string]string{}

func init() {
	for _, t := range tools {
		toolPerms[t.name] = t.perm
	}
}

// writeCandidates lists candidate notes, each as the call that takes the
// agent there — the failed call with the candidate in argName when it
// reads; for a write, the read that shows the candidate (a guess is never
// offered as a change to make) — with what tells it apart.
func writeCandidates(b *strings.Builder, door Door, f failure, argName string, paths, why []string) {
	for i, p := range paths {
		n := retryWith(f, argName, p)
		if toolPerm(n.tool) != "read" {
			n = readFor(n)
		}
		b.WriteString("- " + n.render(door))
		if i < len(why) && why[i] != "" {
			b.WriteString("  (" + why[i] + ")")
		}
		b.WriteString("\n")
	}
}

// retryWith is the failed call with one argument replaced.
func retryWith(f failure, name string, value any) call {
	out := call{tool: f.tool}
	found := false
	for _, a := range f.args {
		if a.name == name {
			a.value = value
			found = true
		}
		out.args = append(out.args, a)
	}
	if !found {
		out.args = append(out.args, arg{name, value})
	}
	return out
}

// withoutArg is the failed call without one argument.
func withoutArg(f failure, name string) call {
	out := call{tool: f.tool}
	for _, a := range f.args {
		if a.name != name {
			out.args = append(out.args, a)
		}
	}
	return out
}

// sameCall reports whether a suggestion repeats the failed call (rule 10).
func sameCall(n call, f failure) bool {
	if n.tool != f.tool || len(n.args) != len(f.args) {
		return false
	}
	for i := range n.args {
		if n.args[i].name != f.args[i].name || fmt.Sprint(n.args[i].value) != fmt.Sprint(f.args[i].value) {
			return false
		}
	}
	return true
}

// stripLineHint removes the " (line N)" that tells identical heading paths apart.
func stripLineHint(s string) string {
	if i := strings.LastIndex(s, " (line "); i > 0 && strings.HasSuffix(s, ")") {
		return s[:i]
	}
	return s
}

func limit(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// searchWords turns a path into words worth searching for.
func searchWords(p string) string {
	p = strings.TrimSuffix(p, ".md")
	if i := strings.LastIndex(p, "/"); i >= 0 {
		p = p[i+1:]
	}
	return strings.Join(strings.FieldsFunc(p, func(r rune) bool { return r == '-' || r == '_' || r == ' ' }), " ")
}

// fence wraps text so that it cannot be mistaken for instructions or markup.
func fence(s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return f + "markdown\n" + s + f + "\n"
}

func kindName(err error) string {
	switch errKind(err) {
	case note.ErrNotFound:
		return "not_found"
	case vault.ErrExists:
		return "exists"
	case note.ErrConflict:
		return "conflict"
	case note.ErrAmbiguous:
		return "ambiguous"
	case note.ErrInvalidPath:
		return "invalid_path"
	case vault.ErrDenied:
		return "denied"
	case note.ErrInvalid:
		return "invalid_argument"
	case vault.ErrBusy:
		return "busy"
	case vault.ErrStateDir:
		return "state_dir_unavailable"
	case vault.ErrMergeConflict:
		return "merge_conflict"
	case vault.ErrNotText:
		return "not_text"
	}
	return "failed"
}

// scrubHostPaths removes a host path (the vault's, the state dir's) from an
// error text.
func scrubHostPaths(s, dir string) string {
	if dir != "" {
		s = strings.ReplaceAll(s, dir+"/", "")
		s = strings.ReplaceAll(s, dir, "(vault)")
	}
	return s
}
