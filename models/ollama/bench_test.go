package ollama_test

import (
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/ollamatest"
)

// BenchmarkChatStream measures the adapter's cost per streamed reply of
// 1,000 chunks from the fake server over loopback HTTP.
func BenchmarkChatStream(b *testing.B) {
	s := ollamatest.NewServer(ollamatest.WithModels(ollamatest.Qwen3()))
	defer s.Close()
	content := strings.Repeat("token ", 1000)
	s.Respond(func(_ api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: content} })
	c, err := ollama.New(s.URL())
	if err != nil {
		b.Fatal(err)
	}
	req := models.Request{Model: "qwen3:8b", Messages: []models.Message{{Role: models.RoleUser, Content: "hi"}}, Options: models.Options{NumCtx: 8192}}
	deltas := 0
	for b.Loop() {
		if _, err := c.Chat(b.Context(), req, func(models.Delta) { deltas++ }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(deltas)/float64(b.N), "deltas/op")
}

func BenchmarkPlanContext(b *testing.B) {
	for b.Loop() {
		_ = ollama.PlanContext(qwen3, ollama.Memory{VRAM: 8 << 30}, 0)
	}
}
