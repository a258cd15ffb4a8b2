package openai_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/openai"
	"github.com/ternhq/tern/models/openaitest"
)

var flavors = []openaitest.Flavor{openaitest.LlamaServer, openaitest.VLLM, openaitest.LMStudio}

func client(t *testing.T, srv *openaitest.Server) *openai.Client {
	t.Helper()
	c, err := openai.New(srv.URL()+"/v1", "")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func request(srv *openaitest.Server, tools bool) models.Request {
	req := models.Request{
		Model:    srv.Model(),
		Messages: []models.Message{{Role: models.RoleSystem, Content: "You are tern."}, {Role: models.RoleUser, Content: "Read README.md"}},
		Options:  models.Options{NumCtx: openaitest.DefaultWindow, NumPredict: 512},
	}
	if tools {
		req.Tools = []models.ToolSpec{{Name: "read_file", Description: "Read a file.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
	}
	return req
}

func TestChatStreamsContentAndAssemblesToolCalls(t *testing.T) {
	for _, f := range flavors {
		t.Run(string(f), func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithFlavor(f))
			srv.Script(openaitest.Reply{Content: "Let me look.", ToolCalls: []openaitest.Call{
				{Name: "read_file", Args: `{"path":"README.md"}`},
				{Name: "read_file", Args: `{"path":"docs/guide – ü.md"}`},
			}})
			var streamed strings.Builder
			reply, err := client(t, srv).Chat(t.Context(), request(srv, true), func(d models.Delta) { streamed.WriteString(d.Content) })
			if err != nil {
				t.Fatal(err)
			}
			if streamed.String() != "Let me look." || reply.Message.Content != "Let me look." {
				t.Errorf("content streamed %q, reply %q", streamed.String(), reply.Message.Content)
			}
			calls := reply.Message.ToolCalls
			if len(calls) != 2 || calls[0].Name != "read_file" || string(calls[0].Arguments) != `{"path":"README.md"}` ||
				string(calls[1].Arguments) != `{"path":"docs/guide – ü.md"}` {
				t.Fatalf("calls = %+v", calls)
			}
			if calls[0].ID == "" || calls[0].ID == calls[1].ID {
				t.Errorf("call ids %q and %q", calls[0].ID, calls[1].ID)
			}
			if reply.DoneReason != "stop" {
				t.Errorf("done reason %q; tool_calls should read as stop", reply.DoneReason)
			}
			got := srv.Chats()[0]
			if reply.Metrics.PromptTokens != got.PromptTokens || reply.Metrics.EvalTokens == 0 {
				t.Errorf("metrics %+v, server counted %d", reply.Metrics, got.PromptTokens)
			}
			// llama-server says what its prompt cache held; the others do not.
			if reported := f == openaitest.LlamaServer; reply.Metrics.CacheReported != reported {
				t.Errorf("%s: cache reported %v", f, reply.Metrics.CacheReported)
			}
			if got.StreamOptions == nil || !got.StreamOptions.IncludeUsage || got.MaxTokens != 512 || len(got.Tools) != 1 {
				t.Errorf("request: %+v", got)
			}
			if v, ok := got.ChatTemplateKwargs["enable_thinking"].(bool); !ok || v {
				t.Errorf("thinking must be switched off explicitly: %v", got.ChatTemplateKwargs)
			}
		})
	}
}

func TestChatQuirks(t *testing.T) {
	call := []openaitest.Call{{Name: "read_file", Args: `{"path":"a.go"}`}}
	tests := []struct {
		name  string
		reply openaitest.Reply
		check func(t *testing.T, r models.Reply)
	}{
		{"arguments as an object", openaitest.Reply{ToolCalls: call, ArgsAsObject: true}, func(t *testing.T, r models.Reply) {
			if len(r.Message.ToolCalls) != 1 || string(r.Message.ToolCalls[0].Arguments) != `{"path":"a.go"}` {
				t.Errorf("calls %+v", r.Message.ToolCalls)
			}
		}},
		{"ids missing", openaitest.Reply{ToolCalls: append(call, openaitest.Call{Name: "list_dir", Args: `{}`}), NoIDs: true}, func(t *testing.T, r models.Reply) {
			c := r.Message.ToolCalls
			if len(c) != 2 || c[0].ID == "" || c[1].ID == "" || c[0].ID == c[1].ID || c[1].Name != "list_dir" {
				t.Errorf("calls %+v", c)
			}
		}},
		{"no index, whole calls", openaitest.Reply{ToolCalls: append(call, openaitest.Call{Name: "list_dir", Args: `{"path":"."}`}), NoIndex: true, NoIDs: true}, func(t *testing.T, r models.Reply) {
			c := r.Message.ToolCalls
			if len(c) != 1 && (len(c) != 2 || string(c[1].Arguments) != `{"path":"."}`) {
				t.Errorf("calls %+v", c)
			}
		}},
		{"malformed arguments stay text for the repair", openaitest.Reply{ToolCalls: []openaitest.Call{{Name: "read_file", Args: `{"path": "a.go"`}}}, func(t *testing.T, r models.Reply) {
			var s string
			if len(r.Message.ToolCalls) != 1 || json.Unmarshal(r.Message.ToolCalls[0].Arguments, &s) != nil || s != `{"path": "a.go"` {
				t.Errorf("calls %+v", r.Message.ToolCalls)
			}
		}},
		{"finish_reason length", openaitest.Reply{Content: "a long answer that was", FinishReason: "length"}, func(t *testing.T, r models.Reply) {
			if r.DoneReason != "length" || r.Message.Content != "a long answer that was" {
				t.Errorf("reply %+v", r)
			}
		}},
	}
	for _, f := range flavors {
		for _, tt := range tests {
			t.Run(string(f)+"/"+tt.name, func(t *testing.T) {
				srv := openaitest.New(t, openaitest.WithFlavor(f))
				srv.Script(tt.reply)
				r, err := client(t, srv).Chat(t.Context(), request(srv, true), nil)
				if err != nil {
					t.Fatal(err)
				}
				tt.check(t, r)
			})
		}
	}
}

func TestChatThinking(t *testing.T) {
	for _, f := range flavors {
		t.Run(string(f), func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithFlavor(f))
			srv.Script(openaitest.Reply{Thinking: "The user wants a file.", Content: "Done."})
			req := request(srv, false)
			req.Options.Think = "true"
			var thought strings.Builder
			r, err := client(t, srv).Chat(t.Context(), req, func(d models.Delta) { thought.WriteString(d.Thinking) })
			if err != nil {
				t.Fatal(err)
			}
			if r.Message.Thinking != "The user wants a file." || thought.String() != r.Message.Thinking || r.Message.Content != "Done." {
				t.Errorf("reply %+v, streamed thinking %q", r.Message, thought.String())
			}
		})
	}
}

func TestChatErrors(t *testing.T) {
	for _, f := range flavors {
		t.Run(string(f)+"/tools refused", func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithFlavor(f), openaitest.WithoutTools())
			c := client(t, srv)
			if _, err := c.Chat(t.Context(), request(srv, true), nil); !errors.Is(err, models.ErrNoTools) {
				t.Errorf("err = %v, want ErrNoTools", err)
			}
			ts, err := c.ProbeTools(t.Context(), srv.Model())
			if err != nil || ts.Native || ts.Why == "" {
				t.Errorf("probe = %+v, %v", ts, err)
			}
		})
		t.Run(string(f)+"/prompt over the window", func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithFlavor(f), openaitest.WithWindow(2048))
			req := request(srv, false)
			req.Options.NumCtx = 2048
			req.Messages[1].Content = strings.Repeat("word ", 3000)
			r, err := client(t, srv).Chat(t.Context(), req, nil)
			if err != nil {
				t.Fatalf("an over-long prompt must come back as a truncated reply, not %v", err)
			}
			if r.DoneReason != "length" || r.Metrics.PromptTokens < 2048 || r.Message.Content != "" {
				t.Errorf("reply %+v", r)
			}
		})
		t.Run(string(f)+"/connection dropped", func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithFlavor(f))
			srv.Script(openaitest.Reply{Content: "one two three four five", DropAfter: 2})
			r, err := client(t, srv).Chat(t.Context(), request(srv, false), nil)
			if !errors.Is(err, models.ErrIncomplete) || r.Message.Content == "" {
				t.Errorf("err = %v, content %q", err, r.Message.Content)
			}
		})
		t.Run(string(f)+"/error in the stream", func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithFlavor(f))
			srv.Script(openaitest.Reply{Content: "partial", StreamError: "slot crashed"})
			r, err := client(t, srv).Chat(t.Context(), request(srv, false), nil)
			if err == nil || !strings.Contains(err.Error(), "slot crashed") || r.Message.Content != "partial" {
				t.Errorf("err = %v, content %q", err, r.Message.Content)
			}
		})
		t.Run(string(f)+"/tool-call parse error in other words", func(t *testing.T) {
			for _, msg := range []string{
				// llama-server's JSON parser, via common/chat.cpp.
				"Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column 12: syntax error while parsing value - invalid literal; last read: '{\"path\": m'",
				"Failed to parse input at pos 42: <tool_call>\n{\"name\": \"read_file\"",
				"invalid tool call: unexpected end of JSON input",
				// Words no known shape has: caught by what they speak of.
				"The model produced output that does not match the expected peg-native format",
				`Engine protocol predict stream returned an error: {"code":500,"message":"The model produced output that does not match the expected peg-native format"}`,
			} {
				srv := openaitest.New(t, openaitest.WithFlavor(f))
				srv.Script(openaitest.Reply{Status: 500, Error: msg})
				if _, err := client(t, srv).Chat(t.Context(), request(srv, true), nil); !errors.Is(err, models.ErrToolParse) {
					t.Errorf("%q: err = %v, want ErrToolParse", msg, err)
				}
			}
			srv := openaitest.New(t, openaitest.WithFlavor(f))
			srv.Script(openaitest.Reply{Content: "Let me", StreamError: "Failed to parse tool call: Unexpected end of content."})
			if _, err := client(t, srv).Chat(t.Context(), request(srv, true), nil); !errors.Is(err, models.ErrToolParse) {
				t.Errorf("in the stream: err = %v, want ErrToolParse", err)
			}
		})
		t.Run(string(f)+"/a server's failure is not a parse error", func(t *testing.T) {
			for _, tc := range []struct {
				msg   string
				tools bool
			}{
				{"CUDA error: out of memory", true},
				{"slot unavailable", true},
				{"The model produced output that does not match the expected peg-native format", false},
			} {
				srv := openaitest.New(t, openaitest.WithFlavor(f))
				srv.Script(openaitest.Reply{Status: 500, Error: tc.msg})
				if _, err := client(t, srv).Chat(t.Context(), request(srv, tc.tools), nil); err == nil || errors.Is(err, models.ErrToolParse) {
					t.Errorf("%q (tools %v): err = %v, want a plain error", tc.msg, tc.tools, err)
				}
			}
		})
		t.Run(string(f)+"/no usage", func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithFlavor(f), openaitest.WithoutUsage())
			srv.Script(openaitest.Reply{Content: "hi"})
			c := client(t, srv)
			r, err := c.Chat(t.Context(), request(srv, false), nil)
			if err != nil || r.Metrics.PromptTokens != 0 {
				t.Errorf("reply %+v, %v: a server without usage must leave the count to tern", r.Metrics, err)
			}
			if ts, err := c.ProbeTools(t.Context(), srv.Model()); err != nil || ts.Usage || !ts.Native {
				t.Errorf("probe = %+v, %v", ts, err)
			}
		})
	}
	t.Run("unknown model", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.WithFlavor(openaitest.VLLM))
		req := request(srv, false)
		req.Model = "nope"
		if _, err := client(t, srv).Chat(t.Context(), req, nil); !errors.Is(err, models.ErrModelNotFound) || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("api key", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.WithFlavor(openaitest.VLLM), openaitest.WithAPIKey("sekrit"))
		if _, err := client(t, srv).Models(t.Context()); !errors.Is(err, openai.ErrUnauthorized) {
			t.Errorf("err = %v", err)
		}
		c, _ := openai.New(srv.URL(), "sekrit")
		if _, err := c.Models(t.Context()); err != nil {
			t.Error(err)
		}
	})
	t.Run("api key of llama-server", func(t *testing.T) {
		// /v1/models is public; /props wants the key, and without it the
		// server has not said it hides its window.
		srv := openaitest.New(t, openaitest.WithAPIKey("sekrit"))
		c := client(t, srv)
		if _, err := c.Models(t.Context()); err != nil {
			t.Error(err)
		}
		if s, err := c.Describe(t.Context(), srv.Model()); !errors.Is(err, openai.ErrUnauthorized) {
			t.Errorf("describe = %+v, %v", s, err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		c, _ := openai.New("127.0.0.1:1", "")
		if _, err := c.Models(t.Context()); !errors.Is(err, models.ErrUnreachable) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("silent server", func(t *testing.T) {
		srv := openaitest.New(t)
		srv.Script(openaitest.Reply{Content: "slow", ChunkDelay: 300 * time.Millisecond})
		c := client(t, srv)
		c.IdleTimeout = 50 * time.Millisecond
		if _, err := c.Chat(t.Context(), request(srv, false), nil); !errors.Is(err, models.ErrIncomplete) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestWireMessagesPairCallsWithoutIDs(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.Reply{Content: "ok"}, openaitest.Reply{Content: "ok"})
	req := request(srv, true)
	req.Messages = append(req.Messages,
		models.Message{Role: models.RoleAssistant, ToolCalls: []models.ToolCall{{Name: "read_file", Arguments: json.RawMessage(`"{\"path\":\"a\"}"`)}}},
		models.Message{Role: models.RoleTool, Content: "body", ToolName: "read_file"},
	)
	c := client(t, srv)
	for range 2 {
		if _, err := c.Chat(t.Context(), req, nil); err != nil {
			t.Fatal(err)
		}
	}
	a, b := srv.Chats()[0].Messages, srv.Chats()[1].Messages
	call, result := a[2].ToolCalls[0], a[3]
	if call.ID == "" || result.ToolCallID != call.ID || call.Function.Arguments != `{"path":"a"}` {
		t.Errorf("call %+v, result %+v", call, result)
	}
	if b[2].ToolCalls[0].ID != call.ID {
		t.Errorf("the id must be the same every time the conversation is sent: %q then %q", call.ID, b[2].ToolCalls[0].ID)
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		flavor openaitest.Flavor
		kind   openai.Kind
		source string
	}{
		{openaitest.LlamaServer, openai.LlamaServer, "llama-server /props default_generation_settings.n_ctx"},
		{openaitest.VLLM, openai.VLLM, "vLLM /v1/models max_model_len"},
		{openaitest.LMStudio, openai.LMStudio, "LM Studio /api/v0/models loaded_context_length"},
	}
	for _, tt := range tests {
		t.Run(string(tt.flavor), func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithFlavor(tt.flavor), openaitest.WithWindow(12288))
			s, err := client(t, srv).Describe(t.Context(), srv.Model())
			if err != nil {
				t.Fatal(err)
			}
			if s.Kind != tt.kind || s.Window != 12288 || s.WindowSource != tt.source || s.Model.ID != srv.Model() {
				t.Errorf("described %+v", s)
			}
			hidden := openaitest.New(t, openaitest.WithFlavor(tt.flavor), openaitest.WithHiddenWindow())
			if s, err := client(t, hidden).Describe(t.Context(), hidden.Model()); err != nil || s.Window != 0 {
				t.Errorf("a server that does not say must leave the window unknown: %+v, %v", s, err)
			}
		})
	}
}

func TestEmbed(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithEmbeddings("", 16))
	vecs, err := client(t, srv).Embed(t.Context(), "nomic-embed-text", []string{"parse config file", "total sum", "parse config"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 3 || len(vecs[0]) != 16 {
		t.Fatalf("vectors %d×%d", len(vecs), len(vecs[0]))
	}
	var norm float32
	for _, x := range vecs[1] {
		norm += x * x
	}
	if norm < 0.999 || norm > 1.001 {
		t.Errorf("vectors must be unit length, |v|² = %v", norm)
	}
	off := openaitest.New(t)
	if _, err := client(t, off).Embed(t.Context(), "m", []string{"x"}); err == nil || !strings.Contains(err.Error(), "--embeddings") {
		t.Errorf("a server without --embeddings: err = %v", err)
	}
}

func TestChatSendsTheReplySchema(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.Reply{Content: `{"answer": "ok"}`})
	req := request(srv, false)
	req.Format = models.ConstrainedSchema([]models.ToolSpec{{Name: "read_file", Parameters: models.Schema(models.Param{Name: "path", Type: "string", Required: true})}}, models.ConstrainedLimits{})
	if _, err := client(t, srv).Chat(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	rf := srv.Chats()[0].ResponseFormat
	if rf == nil || rf.Type != "json_schema" || !strings.Contains(string(rf.JSONSchema.Schema), `{"const":"read_file"}`) {
		t.Errorf("response_format = %+v", rf)
	}
}

// TestChatThinkingInContent: a server that does not separate reasoning
// leaves it in the content between <think> and </think> (LM Studio
// without "separate reasoning_content", llama-server with
// --reasoning-format none, vLLM without --reasoning-parser; some models
// write only the closing tag: https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/1569,
// https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/1495). It is
// thinking: shown and kept as such, never the answer, whose text tool
// calls would otherwise include any the model only thought about.
func TestChatThinkingInContent(t *testing.T) {
	for _, tc := range []struct {
		name             string
		chunks           []string
		thinking, answer string
	}{
		{"whole tags", []string{"<think>", "\nThe user wants", " a file.\n", "</think>", "\n\nDone."}, "\nThe user wants a file.\n", "Done."},
		{"tags cut across pieces", []string{"\n<thi", "nk>The user wants a file.</th", "ink>\n\nDone."}, "The user wants a file.", "Done."},
		{"closing tag only", []string{"The user wants", " a file.", "</think>", "\n\nDone."}, "The user wants a file.", "Done."},
		{"cut while thinking", []string{"<think>", "The user wants"}, "The user wants", ""},
		{"no tags", []string{"<b>Done</b>", " and <think> is a tag."}, "", "<b>Done</b> and <think> is a tag."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithFlavor(openaitest.LMStudio))
			srv.Script(openaitest.Reply{Chunks: tc.chunks})
			var thought, shown strings.Builder
			r, err := client(t, srv).Chat(t.Context(), request(srv, false), func(d models.Delta) {
				thought.WriteString(d.Thinking)
				shown.WriteString(d.Content)
			})
			if err != nil {
				t.Fatal(err)
			}
			if r.Message.Thinking != tc.thinking || r.Message.Content != tc.answer {
				t.Errorf("thinking %q, content %q; want %q, %q", r.Message.Thinking, r.Message.Content, tc.thinking, tc.answer)
			}
			if tc.name != "closing tag only" && (thought.String() != tc.thinking || shown.String() != tc.answer) {
				t.Errorf("streamed thinking %q, content %q", thought.String(), shown.String())
			}
		})
	}
}

// TestEmbedInputsOverThePhysicalBatch: llama-server refuses to embed an
// input longer than its physical batch (512 tokens unless -ub says more),
// and with it the whole request; a code chunk is often longer. The
// inputs it takes are embedded whole, and a refused one by its start, as
// Ollama truncates inputs to the model's context.
func TestEmbedInputsOverThePhysicalBatch(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithEmbeddings("", 64), openaitest.WithEmbedBatch(512))
	short, long := "func main() {}", strings.Repeat("x := compute(y)\n", 300) // 4800 bytes, 1200 tokens
	vecs, err := client(t, srv).Embed(t.Context(), "nomic-embed-text", []string{short, long, short})
	if err != nil || len(vecs) != 3 {
		t.Fatalf("%d vectors, %v", len(vecs), err)
	}
	if vecs[0] == nil || vecs[1] == nil || vecs[2] == nil {
		t.Errorf("a vector is missing: %v", vecs)
	}
}
