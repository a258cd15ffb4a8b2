package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
)

//go:embed search_code.md
var searchCodeDoc string

// CodeSearcher searches the repository's code index; cmd/tern implements
// it over package rag, so that this package needs neither the index nor
// retrieval.
type CodeSearcher interface {
	// SearchCode returns the best k chunks for query among the files
	// under pathPrefix ("" for all), rendered with their paths and lines in
	// at most budget bytes, best first ("" when nothing matches), and a
	// few words for people on how the search went ("5 hits, lexical").
	SearchCode(ctx context.Context, query string, k int, pathPrefix string, budget int) (text, summary string, err error)
}

// Result counts of search_code.
const (
	defaultSearchHits = 8
	maxSearchHits     = 20
)

type searchCode struct {
	Decl
	ws       *Workspace
	searcher CodeSearcher
}

// NewSearchCode returns the search_code tool: hybrid (lexical and
// semantic) search over the repository's index, through s.
func NewSearchCode(ws *Workspace, s CodeSearcher) Tool {
	return &searchCode{ws: ws, searcher: s, Decl: Declare[searchArgs]("search_code", searchCodeDoc)}
}

type searchArgs struct {
	Query string `json:"query" tool:"required,subject=quoted"`
	K     int    `json:"k"`
	Path  string `json:"path" tool:"subject=scope"`
}

func (t *searchCode) Effect() Effect { return ReadOnly }

func (t *searchCode) Run(ctx context.Context, in Input) Result {
	var args searchArgs
	if err := decodeArgs(in.Args, &args); err != nil {
		return fail("search_code: bad arguments", "%v", err)
	}
	query := strings.Join(strings.Fields(args.Query), " ")
	if query == "" {
		return fail("search_code: no query", `query is required, e.g. {"query":"where the config file is parsed"}`)
	}
	summary := fmt.Sprintf("search_code %q", clip(query, 60))
	k := args.K
	if k <= 0 {
		k = defaultSearchHits
	}
	k = min(k, maxSearchHits)
	prefix := ""
	if p := strings.TrimSpace(args.Path); p != "" && p != "." {
		abs, rel, err := t.ws.Resolve(p, Read)
		if err != nil {
			return fail(summary+": refused", "%v", err)
		}
		if strings.HasPrefix(rel, "/") {
			return fail(summary+": outside the index", "the index covers the workspace only; use grep to search %s", rel)
		}
		if rel != "." {
			prefix = rel + "/"
			if fi, err := t.ws.stat(abs); err == nil && !fi.IsDir() {
				prefix = rel // one file
			}
		}
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	text, how, err := t.searcher.SearchCode(ctx, query, k, prefix, limit)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fail(summary+": cancelled", "the search was cancelled")
		}
		return fail(summary+": error", "%v", err)
	}
	if how != "" {
		summary += ": " + how
	}
	if strings.TrimSpace(text) == "" {
		where := ""
		if prefix != "" {
			where = " under " + prefix
		}
		return Result{Output: fmt.Sprintf("no code%s matches %q; try other words, or grep for exact text", where, query), Summary: summary}
	}
	return Result{Output: strings.TrimRight(text, "\n"), Summary: summary}
}

// clip shortens s to n bytes at most, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
