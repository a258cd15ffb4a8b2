package backend

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/openai"
)

// TestExplain: each error a server gives is worded with what to run.
func TestExplain(t *testing.T) {
	t.Parallel()
	installed := []models.ModelInfo{{Name: "qwen3:8b"}, {Name: "gemma3:4b"}}
	for _, tt := range []struct {
		name string
		got  error
		want string
	}{
		{"unreachable", Explain(models.ErrUnreachable, "h:1", "", nil), "cannot reach Ollama at h:1: start it with `ollama serve`"},
		{"no chat model", Explain(models.ErrNoChatModel, "h:1", "", nil), "run `ollama pull qwen3:8b`"},
		{"not installed", Explain(models.ErrModelNotFound, "h:1", "llama3", installed), "model \"llama3\" is not installed: run `ollama pull llama3` (installed: qwen3:8b, gemma3:4b)"},
		{"nothing installed", Explain(models.ErrModelNotFound, "h:1", "llama3", nil), "(installed: none)"},
		{"busy", Explain(fmt.Errorf("chat: %w", models.ErrBusy), "h:1", "", nil), "OLLAMA_NUM_PARALLEL"},
		{"crashed", Explain(models.ErrRunnerCrashed, "h:1", "", nil), "try a smaller --ctx or model"},
		{"other", Explain(errors.New("odd"), "h:1", "", nil), "odd"},
		{"openai unreachable", ExplainOpenAI(models.ErrUnreachable, "h:8080", "", nil), "llama-server -m MODEL.gguf --jinja"},
		{"openai key", ExplainOpenAI(openai.ErrUnauthorized, "h:8080", "", nil), "set TERN_API_KEY (or OPENAI_API_KEY)"},
		{"openai not served", ExplainOpenAI(models.ErrModelNotFound, "h:8080", "x", installed), "(served: qwen3:8b, gemma3:4b): pass --model"},
	} {
		if tt.got == nil || !strings.Contains(tt.got.Error(), tt.want) {
			t.Errorf("%s: %v, want it to say %q", tt.name, tt.got, tt.want)
		}
	}
	if err := fmt.Errorf("x: %w", models.ErrBusy); !errors.Is(Explain(err, "h", "", nil), models.ErrBusy) {
		t.Error("the explained error no longer wraps ErrBusy")
	}
}

// TestServedWindow: the window is the server's, or less when --ctx asks
// for less; --ctx only when the server does not say; never a guess.
func TestServedWindow(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		srv    openai.Server
		ctx    int
		numCtx int
		source string // or the error's words
	}{
		{"the server's", openai.Server{Window: 8192, WindowSource: "/props"}, 0, 8192, "/props"},
		{"--ctx below it", openai.Server{Window: 8192, WindowSource: "/props"}, 4096, 4096, "--ctx; the server serves 8192 (/props)"},
		{"--ctx above it", openai.Server{Window: 8192, WindowSource: "/props"}, 16384, 8192, "--ctx 16384 is more than the server serves"},
		{"--ctx, the server silent", openai.Server{}, 4096, 4096, "--ctx (the server does not say its window)"},
		{"llama-server silent", openai.Server{Kind: openai.LlamaServer}, 0, 0, "the -c/--ctx-size the server was started with"},
		{"vLLM silent", openai.Server{Kind: openai.VLLM}, 0, 0, "vLLM's --max-model-len"},
		{"LM Studio, not loaded", openai.Server{Kind: openai.LMStudio}, 0, 0, "load the model in LM Studio first"},
	} {
		plan, err := ServedWindow(tt.srv, tt.ctx, "h:8080")
		got := plan.Source
		if err != nil {
			got = err.Error()
		}
		if plan.NumCtx != tt.numCtx || !strings.Contains(got, tt.source) {
			t.Errorf("%s: %d tokens, %q; want %d, %q", tt.name, plan.NumCtx, got, tt.numCtx, tt.source)
		}
	}
}
