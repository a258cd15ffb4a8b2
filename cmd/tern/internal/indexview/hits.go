package indexview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ternhq/tern/rag"
)

// JSONHit is one hit of tern search --json. The field names are stable:
// docs/search.md documents them.
type JSONHit struct {
	Path      string  `json:"path"`
	StartLine int     `json:"start_line"`
	EndLine   int     `json:"end_line"`
	Kind      string  `json:"kind"`
	Symbol    string  `json:"symbol"`
	Lang      string  `json:"lang"`
	Score     float64 `json:"score"`
	Preview   string  `json:"preview"`
	// LexicalRank and VectorRank are the hit's places in the full-text
	// and vector results (1 is first), 0 where it was absent.
	LexicalRank int `json:"lexical_rank"`
	VectorRank  int `json:"vector_rank"`
}

// WriteHitsJSON prints one JSONHit a line.
func WriteHitsJSON(w io.Writer, hits []rag.Hit) error {
	enc := json.NewEncoder(w)
	for _, h := range hits {
		err := enc.Encode(JSONHit{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Kind: h.Kind, Symbol: h.Symbol,
			Lang: h.Lang, Score: h.Score, Preview: h.Preview, LexicalRank: h.LexicalRank, VectorRank: h.VectorRank})
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteHits prints hits in aligned columns, path:start-end, kind and
// symbol (cut at 48 characters), score, each with its preview on the line
// below.
func WriteHits(w io.Writer, hits []rag.Hit) {
	refs := make([]string, len(hits))
	whats := make([]string, len(hits))
	refW, whatW := 0, 0
	for i, h := range hits {
		refs[i] = fmt.Sprintf("%s:%d-%d", h.Path, h.StartLine, h.EndLine)
		whats[i] = strings.TrimSpace(h.Kind + " " + h.Symbol)
		refW = max(refW, utf8.RuneCountInString(refs[i]))
		whatW = max(whatW, utf8.RuneCountInString(whats[i]))
	}
	whatW = min(whatW, 48)
	for i, h := range hits {
		what := whats[i]
		if utf8.RuneCountInString(what) > whatW {
			what = string([]rune(what)[:whatW-1]) + "…"
		}
		fmt.Fprintf(w, "%s  %s  %.4f\n", pad(refs[i], refW), pad(what, whatW), h.Score)
		if h.Preview != "" {
			fmt.Fprintf(w, "    %s\n", h.Preview)
		}
	}
}

// pad fills s with spaces to width runes.
func pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}
