// Package codeindex is the workspace's code index as tern opens it: a
// rag.Workspace that searches with the configured embedding model, and
// what an update needs beyond it: the server that embeds, the plan of
// how an update embeds (with which model, or why not, and which model's
// vectors it replaces), the update itself, and the deletion of a damaged
// index (tern index --rebuild).
//
// tern index, the TUI's /index and every session (search_code, RAG) open
// it through New. It imports index, rag, and the backend and config
// packages that know the servers, nothing else of tern.
package codeindex

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/index"
	"github.com/ternhq/tern/rag"
)

// Index is the workspace's code index (rag.Workspace) with what tern
// index needs to update it: the server that embeds, the configured
// embedding model, and what to say while another process holds the
// index.
type Index struct {
	*rag.Workspace
	// client reaches the server for embeddings; nil when the address is
	// not valid. want is the configured embedding model; noEmbed turns
	// embeddings off.
	client  backend.EmbedServer
	want    rag.EmbedModel
	noEmbed bool
	// OnWait, when set, hears that another process is updating the
	// index; the update then waits for it (tern index). Without it an
	// update gives up at once (the TUI's /index, refreshes).
	OnWait func(holder string)
}

// New returns the index of the workspace at root, as cfg configures it.
func New(root string, cfg config.Config) *Index {
	c := &Index{client: backend.NewEmbedServer(cfg), want: rag.NewEmbedModel(cfg.EmbedModel)}
	var emb rag.Embedder
	if c.client != nil {
		emb = backend.Embedder{Client: c.client, Query: true}
	}
	c.Workspace = rag.NewWorkspace(root, emb, c.want.Key())
	return c
}

// SetNoEmbed turns embeddings off (--no-embed): searches are lexical.
func (c *Index) SetNoEmbed(off bool) {
	c.noEmbed = off
	if off {
		c.Embedder = nil
	}
}

// Plan is how an update embeds.
type Plan struct {
	// Model is the embedding model; its zero value means none.
	Model rag.EmbedModel
	// Why says why there are no embeddings when some were wanted.
	Why string
	// Previous is the model of the vectors the update replaces.
	Previous string
}

// Plan decides whether an update of ix can embed, and with what: not
// with embeddings off; not, saying why, when the server cannot embed
// with the configured model; else with it, replacing the vectors of
// another model.
func (c *Index) Plan(ctx context.Context, ix *index.Index) (Plan, error) {
	if c.noEmbed {
		return Plan{}, nil
	}
	if why := backend.CheckEmbed(ctx, c.client, c.want); why != "" {
		if ctx.Err() != nil {
			return Plan{}, ctx.Err()
		}
		return Plan{Why: why}, nil
	}
	old, _, err := ix.Embedding(ctx)
	if err != nil {
		return Plan{}, rag.IndexProblem(err)
	}
	p := Plan{Model: c.want}
	if old != "" && old != c.want.Key() {
		p.Previous = old
	}
	return p, nil
}

// Update runs an update of ix as planned, reporting progress.
func (c *Index) Update(ctx context.Context, ix *index.Index, p Plan, progress func(index.Progress)) (index.Stats, error) {
	opts := index.Options{Progress: progress, OnWait: c.OnWait}
	if p.Model.Name != "" {
		opts.Embedder, opts.Model = backend.Embedder{Client: c.client}, p.Model.Key()
	}
	return ix.Update(ctx, opts)
}

// Remove deletes the index database at path with its WAL files.
func Remove(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete the index: %w", err)
		}
	}
	return nil
}
