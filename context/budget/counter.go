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
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// cl100kPattern is cl100k_base's pre-tokenizer, as tiktoken-go defines it.
const cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// pieceBytes bounds the text encoded at once. tiktoken's encoder is
// quadratic on long runs without a natural split (a minified file, a run of
// spaces): 160k identical characters take 25 s whole, 0.1 s in pieces.
const pieceBytes = 2048

// Counter counts cl100k_base tokens with tiktoken-go. It is safe for
// concurrent use. The encoder is shared by all Counters and built on the
// first count (or by Warm), from the ranks embedded by tiktoken-go-loader.
// Building it takes about 100 ms of CPU, so a caller that only needs to
// know that a text fits can ask for Bound instead, which needs no encoder.
type Counter struct{}

// NewCounter returns a Counter; it builds nothing yet, so a process that
// counts nothing pays nothing. It never reaches for the network.
func NewCounter() (*Counter, error) {
	return &Counter{}, nil
}

// Warm builds the encoder now rather than at the first count, so that a
// caller can have its 100-200 ms of CPU overlap with a wait (the model
// reading the first prompt).
func (c *Counter) Warm() error {
	_, err := encoder()
	return err
}

// Ready reports whether the encoder is built, so that Count costs only
// the counting.
func (c *Counter) Ready() bool { return built.Load() }

// encoder is tiktoken-go's cl100k_base encoder, built once per process;
// built is set once it is.
var (
	encoder = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
		defer built.Store(true)
		return newEncoder()
	})
	built atomic.Bool
)

// newEncoder loads the embedded cl100k_base ranks. It does not touch
// tiktoken-go's global loader, so it can never reach for the network.
func newEncoder() (*tiktoken.Tiktoken, error) {
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe("cl100k_base.tiktoken")
	if err != nil {
		return nil, fmt.Errorf("load cl100k_base ranks: %w", err)
	}
	special := map[string]int{
		"<|endoftext|>":   100257,
		"<|fim_prefix|>":  100258,
		"<|fim_middle|>":  100259,
		"<|fim_suffix|>":  100260,
		"<|endofprompt|>": 100276,
	}
	bpe, err := tiktoken.NewCoreBPE(ranks, special, cl100kPattern)
	if err != nil {
		return nil, fmt.Errorf("build cl100k_base encoder: %w", err)
	}
	set := make(map[string]any, len(special))
	for k := range special {
		set[k] = true
	}
	return tiktoken.NewTiktoken(bpe, &tiktoken.Encoding{
		Name: "cl100k_base", PatStr: cl100kPattern, MergeableRanks: ranks, SpecialTokens: special,
	}, set), nil
}

// Count returns the number of tokens in text. Special-token spellings such
// as "<|endoftext|>" count as the plain text they are. The embedded ranks
// cannot fail to load except in a broken build, which Count reports by
// panic.
func (c *Counter) Count(text string) int {
	if text == "" {
		return 0
	}
	enc, err := encoder()
	if err != nil {
		panic(err)
	}
	n := 0
	for len(text) > 0 {
		piece := text
		if len(piece) > pieceBytes {
			piece = text[:cut(text, pieceBytes)]
		}
		n += countPiece(enc, piece)
		text = text[len(piece):]
	}
	return n
}

// counted remembers, for the whole process, the counts of the pieces
// Count cuts texts into: each new agent (an explore subagent, a session
// the TUI or an editor opens, an eval task) counts the same system prompt
// and tool declarations again. The encoder reads about 1 MB a second
// (BenchmarkCount1MB), so a 40 KB prompt costs 40 ms each time; counted
// again from the memo it costs microseconds (BenchmarkCountAgain). Pieces
// shorter than memoMin are cheap to encode and too many to keep. At most
// memoPieces are kept, each at most pieceBytes long (2 MB in all); a full
// memo forgets one piece, picked at random, for each new one.
var counted = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

const (
	memoMin    = 256
	memoPieces = 1024
)

// countPiece counts one piece of a text (see pieceBytes), remembered.
func countPiece(enc *tiktoken.Tiktoken, piece string) int {
	if len(piece) < memoMin {
		return len(enc.EncodeOrdinary(piece))
	}
	counted.Lock()
	n, ok := counted.n[piece]
	counted.Unlock()
	if ok {
		return n
	}
	n = len(enc.EncodeOrdinary(piece))
	counted.Lock()
	if len(counted.n) >= memoPieces {
		for k := range counted.n { // a map's order starts at random
			delete(counted.n, k)
			break
		}
	}
	// A copy: the piece may be a slice of a large text (a tool's output)
	// that the memo must not keep alive.
	counted.n[strings.Clone(piece)] = n
	counted.Unlock()
	return n
}

// Bound returns an upper bound of Count(text) that needs no encoder: the
// length of text as tiktoken-go encodes it. Every cl100k_base token is at
// least one byte of that, and tiktoken-go reads text as runes, so each
// byte that is not valid UTF-8 becomes U+FFFD, three bytes. The pieces
// Count cuts text into never split a valid rune, so they add up to the
// same. FuzzBound checks it.
func Bound(text string) int {
	n := len(text)
	if utf8.ValidString(text) {
		return n
	}
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && w == 1 {
			n += 2
		}
		i += w
	}
	return n
}

// Bound is the package's Bound, for callers that hold a Counter.
func (c *Counter) Bound(text string) int { return Bound(text) }

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
