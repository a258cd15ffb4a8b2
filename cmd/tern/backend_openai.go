package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/openai"
)

// chatServer is what a run needs of its model server; *ollama.Client and
// *openai.Client satisfy it.
type chatServer interface {
	Chat(ctx context.Context, req models.Request, onDelta func(models.Delta)) (models.Reply, error)
	Host() string
}

// connectOpenAI reaches an OpenAI-compatible server, chooses the model,
// learns the window the server serves and whether it takes tools.
func (a *app) connectOpenAI(ctx context.Context, cfg config.Config, addr string) (*connection, error) {
	client, err := openai.New(addr, cfg.APIKey())
	if err != nil {
		return nil, fmt.Errorf("base_url: %w", err)
	}
	// The [stream] limits bound this server's replies too; unset, the
	// client's own (longer, for models that read prompts slowly) apply.
	client.HeaderTimeout = cfg.Stream.HeaderTimeout.Duration
	client.IdleTimeout = cfg.Stream.IdleTimeout.Duration
	client.MaxReplyBytes = cfg.Stream.MaxReplyBytes
	b := &connection{kind: config.BackendOpenAI, client: client, addr: addr}
	list, err := client.Models(ctx)
	if err != nil {
		return nil, b.explain(err)
	}
	for _, m := range list {
		b.installed = append(b.installed, models.ModelInfo{Name: m.ID})
	}
	name, why, err := openai.ChooseModel(cfg.Model, list)
	if err != nil {
		return nil, b.explain(err)
	}
	srv, err := client.Describe(ctx, name)
	if err != nil {
		return nil, b.explain(err)
	}
	b.server, b.why = srv, why
	if b.plan, err = backend.ServedWindow(srv, cfg.Ctx, client.Host()); err != nil {
		return nil, err
	}
	ts, err := client.ProbeTools(ctx, name)
	if err != nil {
		return nil, b.explain(err)
	}
	b.tools = ts
	b.info = models.ModelInfo{Name: name, ContextLength: srv.TrainCtx,
		Capabilities: []models.Capability{models.CapCompletion, models.CapThinking}}
	if ts.Native {
		b.info.Capabilities = append(b.info.Capabilities, models.CapTools)
	}
	if b.profile, err = backend.Profile(b.info, cfg); err != nil {
		return nil, err
	}
	// Constrained, the schema goes as response_format, which llama-server,
	// vLLM and LM Studio turn into a grammar as Ollama does with format.
	b.proto = models.ChooseToolProtocol(cfg.ToolMode, b.info, b.profile)
	if !ts.Native && b.proto.Text && !b.proto.Constrained {
		b.proto.Why = fmt.Sprintf("the server refused tools (%q); using the text tool protocol. %s", ts.Why, backend.ToolsFix(srv.Kind))
	}
	if !ts.Usage {
		b.notes = append(b.notes, "the server reports no token usage: the counts shown are tern's estimate, not calibrated to the model")
	}
	if b.plan.Source != "" && strings.HasPrefix(b.plan.Source, "--ctx") && srv.Window == 0 {
		b.notes = append(b.notes, fmt.Sprintf("%s does not say its context window; using --ctx %d", srv.Kind, b.plan.NumCtx))
	}
	return b, nil
}
