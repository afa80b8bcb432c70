package rules

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

var bom = []byte("\uFEFF")

// splitFrontmatter splits a note into its YAML frontmatter and its body.
//
// The first line must be exactly "---" (after an optional UTF-8 BOM; a CRLF
// line ending is allowed); the frontmatter ends at the next line that is
// "---" or "..." followed by nothing but spaces or tabs. Without such a
// closing line the note has no frontmatter: ok is false and body is the whole
// note (without the BOM). This is the split package vault uses; it is repeated
// here because rules may not depend on vault's parser.
func splitFrontmatter(src []byte) (fm, body []byte, ok bool) {
	src = bytes.TrimPrefix(src, bom)
	line, rest, found := bytes.Cut(src, []byte("\n"))
	if !found || string(bytes.TrimSuffix(line, []byte("\r"))) != "---" {
		return nil, src, false
	}
	start := len(src) - len(rest)
	for pos := start; pos < len(src); {
		line, _, found := bytes.Cut(src[pos:], []byte("\n"))
		next := pos + len(line)
		if found {
			next++
		}
		switch string(bytes.TrimRight(line, " \t\r")) {
		case "---", "...":
			return src[start:pos], src[next:], true
		}
		pos = next
	}
	return nil, src, false
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
