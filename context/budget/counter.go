// Package budget counts tokens and decides what of a conversation fits in a
// model's context window. Counting uses the cl100k_base BPE, loaded from
// files embedded in the binary (no network, ever); Ollama models use other
// tokenizers, so counts are estimates that a per-model Calibration, learnt
// from the server's prompt_eval_count, corrects (and that tells when the
// server cut a prompt). Assemble plans each request (a Plan: reserve,
// prefix, retrieval, history, new message) so that it never exceeds the
// window, shortening what is too large rather than sending it whole.
//
// budget imports models only; it must not import agent, tools or anything
// that does I/O beyond reading its embedded tables.
package budget

import (
	"unicode/utf8"
)

// cl100kPattern is cl100k_base's pre-tokenizer, as tiktoken-go defines it.
const cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// pieceBytes bounds the text encoded at once. tiktoken's encoder is
// quadratic on long runs without a natural split (a minified file, a run of
// spaces): 160k identical characters take 25 s whole, 0.1 s in pieces.
const pieceBytes = 2048

// Counter counts cl100k_base tokens, as tiktoken-go's EncodeOrdinary would
// (bpe.go). It is safe for concurrent use. The tables are shared by all
// Counters and built on the first count, in a few milliseconds.
type Counter struct{}

// NewCounter returns a Counter over the embedded cl100k_base ranks. It
// never reaches for the network. The error is kept for callers that built
// tiktoken-go's encoder here; the embedded tables cannot fail to load
// except in a broken build, which the first count then reports by panic.
func NewCounter() (*Counter, error) {
	return &Counter{}, nil
}

// Warm builds the tables now rather than at the first count.
func (c *Counter) Warm() error {
	_, err := cl100k()
	return err
}

// Count returns the number of tokens in text. Special-token spellings such
// as "<|endoftext|>" count as the plain text they are.
func (c *Counter) Count(text string) int {
	if text == "" {
		return 0
	}
	e, err := cl100k()
	if err != nil {
		panic(err)
	}
	n := 0
	for len(text) > 0 {
		piece := text
		if len(piece) > pieceBytes {
			piece = text[:cut(text, pieceBytes)]
		}
		n += e.count(piece)
		text = text[len(piece):]
	}
	return n
}

// cut returns where to end a piece of at most max bytes of s: after the
// last newline, else after the last space, else at a rune boundary.
func cut(s string, max int) int {
	for i := max - 1; i > max/2; i-- {
		if s[i] == '\n' {
			return i + 1
		}
	}
	for i := max - 1; i > max/2; i-- {
		if s[i] == ' ' {
			return i + 1
		}
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if i == 0 {
		return max
	}
	return i
}
