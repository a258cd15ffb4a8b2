package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollamatest"
)

func TestConstrainedMode(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) { c.Constrained, c.Think = true, "true" }))
	h.srv.Script(ollamatest.Reply{Content: `{"name": "read_file", "arguments": {"path": "hello.txt"}}`},
		ollamatest.Reply{Content: `{"answer": "It says hello."}`})
	if err := h.run(t.Context(), "what does hello.txt say?"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	first := reqs[0]
	var schema struct {
		AnyOf []json.RawMessage `json:"anyOf"`
	}
	if err := json.Unmarshal(first.Format, &schema); err != nil || len(schema.AnyOf) != 5 {
		t.Fatalf("format = %s; want anyOf the 4 tools and the answer", first.Format)
	}
	if len(first.Tools) != 0 || first.Think == nil || first.Think.Value != false {
		t.Errorf("a constrained request offered native tools (%d) or thinking (%v)", len(first.Tools), first.Think)
	}
	if sys := first.Messages[0].Content; !strings.Contains(sys, `{"answer": "your final answer"}`) || !strings.Contains(sys, `{"name": "read_file", "arguments": {"path": "main.go"}}`) {
		t.Errorf("system prompt does not describe the reply shapes:\n%s", sys)
	}
	ends := toolEnds(h)
	if len(ends) != 1 || ends[0].IsError || !strings.Contains(ends[0].Output, "hello from the fixture") {
		t.Fatalf("tool ends = %+v", ends)
	}
	if h.rec.calls[0].Repair != models.RepairConstrained {
		t.Errorf("repair = %q", h.rec.calls[0].Repair)
	}
	hist := reqs[1].Messages
	if got := hist[len(hist)-2]; got.Role != "assistant" || got.Content != `{"name": "read_file", "arguments": {"path": "hello.txt"}}` {
		t.Errorf("the call goes back to the model as %+v", got)
	}
	if h.answer() != "It says hello." {
		t.Errorf("answer shown = %q; want the text out of its JSON", h.answer())
	}
	last := h.rec.messages[len(h.rec.messages)-1]
	if last.Content != "It says hello." {
		t.Errorf("answer kept as %q", last.Content)
	}
}

func TestTextModeMovesToConstrainedAfterUnreadableCalls(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) { c.TextTools = true }))
	bad := ollamatest.Reply{Content: "<tool_call>I want to read hello.txt to see the greeting.</tool_call>"}
	h.srv.Script(bad, bad, ollamatest.Reply{Content: `{"answer": "done"}`})
	if err := h.run(t.Context(), "read hello.txt"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 || len(reqs[1].Format) != 0 || len(reqs[2].Format) == 0 {
		t.Fatalf("%d requests; want the third held to the schema", len(reqs))
	}
	if !h.agent.Constrained() || h.answer() != "done" {
		t.Errorf("constrained %v, answer %q", h.agent.Constrained(), h.answer())
	}
	found := false
	for _, n := range h.notices() {
		found = found || strings.Contains(n, "holding its replies to a JSON schema")
	}
	if !found {
		t.Errorf("no notice of the move: %q", h.notices())
	}
}

func TestConstrainedSchemaShapes(t *testing.T) {
	specs := []models.ToolSpec{
		{Name: "read_file", Parameters: models.Schema(models.Param{Name: "path", Type: "string", Required: true}, models.Param{Name: "limit", Type: "integer"})},
		{Name: "odd", Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/defs/x"},"tags":{"type":"array","items":{"type":"object"}},"mode":{"type":"string","enum":["a","b"]}}}`)},
	}
	got := string(models.ConstrainedSchema(specs, models.ConstrainedLimits{}))
	want := `{"anyOf":[{"type":"object","properties":{"name":{"const":"read_file"},"arguments":{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"]}},"required":["name","arguments"]},` +
		`{"type":"object","properties":{"name":{"const":"odd"},"arguments":{"type":"object","properties":{"x":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},"mode":{"type":"string","enum":["a","b"]}}}},"required":["name","arguments"]},` +
		`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}]}`
	if got != want {
		t.Errorf("schema =\n%s\nwant\n%s", got, want)
	}
	if !json.Valid([]byte(got)) {
		t.Error("not JSON")
	}
}

func TestConstrainedLimits(t *testing.T) {
	specs := []models.ToolSpec{
		{Name: "write_file", Parameters: models.Schema(models.Param{Name: "path", Type: "string", Required: true}, models.Param{Name: "content", Type: "string", Required: true})},
		{Name: "edit_file", Parameters: models.Schema(models.Param{Name: "path", Type: "string", Required: true},
			models.Param{Name: "old_string", Type: "string", Required: true}, models.Param{Name: "new_string", Type: "string", Required: true})},
		{Name: "list_dir", Parameters: models.Schema(models.Param{Name: "recursive", Type: "boolean"})},
	}
	l := models.ConstrainedLimitsFor(specs, 2000)
	if l.Answer != 1500 || l.Args["write_file"]["path"] != 256 || l.Args["write_file"]["content"] != 1244 ||
		l.Args["edit_file"]["old_string"] != 622 || len(l.Args["list_dir"]) != 0 {
		t.Errorf("limits = %+v", l)
	}
	// Every tool's strings together stay within three quarters of the budget.
	for tool, caps := range l.Args {
		sum := 0
		for _, c := range caps {
			sum += c
		}
		if sum > 1500 {
			t.Errorf("%s: strings may take %d characters of a 2000-token reply", tool, sum)
		}
	}
	schema := string(models.ConstrainedSchema(specs, l))
	for _, want := range []string{`"content":{"type":"string","maxLength":1244}`, `"answer":{"type":"string","maxLength":1500}`} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %s:\n%s", want, schema)
		}
	}
	// A string that fills its bound may be cut short: not run.
	full := strings.Repeat("x", 1244)
	rec := models.RepairConstrainedReply(models.Message{Content: `{"name": "write_file", "arguments": {"path": "a.txt", "content": "` + full + `"}}`}, specs, l)
	if len(rec.Calls) != 1 || !strings.Contains(rec.Calls[0].Problem, "reached its limit of 1244 characters") {
		t.Errorf("calls = %+v", rec.Calls)
	}
	rec = models.RepairConstrainedReply(models.Message{Content: `{"name": "write_file", "arguments": {"path": "a.txt", "content": "short"}}`}, specs, l)
	if len(rec.Calls) != 1 || rec.Calls[0].Problem != "" {
		t.Errorf("calls = %+v", rec.Calls)
	}
}

func TestConstrainedRequestOverridesStops(t *testing.T) {
	h := newHarness(t, ollamatest.Qwen3(), withConfig(func(c *Config) { c.Constrained = true }))
	h.srv.Script(ollamatest.Reply{Content: `{"answer": "hi"}`})
	if err := h.run(t.Context(), "hi"); err != nil {
		t.Fatal(err)
	}
	req := h.srv.Requests()[0]
	stop, _ := req.Options["stop"].([]any)
	if len(stop) != 1 || stop[0] != "\u0001" || !strings.Contains(string(req.Format), `"maxLength"`) {
		t.Errorf("stop = %v, format %s", req.Options["stop"], req.Format)
	}
}

// TestConstrainedReplyAfterLeakedReasoning: Qwen3 behind a server that
// does not split its reasoning off streams it into the content, then
// "</think>" and the JSON the schema holds it to.
func TestConstrainedReplyAfterLeakedReasoning(t *testing.T) {
	specs := []models.ToolSpec{{Name: "read_file", Parameters: models.Schema(models.Param{Name: "path", Type: "string", Required: true})}}
	rec := models.RepairConstrainedReply(models.Message{Content: "The user wants the file. I should read it.\n</think>\n\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}"}, specs, models.ConstrainedLimits{})
	if len(rec.Calls) != 1 || rec.Calls[0].Problem != "" || rec.Calls[0].Repair() != models.RepairConstrained {
		t.Errorf("calls = %+v", rec.Calls)
	}
	rec = models.RepairConstrainedReply(models.Message{Content: "Done thinking.\n</think>{\"answer\": \"It reads a.go.\"}"}, specs, models.ConstrainedLimits{})
	if len(rec.Calls) != 0 || rec.Rest != "It reads a.go." {
		t.Errorf("answer = %q, calls %+v", rec.Rest, rec.Calls)
	}
	// A reply that is the schema's JSON as a whole keeps every string
	// whole, "</think>" inside included (seen from a random-weight model
	// under Ollama's grammar in make test-real).
	rec = models.RepairConstrainedReply(models.Message{Content: `{"answer": "a</think> b"}`}, specs, models.ConstrainedLimits{})
	if len(rec.Calls) != 0 || rec.Rest != "a</think> b" {
		t.Errorf("answer = %q, calls %+v", rec.Rest, rec.Calls)
	}
	rec = models.RepairConstrainedReply(models.Message{Content: `{"name": "read_file", "arguments": {"path": "x</think>y.go"}}`}, specs, models.ConstrainedLimits{})
	if len(rec.Calls) != 1 || rec.Calls[0].Problem != "" {
		t.Errorf("calls = %+v", rec.Calls)
	}
}
