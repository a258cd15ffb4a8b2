package main

import (
	"context"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/codeindex"
	"github.com/ternhq/tern/rag"
	"github.com/ternhq/tern/tools"
)

// toolSearcher returns c for the search_code tool when the workspace has
// an index that opens; otherwise nil, with a notice when it is broken.
func toolSearcher(ctx context.Context, c *codeindex.Index) (tools.CodeSearcher, string) {
	if ok, notice := c.Available(ctx); !ok {
		return nil, notice
	}
	return c, ""
}

// ragRetriever is the agent's RAG over the index.
func ragRetriever(c *codeindex.Index, counter rag.Counter) agent.Retriever {
	return rag.PromptRetriever{Code: c.Workspace, Counter: counter}
}
