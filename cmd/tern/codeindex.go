package main

import (
	"context"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/rag"
	"github.com/ternhq/tern/tools"
)

// codeIndex is the workspace's code index (rag.Workspace) with what
// tern index needs to update it: the server that embeds, the configured
// embedding model, and what to say while another process holds the
// index.
type codeIndex struct {
	*rag.Workspace
	// client reaches the server for embeddings; nil when the address is
	// not valid. want is the configured embedding model; noEmbed turns
	// embeddings off.
	client  backend.EmbedServer
	want    rag.EmbedModel
	noEmbed bool
	// onWait, when set, hears that another process is updating the
	// index; the update then waits for it (tern index). Without it an
	// update gives up at once (the TUI's /index, refreshes).
	onWait func(holder string)
}

// newCodeIndex returns the index of the workspace at root, as cfg
// configures it.
func newCodeIndex(root string, cfg config.Config) *codeIndex {
	c := &codeIndex{client: backend.NewEmbedServer(cfg), want: rag.NewEmbedModel(cfg.EmbedModel)}
	var emb rag.Embedder
	if c.client != nil {
		emb = backend.Embedder{Client: c.client, Query: true}
	}
	c.Workspace = rag.NewWorkspace(root, emb, c.want.Key())
	return c
}

// setNoEmbed turns embeddings off (--no-embed): searches are lexical.
func (c *codeIndex) setNoEmbed(off bool) {
	c.noEmbed = off
	if off {
		c.Embedder = nil
	}
}

// toolSearcher returns c for the search_code tool when the workspace has
// an index that opens; otherwise nil, with a notice when it is broken.
func (c *codeIndex) toolSearcher(ctx context.Context) (tools.CodeSearcher, string) {
	if ok, notice := c.Available(ctx); !ok {
		return nil, notice
	}
	return c, ""
}

// retriever is the agent's RAG over the index.
func (c *codeIndex) retriever(counter rag.Counter) agent.Retriever {
	return rag.PromptRetriever{Code: c.Workspace, Counter: counter}
}
