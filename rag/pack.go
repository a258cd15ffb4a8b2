package rag

import (
	"fmt"
	"strings"
)

// minTrimmedLines is the least of a chunk worth showing when it has to be
// cut to fit.
const minTrimmedLines = 3

// Pack renders hits for a prompt, best first, each under a header with its
// path, lines and symbol, and never exceeds budget tokens. Whole chunks are
// preferred: hits are added while they fit, and the first that does not
// fit is cut to the lines that do, which ends the pack.
func Pack(hits []Hit, budget int, counter Counter) string {
	var blocks []string
	used := 0
	for _, h := range hits {
		block := renderHit(h, h.EndLine, h.Text)
		if n := counter.Count(block); used+n <= budget {
			blocks = append(blocks, block)
			used += n
			continue
		}
		if block, _ := trimHit(h, budget-used, counter); block != "" {
			blocks = append(blocks, block)
		}
		break
	}
	// Token counts are not quite additive across blocks; check the whole
	// and drop blocks from the end while it runs over.
	out := strings.Join(blocks, "")
	for len(blocks) > 0 && counter.Count(out) > budget {
		blocks = blocks[:len(blocks)-1]
		out = strings.Join(blocks, "")
	}
	return out
}

// renderHit formats one hit: a header line and the code in a fence.
func renderHit(h Hit, end int, text string) string {
	what := strings.TrimSpace(h.Kind + " " + h.Symbol)
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	lang := h.Lang
	if lang == "text" {
		lang = ""
	}
	return fmt.Sprintf("%s:%d-%d (%s)\n%s%s\n%s\n%s\n\n", h.Path, h.StartLine, end, what, fence, lang, text, fence)
}

// trimHit renders the longest head of h that fits in room tokens, or ""
// when fewer than minTrimmedLines lines fit.
func trimHit(h Hit, room int, counter Counter) (string, int) {
	lines := strings.SplitAfter(h.Text, "\n")
	render := func(n int) string {
		text := strings.TrimSuffix(strings.Join(lines[:n], ""), "\n") + "\n…"
		return renderHit(h, h.StartLine+n-1, text)
	}
	lo, hi := 0, len(lines)-1 // the largest n that fits lies in [lo, hi]
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if counter.Count(render(mid)) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo < minTrimmedLines {
		return "", 0
	}
	block := render(lo)
	return block, counter.Count(block)
}
