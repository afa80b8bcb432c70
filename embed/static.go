package embed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// Static embeddings in the model2vec format: a folder with
//
//	model.safetensors  the table "embeddings" [vocab, dim] (F32, F16, BF16
//	                   or F64), optionally "weights" [vocab'] (a weight per
//	                   token) and "mapping" [vocab] (token id → row)
//	tokenizer.json     a Hugging Face tokenizer: WordPiece or Unigram
//	config.json        optional; "normalize": false keeps vector lengths
//
// A text's vector is the mean of its tokens' rows (each times its weight,
// when the model has weights), scaled to unit length: what model2vec's
// encode does. There is no network and no attention, so a section costs
// a tokenization and a few hundred additions.

// Static is a loaded model2vec model. It is safe for concurrent use.
type Static struct {
	id        string
	dim       int
	table     []float32 // rows × dim
	weights   []float32 // per row; nil: 1
	mapping   []int32   // token id → row; nil: the id
	tok       *tokenizer
	normalize bool
}

var _ Embedder = (*Static)(nil)

// Files of a model2vec folder.
const (
	modelFile     = "model.safetensors"
	tokenizerFile = "tokenizer.json"
	configFile    = "config.json"
)

// LoadStatic loads the model2vec model in dir. Errors name the file and
// what is wrong with it.
func LoadStatic(dir string) (*Static, error) {
	if dir == "" {
		return nil, fmt.Errorf("%w: the static embedder needs the folder of a model2vec model", ErrConfig)
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: the static model folder %s does not exist; download a model2vec model (e.g. minishlab/potion-multilingual-128M) into it", ErrConfig, dir)
	}
	tensors, header, err := readSafetensors(filepath.Join(dir, modelFile))
	if err != nil {
		return nil, err
	}
	emb, ok := tensors["embeddings"]
	if !ok {
		for _, t := range tensors {
			if len(t.shape) == 2 && !ok {
				emb, ok = t, true
			}
		}
	}
	if !ok || len(emb.shape) != 2 || emb.shape[0] <= 0 || emb.shape[1] <= 0 {
		return nil, fmt.Errorf("%w: %s has no 2-dimensional \"embeddings\" table", ErrConfig, filepath.Join(dir, modelFile))
	}
	s := &Static{dim: emb.shape[1], table: emb.f32, normalize: true}
	if w, ok := tensors["weights"]; ok {
		if len(w.f32) != emb.shape[0] {
			return nil, fmt.Errorf("%w: %s: \"weights\" has %d entries for %d rows", ErrConfig, modelFile, len(w.f32), emb.shape[0])
		}
		s.weights = w.f32
	}
	if m, ok := tensors["mapping"]; ok {
		s.mapping = make([]int32, len(m.f32))
		for i, x := range m.f32 {
			if r := int(x); r < 0 || r >= emb.shape[0] {
				return nil, fmt.Errorf("%w: %s: \"mapping\" points past the table", ErrConfig, modelFile)
			}
			s.mapping[i] = int32(x)
		}
	}
	tb, err := os.ReadFile(filepath.Join(dir, tokenizerFile))
	if err != nil {
		return nil, fmt.Errorf("%w: the model folder has no %s: %v", ErrConfig, tokenizerFile, err)
	}
	if s.tok, err = parseTokenizer(tb); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrConfig, filepath.Join(dir, tokenizerFile), err)
	}
	rows := emb.shape[0]
	if s.mapping != nil {
		rows = len(s.mapping)
	}
	if n := s.tok.size(); n > rows {
		return nil, fmt.Errorf("%w: the tokenizer has %d tokens but the table %d rows: the files are of different models", ErrConfig, n, rows)
	}
	if cb, err := os.ReadFile(filepath.Join(dir, configFile)); err == nil {
		var cfg struct {
			Normalize *bool `json:"normalize"`
		}
		if json.Unmarshal(cb, &cfg) == nil && cfg.Normalize != nil {
			s.normalize = *cfg.Normalize
		}
	}
	h := sha256.New()
	h.Write(header)
	h.Write(tb)
	s.id = fmt.Sprintf("static:%s@%s", filepath.Base(filepath.Clean(dir)), hex.EncodeToString(h.Sum(nil))[:12])
	return s, nil
}

func (s *Static) Dim() int   { return s.dim }
func (s *Static) ID() string { return s.id }

// Embed returns one unit vector per text (zero for a text with no known
// token). It never fails but for a cancelled ctx.
func (s *Static) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = s.embed(t)
	}
	return out, nil
}

func (s *Static) embed(text string) []float32 {
	v := make([]float32, s.dim)
	var n float32
	s.tok.encode(text, func(id int) {
		row := id
		if s.mapping != nil {
			if id >= len(s.mapping) {
				return
			}
			row = int(s.mapping[id])
		}
		if row*s.dim >= len(s.table) {
			return
		}
		w := float32(1)
		if s.weights != nil {
			w = s.weights[row]
		}
		r := s.table[row*s.dim : (row+1)*s.dim]
		for j, x := range r {
			v[j] += w * x
		}
		n += w
	})
	if n == 0 {
		return v
	}
	for j := range v {
		v[j] /= n
	}
	if s.normalize {
		Normalize(v)
	}
	return v
}

// tensor is one tensor of a safetensors file, as float32.
type tensor struct {
	shape []int
	f32   []float32
}

// maxHeader bounds a safetensors header (the format's own limit is 100 MB).
const maxHeader = 100 << 20

// readSafetensors reads every tensor of a safetensors file: an 8-byte
// little-endian header length, a JSON header of name → {dtype, shape,
// data_offsets}, then the data. It returns the tensors and the header's
// bytes.
func readSafetensors(p string) (map[string]tensor, []byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: the model folder has no %s: %v", ErrConfig, modelFile, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s is no safetensors file: %s", ErrConfig, p, fmt.Sprintf(format, a...))
	}
	var n uint64
	if err := binary.Read(f, binary.LittleEndian, &n); err != nil {
		return nil, nil, bad("it is shorter than its header")
	}
	if n == 0 || n > maxHeader || int64(n)+8 > fi.Size() {
		return nil, nil, bad("its header length %d does not fit the file", n)
	}
	header := make([]byte, n)
	if _, err := io.ReadFull(f, header); err != nil {
		return nil, nil, bad("its header is cut off")
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(header, &entries); err != nil {
		return nil, nil, bad("its header is not JSON")
	}
	data := fi.Size() - 8 - int64(n)
	names := make([]string, 0, len(entries))
	for k := range entries {
		if k != "__metadata__" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	out := map[string]tensor{}
	for _, name := range names {
		var e struct {
			Dtype   string  `json:"dtype"`
			Shape   []int   `json:"shape"`
			Offsets []int64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(entries[name], &e); err != nil || len(e.Offsets) != 2 {
			return nil, nil, bad("tensor %q has no dtype, shape and data_offsets", name)
		}
		size, ok := dtypeSize[e.Dtype]
		if !ok {
			if name == "embeddings" {
				return nil, nil, fmt.Errorf("%w: %s: the embeddings are %s; vaultd reads F32, F16, BF16, F64, I64 and I32 tables", ErrConfig, p, e.Dtype)
			}
			continue
		}
		count := int64(1)
		for _, d := range e.Shape {
			if d < 0 {
				return nil, nil, bad("tensor %q has a negative dimension", name)
			}
			count *= int64(d)
		}
		lo, hi := e.Offsets[0], e.Offsets[1]
		if lo < 0 || hi < lo || hi > data || hi-lo != count*int64(size) {
			return nil, nil, bad("tensor %q's data (%d–%d) does not fit its shape %v or the file", name, lo, hi, e.Shape)
		}
		raw := make([]byte, hi-lo)
		if _, err := f.ReadAt(raw, 8+int64(n)+lo); err != nil {
			return nil, nil, bad("tensor %q cannot be read: %v", name, err)
		}
		out[name] = tensor{shape: e.Shape, f32: decode(e.Dtype, raw)}
	}
	return out, header, nil
}

var dtypeSize = map[string]int{"F32": 4, "F16": 2, "BF16": 2, "F64": 8, "I64": 8, "I32": 4}

func decode(dtype string, raw []byte) []float32 {
	size := dtypeSize[dtype]
	out := make([]float32, len(raw)/size)
	le := binary.LittleEndian
	for i := range out {
		b := raw[i*size:]
		switch dtype {
		case "F32":
			out[i] = math.Float32frombits(le.Uint32(b))
		case "F16":
			out[i] = f16(le.Uint16(b))
		case "BF16":
			out[i] = math.Float32frombits(uint32(le.Uint16(b)) << 16)
		case "F64":
			out[i] = float32(math.Float64frombits(le.Uint64(b)))
		case "I64":
			out[i] = float32(int64(le.Uint64(b)))
		case "I32":
			out[i] = float32(int32(le.Uint32(b)))
		}
	}
	return out
}

// f16 converts an IEEE 754 half-precision number.
func f16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		v := float32(frac) / 1024 * float32(math.Pow(2, -14))
		if sign != 0 {
			return -v
		}
		return v
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// WriteSafetensors writes tensors (F32) in the safetensors format: for
// tests and tools that make a model.
func WriteSafetensors(w io.Writer, tensors map[string][]float32, shapes map[string][]int) error {
	names := make([]string, 0, len(tensors))
	for k := range tensors {
		names = append(names, k)
	}
	sort.Strings(names)
	header := map[string]any{}
	off := int64(0)
	for _, k := range names {
		n := int64(len(tensors[k])) * 4
		header[k] = map[string]any{"dtype": "F32", "shape": shapes[k], "data_offsets": []int64{off, off + n}}
		off += n
	}
	hb, err := json.Marshal(header)
	if err != nil {
		return err
	}
	for len(hb)%8 != 0 {
		hb = append(hb, ' ')
	}
	if err := binary.Write(w, binary.LittleEndian, uint64(len(hb))); err != nil {
		return err
	}
	if _, err := w.Write(hb); err != nil {
		return err
	}
	for _, k := range names {
		if err := binary.Write(w, binary.LittleEndian, tensors[k]); err != nil {
			return err
		}
	}
	return nil
}
