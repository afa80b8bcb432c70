package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/unicode/norm"

	"github.com/vaultd/vaultd/note"
	"github.com/vaultd/vaultd/vault"
)

// Folder is the vault folder that holds the rules notes.
const Folder = "9_System"

// builtin is the protection no rules note can lift: agents never change the
// rules they are governed by.
var builtin = Rule{Value: Folder + "/**"}

var _ vault.Policy = (*Rules)(nil)

// Rules is what the notes under 9_System/ say: their guidance for agents and
// the policy vaultd enforces on every write.
//
// A nil *Rules behaves like a vault without rules notes: only the built-in
// protection of 9_System/ applies.
type Rules struct {
	// Notes are the rules notes in path order.
	Notes []Note
	// Protected lists the globs agents may read but not write: first the
	// built-in 9_System/** (Source ""), then those the notes declare, in
	// path order and in the order written. A glob declared twice is kept
	// once, with the note that declared it first.
	Protected []Rule
	// Inbox is the folder (vault-relative, no trailing slash) for new
	// notes whose path has no folder; "" if no note declares one.
	// InboxSource is the note that declared it.
	Inbox, InboxSource string
	// Attachments is the folder (vault-relative, no trailing slash) for
	// uploaded attachments when Obsidian's own setting
	// (attachmentFolderPath in .obsidian/app.json) is not set; "" if no note
	// declares one. AttachmentsSource is the note that declared it.
	Attachments, AttachmentsSource string
	// Required lists the frontmatter properties every new note must have,
	// in path order, each name once.
	Required []Rule
	// Problems are mistakes in the rules notes, one sentence each, naming
	// the note: invalid YAML, values of the wrong type, a second inbox.
	// They are for the vault owner (the CLI shows them); a note with a
	// problem still counts as far as it can be read.
	Problems []string
}

// Note is one rules note.
type Note struct {
	Path     string // vault-relative, NFC: "9_System/Regeln für Agenten.md"
	Title    string // frontmatter title, else the first H1, else the file name without .md
	Guidance string // the body text without frontmatter, trimmed
}

// Rule is one declared rule.
type Rule struct {
	Value  string // the glob or property name as written
	Source string // vault-relative path of the declaring note; "" for the built-in 9_System/**
}

// Load reads every rules note (every .md file, recursively, skipping hidden
// files and folders) under 9_System/ of fsys, an fs.FS rooted at the vault
// such as os.Root.FS(). A vault without 9_System/ has the defaults only.
// The folder name is matched like a protected path, ignoring case, so that
// every note the built-in rule protects is also read as a rules note.
//
// Mistakes in the notes are reported in Rules.Problems, never as an error.
// Load returns an error only when a file or folder cannot be read; a vault
// whose rules cannot all be read is not served with part of its rules. The
// error names vault-relative paths only.
func Load(fsys fs.FS) (*Rules, error) {
	top, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("rules: cannot list the vault folder: %w", cause(err))
	}
	var files []string
	for _, e := range top {
		if !e.IsDir() || fold(e.Name()) != fold(Folder) {
			continue
		}
		err := fs.WalkDir(fsys, e.Name(), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("rules: cannot read %s: %w", norm.NFC.String(p), cause(err))
			}
			if p != e.Name() && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if !d.IsDir() && strings.EqualFold(path.Ext(p), ".md") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	// Path order is the byte order of the NFC paths, not the walk order:
	// a walk visits 9_System/A/ before 9_System/A.md.
	sort.Slice(files, func(i, j int) bool {
		return norm.NFC.String(files[i]) < norm.NFC.String(files[j])
	})

	r := &Rules{Protected: []Rule{builtin}}
	seen := map[string]bool{key(builtin.Value): true}
	for _, f := range files {
		src, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("rules: cannot read %s: %w", norm.NFC.String(f), cause(err))
		}
		r.add(norm.NFC.String(f), src, seen)
	}
	if r.Inbox != "" {
		if rule, ok := r.Protects(r.Inbox + "/Neue Notiz.md"); ok {
			r.problemf(r.InboxSource, "inbox %q lies under protected %q%s, so new notes placed there will be refused",
				r.Inbox, rule.Value, fromSource(rule.Source))
		}
	}
	return r, nil
}

// cause strips the path from an fs.PathError: its path may be a host path.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// key is the form in which two globs count as the same.
func key(glob string) string {
	segs, _ := splitPattern(glob)
	return strings.Join(segs, "/")
}

// add reads one rules note at path p. seen holds the keys of the protected
// globs so far.
func (r *Rules) add(p string, src []byte, seen map[string]bool) {
	fm, body, ok := splitFrontmatter(src)
	n := Note{Path: p, Guidance: strings.TrimSpace(string(body))}
	var props *yaml.Node
	if ok {
		var err error
		props, err = parseFrontmatter(fm)
		if err != nil {
			r.problemf(p, "the frontmatter %s, so its rules are ignored", describeFrontmatterErr(err))
		}
	}
	properties(props, func(k string, v *yaml.Node) {
		switch k {
		case "title":
			if v.Kind == yaml.ScalarNode && !isNull(v) {
				n.Title = strings.TrimSpace(v.Value)
			}
		case "protected":
			for _, g := range r.stringList(p, k, v) {
				if _, ok := splitPattern(g); !ok {
					r.problemf(p, "protected %q is not a path inside the vault, so it is ignored", g)
					continue
				}
				if !seen[key(g)] {
					seen[key(g)] = true
					r.Protected = append(r.Protected, Rule{Value: g, Source: p})
				}
			}
		case "required_properties":
			for _, name := range r.stringList(p, k, v) {
				if !r.requires(name) {
					r.Required = append(r.Required, Rule{Value: name, Source: p})
				}
			}
		case "inbox":
			r.setInbox(p, v)
		case "attachments":
			r.setAttachments(p, v)
		}
	})
	if n.Title == "" {
		n.Title = firstH1(body)
	}
	if n.Title == "" {
		n.Title = stem(p)
	}
	r.Notes = append(r.Notes, n)
}

// stringList reads a value that may be a single string or a list of strings.
// Empty entries and entries that are not strings are reported and skipped.
func (r *Rules) stringList(note, k string, v *yaml.Node) []string {
	var items []*yaml.Node
	switch v.Kind {
	case yaml.ScalarNode:
		items = []*yaml.Node{v}
	case yaml.SequenceNode:
		items = v.Content
	default:
		r.problemf(note, "%s must be a list or a single value, not %s, so it is ignored", k, kindName(v))
		return nil
	}
	var out []string
	for _, it := range items {
		it = resolve(it)
		if it.Kind != yaml.ScalarNode {
			r.problemf(note, "%s has an entry that is %s, not a single value, so that entry is ignored", k, kindName(it))
			continue
		}
		s := strings.TrimSpace(it.Value)
		if isNull(it) || s == "" {
			if v.Kind == yaml.SequenceNode {
				r.problemf(note, "%s has an empty entry (line %d), so that entry is ignored", k, it.Line+1)
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

func (r *Rules) requires(name string) bool {
	for _, q := range r.Required {
		if q.Value == name {
			return true
		}
	}
	return false
}

// setInbox takes the inbox a note declares. The first note in path order
// wins; a different inbox in a later note is reported.
func (r *Rules) setInbox(note string, v *yaml.Node) {
	r.setFolder(note, "inbox", v, &r.Inbox, &r.InboxSource)
}

// setAttachments takes the attachment folder a note declares, like the
// inbox: the first note in path order wins; a different folder in a later
// note is reported.
func (r *Rules) setAttachments(note string, v *yaml.Node) {
	r.setFolder(note, "attachments", v, &r.Attachments, &r.AttachmentsSource)
}

// setFolder reads a one-folder setting (inbox, attachments) into *dst and
// its declaring note into *src, unless an earlier note set it already.
func (r *Rules) setFolder(note, key string, v *yaml.Node, dst, src *string) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.ScalarNode {
		r.problemf(note, "%s must be one folder name, not %s, so it is ignored", key, kindName(v))
		return
	}
	raw := strings.TrimSpace(v.Value)
	dir := strings.Trim(strings.ReplaceAll(raw, `\`, "/"), "/")
	if dir != "" {
		dir = path.Clean(dir)
	}
	if dir == "" || dir == "." || !fs.ValidPath(dir) {
		r.problemf(note, "%s %q is not a folder inside the vault, so it is ignored", key, raw)
		return
	}
	switch {
	case *dst == "":
		*dst, *src = dir, note
	case fold(dir) != fold(*dst):
		r.problemf(note, "%s %q conflicts with %s %q from %s, so %q is used", key, raw, key, *dst, *src, *dst)
	}
}

func (r *Rules) problemf(note, format string, args ...any) {
	r.Problems = append(r.Problems, note+": "+fmt.Sprintf(format, args...))
}

// fromSource names where a rule comes from, for a message.
func fromSource(source string) string {
	if source == "" {
		return " (built in)"
	}
	return " from " + source
}

// firstH1 returns the text of the first level-1 heading of a markdown body,
// as vault's parser reads it, or "".
func firstH1(body []byte) string {
	for _, h := range note.Parse(body).Headings {
		if h.Level == 1 {
			return h.Text
		}
	}
	return ""
}

// Protects reports whether agents may not write the vault-relative path
// name, and the first rule that says so: the built-in 9_System/** before any
// declared rule, declared rules in the order of Protected. See Match for how
// globs are applied.
func (r *Rules) Protects(name string) (Rule, bool) {
	if Match(builtin.Value, name) {
		return builtin, true
	}
	if r == nil {
		return Rule{}, false
	}
	for _, rule := range r.Protected {
		if Match(rule.Value, name) {
			return rule, true
		}
	}
	return Rule{}, false
}

// CheckWrite judges a write before vault performs it. It returns nil when
// the rules allow it, and otherwise a *vault.Error of kind vault.ErrDenied
// with Op and Path from c, Rule set to the rule as written and RuleSource to
// the note declaring it ("" for the built-in rule):
//
//   - Any write to a protected path (every Op, including delete, restore
//     and both ends of a move; vault checks each note a folder operation
//     touches).
//   - Creating a new note (c.New, any Op but restore and move, path ending
//     in .md) whose frontmatter lacks a required property, or that has no
//     frontmatter, or whose frontmatter is not valid YAML. Rule is then
//     "required_properties" and Alternatives (AltKind "properties") lists
//     the missing names. A property counts as present when its key is,
//     whatever its value; names are compared exactly.
func (r *Rules) CheckWrite(c vault.WriteCheck) error {
	if rule, ok := r.Protects(c.Path); ok {
		var why string
		if rule.Source == "" {
			why = fmt.Sprintf("rule %q (built in: the vault's rules are read-only for agents)", rule.Value)
		} else {
			why = fmt.Sprintf("rule %q in %s says agents may read but not change it", rule.Value, rule.Source)
		}
		return &note.Error{
			Op: c.Op, Path: c.Path, Kind: vault.ErrDenied,
			Msg:  c.Path + " is protected: " + why,
			Rule: rule.Value, RuleSource: rule.Source,
		}
	}
	if r == nil || len(r.Required) == 0 || !c.New || c.Op == "restore" || c.Op == "move" ||
		!strings.EqualFold(path.Ext(c.Path), ".md") {
		return nil
	}
	return r.checkRequired(c)
}

// checkRequired checks the frontmatter of a new note for the required
// properties.
func (r *Rules) checkRequired(c vault.WriteCheck) error {
	fm, _, hasFM := splitFrontmatter(c.Content)
	var (
		props   *yaml.Node
		yamlErr error
	)
	if hasFM {
		props, yamlErr = parseFrontmatter(fm)
	}
	have := map[string]bool{}
	properties(props, func(k string, _ *yaml.Node) { have[k] = true })
	var missing []Rule
	for _, q := range r.Required {
		if yamlErr != nil || !have[q.Value] {
			missing = append(missing, q)
		}
	}
	if len(missing) == 0 {
		return nil
	}

	var names, sources []string
	var example strings.Builder
	for _, q := range missing {
		names = append(names, q.Value)
		if len(sources) == 0 || sources[len(sources)-1] != q.Source {
			sources = append(sources, q.Source)
		}
		fmt.Fprintf(&example, "\n%s: [...]", q.Value)
	}
	noun, pron := "property", "it"
	if len(missing) > 1 {
		noun, pron = "properties", "them"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "new notes need the %s %s (rule %q in %s); ",
		noun, strings.Join(names, ", "), "required_properties", strings.Join(sources, " and "))
	switch {
	case yamlErr != nil:
		fmt.Fprintf(&b, "the note's frontmatter %s; fix it and include:%s", describeFrontmatterErr(yamlErr), example.String())
	case hasFM:
		fmt.Fprintf(&b, "add %s to the note's frontmatter:%s", pron, example.String())
	default:
		fmt.Fprintf(&b, "add %s as frontmatter at the top of the note:\n---%s\n---", pron, example.String())
	}
	return &note.Error{
		Op: c.Op, Path: c.Path, Kind: vault.ErrDenied,
		Msg:  b.String(),
		Rule: "required_properties", RuleSource: missing[0].Source,
		Alternatives: names, AltKind: "properties",
	}
}

// PlaceNew applies the inbox rule: a path without a folder ("Notiz.md")
// becomes "<inbox>/Notiz.md". Paths with a folder, and every path when no
// note declares an inbox, are returned unchanged.
func (r *Rules) PlaceNew(p string) string {
	if r == nil || r.Inbox == "" || p == "" || strings.Contains(p, "/") {
		return p
	}
	return r.Inbox + "/" + p
}
