package doctor

import (
	"context"
	"fmt"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/openai"
	"github.com/ternhq/tern/rag"
)

// openAI checks an OpenAI-compatible server: what it says about
// itself, the model, the window and where it came from, tool support and
// usage reporting, and embeddings.
func (d *doctor) openAI(ctx context.Context, cfg config.Config, addr string) error {
	r := d.r
	client, err := backend.NewOpenAI(cfg, addr)
	if err != nil {
		r.bad("Server", "%v", err)
		return ErrProblems
	}
	list, err := client.Models(ctx)
	if err != nil {
		r.bad("Server", "%v", backend.ExplainOpenAI(err, client.Host(), "", nil))
		d.workspace(ctx, cfg)
		d.mcp(ctx, cfg)
		d.lsp(ctx, cfg)
		return ErrProblems
	}
	var served []models.ModelInfo
	for _, m := range list {
		served = append(served, backend.ServedModel(m.ID))
	}
	name, why, err := openai.ChooseModel(cfg.Model, list)
	if err != nil {
		r.ok("Server", "%s (OpenAI-compatible API)", client.Host())
		r.bad("Chat model", "%v", backend.ExplainOpenAI(err, client.Host(), cfg.Model, served))
		d.workspace(ctx, cfg)
		return ErrProblems
	}
	srv, err := client.Describe(ctx, name)
	if err != nil {
		r.bad("Server", "%v", backend.ExplainOpenAI(err, client.Host(), name, served))
		d.workspace(ctx, cfg)
		d.mcp(ctx, cfg)
		d.lsp(ctx, cfg)
		return ErrProblems
	}
	r.ok("Server", "%s at %s (OpenAI-compatible API)", srv, client.Host())
	r.ok("Models", "%d served", len(list))
	for _, m := range list {
		extra := ""
		switch {
		case m.MaxModelLen > 0:
			extra = fmt.Sprintf("max_model_len %d", m.MaxModelLen)
		case m.TrainCtx > 0:
			extra = fmt.Sprintf("trained context %d, %s", m.TrainCtx, words.Bytes(m.Size))
		}
		r.detail("%-40s %s", m.ID, extra)
	}
	r.ok("Chat model", "%s (%s)", name, why)
	if srv.Kind == openai.LMStudio && !srv.Loaded {
		r.note("Loaded", "LM Studio has not loaded %s; it loads on the first request with its default context length", name)
	}
	plan, err := backend.ServedWindow(srv, cfg.Ctx, client.Host())
	if err != nil {
		r.bad("Context", "%v", err)
	} else {
		r.ok("Context", "%d tokens (%s)", plan.NumCtx, plan.Source)
		if srv.TrainCtx > 0 {
			r.detail("trained context: %d tokens", srv.TrainCtx)
		}
		if srv.Slots > 1 {
			r.detail("the server has %d slots (--parallel); the window shown is one slot's", srv.Slots)
		}
		d.llamaExperts(ctx, cfg, srv.ModelPath, plan.NumCtx)
	}
	ts, err := client.ProbeTools(ctx, name)
	switch {
	case err != nil:
		r.bad("Tools", "a one-token test request failed: %v", backend.ExplainOpenAI(err, client.Host(), name, served))
	case ts.Native:
		r.ok("Tools", "the server takes native tool calls (tern still repairs calls written as text)")
	default:
		r.note("Tools", "the server refused tools (%q): tern uses the text tool protocol", ts.Why)
		r.detail("%s", backend.ToolsFix(srv.Kind))
	}
	if err == nil {
		if ts.Usage {
			r.ok("Usage", "the server reports token usage: tern calibrates its counts and detects cut prompts")
		} else {
			r.note("Usage", "the server reports no token usage: counts are tern's estimate")
		}
	}
	if prof, err := backend.Profile(backend.ServedModel(name), cfg); err != nil {
		r.bad("Profile", "%v", err)
	} else {
		r.ok("Profile", "%s", prof)
	}
	main := &backend.Conn{Kind: config.BackendOpenAI, Addr: addr, Client: client, Installed: served, Info: backend.ServedModel(name)}
	d.escalation(ctx, cfg, main, ollama.Plan{})
	d.embedOpenAI(ctx, cfg, client.Host())
	d.workspace(ctx, cfg)
	d.mcp(ctx, cfg)
	d.lsp(ctx, cfg)
	if r.problems > 0 {
		return ErrProblems
	}
	return nil
}

// embedOpenAI reports whether the OpenAI-compatible server at host (or
// embed_base_url's) makes embeddings for search.
func (d *doctor) embedOpenAI(ctx context.Context, cfg config.Config, host string) {
	r := d.r
	if !cfg.UsesOpenAI() {
		// Resolved from --host alone: the index would ask Ollama there.
		r.note("Embeddings", "--host alone does not switch the code index to this server: set base_url = %q in the config to embed with it (tern index would ask Ollama at that address); search is lexical only", host)
		return
	}
	server := backend.NewEmbedServer(cfg)
	if server == nil {
		r.note("Embeddings", "embed_base_url is not a valid address; search is lexical only")
		return
	}
	m := rag.NewEmbedModel(cfg.EmbedModel)
	if why := backend.CheckEmbed(ctx, server, m); why != "" {
		r.note("Embeddings", "%s; search is lexical only", why)
		return
	}
	r.ok("Embeddings", "%s at %s", m.Name, server.Host())
}
