package main

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/codeindex"
	"github.com/ternhq/tern/cmd/tern/internal/indexcmd"
	"github.com/ternhq/tern/rag"
	"github.com/ternhq/tern/tui"
)

// The TUI's /search, /index and Ctrl+R over the workspace's code index.
// /search and /index work before the model is connected: they need only
// the index, and embeddings when Ollama has them.

// snippetLines is how much of a hit the search pane previews.
const snippetLines = 40

// tuiSearcher serves /search.
type tuiSearcher struct{ code *codeindex.Index }

func (s tuiSearcher) Search(ctx context.Context, query string, k int) ([]tui.SearchHit, error) {
	res, err := s.code.Search(ctx, query, rag.Options{K: k}, true)
	if errors.Is(err, rag.ErrNoIndex) {
		return nil, errors.New("this repository has no index yet: run /index first")
	}
	if err != nil {
		return nil, err
	}
	hits := make([]tui.SearchHit, len(res.Hits))
	for i, h := range res.Hits {
		lines := strings.SplitAfter(h.Text, "\n")
		hits[i] = tui.SearchHit{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine,
			Symbol: strings.TrimSpace(h.Kind + " " + h.Symbol), Score: h.Score,
			Snippet: strings.Join(lines[:min(len(lines), snippetLines)], "")}
	}
	return hits, nil
}

// tuiIndexer serves /index.
type tuiIndexer struct{ code *codeindex.Index }

func (x tuiIndexer) Index(ctx context.Context, progress func(tui.IndexProgress)) (string, error) {
	return indexcmd.Refresh(ctx, x.code, func(s indexcmd.Step) {
		progress(tui.IndexProgress{Done: s.Done, Total: s.Total, Unit: s.Unit, Step: s.What})
	})
}

// ragSwitch is Ctrl+R: it turns RAG on and off for the session's agent,
// and remembers the choice for the sessions the TUI opens next.
type ragSwitch struct {
	agent *agent.Agent
	on    *atomic.Bool
	code  *codeindex.Index
}

func (s ragSwitch) RAG() bool { return s.agent.RAG() }

func (s ragSwitch) SetRAG(on bool) (string, error) {
	s.agent.SetRAG(on)
	s.on.Store(on)
	if on && !s.code.Exists() {
		return "RAG on, but this repository has no index yet: run /index to build it", nil
	}
	return "", nil
}
