package trial

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Question is one question of a trial, and optionally what proves that it
// was answered from the vault.
type Question struct {
	// Question is what the user asks, as they would ask it.
	Question string `yaml:"question" json:"question"`
	// Note is the note that holds the answer: a path, or a name read_note
	// takes (title, alias, file name), resolved before the run.
	Note string `yaml:"note,omitempty" json:"note,omitempty"`
	// Phrase is words of the answer, as the note has them (case and
	// spacing do not count).
	Phrase string `yaml:"phrase,omitempty" json:"phrase,omitempty"`
}

// HasProof reports whether the question names a proof: a note, a phrase
// or both.
func (q Question) HasProof() bool { return q.Note != "" || q.Phrase != "" }

// ParseQuestions reads a questions file: a YAML or JSON list of objects
// with "question" and optionally "note" and "phrase",
//
//	# questions.yaml
//	- question: Wann ist der Launch der neuen Website geplant?
//	  note: 1_Projekte/Website-Relaunch.md
//	  phrase: 2026-12-08 Launch
//
// or an object whose "questions" is such a list. An unknown key, an empty
// question or an empty list is an error naming the question.
func ParseQuestions(b []byte) ([]Question, error) {
	var qs []Question
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		return nil, errors.New("the questions file is empty; it takes a list of {question, note, phrase}")
	}
	var wrapped struct {
		Questions []Question `yaml:"questions"`
	}
	var doc yaml.Node
	err := yaml.Unmarshal(trimmed, &doc)
	if err == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.SequenceNode {
		err = decodeStrict(trimmed, &qs)
	} else if err == nil {
		err = decodeStrict(trimmed, &wrapped)
		qs = wrapped.Questions
	}
	if err != nil {
		return nil, fmt.Errorf("the questions file is not a list of {question, note, phrase}: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(qs) == 0 {
		return nil, errors.New("the questions file lists no questions")
	}
	for i := range qs {
		q := &qs[i]
		q.Question = strings.TrimSpace(q.Question)
		q.Note = strings.TrimSpace(q.Note)
		q.Phrase = strings.TrimSpace(q.Phrase)
		if q.Question == "" {
			return nil, fmt.Errorf("question %d has no question text", i+1)
		}
	}
	return qs, nil
}

// decodeStrict decodes YAML (JSON is YAML) refusing keys the target does
// not have, so that a misspelt "phrse" is not silently dropped.
func decodeStrict(b []byte, into any) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(into); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}
