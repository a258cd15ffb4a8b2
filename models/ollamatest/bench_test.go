package ollamatest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models/ollamatest"
)

// BenchmarkTruncatedChat measures a request whose 200-message history
// overflows the window, so the server renders and counts the prompt once
// per dropped message, as the real chatPrompt does.
func BenchmarkTruncatedChat(b *testing.B) {
	s := ollamatest.NewServer(ollamatest.WithModels(ollamatest.Qwen3()),
		ollamatest.WithResponder(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "ok"} }))
	defer s.Close()
	msgs := []api.Message{{Role: "system", Content: "You are a coding agent."}}
	for i := range 200 {
		msgs = append(msgs, api.Message{Role: "user", Content: fmt.Sprintf("question %d %s", i, strings.Repeat("word ", 100))})
	}
	c := benchClient(b, s)
	req := &api.ChatRequest{Model: "qwen3:8b", Messages: msgs, Think: &api.ThinkValue{Value: false}, Options: map[string]any{"num_ctx": 4096}}
	for b.Loop() {
		if err := c.Chat(b.Context(), req, func(api.ChatResponse) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func benchClient(b *testing.B, s *ollamatest.Server) *api.Client {
	u, err := url.Parse(s.URL())
	if err != nil {
		b.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}
