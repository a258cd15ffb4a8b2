package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/openai"
)

// probeTimeout bounds each question asked to tell the backends apart.
const probeTimeout = 3 * time.Second

// chatServer is what a run needs of its model server; *ollama.Client and
// *openai.Client satisfy it.
type chatServer interface {
	Chat(ctx context.Context, req models.Request, onDelta func(models.Delta)) (models.Reply, error)
	Host() string
}

// resolveBackend decides which backend serves this run, and at which
// address. --backend decides when given. Otherwise an address that was
// given (base_url, --host, OLLAMA_HOST) is asked: a server that answers
// /api/version is Ollama, one that only answers /v1/models is
// OpenAI-compatible. With no address at all, it is Ollama at its default.
func (a *app) resolveBackend(ctx context.Context, cfg config.Config) (kind, addr string, err error) {
	switch cfg.Backend {
	case config.BackendOllama:
		return config.BackendOllama, cfg.Host, nil
	case config.BackendOpenAI:
		addr = cfg.OpenAIAddr()
		if addr == "" {
			return "", "", errors.New("--backend openai needs the server's address: set base_url in the config (e.g. http://127.0.0.1:8080 for llama-server) or pass --host")
		}
		return config.BackendOpenAI, addr, nil
	}
	addr, fromHost := cfg.Addr()
	if addr == "" {
		return config.BackendOllama, "", nil
	}
	probe := addr
	if fromHost {
		// Read as Ollama reads OLLAMA_HOST: "localhost" means port 11434.
		oc, err := ollama.New(addr)
		if err != nil {
			return config.BackendOllama, addr, nil // connect words a bad host
		}
		probe = oc.Host()
	}
	c, err := openai.New(probe, cfg.APIKey())
	if err != nil {
		return config.BackendOpenAI, addr, nil // connectOpenAI words a bad base_url
	}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if _, ok := c.IsOllama(pctx); ok {
		if fromHost {
			return config.BackendOllama, addr, nil
		}
		return config.BackendOllama, c.Host(), nil
	}
	if _, err := c.Models(pctx); err == nil || errors.Is(err, openai.ErrUnauthorized) {
		return config.BackendOpenAI, probe, nil
	}
	if !fromHost {
		return config.BackendOpenAI, addr, nil // let the OpenAI path say what is wrong
	}
	return config.BackendOllama, addr, nil
}

// connectOpenAI reaches an OpenAI-compatible server, chooses the model,
// learns the window the server serves and whether it takes tools.
func (a *app) connectOpenAI(ctx context.Context, cfg config.Config, addr string) (*backend, error) {
	client, err := openai.New(addr, cfg.APIKey())
	if err != nil {
		return nil, fmt.Errorf("base_url: %w", err)
	}
	// The [stream] limits bound this server's replies too; unset, the
	// client's own (longer, for models that read prompts slowly) apply.
	client.HeaderTimeout = cfg.Stream.HeaderTimeout.Duration
	client.IdleTimeout = cfg.Stream.IdleTimeout.Duration
	client.MaxReplyBytes = cfg.Stream.MaxReplyBytes
	b := &backend{kind: config.BackendOpenAI, client: client, addr: addr}
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
	if b.plan, err = servedWindow(srv, cfg.Ctx, client.Host()); err != nil {
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
	if b.profile, err = profileFor(b.info, cfg); err != nil {
		return nil, err
	}
	// Constrained, the schema goes as response_format, which llama-server,
	// vLLM and LM Studio turn into a grammar as Ollama does with format.
	b.proto = models.ChooseToolProtocol(cfg.ToolMode, b.info, b.profile)
	if !ts.Native && b.proto.Text && !b.proto.Constrained {
		b.proto.Why = fmt.Sprintf("the server refused tools (%q); using the text tool protocol. %s", ts.Why, toolsFix(srv.Kind))
	}
	if !ts.Usage {
		b.notes = append(b.notes, "the server reports no token usage: the counts shown are tern's estimate, not calibrated to the model")
	}
	if b.plan.Source != "" && strings.HasPrefix(b.plan.Source, "--ctx") && srv.Window == 0 {
		b.notes = append(b.notes, fmt.Sprintf("%s does not say its context window; using --ctx %d", srv.Kind, b.plan.NumCtx))
	}
	return b, nil
}

// servedWindow is the session's window: the server's, or less when --ctx
// asks for less; --ctx only when the server does not say. It is never a
// guess.
func servedWindow(srv openai.Server, ctxFlag int, host string) (ollama.Plan, error) {
	switch {
	case srv.Window > 0 && ctxFlag > 0 && ctxFlag < srv.Window:
		return ollama.Plan{NumCtx: ctxFlag, Source: fmt.Sprintf("--ctx; the server serves %d (%s)", srv.Window, srv.WindowSource)}, nil
	case srv.Window > 0:
		p := ollama.Plan{NumCtx: srv.Window, Source: srv.WindowSource}
		if ctxFlag > srv.Window {
			p.Source += fmt.Sprintf("; --ctx %d is more than the server serves", ctxFlag)
		}
		return p, nil
	case ctxFlag > 0:
		return ollama.Plan{NumCtx: ctxFlag, Source: "--ctx (the server does not say its window)"}, nil
	}
	hint := "the -c/--ctx-size the server was started with"
	switch srv.Kind {
	case openai.LMStudio:
		hint = "the context length LM Studio loads it with (`lms load MODEL --context-length N`)"
		if !srv.Loaded {
			hint = "load the model in LM Studio first (`lms load MODEL --context-length N`), or pass the context length it will load with"
		}
	case openai.VLLM:
		hint = "vLLM's --max-model-len"
	}
	return ollama.Plan{}, fmt.Errorf("%s at %s does not say its context window, and tern never guesses one: pass --ctx N (%s)", srv.Kind, host, hint)
}

// toolsFix says how to switch native tool calls on.
func toolsFix(kind openai.Kind) string {
	switch kind {
	case openai.LlamaServer:
		return "Start llama-server with --jinja for native tool calls."
	case openai.VLLM:
		return "Start vLLM with --enable-auto-tool-choice --tool-call-parser NAME for native tool calls."
	}
	return "Enable tool calling on the server for native tool calls."
}

// explainOpenAI words an OpenAI-compatible server's errors for the user.
func explainOpenAI(err error, host, model string, installed []models.ModelInfo) error {
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, models.ErrUnreachable):
		return fmt.Errorf("cannot reach the OpenAI-compatible server at %s: start it (e.g. `llama-server -m MODEL.gguf --jinja -c 16384`) or fix base_url / --host", host)
	case errors.Is(err, openai.ErrUnauthorized):
		return fmt.Errorf("the server at %s refused the API key: set TERN_API_KEY (or OPENAI_API_KEY) to the key it was started with", host)
	case errors.Is(err, models.ErrNoChatModel):
		return fmt.Errorf("the server at %s serves no chat model", host)
	case errors.Is(err, models.ErrModelNotFound):
		names := make([]string, len(installed))
		for i, m := range installed {
			names[i] = m.Name
		}
		return fmt.Errorf("model %q is not served at %s (served: %s): pass --model with one of those", model, host, cmp.Or(strings.Join(names, ", "), "none"))
	}
	return err
}

// modelInfo is what tern knows of a model an OpenAI-compatible server
// lists: its name.
func modelInfo(name string) models.ModelInfo { return models.ModelInfo{Name: name} }
