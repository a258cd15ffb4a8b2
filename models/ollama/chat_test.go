package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
)

func userMsg(text string) []models.Message {
	return []models.Message{{Role: models.RoleUser, Content: text}}
}

func readFileSpec() models.ToolSpec {
	return models.ToolSpec{
		Name:        "read_file",
		Description: "Read a file.",
		Parameters: models.Schema(
			models.Param{Name: "path", Type: "string", Description: "file path", Required: true},
			models.Param{Name: "limit", Type: "integer"},
			models.Param{Name: "offset", Type: "integer"},
		),
	}
}

func TestChatStreamsAndReportsMetrics(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	s.Script(ollamatest.Reply{Thinking: "Short answer.", Content: "Hello from the fake model.", DoneReason: "stop"})
	c := newClient(t, s)
	var deltas []models.Delta
	reply, err := c.Chat(t.Context(), models.Request{
		Model: "qwen3:8b", Messages: userMsg("hi"),
		Options: models.Options{NumCtx: 8192, Think: "true"},
	}, func(d models.Delta) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	var content, thinking strings.Builder
	for _, d := range deltas {
		if (d.Content == "") == (d.Thinking == "") {
			t.Errorf("delta %+v: want exactly one non-empty piece", d)
		}
		content.WriteString(d.Content)
		thinking.WriteString(d.Thinking)
	}
	if len(deltas) < 5 {
		t.Errorf("%d deltas, want the reply streamed in pieces", len(deltas))
	}
	if content.String() != reply.Message.Content || reply.Message.Content != "Hello from the fake model." {
		t.Errorf("content %q, deltas %q", reply.Message.Content, content.String())
	}
	if thinking.String() != "Short answer." || reply.Message.Thinking != "Short answer." {
		t.Errorf("thinking %q, deltas %q", reply.Message.Thinking, thinking.String())
	}
	rec := s.Records()[0]
	m := reply.Metrics
	if reply.DoneReason != "stop" || m.PromptTokens != rec.PromptEvalCount || m.PromptTokens == 0 || m.EvalTokens == 0 ||
		m.TotalDuration == 0 || m.LoadDuration == 0 || m.PromptDuration == 0 || m.EvalDuration == 0 || m.TokensPerSecond() == 0 {
		t.Errorf("reply %+v, want done reason and non-zero metrics", reply)
	}
	if reply.Message.Role != models.RoleAssistant {
		t.Errorf("role %q", reply.Message.Role)
	}
}

func TestChatSendsOptionsExplicitly(t *testing.T) {
	temp := 0.2
	tests := []struct {
		name string
		opts models.Options
		want string // the request's options, keep_alive and think as JSON
	}{
		{"defaults", models.Options{NumCtx: 8192},
			`{"options":{"num_ctx":8192},"keep_alive":"30m0s","think":false}`},
		{"everything", models.Options{NumCtx: 4096, NumPredict: 512, Temperature: &temp, Stop: []string{"END"}, KeepAlive: time.Hour, Think: "true"},
			`{"options":{"num_ctx":4096,"num_predict":512,"stop":["END"],"temperature":0.2},"keep_alive":"1h0m0s","think":true}`},
		{"keep loaded forever", models.Options{NumCtx: 4096, KeepAlive: -1},
			`{"options":{"num_ctx":4096},"keep_alive":"2562047h47m16.854775807s","think":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
			s.Script(ollamatest.Reply{Content: "ok"})
			if _, err := newClient(t, s).Chat(t.Context(), models.Request{Model: "qwen3:8b", Messages: userMsg("hi"), Options: tt.opts}, nil); err != nil {
				t.Fatal(err)
			}
			req := s.Requests()[0]
			got, _ := json.Marshal(struct {
				Options   map[string]any  `json:"options"`
				KeepAlive *api.Duration   `json:"keep_alive"`
				Think     *api.ThinkValue `json:"think"`
			}{req.Options, req.KeepAlive, req.Think})
			if string(got) != tt.want {
				t.Errorf("sent %s\nwant %s", got, tt.want)
			}
		})
	}
}

// A model without the thinking capability must accept think:false, which
// the adapter always sends.
func TestChatThinkFalseToPlainModel(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Tiny()))
	s.Script(ollamatest.Reply{Content: "ok"})
	reply, err := newClient(t, s).Chat(t.Context(), models.Request{Model: "tiny", Messages: userMsg("hi"), Options: models.Options{NumCtx: 2048}}, nil)
	if err != nil || reply.Message.Content != "ok" {
		t.Fatalf("reply %q, %v", reply.Message.Content, err)
	}
}

func TestToolCallRoundTripKeepsOrder(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	const args = `{"path":"main.go","limit":20,"offset":1}`
	s.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: args}, {Name: "read_file", Args: `{"path":"go.mod"}`}}},
		ollamatest.Reply{Content: "main.go starts the program."},
	)
	c := newClient(t, s)
	req := models.Request{Model: "qwen3:8b", Messages: userMsg("what does main.go do?"), Tools: []models.ToolSpec{readFileSpec()},
		Options: models.Options{NumCtx: 8192}}
	reply, err := c.Chat(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := reply.Message.ToolCalls
	if len(calls) != 2 || calls[0].Name != "read_file" || string(calls[0].Arguments) != args || !strings.HasPrefix(calls[0].ID, "call_") {
		t.Fatalf("calls %+v, want read_file %s with a call_ id", calls, args)
	}

	// The tool spec went out with its properties in order.
	sent, _ := json.Marshal(s.Requests()[0].Tools)
	wantTools := `[{"type":"function","function":{"name":"read_file","description":"Read a file.","parameters":{"type":"object","required":["path"],"properties":{"path":{"type":"string","description":"file path"},"limit":{"type":"integer"},"offset":{"type":"integer"}}}}}]`
	if string(sent) != wantTools {
		t.Errorf("tools sent %s\nwant %s", sent, wantTools)
	}

	req.Messages = append(req.Messages, reply.Message,
		models.Message{Role: models.RoleTool, ToolName: "read_file", ToolCallID: calls[0].ID, Content: "package main"},
		models.Message{Role: models.RoleTool, ToolName: "read_file", ToolCallID: calls[1].ID, Content: "module x"})
	reply, err = c.Chat(t.Context(), req, nil)
	if err != nil || reply.Message.Content != "main.go starts the program." {
		t.Fatalf("second reply %q, %v", reply.Message.Content, err)
	}
	history := s.Requests()[1].Messages
	if len(history) != 4 {
		t.Fatalf("history %+v", history)
	}
	got := history[1].ToolCalls
	if len(got) != 2 || got[0].ID != calls[0].ID || got[0].Function.Name != "read_file" || got[0].Function.Arguments.String() != args {
		t.Errorf("assistant tool calls sent back %+v, want the same id and %s", got, args)
	}
	tool := history[2]
	if tool.Role != "tool" || tool.ToolName != "read_file" || tool.ToolCallID != calls[0].ID || tool.Content != "package main" {
		t.Errorf("tool message sent %+v", tool)
	}
}

func TestChatErrors(t *testing.T) {
	tests := []struct {
		name        string
		model       string
		think       string
		tools       bool
		reply       *ollamatest.Reply
		want        error // sentinel, or nil for a plain error
		wantText    string
		wantContent string
	}{
		{name: "model not pulled", model: "nope", want: models.ErrModelNotFound, wantText: "model 'nope' not found"},
		{name: "no tools", model: "tiny", tools: true, want: models.ErrNoTools, wantText: "registry.ollama.ai/library/tiny:latest does not support tools"},
		{name: "no thinking", model: "tiny", think: "true", want: models.ErrNoThinking, wantText: `"tiny" does not support thinking`},
		{name: "no thinking level", model: "qwen3:8b", think: "low", want: models.ErrNoThinking, wantText: `think value "low" is not supported`},
		{name: "tool call parse 500", model: "qwen3:8b", tools: true,
			reply: &ollamatest.Reply{Status: 500, Error: "error parsing tool call: raw='{\"name\": read_file', err=invalid character"},
			want:  models.ErrToolParse, wantText: "raw='{\"name\": read_file'"},
		{name: "tool call parse before any chunk", model: "qwen3:8b", tools: true,
			reply: &ollamatest.Reply{StreamError: "error parsing tool call: raw='x'"}, want: models.ErrToolParse},
		{name: "tool call parse mid-stream", model: "qwen3:8b", tools: true,
			reply: &ollamatest.Reply{Content: "Let me look", StreamError: "error parsing tool call: raw='x'"}, want: models.ErrToolParse, wantContent: "Let me look"},
		{name: "error line inside the stream", model: "qwen3:8b",
			reply:    &ollamatest.Reply{Content: "one two three", StreamError: "model runner has unexpectedly stopped"},
			wantText: "ollama chat qwen3:8b: model runner has unexpectedly stopped", wantContent: "one two three"},
		{name: "stream dropped", model: "qwen3:8b", reply: &ollamatest.Reply{Content: "one two three four", DropAfter: 2},
			want: models.ErrIncomplete, wantContent: "one two"},
		{name: "connection closed before any answer", model: "qwen3:8b", reply: &ollamatest.Reply{Content: "one", DropAfter: -1},
			want: models.ErrIncomplete},
		{name: "malformed line", model: "qwen3:8b", reply: &ollamatest.Reply{Content: "one two three four", MalformedLine: true},
			wantText: `{"model":"qwen3:8b"`, wantContent: "one two"},
		{name: "other status", model: "qwen3:8b", reply: &ollamatest.Reply{Status: 502, Error: "bad gateway"},
			wantText: "502 Bad Gateway: bad gateway"},
		{name: "busy", model: "qwen3:8b", reply: &ollamatest.Reply{Status: 503, Error: ollamatest.MsgBusy},
			want: models.ErrBusy, wantText: "server busy, please try again"},
		{name: "runner died loading", model: "qwen3:8b", reply: &ollamatest.Reply{Status: 500, Error: ollamatest.MsgRunnerTerminated},
			want: models.ErrRunnerCrashed, wantText: "llama runner process has terminated: exit status 2"},
		{name: "runner gone before the load request", model: "qwen3:8b", reply: &ollamatest.Reply{Status: 500, Error: ollamatest.MsgRunnerLoadFailed},
			want: models.ErrRunnerCrashed, wantText: "model failed to load"},
		{name: "runner died generating", model: "qwen3:8b", reply: &ollamatest.Reply{Content: "one two", StreamError: ollamatest.MsgRunnerError},
			want: models.ErrRunnerCrashed, wantText: "error was encountered while running the model", wantContent: "one two"},
		{name: "qwen3 parser 500", model: "qwen3:8b", tools: true, reply: &ollamatest.Reply{Status: 500, Error: ollamatest.MsgQwen3ToolParse},
			want: models.ErrToolParse, wantText: "failed to parse JSON: unexpected end of JSON input"},
		{name: "qwen3.5 parser 500", model: "qwen3:8b", tools: true, reply: &ollamatest.Reply{Status: 500, Error: ollamatest.MsgQwen35ToolParse},
			want: models.ErrToolParse, wantText: "invalid character ']' after object key:value pair"},
		{name: "qwen3 parser mid-stream", model: "qwen3:8b", tools: true, reply: &ollamatest.Reply{Content: "Let me", StreamError: ollamatest.MsgQwen3ToolParse},
			want: models.ErrToolParse, wantContent: "Let me"},
		// A parser's words no known shape has (GLM 4.7's XML parser):
		// caught by what they speak of, when tools were offered.
		{name: "new parser's words", model: "qwen3:8b", tools: true,
			reply: &ollamatest.Reply{StreamError: "failed to parse XML: XML syntax error on line 2: element <tool_call> closed by </arg_value>"},
			want:  models.ErrToolParse, wantText: "element <tool_call> closed by </arg_value>"},
		{name: "format words with tools", model: "qwen3:8b", tools: true,
			reply: &ollamatest.Reply{Status: 500, Error: "output does not match the expected format"},
			want:  models.ErrToolParse, wantText: "does not match the expected format"},
		{name: "format words without tools", model: "qwen3:8b",
			reply:    &ollamatest.Reply{Status: 500, Error: "output does not match the expected format"},
			wantText: "does not match the expected format"},
	}
	sentinels := []error{models.ErrUnreachable, models.ErrModelNotFound, models.ErrNoTools, models.ErrNoThinking, models.ErrToolParse, models.ErrIncomplete, models.ErrBusy, models.ErrRunnerCrashed}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Tiny(), ollamatest.Qwen3()))
			if tt.reply != nil {
				s.Script(*tt.reply)
			}
			req := models.Request{Model: tt.model, Messages: userMsg("hi"), Options: models.Options{NumCtx: 4096, Think: tt.think}}
			if tt.tools {
				req.Tools = []models.ToolSpec{readFileSpec()}
			}
			reply, err := newClient(t, s).Chat(t.Context(), req, nil)
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			for _, s := range sentinels {
				if errors.Is(err, s) != (s == tt.want) {
					t.Errorf("error %q: errors.Is(%v) = %v", err, s, !(s == tt.want))
				}
			}
			if !strings.Contains(err.Error(), tt.wantText) || !strings.HasPrefix(err.Error(), "ollama chat "+tt.model+": ") {
				t.Errorf("error %q, want it to start with the operation and contain %q", err, tt.wantText)
			}
			if reply.Message.Content != tt.wantContent {
				t.Errorf("partial content %q, want %q", reply.Message.Content, tt.wantContent)
			}
			// After a tool-parse failure the client unloads the model
			// (freeRunner), and only then.
			want := 0
			if tt.want == models.ErrToolParse {
				want = 1
			}
			if unloads := s.Unloads(); unloads != want {
				t.Errorf("%d unload requests, want %d", unloads, want)
			}
		})
	}
}

func TestChatCancelMidStream(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	s.Script(ollamatest.Reply{Content: strings.Repeat("word ", 200), ChunkDelay: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n := 0
	reply, err := newClient(t, s).Chat(ctx, models.Request{Model: "qwen3:8b", Messages: userMsg("hi"), Options: models.Options{NumCtx: 4096}},
		func(models.Delta) {
			if n++; n == 3 {
				cancel()
			}
		})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if errors.Is(err, models.ErrIncomplete) {
		t.Errorf("a cancelled turn reported as a broken stream: %v", err)
	}
	if !strings.HasPrefix(reply.Message.Content, "word word word") || len(reply.Message.Content) >= 1000 {
		t.Errorf("partial content %q", reply.Message.Content)
	}
}

func TestChatRejectsBadHistory(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	msgs := []models.Message{
		{Role: models.RoleUser, Content: "hi"},
		{Role: models.RoleAssistant, ToolCalls: []models.ToolCall{{Name: "read_file", Arguments: json.RawMessage(`{"path":`)}}},
	}
	_, err := newClient(t, s).Chat(t.Context(), models.Request{Model: "qwen3:8b", Messages: msgs}, nil)
	if err == nil || !strings.Contains(err.Error(), "read_file") {
		t.Errorf("error %v, want one naming the broken call", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestChatToolSpecWithoutParameters(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	s.Script(ollamatest.Reply{Content: "ok"})
	_, err := newClient(t, s).Chat(t.Context(), models.Request{Model: "qwen3:8b", Messages: userMsg("hi"),
		Tools: []models.ToolSpec{{Name: "git_status", Description: "Show the working tree status."}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(s.Requests()[0].Tools[0].Function.Parameters)
	if diff := cmp.Diff(`{"type":"object","properties":{}}`, string(got)); diff != "" {
		t.Errorf("parameters (-want +got):\n%s", diff)
	}
}

// Ollama stops a model that repeats one token more than 30 times and ends
// the stream with no done line: that is a finished reply cut for
// repetition, not a broken stream.
func TestChatRepetitionStop(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()), ollamatest.WithRepeatLimit(ollamatest.OllamaRepeatLimit))
	chunks := []string{"Sure:"}
	for range 50 {
		chunks = append(chunks, " hello")
	}
	s.Script(ollamatest.Reply{Chunks: chunks}, ollamatest.Reply{Chunks: []string{"one ", "two ", "three"}, DropAfter: 2})
	req := models.Request{Model: "qwen3:8b", Messages: userMsg("hi"), Options: models.Options{NumCtx: 4096}}
	reply, err := newClient(t, s).Chat(t.Context(), req, nil)
	if err != nil {
		t.Fatalf("Chat = %v, want the repetition stop as a reply", err)
	}
	if reply.DoneReason != models.DoneRepetition {
		t.Errorf("done reason %q, want %q", reply.DoneReason, models.DoneRepetition)
	}
	if want := "Sure:" + strings.Repeat(" hello", ollamatest.OllamaRepeatLimit+1); reply.Message.Content != want {
		t.Errorf("content %q, want %q", reply.Message.Content, want)
	}
	// A stream that breaks off without such a run is still incomplete.
	if _, err := newClient(t, s).Chat(t.Context(), req, nil); !errors.Is(err, models.ErrIncomplete) {
		t.Errorf("dropped stream: Chat = %v, want ErrIncomplete", err)
	}
}
