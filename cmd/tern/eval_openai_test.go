package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/eval"
)

// TestEvalReplayOpenAI plays the whole suite's transcripts against a fake
// llama-server (--backend openai): the same failure shapes, streamed as
// OpenAI-compatible deltas, must be repaired the same way.
func TestEvalReplayOpenAI(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the whole suite")
	}
	f := newFixture(t)
	code, out, errOut := f.tern(t.Context(), "eval", "--replay", "--backend", "openai", "--json")
	var r eval.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d, output is not a report: %v\n%s\n%s", code, err, out, errOut)
	}
	byName := map[string]eval.Result{}
	for _, res := range r.Results {
		byName[res.Task] = res
		if res.Status != eval.Pass && !(res.Status == eval.Skip && strings.Contains(res.Why, "which this build does not offer")) {
			t.Errorf("%s: %s: %s", res.Task, res.Status, res.Why)
		}
		if res.Status == eval.Pass && res.PromptTokens == 0 {
			t.Errorf("%s: no prompt tokens: the fake's usage did not reach the report", res.Task)
		}
	}
	if code != 0 || r.Summary.Tasks < 12 {
		t.Errorf("exit %d, summary %+v", code, r.Summary)
	}
	for task, want := range map[string]string{
		"find-definition":   "bare",
		"count-tests":       "tagged+string",
		"explain-function":  "native+name",
		"parse-error-retry": "tagged", // llama-server's parse error, retried in the text protocol
		"text-protocol":     "tagged", // a model without tools: llama-server without --jinja
	} {
		if got := byName[task].Repaired[want]; got == 0 {
			t.Errorf("%s: repaired = %v, want a %s repair", task, byName[task].Repaired, want)
		}
	}
	if res := byName["loop-recovery"]; res.Turns != 4 || res.ToolCalls != 3 || res.Done != "stop" {
		t.Errorf("loop-recovery: %+v; want the third read refused and an answer", res)
	}
}

// TestEvalReplayOpenAIModes: --modes compares the tool modes on an
// OpenAI-compatible server too; constrained is its own mode there, not
// the text protocol under another name.
func TestEvalReplayOpenAIModes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, out, errOut := f.tern(t.Context(), "eval", "--replay", "--backend", "openai", "--json", "--modes", "native,text,constrained", "--run", "find-definition")
	var r eval.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d, output is not a report: %v\n%s\n%s", code, err, out, errOut)
	}
	for _, mode := range []string{"native", "text", "constrained"} {
		if m := r.Summary.Modes[mode]; m == nil || m.Tasks != 1 || m.Passed != 1 || m.Valid != 1 {
			t.Errorf("%s: %+v; want the task passed with its one call valid", mode, m)
		}
	}
}
