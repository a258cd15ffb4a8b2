package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ternhq/tern/cmd/tern/internal/eval"
	"github.com/ternhq/tern/models/ollamatest"
)

func TestEvalList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, out, errOut := f.tern(t.Context(), "eval", "--list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 12 {
		t.Errorf("%d tasks listed, want at least 12:\n%s", len(lines), out)
	}
	if !strings.HasPrefix(lines[0], "add-flag ") || !strings.Contains(out, "tier 0") || !strings.Contains(out, "[bare JSON in content]") {
		t.Errorf("list:\n%s", out)
	}
}

// TestEvalReplay runs the whole suite against its recorded transcripts, as
// CI does: every task passes, or is skipped because this build lacks the
// tool it needs, and the metrics show the failure shapes were repaired.
func TestEvalReplay(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the whole suite")
	}
	f := newFixture(t)
	code, out, errOut := f.tern(t.Context(), "eval", "--replay", "--json")
	var r eval.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d, output is not a report: %v\n%s\n%s", code, err, out, errOut)
	}
	byName := map[string]eval.Result{}
	for _, res := range r.Results {
		byName[res.Task] = res
		switch {
		case res.Status == eval.Skip && strings.Contains(res.Why, "which this build does not offer"):
		case res.Status == eval.Pass:
		default:
			t.Errorf("%s: %s: %s", res.Task, res.Status, res.Why)
		}
		if res.Tier == 0 && res.Status != eval.Pass {
			t.Errorf("tier-0 task %s did not pass", res.Task)
		}
	}
	if code != 0 || r.Summary.Tasks < 12 || r.Model != "replay" {
		t.Errorf("exit %d, summary %+v", code, r.Summary)
	}
	for task, want := range map[string]string{
		"find-definition":        "bare",
		"answer-from-search":     "fenced+coerce",
		"count-tests":            "tagged+string",
		"list-packages":          "bare+alias+coerce",
		"explain-function":       "native+name",
		"parse-error-retry":      "tagged",
		"text-protocol":          "tagged",
		"announce-then-envelope": "envelope",
		"placeholder-write":      "function_tag+argname",
		"gemma-edit":             "envelope+json+argname",
		"cline-write":            "xml+name",
		"react-search":           "envelope",
	} {
		if got := byName[task].Repaired[want]; got == 0 {
			t.Errorf("%s: repaired = %v, want a %s repair", task, byName[task].Repaired, want)
		}
	}
	if byName["find-definition"].Mode != "native" || byName["text-protocol"].Mode != "text" {
		t.Errorf("modes: find-definition %q, text-protocol %q", byName["find-definition"].Mode, byName["text-protocol"].Mode)
	}
	if m := r.Summary.Modes["native"]; m == nil || m.Attempts == 0 || m.Share <= 0.9 {
		t.Errorf("native mode summary = %+v; want the share of valid calls", m)
	}
	if res := byName["announce-then-envelope"]; res.Turns != 3 || res.ToolCalls != 1 {
		t.Errorf("announce-then-envelope: %d turns, %d calls; want the announcement nudged, then the call run", res.Turns, res.ToolCalls)
	}
	if res := byName["placeholder-write"]; res.Invalid != 1 || res.Valid != 1 {
		t.Errorf("placeholder-write: %d invalid, %d valid; want the placeholder refused and the real write run", res.Invalid, res.Valid)
	}
	if res := byName["cline-write"]; res.Invalid != 1 || res.Valid != 1 {
		t.Errorf("cline-write: %d invalid, %d valid; want the cut-off write refused and the whole one run", res.Invalid, res.Valid)
	}
	if res := byName["react-search"]; res.Turns != 3 || res.ToolCalls != 1 {
		t.Errorf("react-search: %d turns, %d calls; want the announcement nudged, then the ReAct call run", res.Turns, res.ToolCalls)
	}
	if res := byName["broken-call"]; res.Invalid != 1 || res.Turns != 3 {
		t.Errorf("broken-call: %d invalid, %d turns; want the unreadable call counted and corrected", res.Invalid, res.Turns)
	}
	if res := byName["loop-recovery"]; res.Turns != 4 || res.ToolCalls != 3 || res.Done != "stop" {
		t.Errorf("loop-recovery: %+v; want the third read refused and an answer", res)
	}
	for _, res := range r.Results {
		if res.Status == eval.Pass && (res.PromptTokens == 0 || res.Wall == 0) {
			t.Errorf("%s: no prompt tokens or wall time measured", res.Task)
		}
	}
}

func TestEvalReplayModes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, out, errOut := f.tern(t.Context(), "eval", "--replay", "--json", "--modes", "native,text,constrained", "--run", "find-definition", "--run", "broken-call")
	var r eval.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d, output is not a report: %v\n%s\n%s", code, err, out, errOut)
	}
	if code != 0 || len(r.Results) != 6 {
		t.Fatalf("exit %d, %d results", code, len(r.Results))
	}
	for _, mode := range []string{"native", "text", "constrained"} {
		m := r.Summary.Modes[mode]
		if m == nil || m.Tasks != 2 || m.Passed != 2 || m.Attempts != 3 || m.Valid != 2 {
			t.Errorf("%s: %+v; want 2 tasks passed and 2 of 3 calls valid (one unreadable)", mode, m)
		}
	}
	if code, _, errOut := f.tern(t.Context(), "eval", "--replay", "--modes", "magic"); code == 0 || !strings.Contains(errOut, "not a tool mode") {
		t.Errorf("exit %d for a bad mode: %s", code, errOut)
	}
}

// TestEvalLiveModel runs two read-only tasks against a real Ollama, when
// TERN_OLLAMA_MODEL names a model to measure.
func TestEvalLiveModel(t *testing.T) {
	t.Parallel()
	model := os.Getenv("TERN_OLLAMA_MODEL")
	if model == "" {
		t.Skip("set TERN_OLLAMA_MODEL to run eval tasks against a real Ollama")
	}
	var out, errOut strings.Builder
	args := []string{"eval", "--model", model, "--json", "--run", "find-definition", "--run", "explain-function"}
	code := Main(t.Context(), args, strings.NewReader(""), &out, &errOut, os.Getenv)
	var r eval.Report
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, errOut.String())
	}
	for _, res := range r.Results {
		t.Logf("%s: %s in %d turns, %d calls, repaired %v, %d invalid, %d prompt tokens, %s (%s)",
			res.Task, res.Status, res.Turns, res.ToolCalls, res.Repaired, res.Invalid, res.PromptTokens, res.Wall, res.Why)
		if res.Status == eval.Error {
			t.Errorf("%s could not run: %s", res.Task, res.Why)
		}
	}
}

// TestEvalEscalation: with --escalate-model, a task whose model gets stuck
// moves to the bigger model; the report says which tasks escalated and
// whether that helped (the task passed).
func TestEvalEscalation(t *testing.T) {
	t.Parallel()
	big := ollamatest.Llama32()
	big.Name = "big:latest"
	f := newFixture(t, ollamatest.Qwen3(), big)
	f.srv.Respond(func(r api.ChatRequest) ollamatest.Reply {
		if !strings.HasPrefix(r.Model, "big") {
			return ollamatest.Reply{ToolCalls: []ollamatest.Call{{Name: "grep", Args: `{"pattern":"DefaultPort"}`}}}
		}
		if strings.Contains(r.Messages[1].Content, "DefaultPort") {
			return ollamatest.Reply{Content: "DefaultPort is defined in config/config.go; its value is 8080."}
		}
		return ollamatest.Reply{Content: "I cannot tell."}
	})
	code, out, errOut := f.tern(t.Context(), "eval", "--model", "qwen3:8b", "--escalate-model", "big", "--json",
		"--run", "find-definition", "--run", "explain-function")
	var r eval.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, errOut)
	}
	byName := map[string]eval.Result{}
	for _, res := range r.Results {
		byName[res.Task] = res
	}
	if res := byName["find-definition"]; res.Status != eval.Pass || res.Escalated != "big:latest" || res.EscalatedTurns != 1 {
		t.Errorf("find-definition: %+v", res)
	}
	if res := byName["explain-function"]; res.Status != eval.Fail || res.Escalated != "big:latest" {
		t.Errorf("explain-function: %+v", res)
	}
	if s := r.Summary; s.Escalated != 2 || s.Helped != 1 || r.EscalateModel != "big" || code != 1 {
		t.Errorf("exit %d, summary %+v, escalate model %q", code, s, r.EscalateModel)
	}

	// The table says it in words.
	_, out, _ = f.tern(t.Context(), "eval", "--model", "qwen3:8b", "--escalate-model", "big", "--run", "find-definition")
	for _, want := range []string{"ESCALATED", "helped (1 req)", "escalated to big: 1 of 1 tasks, 1 of them passed after it"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if code, _, errOut := f.tern(t.Context(), "eval", "--replay", "--escalate-model", "big"); code != 2 || !strings.Contains(errOut, "--escalate-model needs a real model") {
		t.Errorf("--replay --escalate-model: exit %d: %s", code, errOut)
	}
}
