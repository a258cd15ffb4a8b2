package ollamatest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models/ollamatest"
)

func TestLoadScript(t *testing.T) {
	tests := []struct {
		file string
		want []ollamatest.Reply
	}{
		{"testdata/script.json", []ollamatest.Reply{
			{Thinking: "The user wants the files.", ToolCalls: []ollamatest.Call{{Name: "list_dir", Args: `{"path":".","depth":1}`}}},
			{Content: "There are two files.", ChunkDelay: 5 * time.Millisecond, DoneReason: "stop"},
			{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"go.mod"}`}}, PromptEvalCount: 1234},
			{Status: 500, Error: "error parsing tool call: raw='{'"},
			{Content: "partial", DropAfter: 1},
		}},
		{"testdata/script.ndjson", []ollamatest.Reply{
			{Content: "first", Chunks: []string{"fir", "st"}},
			{StreamError: "boom", MalformedLine: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ollamatest.LoadScript(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadScriptRejectsUnknownKeys(t *testing.T) {
	_, err := ollamatest.LoadScript("testdata/script-typo.ndjson")
	if err == nil || !strings.Contains(err.Error(), "contnet") {
		t.Errorf("error %v, want one naming the misspelt key", err)
	}
}

func listDirTool(param string) api.Tool {
	props := api.NewToolPropertiesMap()
	props.Set(param, api.ToolProperty{Type: api.PropertyType{"string"}})
	return api.Tool{Type: "function", Function: api.ToolFunction{
		Name: "list_dir", Parameters: api.ToolFunctionParameters{Type: "object", Properties: props, Required: []string{param}},
	}}
}

func TestDemoResponder(t *testing.T) {
	tests := []struct {
		name         string
		req          api.ChatRequest
		wantCall     string // args of a list_dir call, "" for none
		wantContains []string
	}{
		{
			name:     "new question with list_dir offered",
			req:      api.ChatRequest{Messages: user("what is in this repo?"), Tools: api.Tools{readFileTool(), listDirTool("path")}},
			wantCall: `{"path":"."}`,
		},
		{
			name:     "list_dir with another parameter name",
			req:      api.ChatRequest{Messages: user("look around"), Tools: api.Tools{listDirTool("dir")}},
			wantCall: `{"dir":"."}`,
		},
		{
			name: "after the tool result",
			req: api.ChatRequest{Tools: api.Tools{listDirTool("path")}, Messages: []api.Message{
				{Role: "user", Content: "what is in this repo?"},
				{Role: "assistant", ToolCalls: []api.ToolCall{{ID: "call_1", Function: api.ToolCallFunction{Name: "list_dir"}}}},
				{Role: "tool", ToolName: "list_dir", ToolCallID: "call_1", Content: "go.mod\nmain.go\nREADME.md\n"},
			}},
			wantContains: []string{"list_dir", "3 lines", "go.mod", "main.go", "README.md"},
		},
		{
			name: "a second question lists again",
			req: api.ChatRequest{Tools: api.Tools{listDirTool("path")}, Messages: []api.Message{
				{Role: "user", Content: "first"},
				{Role: "tool", ToolName: "list_dir", Content: "a"},
				{Role: "assistant", Content: "done"},
				{Role: "user", Content: "and now?"},
			}},
			wantCall: `{"path":"."}`,
		},
		{
			name:         "no tools",
			req:          api.ChatRequest{Messages: user("hello")},
			wantContains: []string{"fakeollama", `"hello"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ollamatest.DemoResponder(tt.req)
			if r.ChunkDelay != ollamatest.DemoChunkDelay {
				t.Errorf("chunk delay %v", r.ChunkDelay)
			}
			switch {
			case tt.wantCall != "" && (len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "list_dir" || r.ToolCalls[0].Args != tt.wantCall):
				t.Errorf("calls %+v, want list_dir %s", r.ToolCalls, tt.wantCall)
			case tt.wantCall == "" && len(r.ToolCalls) > 0:
				t.Errorf("unexpected calls %+v", r.ToolCalls)
			}
			for _, w := range tt.wantContains {
				if !strings.Contains(r.Content, w) {
					t.Errorf("content %q lacks %q", r.Content, w)
				}
			}
		})
	}
}

// TestDemoConversation drives the demo through the server as tern would:
// a call, its result, then the answer.
func TestDemoConversation(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()), ollamatest.WithResponder(ollamatest.DemoResponder))
	no := &api.ThinkValue{Value: false}
	msgs := user("what is here?")
	chunks, err := chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: msgs, Tools: api.Tools{listDirTool("path")}, Think: no})
	if err != nil {
		t.Fatal(err)
	}
	var calls []api.ToolCall
	for _, c := range chunks {
		calls = append(calls, c.Message.ToolCalls...)
	}
	if len(calls) != 1 {
		t.Fatalf("calls %+v, want one list_dir", calls)
	}
	msgs = append(msgs,
		api.Message{Role: "assistant", ToolCalls: calls},
		api.Message{Role: "tool", ToolName: "list_dir", ToolCallID: calls[0].ID, Content: "cmd/\nmodels/\ngo.mod"})
	chunks, err = chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: msgs, Tools: api.Tools{listDirTool("path")}, Think: no})
	if err != nil {
		t.Fatal(err)
	}
	content, thinking := joined(chunks)
	if !strings.Contains(content, "models/") || thinking != "" || len(chunks) < 10 {
		t.Errorf("answer %q (thinking %q, %d chunks), want a streamed summary naming models/", content, thinking, len(chunks))
	}
}
