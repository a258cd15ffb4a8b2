package doctor

import (
	"context"
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openaitest"
)

// TestEscalationReport: doctor says whether escalate_model can be used,
// its window, and whether it and the session's model fit in VRAM
// together.
func TestEscalationReport(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3(), ollamatest.Qwen36MoE(), ollamatest.Tiny()))
	tests := []struct {
		name, escalate string
		vram           int64
		want           []string
	}{
		{"too big to share the GPU", "qwen3.6:35b-a3b", 8 << 30, []string{
			"Escalation  ✓ qwen3.6:35b-a3b: window 32768 tokens (planned); a stuck turn moves to it, or /escalate and tern ask --escalate",
			"              mixture of experts: Ollama offloads about 12 of its 40 layers; whole layers on the CPU: each token reads 1.5 GiB from RAM and 647 MiB from VRAM: at most ~24–40 tokens/s (DDR4–DDR5); real runs reach roughly a quarter to a half of it",
			"              qwen3:8b and qwen3.6:35b-a3b do not fit in 8.0 GiB together (7.5 GiB + 7.3 GiB): Ollama unloads one to load the other, and tern shows the load times",
		}},
		// The session's window fills what its weights leave of 8 GiB; on
		// 24 GiB the 32k window leaves room.
		{"small enough to share", "tiny", 24 << 30, []string{
			"Escalation  ✓ tiny:latest: window 4096 tokens (planned); a stuck turn moves to it, or /escalate and tern ask --escalate",
			"              qwen3:8b and tiny:latest fit in 24.0 GiB together: no reload",
		}},
		{"not installed", "huge:70b", 8 << 30, []string{
			"Escalation  · escalate_model huge:70b cannot be used: not installed: run `ollama pull huge:70b`",
			"              a stuck turn stops instead, and /escalate and tern ask --escalate refuse",
		}},
		{"a host without a model", "", 8 << 30, []string{
			"Escalation  · escalate_host http://127.0.0.1:9 is set but escalate_model is not: nothing to escalate to",
		}},
		{"the session's own", "qwen3:8b", 8 << 30, []string{
			"Escalation  · escalate_model qwen3:8b is the session's own model: a stuck turn stops instead",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCheckup(t, func(cfg *config.Config) {
				cfg.Host, cfg.Model, cfg.EscalateModel, cfg.RAMGiB = srv.URL(), "qwen3:8b", tt.escalate, 28
				if tt.escalate == "" {
					cfg.EscalateHost = "http://127.0.0.1:9"
				}
			})
			c.env.VRAM = func(context.Context, config.Config) int64 { return tt.vram }
			report, _ := c.run(t)
			lines(t, report, tt.want...)
		})
	}
}

// TestEscalationOnAnotherServer: escalate_host names a second
// llama-server, which doctor asks for its model and window.
func TestEscalationOnAnotherServer(t *testing.T) {
	t.Parallel()
	small := openaitest.New(t, openaitest.WithWindow(8192))
	big := openaitest.New(t, openaitest.WithModel("qwen3.6-35b-a3b"), openaitest.WithWindow(32768))
	c := newCheckup(t, func(cfg *config.Config) {
		cfg.SetHost(small.URL())
		cfg.EscalateModel, cfg.EscalateHost = "qwen3.6-35b-a3b", big.URL()
	})
	report, err := c.run(t)
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	lines(t, report, "Escalation  ✓ qwen3.6-35b-a3b at "+big.URL()+": window 32768 tokens (llama-server /props default_generation_settings.n_ctx); a stuck turn moves to it, or /escalate and tern ask --escalate")
}
