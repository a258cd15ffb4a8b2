package ollamatest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models/ollamatest"
)

func client(t *testing.T, s *ollamatest.Server) *api.Client {
	t.Helper()
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

// chat runs one streamed chat and returns every chunk.
func chat(t *testing.T, s *ollamatest.Server, req *api.ChatRequest) ([]api.ChatResponse, error) {
	t.Helper()
	var chunks []api.ChatResponse
	err := client(t, s).Chat(t.Context(), req, func(r api.ChatResponse) error {
		chunks = append(chunks, r)
		return nil
	})
	return chunks, err
}

func user(text string) []api.Message { return []api.Message{{Role: "user", Content: text}} }

func joined(chunks []api.ChatResponse) (content, thinking string) {
	for _, c := range chunks {
		content += c.Message.Content
		thinking += c.Message.Thinking
	}
	return content, thinking
}

func readFileTool() api.Tool {
	props := api.NewToolPropertiesMap()
	props.Set("path", api.ToolProperty{Type: api.PropertyType{"string"}})
	return api.Tool{Type: "function", Function: api.ToolFunction{
		Name: "read_file", Parameters: api.ToolFunctionParameters{Type: "object", Properties: props},
	}}
}

func TestThinking(t *testing.T) {
	tests := []struct {
		name         string
		think        *api.ThinkValue
		wantThinking string
	}{
		{"absent means on", nil, "Let me see."},
		{"true", &api.ThinkValue{Value: true}, "Let me see."},
		{"false drops it", &api.ThinkValue{Value: false}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
			s.Script(ollamatest.Reply{Thinking: "Let me see.", Content: "Hello there."})
			chunks, err := chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: user("hi"), Think: tt.think})
			if err != nil {
				t.Fatal(err)
			}
			content, thinking := joined(chunks)
			if content != "Hello there." || thinking != tt.wantThinking {
				t.Errorf("content %q thinking %q, want %q and %q", content, thinking, "Hello there.", tt.wantThinking)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		name       string
		req        api.ChatRequest
		wantStatus int
		wantMsg    string
	}{
		{"think false to a model without thinking is fine", api.ChatRequest{Model: "tiny", Messages: user("hi"), Think: &api.ThinkValue{Value: false}}, 200, ""},
		{"think level on a thinking model", api.ChatRequest{Model: "qwen3:8b", Messages: user("hi"), Think: &api.ThinkValue{Value: "low"}}, 400, `think value "low" is not supported for this model`},
		{"chat with an embedding model", api.ChatRequest{Model: "nomic-embed-text", Messages: user("hi")}, 400, `"nomic-embed-text" does not support chat`},
		{"tools to llama3.2 are fine", api.ChatRequest{Model: "llama3.2:3b", Messages: user("hi"), Tools: api.Tools{readFileTool()}}, 200, ""},
		{"model with a tag not installed", api.ChatRequest{Model: "qwen3:4b", Messages: user("hi")}, 404, "model 'qwen3:4b' not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Tiny(), ollamatest.Qwen3(), ollamatest.Llama32(), ollamatest.NomicEmbed()))
			s.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "ok"} })
			_, err := chat(t, s, &tt.req)
			var se api.StatusError
			switch {
			case tt.wantStatus == 200 && err != nil:
				t.Fatalf("error %v, want success", err)
			case tt.wantStatus != 200 && (!errors.As(err, &se) || se.StatusCode != tt.wantStatus || se.ErrorMessage != tt.wantMsg):
				t.Fatalf("error %v, want HTTP %d %q", err, tt.wantStatus, tt.wantMsg)
			}
		})
	}
}

func TestToolCallsAreStructured(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	s.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{
		{Name: "read_file", Args: `{"path":"main.go","limit":20,"offset":1}`},
		{Name: "read_file", Args: `{"path":"go.mod"}`},
	}})
	chunks, err := chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: user("read"), Tools: api.Tools{readFileTool()}})
	if err != nil {
		t.Fatal(err)
	}
	var calls []api.ToolCall
	for i, c := range chunks {
		if len(c.Message.ToolCalls) > 0 && c.Done {
			t.Errorf("chunk %d carries tool calls in the done line", i)
		}
		calls = append(calls, c.Message.ToolCalls...)
	}
	if len(calls) != 2 {
		t.Fatalf("%d calls, want 2", len(calls))
	}
	id := regexp.MustCompile(`^call_[a-z0-9]{8}$`)
	for i, c := range calls {
		if !id.MatchString(c.ID) || c.Function.Index != i {
			t.Errorf("call %d: id %q index %d", i, c.ID, c.Function.Index)
		}
	}
	if got := calls[0].Function.Arguments.String(); got != `{"path":"main.go","limit":20,"offset":1}` {
		t.Errorf("arguments %s, want the scripted order", got)
	}
	if calls[0].ID == calls[1].ID {
		t.Errorf("two calls share id %s", calls[0].ID)
	}
}

func TestToolCallsWithoutToolsStayText(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	s.Script(ollamatest.Reply{Content: "Reading.", ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"a.go"}`}}})
	chunks, err := chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: user("read"), Think: &api.ThinkValue{Value: false}})
	if err != nil {
		t.Fatal(err)
	}
	content, _ := joined(chunks)
	want := "Reading.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\":\"a.go\"}}\n</tool_call>"
	if content != want {
		t.Errorf("content %q, want %q", content, want)
	}
}

func TestTruncationDropsOldestMessages(t *testing.T) {
	// One token per byte makes the arithmetic visible.
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()), ollamatest.WithCounter(func(s string) int { return len(s) }))
	s.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "ok"} })
	big := strings.Repeat("x", 300)
	msgs := []api.Message{
		{Role: "system", Content: "sys"},
		{Role: "user", Content: big},
		{Role: "assistant", Content: big},
		{Role: "user", Content: "last question"},
	}
	tests := []struct {
		name        string
		numCtx      int
		wantDropped int
		wantEval    int
		truncated   bool
	}{
		{"fits", 4096, 0, -1, false},
		{"drops the two oldest", 200, 2, -1, true},
		{"last message alone is too long: cut to num_ctx", 40, 2, 40, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, err := chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: msgs, Think: &api.ThinkValue{Value: false},
				Options: map[string]any{"num_ctx": tt.numCtx}})
			if err != nil {
				t.Fatal(err)
			}
			recs := s.Records()
			rec := recs[len(recs)-1]
			final := chunks[len(chunks)-1]
			if rec.Truncated != tt.truncated || rec.DroppedMessages != tt.wantDropped {
				t.Errorf("truncated %v dropped %d, want %v and %d", rec.Truncated, rec.DroppedMessages, tt.truncated, tt.wantDropped)
			}
			if final.PromptEvalCount > tt.numCtx || final.PromptEvalCount != rec.PromptEvalCount {
				t.Errorf("prompt_eval_count %d (record %d), window %d", final.PromptEvalCount, rec.PromptEvalCount, tt.numCtx)
			}
			if tt.wantEval >= 0 && final.PromptEvalCount != tt.wantEval {
				t.Errorf("prompt_eval_count %d, want %d", final.PromptEvalCount, tt.wantEval)
			}
			if !tt.truncated && final.PromptEvalCount != rec.PromptTokens {
				t.Errorf("prompt_eval_count %d, want the whole prompt %d", final.PromptEvalCount, rec.PromptTokens)
			}
		})
	}
	if got := s.Truncations(); got != 2 {
		t.Errorf("Truncations() = %d, want 2", got)
	}
}

func TestTruncateFalseRefusesLongPrompt(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Tiny()))
	no := false
	_, err := chat(t, s, &api.ChatRequest{Model: "tiny", Messages: user(strings.Repeat("word ", 1000)), Truncate: &no,
		Options: map[string]any{"num_ctx": 100}})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 400 || se.ErrorMessage != "the input length exceeds the context length" {
		t.Errorf("error %v, want the runner's 400", err)
	}
}

func TestNumCtxAndReloads(t *testing.T) {
	m := ollamatest.Llama32()
	m.Parameters = "num_ctx 8192"
	s := ollamatest.New(t, ollamatest.WithModels(m, ollamatest.Qwen3()))
	s.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "ok"} })
	ctxOf := func(name string) int {
		ps, err := client(t, s).ListRunning(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ps.Models {
			if m.Name == name {
				return m.ContextLength
			}
		}
		return 0
	}
	steps := []struct {
		model    string
		opts     map[string]any
		wantCtx  int
		reloaded bool
	}{
		{"llama3.2:3b", nil, 8192, false},                             // the Modelfile's num_ctx
		{"llama3.2:3b", map[string]any{"num_ctx": 8192}, 8192, false}, // same window: no reload
		{"llama3.2:3b", map[string]any{"num_ctx": 16384}, 16384, true},
		{"qwen3:8b", nil, ollamatest.DefaultNumCtx, false},
		{"qwen3:8b", map[string]any{"num_ctx": 100000}, 40960, true}, // capped to the trained context
	}
	var loads []time.Duration
	for i, st := range steps {
		chunks, err := chat(t, s, &api.ChatRequest{Model: st.model, Messages: user("hi"), Options: st.opts, Think: &api.ThinkValue{Value: false}})
		if err != nil {
			t.Fatal(err)
		}
		loads = append(loads, chunks[len(chunks)-1].LoadDuration)
		if got := ctxOf(st.model); got != st.wantCtx {
			t.Errorf("step %d: /api/ps context_length %d, want %d", i, got, st.wantCtx)
		}
		if rec := s.Records()[i]; rec.Reloaded != st.reloaded || rec.NumCtx != st.wantCtx {
			t.Errorf("step %d: record %+v, want num_ctx %d reloaded %v", i, rec, st.wantCtx, st.reloaded)
		}
	}
	if got := s.Reloads(); got != 2 {
		t.Errorf("Reloads() = %d, want 2", got)
	}
	if loads[2] < 100*loads[1] {
		t.Errorf("load_duration %v after a reload vs %v warm: a reload should show", loads[2], loads[1])
	}
}

func TestBrokenStreams(t *testing.T) {
	tests := []struct {
		name        string
		reply       ollamatest.Reply
		wantContent string
		wantErr     string // "" for none; the api client returns nil for a dropped stream
		wantDone    bool
	}{
		{"drop after two chunks", ollamatest.Reply{Content: "one two three four", DropAfter: 2}, "one two", "", false},
		{"drop before anything", ollamatest.Reply{Content: "one two", DropAfter: -1}, "", "EOF", false},
		{"stream error after content", ollamatest.Reply{Content: "one two", StreamError: "model runner has unexpectedly stopped"}, "one two", "model runner has unexpectedly stopped", false},
		{"stream error before content is HTTP 500", ollamatest.Reply{StreamError: "error parsing tool call: raw='{'"}, "", "500 Internal Server Error: error parsing tool call: raw='{'", false},
		{"malformed line", ollamatest.Reply{Content: "one two three four", MalformedLine: true}, "one two", `{"model":"tiny","created_at":"`, false},
		{"scripted status", ollamatest.Reply{Status: 503, Error: "server busy"}, "", "503 Service Unavailable: server busy", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Tiny()))
			s.Script(tt.reply)
			chunks, err := chat(t, s, &api.ChatRequest{Model: "tiny", Messages: user("hi")})
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
				if _, after, ok := strings.Cut(gotErr, `/api/chat": `); ok {
					gotErr = after // the url.Error of a connection closed before the headers
				}
			}
			content, _ := joined(chunks)
			done := len(chunks) > 0 && chunks[len(chunks)-1].Done
			if content != tt.wantContent || gotErr != tt.wantErr || done != tt.wantDone {
				t.Errorf("content %q err %q done %v; want %q, %q, %v", content, gotErr, done, tt.wantContent, tt.wantErr, tt.wantDone)
			}
		})
	}
}

// TestHoldAfter: a reply held after two chunks goes on, whole, once the
// test releases it, and ends when the client gives up while it is held.
func TestHoldAfter(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Tiny()))
	release := make(chan struct{})
	s.Script(ollamatest.Reply{Content: "one two three four", HoldAfter: 2, Release: release})
	var chunks []api.ChatResponse
	err := client(t, s).Chat(t.Context(), &api.ChatRequest{Model: "tiny", Messages: user("hi")}, func(r api.ChatResponse) error {
		if chunks = append(chunks, r); len(chunks) == 2 {
			close(release)
		}
		return nil
	})
	if content, _ := joined(chunks); err != nil || content != "one two three four" || !chunks[len(chunks)-1].Done {
		t.Errorf("released: content %q, err %v", content, err)
	}

	s.Script(ollamatest.Reply{Content: "one two three four", HoldAfter: 2, Release: make(chan struct{})})
	ctx, cancel := context.WithCancel(t.Context())
	chunks = nil
	err = client(t, s).Chat(ctx, &api.ChatRequest{Model: "tiny", Messages: user("hi")}, func(r api.ChatResponse) error {
		if chunks = append(chunks, r); len(chunks) == 2 {
			cancel()
		}
		return nil
	})
	if content, _ := joined(chunks); content != "one two" || chunks[len(chunks)-1].Done {
		t.Errorf("given up while held: content %q, done %v (err %v)", content, chunks[len(chunks)-1].Done, err)
	}
}

func TestUnexpectedRequestFailsTheTest(t *testing.T) {
	rec := &recordingTB{TB: t}
	s := ollamatest.New(rec, ollamatest.WithModels(ollamatest.Tiny()))
	_, err := chat(t, s, &api.ChatRequest{Model: "tiny", Messages: user("hi")})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 {
		t.Errorf("error %v, want HTTP 500", err)
	}
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "script is empty") {
		t.Errorf("test errors %q, want one about the empty script", rec.errors)
	}
}

type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestNoStreamCarriesEverything(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	s.Script(ollamatest.Reply{Thinking: "hmm", Content: "Reading it.", ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"a"}`}}})
	no := false
	chunks, err := chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: user("hi"), Stream: &no, Tools: api.Tools{readFileTool()}})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 1 {
		t.Fatalf("%d responses, want one object", len(chunks))
	}
	m := chunks[0].Message
	if !chunks[0].Done || m.Content != "Reading it." || m.Thinking != "hmm" || len(m.ToolCalls) != 1 {
		t.Errorf("response %+v", chunks[0])
	}
}

func TestConcurrentRequests(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3(), ollamatest.NomicEmbed()))
	s.Respond(func(req api.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{Content: "echo " + req.Messages[len(req.Messages)-1].Content}
	})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			q := fmt.Sprintf("question %d", i)
			chunks, err := chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: user(q), Options: map[string]any{"num_ctx": 4096 * (1 + i%2)}})
			if content, _ := joined(chunks); err != nil || content != "echo "+q {
				t.Errorf("request %d: %q, %v", i, content, err)
			}
			if _, err := client(t, s).Embed(t.Context(), &api.EmbedRequest{Model: "nomic-embed-text", Input: q}); err != nil {
				t.Errorf("embed %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if got := len(s.Requests()); got != 8 {
		t.Errorf("%d requests recorded, want 8", got)
	}
}

func TestEmbed(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.NomicEmbed(), ollamatest.Qwen3()))
	c := client(t, s)
	resp, err := c.Embed(t.Context(), &api.EmbedRequest{Model: "nomic-embed-text", Input: []string{
		"parse the config file", "parse config file quickly", "draw a red triangle",
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Embeddings) != 3 || len(resp.Embeddings[0]) != 768 || resp.PromptEvalCount == 0 {
		t.Fatalf("got %d vectors of %d dims, prompt_eval_count %d", len(resp.Embeddings), len(resp.Embeddings[0]), resp.PromptEvalCount)
	}
	cos := func(a, b []float32) (d float32) {
		for i := range a {
			d += a[i] * b[i]
		}
		return d
	}
	if near, far := cos(resp.Embeddings[0], resp.Embeddings[1]), cos(resp.Embeddings[0], resp.Embeddings[2]); near <= far {
		t.Errorf("similar texts cosine %v, unrelated %v: shared words should be closer", near, far)
	}
	again := ollamatest.Embedding("parse the config file", 768)
	if cos(again, resp.Embeddings[0]) < 0.9999 {
		t.Errorf("Embedding is not deterministic")
	}

	for _, tt := range []struct {
		model  string
		status int
		msg    string
	}{
		{"qwen3:8b", 501, "this model does not support embeddings"},
		{"nope", 404, "model 'nope' not found"},
	} {
		_, err := c.Embed(t.Context(), &api.EmbedRequest{Model: tt.model, Input: "x"})
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != tt.status || se.ErrorMessage != tt.msg {
			t.Errorf("embed with %s: %v, want HTTP %d %q", tt.model, err, tt.status, tt.msg)
		}
	}
}

func TestRootAndShowErrors(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	for _, method := range []string{"GET", "HEAD"} {
		status, body, _ := do(t, method, s.URL()+"/", "")
		want := "Ollama is running"
		if method == "HEAD" {
			want = ""
		}
		if status != 200 || string(body) != want {
			t.Errorf("%s / = %d %q", method, status, body)
		}
	}
	if err := client(t, s).Heartbeat(t.Context()); err != nil {
		t.Errorf("heartbeat: %v", err)
	}
	status, body, _ := do(t, "POST", s.URL()+"/api/show", `{"model":"nope"}`)
	if status != 404 || string(body) != `{"error":"model 'nope' not found"}` {
		t.Errorf("show unknown model: %d %s", status, body)
	}
	sr, err := client(t, s).Show(t.Context(), &api.ShowRequest{Model: "qwen3:8b"})
	if err != nil {
		t.Fatal(err)
	}
	if sr.ModelInfo["qwen3.attention.head_count_kv"] != 8.0 || !strings.Contains(sr.Parameters, "temperature                    0.6") {
		t.Errorf("show qwen3: model_info %v parameters %q", sr.ModelInfo, sr.Parameters)
	}
}

func TestRequestsAreRecordedDecoded(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Qwen3()))
	s.Script(ollamatest.Reply{Content: "ok"})
	_, err := chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: user("hi"), KeepAlive: &api.Duration{Duration: 30 * time.Minute},
		Think: &api.ThinkValue{Value: false}, Options: map[string]any{"num_ctx": 8192}})
	if err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	got, _ := json.Marshal(reqs[0])
	for _, want := range []string{`"keep_alive":"30m0s"`, `"options":{"num_ctx":8192}`, `"think":false`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("recorded request %s lacks %s", got, want)
		}
	}
}

// TestVRAMEvicts: with a GPU too small for two models, loading one
// unloads the other, which then loads afresh (load_duration says so).
func TestVRAMEvicts(t *testing.T) {
	small, big := ollamatest.Qwen3(), ollamatest.Llama32()
	s := ollamatest.New(t, ollamatest.WithModels(small, big), ollamatest.WithVRAM(small.SizeBytes+big.SizeBytes/2))
	s.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "ok"} })
	loads := func(model string) time.Duration {
		t.Helper()
		body := `{"model":"` + model + `","messages":[{"role":"user","content":"hi"}],"stream":false}`
		resp, err := http.Post(s.URL()+"/api/chat", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r api.ChatResponse
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		return r.LoadDuration
	}
	if d := loads(small.Name); d < 500*time.Millisecond {
		t.Errorf("first load %s", d)
	}
	if d := loads(small.Name); d > 100*time.Millisecond {
		t.Errorf("loaded model reloaded: %s", d)
	}
	loads(big.Name)
	if d := loads(small.Name); d < 500*time.Millisecond || s.Evictions() != 2 {
		t.Errorf("after the other model: load %s, %d evictions; want a reload, 2", d, s.Evictions())
	}
}
