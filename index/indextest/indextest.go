// Package indextest provides in-process stand-ins for what the index and
// retrieval packages need from the outside world: a deterministic hashing
// embedder and a rough token counter. Tests of index, rag and the
// commands built on them use these instead of a model server.
//
// It imports nothing internal; it must not be imported by non-test code.
package indextest

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"unicode"
)

// Embedder embeds text as a bag of hashed words (feature hashing): texts
// sharing words get similar vectors, the same text always gets the same
// vector, and different models give different vectors. It is safe for
// concurrent use.
type Embedder struct {
	// Dim is the vector length (default 64).
	Dim int
	// Fail, when set, is called before each request; a non-nil error is
	// returned instead of vectors.
	Fail func(model string, inputs []string) error

	mu     sync.Mutex
	calls  int
	inputs int
}

// Embed returns one unit vector per input.
func (e *Embedder) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if e.Fail != nil {
		if err := e.Fail(model, inputs); err != nil {
			return nil, err
		}
	}
	if model == "" {
		return nil, errors.New("no model")
	}
	e.mu.Lock()
	e.calls++
	e.inputs += len(inputs)
	e.mu.Unlock()
	dim := e.Dim
	if dim <= 0 {
		dim = 64
	}
	out := make([][]float32, len(inputs))
	for i, text := range inputs {
		out[i] = vector(model, text, dim)
	}
	return out, nil
}

// Stats returns how many requests and inputs the embedder has served.
func (e *Embedder) Stats() (calls, inputs int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls, e.inputs
}

// Words splits text into lower-case words, breaking identifiers at case
// changes and underscores, and dropping a light English ending so that
// "parses" and "parsing" meet "parse".
func Words(text string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 1 {
			words = append(words, stem(strings.ToLower(string(cur))))
		}
		cur = cur[:0]
	}
	var prev rune
	for _, r := range text {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}

func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

func vector(model, text string, dim int) []float32 {
	v := make([]float32, dim)
	for _, w := range Words(text) {
		h := fnv.New64a()
		h.Write([]byte(model))
		h.Write([]byte{0})
		h.Write([]byte(w))
		x := h.Sum64()
		sign := float32(1)
		if x&1 == 1 {
			sign = -1
		}
		v[(x>>1)%uint64(dim)] += sign
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		v[0] = 1
		return v
	}
	s := float32(1 / math.Sqrt(norm))
	for i := range v {
		v[i] *= s
	}
	return v
}

// Counter counts tokens as a quarter of the bytes, rounded up: close
// enough to a BPE tokenizer on code for budget tests.
type Counter struct{}

// Count estimates the tokens of text.
func (Counter) Count(text string) int { return (len(text) + 3) / 4 }
