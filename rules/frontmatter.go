package rules

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/vaultd/vaultd/note"
)

// splitFrontmatter splits a note into its YAML frontmatter and its body,
// exactly as package vault does (vault.SplitFrontmatter), so that the rules
// and the notes never disagree about where a note's frontmatter ends.
// Without frontmatter ok is false and body is the whole note without a BOM.
func splitFrontmatter(src []byte) (fm, body []byte, ok bool) {
	y, _, bodyStart, ok := note.SplitFrontmatter(src)
	if !ok {
		return nil, bytes.TrimPrefix(src, []byte("\uFEFF")), false
	}
	return y, src[bodyStart:], true
}

// parseFrontmatter decodes frontmatter YAML into its top-level mapping. It
// returns nil and no error for empty frontmatter, and an error when the YAML
// is invalid or is not a mapping of properties.
func parseFrontmatter(fm []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(fm, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	n := resolve(doc.Content[0])
	switch {
	case n.Kind == yaml.MappingNode:
		return n, nil
	case isNull(n):
		return nil, nil
	}
	return nil, notProperties{kindName(n)}
}

// notProperties is the error for frontmatter that is valid YAML but not a
// mapping, such as a list.
type notProperties struct{ kind string }

func (e notProperties) Error() string {
	return e.kind + ", not properties (key: value lines)"
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// describeFrontmatterErr completes "the frontmatter …" for an error of
// parseFrontmatter. yaml.v3 counts lines from the start of the YAML; the
// owner and the agent count from the top of the note, one line earlier.
func describeFrontmatterErr(err error) string {
	if e, ok := err.(notProperties); ok {
		return "is " + e.Error()
	}
	msg := yamlLine.ReplaceAllStringFunc(err.Error(), func(m string) string {
		n, _ := strconv.Atoi(yamlLine.FindStringSubmatch(m)[1])
		return fmt.Sprintf("line %d: ", n+1)
	})
	return "is not valid YAML (" + msg + ")"
}

// properties calls fn for each key of a mapping node with its value.
func properties(m *yaml.Node, fn func(key string, value *yaml.Node)) {
	if m == nil {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		fn(resolve(m.Content[i]).Value, resolve(m.Content[i+1]))
	}
}

// resolve follows a YAML alias to the node it stands for.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// kindName names a YAML node kind for a problem report.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return "a single value"
	}
	return "a value"
}
