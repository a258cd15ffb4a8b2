package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/tools"
)

// lastMessage is the final message of request i.
func (h *harness) lastMessage(i int) api.Message {
	h.t.Helper()
	reqs := h.srv.Requests()
	if i >= len(reqs) {
		h.t.Fatalf("only %d requests", len(reqs))
	}
	msgs := reqs[i].Messages
	return msgs[len(msgs)-1]
}

func readCall(path string) ollamatest.Reply {
	return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"` + path + `"}`}}}
}

func TestLoopIsBrokenByCorrection(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	h.srv.Script(readCall("hello.txt"), readCall("hello.txt"), readCall("hello.txt"),
		ollamatest.Reply{Content: "It says hello."})
	if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
		t.Fatal(err)
	}
	ends := toolEnds(h)
	if len(ends) != 3 || ends[1].IsError || !ends[2].IsError {
		t.Fatalf("tool ends = %+v; want two reads and the third refused", ends)
	}
	fourth := h.lastMessage(3)
	if fourth.Role != "tool" || !strings.Contains(fourth.Content, "Not run again: you already called read_file with these arguments 2 times") {
		t.Errorf("the model was not told it repeats itself: %+v", fourth)
	}
	if d := h.done(); d.Reason != DoneStop || h.answer() != "It says hello." {
		t.Errorf("done = %+v, answer %q", d, h.answer())
	}
	if n := len(h.srv.Requests()[3].Tools); n != 4 {
		t.Errorf("the first correction restricted the tools (%d offered)", n)
	}
}

func TestLoopEscalatesThenStops(t *testing.T) {
	wt := &writeTool{}
	h := newHarness(t, ollamatest.Qwen3(), withTools(wt))
	h.srv.Respond(func(api.ChatRequest) ollamatest.Reply { return readCall("hello.txt") })
	if err := h.run(t.Context(), "loop"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests; want 2 reads, 2 corrections and a stop", len(reqs))
	}
	// After the second correction, one request offers only read-only tools.
	if got := len(reqs[4].Tools); got != 4 {
		t.Errorf("request 5 offered %d tools, want the 4 read-only ones", got)
	}
	if got := len(reqs[3].Tools); got != 5 {
		t.Errorf("request 4 offered %d tools, want all 5", got)
	}
	if !strings.Contains(h.lastMessage(4).Content, "For your next reply only these tools are available: read_file, list_dir, grep, glob.") {
		t.Errorf("the second correction does not name the tools left: %q", h.lastMessage(4).Content)
	}
	d := h.done()
	notices := h.notices()
	if d.Reason != DoneStuck || len(notices) == 0 || !strings.Contains(notices[len(notices)-1], "kept repeating the same tool call") {
		t.Errorf("done = %+v, notices %q; want the turn stopped with a notice", d, notices)
	}
	// Every call was answered, so the history stays whole.
	if last := h.rec.messages[len(h.rec.messages)-1]; last.Role != models.RoleTool {
		t.Errorf("the history ends with %+v, not the last call's answer", last)
	}
}

func TestRestrictedRequestRefusesWrites(t *testing.T) {
	wt := &writeTool{}
	allow := ApproverFunc(func(context.Context, Approval) (Decision, error) { return Decision{Allow: true}, nil })
	h := newHarness(t, ollamatest.Qwen3(), withTools(wt), withApprover(allow))
	h.srv.Script(ollamatest.Reply{}, ollamatest.Reply{},
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "touch", Args: `{}`}}},
		ollamatest.Reply{Content: "done"})
	if err := h.run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if wt.ran {
		t.Error("a write ran in a request that offered only read-only tools")
	}
	ends := toolEnds(h)
	if len(ends) != 1 || !strings.Contains(ends[0].Output, "touch was not available for this reply") {
		t.Errorf("tool ends = %+v", ends)
	}
}

func TestEmptyReplyIsNudged(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	h.srv.Script(ollamatest.Reply{Content: "  "}, ollamatest.Reply{Content: "Here is the answer."})
	if err := h.run(t.Context(), "hi"); err != nil {
		t.Fatal(err)
	}
	nudge := h.lastMessage(1)
	if nudge.Role != "user" || !strings.Contains(nudge.Content, "Your reply was empty") || !strings.Contains(nudge.Content, `<tool_call>{"name": "read_file", "arguments": {"path": "main.go"}}</tool_call>`) {
		t.Errorf("second request ends with %+v, want the empty-reply nudge with an example", nudge)
	}
	if strings.TrimSpace(h.answer()) != "Here is the answer." || h.done().Reason != DoneStop {
		t.Errorf("answer %q, done %+v", h.answer(), h.done())
	}
}

func TestBrokenCallIsCorrected(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	h.srv.Script(
		ollamatest.Reply{Content: "Let me look.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": hello.txt}</tool_call>garbage {{"},
		ollamatest.Reply{Content: "<tool_call>I will read hello.txt</tool_call>"},
		ollamatest.Reply{Content: "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"hello.txt\"}}</tool_call>"},
		ollamatest.Reply{Content: "It says hello."},
	)
	if err := h.run(t.Context(), "read hello.txt"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h.answer(), "tool_call") || strings.Contains(h.answer(), "I will read") {
		t.Errorf("call text was shown to the user: %q", h.answer())
	}
	// The first reply was repaired (an unquoted string), not corrected.
	if len(h.rec.calls) < 1 || h.rec.calls[0].Repair != "tagged+json" {
		t.Fatalf("recorded calls = %+v; want the first call repaired", h.rec.calls)
	}
	correction := h.lastMessage(2)
	if correction.Role != "user" || !strings.Contains(correction.Content, "Your tool call could not be read") ||
		!strings.Contains(correction.Content, `{"name": "read_file", "arguments": {"path": "main.go"}}`) {
		t.Errorf("third request ends with %+v, want a correction with one valid call", correction)
	}
	var invalid int
	for _, c := range h.rec.calls {
		if c.Summary == InvalidCall {
			invalid++
		}
	}
	if invalid != 1 || h.done().Reason != DoneStop {
		t.Errorf("%d invalid calls recorded, done %+v", invalid, h.done())
	}
}

func TestRepairedCallsAreRecordedAndReplayedValid(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	h.srv.Script(
		ollamatest.Reply{Content: `{"name": "Read-File", "arguments": "{\"path\": \"hello.txt\", \"limit\": \"5\"}"}`},
		ollamatest.Reply{Content: "Done."},
	)
	if err := h.run(t.Context(), "read"); err != nil {
		t.Fatal(err)
	}
	if len(h.rec.calls) != 1 || h.rec.calls[0].Repair != "bare+string+name+coerce" || h.rec.calls[0].IsError {
		t.Fatalf("recorded = %+v", h.rec.calls)
	}
	// The history carries the mended call, which is what the model sees.
	msgs := h.srv.Requests()[1].Messages
	call := msgs[len(msgs)-2]
	if len(call.ToolCalls) != 1 || call.ToolCalls[0].Function.Name != "read_file" || call.ToolCalls[0].Function.Arguments.String() != `{"path":"hello.txt","limit":5}` {
		t.Errorf("replayed call = %+v", call)
	}
	var start ToolStart
	for _, e := range h.events {
		if s, ok := e.(ToolStart); ok {
			start = s
		}
	}
	if start.Repair != "bare+string+name+coerce" {
		t.Errorf("tool_start repair = %q", start.Repair)
	}
}

// TestToolParseErrorReadsTheQuotedCall: a server that could not parse a
// call but quotes what the model wrote gives tern the call to read: it
// runs without a retry when it fits the tool.
func TestToolParseErrorReadsTheQuotedCall(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	h.srv.Script(
		ollamatest.Reply{Status: 500, Error: `error parsing tool call: raw='{"name": "read_file", "arguments": {"path": "hello.txt"}', err=unexpected end of JSON input`},
		ollamatest.Reply{Content: "It greets."},
	)
	if err := h.run(t.Context(), "read hello.txt"); err != nil {
		t.Fatal(err)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want the failed one and the one after the call", n)
	}
	if ends := toolEnds(h); len(ends) != 1 || ends[0].IsError || ends[0].Name != "read_file" {
		t.Errorf("tool ends = %+v", ends)
	}
	if !hasNotice(h, "tern read it from the server's error") || h.answer() != "It greets." {
		t.Errorf("notices %q, answer %q", h.notices(), h.answer())
	}
}

// TestToolParseErrorQuotingAnUnfitCall: a quoted call that does not fit
// its tool is no call to correct: the request is retried in text.
func TestToolParseErrorQuotingAnUnfitCall(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	h.srv.Script(
		ollamatest.Reply{Status: 500, Error: `error parsing tool call: raw='{"name": "read_file", "arguments": {"offset": 3', err=unexpected end of JSON input`},
		ollamatest.Reply{Content: `<tool_call>{"name": "read_file", "arguments": {"path": "hello.txt"}}</tool_call>`},
		ollamatest.Reply{Content: "It greets."},
	)
	if err := h.run(t.Context(), "read hello.txt"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 || len(reqs[1].Tools) != 0 {
		t.Fatalf("%d requests; want the failed one retried in the text protocol", len(reqs))
	}
	if ends := toolEnds(h); len(ends) != 1 || ends[0].IsError {
		t.Errorf("tool ends = %+v", ends)
	}
}

func TestToolParseErrorRetriesInText(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	parseErr := ollamatest.Reply{Status: 500, Error: `error parsing tool call: raw='{"name": ', err=unexpected end of JSON input`}
	h.srv.Script(
		parseErr,
		ollamatest.Reply{Content: `<tool_call>{"name": "read_file", "arguments": {"path": "hello.txt"}}</tool_call>`},
		ollamatest.Reply{Content: "It greets."},
	)
	if err := h.run(t.Context(), "read hello.txt"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want the failed one, its text retry and one more", len(reqs))
	}
	retry := reqs[1]
	if len(retry.Tools) != 0 || !strings.Contains(retry.Messages[0].Content, "# Tools") || !strings.Contains(retry.Messages[0].Content, "- read_file(") {
		t.Errorf("the retry is not in the text protocol: %d tools, system:\n%s", len(retry.Tools), retry.Messages[0].Content)
	}
	if len(reqs[2].Tools) != 4 || reqs[2].Messages[0].Content != "You are a test." {
		t.Error("one parse error switched the whole session to text")
	}
	if ends := toolEnds(h); len(ends) != 1 || ends[0].IsError {
		t.Errorf("tool ends = %+v", ends)
	}
	if h.answer() != "It greets." || h.done().Turns != 3 {
		t.Errorf("answer = %q, done %+v; want 3 requests counted", h.answer(), h.done())
	}

	// A second parse error in the session switches it to text for good.
	h.srv.Script(parseErr, ollamatest.Reply{Content: "Still here."}, ollamatest.Reply{Content: "Text now."})
	if err := h.run(t.Context(), "again"); err != nil {
		t.Fatal(err)
	}
	if err := h.run(t.Context(), "and again"); err != nil {
		t.Fatal(err)
	}
	reqs = h.srv.Requests()
	if last := reqs[len(reqs)-1]; len(last.Tools) != 0 || !h.agent.TextTools() {
		t.Error("two parse errors did not switch the session to the text protocol")
	}
	var switched bool
	for _, n := range h.notices() {
		switched = switched || strings.Contains(n, "switching to the text tool protocol")
	}
	if !switched {
		t.Errorf("no notice said the protocol changed: %q", h.notices())
	}
}

func TestUnreadableNativeCallsSwitchToText(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3())
	broken := ollamatest.Reply{Content: "<tool_call>please read hello.txt</tool_call>"}
	h.srv.Script(broken, broken, broken,
		ollamatest.Reply{Content: `<tool_call>{"name": "read_file", "arguments": {"path": "hello.txt"}}</tool_call>`},
		ollamatest.Reply{Content: "It says hello."})
	if err := h.run(t.Context(), "read hello.txt"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 5 || len(reqs[3].Tools) != 0 {
		t.Fatalf("%d requests; the fourth offered %d native tools, want the text protocol after three unreadable calls", len(reqs), len(reqs[3].Tools))
	}
	if h.done().Reason != DoneStop || h.answer() != "It says hello." {
		t.Errorf("done %+v answer %q", h.done(), h.answer())
	}
}

func TestTextProtocolWithoutToolsCapability(t *testing.T) {
	h := newHarness(t, ollamatest.Tiny(), withConfig(func(c *Config) {
		c.TextTools, c.ToolFormat = true, models.FormatLlama
	}))
	h.srv.Script(
		ollamatest.Reply{Content: `{"name": "read_file", "parameters": {"path": "hello.txt"}}`},
		ollamatest.Reply{Content: "It greets."},
	)
	if err := h.run(t.Context(), "read hello.txt"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	sys := reqs[0].Messages[0].Content
	if !strings.HasPrefix(sys, "You are a test.\n") || !strings.Contains(sys, `{"name": "read_file", "parameters": {"path": "main.go"}}`) {
		t.Errorf("system prompt does not describe the tools in the llama format:\n%s", sys)
	}
	msgs := reqs[1].Messages
	if call := msgs[len(msgs)-2]; call.Content != `{"name": "read_file", "parameters": {"path": "hello.txt"}}` {
		t.Errorf("the call was not replayed in the model's own format: %q", call.Content)
	}
	if h.rec.calls[0].Repair != "bare+alias" || h.answer() != "It greets." {
		t.Errorf("repair %q, answer %q", h.rec.calls[0].Repair, h.answer())
	}
}

func TestOneToolPerReply(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) { c.OneToolPerReply = true }))
	h.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_file", Args: `{"path":"hello.txt"}`}, {Name: "read_file", Args: `{"path":"b.txt"}`}}},
		ollamatest.Reply{Content: "ok"},
	)
	if err := h.run(t.Context(), "read both"); err != nil {
		t.Fatal(err)
	}
	msgs := h.srv.Requests()[1].Messages
	first, second := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if !strings.Contains(first.Content, "hello from the fixture") || !strings.Contains(second.Content, "Not run: call one tool per reply") {
		t.Errorf("results = %q / %q", first.Content, second.Content)
	}
}

func TestRunawayThinkingIsCut(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) { c.Think, c.ThinkBudget = "true", 30 }))
	h.srv.Script(
		ollamatest.Reply{Thinking: strings.Repeat("Let me reconsider the question once more. ", 100), Content: "late"},
		ollamatest.Reply{Content: "The answer."},
	)
	if err := h.run(t.Context(), "think"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if reqs[0].Think == nil || !reqs[0].Think.Bool() || reqs[1].Think == nil || reqs[1].Think.Bool() {
		t.Errorf("think = %v then %v; want on, then off after the cut", reqs[0].Think, reqs[1].Think)
	}
	if !strings.Contains(h.lastMessage(1).Content, "You thought for too long") {
		t.Errorf("no nudge after the cut: %q", h.lastMessage(1).Content)
	}
	if h.answer() != "The answer." || h.done().Reason != DoneStop {
		t.Errorf("answer %q, done %+v", h.answer(), h.done())
	}
	if len(h.rec.turns) != 2 || h.rec.turns[0].DoneReason != doneThinkingCap {
		t.Errorf("turns = %+v", h.rec.turns)
	}
}

// bigTool answers with more text than half a small window, whatever cap
// it is given, so each result pushes the one before out of the window.
type bigTool struct{}

func (bigTool) Spec() models.ToolSpec {
	return models.ToolSpec{Name: "read_big", Description: "test", Parameters: models.Schema(models.Param{Name: "path", Type: "string", Required: true})}
}
func (bigTool) Effect() tools.Effect { return tools.ReadOnly }
func (bigTool) Run(_ context.Context, in tools.Input) tools.Result {
	var big strings.Builder
	for i := range 120 {
		fmt.Fprintf(&big, "line %d of %s, a long file about parsing configuration values\n", i, in.Args)
	}
	return tools.Result{Output: big.String(), Summary: "big"}
}

func TestRereadAfterTheWindowDropsIt(t *testing.T) {
	// Compaction off: it would stub the old results instead of dropping them.
	h := newHarness(t, ollamatest.Qwen3(), withTools(bigTool{}), withConfig(func(c *Config) { c.NumCtx = 2048; c.CompactAt = 1 }))
	call := func(path string) ollamatest.Reply {
		return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "read_big", Args: `{"path":"` + path + `"}`}}}
	}
	h.srv.Script(call("a.txt"), call("b.txt"), call("a.txt"), call("b.txt"), call("a.txt"),
		ollamatest.Reply{Content: "Both are long."})
	if err := h.run(t.Context(), "compare a.txt and b.txt"); err != nil {
		t.Fatal(err)
	}
	ends := toolEnds(h)
	if len(ends) != 5 {
		t.Fatalf("%d tool ends", len(ends))
	}
	if !strings.Contains(ends[4].Output, "earlier results were dropped to fit the context window") || !strings.Contains(ends[4].Output, "line 1 of") {
		t.Errorf("the fifth read did not run with a re-read correction:\n%.300s", ends[4].Output)
	}
	if strings.Contains(ends[2].Output, "dropped to fit") {
		t.Error("the first re-read was already corrected")
	}
}

func TestCloseCalls(t *testing.T) {
	call := func(id string) models.ToolCall {
		return models.ToolCall{ID: id, Name: "run_command", Arguments: []byte(`{}`)}
	}
	result := func(id string) models.Message {
		return models.Message{Role: models.RoleTool, ToolCallID: id, ToolName: "run_command", Content: "ok"}
	}
	history := []models.Message{
		{Role: models.RoleUser, Content: "go"},
		{Role: models.RoleAssistant, ToolCalls: []models.ToolCall{call("a"), call("b")}},
		result("a"),
		{Role: models.RoleUser, Content: "again"},
		{Role: models.RoleAssistant, ToolCalls: []models.ToolCall{call("c")}},
	}
	got := closeCalls(history)
	var roles []string
	for _, m := range got {
		roles = append(roles, string(m.Role)+":"+m.ToolCallID)
	}
	want := []string{"user:", "assistant:", "tool:a", "tool:b", "user:", "assistant:", "tool:c"}
	if !slices.Equal(roles, want) {
		t.Fatalf("closed history %v, want %v", roles, want)
	}
	if !strings.Contains(got[3].Content, "interrupted") || got[3].ToolName != "run_command" {
		t.Errorf("synthetic result %+v", got[3])
	}
	if again := closeCalls(got); len(again) != len(got) {
		t.Errorf("closing a closed history changed it: %d → %d", len(got), len(again))
	}
}
