package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/tools"
)

func TestToolCallRoundTrip(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"hello.txt"}`}}},
		ollamatest.Reply{Content: "The file says hello."},
	)
	if err := h.run(t.Context(), "what is in hello.txt?"); err != nil {
		t.Fatal(err)
	}
	want := []string{"message", "tool_start", "tool_end", "message", "done"}
	if got := h.types(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("events = %v, want %v", got, want)
	}
	if got := h.answer(); got != "The file says hello." {
		t.Errorf("answer = %q", got)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "tool" || last.ToolName != "read_file" || !strings.Contains(last.Content, "hello from the fixture") {
		t.Errorf("second request ends with %+v, want the read_file result", last)
	}
	if got := reqs[0].Options["num_ctx"]; got != float64(8192) {
		t.Errorf("num_ctx = %v, want 8192 on every request", got)
	}
	if len(reqs[0].Tools) != 4 || reqs[0].Tools[0].Function.Name != "read_file" {
		t.Errorf("tools sent = %d (first %q), want the 4 read-only tools natively", len(reqs[0].Tools), reqs[0].Tools[0].Function.Name)
	}
	if d := h.done(); d.Reason != DoneStop || d.Turns != 2 || d.PromptTokens == 0 {
		t.Errorf("done = %+v", d)
	}
	if n := len(h.rec.messages); n != 4 { // user, assistant call, tool, assistant answer
		t.Errorf("recorded %d messages, want 4", n)
	}
	if len(h.rec.calls) != 1 || h.rec.calls[0].Repair != models.RepairNative || h.rec.calls[0].IsError {
		t.Errorf("recorded calls = %+v", h.rec.calls)
	}
	if len(h.rec.turns) != 2 || h.rec.turns[0].Estimate == 0 {
		t.Errorf("recorded turns = %+v", h.rec.turns)
	}
}

// barrierTool blocks until n calls are running at once, proving they run
// in parallel; it gives up after a while so a serial agent fails, not hangs.
type barrierTool struct {
	name    string
	arrived chan struct{}
	n       int
}

func (b *barrierTool) Spec() models.ToolSpec {
	return models.ToolSpec{Name: b.name, Description: "test", Parameters: models.Schema(models.Param{Name: "id", Type: "string"})}
}
func (b *barrierTool) Effect() tools.Effect { return tools.ReadOnly }
func (b *barrierTool) Run(ctx context.Context, in tools.Input) tools.Result {
	b.arrived <- struct{}{}
	deadline := time.After(30 * time.Second) // calls run one after another never all arrive
	for len(b.arrived) < b.n {
		select {
		case <-deadline:
			return tools.Result{Output: "alone", IsError: true}
		case <-time.After(time.Millisecond):
		}
	}
	return tools.Result{Output: "together " + string(in.Args), Summary: "ok"}
}

func TestReadOnlyCallsRunInParallel(t *testing.T) {
	bt := &barrierTool{name: "wait", arrived: make(chan struct{}, 3), n: 3}
	h := newHarness(t, ollamatest.Qwen3(), withTools(bt))
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{
			{Name: "wait", Args: `{"id":"1"}`}, {Name: "wait", Args: `{"id":"2"}`}, {Name: "wait", Args: `{"id":"3"}`},
		}},
		ollamatest.Reply{Content: "done"},
	)
	if err := h.run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	ends := toolEnds(h)
	if len(ends) != 3 {
		t.Fatalf("%d tool ends", len(ends))
	}
	for _, e := range ends {
		if e.IsError {
			t.Errorf("call %s ran alone: the read-only calls were not run in parallel", e.ID)
		}
	}
	// Results go back in call order whatever order they finished in.
	msgs := h.srv.Requests()[1].Messages
	tail := msgs[len(msgs)-3:]
	for i, m := range tail {
		if want := `{"id":"` + string(rune('1'+i)) + `"}`; !strings.Contains(m.Content, want) {
			t.Errorf("result %d = %q, want it to answer %s", i, m.Content, want)
		}
	}
}

func TestCancelMidStream(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	chunks := make([]string, 200)
	for i := range chunks {
		chunks[i] = "word "
	}
	h.srv.Script(ollamatest.Reply{Chunks: chunks, ChunkDelay: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for {
			if strings.Contains(h.answer(), "word word") {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	err := h.run(ctx, "talk")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if d := h.done(); d.Reason != DoneCanceled {
		t.Errorf("done reason = %q, want canceled", d.Reason)
	}
	if n := len(h.rec.messages); n != 2 || !strings.HasPrefix(h.rec.messages[1].Content, "word word") {
		t.Errorf("recorded %d messages (%+v); want the prompt and the partial answer", n, h.rec.messages)
	}
}

func TestTurnLimit(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) { c.MaxTurns = 5 }))
	h.srv.Respond(func(req api.ChatRequest) ollamatest.Reply {
		// A different search each time: busy, not looping.
		return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "grep", Args: fmt.Sprintf(`{"pattern":"x%d"}`, len(req.Messages))}}}
	})
	if err := h.run(t.Context(), "loop forever"); err != nil {
		t.Fatal(err)
	}
	if got := len(h.srv.Requests()); got != 5 {
		t.Errorf("%d requests, want 5", got)
	}
	d := h.done()
	if d.Reason != DoneMaxTurns || d.Turns != 5 {
		t.Errorf("done = %+v", d)
	}
	var notices []string
	for _, e := range h.events {
		if n, ok := e.(Notice); ok {
			notices = append(notices, n.Text)
		}
	}
	if len(notices) != 2 || !strings.Contains(notices[0], "turn 4 of 5") || !strings.Contains(notices[1], "stopped after 5") {
		t.Errorf("notices = %q, want a warning at 80%% and a stop notice", notices)
	}
}

func TestBadCallsBecomeResults(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{
			{Name: "delete_everything", Args: `{}`},
			{Name: "read_file", Args: `{"offset":1}`},
			{Name: "Read-File", Args: `{"path":"hello.txt"}`},
		}},
		ollamatest.Reply{Content: "ok"},
	)
	if err := h.run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	ends := toolEnds(h)
	if len(ends) != 3 {
		t.Fatalf("%d tool ends", len(ends))
	}
	// Read-only calls finish in any order; put them back in call order.
	var order []string
	for _, e := range h.events {
		if ts, ok := e.(ToolStart); ok {
			order = append(order, ts.ID)
		}
	}
	slices.SortFunc(ends, func(a, b ToolEnd) int { return slices.Index(order, a.ID) - slices.Index(order, b.ID) })
	if !ends[0].IsError || !strings.Contains(ends[0].Output, `unknown tool "delete_everything"`) || !strings.Contains(ends[0].Output, "read_file, list_dir, grep, glob") {
		t.Errorf("unknown tool result = %q", ends[0].Output)
	}
	if !ends[1].IsError || !strings.Contains(ends[1].Output, "read_file needs path") {
		t.Errorf("bad args result = %q", ends[1].Output)
	}
	if ends[2].IsError || !strings.Contains(ends[2].Output, "hello from the fixture") {
		t.Errorf("misspelt name was not forgiven: %q", ends[2].Output)
	}
	if d := h.done(); d.Reason != DoneStop {
		t.Errorf("the loop did not go on after bad calls: %+v", d)
	}
}

func TestModelFailures(t *testing.T) {
	tests := []struct {
		name    string
		reply   ollamatest.Reply
		wantErr error
		partial string
	}{
		{"server error", ollamatest.Reply{Status: 500, Error: "something broke"}, nil, ""},
		{"dropped stream keeps partial answer", ollamatest.Reply{Chunks: []string{"partial ", "answer ", "lost"}, DropAfter: 2}, models.ErrIncomplete, "partial answer "},
		{"model gone", ollamatest.Reply{Status: 404, Error: "model 'qwen3:8b' not found"}, models.ErrModelNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, ollamatest.Qwen3())
			h.srv.Script(tt.reply)
			err := h.run(t.Context(), "hi")
			if err == nil {
				t.Fatal("Run succeeded")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Run = %v, want %v", err, tt.wantErr)
			}
			if d := h.done(); d.Reason != DoneError || d.Error == "" {
				t.Errorf("done = %+v", d)
			}
			if h.rec.messages[0].Content != "hi" {
				t.Error("the prompt was not kept")
			}
			if tt.partial != "" && (len(h.rec.messages) != 2 || h.rec.messages[1].Content != tt.partial) {
				t.Errorf("recorded %+v, want the partial answer %q kept", h.rec.messages, tt.partial)
			}
		})
	}
}

func TestTextToolProtocol(t *testing.T) {
	h := newHarness(t, ollamatest.TinyTools(), withConfig(func(c *Config) { c.TextTools = true }))
	h.srv.Script(
		ollamatest.Reply{Content: "Let me look.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"hello.txt\"}}</tool_call>"},
		ollamatest.Reply{Content: "It greets."},
	)
	if err := h.run(t.Context(), "read hello.txt"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 || len(reqs[0].Tools) != 0 {
		t.Fatalf("requests = %d, tools sent = %d; want 2 requests and no native tools", len(reqs), len(reqs[0].Tools))
	}
	msgs := reqs[1].Messages
	call, result := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if call.Role != "assistant" || !strings.Contains(call.Content, `<tool_call>{"name": "read_file"`) {
		t.Errorf("the call was not replayed as text: %+v", call)
	}
	if result.Role != "user" || !strings.Contains(result.Content, "<tool_response name=\"read_file\">") || !strings.Contains(result.Content, "hello from the fixture") {
		t.Errorf("the result was not sent as a user message: %+v", result)
	}
	ends := toolEnds(h)
	if len(ends) != 1 || ends[0].IsError {
		t.Errorf("tool ends = %+v", ends)
	}
	var msgEvents []Message
	for _, e := range h.events {
		if m, ok := e.(Message); ok {
			msgEvents = append(msgEvents, m)
		}
	}
	if msgEvents[0].Message.Content != "Let me look." {
		t.Errorf("the call text was shown as the answer: %q", msgEvents[0].Message.Content)
	}
	if h.rec.calls[0].Repair != models.RepairTagged {
		t.Errorf("repair = %q, want tagged", h.rec.calls[0].Repair)
	}
}

// writeTool is a tool that changes something, so it needs approval.
type writeTool struct{ ran bool }

func (w *writeTool) Spec() models.ToolSpec {
	return models.ToolSpec{Name: "touch", Description: "test", Parameters: models.Schema()}
}
func (w *writeTool) Effect() tools.Effect { return tools.Writes }
func (w *writeTool) Run(context.Context, tools.Input) tools.Result {
	w.ran = true
	return tools.Result{Output: "touched", Summary: "touched"}
}

func TestApproval(t *testing.T) {
	for _, allow := range []bool{false, true} {
		t.Run(map[bool]string{false: "denied", true: "granted"}[allow], func(t *testing.T) {
			wt := &writeTool{}
			var asked []Approval
			ap := ApproverFunc(func(_ context.Context, a Approval) (Decision, error) {
				asked = append(asked, a)
				return Decision{Allow: allow, Reason: "not today"}, nil
			})
			h := newHarness(t, ollamatest.Qwen3(), withTools(wt), withApprover(ap))
			h.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "touch", Args: `{}`}}}, ollamatest.Reply{Content: "ok"})
			if err := h.run(t.Context(), "touch it"); err != nil {
				t.Fatal(err)
			}
			if len(asked) != 1 || asked[0].Tool != "touch" || asked[0].Effect != tools.Writes {
				t.Fatalf("approvals asked = %+v", asked)
			}
			if end := toolEnds(h)[0]; asked[0].ID == "" || asked[0].ID != end.ID {
				t.Errorf("the approval names call %q, the call is %q", asked[0].ID, end.ID)
			}
			if wt.ran != allow {
				t.Errorf("tool ran = %v, want %v", wt.ran, allow)
			}
			end := toolEnds(h)[0]
			if !allow && (!end.IsError || !strings.Contains(end.Output, "denied") || !strings.Contains(end.Output, "not today")) {
				t.Errorf("denial result = %q", end.Output)
			}
		})
	}
}

func TestRequestsStayInsideTheWindow(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) {
		c.NumCtx = 2048
		c.CompactAt = 1 // off: this checks assembly alone
		for i := range 60 {
			c.History = append(c.History,
				models.Message{Role: models.RoleUser, Content: strings.Repeat("question words ", 20) + string(rune('a'+i%26))},
				models.Message{Role: models.RoleAssistant, Content: strings.Repeat("answer words ", 30)})
		}
	}))
	h.srv.Script(ollamatest.Reply{Content: "fits"})
	if err := h.run(t.Context(), "newest question"); err != nil {
		t.Fatal(err)
	}
	rec := h.srv.Records()[0]
	if rec.Truncated {
		t.Errorf("the server had to truncate: %d prompt tokens in a %d window", rec.PromptTokens, rec.NumCtx)
	}
	msgs := rec.Request.Messages
	if msgs[0].Role != "system" || msgs[len(msgs)-1].Content != "newest question" {
		t.Errorf("request must start with the system prompt and end with the new question")
	}
	var m Message
	for _, e := range h.events {
		if me, ok := e.(Message); ok {
			m = me
		}
	}
	if m.Usage == nil || m.Usage.Dropped == 0 || m.Usage.Estimate > 2048 {
		t.Errorf("usage = %+v; want history dropped and the estimate inside the window", m.Usage)
	}
}

func TestMarshalEvent(t *testing.T) {
	tests := []struct {
		e    Event
		want string
	}{
		{Token{Text: "hi"}, `{"type":"token","text":"hi"}`},
		{Notice{Level: Warn, Text: "x"}, `{"type":"notice","level":"warn","text":"x"}`},
		{ToolStart{ID: "c1", Name: "grep", Args: json.RawMessage(`{"pattern":"x"}`)}, `{"type":"tool_start","id":"c1","name":"grep","args":{"pattern":"x"}}`},
		{Done{Reason: DoneStop, Turns: 1}, `{"type":"done","reason":"stop","turns":1,"prompt_tokens":0,"eval_tokens":0,"duration_ns":0}`},
	}
	for _, tt := range tests {
		got, err := MarshalEvent(tt.e)
		if err != nil || string(got) != tt.want {
			t.Errorf("MarshalEvent(%T) = %s, %v; want %s", tt.e, got, err, tt.want)
		}
	}
}
