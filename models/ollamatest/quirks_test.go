package ollamatest_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ternhq/tern/models/ollamatest"
)

const toolsBody = `,"tools":[{"type":"function","function":{"name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}]`

// lines decodes an NDJSON body.
func lines(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for l := range bytes.Lines(body) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func TestRepeatLimitEndsStreamWithoutDone(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.TinyTools()), ollamatest.WithRepeatLimit(ollamatest.OllamaRepeatLimit))
	chunks := []string{"go"}
	for range 45 {
		chunks = append(chunks, " hello")
	}
	s.Script(ollamatest.Reply{Chunks: chunks}, ollamatest.Reply{Chunks: chunks})
	status, body, _ := do(t, "POST", s.URL()+"/api/chat", `{"model":"tiny-tools","messages":[{"role":"user","content":"hi"}]}`)
	ls := lines(t, body)
	// "go", then " hello" 31 times: the 32nd would be the 31st repeat.
	if status != 200 || len(ls) != 1+ollamatest.OllamaRepeatLimit+1 {
		t.Fatalf("status %d, %d lines, want 200 and %d", status, len(ls), ollamatest.OllamaRepeatLimit+2)
	}
	for _, l := range ls {
		if l["done"] != false {
			t.Fatalf("a line says done: %v", l)
		}
	}
	status, body, _ = do(t, "POST", s.URL()+"/api/chat", `{"model":"tiny-tools","stream":false,"messages":[{"role":"user","content":"hi"}]}`)
	var whole map[string]any
	if err := json.Unmarshal(body, &whole); err != nil || status != 200 || whole["done"] != false || whole["eval_count"] != nil {
		t.Errorf("stream:false: %d %s", status, body)
	}
}

func TestToolParserDropsUnparsableCalls(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.TinyTools()), ollamatest.WithToolParser())
	s.Script(
		ollamatest.Reply{Content: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\",}\n</tool_call>"},
		ollamatest.Reply{Content: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>"},
		ollamatest.Reply{Content: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\",}\n</tool_call>"},
	)
	req := `{"model":"tiny-tools","stream":false,"messages":[{"role":"user","content":"hi"}]`
	var got struct {
		Done    bool `json:"done"`
		Message struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				Function struct {
					Name      string         `json:"name"`
					Arguments map[string]any `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		EvalCount int `json:"eval_count"`
	}
	_, body, _ := do(t, "POST", s.URL()+"/api/chat", req+toolsBody+"}")
	if err := json.Unmarshal(body, &got); err != nil || !got.Done || got.Message.Content != "" || len(got.Message.ToolCalls) != 0 || got.EvalCount == 0 {
		t.Errorf("broken call with tools: want done, empty content, no calls, eval_count > 0; got %s", body)
	}
	_, body, _ = do(t, "POST", s.URL()+"/api/chat", req+toolsBody+"}")
	got.Message.ToolCalls = nil
	if err := json.Unmarshal(body, &got); err != nil || got.Message.Content != "" || len(got.Message.ToolCalls) != 1 || got.Message.ToolCalls[0].Function.Arguments["path"] != "a.go" {
		t.Errorf("valid call text with tools: want one parsed call; got %s", body)
	}
	// Without tools the parser does not run: the raw text arrives.
	_, body, _ = do(t, "POST", s.URL()+"/api/chat", req+"}")
	if err := json.Unmarshal(body, &got); err != nil || !strings.Contains(got.Message.Content, `"path": "a.go",}`) {
		t.Errorf("without tools: want the raw call text; got %s", body)
	}
}
