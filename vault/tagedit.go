package vault

import (
	"fmt"
	"strings"

	"github.com/vaultd/vaultd/note"
)

// AddTags adds tags to the note's frontmatter property "tags" (or "tag"
// when only that exists), keeping its style: a block list gets new
// "  - tag" lines, an inline list [a, b] gets ", tag" before its "]", a
// string gets ", tag" (or " tag" when it separates by spaces). A note
// without the property gets a block list, and one without frontmatter gets
// frontmatter. Tags are given with or without '#', compared ignoring case;
// one already there is left alone. #tags in the text are not changed; the
// ones matching are reported in TagEdit.Inline.
//
// Errors (*Error, Op "add_tags"): ErrInvalid (empty summary, no tags, a
// tag Obsidian would not accept — with spaces, or only digits —, invalid
// frontmatter YAML naming its line, a tags property that is not a list or
// text); ErrInvalidPath; ErrNotFound; ErrDenied.
func (v *Vault) AddTags(p string, tags []string, o WriteOpts) (*Result, *note.TagEdit, error) {
	return v.editTags("add_tags", p, tags, nil, o)
}

// RemoveTags removes tags from the note's frontmatter property, keeping its
// style; when no tag is left the property goes (and the frontmatter, when
// nothing else is in it). #tags in the text stay and are reported in
// TagEdit.Inline. Errors as AddTags, Op "remove_tags".
func (v *Vault) RemoveTags(p string, tags []string, o WriteOpts) (*Result, *note.TagEdit, error) {
	return v.editTags("remove_tags", p, nil, tags, o)
}

func (v *Vault) editTags(op, p string, add, remove []string, o WriteOpts) (*Result, *note.TagEdit, error) {
	names, err := note.CleanTags(append(append([]string{}, add...), remove...))
	if err != nil {
		c, _ := note.NotePath(p)
		return nil, nil, withOp(err, op, c)
	}
	var te *note.TagEdit
	res, err := v.edit(op, p, o, func(cur []byte) ([]byte, string, error) {
		var next []byte
		var err error
		if add != nil {
			next, te, err = note.EditTags(cur, names, nil)
		} else {
			next, te, err = note.EditTags(cur, nil, names)
		}
		if err != nil {
			return nil, "", err
		}
		return next, tagDetail(te), nil
	})
	return res, te, err
}

func tagDetail(te *note.TagEdit) string {
	list := func(tags []string) string {
		out := make([]string, len(tags))
		for i, t := range tags {
			out[i] = "#" + t
		}
		return strings.Join(out, ", ")
	}
	var parts []string
	if len(te.Added) > 0 {
		parts = append(parts, fmt.Sprintf("%s added to the frontmatter property %s (%s)", list(te.Added), te.Key, te.Style))
	}
	if len(te.Removed) > 0 {
		parts = append(parts, fmt.Sprintf("%s removed from the frontmatter property %s (%s)", list(te.Removed), te.Key, te.Style))
	}
	if len(te.Present) > 0 {
		parts = append(parts, fmt.Sprintf("%s already in the frontmatter", list(te.Present)))
	}
	if len(te.Missing) > 0 {
		parts = append(parts, fmt.Sprintf("%s not in the frontmatter", list(te.Missing)))
	}
	if te.Dropped {
		parts = append(parts, "no tags were left, so the property was removed")
	}
	return strings.Join(parts, "; ")
}
