package backend

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openaitest"
)

// eightGiB is the GPU memory the tests plan for.
func eightGiB(context.Context, config.Config) int64 { return 8 << 30 }

// TestConnectOllama: the model chosen and why, the window planned for the
// VRAM given, the profile and the tool protocol; and the errors, worded.
func TestConnectOllama(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3(), ollamatest.Tiny(), ollamatest.NomicEmbed()))
	cfg := config.Default()
	cfg.Host = srv.URL()
	c, err := Connect(t.Context(), cfg, eightGiB)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != config.BackendOllama || c.Info.Name != "qwen3:8b" || c.Why != "best installed model with tool support" {
		t.Errorf("connected to %s %s (%s)", c.Kind, c.Info.Name, c.Why)
	}
	if c.VRAM != 8<<30 || c.Plan.NumCtx != 12288 || c.Plan.Source != "planned" {
		t.Errorf("planned %d tokens (%s) for %d bytes; want 12288 for 8 GiB", c.Plan.NumCtx, c.Plan.Source, c.VRAM)
	}
	if c.Profile.Name != "qwen3" || c.Proto.Text || len(c.Installed) != 3 || c.Info.SizeBytes == 0 {
		t.Errorf("profile %s, text protocol %v, %d installed, size %d", c.Profile.Name, c.Proto.Text, len(c.Installed), c.Info.SizeBytes)
	}

	tiny := cfg
	tiny.Model = ollamatest.Tiny().Name
	c, err = Connect(t.Context(), tiny, eightGiB)
	if err != nil {
		t.Fatal(err)
	}
	if c.Why != "requested" || !c.Proto.Text {
		t.Errorf("a model without tools: %s, text protocol %v; want requested, text", c.Why, c.Proto.Text)
	}

	missing := cfg
	missing.Model = "llama3"
	_, err = Connect(t.Context(), missing, eightGiB)
	if want := "model \"llama3\" is not installed: run `ollama pull llama3` (installed: "; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a model not installed: %v", err)
	}

	// A server that does not answer /api/tags is not Ollama.
	other := openaitest.New(t)
	notOllama := config.Default()
	notOllama.Backend, notOllama.Host = config.BackendOllama, other.URL()
	_, err = Connect(t.Context(), notOllama, eightGiB)
	if err == nil || !strings.Contains(err.Error(), "is not Ollama (it does not answer /api/tags): for llama-server, LM Studio or vLLM pass --backend openai") {
		t.Errorf("not Ollama: %v", err)
	}
}

// TestConnectOpenAI: the window is the server's, tools and usage are what
// it takes, each gap is a notice with its fix, and no VRAM is asked.
func TestConnectOpenAI(t *testing.T) {
	t.Parallel()
	noVRAM := func(context.Context, config.Config) int64 {
		t.Error("VRAM was asked for an OpenAI-compatible server")
		return 0
	}
	srv := openaitest.New(t, openaitest.WithFlavor(openaitest.LlamaServer))
	cfg := config.Default()
	cfg.BaseURL = srv.URL()
	c, err := Connect(t.Context(), cfg, noVRAM)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != config.BackendOpenAI || c.Info.Name != srv.Model() || c.Plan.NumCtx != openaitest.DefaultWindow || c.Proto.Text || len(c.Notes) != 0 {
		t.Errorf("connected to %s %s, %d tokens, text %v, notes %q", c.Kind, c.Info.Name, c.Plan.NumCtx, c.Proto.Text, c.Notes)
	}
	if got := c.Resolved(config.Default()); !got.UsesOpenAI() || got.OpenAIAddr() != c.Addr {
		t.Errorf("Resolved names %q (OpenAI %v), want the server at %s", got.OpenAIAddr(), got.UsesOpenAI(), c.Addr)
	}

	bare := openaitest.New(t, openaitest.WithFlavor(openaitest.LlamaServer), openaitest.WithoutTools(), openaitest.WithoutUsage())
	cfg.BaseURL = bare.URL()
	c, err = Connect(t.Context(), cfg, noVRAM)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Proto.Text || !strings.Contains(c.Proto.Why, "Start llama-server with --jinja for native tool calls.") {
		t.Errorf("no tools: text %v, why %q", c.Proto.Text, c.Proto.Why)
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "the server reports no token usage") {
		t.Errorf("no usage: notes %q", c.Notes)
	}

	hidden := openaitest.New(t, openaitest.WithFlavor(openaitest.VLLM), openaitest.WithHiddenWindow())
	cfg.BaseURL = hidden.URL()
	if _, err := Connect(t.Context(), cfg, noVRAM); err == nil || !strings.Contains(err.Error(), "pass --ctx N (vLLM's --max-model-len)") {
		t.Errorf("a window the server does not say: %v", err)
	}
	cfg.Ctx = 4096
	c, err = Connect(t.Context(), cfg, noVRAM)
	if err != nil || c.Plan.NumCtx != 4096 || len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "does not say its context window; using --ctx 4096") {
		t.Errorf("--ctx for a silent server: %v, %d tokens, notes %q", err, c.Plan.NumCtx, c.Notes)
	}
}

// TestHint: what the TUI adds under an error it already shows: the part
// Explain adds, the whole explanation when it rewords, "" when none.
func TestHint(t *testing.T) {
	t.Parallel()
	c := &Conn{Kind: config.BackendOllama, Client: fakeHost("h:1"), Info: models.ModelInfo{Name: "qwen3:8b"}}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("chat: %w", models.ErrBusy), "Ollama at h:1 is serving other requests; run again when it is free"},
		{models.ErrUnreachable, "cannot reach Ollama at h:1: start it with `ollama serve`"},
		{fmt.Errorf("odd"), ""},
	} {
		if got := c.Hint(tt.err); tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
			t.Errorf("Hint(%v) = %q, want it to start %q", tt.err, got, tt.want)
		}
	}
}

// fakeHost is a ChatServer that only says where it is.
type fakeHost string

func (h fakeHost) Chat(context.Context, models.Request, func(models.Delta)) (models.Reply, error) {
	return models.Reply{}, nil
}
func (h fakeHost) Host() string { return string(h) }

// TestVRAM: --vram or a configured vram is taken as given.
func TestVRAM(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	if got := VRAM(t.Context(), cfg, true); got != 8<<30 {
		t.Errorf("--vram 8: %d bytes", got)
	}
	cfg.VRAMGiB = 12
	if got := VRAM(t.Context(), cfg, false); got != 12<<30 {
		t.Errorf("vram = 12: %d bytes", got)
	}
}

// TestAnother: explore's subagent_model on the same Ollama gets its own
// window, profile and protocol; a model not installed, or a server that
// serves only its own model, is refused with the reason.
func TestAnother(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3(), ollamatest.Tiny()))
	cfg := config.Default()
	cfg.Host = srv.URL()
	c, err := Connect(t.Context(), cfg, eightGiB)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := c.Another(t.Context(), cfg, ollamatest.Tiny().Name, "subagent_model")
	if err != nil {
		t.Fatal(err)
	}
	if sub.Info.Name != ollamatest.Tiny().Name || sub.Info.SizeBytes == 0 || sub.VRAM != c.VRAM || !sub.Proto.Text || sub.Plan.NumCtx == 0 {
		t.Errorf("subagent model %s (%d bytes), VRAM %d, text %v, %d tokens", sub.Info.Name, sub.Info.SizeBytes, sub.VRAM, sub.Proto.Text, sub.Plan.NumCtx)
	}
	if c.Info.Name != "qwen3:8b" {
		t.Errorf("the session's connection changed to %s", c.Info.Name)
	}
	if _, err := c.Another(t.Context(), cfg, "llama3", "subagent_model"); err == nil || err.Error() != "not installed: run `ollama pull llama3`" {
		t.Errorf("a model not installed: %v", err)
	}

	oai := openaitest.New(t)
	cfg = config.Default()
	cfg.BaseURL = oai.URL()
	c, err = Connect(t.Context(), cfg, eightGiB)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Another(t.Context(), cfg, c.Info.Name, "subagent_model"); err == nil || !strings.Contains(err.Error(), "subagent_model on the same server needs Ollama; ") {
		t.Errorf("a subagent model on an OpenAI-compatible server: %v", err)
	}
}
