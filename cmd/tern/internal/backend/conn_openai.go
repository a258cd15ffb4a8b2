package backend

import (
	"context"
	"fmt"
	"strings"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/openai"
)

// ChatServer is what a run needs of its model server; *ollama.Client and
// *openai.Client satisfy it.
type ChatServer interface {
	Chat(ctx context.Context, req models.Request, onDelta func(models.Delta)) (models.Reply, error)
	Host() string
}

// NewOpenAI returns the client of the OpenAI-compatible server at addr,
// under the config's [stream] limits; unset, the client's own (longer,
// for models that read prompts slowly) apply.
func NewOpenAI(cfg config.Config, addr string) (*openai.Client, error) {
	client, err := openai.New(addr, cfg.APIKey())
	if err != nil {
		return nil, fmt.Errorf("base_url: %w", err)
	}
	client.HeaderTimeout = cfg.Stream.HeaderTimeout.Duration
	client.IdleTimeout = cfg.Stream.IdleTimeout.Duration
	client.MaxReplyBytes = cfg.Stream.MaxReplyBytes
	client.ContactTimeout = cfg.Stream.ContactTimeout.Duration
	return client, nil
}

// connectOpenAI reaches an OpenAI-compatible server, chooses the model,
// learns the window the server serves and whether it takes tools.
func connectOpenAI(ctx context.Context, cfg config.Config, addr string) (*Conn, error) {
	client, err := NewOpenAI(cfg, addr)
	if err != nil {
		return nil, err
	}
	b := &Conn{Kind: config.BackendOpenAI, Client: client, Addr: addr}
	list, err := client.Models(ctx)
	if err != nil {
		return nil, b.Explain(err)
	}
	for _, m := range list {
		b.Installed = append(b.Installed, models.ModelInfo{Name: m.ID})
	}
	name, why, err := openai.ChooseModel(cfg.Model, list)
	if err != nil {
		return nil, ExplainOpenAI(err, client.Host(), cfg.Model, b.Installed)
	}
	b.Info.Name = name
	srv, err := client.Describe(ctx, name)
	if err != nil {
		return nil, b.Explain(err)
	}
	b.Server, b.Why = srv, why
	if b.Plan, err = ServedWindow(srv, cfg.Ctx, client.Host()); err != nil {
		return nil, err
	}
	ts, err := client.ProbeTools(ctx, name)
	if err != nil {
		return nil, b.Explain(err)
	}
	b.Tools = ts
	b.Info = models.ModelInfo{Name: name, ContextLength: srv.TrainCtx,
		Capabilities: []models.Capability{models.CapCompletion, models.CapThinking}}
	if ts.Native {
		b.Info.Capabilities = append(b.Info.Capabilities, models.CapTools)
	}
	if b.Profile, err = Profile(b.Info, cfg); err != nil {
		return nil, err
	}
	// Constrained, the schema goes as response_format, which llama-server,
	// vLLM and LM Studio turn into a grammar as Ollama does with format.
	b.Proto = models.ChooseToolProtocol(cfg.ToolMode, b.Info, b.Profile)
	if !ts.Native && b.Proto.Text && !b.Proto.Constrained {
		b.Proto.Why = fmt.Sprintf("the server refused tools (%q); using the text tool protocol. %s", ts.Why, ToolsFix(srv.Kind))
	}
	if !ts.Usage {
		b.Notes = append(b.Notes, "the server reports no token usage: the counts shown are tern's estimate, not calibrated to the model")
	}
	if b.Plan.Source != "" && strings.HasPrefix(b.Plan.Source, "--ctx") && srv.Window == 0 {
		b.Notes = append(b.Notes, fmt.Sprintf("%s does not say its context window; using --ctx %d", srv.Kind, b.Plan.NumCtx))
	}
	return b, nil
}
