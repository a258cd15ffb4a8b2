package rag

import (
	"fmt"
	"slices"
	"strings"
)

// PromptHits is how many hits RAG adds to a prompt at most; Pack keeps
// the best of them that fit the budget.
const PromptHits = 6

// ForPrompt keeps the hits worth prompt tokens, best first: the
// substantial ones, at most PromptHits. A search for a prompt should ask
// for 2*PromptHits, so that trivial hits leave room for others.
func ForPrompt(hits []Hit) []Hit {
	hits = slices.DeleteFunc(hits, func(h Hit) bool { return !Substantial(h) })
	return hits[:min(len(hits), PromptHits)]
}

// Substantial reports whether a hit is worth prompt tokens: a named
// symbol, or a few lines of code or text. A lone package clause or a
// one-line section costs its header and says little.
func Substantial(h Hit) bool {
	if h.Symbol != "" {
		return true
	}
	lines := 0
	for l := range strings.Lines(h.Text) {
		if strings.TrimSpace(l) != "" {
			lines++
		}
	}
	return lines >= 3
}

// Packed returns the hits whose header made it into text, a Pack of
// hits: the hits a reader of the pack sees, whole or cut.
func Packed(hits []Hit, text string) []Hit {
	var shown []Hit
	for _, h := range hits {
		if strings.Contains(text, fmt.Sprintf("%s:%d-", h.Path, h.StartLine)) {
			shown = append(shown, h)
		}
	}
	return shown
}

// Ref names a hit's lines as path:start-end.
func Ref(h Hit) string { return fmt.Sprintf("%s:%d-%d", h.Path, h.StartLine, h.EndLine) }

// Bytes counts bytes, to pack within a byte cap rather than tokens.
type Bytes struct{}

// Count returns the length of text in bytes.
func (Bytes) Count(text string) int { return len(text) }
