package openai_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/openai"
)

// BenchmarkChatStream reads a 2,000-token reply with a tool call whose
// arguments arrive in 500 pieces, as llama-server streams it: the cost
// tern adds per streamed token.
func BenchmarkChatStream(b *testing.B) {
	var body strings.Builder
	chunk := func(delta string) {
		fmt.Fprintf(&body, `data: {"choices":[{"finish_reason":null,"index":0,"delta":%s}],"created":1,"id":"chatcmpl-x","model":"m","object":"chat.completion.chunk"}`+"\n\n", delta)
	}
	chunk(`{"role":"assistant","content":null}`)
	for range 1500 {
		chunk(`{"content":" word"}`)
	}
	chunk(`{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"write_file","arguments":""}}]}`)
	chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\"a.go\",\"content\":\""}}]}`)
	for range 500 {
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"line\\n"}}]}`)
	}
	chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]}`)
	body.WriteString(`data: {"choices":[{"finish_reason":"tool_calls","index":0,"delta":{}}],"object":"chat.completion.chunk"}` + "\n\n")
	body.WriteString(`data: {"choices":[],"usage":{"prompt_tokens":3000,"completion_tokens":2003,"total_tokens":5003}}` + "\n\ndata: [DONE]\n\n")
	data := body.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(data))
	}))
	defer srv.Close()
	c, _ := openai.New(srv.URL, "")
	req := models.Request{Model: "m", Messages: []models.Message{{Role: models.RoleUser, Content: "hi"}}}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := c.Chat(b.Context(), req, func(models.Delta) {})
		if err != nil || len(r.Message.ToolCalls) != 1 || r.Metrics.PromptTokens != 3000 {
			b.Fatalf("reply %+v, %v", r, err)
		}
	}
}
