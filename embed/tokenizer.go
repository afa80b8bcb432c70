package embed

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The subset of Hugging Face's tokenizer.json that model2vec models use:
//
//	normalizer     BertNormalizer (lower case, strip accents), Lowercase,
//	               NFC/NFD/NFKC/NFKD, StripAccents, or a Sequence of them
//	pre_tokenizer  BertPreTokenizer (white space, each punctuation mark
//	               apart), Whitespace, WhitespaceSplit, Metaspace (words
//	               prefixed with ▁), or a Sequence of them
//	model          WordPiece (longest match first, "##" continuations) or
//	               Unigram (the most likely split, Viterbi)
//
// Special tokens are not added (model2vec encodes without them); unknown
// pieces are dropped.
type tokenizer struct {
	lower, stripAccents bool
	form                norm.Form
	hasForm             bool
	pre                 []string // pre-tokenizer kinds, in order
	metaspace           string   // the Metaspace replacement, "▁"

	// WordPiece
	vocab    map[string]int
	prefix   string
	maxChars int
	// Unigram
	pieces   map[string]piece
	maxPiece int // longest piece in bytes
	unk      int // -1: none
}

type piece struct {
	id    int
	score float64
}

func (t *tokenizer) size() int {
	if t.vocab != nil {
		return len(t.vocab)
	}
	return len(t.pieces)
}

type tokJSON struct {
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Model        struct {
		Type                    string          `json:"type"`
		Vocab                   json.RawMessage `json:"vocab"`
		UnkToken                string          `json:"unk_token"`
		UnkID                   *int            `json:"unk_id"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int             `json:"max_input_chars_per_word"`
	} `json:"model"`
}

type stepJSON struct {
	Type          string     `json:"type"`
	Lowercase     *bool      `json:"lowercase"`
	StripAccents  *bool      `json:"strip_accents"`
	Replacement   string     `json:"replacement"`
	Normalizers   []stepJSON `json:"normalizers"`
	PreTokenizers []stepJSON `json:"pretokenizers"`
}

func parseTokenizer(b []byte) (*tokenizer, error) {
	var tj tokJSON
	if err := json.Unmarshal(b, &tj); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	t := &tokenizer{unk: -1, metaspace: "▁"}
	if len(tj.Normalizer) > 0 && string(tj.Normalizer) != "null" {
		var n stepJSON
		if err := json.Unmarshal(tj.Normalizer, &n); err != nil {
			return nil, fmt.Errorf("normalizer: %v", err)
		}
		if err := t.addNormalizer(n); err != nil {
			return nil, err
		}
	}
	if len(tj.PreTokenizer) > 0 && string(tj.PreTokenizer) != "null" {
		var p stepJSON
		if err := json.Unmarshal(tj.PreTokenizer, &p); err != nil {
			return nil, fmt.Errorf("pre_tokenizer: %v", err)
		}
		if err := t.addPre(p); err != nil {
			return nil, err
		}
	}
	if len(t.pre) == 0 {
		t.pre = []string{"WhitespaceSplit"}
	}
	switch tj.Model.Type {
	case "WordPiece", "":
		if err := json.Unmarshal(tj.Model.Vocab, &t.vocab); err != nil || len(t.vocab) == 0 {
			return nil, fmt.Errorf("the WordPiece model has no vocab of token → id")
		}
		t.prefix = "##"
		if tj.Model.ContinuingSubwordPrefix != nil {
			t.prefix = *tj.Model.ContinuingSubwordPrefix
		}
		t.maxChars = tj.Model.MaxInputCharsPerWord
		if t.maxChars <= 0 {
			t.maxChars = 100
		}
		if id, ok := t.vocab[tj.Model.UnkToken]; ok {
			t.unk = id
		}
	case "Unigram":
		var list [][2]any
		if err := json.Unmarshal(tj.Model.Vocab, &list); err != nil || len(list) == 0 {
			return nil, fmt.Errorf("the Unigram model has no vocab of [piece, score] pairs")
		}
		t.pieces = make(map[string]piece, len(list))
		for i, e := range list {
			s, ok1 := e[0].(string)
			sc, ok2 := e[1].(float64)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("Unigram vocab entry %d is not [piece, score]", i)
			}
			if _, dup := t.pieces[s]; !dup {
				t.pieces[s] = piece{i, sc}
			}
			t.maxPiece = max(t.maxPiece, len(s))
		}
		if tj.Model.UnkID != nil {
			t.unk = *tj.Model.UnkID
		}
	default:
		return nil, fmt.Errorf("the tokenizer model is %s; vaultd reads WordPiece and Unigram", tj.Model.Type)
	}
	return t, nil
}

func (t *tokenizer) addNormalizer(n stepJSON) error {
	switch n.Type {
	case "BertNormalizer":
		lower := n.Lowercase == nil || *n.Lowercase
		t.lower = t.lower || lower
		if n.StripAccents != nil {
			t.stripAccents = t.stripAccents || *n.StripAccents
		} else {
			t.stripAccents = t.stripAccents || lower // BERT: follows lowercase
		}
	case "Lowercase":
		t.lower = true
	case "StripAccents":
		t.stripAccents = true
	case "NFC", "NFD", "NFKC", "NFKD":
		t.form, t.hasForm = map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}[n.Type], true
	case "Sequence":
		for _, m := range n.Normalizers {
			if err := t.addNormalizer(m); err != nil {
				return err
			}
		}
	case "Strip", "Replace", "Prepend", "Precompiled":
		// Precompiled is SentencePiece's NFKC-like table; NFKC stands in.
		if n.Type == "Precompiled" {
			t.form, t.hasForm = norm.NFKC, true
		}
	default:
		return fmt.Errorf("the normalizer %s is not supported", n.Type)
	}
	return nil
}

func (t *tokenizer) addPre(p stepJSON) error {
	switch p.Type {
	case "BertPreTokenizer", "Whitespace", "WhitespaceSplit", "Punctuation":
		t.pre = append(t.pre, p.Type)
	case "Metaspace":
		t.pre = append(t.pre, p.Type)
		if p.Replacement != "" {
			t.metaspace = p.Replacement
		}
	case "Sequence":
		for _, q := range p.PreTokenizers {
			if err := t.addPre(q); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("the pre-tokenizer %s is not supported", p.Type)
	}
	return nil
}

// encode calls fn with the id of each token of text.
func (t *tokenizer) encode(text string, fn func(id int)) {
	text = t.normalize(text)
	for _, w := range t.words(text) {
		if t.vocab != nil {
			t.wordPiece(w, fn)
		} else {
			t.unigram(w, fn)
		}
	}
}

func (t *tokenizer) normalize(s string) string {
	if t.hasForm {
		s = t.form.String(s)
	}
	if t.lower {
		s = strings.ToLower(s)
	}
	if t.stripAccents {
		s = norm.NFD.String(s)
		s = strings.Map(func(r rune) rune {
			if unicode.Is(unicode.Mn, r) {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// words splits text by the pre-tokenizers.
func (t *tokenizer) words(text string) []string {
	ws := []string{text}
	for _, p := range t.pre {
		var next []string
		for _, w := range ws {
			switch p {
			case "WhitespaceSplit":
				next = append(next, strings.Fields(w)...)
			case "Metaspace":
				for _, f := range strings.Fields(w) {
					next = append(next, t.metaspace+f)
				}
			default: // Bert, Whitespace, Punctuation: punctuation marks apart
				next = append(next, splitPunct(w)...)
			}
		}
		ws = next
	}
	return ws
}

// splitPunct splits at white space and puts each punctuation mark (and
// symbol) in a word of its own.
func splitPunct(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		switch {
		case unicode.IsSpace(r):
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			out = append(out, string(r))
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// wordPiece splits a word into the longest pieces of the vocab, first
// from its start; a word that cannot be split is unknown.
func (t *tokenizer) wordPiece(w string, fn func(int)) {
	if utf8.RuneCountInString(w) > t.maxChars {
		return
	}
	var ids []int
	for start := 0; start < len(w); {
		end, id := len(w), -1
		for end > start {
			sub := w[start:end]
			if start > 0 {
				sub = t.prefix + sub
			}
			if v, ok := t.vocab[sub]; ok {
				id = v
				break
			}
			_, size := utf8.DecodeLastRuneInString(w[start:end])
			end -= size
		}
		if id < 0 {
			return // unknown word: model2vec drops [UNK]
		}
		ids = append(ids, id)
		start = end
	}
	for _, id := range ids {
		fn(id)
	}
}

// unigram splits a word into the pieces whose scores (log probabilities)
// sum highest; a character no piece covers is unknown and dropped.
func (t *tokenizer) unigram(w string, fn func(int)) {
	n := len(w)
	best := make([]float64, n+1)
	from := make([]int, n+1)
	ids := make([]int, n+1)
	for i := 1; i <= n; i++ {
		best[i] = math.Inf(-1)
	}
	const unkScore = -100 // below any piece
	for i := 0; i < n; i++ {
		if math.IsInf(best[i], -1) || !utf8.RuneStart(w[i]) {
			continue
		}
		_, size := utf8.DecodeRuneInString(w[i:])
		// An unknown character, so that every word has a split.
		if s := best[i] + unkScore; s > best[i+size] {
			best[i+size], from[i+size], ids[i+size] = s, i, -1
		}
		for j := i + 1; j <= min(n, i+t.maxPiece); j++ {
			if p, ok := t.pieces[w[i:j]]; ok {
				if s := best[i] + p.score; s > best[j] {
					best[j], from[j], ids[j] = s, i, p.id
				}
			}
		}
	}
	var out []int
	for j := n; j > 0; j = from[j] {
		out = append(out, ids[j])
	}
	for k := len(out) - 1; k >= 0; k-- {
		if out[k] >= 0 && out[k] != t.unk {
			fn(out[k])
		}
	}
}
