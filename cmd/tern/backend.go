package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/openai"
)

// backend is a reachable model server (Ollama, or an OpenAI-compatible
// server) with the model chosen for this run.
type backend struct {
	// kind is backendOllama or backendOpenAI; addr is the address asked.
	kind      string
	addr      string
	client    chatServer
	installed []models.ModelInfo
	info      models.ModelInfo
	// why says how the model was chosen, for the user.
	why       string
	plan      ollama.Plan
	textTools bool
	// constrained holds the text protocol's replies to a JSON schema.
	constrained bool
	// profile is the model family's profile, with config overrides.
	profile models.Profile
	// textWhy says why the text tool protocol is used, for a notice.
	textWhy string
	// vram is the GPU memory planned for.
	vram int64
	// server and tools are what an OpenAI-compatible server said about
	// itself; notes are notices for the session.
	server openai.Server
	tools  openai.ToolSupport
	notes  []string
}

// explain words err for the user, as the backend's errors need.
func (b *backend) explain(err error) error {
	if b.kind == backendOpenAI {
		return explainOpenAI(err, b.client.Host(), b.info.Name, b.installed)
	}
	return explain(err, b.client.Host(), b.info.Name, b.installed)
}

// resolved returns cfg naming the backend this run resolved to, so that
// what is opened after (the code index's embeddings) talks to the same
// server.
func (b *backend) resolved(cfg Config) Config {
	if b.kind == backendOpenAI {
		cfg.Backend, cfg.BaseURL, cfg.hostFlag = backendOpenAI, b.addr, false
	}
	return cfg
}

// connect reaches Ollama, chooses the model and plans the context window.
// Its errors are written for the user: they say what to run to fix things.
func (a *app) connect(ctx context.Context, cfg Config) (*backend, error) {
	kind, addr, err := a.resolveBackend(ctx, cfg)
	if err != nil {
		return nil, err
	}
	limits, err := cfg.Stream.limits()
	if err != nil {
		return nil, err
	}
	if kind == backendOpenAI {
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
		return nil, explain(err, client.Host(), "", nil)
	}
	b := &backend{kind: backendOllama, addr: addr, client: client, installed: installed}
	name, why, err := chooseModel(ctx, cfg.Model, installed, client.Show)
	if err != nil {
		return nil, explain(err, client.Host(), cfg.Model, installed)
	}
	info, err := client.Show(ctx, name)
	if err != nil {
		return nil, explain(err, client.Host(), name, installed)
	}
	if info.SizeBytes == 0 {
		if i := slices.IndexFunc(installed, func(m models.ModelInfo) bool { return m.Name == name }); i >= 0 {
			info.SizeBytes = installed[i].SizeBytes
		}
	}
	b.info, b.why = info, why
	b.vram = a.vramBytes(ctx, cfg)
	b.plan = ollama.PlanContext(info, b.vram, cfg.Ctx)
	if b.profile, err = profileFor(info, cfg); err != nil {
		return nil, err
	}
	b.textTools, b.textWhy = toolMode(cfg, info, b.profile)
	b.constrained = effectiveToolMode(cfg, b.profile) == "constrained"
	return b, nil
}

// vramBytes is the GPU memory to plan for: --vram or the config, else what
// nvidia-smi reports, else 8 GiB.
func (a *app) vramBytes(ctx context.Context, cfg Config) int64 {
	explicit := a.cmd.PersistentFlags().Changed("vram") || cfg.VRAMGiB != defaultConfig().VRAMGiB
	if !explicit {
		if v, ok := ollama.DetectVRAM(ctx); ok {
			return v
		}
	}
	return int64(cfg.VRAMGiB * (1 << 30))
}

// chooseModel resolves the model to use. A requested name must be installed
// ("qwen3" matches "qwen3:latest"); with none requested, the best installed
// chat model is picked, preferring tool support, a family that handles
// tools well and a size that fits a laptop GPU.
func chooseModel(ctx context.Context, want string, installed []models.ModelInfo, show func(context.Context, string) (models.ModelInfo, error)) (name, why string, err error) {
	if want != "" {
		for _, m := range installed {
			if m.Name == want || m.Name == want+":latest" {
				if info, err := show(ctx, m.Name); err == nil && !canChat(info) {
					return "", "", notChatError{name: m.Name, caps: capStrings(info)}
				}
				return m.Name, "requested", nil
			}
		}
		return "", "", fmt.Errorf("%w: %s", models.ErrModelNotFound, want)
	}
	type candidate struct {
		info  models.ModelInfo
		score int
	}
	var cands []candidate
	for _, m := range installed {
		info, err := show(ctx, m.Name)
		if err != nil {
			continue // a model that cannot be shown cannot be used either
		}
		if !canChat(info) {
			continue
		}
		info.ParameterSize = cmp.Or(info.ParameterSize, m.ParameterSize)
		cands = append(cands, candidate{info, modelScore(m.Name, info)})
	}
	if len(cands) == 0 {
		return "", "", errNoChatModel
	}
	slices.SortStableFunc(cands, func(x, y candidate) int { return cmp.Compare(y.score, x.score) })
	best := cands[0].info
	why = "best installed model with tool support"
	if !best.Has(models.CapTools) {
		why = "no installed model supports tools natively; best chat model"
	}
	return best.Name, why, nil
}

var errNoChatModel = errors.New("no chat model installed")

// canChat reports whether a model can answer /api/chat: it lists the
// completion capability, and is not an embedding model. A model that
// lists no capabilities at all (an old server) is given the benefit of
// the doubt.
func canChat(info models.ModelInfo) bool {
	if len(info.Capabilities) == 0 {
		return true
	}
	return info.Has(models.CapCompletion) && !info.Has(models.CapEmbedding)
}

// notChatError is a requested chat model that cannot chat, such as an
// embedding model: Ollama would answer every chat request with a 400.
type notChatError struct {
	name string
	caps []string
}

func (e notChatError) Error() string {
	kind := "cannot chat"
	if slices.Contains(e.caps, string(models.CapEmbedding)) {
		kind = "is an embedding model and cannot chat"
	}
	return fmt.Sprintf("%s %s (capabilities: %s); choose a chat model with --model (`tern doctor` lists what each installed model can do)",
		e.name, kind, strings.Join(e.caps, ", "))
}

// preferredFamilies rank families by how well their 4B–8B models use tools.
var preferredFamilies = []string{"qwen3", "qwen2.5-coder", "qwen2.5", "llama3.1", "llama3.2", "granite3", "mistral"}

// modelScore ranks a model for automatic choice: tools first, then a size
// that fits an 8 GB GPU, then family.
func modelScore(name string, info models.ModelInfo) int {
	score := 0
	if info.Has(models.CapTools) {
		score += 1000
	}
	if b := billions(info.ParameterSize); b >= 3.5 && b <= 9 {
		score += 300
	} else if b > 0 && b < 3.5 {
		score += 200
	} else if b > 9 && b <= 15 {
		score += 100
	}
	n := strings.ToLower(name)
	for i, f := range preferredFamilies {
		if strings.HasPrefix(n, f) || strings.HasPrefix(strings.ToLower(info.Family), f) {
			score += 10 * (len(preferredFamilies) - i)
			break
		}
	}
	return score
}

// billions parses a parameter size such as "8.2B" or "513M".
func billions(size string) float64 {
	size = strings.TrimSpace(strings.ToUpper(size))
	mult := 1.0
	switch {
	case strings.HasSuffix(size, "B"):
		size = strings.TrimSuffix(size, "B")
	case strings.HasSuffix(size, "M"):
		size, mult = strings.TrimSuffix(size, "M"), 1e-3
	case strings.HasSuffix(size, "K"):
		size, mult = strings.TrimSuffix(size, "K"), 1e-6
	}
	f, err := strconv.ParseFloat(size, 64)
	if err != nil {
		return 0
	}
	return f * mult
}

// explain turns a backend error into one the user can act on.
func explain(err error, host, model string, installed []models.ModelInfo) error {
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, models.ErrUnreachable):
		return fmt.Errorf("cannot reach Ollama at %s: start it with `ollama serve` (or open the Ollama app), or point --host / OLLAMA_HOST at a running server", host)
	case errors.Is(err, errNoChatModel):
		return fmt.Errorf("no chat model is installed in Ollama at %s: run `ollama pull qwen3:8b` (or another model with tool support)", host)
	case errors.Is(err, models.ErrModelNotFound):
		names := make([]string, len(installed))
		for i, m := range installed {
			names[i] = m.Name
		}
		have := "none"
		if len(names) > 0 {
			have = strings.Join(names, ", ")
		}
		return fmt.Errorf("model %q is not installed: run `ollama pull %s` (installed: %s)", model, model, have)
	case errors.Is(err, models.ErrBusy):
		return fmt.Errorf("%w: Ollama at %s is serving other requests; run again when it is free, or let it take more (OLLAMA_NUM_PARALLEL, OLLAMA_MAX_QUEUE where Ollama runs)", err, host)
	case errors.Is(err, models.ErrRunnerCrashed):
		return fmt.Errorf("%w. %s", err, serverLogHint+"; a model that does not fit crashes so: try a smaller --ctx or model, or pull the model again if its file is damaged")
	case errors.Is(err, models.ErrIncomplete):
		return fmt.Errorf("%w: Ollama closed the connection before the reply was complete; run again (tern ask --resume continues the session). %s", err, serverLogHint)
	}
	var se api.StatusError
	if errors.As(err, &se) && se.StatusCode >= 500 {
		return fmt.Errorf("%w: an error inside Ollama, not tern's. %s; `tern doctor` checks the model and its window", err, serverLogHint)
	}
	return err
}

// hint is what explain adds to err, for the TUI, which shows the error
// itself already; "" when it adds nothing.
func (b *backend) hint(err error) string {
	full := b.explain(err).Error()
	if rest, ok := strings.CutPrefix(full, err.Error()); ok {
		return strings.TrimLeft(rest, ":. ")
	}
	if full == err.Error() {
		return ""
	}
	return full
}

// serverLogHint says where Ollama explains its failures.
const serverLogHint = "Ollama's server log says why (`journalctl -u ollama` on Linux, ~/.ollama/logs/server.log on macOS, or the terminal running `ollama serve`)"
