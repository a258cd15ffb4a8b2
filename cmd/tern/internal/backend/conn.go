// Package backend reaches the model server a run talks to: which server
// the config names (Ollama, or an OpenAI-compatible one such as
// llama-server, LM Studio or vLLM, told apart by asking: Resolve), the
// connection with the model chosen, its profile, tool protocol and
// planned window (Connect, Conn), the server that makes embeddings for
// the index, and the wording of their errors for the user, which says
// what to run or change.
//
// It imports the model adapters, prompts (to check a profile), rag (for
// embedding keys) and config, never cmd/tern.
package backend

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/openai"
)

// Conn is a reachable model server (Ollama, or an OpenAI-compatible
// server) with the model chosen for this run: what Connect learned, for
// the run to use.
type Conn struct {
	// Kind is config.BackendOllama or config.BackendOpenAI; Addr is the
	// address asked.
	Kind      string
	Addr      string
	Client    ChatServer
	Installed []models.ModelInfo
	Info      models.ModelInfo
	// Why says how the model was chosen, for the user.
	Why  string
	Plan ollama.Plan
	// Proto is how tools reach the model, and why.
	Proto models.ToolProtocol
	// Profile is the model family's profile, with config overrides.
	Profile models.Profile
	// VRAM is the GPU memory planned for; RAM the free system RAM (0:
	// unknown), which a mixture of experts' plan uses too.
	VRAM, RAM int64
	// Server and Tools are what an OpenAI-compatible server said about
	// itself; Notes are notices for the session.
	Server openai.Server
	Tools  openai.ToolSupport
	Notes  []string
}

// Explain words err for the user, as the backend's errors need.
func (b *Conn) Explain(err error) error {
	if b.Kind == config.BackendOpenAI {
		return ExplainOpenAI(err, b.Client.Host(), b.Info.Name, b.Installed)
	}
	return Explain(err, b.Client.Host(), b.Info.Name, b.Installed)
}

// Resolved returns cfg naming the backend this run resolved to, so that
// what is opened after (the code index's embeddings) talks to the same
// server.
func (b *Conn) Resolved(cfg config.Config) config.Config {
	if b.Kind == config.BackendOpenAI {
		return cfg.WithOpenAI(b.Addr)
	}
	return cfg
}

// Connect reaches the server cfg names (Resolve), chooses the model and
// plans the context window; vram is the GPU memory to plan for, asked
// only of Ollama (an OpenAI-compatible server serves its own window).
// Its errors are written for the user: they say what to run to fix things.
func Connect(ctx context.Context, cfg config.Config, vram func(context.Context, config.Config) int64) (*Conn, error) {
	kind, addr, err := Resolve(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if kind == config.BackendOpenAI {
		return connectOpenAI(ctx, cfg, addr)
	}
	client, err := NewOllama(cfg, addr)
	if err != nil {
		return nil, err
	}
	installed, err := client.List(ctx)
	if errors.Is(err, models.ErrModelNotFound) {
		// Every Ollama answers /api/tags; a 404 there is another server.
		return nil, fmt.Errorf("the server at %s is not Ollama (it does not answer /api/tags): for llama-server, LM Studio or vLLM pass --backend openai", client.Host())
	}
	if err != nil {
		return nil, Explain(err, client.Host(), "", nil)
	}
	b := &Conn{Kind: config.BackendOllama, Addr: addr, Client: client, Installed: installed}
	name, why, err := models.ChooseModel(ctx, cfg.Model, installed, client.Show)
	if err != nil {
		return nil, Explain(err, client.Host(), cfg.Model, installed)
	}
	info, err := show(ctx, client, name, installed)
	if err != nil {
		return nil, Explain(err, client.Host(), name, installed)
	}
	b.Why = why
	b.VRAM, b.RAM = vram(ctx, cfg), RAM(cfg)
	if err := b.fit(cfg, info); err != nil {
		return nil, err
	}
	return b, nil
}

// NewOllama returns the client of the Ollama at addr, under the config's
// [stream] limits: tern ask, the TUI and tern doctor talk to it so.
func NewOllama(cfg config.Config, addr string) (*ollama.Client, error) {
	limits, err := cfg.Stream.Limits()
	if err != nil {
		return nil, err
	}
	client, err := ollama.New(addr, ollama.WithLimits(limits))
	if err != nil {
		return nil, err // it names the host: `ollama host "htp://x": scheme must be http or https`
	}
	return client, nil
}

// Another is the connection to another model installed on the same
// Ollama (explore's subagent_model, escalate_model): its own window,
// planned for the same VRAM (a different model loads on its own), its
// profile and its tool protocol; why says what it is for. An
// OpenAI-compatible server serves only the model it was started with.
func (b *Conn) Another(ctx context.Context, cfg config.Config, name, why string) (*Conn, error) {
	m, ok := models.Installed(name, b.Installed)
	if !ok {
		return nil, fmt.Errorf("not installed: run `ollama pull %s`", name)
	}
	name = m.Name // as the server lists it: "big" is "big:latest"
	client, ok := b.Client.(*ollama.Client)
	if !ok {
		// An OpenAI-compatible server serves the models it was started
		// with, in the window it was started with.
		return nil, fmt.Errorf("%s on the same server needs Ollama; %s serves its own model", why, b.Client.Host())
	}
	info, err := show(ctx, client, name, b.Installed)
	if err != nil {
		return nil, err
	}
	other := &Conn{Kind: b.Kind, Addr: b.Addr, Client: b.Client, Installed: b.Installed, Why: why, VRAM: b.VRAM, RAM: b.RAM}
	if err := other.fit(cfg, info); err != nil {
		return nil, err
	}
	return other, nil
}

// show asks Ollama about an installed model; its size comes from the
// list of installed models when the answer does not say it.
func show(ctx context.Context, client *ollama.Client, name string, installed []models.ModelInfo) (models.ModelInfo, error) {
	info, err := client.Show(ctx, name)
	if err != nil {
		return info, err
	}
	if info.SizeBytes == 0 {
		if i := slices.IndexFunc(installed, func(m models.ModelInfo) bool { return m.Name == info.Name }); i >= 0 {
			info.SizeBytes = installed[i].SizeBytes
		}
	}
	return info, nil
}

// fit makes info the connection's model: its window planned for b.VRAM,
// its profile with the config's overrides, and its tool protocol.
func (b *Conn) fit(cfg config.Config, info models.ModelInfo) error {
	b.Info = info
	b.Plan = ollama.PlanContext(info, ollama.Memory{VRAM: b.VRAM, RAM: b.RAM}, cfg.Ctx)
	var err error
	if b.Profile, err = Profile(info, cfg); err != nil {
		return err
	}
	b.Proto = models.ChooseToolProtocol(cfg.ToolMode, info, b.Profile)
	return nil
}

// VRAM is the GPU memory to plan for: --vram (flagged) or the config's
// vram, else what nvidia-smi reports, else 8 GiB.
func VRAM(ctx context.Context, cfg config.Config, flagged bool) int64 {
	v, _ := VRAMFrom(ctx, cfg, flagged)
	return v
}

// VRAMFrom is VRAM with where its figure comes from: "--vram", "vram in
// the config", "nvidia-smi", or "" when nothing measured the GPU and
// 8 GiB is assumed.
func VRAMFrom(ctx context.Context, cfg config.Config, flagged bool) (int64, string) {
	switch {
	case flagged:
		return int64(cfg.VRAMGiB * (1 << 30)), "--vram"
	case cfg.VRAMGiB != config.Default().VRAMGiB:
		return int64(cfg.VRAMGiB * (1 << 30)), "vram in the config"
	}
	if v, ok := ollama.DetectVRAM(ctx); ok {
		return v, "nvidia-smi"
	}
	return int64(cfg.VRAMGiB * (1 << 30)), ""
}

// RAM is the free system RAM to plan with: the config's ram (or --ram),
// else what the system reports available, else 0 (unknown).
func RAM(cfg config.Config) int64 {
	if cfg.RAMGiB > 0 {
		return int64(cfg.RAMGiB * (1 << 30))
	}
	if n, ok := ollama.DetectRAM(); ok {
		return n
	}
	return 0
}

// Hint is what Explain adds to err, for the TUI, which shows the error
// itself already; "" when it adds nothing.
func (b *Conn) Hint(err error) string {
	full := b.Explain(err).Error()
	if rest, ok := strings.CutPrefix(full, err.Error()); ok {
		return strings.TrimLeft(rest, ":. ")
	}
	if full == err.Error() {
		return ""
	}
	return full
}
