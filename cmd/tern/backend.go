package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/openai"
)

// connection is a reachable model server (Ollama, or an OpenAI-compatible
// server) with the model chosen for this run.
type connection struct {
	// kind is config.BackendOllama or config.BackendOpenAI; addr is the address asked.
	kind      string
	addr      string
	client    chatServer
	installed []models.ModelInfo
	info      models.ModelInfo
	// why says how the model was chosen, for the user.
	why  string
	plan ollama.Plan
	// proto is how tools reach the model, and why.
	proto models.ToolProtocol
	// profile is the model family's profile, with config overrides.
	profile models.Profile
	// vram is the GPU memory planned for.
	vram int64
	// server and tools are what an OpenAI-compatible server said about
	// itself; notes are notices for the session.
	server openai.Server
	tools  openai.ToolSupport
	notes  []string
}

// explain words err for the user, as the backend's errors need.
func (b *connection) explain(err error) error {
	if b.kind == config.BackendOpenAI {
		return backend.ExplainOpenAI(err, b.client.Host(), b.info.Name, b.installed)
	}
	return backend.Explain(err, b.client.Host(), b.info.Name, b.installed)
}

// resolved returns cfg naming the backend this run resolved to, so that
// what is opened after (the code index's embeddings) talks to the same
// server.
func (b *connection) resolved(cfg config.Config) config.Config {
	if b.kind == config.BackendOpenAI {
		return cfg.WithOpenAI(b.addr)
	}
	return cfg
}

// connect reaches Ollama, chooses the model and plans the context window.
// Its errors are written for the user: they say what to run to fix things.
func (a *app) connect(ctx context.Context, cfg config.Config) (*connection, error) {
	kind, addr, err := backend.Resolve(ctx, cfg)
	if err != nil {
		return nil, err
	}
	limits, err := cfg.Stream.Limits()
	if err != nil {
		return nil, err
	}
	if kind == config.BackendOpenAI {
		return a.connectOpenAI(ctx, cfg, addr)
	}
	client, err := ollama.New(addr, ollama.WithLimits(limits))
	if err != nil {
		return nil, fmt.Errorf("ollama host: %w", err)
	}
	installed, err := client.List(ctx)
	if errors.Is(err, models.ErrModelNotFound) {
		// Every Ollama answers /api/tags; a 404 there is another server.
		return nil, fmt.Errorf("the server at %s is not Ollama (it does not answer /api/tags): for llama-server, LM Studio or vLLM pass --backend openai", client.Host())
	}
	if err != nil {
		return nil, backend.Explain(err, client.Host(), "", nil)
	}
	b := &connection{kind: config.BackendOllama, addr: addr, client: client, installed: installed}
	name, why, err := models.ChooseModel(ctx, cfg.Model, installed, client.Show)
	if err != nil {
		return nil, backend.Explain(err, client.Host(), cfg.Model, installed)
	}
	info, err := client.Show(ctx, name)
	if err != nil {
		return nil, backend.Explain(err, client.Host(), name, installed)
	}
	if info.SizeBytes == 0 {
		if i := slices.IndexFunc(installed, func(m models.ModelInfo) bool { return m.Name == name }); i >= 0 {
			info.SizeBytes = installed[i].SizeBytes
		}
	}
	b.info, b.why = info, why
	b.vram = a.vramBytes(ctx, cfg)
	b.plan = ollama.PlanContext(info, b.vram, cfg.Ctx)
	if b.profile, err = backend.Profile(info, cfg); err != nil {
		return nil, err
	}
	b.proto = models.ChooseToolProtocol(cfg.ToolMode, info, b.profile)
	return b, nil
}

// vramBytes is the GPU memory to plan for: --vram or the config, else what
// nvidia-smi reports, else 8 GiB.
func (a *app) vramBytes(ctx context.Context, cfg config.Config) int64 {
	explicit := a.cmd.PersistentFlags().Changed("vram") || cfg.VRAMGiB != config.Default().VRAMGiB
	if !explicit {
		if v, ok := ollama.DetectVRAM(ctx); ok {
			return v
		}
	}
	return int64(cfg.VRAMGiB * (1 << 30))
}

// hint is what explain adds to err, for the TUI, which shows the error
// itself already; "" when it adds nothing.
func (b *connection) hint(err error) string {
	full := b.explain(err).Error()
	if rest, ok := strings.CutPrefix(full, err.Error()); ok {
		return strings.TrimLeft(rest, ":. ")
	}
	if full == err.Error() {
		return ""
	}
	return full
}
