package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// The notes-app tools: properties, tags, pins, boards and attachments —
// what people organise notes with besides text, in the formats Obsidian
// itself uses (frontmatter, .obsidian/bookmarks.json, the Kanban plugin's
// markdown, the attachment folder setting).

// StringList is a list of strings that also accepts one string: agents
// often send "projekt" where ["projekt"] is meant. A string is split at
// commas.
type StringList []string

// UnmarshalJSON reads a JSON array of strings, or one string.
func (l *StringList) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = nil
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				*l = append(*l, part)
			}
		}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("must be a list of strings such as [\"projekt\", \"kunde/x\"]")
	}
	*l = list
	return nil
}

// listArg spells a list argument of a suggested call: a JSON array for
// MCP, comma-separated for the command line.
func listArg(caller Caller, l []string) any {
	if caller.Door.CLI() {
		return strings.Join(l, ",")
	}
	return l
}

// appWrite renders the parts every write answer of these tools shares: the
// head (what happened, the note, the previous version) and the tail (where
// it is recorded, how to read it back). A write that changed nothing says
// so and claims no history record.
func appWrite(caller Caller, op, summary string, res *vault.Result, readBack call) (WriteData, string, string) {
	data := WriteData{Operation: op, Detail: res.Detail, ChangeID: res.ChangeID}
	changed := res.Before != res.After
	if res.Note != nil {
		data.Note = refOf(res.Note)
	}
	var head, tail strings.Builder
	head.WriteString(res.Detail + " (operation: " + op + ")\n")
	writeRef(&head, data.Note, "")
	if changed {
		data.Previous = note.ShortVersion(res.Before)
		data.ChangeSummary = summary
		fmt.Fprintf(&head, "previous version: %s\n", data.Previous)
		fmt.Fprintf(&tail, "recorded in history as change %s: %s\n", data.ChangeID, summary)
	} else {
		tail.WriteString("nothing was written, so nothing was recorded in history\n")
	}
	tail.WriteString("read it back: " + readBack.render(caller.Door) + "\n")
	return data, head.String(), tail.String()
}

// failApp renders an error of these tools. Board errors name cards and
// columns rather than notes or headings; everything else is rendered as
// for the other write tools, with the note's identity when it exists, and
// a read_note suggestion when the note itself is the problem (invalid
// frontmatter, not a board).
func (c *Core) failApp(caller Caller, f failure, notePath string, err error) *Result {
	if ve, ok := note.AsError(err); ok && (ve.AltKind == "cards" || ve.AltKind == "columns") {
		return c.failBoard(caller, f, notePath, ve)
	}
	var r *Result
	if notePath != "" {
		r = c.failWrite(caller, f, notePath, err)
	} else {
		r = c.fail(caller, f, err)
	}
	if n := f.note; n == nil && notePath != "" {
		if nn, rerr := c.v.Read(notePath); rerr == nil {
			n = nn
		}
		if n != nil && errKind(err) == note.ErrInvalid && !strings.Contains(r.Text, "\nnext: ") {
			reread := call{"read_note", []arg{{"path", n.Path}}}
			switch {
			case strings.Contains(err.Error(), vault.BookmarksPath):
				return r // the bookmarks file is the problem, not the note
			case (f.tool == "move_card" || f.tool == "add_card") && !strings.Contains(err.Error(), "not a Kanban board"):
				reread = call{"read_board", []arg{{"path", n.Path}}}
			}
			r.Text += "\nnext: " + reread.render(caller.Door)
		}
	}
	return r
}

// SetPropertiesArgs are the arguments of set_properties.
type SetPropertiesArgs struct {
	Path            string         `json:"path"`
	Properties      map[string]any `json:"properties,omitempty" jsonschema:"e.g. {\"status\": \"aktiv\", \"prio\": 2, \"due\": \"2026-12-01\"}; null removes" flag:"set" help:"KEY=VALUE: set a property (repeatable); VALUE is JSON or text"`
	Remove          StringList     `json:"remove,omitempty" jsonschema:"property names" help:"KEY: remove a property (repeatable, or comma-separated)"`
	ChangeSummary   string         `json:"change_summary"`
	ExpectedVersion string         `json:"expected_version,omitempty" jsonschema:"optional: the version you read" help:"VERSION: optional: the version you read; fails if the properties you change changed since"`
}

// PropertyData is one property as read_note and set_properties show it.
type PropertyData struct {
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
}

// PropertyChangeData is what set_properties did to one key.
type PropertyChangeData struct {
	Key    string `json:"key"`
	Action string `json:"action"`
	Old    string `json:"old,omitempty"`
	New    string `json:"new,omitempty"`
}

// SetPropertiesData is set_properties' structured answer.
type SetPropertiesData struct {
	WriteData
	Changes    []PropertyChangeData `json:"changes"`
	Properties []PropertyData       `json:"properties,omitempty"`
}

// maxPropertyChars bounds one property value as shown.
const maxPropertyChars = 200

// propertiesData renders a note's properties compactly, in file order.
func propertiesData(d *note.Doc) []PropertyData {
	var out []PropertyData
	for _, p := range d.Properties() {
		out = append(out, PropertyData{Key: p.Key, Value: cut(oneLine(p.Text()), maxPropertyChars)})
	}
	return out
}

// writeProperties writes a "properties:" block.
func writeProperties(b *strings.Builder, props []PropertyData, heading string) {
	if len(props) == 0 {
		return
	}
	b.WriteString(heading + ":\n")
	for _, p := range props {
		v := p.Value
		if v == "" {
			v = "(empty)"
		}
		fmt.Fprintf(b, "  %s: %s\n", p.Key, v)
	}
}

// SetProperties sets, changes or removes frontmatter properties, keeping
// every other byte of the note.
func (c *Core) SetProperties(ctx context.Context, caller Caller, a SetPropertiesArgs) *Result {
	const tool = "set_properties"
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}}}
	ref := a.Path
	np, _, nr := c.notePath(caller, f, a.Path)
	if nr != nil {
		return nr
	}
	a.Path = np
	if len(a.Properties) > 0 {
		f.args = append(f.args, arg{"properties", a.Properties})
	}
	if len(a.Remove) > 0 {
		f.args = append(f.args, arg{"remove", listArg(caller, a.Remove)})
	}
	f.args = append(f.args, arg{"change_summary", a.ChangeSummary})
	res, changes, err := c.v.SetProperties(a.Path, note.PropertyEdit{Set: a.Properties, Remove: a.Remove}, c.opts(caller, a.ChangeSummary, a.ExpectedVersion))
	if err != nil {
		return changedBy(c.failApp(caller, f, a.Path, err), res)
	}
	wd, head, tail := appWrite(caller, "set_properties", a.ChangeSummary, res, call{"read_note", []arg{{"path", res.Note.Path}}})
	data := SetPropertiesData{WriteData: wd, Properties: propertiesData(res.Note.Doc)}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("changes:\n")
	for _, ch := range changes {
		data.Changes = append(data.Changes, PropertyChangeData{Key: ch.Key, Action: ch.Action, Old: ch.Old, New: ch.New})
		switch ch.Action {
		case "added":
			fmt.Fprintf(&b, "- %s (added): %s\n", ch.Key, shown(ch.New))
		case "changed":
			fmt.Fprintf(&b, "- %s (changed): %s → %s\n", ch.Key, shown(ch.Old), shown(ch.New))
		case "removed":
			fmt.Fprintf(&b, "- %s (removed): was %s\n", ch.Key, shown(ch.Old))
		case "unchanged":
			fmt.Fprintf(&b, "- %s (unchanged): already %s\n", ch.Key, shown(ch.New))
		default:
			fmt.Fprintf(&b, "- %s (absent): the note has no such property, nothing to remove\n", ch.Key)
		}
	}
	writeProperties(&b, data.Properties, "properties now")
	b.WriteString(tail)
	return withNamed(ref, a.Path, &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data, Changed: res.Before != res.After})
}

// shown renders a value in a sentence; an empty one says so.
func shown(s string) string {
	if s == "" {
		return "(empty)"
	}
	return s
}

// TagsArgs are the arguments of add_tags and remove_tags.
type TagsArgs struct {
	Path          string     `json:"path"`
	Tags          StringList `json:"tags" help:"tags, comma-separated (or give them as arguments after NOTE)"`
	ChangeSummary string     `json:"change_summary"`
}

// InlineTagData is a #tag in a note's text.
type InlineTagData struct {
	Tag  string `json:"tag"`
	Line int    `json:"line"`
}

// TagsData is the structured answer of add_tags and remove_tags.
type TagsData struct {
	WriteData
	Property string          `json:"property"`
	Style    string          `json:"style"`
	Added    []string        `json:"added,omitempty"`
	Removed  []string        `json:"removed,omitempty"`
	Present  []string        `json:"already_present,omitempty"`
	Missing  []string        `json:"not_present,omitempty"`
	Tags     []string        `json:"tags"`
	Inline   []InlineTagData `json:"inline,omitempty"`
}

// AddTags adds tags to a note's frontmatter in the note's own style.
func (c *Core) AddTags(ctx context.Context, caller Caller, a TagsArgs) *Result {
	return c.editTags(caller, "add_tags", a)
}

// RemoveTags removes tags from a note's frontmatter in the note's own style.
func (c *Core) RemoveTags(ctx context.Context, caller Caller, a TagsArgs) *Result {
	return c.editTags(caller, "remove_tags", a)
}

func (c *Core) editTags(caller Caller, tool string, a TagsArgs) *Result {
	if r := c.need(caller, tool, "write"); r != nil {
		return r
	}
	f := failure{tool: tool, path: a.Path, args: []arg{{"path", a.Path}, {"tags", listArg(caller, a.Tags)}, {"change_summary", a.ChangeSummary}}}
	ref := a.Path
	np, _, nr := c.notePath(caller, f, a.Path)
	if nr != nil {
		return nr
	}
	a.Path = np
	var (
		res *vault.Result
		te  *note.TagEdit
		err error
	)
	o := c.opts(caller, a.ChangeSummary, "")
	if tool == "add_tags" {
		res, te, err = c.v.AddTags(a.Path, a.Tags, o)
	} else {
		res, te, err = c.v.RemoveTags(a.Path, a.Tags, o)
	}
	if err != nil {
		return changedBy(c.failApp(caller, f, a.Path, err), res)
	}
	wd, head, tail := appWrite(caller, tool, a.ChangeSummary, res, call{"read_note", []arg{{"path", res.Note.Path}}})
	data := TagsData{WriteData: wd, Property: te.Key, Style: te.Style, Added: te.Added, Removed: te.Removed,
		Present: te.Present, Missing: te.Missing, Tags: te.Tags}
	if data.Tags == nil {
		data.Tags = []string{}
	}
	var b strings.Builder
	b.WriteString(head)
	fmt.Fprintf(&b, "frontmatter property: %s (style: %s)\n", te.Key, te.Style)
	if len(te.Tags) > 0 {
		b.WriteString("frontmatter tags now: " + strings.Join(te.Tags, ", ") + "\n")
	} else {
		b.WriteString("frontmatter tags now: none\n")
	}
	if len(te.Present) > 0 {
		b.WriteString("already there: " + strings.Join(te.Present, ", ") + "\n")
	}
	if len(te.Missing) > 0 {
		b.WriteString("not in the frontmatter: " + strings.Join(te.Missing, ", ") + "\n")
	}
	if len(te.Inline) > 0 {
		var parts []string
		for _, it := range te.Inline {
			data.Inline = append(data.Inline, InlineTagData{Tag: it.Tag, Line: it.Line})
			parts = append(parts, fmt.Sprintf("#%s in line %d", it.Tag, it.Line))
		}
		if tool == "add_tags" {
			b.WriteString("also tagged inline: " + strings.Join(parts, ", ") + " — not changed\n")
		} else {
			b.WriteString("still tagged inline: " + strings.Join(parts, ", ") + " — not changed; the note keeps these tags until the text is edited (update_section)\n")
		}
	}
	b.WriteString(tail)
	return withNamed(ref, a.Path, &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data, Changed: res.Before != res.After})
}

// ListTagsArgs are the arguments of list_tags.
type ListTagsArgs struct {
	Tag    string `json:"tag,omitempty" jsonschema:"with its nested tags" help:"only this tag and the tags nested below it"`
	Limit  int    `json:"limit,omitempty" default:"100" help:"lines per page (at most 500)"`
	Offset int    `json:"offset,omitempty" help:"lines to skip, for the next page"`
}

// TagTreeEntry is one tag of list_tags.
type TagTreeEntry struct {
	Tag   string `json:"tag"`
	Notes int    `json:"notes"`
}

// ListTagsData is list_tags' structured answer.
type ListTagsData struct {
	Tag    string         `json:"tag,omitempty"`
	Total  int            `json:"total"`
	Offset int            `json:"offset,omitempty"`
	Tags   []TagTreeEntry `json:"tags"`
}

// ListTags lists every tag of the vault with the number of notes carrying
// it, nested tags as a tree under their parent: a parent counts every note
// that has it or a tag below it, as Obsidian's tag pane does.
func (c *Core) ListTags(ctx context.Context, caller Caller, a ListTagsArgs) *Result {
	const tool = "list_tags"
	if r := c.need(caller, tool, "read"); r != nil {
		return r
	}
	f := failure{tool: tool}
	// From the catalog (the index's name table), which knows every note's
	// tags without reading it: reading every note took 3.3 s at the first
	// call over the 6,636 laws and 0.1 s at each after (a stat of each).
	entries, _, err := c.v.Catalog()
	if err != nil {
		return c.fail(caller, f, err)
	}
	var notes []vault.NameEntry
	for _, e := range entries {
		if !e.Attachment {
			notes = append(notes, e)
		}
	}
	root := &tagNode{children: map[string]*tagNode{}}
	for _, n := range notes {
		for _, t := range n.Tags {
			cur := root
			parts := strings.Split(strings.Trim(t, "/"), "/")
			for i := range parts {
				k := strings.ToLower(strings.Join(parts[:i+1], "/"))
				ch := cur.children[k]
				if ch == nil {
					ch = &tagNode{name: strings.Join(parts[:i+1], "/"), notes: map[string]bool{}, children: map[string]*tagNode{}}
					cur.children[k] = ch
				}
				ch.notes[n.Path] = true
				cur = ch
			}
		}
	}
	filter := strings.ToLower(strings.Trim(strings.TrimPrefix(strings.TrimSpace(a.Tag), "#"), "/"))
	type line struct {
		depth int
		n     *tagNode
	}
	var lines []line
	var walk func(n *tagNode, depth int)
	walk = func(n *tagNode, depth int) {
		kids := make([]*tagNode, 0, len(n.children))
		for _, k := range n.children {
			kids = append(kids, k)
		}
		sort.Slice(kids, func(i, j int) bool {
			if len(kids[i].notes) != len(kids[j].notes) {
				return len(kids[i].notes) > len(kids[j].notes)
			}
			return strings.ToLower(kids[i].name) < strings.ToLower(kids[j].name)
		})
		for _, k := range kids {
			lines = append(lines, line{depth, k})
			walk(k, depth+1)
		}
	}
	if filter != "" {
		// Find the tag's node, walking down its path.
		cur := root
		parts := strings.Split(filter, "/")
		for i := range parts {
			if cur = cur.children[strings.Join(parts[:i+1], "/")]; cur == nil {
				break
			}
		}
		if cur == nil {
			return tagNotFound(caller, a, root)
		}
		lines = append(lines, line{0, cur})
		walk(cur, 1)
	} else {
		walk(root, 0)
	}

	lim := a.Limit
	if lim <= 0 {
		lim = 100
	}
	lim = min(lim, 500)
	off := max(a.Offset, 0)
	data := ListTagsData{Tag: a.Tag, Total: len(lines), Offset: off, Tags: []TagTreeEntry{}}
	page := lines[min(off, len(lines)):]
	if len(page) > lim {
		page = page[:lim]
	}
	var b strings.Builder
	tagged := 0
	for _, n := range notes {
		if len(n.Tags) > 0 {
			tagged++
		}
	}
	switch {
	case len(lines) == 0:
		fmt.Fprintf(&b, "no tags in the vault (0 tags): none of its %s has a tag in its frontmatter or text.\n", plural(len(notes), "note", "notes"))
		b.WriteString("Tags are added with add_tags, e.g. add_tags {\"path\": \"…\", \"tags\": [\"projekt\"], \"change_summary\": \"…\"}.\n")
		return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
	case filter != "":
		fmt.Fprintf(&b, "tag #%s and the tags nested below it (%s); counts are notes, a parent counts its nested tags' notes too\n", page[0].n.name, plural(len(lines), "tag", "tags"))
	default:
		fmt.Fprintf(&b, "%s on %s of %s; counts are notes, a parent counts its nested tags' notes too\n", plural(len(lines), "tag", "tags"), groupDigits(tagged), plural(len(notes), "note", "notes"))
	}
	if len(page) == 0 {
		fmt.Fprintf(&b, "no tags at offset %d; there are %d.\n", off, len(lines))
	} else {
		fmt.Fprintf(&b, "showing %d–%d of %d:\n", off+1, off+len(page), len(lines))
	}
	for _, l := range page {
		data.Tags = append(data.Tags, TagTreeEntry{Tag: l.n.name, Notes: len(l.n.notes)})
		fmt.Fprintf(&b, "%s%s (%d)\n", strings.Repeat("  ", l.depth), l.n.name, len(l.n.notes))
	}
	if next := off + len(page); next < len(lines) {
		args := []arg{}
		if a.Tag != "" {
			args = append(args, arg{"tag", a.Tag})
		}
		args = append(args, arg{"offset", next})
		b.WriteString("next page: " + call{"list_tags", args}.render(caller.Door) + "\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// tagNode is a tag in the tree of list_tags.
type tagNode struct {
	name     string          // the first spelling seen
	notes    map[string]bool // the notes with this tag or one nested below it
	children map[string]*tagNode
}

// tagNotFound answers list_tags for a tag no note has: an empty result is
// an answer (AGENT-CONTRACT rule 6), with the closest tags to try.
func tagNotFound(caller Caller, a ListTagsArgs, root *tagNode) *Result {
	want := strings.ToLower(strings.Trim(strings.TrimPrefix(strings.TrimSpace(a.Tag), "#"), "/"))
	type scored struct {
		name string
		s    int
	}
	var all []scored
	var walk func(n *tagNode)
	walk = func(n *tagNode) {
		for _, k := range n.children {
			name := strings.ToLower(k.name)
			s := note.Distance(want, name)
			if strings.Contains(name, want) || strings.Contains(want, name) {
				s -= 5
			}
			all = append(all, scored{k.name, s})
			walk(k)
		}
	}
	walk(root)
	sort.Slice(all, func(i, j int) bool {
		if all[i].s != all[j].s {
			return all[i].s < all[j].s
		}
		return all[i].name < all[j].name
	})
	data := ListTagsData{Tag: a.Tag, Tags: []TagTreeEntry{}}
	var b strings.Builder
	fmt.Fprintf(&b, "no note has the tag #%s (nor a tag nested below it): 0 tags match.\n", want)
	if len(all) > 0 {
		var names []string
		for i := 0; i < len(all) && i < maxAlternatives; i++ {
			names = append(names, "#"+all[i].name)
		}
		b.WriteString("closest tags: " + strings.Join(names, ", ") + "\n")
		b.WriteString("next: " + call{"list_tags", []arg{{"tag", all[0].name}}}.render(caller.Door) + "\n")
	} else {
		b.WriteString("The vault has no tags at all.\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}
